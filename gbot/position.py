"""``Position`` (a board with the side to move) and ``Play`` (one legal way to use a roll)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

from gbot import ids
from gbot.core import board as _board
from gbot.core.board import Board
from gbot.errors import BoardError, IllegalMoveError, MoveParseError
from gbot.moves import format_steps, hit_marks, parse_move

Dice = tuple[int, int]


def _check_dice(dice: Sequence[int]) -> Dice:
    try:
        d1, d2 = (int(d) for d in dice)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"dice must be two numbers 1..6, got {dice!r}") from exc
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be two numbers 1..6, got {dice!r}")
    return d1, d2


class Position:
    """A backgammon position seen by the side to move (who is about to roll or play).

    The board is the int8[26] layout of :mod:`gbot.core.board`; it is read-only here.
    """

    __slots__ = ("_board", "__weakref__")
    _board: Board

    def __init__(self, board: npt.ArrayLike | None = None, *, max_checkers: int = 15) -> None:
        b = _board.START.copy() if board is None else np.array(board, dtype=np.int64)
        if b.shape != (26,):
            raise BoardError(f"a board has 26 slots, got shape {b.shape!r}")
        if b[25] < 0 or b[0] > 0:
            raise BoardError(f"bar counts have the wrong sign: {b.tolist()!r}")
        if np.abs(b).max() > max_checkers:
            raise BoardError(f"too many checkers on one point: {b.tolist()!r}")
        arr = b.astype(np.int8)
        mine, theirs = _board.checkers(arr)
        if mine > max_checkers or theirs > max_checkers:
            raise BoardError(f"more than {max_checkers} checkers for one side: {b.tolist()!r}")
        arr.setflags(write=False)
        self._board = arr

    @classmethod
    def _trusted(cls, board: Board) -> Position:
        obj = cls.__new__(cls)
        arr = np.array(board, dtype=np.int8)
        arr.setflags(write=False)
        obj._board = arr
        return obj

    @classmethod
    def _owned(cls, board: Board) -> Position:
        """:meth:`_trusted` for an ``int8[26]`` array nobody else may write (no copy)."""
        obj = cls.__new__(cls)
        board.setflags(write=False)
        obj._board = board
        return obj

    # --- conversions -------------------------------------------------------------------
    @classmethod
    def initial(cls) -> Position:
        """The starting position."""
        return cls._trusted(_board.START)

    @classmethod
    def from_id(cls, pid: str) -> Position:
        """Position from a gnubg Position ID (the second half is the side on roll)."""
        return cls._trusted(ids.decode(pid))

    def id(self) -> str:
        """gnubg Position ID, the side to move second."""
        return ids.encode(self._board)

    @classmethod
    def from_gnubg(cls, on_roll: Sequence[int], opponent: Sequence[int]) -> Position:
        """From gnubg's two 25-slot arrays (index = own point - 1, index 24 = bar)."""
        if len(on_roll) != 25 or len(opponent) != 25:
            raise BoardError(f"gnubg arrays have 25 slots: {on_roll!r}, {opponent!r}")
        if min(on_roll) < 0 or min(opponent) < 0:
            raise BoardError(f"negative checker count: {on_roll!r}, {opponent!r}")
        for i in range(24):
            if on_roll[i] and opponent[23 - i]:
                raise BoardError(f"both sides on one point: {on_roll!r}, {opponent!r}")
        return cls(_board.from_gnubg(list(on_roll), list(opponent)))

    def to_gnubg(self) -> tuple[list[int], list[int]]:
        """``(on_roll, opponent)`` arrays in gnubg's layout."""
        return _board.to_gnubg(self._board)

    @property
    def board(self) -> Board:
        """The read-only int8[26] board."""
        return self._board

    def swapped(self) -> Position:
        """The same position seen by the other side."""
        return Position._trusted(_board.flip_py(self._board))

    # --- facts ---------------------------------------------------------------------------
    def pip_count(self) -> tuple[int, int]:
        """Pips ``(side to move, opponent)``."""
        return _board.pips(self._board)

    def checkers_off(self, total: int = 15) -> tuple[int, int]:
        """Checkers borne off ``(side to move, opponent)``, out of ``total`` each."""
        mine, theirs = _board.checkers(self._board)
        return total - mine, total - theirs

    def is_over(self) -> bool:
        """True when either side has no checker left."""
        mine, theirs = _board.checkers(self._board)
        return mine == 0 or theirs == 0

    # --- plays ---------------------------------------------------------------------------
    def legal_plays(self, dice: Sequence[int], *, caucasian: bool = False) -> list[Play]:
        """Every legal play for ``dice``, one per distinct resulting position."""
        from gbot.core.movegen import legal_plays_raw

        d = _check_dice(dice)
        results, steps = legal_plays_raw(self._board, d[0], d[1], caucasian)
        plays = []
        for res, st in zip(results, steps, strict=True):
            seq = tuple((int(st[2 * i]), int(st[2 * i + 1])) for i in range(4) if st[2 * i])
            plays.append(Play(self, d, seq, Position._trusted(res)))
        return plays

    def play_from_text(self, text: str, dice: Sequence[int], *,
                       caucasian: bool = False) -> Play:
        """The legal play that ``text`` describes (any order, chains, ``(n)``, ``*`` optional).

        Raises :class:`MoveParseError` for text that is not move notation and
        :class:`IllegalMoveError` for a readable move that is not legal here.
        """
        segments = parse_move(text)
        d = _check_dice(dice)
        plays = self.legal_plays(d, caucasian=caucasian)
        if not plays:
            if not segments:
                raise IllegalMoveError(f"no legal play exists for {d!r}; {text!r} is not one")
            raise IllegalMoveError(f"{text!r} is illegal: {d!r} cannot be played here")
        if not segments:
            raise IllegalMoveError(f"empty move {text!r}, but {d!r} must be played")
        by_board = {p.position.board.tobytes(): p for p in plays}
        matches = [by_board[r] for r in _apply_segments(self._board, segments, d)
                   if r in by_board]
        if matches:
            # where the text can be read two ways (24/14 passing a blot on 18 or not),
            # prefer the reading whose hits agree with the written marks
            stars = hit_marks(text)
            opp_bar = int(self._board[0])
            return min(matches, key=lambda p: (abs(opp_bar - int(p.position.board[0]) - stars),
                                               p.notation != text.strip()))
        raise IllegalMoveError(f"{text!r} is not a legal play of {d!r} in {self.id()!r}")

    # --- dunder --------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and bytes(self._board) == bytes(other._board)

    def __hash__(self) -> int:
        return hash(bytes(self._board))

    def __repr__(self) -> str:
        return f"Position.from_id({self.id()!r})"


