"""XGID (eXtreme Gammon ID): parse into a position and a :class:`gbot.MatchState`, and format.

``XGID=P:C:O:T:D:S1:S2:R:L:M`` (the prefix is optional). Player numbers follow gnubg's reading
of an XGID: the bottom player (upper-case checkers) is gnubg player 1, the top player
(lower-case) is player 0. ``T`` names the side on roll, or the doubler when ``D`` is ``D``.

The position returned is seen by ``state.player_on_roll`` (the doubler while a double is
pending). In a match ``R`` is the Crawford flag (Jacoby is off, as gnubg 1.07 writes it); in
money ``R`` is Jacoby (bit 0) plus beavers (bit 1). ``M``, the maximum cube as log2, maps to
``Rules.cube_cap`` when it is 1..6; any other value means no cap and is written back as 10.

:func:`as_loaded_by_gnubg` reproduces what gnubg 1.07's ``set xgid`` ends up with: a pending
double is dropped, and when player 0 is on roll the players are swapped so that the side on
roll becomes player 1.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from gbot.core.board import from_gnubg, to_gnubg
from gbot.core.limits import MAX_CUBE
from gbot.errors import GbotError, XgidError
from gbot.game.match import CENTRE, GameState, MatchState, Rules
from gbot.game.position import Position

if TYPE_CHECKING:
    from gbot.core.board import Board

DEFAULT_MAX_CUBE_LOG2 = 10
"""The ``M`` field written when the rules have no cube cap (XG's usual value)."""

_FIELD = re.compile(r"-?[0-9]+\Z")
_DICE = re.compile(r"(00|[1-6][1-6]|D)\Z")
_POS = re.compile(r"[-A-Oa-o]{26}\Z")


def _int(text: str, field: str, xgid: str) -> int:
    if not _FIELD.match(text) or len(text) > 6:
        raise XgidError(f"XGID field {field} is not a number ({text!r}): {xgid!r}")
    return int(text)


def _read_position(p: str, xgid: str) -> tuple[list[int], list[int]]:
    """``(bottom, top)`` 25-slot arrays (own point - 1, bar at 24) of the position field."""
    if not _POS.match(p):
        raise XgidError(f"XGID position must be 26 characters of '-', A-O, a-o: {xgid!r}")
    bottom = [0] * 25
    top = [0] * 25
    for i, ch in enumerate(p):
        if ch == "-":
            continue
        upper = ch.isupper()
        n = ord(ch.lower()) - ord("a") + 1
        if i == 0:
            if upper:
                raise XgidError(f"XGID character 0 is the top bar (lower case): {xgid!r}")
            top[24] = n
        elif i == 25:
            if not upper:
                raise XgidError(f"XGID character 25 is the bottom bar (upper case): {xgid!r}")
            bottom[24] = n
        elif upper:
            bottom[i - 1] = n
        else:
            top[24 - i] = n
    for name, arr in (("bottom", bottom), ("top", top)):
        if sum(arr) > 15:
            raise XgidError(f"XGID gives the {name} player {sum(arr)} checkers: {xgid!r}")
    return bottom, top


def _write_position(bottom: list[int], top: list[int]) -> str:
    chars = ["-"] * 26
    if top[24]:
        chars[0] = chr(ord("a") + top[24] - 1)
    if bottom[24]:
        chars[25] = chr(ord("A") + bottom[24] - 1)
    for i in range(1, 25):
        if bottom[i - 1]:
            chars[i] = chr(ord("A") + bottom[i - 1] - 1)
        elif top[24 - i]:
            chars[i] = chr(ord("a") + top[24 - i] - 1)
    return "".join(chars)


def _position(b: Board) -> Position:
    return Position(b)


def parse_xgid(text: str) -> tuple[Position, MatchState]:
    """The position (seen by the player on roll) and match state of an XGID.

    Raises :class:`XgidError`, quoting ``text``, for anything that is not a valid XGID.
    """

    if not isinstance(text, str):
        raise XgidError(f"XGID must be a string, got {text!r}")
    s = text.strip()
    if s.startswith("XGID="):
        s = s[5:]
    parts = s.split(":")
    if len(parts) != 10:
        raise XgidError(f"XGID needs 10 colon-separated fields, got {len(parts)}: {text!r}")
    p, c, o, t, d, s1, s2, r, length, m = parts
    bottom, top = _read_position(p, text)
    cube_log2 = _int(c, "C (cube)", text)
    owner = _int(o, "O (cube owner)", text)
    turn = _int(t, "T (turn)", text)
    if not _DICE.match(d):
        raise XgidError(f"XGID field D must be 00, two dice 1..6 or D, got {d!r}: {text!r}")
    score_bottom = _int(s1, "S1 (bottom score)", text)
    score_top = _int(s2, "S2 (top score)", text)
    rules_bits = _int(r, "R (rules)", text)
    match_length = _int(length, "L (match length)", text)
    max_cube = _int(m, "M (maximum cube)", text)
    if not 0 <= cube_log2 <= 15:
        raise XgidError(f"XGID cube log2 must be 0..15, got {cube_log2!r}: {text!r}")
    if owner not in (-1, 0, 1) or (owner and cube_log2 == 0):
        raise XgidError(f"XGID cube owner must be -1, 0 or 1 (0 for a 1-cube): {text!r}")
    if turn not in (-1, 1):
        raise XgidError(f"XGID turn must be 1 (bottom) or -1 (top), got {turn!r}: {text!r}")
    if not 0 <= match_length <= 32767 or not 0 <= max_cube <= 15:
        raise XgidError(f"XGID match length or maximum cube out of range: {text!r}")
    if min(score_bottom, score_top) < 0 or max(score_bottom, score_top) > 32767:
        raise XgidError(f"XGID scores out of range: {text!r}")
    if match_length and max(score_bottom, score_top) >= match_length:
        raise XgidError(f"XGID score reaches the match length: {text!r}")
    if match_length and rules_bits not in (0, 1):
        raise XgidError(f"XGID rules field in a match must be 0 or 1 (Crawford): {text!r}")
    if not match_length and not 0 <= rules_bits <= 3:
        raise XgidError(f"XGID rules field in money must be 0..3 (Jacoby, beavers): {text!r}")
    crawford = bool(match_length and rules_bits)
    if crawford and match_length - 1 not in (score_bottom, score_top):
        raise XgidError(f"XGID Crawford game without a player at match point: {text!r}")
    doubled = d == "D"
    if doubled and cube_log2 >= 15:
        raise XgidError(f"XGID doubles a cube already at the maximum: {text!r}")
    dice = (0, 0) if d in ("00", "D") else (int(d[0]), int(d[1]))

    on_roll = 1 if turn == 1 else 0
    rules = Rules(
        jacoby=bool(not match_length and rules_bits & 1),
        beavers=bool(not match_length and rules_bits & 2),
        cube_cap=2**max_cube if 1 <= max_cube <= 6 else 0,
    )
    mine, theirs = (bottom, top) if on_roll == 1 else (top, bottom)
    board = from_gnubg(mine, theirs)
    try:
        pos = _position(board)
    except GbotError as exc:
        raise XgidError(f"XGID position is impossible ({exc}): {text!r}") from None
    at_point = bool(match_length) and match_length - 1 in (score_bottom, score_top)
    state = MatchState(
        match_length=match_length,
        score=(score_top, score_bottom),
        cube_value=2**cube_log2,
        cube_owner={0: CENTRE, 1: 1, -1: 0}[owner],
        player_on_roll=on_roll,
        player_to_act=1 - on_roll if doubled else on_roll,
        dice=dice,
        crawford=crawford,
        game_state=GameState.PLAYING,
        double_offered=doubled,
        rules=rules,
        board=tuple(int(v) for v in board),
        crawford_done=crawford or at_point,
    )
    return pos, state


def format_xgid(pos: Position, state: MatchState) -> str:
    """The XGID of ``pos`` (seen by ``state.player_on_roll``) and ``state``.

    Raises :class:`XgidError` for what an XGID cannot say: a game not in play, a pending
    resignation or beaver, or a cube that is not a power of two up to 2**15.
    """

    if state.game_state != GameState.PLAYING or state.resign_offered or state.beavers:
        raise XgidError(f"an XGID holds only a game in play with no resignation: {state!r}")
    cube = state.cube_value
    if cube < 1 or cube > MAX_CUBE or cube & (cube - 1):
        raise XgidError(f"cube value must be a power of two up to 32768: {state!r}")
    if state.player_on_roll not in (0, 1) or state.cube_owner not in (CENTRE, 0, 1):
        raise XgidError(f"player numbers must be 0 or 1: {state!r}")
    if state.double_offered and state.dice != (0, 0):
        raise XgidError(f"a pending double with dice rolled: {state!r}")
    board = np.asarray(pos.board, dtype=np.int8)
    mine, theirs = to_gnubg(board)
    bottom, top = (mine, theirs) if state.player_on_roll == 1 else (theirs, mine)
    if state.double_offered:
        dice = "D"
    else:
        d1, d2 = (int(v) for v in state.dice)
        if (d1, d2) != (0, 0) and not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise XgidError(f"dice must be (0, 0) or two numbers 1..6: {state!r}")
        dice = f"{d1}{d2}"
    owner = {CENTRE: 0, 1: 1, 0: -1}[state.cube_owner]
    if state.match_length:
        rules_bits = int(bool(state.crawford))
    else:
        rules_bits = int(state.rules.jacoby) | 2 * int(state.rules.beavers)
    cap = state.rules.cube_cap
    max_cube = cap.bit_length() - 1 if cap else DEFAULT_MAX_CUBE_LOG2
    fields = [
        _write_position(bottom, top),
        str(cube.bit_length() - 1),
        str(owner),
        "1" if state.player_on_roll == 1 else "-1",
        dice,
        str(state.score[1]),
        str(state.score[0]),
        str(rules_bits),
        str(state.match_length),
        str(max_cube),
    ]
    return "XGID=" + ":".join(fields)


def as_loaded_by_gnubg(pos: Position, state: MatchState) -> tuple[Position, MatchState]:
    """What gnubg 1.07 holds after ``set xgid`` of this XGID, in batch mode.

    gnubg drops a pending double (its ``set matchid`` refuses one), forces Jacoby off in a
    match, and, when player 0 is on roll, swaps the players so the side on roll is player 1.
    The position is unchanged (it is seen by the side on roll either way).
    """

    new = replace(state, double_offered=False, player_to_act=state.player_on_roll)
    if new.match_length:
        new = replace(new, rules=replace(new.rules, jacoby=False))
    if new.player_on_roll == 0:
        owner = new.cube_owner if new.cube_owner == CENTRE else 1 - new.cube_owner
        new = replace(
            new,
            score=(new.score[1], new.score[0]),
            cube_owner=owner,
            player_on_roll=1,
            player_to_act=1,
        )
    return pos, new


__all__ = ["DEFAULT_MAX_CUBE_LOG2", "as_loaded_by_gnubg", "format_xgid", "parse_xgid"]
