"""Match records: the files a match is saved in and read back from.

:mod:`gbot.records.matfile` (Jellyfish ``.mat``, read and written), :mod:`gbot.records.sgf`
(gnubg's ``.sgf``, written), :mod:`gbot.records.sgf_read` (``.sgf``, read) and
:mod:`gbot.records.notes` (the rules line and gnubg's import warnings both writers put in the
file). Each replays or walks a :class:`gbot.referee.MatchRecord`. The old import paths
``gbot.matfile``, ``gbot.sgf``, ``gbot.sgf_read`` and ``gbot.matchnotes`` name the same module
objects.
"""
