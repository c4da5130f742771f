"""``Position`` (a board with the side to move) and ``Play`` (one legal way to use a roll)."""

from __future__ import annotations

import functools
import itertools
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, MutableSequence, Sequence
from dataclasses import FrozenInstanceError
from itertools import repeat
from operator import index
from typing import Any, SupportsIndex, overload

import numpy as np
import numpy.typing as npt

from gbot.core import board as _board
from gbot.core import movegen
from gbot.core.board import Board
from gbot.core.fastcall import entry_point
from gbot.errors import BoardError, IllegalMoveError, MoveParseError
from gbot.game.notations import position_id
from gbot.game.notations.move_text import format_steps, hit_marks, parse_move

Dice = tuple[int, int]

_DICE: dict[object, Dice] = {(a, b): (a, b) for a in range(1, 7) for b in range(1, 7)}
"""The 36 rolls, each its own key: a tuple equal to one (ints, or bools and numpy integers
equal to them) is answered with the plain-int roll."""


def check_dice(dice: Sequence[int]) -> Dice:
    """Two dice as a pair of ints 1..6, else a one-line ``ValueError``."""
    try:
        d = _DICE.get(dice) if type(dice) is tuple else None
    except TypeError:         # an unhashable member: said below
        d = None
    if d is not None:
        return d
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
    def from_owned_array(cls, board: Board) -> Position:
        """A position over an ``int8[26]`` board array without a copy: the array is made
        read-only and the caller must not keep a writable view of it (for fast paths)."""
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
        return cls._trusted(position_id.decode(pid))

    def id(self) -> str:
        """gnubg Position ID, the side to move second."""
        return position_id.encode(self._board)

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
    def legal_plays(self, dice: Sequence[int], *, caucasian: bool = False) -> Plays:
        """Every legal play for ``dice``, one per distinct resulting position.

        The result is a :class:`Plays`: it behaves as a list of :class:`Play` (indexing,
        slicing, iteration, ``len``, ``==`` with a list, the list methods) and builds each
        play on first access."""
        d = check_dice(dice)
        try:
            gen, i8, i64, packed = _LOCAL.gen
        except AttributeError:
            gen, i8, i64, packed = _generator()
        n = gen(self._board, d[0], d[1], True if caucasian else False, i8, i64)
        plays: Plays = _new(Plays)
        if n > 0:
            plays._blk = (self, d, packed[:_PACKED_ROW * n].tobytes(), n)
        elif n == 0:
            plays._blk = (self, d, b"", 0)
        else:
            raise RuntimeError("move generator workspace overflow")
        plays._items = None
        plays._some = None
        return plays

    def play_from_text(self, text: str, dice: Sequence[int], *,
                       caucasian: bool = False) -> Play:
        """The legal play that ``text`` describes (any order, chains, ``(n)``, ``*`` optional).

        Raises :class:`MoveParseError` for text that is not move notation and
        :class:`IllegalMoveError` for a readable move that is not legal here.
        """
        segments = parse_move(text)
        d = check_dice(dice)
        plays = self.legal_plays(d, caucasian=caucasian)
        if not plays:
            if not segments:
                raise IllegalMoveError(f"no legal play exists for {d!r}; {text!r} is not one")
            raise IllegalMoveError(f"{text!r} is illegal: {d!r} cannot be played here")
        if not segments:
            raise IllegalMoveError(f"empty move {text!r}, but {d!r} must be played")
        matches = _matching_plays(self._board, segments, d, plays)
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


_new = object.__new__

_PACKED_ROW = 26 + 8
"""Bytes per play in :func:`gbot.core.movegen.generate_packed`'s packed output: the result
rows first (26 each), then the step rows (8 each)."""


