"""Evaluation: exact bear-off tables, the neural nets and the evaluator that picks between them."""
