"""The notations: text forms of a position, a match state and a play.

:mod:`gbot.game.notations.position_id` (gnubg's Position ID), :mod:`gbot.game.notations.match_id`
(gnubg's Match ID bits), :mod:`gbot.game.notations.xgid` (eXtreme Gammon's XGID) and
:mod:`gbot.game.notations.move_text` (move text such as ``24/18 13/11*``). The ``board:`` line
(gnubg's and FIBS's dialects) is :mod:`gbot.game.notations.fibs_board`.
"""