class Play:
    """One legal play: the roll, one step sequence (from, to) and the resulting position.

    ``position`` is the result still seen by the mover; ``position.swapped()`` is what the
    opponent faces next. Plays are immutable; those of :meth:`Position.legal_plays` build
    their steps, resulting position and notation on first access.
    """

    __slots__ = ("_blk", "_i", "_steps", "_position", "_notation")
    _blk: _Block
    _i: int
    _steps: tuple[tuple[int, int], ...]
    _position: Position
    _notation: str

    def __init__(self, start: Position, dice: Dice, steps: tuple[tuple[int, int], ...],
                 position: Position) -> None:
        _set_blk(self, (start, dice, None, 0))
        _set_i(self, -1)
        _set_steps(self, steps)
        _set_position(self, position)

    @classmethod
    def picked_from_packed(cls, start: Position, dice: Dice, raw: bytes, n: int,
                           picks: Sequence[int]) -> list[Play]:
        """Plays ``picks`` (indices, in that order) of the ``n`` plays of ``raw`` (``n``
        result rows of 26 bytes, then ``n`` step rows of 8), shared by the plays; each builds
        its fields from its rows on first access."""
        block: _Block = (start, dice, raw, n)
        k = len(picks)
        plays: list[Play] = list(map(_new, repeat(cls, k)))
        deque(map(_set_blk, plays, repeat(block, k)), maxlen=0)
        deque(map(_set_i, plays, picks), maxlen=0)
        return plays

    @classmethod
    def from_packed(cls, start: Position, dice: Dice, raw: bytes) -> Play:
        """One play from its packed rows (26 result bytes, then 8 step bytes)."""
        play: Play = _new(cls)
        _set_blk(play, (start, dice, raw, 1))
        _set_i(play, 0)
        return play

    @classmethod
    def from_rows(cls, start: Position, dice: Dice, result: Board,
                  steps: npt.NDArray[np.int8]) -> Play:
        """One play from a result row and its step row (both copied)."""
        raw = result.astype(np.int8, copy=False).tobytes() + steps.astype(
            np.int8, copy=False).tobytes()
        return cls.from_packed(start, dice, raw)

    @property
    def start(self) -> Position:
        """The position the play starts from."""
        return self._blk[0]

    @property
    def dice(self) -> Dice:
        """The roll."""
        return self._blk[1]

    @property
    def steps(self) -> tuple[tuple[int, int], ...]:
        """One single-die step sequence ``(from, to)`` that reaches the result (25 = bar,
        0 = off)."""
        try:
            return self._steps
        except AttributeError:
            _, _, raw, n = self._blk
            assert raw is not None
            at = 26 * n + 8 * self._i
            st = raw[at:at + 8]
            s = tuple((st[k], st[k + 1]) for k in range(0, 8, 2) if st[k])
            _set_steps(self, s)
            return s

    @property
    def position(self) -> Position:
        """The resulting position, still seen by the mover."""
        try:
            return self._position
        except AttributeError:
            raw = self._blk[2]
            assert raw is not None
            p = Position.from_owned_array(np.frombuffer(raw, np.int8, 26, 26 * self._i))
            _set_position(self, p)
            return p

    @property
    def notation(self) -> str:
        """gnubg-style text, e.g. ``24/18 13/11*`` (empty when no checker moves)."""
        try:
            return self._notation
        except AttributeError:
            t = format_steps(self._blk[0].board, self.steps)
            _set_notation(self, t)
            return t

    def _result_bytes(self) -> bytes:
        """The resulting board's bytes (without building the position)."""
        raw = self._blk[2]
        if raw is not None:
            at = 26 * self._i
            return raw[at:at + 26]
        return self.position.board.tobytes()

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[Play], tuple[Position, Dice, tuple[tuple[int, int], ...],
                                                   Position]]:
        return (Play, (self.start, self.dice, self.steps, self.position))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Play) and self.start == other.start
                and self._result_bytes() == other._result_bytes())

    def __hash__(self) -> int:
        return hash((self.start, self.position))

    def __repr__(self) -> str:
        return f"Play(start={self.start!r}, dice={self.dice!r}, steps={self.steps!r})"

    def __str__(self) -> str:
        return self.notation