@dataclass(frozen=True, eq=False)
class Play:
    """One legal play: the roll, one step sequence (from, to) and the resulting position.

    ``position`` is the result still seen by the mover; ``position.swapped()`` is what the
    opponent faces next.
    """

    start: Position
    dice: Dice
    steps: tuple[tuple[int, int], ...]
    position: Position = field(repr=False)

    @cached_property
    def notation(self) -> str:
        """gnubg-style text, e.g. ``24/18 13/11*`` (empty when no checker moves)."""
        return format_steps(self.start.board, self.steps)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Play) and self.start == other.start
                and self.position == other.position)

    def __hash__(self) -> int:
        return hash((self.start, self.position))

    def __str__(self) -> str:
        return self.notation


def _apply_segments(board: Board, segments: list[tuple[int, int]], dice: Dice) -> set[bytes]:
    """Every board reachable by playing the written segments with the dice (any order of
    segments, any split of a multi-die segment), hits applied where a checker lands."""
    pool = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    results: set[bytes] = set()
    for order in set(itertools.permutations(segments)):
        _walk(np.array(board, dtype=np.int16), list(order), pool, results)
    return results


def _walk(b: npt.NDArray[np.int16], segs: list[tuple[int, int]], pool: list[int],
          results: set[bytes]) -> None:
    if not segs:
        results.add(b.astype(np.int8).tobytes())
        return
    src, dst = segs[0]
    if b[src] <= 0:
        return
    for k in range(1, len(pool) + 1):
        for combo in set(itertools.permutations(pool, k)):
            if not _fits(src, dst, combo):
                continue
            nb = b.copy()
            ok = True
            cur = src
            for die in combo:
                nxt = max(cur - die, 0)
                nb[cur] -= 1
                if nxt >= 1:
                    if nb[nxt] < -1:
                        ok = False
                        break
                    if nb[nxt] == -1:
                        nb[nxt] = 0
                        nb[0] -= 1
                    nb[nxt] += 1
                cur = nxt
            if not ok:
                continue
            rest = list(pool)
            for die in combo:
                rest.remove(die)
            _walk(nb, segs[1:], rest, results)


def _fits(src: int, dst: int, combo: tuple[int, ...]) -> bool:
    """Whether dice ``combo`` take a checker from ``src`` exactly to ``dst`` (off = 0 may be
    overshot by the last die)."""
    total = sum(combo)
    if dst > 0:
        return total == src - dst
    return total == src or (total > src and total - combo[-1] < src)


__all__ = ["Position", "Play", "MoveParseError", "IllegalMoveError"]
