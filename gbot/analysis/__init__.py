"""Match analysis (:mod:`gbot.analysis.analyse`) and rollouts of plays and cube decisions."""