class Plays(MutableSequence[Play]):
    """The legal plays of one roll, in the move generator's order: a list of :class:`Play`
    that keeps the generator's packed output and builds each play on first access.

    It answers as a ``list`` does: indexing (the same object each time), slicing (a list),
    iteration, ``len``, ``in``, ``index``, ``count``, ``==``/``<`` against lists and other
    ``Plays``, ``+``, ``*``, and the mutating methods (``append``, ``sort``, ...; the plays
    are then built and kept in a list). It is unhashable, as a list is; pickling and
    ``copy.deepcopy`` give a list.
    """

    __slots__ = ("_blk", "_items", "_some")
    _blk: _Block
    _items: list[Play] | None      # every play, once built (and after any change)
    _some: list[Play | None] | None   # the plays built so far, before that

    @classmethod
    def _of(cls, block: _Block) -> Plays:
        obj: Plays = _new(cls)
        obj._blk = block
        obj._items = None
        obj._some = None
        return obj

    def _list(self) -> list[Play]:
        """Every play, built now where not yet (the list this object then answers from)."""
        items = self._items
        if items is not None:
            return items
        start, dice, raw, n = self._blk
        some = self._some
        if some is None:
            items = Play.picked_from_packed(start, dice, raw or b"", n, range(n))
        else:
            items = [p if p is not None else _lazy_play(self._blk, j)
                     for j, p in enumerate(some)]
        self._items = items
        self._some = None
        return items

    # --- reading -----------------------------------------------------------------------------
    def __len__(self) -> int:
        items = self._items
        return self._blk[3] if items is None else len(items)

    def __bool__(self) -> bool:
        return len(self) > 0

    @overload
    def __getitem__(self, i: SupportsIndex) -> Play: ...

    @overload
    def __getitem__(self, i: slice) -> list[Play]: ...

    def __getitem__(self, i: SupportsIndex | slice) -> Play | list[Play]:
        items = self._items
        if items is not None:
            return items[i]
        if isinstance(i, slice):
            return self._list()[i]
        some = self._some
        if some is None:
            some = self._some = [None] * self._blk[3]
        p = some[i]     # IndexError / TypeError exactly as a list's
        if p is None:
            j = index(i)
            if j < 0:
                j += len(some)
            p = some[j] = _lazy_play(self._blk, j)
        return p

    def __iter__(self) -> Iterator[Play]:
        return iter(self._list())

    def __reversed__(self) -> Iterator[Play]:
        return reversed(self._list())

    def __contains__(self, value: object) -> bool:
        return value in self._list()

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = sys.maxsize
              ) -> int:
        """The first position of ``value`` (``ValueError`` when absent), as ``list.index``."""
        return self._list().index(value, start, stop)

    def count(self, value: Any) -> int:
        """How many plays equal ``value``."""
        return self._list().count(value)

    def copy(self) -> list[Play]:
        """A shallow copy, as a list."""
        return list(self._list())

    def __copy__(self) -> Plays:
        other = Plays._of(self._blk)
        if self._items is not None:
            other._items = list(self._items)
        elif self._some is not None:
            other._some = list(self._some)
        return other

    def __reduce__(self) -> tuple[type[list[Play]], tuple[list[Play]]]:
        return (list, (self._list(),))

    def __repr__(self) -> str:
        return repr(self._list())

    # --- comparing -----------------------------------------------------------------------
    @staticmethod
    def _other(other: object) -> list[Play] | None:
        if isinstance(other, Plays):
            return other._list()
        if isinstance(other, list):
            return other
        return None

    def __eq__(self, other: object) -> bool:
        if (isinstance(other, Plays) and self._items is None and other._items is None):
            # a play equals another with the same start and result: compare the packed rows
            a, b = self._blk, other._blk
            return (a[3] == b[3] and (a[3] == 0 or a[0] == b[0])
                    and (a[2] or b"")[:26 * a[3]] == (b[2] or b"")[:26 * b[3]])
        o = self._other(other)
        return NotImplemented if o is None else self._list() == o

    def __lt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self._list() < o

    def __le__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self._list() <= o

    def __gt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self._list() > o

    def __ge__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self._list() >= o

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: object) -> list[Play]:
        o = self._other(other)
        if o is None:
            return NotImplemented
        return self._list() + o

    def __radd__(self, other: object) -> list[Play]:
        o = self._other(other)
        if o is None:
            return NotImplemented
        return o + self._list()

    def __mul__(self, k: SupportsIndex) -> list[Play]:
        return self._list() * k

    __rmul__ = __mul__

    # --- changing (the plays are built and kept in a list) -----------------------------------
    @overload
    def __setitem__(self, i: SupportsIndex, value: Play) -> None: ...

    @overload
    def __setitem__(self, i: slice, value: Iterable[Play]) -> None: ...

    def __setitem__(self, i: Any, value: Any) -> None:
        self._list()[i] = value

    def __delitem__(self, i: SupportsIndex | slice) -> None:
        del self._list()[i]

    def insert(self, i: SupportsIndex, value: Play) -> None:
        """Insert ``value`` before position ``i``."""
        self._list().insert(i, value)

    def append(self, value: Play) -> None:
        """Add ``value`` at the end."""
        self._list().append(value)

    def extend(self, values: Iterable[Play]) -> None:
        """Add ``values`` at the end."""
        self._list().extend(values)

    def pop(self, i: SupportsIndex = -1) -> Play:
        """Remove and return the play at ``i`` (the last by default)."""
        return self._list().pop(i)

    def remove(self, value: Play) -> None:
        """Remove the first play equal to ``value``."""
        self._list().remove(value)

    def clear(self) -> None:
        """Remove every play."""
        self._list().clear()

    def reverse(self) -> None:
        """Reverse the order in place."""
        self._list().reverse()

    def sort(self, *, key: Callable[[Play], Any] | None = None, reverse: bool = False) -> None:
        """Sort in place (stable), as ``list.sort``."""
        items: Any = self._list()
        items.sort(key=key, reverse=reverse)

    def __iadd__(self, values: Iterable[Play]) -> Plays:  # type: ignore[misc]
        self._list().extend(values)
        return self

    def __imul__(self, k: SupportsIndex) -> Plays:
        items = self._list()
        items *= k
        return self


def _lazy_play(block: _Block, i: int) -> Play:
    """Play ``i`` of ``block`` (built on first access of its fields)."""
    play: Play = _new(Play)
    _set_blk(play, block)
    _set_i(play, i)
    return play


