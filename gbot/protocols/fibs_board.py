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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from operator import neg
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gbot.errors import FibsBoardError
from gbot.match import MAX_MATCH_LENGTH

if TYPE_CHECKING:
    from gbot.core.board import Board
    from gbot.match import MatchState, Rules
    from gbot.position import Position

Dialect = Literal["gnubg_external", "fibs"]
Question = Literal["move", "double_or_roll", "take_or_drop"]
CubeOwner = Literal["me", "opponent", "centre"]

DIALECTS: tuple[Dialect, ...] = ("gnubg_external", "fibs")
FIBS_MONEY = 9999
"""The match length FIBS writes for an unlimited (money) session."""
N_CHECKERS = 15
"""Checkers per side in standard backgammon and Nackgammon (the most a line may hold)."""
MAX_CUBE = 2**15
VARIATION_OF_CHECKERS = {15: "standard", 1: "hyper1", 2: "hyper2", 3: "hyper3"}
"""The :data:`gbot.match.VARIATIONS` name inferred from the checkers per side of a line
(Nackgammon plays 15 checkers by standard rules: only its start differs)."""

_N_INTS = 50
_NUMBER = re.compile(r"-?[1-9][0-9]{0,5}\Z|0\Z")
_NUMBERS = re.compile(r"(?:-?[1-9][0-9]{0,5}|0)(?::(?:-?[1-9][0-9]{0,5}|0))*\Z")
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
        from gbot.position import Position

        # parsing checked the counts and signs; the compiled reader leaves the (read-only)
        # array it made, else a fresh one becomes the position's own
        arr = self.__dict__.get("_board8")
        return Position._owned(np.array(self.points, dtype=np.int8) if arr is None else arr)

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
        from gbot.match import CENTRE, GameState, MatchState, Rules

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
    length, s0, s1 = n[0], n[1], n[2]
    p = n[3:29]
    turn, dice, dice2, cube = n[29], (n[30], n[31]), (n[32], n[33]), n[34]
    may_p, may_n, doubled = n[35], n[36], n[37]
    if length == FIBS_MONEY:
        return "match length 9999 is FIBS's money marker"
    if n[38:42] != [1, -1, 0, 25]:
        return "colour, direction, home and bar are not gnubg's 1 -1 0 25"
    if any(n[44:48]):
        return "gnubg writes 0 in the bar, can-move and forced fields"
    post, not_crawford = n[48], n[49]
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
    off_p, off_n = n[42], n[43]
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
            int(b.double_pending), 1, -1, 0, 25, off_p, off_n, 0, 0, 0, 0,
            int(b.post_crawford), int(not b.crawford_game)]
    return _join(names, nums)


# --- the FIBS server, boardstyle 3 -------------------------------------------------------


def _parse_fibs(name1: str, name2: str, n: list[int]) -> FibsBoard | str:
    length, s1, s2 = n[0], n[1], n[2]
    p = n[3:29]
    turn = n[29]
    dice1, dice2 = (n[30], n[31]), (n[32], n[33])
    cube, may1, may2, doubled = n[34], n[35], n[36], n[37]
    colour1, direction, home, bar = n[38], n[39], n[40], n[41]
    off1, off2, bar1, bar2, can_move, forced, post, redoubles = n[42:50]
    if length == 0:
        return "FIBS writes 9999, not 0, for money"
    if colour1 not in (1, -1) or (direction, home, bar) != (
        (-1, 0, 25) if colour1 > 0 else (1, 25, 0)
    ):
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
    consts = [-1, 0, 25] if colour1 > 0 else [1, 25, 0]
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


_BOARD_IN_TEXT = re.compile(r"board:[^:\n]*:[^:\n]*(?::-?[0-9]{1,6}){50}", re.IGNORECASE)


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


_OWNERS: tuple[CubeOwner, ...] = ("centre", "me", "opponent")


def _gnubg_compiled(line: str) -> FibsBoard | None:
    from gbot.core import boardline as _bl

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
        dice=(v[26], v[27]),
        cube_value=v[28],
        cube_owner=_OWNERS[v[29]],
        may_double=(v[30] == 1, v[31] == 1),
        double_pending=v[32] == 1,
        score=(v[33], v[34]),
        match_length=v[35],
        crawford_game=v[36] == 1,
        post_crawford=v[37] == 1,
        names=(name_a, name_b) if v[39] else (name_b, name_a),
        dialect="gnubg_external",
        colour=v[38],
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
    "format_fibs_board",
    "line_checkers",
    "parse_fibs_board",
    "parse_gnubg_line",
]
