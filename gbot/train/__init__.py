"""Training pipeline for gbot's networks (not needed at run time; torch is imported lazily).

Modules: :mod:`gbot.train.data` (labelled position sets), :mod:`gbot.train.fit` (supervised
fitting with torch), :mod:`gbot.train.selfplay` (positions from our own play),
:mod:`gbot.train.label` (labels from gnubg-nn), :mod:`gbot.train.td` (TD(lambda) bootstrap).
"""
