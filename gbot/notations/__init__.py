"""The notations: text forms of a position, a match state and a play.

:mod:`gbot.notations.position_id` (gnubg's Position ID), :mod:`gbot.notations.match_id`
(gnubg's Match ID bits), :mod:`gbot.notations.xgid` (eXtreme Gammon's XGID) and
:mod:`gbot.notations.move_text` (move text such as ``24/18 13/11*``). The ``board:`` line has
its own owner, :mod:`gbot.protocols.fibs_board`. The old import paths ``gbot.ids``,
``gbot.matchid``, ``gbot.xgid`` and ``gbot.moves`` name the same module objects.
"""
