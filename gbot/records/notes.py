"""What a match file says about the rules it was played under, and where gnubg reads it
differently.

Neither format carries most of the referee's switches, and gnubg 1.07's importers apply
gnubg's own settings: ``import mat`` scores a money session with its current ``set jacoby``
setting (a comment in the file does not change it), counts every backgammon triple, and knows
no cube cap, single/gammon-only end modes or draws. :func:`rules_text` describes the rules in
one line; :func:`gnubg_warnings` lists what gnubg will do otherwise, with the command that
fixes it where there is one. The ``.mat`` and ``.sgf`` writers put both in the file.
"""

from __future__ import annotations

from gbot.game.match import Rules

__all__ = ["gnubg_warnings", "rules_text"]


def rules_text(rules: Rules, match_length: int) -> str:
    """The rules of a match or money session in one line, e.g. ``"5-point match, Crawford
    rule; cube on, no cap; gammons and backgammons count"``."""
    if match_length > 0:
        parts = [f"{match_length}-point match, Crawford rule"]
    else:
        parts = [f"money session, Jacoby {'on' if rules.jacoby else 'off'}, beavers "
                 f"{'on' if rules.beavers else 'off'}"
                 + (", raccoons on" if rules.beavers and rules.raccoons else "")]
    if not rules.cube_enabled:
        parts.append("cube off")
    else:
        parts.append(f"cube on, {'cap ' + str(rules.cube_cap) if rules.cube_cap else 'no cap'}")
    parts.append({"single": "every game counts single",
                  "gammons": "gammons count, a backgammon counts as a gammon",
                  "backgammons": "gammons and backgammons count"}[rules.end_mode])
    if rules.variation != "standard":
        parts.append(f"variation {rules.variation}")
    if rules.caucasian:
        parts.append("Caucasian rule")
    if rules.draw_last_roll:
        parts.append("a game can be drawn on the last roll")
    if rules.opener != "roll":
        parts.append({"loser": "the loser of a game opens the next",
                      "alternate": "the players open games in turn"}[rules.opener])
    if rules.resignation == "position":
        parts.append("a resignation is scored by the position")
    return "; ".join(parts)


def gnubg_warnings(rules: Rules, match_length: int, sgf: bool = False) -> list[str]:
    """Where gnubg 1.07's import (``import mat``, or ``load match`` for ``sgf``) reads a
    file of this match differently from how it was played; empty when it reads it alike."""
    out: list[str] = []
    if match_length == 0 and not sgf:
        out.append(f"gnubg scores a money session with its own Jacoby setting: type "
                   f"'set jacoby {'on' if rules.jacoby else 'off'}' before 'import mat'")
    if rules.end_mode != "backgammons":
        what = ("gammons and backgammons as single games" if rules.end_mode == "single"
                else "backgammons as gammons")
        out.append(f"this match counted {what}; gnubg counts them in full, so the points of "
                   "those games (and the later scores) read differently in gnubg")
    if rules.cube_enabled and rules.cube_cap:
        out.append(f"gnubg knows no cube cap ({rules.cube_cap} here); the play reads alike")
    if rules.draw_last_roll:
        out.append("gnubg knows no drawn games: a drawn game has no result in gnubg")
    if rules.opener != "roll":
        out.append("gnubg starts every game with an opening roll; games opened by rule read "
                   "differently in gnubg")
    if rules.variation != "standard":
        out.append(f"type 'set variation {rules.variation}' in gnubg before importing")
    return out
