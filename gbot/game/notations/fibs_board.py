"""The FIBS ``board:`` line, in both dialects: parse into :class:`FibsBoard` and format back.

Two programs write this line and they disagree on half of its fields:

* ``"gnubg_external"``: GNU Backgammon 1.07's referee, talking to an external player. The
  positive side is always gnubg player 1; names and scores swap in a take question; the
  dice are copied into both pairs; the last two fields mean post-Crawford and not-Crawford.
* ``"fibs"``: the FIBS server with boardstyle 3. Player 1 (field 1) is the client; colours,
  direction, home and bar follow player 1's colour; only the actor's dice pair is set; the
  bars are repeated; field 51 marks a post-Crawford game; money is match length 9999.

Everything in a :class:`FibsBoard` is seen by the side that must answer the line ("me"):
the roller for a move, the side about to roll for double-or-roll, the side offered the
cube for take-or-drop. ``protocols/board-line.md`` lists the fields of both dialects.

This module owns the line: the field layout and its constants are
:mod:`gbot.core.boardline`'s (which also holds the compiled reader of gnubg's dialect, the
fast path of :func:`parse_gnubg_line`); gnubg 1.07's beaver question, whose turn field names
the doubler itself, is read by :func:`parse_gnubg_question` and written by
:func:`format_beaver_question`; :func:`gnubg_line` writes the line that asks a player of a
:class:`gbot.MatchState` a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from operator import neg
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gbot.core import boardline as _bl
from gbot.core.board import flip_py
from gbot.core.boardline import (
    F_CAN_MOVE,
    F_COLOUR,
    F_CUBE,
    F_DICE,
    F_DICE2,
    F_DOUBLED,
    F_FIBS_BAR,
    F_FORCED,
    F_LAST,
    F_LENGTH,
    F_MAY_DOUBLE,
    F_OFF,
    F_POINTS,
    F_POST_CRAWFORD,
    F_SCORE,
    F_TURN,
    FIBS_FRAMES,
    FIBS_MONEY,
    GNUBG_FRAME,
    MAX_DIGITS,
    MAX_MATCH_LENGTH,
    N_CHECKERS,
    N_NUMBERS,
)
from gbot.core.limits import MAX_CUBE as MAX_CUBE
from gbot.errors import FibsBoardError
from gbot.game.match import CENTRE, GameState, MatchState, Rules
from gbot.game.position import Position

if TYPE_CHECKING:
    from gbot.core.board import Board

Dialect = Literal["gnubg_external", "fibs"]
Question = Literal["move", "double_or_roll", "take_or_drop"]
CubeOwner = Literal["me", "opponent", "centre"]

DIALECTS: tuple[Dialect, ...] = ("gnubg_external", "fibs")
VARIATION_OF_CHECKERS = {15: "standard", 1: "hyper1", 2: "hyper2", 3: "hyper3"}
"""The :data:`gbot.game.variations.VARIATIONS` name inferred from the checkers per side of a line
(Nackgammon plays 15 checkers by standard rules: only its start differs)."""

_N_INTS = N_NUMBERS
_INT = f"-?[1-9][0-9]{{0,{MAX_DIGITS - 1}}}"
_NUMBER = re.compile(_INT + r"\Z|0\Z")
_NUMBERS = re.compile(f"(?:{_INT}|0)(?::(?:{_INT}|0))*" + r"\Z")
_NAME = re.compile(r"[^\x00-\x1f\x7f:]*\Z")
_SMALL = {str(v): v for v in (*range(-99, 1000), *(2**k for k in range(10, 16)), FIBS_MONEY)}
"""Canonical text of the numbers board lines usually hold: a token found here is exactly one
that :data:`_NUMBER` accepts, so the lookup both checks and converts it."""


@dataclass(frozen=True)
class FibsBoard:
    """One ``board:`` line decoded from the answering side's point of view ("me").

    ``points`` is the board in the :mod:`gbot.core.board` layout (26 ints, my checkers
    positive, my bar at 25, the opponent's bar negative at 0); :attr:`board` gives it as an
    ``int8[26]`` array. ``score`` and ``names`` are ``(me, opponent)``; ``match_length`` is 0
    for money. ``cube_value`` and ``cube_owner`` are as before a pending double.
    ``colour`` is the sign of my checkers on the line (+1: gnubg's player 1 / FIBS's O).

    The last four fields only matter to the FIBS dialect and keep its lines byte-exact:
    ``me_player1`` (I am field 1's player), ``other_dice`` (the other dice pair),
    ``can_move``, ``forced`` and ``redoubles`` (fields 49, 50 and 52 as sent).

    ``checkers`` is the number of checkers each side plays with (15, or 1..3 in gnubg's
    Hypergammon): the board's checkers plus the borne-off counts of the line.
    """

    points: tuple[int, ...]
    dice: tuple[int, int]
    cube_value: int
    cube_owner: CubeOwner
    may_double: tuple[bool, bool]
    double_pending: bool
    score: tuple[int, int]
    match_length: int
    crawford_game: bool
    post_crawford: bool
    names: tuple[str, str]
    dialect: Dialect = "gnubg_external"
    colour: int = 1
    me_player1: bool = True
    other_dice: tuple[int, int] = (0, 0)
    can_move: int = 0
    forced: int = 0
    redoubles: int = 0
    checkers: int = N_CHECKERS

    @classmethod
    def _checked(cls, **fields: Any) -> FibsBoard:
        """The board of ``fields`` (every field, as a parser has checked them) without the
        frozen dataclass's ``__init__``, which costs ten times more; the object is the same.
        ``_board8``, not a field, may carry :attr:`position`'s read-only array."""
        obj = object.__new__(cls)
        obj.__dict__.update(fields)
        return obj

    # --- derived views ------------------------------------------------------------------
    @property
    def question(self) -> Question:
        """What the line asks me: ``move``, ``double_or_roll`` or ``take_or_drop``."""
        if self.double_pending:
            return "take_or_drop"
        return "move" if self.dice != (0, 0) else "double_or_roll"

    @property
    def board(self) -> Board:
        """My view of the board, a fresh ``int8[26]`` array."""
        return np.array(self.points, dtype=np.int8)

    @property
    def position(self) -> Position:
        """My position, as if I were on roll (also for a take question)."""

        # parsing checked the counts and signs; the compiled reader leaves the (read-only)
        # array it made, else a fresh one becomes the position's own
        arr = self.__dict__.get("_board8")
        if arr is None:
            arr = np.array(self.points, dtype=np.int8)
        return Position.from_owned_array(arr)

    @property
    def variation(self) -> str | None:
        """The gnubg variation of the line's checker count (``"standard"`` for 15,
        ``"hyper1"`` to ``"hyper3"``), None for a count no gnubg variation plays."""
        return VARIATION_OF_CHECKERS.get(self.checkers)

    @property
    def me_seat(self) -> int:
        """My player number in :attr:`state`: 1 when my checkers are positive on the line."""
        return 1 if self.colour > 0 else 0

    @property
    def my_name(self) -> str:
        """My name as the line gives it."""
        return self.names[0]

    @property
    def opponent_name(self) -> str:
        """The opponent's name as the line gives it."""
        return self.names[1]

    @property
    def state(self) -> MatchState:
        """The :class:`gbot.MatchState` of the line.

        Players are numbered by the sign of their checkers on the line: positive (gnubg's
        player 1, FIBS's O) is player 1. Rules are the defaults; the board is seen by the
        player on roll (the doubler while a double is pending).
        """
        return self.match_state()

    def match_state(self, rules: Rules | None = None, crawford: bool | None = None
                    ) -> MatchState:
        """:attr:`state` under ``rules`` (default: the defaults, in the line's Hypergammon
        variation when it has 1 to 3 checkers a side), with the Crawford flag overridden
        when ``crawford`` is given."""

        if rules is None:
            rules = Rules() if self.checkers == N_CHECKERS else Rules(
                variation=self.variation or "standard")

        me = self.me_seat
        opp = 1 - me
        score = (self.score[1], self.score[0]) if me == 1 else self.score
        owner = {"centre": CENTRE, "me": me, "opponent": opp}[self.cube_owner]
        on_roll = opp if self.double_pending else me
        pts = self.points
        # seen by the player on roll: flipped while a double is pending
        board = (tuple(-int(v) for v in reversed(pts)) if self.double_pending
                 else tuple(map(int, pts)))
        return _new_state(
            MatchState,
            match_length=self.match_length,
            score=(int(score[0]), int(score[1])),
            cube_value=self.cube_value,
            cube_owner=owner,
            player_on_roll=on_roll,
            player_to_act=me,
            dice=self.dice,
            crawford=self.crawford_game if crawford is None else crawford,
            game_state=GameState.PLAYING,
            double_offered=self.double_pending,
            board=board,
            crawford_done=self.crawford_game or self.post_crawford,
            rules=rules,
        )

    def line(self, dialect: Dialect | None = None) -> str:
        """The ``board:`` line (see :func:`format_fibs_board`)."""
        return format_fibs_board(self, dialect)


# --- helpers shared by both dialects ----------------------------------------------------

_STATE_DEFAULTS: dict[str, Any] = {}


def _new_state(cls: type[MatchState], **values: Any) -> MatchState:
    """``cls(**values)`` without the frozen dataclass's ``__init__`` (several times cheaper;
    the fields not given take their defaults, read once from ``cls()``)."""
    if not _STATE_DEFAULTS:
        _STATE_DEFAULTS.update(cls().__dict__)
    obj = object.__new__(cls)
    fields_ = obj.__dict__
    fields_.update(_STATE_DEFAULTS)
    fields_.update(values)
    return obj



def _absolute(points: tuple[int, ...] | list[int], colour: int) -> list[int]:
    """Between my view and the line's fixed frame (the map is its own inverse)."""
    if colour > 0:
        return list(points)
    return [-points[25 - i] for i in range(26)]


def _split(line: str) -> tuple[str, str, list[int]]:
    if not isinstance(line, str):
        raise FibsBoardError(f"a board line must be a string, got {line!r}")
    s = line.strip().strip("\x00").strip()
    if not s.startswith("board:"):
        raise FibsBoardError(f"not a board line (no 'board:' prefix): {line!r}")
    parts = s[len("board:"):].split(":")
    if len(parts) != 2 + _N_INTS:
        raise FibsBoardError(
            f"a board line has 2 names and {_N_INTS} numbers, got {len(parts)} fields: {line!r}"
        )
    name_a, name_b = parts[0], parts[1]
    for name in (name_a, name_b):
        if not _NAME.match(name):
            raise FibsBoardError(f"a name holds control characters ({name!r}): {line!r}")
    del parts[:2]
    try:
        return name_a, name_b, list(map(_SMALL.__getitem__, parts))
    except KeyError:
        pass
    if not _NUMBERS.match(s, len("board:") + len(name_a) + len(name_b) + 2):
        for i, tok in enumerate(parts):
            if not _NUMBER.match(tok):
                raise FibsBoardError(f"field {i + 3} is not a plain integer ({tok!r}): {line!r}")
    return name_a, name_b, [int(tok) for tok in parts]


def _check_common(b: FibsBoard) -> str | None:
    """Why ``b`` is no possible game state, or None (the dialect-free rules)."""
    if len(b.points) != 26:
        return "the board needs 26 points"
    p = b.points
    if p[25] < 0 or p[0] > 0:
        return "bar counts have the wrong sign"
    mine = sum(v for v in p[1:25] if v > 0) + p[25]
    theirs = -sum(v for v in p[1:25] if v < 0) - p[0]
    n = b.checkers
    if not 1 <= n <= N_CHECKERS:
        return f"each side plays 1 to {N_CHECKERS} checkers, not {n!r}"
    if mine > n or theirs > n:
        return f"more than {n} checkers for one side ({mine} and {theirs})"
    d1, d2 = b.dice
    if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
        return f"dice {b.dice!r} are neither a roll nor 0 0"
    c = b.cube_value
    if c < 1 or c > MAX_CUBE or c & (c - 1):
        return f"cube value {c!r} is not a power of two up to {MAX_CUBE}"
    if c == 1 and b.cube_owner != "centre":
        return "a 1-cube cannot be owned"
    if b.double_pending and (b.dice != (0, 0) or b.cube_owner == "me" or c >= MAX_CUBE):
        return "a double is pending with dice rolled, my own cube, or a maxed cube"
    if b.match_length < 0 or min(b.score) < 0:
        return "negative match length or score"
    if b.match_length > MAX_MATCH_LENGTH:
        return (f"match length {b.match_length} is beyond the {MAX_MATCH_LENGTH} points "
                "gnubg plays")
    if b.match_length and max(b.score) >= b.match_length:
        return "a score has reached the match length"
    at_point = bool(b.match_length) and b.match_length - 1 in b.score
    if b.crawford_game and b.post_crawford:
        return "both the Crawford game and post-Crawford"
    if (b.crawford_game or b.post_crawford) and not at_point:
        return "Crawford flags without a player at match point"
    if b.crawford_game and b.score[0] == b.score[1]:
        return "a Crawford game with both players at match point"
    if b.crawford_game and (c != 1 or b.double_pending):
        return "a cube in play during the Crawford game"
    return None


def _owner_from_flags(flags: tuple[int, int], pending: bool, cube: int) -> CubeOwner | None:
    """The cube owner that the (me, opponent) may-double flags say, or None if none."""
    if flags == (1, 1):
        return "centre"
    if flags == (1, 0):
        return "me"
    if flags == (0, 1):
        return "opponent"
    if pending:
        return "centre" if cube == 1 else "opponent"
    return None


# --- gnubg's external-player referee ------------------------------------------------------


def _parse_gnubg(name0: str, name1: str, n: list[int]) -> FibsBoard | str:
    length, s0, s1 = n[F_LENGTH], n[F_SCORE], n[F_SCORE + 1]
    p = n[F_POINTS:F_POINTS + 26]
    turn, cube = n[F_TURN], n[F_CUBE]
    dice, dice2 = (n[F_DICE], n[F_DICE + 1]), (n[F_DICE2], n[F_DICE2 + 1])
    may_p, may_n, doubled = n[F_MAY_DOUBLE], n[F_MAY_DOUBLE + 1], n[F_DOUBLED]
    if length == FIBS_MONEY:
        return "match length 9999 is FIBS's money marker"
    if tuple(n[F_COLOUR:F_COLOUR + 4]) != GNUBG_FRAME:
        return "colour, direction, home and bar are not gnubg's 1 -1 0 25"
    if any(n[F_FIBS_BAR:F_FORCED + 1]):
        return "gnubg writes 0 in the bar, can-move and forced fields"
    post, not_crawford = n[F_POST_CRAWFORD], n[F_LAST]
    if turn not in (1, -1) or doubled not in (0, 1) or may_p not in (0, 1) or may_n not in (0, 1):
        return "turn, was-doubled or may-double flags out of range"
    if post not in (0, 1) or not_crawford not in (0, 1):
        return "the Crawford fields must be 0 or 1"
    if dice2 != dice:
        return "gnubg copies the dice into both pairs"
    if length == 0 and (post, not_crawford) != (0, 1):
        return "money play with Crawford flags"
    colour = -turn if doubled else turn
    me_first = (colour > 0) == bool(doubled)
    names = (name0, name1) if me_first else (name1, name0)
    score = (s0, s1) if me_first else (s1, s0)
    flags = (may_p, may_n) if colour > 0 else (may_n, may_p)
    owner = _owner_from_flags(flags, False, cube)
    if owner is None:
        return "gnubg never clears both may-double flags"
    if length and not not_crawford and dice == (0, 0):
        return "gnubg asks no cube question during the Crawford game"
    off_p, off_n = n[F_OFF], n[F_OFF + 1]
    count = _checker_count(p, off_p, off_n)
    if isinstance(count, str):
        return count
    return FibsBoard._checked(
        points=tuple(p) if colour > 0 else tuple(map(neg, reversed(p))),
        dice=dice,
        cube_value=cube,
        cube_owner=owner,
        may_double=(bool(flags[0]), bool(flags[1])),
        double_pending=bool(doubled),
        score=score,
        match_length=length,
        crawford_game=length > 0 and not not_crawford,
        post_crawford=bool(post),
        names=names,
        dialect="gnubg_external",
        colour=colour,
        me_player1=True,
        other_dice=(0, 0),
        can_move=0,
        forced=0,
        redoubles=0,
        checkers=count,
    )


def _format_gnubg(b: FibsBoard) -> str:
    colour = b.colour
    p = _absolute(b.points, colour)
    me_first = (colour > 0) == b.double_pending
    names = b.names if me_first else (b.names[1], b.names[0])
    score = b.score if me_first else (b.score[1], b.score[0])
    turn = -colour if b.double_pending else colour
    may_me, may_opp = (int(v) for v in b.may_double)
    may_p, may_n = (may_me, may_opp) if colour > 0 else (may_opp, may_me)
    off_p, off_n = _borne_off(p, b.checkers)
    nums = [b.match_length, *score, *p, turn, *b.dice, *b.dice, b.cube_value, may_p, may_n,
            int(b.double_pending), *GNUBG_FRAME, off_p, off_n, 0, 0, 0, 0,
            int(b.post_crawford), int(not b.crawford_game)]
    return _join(names, nums)


# --- the FIBS server, boardstyle 3 -------------------------------------------------------


def _parse_fibs(name1: str, name2: str, n: list[int]) -> FibsBoard | str:
    length, s1, s2 = n[F_LENGTH], n[F_SCORE], n[F_SCORE + 1]
    p = n[F_POINTS:F_POINTS + 26]
    turn = n[F_TURN]
    dice1, dice2 = (n[F_DICE], n[F_DICE + 1]), (n[F_DICE2], n[F_DICE2 + 1])
    cube, may1, may2 = n[F_CUBE], n[F_MAY_DOUBLE], n[F_MAY_DOUBLE + 1]
    doubled, colour1 = n[F_DOUBLED], n[F_COLOUR]
    off1, off2, bar1, bar2 = n[F_OFF], n[F_OFF + 1], n[F_FIBS_BAR], n[F_FIBS_BAR + 1]
    can_move, forced = n[F_CAN_MOVE], n[F_FORCED]
    post, redoubles = n[F_POST_CRAWFORD], n[F_LAST]
    if length == 0:
        return "FIBS writes 9999, not 0, for money"
    if colour1 not in (1, -1) or tuple(n[F_COLOUR + 1:F_COLOUR + 4]) != FIBS_FRAMES[colour1]:
        return "player 1's colour, direction, home and bar do not agree"
    if turn not in (1, -1):
        return f"turn {turn!r} names no side to act"
    if doubled not in (0, 1) or may1 not in (0, 1) or may2 not in (0, 1) or post not in (0, 1):
        return "was-doubled, may-double or post-Crawford flag out of range"
    if not 0 <= can_move <= 4 or forced < 0 or redoubles < 0:
        return "can-move, forced or redoubles out of range"
    me_player1 = turn == colour1
    if doubled and not me_player1:
        return "a pending double is always player 1's to answer"
    colour = turn
    dice, other = (dice1, dice2) if me_player1 else (dice2, dice1)
    if not all(0 <= d <= 6 for d in other):
        return "the other dice pair is out of range"
    names = (name1, name2) if me_player1 else (name2, name1)
    score = (s1, s2) if me_player1 else (s2, s1)
    flags = (may1, may2) if me_player1 else (may2, may1)
    owner = _owner_from_flags(flags, bool(doubled), cube)
    if owner is None:
        return "both may-double flags are 0 with no double pending"
    if doubled and flags != (0, 0):
        return "FIBS clears both may-double flags while a double is pending"
    off_me, off_opp = (off1, off2) if me_player1 else (off2, off1)
    off_o, off_x = (off_me, off_opp) if colour > 0 else (off_opp, off_me)
    count = _checker_count(p, off_o, off_x)
    if isinstance(count, str):
        return count
    bar_o, bar_x = p[25], -p[0]
    if (bar1, bar2) != ((bar_o, bar_x) if colour1 > 0 else (bar_x, bar_o)):
        return "the bar fields 47 and 48 disagree with the board"
    money = length == FIBS_MONEY
    at_point = not money and length - 1 in (s1, s2)
    return FibsBoard(
        points=tuple(_absolute(p, colour)),
        dice=dice,
        cube_value=cube,
        cube_owner=owner,
        may_double=(bool(flags[0]), bool(flags[1])),
        double_pending=bool(doubled),
        score=score,
        match_length=0 if money else length,
        crawford_game=at_point and not post,
        post_crawford=bool(post),
        names=names,
        dialect="fibs",
        colour=colour,
        me_player1=me_player1,
        other_dice=other,
        can_move=can_move,
        forced=forced,
        redoubles=redoubles,
        checkers=count,
    )


def _format_fibs(b: FibsBoard) -> str:
    colour = b.colour
    p = _absolute(b.points, colour)
    me1 = b.me_player1
    colour1 = colour if me1 else -colour
    names = b.names if me1 else (b.names[1], b.names[0])
    score = b.score if me1 else (b.score[1], b.score[0])
    dice1, dice2 = (b.dice, b.other_dice) if me1 else (b.other_dice, b.dice)
    may_me, may_opp = (int(v) for v in b.may_double)
    may1, may2 = (may_me, may_opp) if me1 else (may_opp, may_me)
    off_o, off_x = _borne_off(p, b.checkers)
    bar_o, bar_x = p[25], -p[0]
    off1, off2, bar1, bar2 = (
        (off_o, off_x, bar_o, bar_x) if colour1 > 0 else (off_x, off_o, bar_x, bar_o)
    )
    consts = FIBS_FRAMES[colour1]
    nums = [b.match_length or FIBS_MONEY, *score, *p, colour, *dice1, *dice2, b.cube_value,
            may1, may2, int(b.double_pending), colour1, *consts, off1, off2, bar1, bar2,
            b.can_move, b.forced, int(b.post_crawford), b.redoubles]
    return _join(names, nums)


# --- shared pieces -----------------------------------------------------------------------


def _checker_count(p: list[int], off_pos: int, off_neg: int) -> int | str:
    """Checkers per side of the fixed frame (board, bar and borne-off), or why the counts
    are impossible: both sides play the same number, 1 to 15."""
    if p[25] < 0 or p[0] > 0:
        return "bar counts have the wrong sign"
    pos = sum(v for v in p[1:25] if v > 0) + p[25] + off_pos
    neg = -sum(v for v in p[1:25] if v < 0) - p[0] + off_neg
    if off_pos < 0 or off_neg < 0 or pos != neg or not 1 <= pos <= N_CHECKERS:
        return (f"sides have {pos} and {neg} checkers, not the same number from 1 to "
                f"{N_CHECKERS}")
    return pos


def _borne_off(p: list[int], checkers: int) -> tuple[int, int]:
    pos = sum(v for v in p[1:25] if v > 0) + p[25]
    neg = -sum(v for v in p[1:25] if v < 0) - p[0]
    return checkers - pos, checkers - neg


def _join(names: tuple[str, str], nums: list[int]) -> str:
    return "board:" + ":".join([names[0], names[1], *(str(int(v)) for v in nums)])


def line_checkers(text: str) -> int | None:
    """Checkers per side of the first ``board:`` line inside ``text`` (a bare line or a
    request that holds one), or None when it holds no readable board line."""
    found = _BOARD_IN_TEXT.search(text) if isinstance(text, str) else None
    if found is None:
        return None
    try:
        return parse_fibs_board("board:" + found.group(0)[6:]).checkers
    except FibsBoardError:
        return None


_BOARD_IN_TEXT = re.compile(
    r"board:[^:\n]*:[^:\n]*" + f"(?::-?[0-9]{{1,{MAX_DIGITS}}}){{{N_NUMBERS}}}", re.IGNORECASE)


_PARSERS = {"gnubg_external": _parse_gnubg, "fibs": _parse_fibs}
_FORMATTERS = {"gnubg_external": _format_gnubg, "fibs": _format_fibs}


def parse_fibs_board(line: str, dialect: Dialect | None = None) -> FibsBoard:
    """Decode a ``board:`` line; the dialect is detected unless given.

    A trailing newline and gnubg's NUL byte are ignored. Raises :class:`FibsBoardError`,
    quoting the line, when it is malformed or describes no possible game state.
    """
    if dialect is not None and dialect not in _PARSERS:
        raise FibsBoardError(f"unknown board-line dialect {dialect!r}")
    name_a, name_b, nums = _split(line)
    reasons = []
    for d in (dialect,) if dialect else DIALECTS:
        got = _PARSERS[d](name_a, name_b, nums)
        if isinstance(got, FibsBoard):
            bad = _check_common(got)
            if bad is None:
                return got
            got = bad
        reasons.append(f"as {d}: {got}")
    raise FibsBoardError(f"impossible board line ({'; '.join(reasons)}): {line!r}")


def parse_gnubg_line(line: str) -> FibsBoard:
    """:func:`parse_fibs_board` for the engine's hot path: a line of gnubg's dialect is read
    by a compiled kernel (:mod:`gbot.core.boardline`), anything else, errors included, by
    the Python parser. The result is the same board."""
    fb = _gnubg_compiled(line) if isinstance(line, str) else None
    return fb if fb is not None else parse_fibs_board(line)


def parse_gnubg_question(line: str) -> tuple[FibsBoard, bool]:
    """A gnubg board line (as :func:`parse_gnubg_line`) and whether it is gnubg 1.07's
    question after the opponent *beavered*.

    gnubg asks the original doubler about a beaver with the take-question flag set but the
    turn field naming the doubler itself (so the usual rule "turn = the doubler" names the
    wrong side, and the cube then seems to be mine). Such a line is read with the turn
    reversed: I am the side on turn, the beaverer owns the cube at the value before the
    beaver. Raises :class:`FibsBoardError` (the first parser's) for any other bad line.
    """
    try:
        return parse_gnubg_line(line), False
    except FibsBoardError as first:
        fields_ = line.split(":")
        turn = 1 + 2 + F_TURN          # "board" and the two names come first
        if (len(fields_) != 1 + 2 + N_NUMBERS or fields_[1 + 2 + F_DOUBLED] != "1"
                or fields_[turn] not in ("1", "-1")):
            raise
        fields_[turn] = "1" if fields_[turn] == "-1" else "-1"
        try:
            fb = parse_fibs_board(":".join(fields_), "gnubg_external")
        except FibsBoardError:
            raise first from None
        if fb.cube_owner != "opponent" or not fb.double_pending or fb.match_length:
            raise
        return fb, True
    except (ValueError, IndexError) as exc:  # a parser slip must not look like a crash
        raise FibsBoardError(f"cannot read board line {line!r}: {exc}") from None


def format_beaver_question(board: FibsBoard) -> str:
    """The line gnubg 1.07 writes to ask the original doubler whether to accept a beaver:
    ``board`` is the doubler's take question (double pending, the beaverer owning the cube
    at its value before the beaver) written with the turn field naming the doubler itself;
    :func:`parse_gnubg_question` reads it back as ``(board, True)``."""
    fields_ = format_fibs_board(board, "gnubg_external").split(":")
    turn = 1 + 2 + F_TURN
    fields_[turn] = str(-int(fields_[turn]))
    return ":".join(fields_)


GnubgQuestion = Literal["move", "double_or_roll", "take", "beavered", "resignation"]


def line_name(label: str) -> str:
    """``label`` as gnubg's board-line reader takes a name: letters, digits, ``_``."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", label)[:30] or "player"
    return "p" + name if name[0].isdigit() else name


def gnubg_line(state: MatchState, me: int, names: tuple[str, str],
               question: GnubgQuestion) -> str:
    """The ``board:`` line (gnubg-external dialect) that asks player ``me`` ``question`` in
    ``state``, as gnubg 1.07's referee writes it.

    ``names`` are ``(mine, the opponent's)``, made line-safe by :func:`line_name`. ``"take"``
    asks the doubled side; ``"beavered"`` asks the original doubler whether to accept the
    beaver (:func:`format_beaver_question`); ``"resignation"`` is the position of the side
    offered a resignation, to be sent with ``resignation N`` after it.
    """

    opp = 1 - me
    board = state.board_array()
    if state.player_on_roll != me:
        board = flip_py(board)
    board = Position(board, max_checkers=state.rules.checkers).board   # checks the board
    owner: CubeOwner = (
        "centre" if state.cube_owner == CENTRE else "me" if state.cube_owner == me
        else "opponent")
    crawford = state.match_length > 0 and state.crawford
    post = state.post_crawford
    dice = state.dice if question == "move" else (0, 0)
    if question == "resignation" and crawford:
        # gnubg's line cannot ask anything but a move in the Crawford game; the cube is dead
        # then, and the question is put as a game without Crawford flags
        crawford = post = False
    beavered = question == "beavered"
    fb = FibsBoard(
        points=tuple(int(v) for v in board),
        dice=(int(dice[0]), int(dice[1])),
        cube_value=state.cube_value,
        cube_owner="opponent" if beavered else owner,
        may_double=(False, True) if beavered else (owner != "opponent", owner != "me"),
        double_pending=question in ("take", "beavered"),
        score=(state.score[me], state.score[opp]),
        match_length=state.match_length,
        crawford_game=crawford,
        post_crawford=post,
        names=(line_name(names[0]), line_name(names[1])),
        dialect="gnubg_external",
        colour=1 if me == 1 else -1,
        checkers=state.rules.checkers,
    )
    return format_beaver_question(fb) if beavered else format_fibs_board(fb, "gnubg_external")


_OWNERS: tuple[CubeOwner, ...] = ("centre", "me", "opponent")
"""The owner names of :data:`gbot.core.cubemath.OWNER_CENTRE`, ``OWNER_ME``, ``OWNER_OPPONENT``."""


def _gnubg_compiled(line: str) -> FibsBoard | None:
    s = line.strip().strip("\x00").strip()
    if not s.startswith("board:"):
        return None
    i1 = s.find(":", 6)
    i2 = s.find(":", i1 + 1) if i1 >= 0 else -1
    if i2 < 0:
        return None
    name_a, name_b, rest = s[6:i1], s[i1 + 1:i2], s[i2 + 1:]
    if not (rest.isascii() and _NAME.match(name_a) and _NAME.match(name_b)):
        return None
    out = np.empty(_bl.N_OUT, dtype=np.int64)
    if not _bl.read_gnubg_numbers(np.frombuffer(rest.encode("ascii"), dtype=np.uint8), out):
        return None
    v = out.tolist()
    board8 = out[:26].astype(np.int8)
    board8.setflags(write=False)
    return FibsBoard._checked(
        _board8=board8,
        points=tuple(v[:26]),
        dice=(v[_bl.OUT_DIE1], v[_bl.OUT_DIE2]),
        cube_value=v[_bl.OUT_CUBE],
        cube_owner=_OWNERS[v[_bl.OUT_OWNER]],
        may_double=(v[_bl.OUT_MAY_ME] == 1, v[_bl.OUT_MAY_OPP] == 1),
        double_pending=v[_bl.OUT_PENDING] == 1,
        score=(v[_bl.OUT_SCORE_ME], v[_bl.OUT_SCORE_OPP]),
        match_length=v[_bl.OUT_LENGTH],
        crawford_game=v[_bl.OUT_CRAWFORD] == 1,
        post_crawford=v[_bl.OUT_POST_CRAWFORD] == 1,
        names=(name_a, name_b) if v[_bl.OUT_ME_FIRST] else (name_b, name_a),
        dialect="gnubg_external",
        colour=v[_bl.OUT_COLOUR],
        me_player1=True,
        other_dice=(0, 0),
        can_move=0,
        forced=0,
        redoubles=0,
        checkers=N_CHECKERS,
    )


def _semantic(b: FibsBoard, dialect: Dialect) -> FibsBoard:
    """``b`` as a line of ``dialect`` can hold it (the FIBS-only fields reset for gnubg)."""
    if dialect == "gnubg_external":
        return replace(b, dialect=dialect, me_player1=True, other_dice=(0, 0), can_move=0,
                       forced=0, redoubles=0)
    return replace(b, dialect=dialect)


def _may_double_for(b: FibsBoard, dialect: Dialect) -> tuple[bool, bool]:
    """The may-double flags ``dialect`` writes for ``b``'s cube (used when converting)."""
    if dialect == "fibs" and b.double_pending:
        return False, False
    return b.cube_owner != "opponent", b.cube_owner != "me"


def format_fibs_board(board: FibsBoard, dialect: Dialect | None = None) -> str:
    """The ``board:`` line of ``board`` (no newline), in its own dialect unless told.

    A board parsed from a line formats back to the identical line. Converting to the other
    dialect recomputes what that dialect derives (may-double flags; for FIBS, the answerer
    of a double is player 1). Raises :class:`FibsBoardError` for a board no line can hold.
    """
    target: Dialect = dialect or board.dialect
    if target not in _FORMATTERS:
        raise FibsBoardError(f"unknown board-line dialect {target!r}")
    want = _semantic(board, target)
    if target != board.dialect:
        want = replace(want, may_double=_may_double_for(board, target))
        if target == "fibs" and board.double_pending:
            want = replace(want, me_player1=True)
    if len(want.names) != 2 or any(
        not isinstance(nm, str) or not _NAME.match(nm) for nm in want.names
    ):
        raise FibsBoardError(f"names must be two strings without ':' or controls: {board!r}")
    bad = _check_common(want)
    if bad is not None:
        raise FibsBoardError(f"cannot write a board line ({bad}): {board!r}")
    try:
        text = _FORMATTERS[target](want)
        back = parse_fibs_board(text, target)
    except (FibsBoardError, TypeError, ValueError, IndexError) as exc:
        raise FibsBoardError(f"cannot write a board line ({exc}): {board!r}") from None
    if _normal(back) != _normal(want):
        raise FibsBoardError(f"board fields are inconsistent for {target}: {board!r}")
    return text


def _normal(b: FibsBoard) -> tuple[object, ...]:
    """Field values with ints and bools unified, for comparing boards."""
    return tuple(
        tuple(int(v) for v in val) if isinstance(val, tuple) and val and
        not isinstance(val[0], str) else val
        for val in (getattr(b, f.name) for f in fields(b))
    )


__all__ = [
    "CubeOwner",
    "DIALECTS",
    "Dialect",
    "FIBS_MONEY",
    "MAX_MATCH_LENGTH",
    "FibsBoard",
    "Question",
    "GnubgQuestion",
    "format_beaver_question",
    "format_fibs_board",
    "gnubg_line",
    "line_checkers",
    "line_name",
    "parse_fibs_board",
    "parse_gnubg_line",
    "parse_gnubg_question",
]