_Block = tuple[Position, Dice, "bytes | None", int]
"""What the plays of one call share: start, dice, the packed rows (``n`` results of 26 bytes,
then ``n`` steps of 8; None for a play built from its fields) and ``n``."""


def _slot_setter(name: str) -> Callable[[Play, Any], None]:
    """The C-level setter of one of :class:`Play`'s slots (bypasses the frozen ``__setattr__``)."""
    setter: Callable[[Play, Any], None] = Play.__dict__[name].__set__
    return setter


_set_blk = _slot_setter("_blk")
_set_i = _slot_setter("_i")
_set_steps = _slot_setter("_steps")
_set_position = _slot_setter("_position")
_set_notation = _slot_setter("_notation")


_LOCAL = threading.local()


def _generator() -> tuple[Callable[..., int], npt.NDArray[np.int8], npt.NDArray[np.int64],
                          memoryview]:
    """This thread's move generator call: :func:`gbot.core.movegen.generate_packed`, its two
    workspace buffers and a memoryview of the packed output (movegen is imported on first
    use: it loads numba)."""

    ws = movegen.workspace()
    # a Position's board is always a read-only int8[26] array, the dice ints: the compiled
    # version for those types is called directly (numba's type resolution skipped)
    args = (Position.initial().board, 3, 1, False, ws.i8, ws.i64)
    movegen.generate_packed(*args)
    gen = entry_point(movegen.generate_packed, args) or movegen.generate_packed
    found = (gen, ws.i8, ws.i64, ws.i8.data)
    _LOCAL.gen = found
    return found


def _matching_plays(board: Board, segments: list[tuple[int, int]], dice: Dice,
                    plays: Plays) -> list[Play]:
    """The plays of ``plays`` (one :meth:`Position.legal_plays` call) that the written
    ``segments`` describe.

    Each segment uses at least one die, so more segments than dice describe nothing. The
    segments fix where the mover's checkers end; only plays with that mover side are
    candidates, and the segments are replayed (any order, any split of a multi-die segment,
    hits applied where a checker lands) only to tell which blots they hit."""
    pool = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    if len(segments) > len(pool) or sum(src - dst for src, dst in segments) > sum(pool):
        return []
    mine = np.maximum(board, 0).astype(np.int64)
    for src, dst in segments:
        mine[src] -= 1
        if dst > 0:
            mine[dst] += 1
    if mine.min() < 0:
        return []
    _, _, raw, n = plays._blk
    assert raw is not None
    rows = np.frombuffer(raw, np.int8, 26 * n).reshape(n, 26)
    same = np.nonzero((np.maximum(rows[:, 1:], 0) == mine[1:]).all(axis=1))[0]
    if same.shape[0] == 0:
        return []
    reached = _apply_segments(board, segments, dice)
    return [plays[i] for i in same.tolist() if rows[i].tobytes() in reached]


def _apply_segments(board: Board, segments: list[tuple[int, int]], dice: Dice) -> set[bytes]:
    """Every board reachable by playing the written segments with the dice (any order of
    segments, any split of a multi-die segment), hits applied where a checker lands; at most
    as many segments as dice."""
    pool = (dice[0],) * 4 if dice[0] == dice[1] else (dice[0], dice[1])
    results: set[bytes] = set()
    start = [int(x) for x in board.tolist()]
    for order in set(itertools.permutations(segments)):
        _walk(start, list(order), pool, results)
    return results


def _walk(b: list[int], segs: list[tuple[int, int]], pool: tuple[int, ...],
          results: set[bytes]) -> None:
    if not segs:
        results.add(np.array(b, dtype=np.int8).tobytes())
        return
    src, dst = segs[0]
    if b[src] <= 0:
        return
    for combo, rest in _splits(pool):
        if not _fits(src, dst, combo):
            continue
        nb = list(b)
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
        if ok:
            _walk(nb, segs[1:], rest, results)


@functools.cache
def _splits(pool: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every ordered choice of dice from ``pool`` for one segment, with the dice left."""
    out = []
    for k in range(1, len(pool) + 1):
        for combo in sorted(set(itertools.permutations(pool, k))):
            rest = list(pool)
            for die in combo:
                rest.remove(die)
            out.append((combo, tuple(rest)))
    return out


def _fits(src: int, dst: int, combo: tuple[int, ...]) -> bool:
    """Whether dice ``combo`` take a checker from ``src`` exactly to ``dst`` (off = 0 may be
    overshot by the last die)."""
    total = sum(combo)
    if dst > 0:
        return total == src - dst
    return total == src or (total > src and total - combo[-1] < src)


__all__ = ["Position", "Play", "Plays", "MoveParseError", "IllegalMoveError"]
