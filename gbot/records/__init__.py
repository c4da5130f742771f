"""Match records: the files a match is saved in and read back from.

:mod:`gbot.records.matfile` (Jellyfish ``.mat``, read and written), :mod:`gbot.records.sgf`
(gnubg's ``.sgf``, written), :mod:`gbot.records.sgf_read` (``.sgf``, read) and
:mod:`gbot.records.notes` (the rules line and gnubg's import warnings both writers put in the
file), :mod:`gbot.records.xg` (eXtreme Gammon's ``.xg`` and ``.xgp``, read).
Each replays or walks a :class:`gbot.game.referee.MatchRecord`.
"""
