"""Exact bear-off tables and the race probabilities they give.

Two tables, built by our own kernels (:mod:`gbot.core.bearoff`) at first use and cached on disk
(``$GBOT_CACHE`` or ``~/.cache/gbot/``, file ``bearoff-v<VERSION>.npz``):

* **One-sided**, for each of the 54,264 ways to place 0..15 checkers on the six home points:
  the distribution of the number of rolls needed to bear them all off, each roll played to
  *minimise the expected number of rolls*; and, for positions with all 15 checkers on the
  board, the distribution of the rolls needed to bear off the *first* checker (plays minimising
  its expected rolls), which decides gammons.
* **Two-sided**, for the 924 x 924 pairs of positions with at most 6 checkers a side: the exact
  cubeless probability that the side on roll wins, both sides playing to maximise it.

:func:`bearoff_probabilities` gives gnubg's five outputs (win, win gammon, win backgammon,
lose gammon, lose backgammon) for the side to move of boards where every checker is in its
owner's home board or off (:func:`is_bearoff`). With both sides in the two-sided table the
result is exact (no gammon can remain with at most 6 checkers left). Otherwise the sides'
rolls counts are treated as independent: the side to move, rolling first, wins when it needs no
more rolls than the opponent, and wins a gammon when it needs no more rolls to finish than the
opponent needs to bear off a first checker. Backgammons are impossible here.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.core import bearoff as _k
from gbot.core.board import Board
from gbot.core.movegen import HASH_KEYS, Workspace
from gbot.errors import BoardError

__all__ = [
    "VERSION",
    "BearoffTables",
    "bearoff_mask",
    "bearoff_probabilities",
    "build_tables",
    "cache_dir",
    "cache_path",
    "ensure_built",
    "load_tables",
    "save_tables",
    "expected_rolls",
    "gammon_distribution",
    "is_bearoff",
    "rolls_distribution",
    "side_rank",
    "tables",
    "two_sided_win",
]

VERSION = 1
"""Bumped whenever the tables' content or layout changes; part of the cache file name."""

N_POSITIONS = _k.N_POSITIONS
N_SMALL = _k.N_SMALL
MAX_ROLLS = _k.MAX_ROLLS

_GAMMON_COLUMNS = 16
"""Gammon columns kept in the cache file: a first checker never needs more than 10 rolls."""

_log = logging.getLogger(__name__)
_LOCK = threading.Lock()
_TABLES: BearoffTables | None = None

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BearoffTables:
    """The bear-off tables, indexed by side rank (see :func:`side_rank`).

    ``rolls[r, k]``: P(bearing off all checkers takes exactly ``k`` rolls);
    ``gammon[r, k]``: the same for the first checker (a point mass at 0 unless all 15 checkers
    are on the board); ``two_sided[a, b]``: exact P(win) for the side on roll with rank ``a``
    against rank ``b``, both below :data:`N_SMALL`.
    """

    rolls: npt.NDArray[np.float32]
    gammon: npt.NDArray[np.float32]
    two_sided: npt.NDArray[np.float32]

    def expected(self) -> npt.NDArray[np.float64]:
        """Expected rolls to bear off, per rank."""
        k = np.arange(self.rolls.shape[1], dtype=np.float64)
        return self.rolls.astype(np.float64) @ k


# --- building and caching ---------------------------------------------------------------------


def _scratch() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int32],
                        npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int8],
                        npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    ws = Workspace()
    return (ws.out, ws.steps, ws.table, ws.hashes, ws.state, ws.path, ws.marks, HASH_KEYS)


def build_tables(progress: Progress | None = None) -> BearoffTables:
    """Compute both tables from scratch (about ten seconds plus first compilation)."""
    say = progress or _log.info
    scratch = _scratch()
    t0 = time.perf_counter()
    dist = np.zeros((N_POSITIONS, MAX_ROLLS), dtype=np.float64)
    gdist = np.zeros((N_POSITIONS, MAX_ROLLS), dtype=np.float64)
    mean = np.zeros(N_POSITIONS, dtype=np.float64)
    gmean = np.zeros(N_POSITIONS, dtype=np.float64)
    chunk = 6784
    for lo in range(0, N_POSITIONS, chunk):
        hi = min(N_POSITIONS, lo + chunk)
        bad = _k.build_one_sided(lo, hi, dist, mean, gdist, gmean, _k.BINOM, _k.ROLLS, *scratch)
        if bad >= 0:
            raise RuntimeError(f"bear-off rank {bad} needs more than {MAX_ROLLS - 1} rolls")
        say(f"bear-off one-sided table: {hi}/{N_POSITIONS} positions "
            f"({time.perf_counter() - t0:.1f} s)")
    if gdist[:, _GAMMON_COLUMNS:].any():
        raise RuntimeError(f"a first checker needs more than {_GAMMON_COLUMNS - 1} rolls")
    size = N_SMALL * len(_k.ROLLS) * 16
    while True:
        succ = np.empty(size, dtype=np.int32)
        offsets = np.zeros(N_SMALL * len(_k.ROLLS) + 1, dtype=np.int64)
        if _k.small_successors(N_SMALL, _k.BINOM, _k.ROLLS, succ, offsets, *scratch) >= 0:
            break
        size *= 4
    win = np.zeros((N_SMALL, N_SMALL), dtype=np.float64)
    _k.build_two_sided(succ, offsets, _k.ROLLS, win)
    say(f"bear-off two-sided table: {N_SMALL}x{N_SMALL} pairs "
        f"({time.perf_counter() - t0:.1f} s)")
    return BearoffTables(dist.astype(np.float32), gdist.astype(np.float32),
                         win.astype(np.float32))


def cache_dir() -> Path:
    """``$GBOT_CACHE`` when set, else ``~/.cache/gbot``."""
    env = os.environ.get("GBOT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "gbot"


def cache_path() -> Path:
    """Where the tables of this :data:`VERSION` are cached."""
    return cache_dir() / f"bearoff-v{VERSION}.npz"


def save_tables(t: BearoffTables, path: Path) -> None:
    """Write ``t`` to the cache file ``path`` (atomically, stamped with :data:`VERSION`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".bearoff-", suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, version=np.int64(VERSION), rolls=t.rolls,
                                gammon=t.gammon[:, :_GAMMON_COLUMNS], two_sided=t.two_sided)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_tables(path: Path) -> BearoffTables | None:
    """The tables in the cache file ``path``; None when it is unreadable or of another
    :data:`VERSION`."""
    try:
        with np.load(path) as z:
            if int(z["version"]) != VERSION:
                return None
            rolls = np.ascontiguousarray(z["rolls"], dtype=np.float32)
            g = z["gammon"]
            two = np.ascontiguousarray(z["two_sided"], dtype=np.float32)
    except (OSError, KeyError, ValueError, EOFError):
        return None
    if (rolls.shape != (N_POSITIONS, MAX_ROLLS) or two.shape != (N_SMALL, N_SMALL)
            or g.shape[0] != N_POSITIONS or g.shape[1] > MAX_ROLLS):
        return None
    gammon = np.zeros((N_POSITIONS, MAX_ROLLS), dtype=np.float32)
    gammon[:, :g.shape[1]] = g
    for a in (rolls, gammon, two):
        a.setflags(write=False)
    return BearoffTables(rolls, gammon, two)


def ensure_built(progress: Progress | None = None) -> Path:
    """Build and cache the tables unless a valid cache file exists; return its path."""
    tables(progress)
    return cache_path()


def tables(progress: Progress | None = None) -> BearoffTables:
    """The tables: from memory, else from the cache file, else built (and cached)."""
    global _TABLES
    if _TABLES is not None:
        return _TABLES
    with _LOCK:
        if _TABLES is None:
            path = cache_path()
            t = load_tables(path) if path.exists() else None
            if t is None:
                (progress or _log.info)(f"building bear-off tables into {path}")
                t = build_tables(progress)
                try:
                    save_tables(t, path)
                except OSError as exc:  # a read-only home still gets working tables
                    _log.warning("cannot cache bear-off tables at %s: %s", path, exc)
                for a in (t.rolls, t.gammon, t.two_sided):
                    a.setflags(write=False)
            _TABLES = t
        return _TABLES


# --- positions -------------------------------------------------------------------------------


def _as_board(b: npt.ArrayLike) -> Board:
    arr = np.asarray(b)
    if arr.shape != (26,):
        raise BoardError(f"a board has 26 slots, got shape {arr.shape!r}")
    return np.ascontiguousarray(arr, dtype=np.int8)


def is_bearoff(b: npt.ArrayLike) -> bool:
    """True when every checker of both sides is in its owner's home board or borne off (none
    on the bar), so the bear-off tables apply. Finished games (a side with no checkers) count.
    """
    return bool(_k.is_bearoff(_as_board(b)))


def bearoff_mask(boards: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """:func:`is_bearoff` for each row of int8[n, 26] boards (vectorised)."""
    b = np.asarray(boards)
    if b.ndim != 2 or b.shape[1] != 26:
        raise BoardError(f"expected boards of shape (n, 26), got {b.shape!r}")
    mask: npt.NDArray[np.bool_] = (
        (b[:, 0] == 0) & (b[:, 25] == 0) & (b[:, 7:19] == 0).all(axis=1)
        & (b[:, 1:7] >= 0).all(axis=1) & (b[:, 19:25] <= 0).all(axis=1))
    return mask


def side_rank(side: npt.ArrayLike) -> int:
    """Table rank of one side: a board (the side to move's checkers, all on points 1..6 or
    off) or six counts for points 1..6."""
    arr = np.asarray(side)
    if arr.shape == (26,):
        b = arr.astype(np.int64)
        if b[25] != 0 or (b[7:25] > 0).any():
            raise BoardError(f"side to move is not bearing off: {arr.tolist()!r}")
        counts = np.clip(b[1:7], 0, None)
    elif arr.shape == (6,):
        counts = arr.astype(np.int64)
        if (counts < 0).any():
            raise BoardError(f"negative checker count: {arr.tolist()!r}")
    else:
        raise BoardError(f"expected a 26-slot board or 6 counts, got shape {arr.shape!r}")
    if counts.sum() > _k.MAX_CHECKERS:
        raise BoardError(f"more than {_k.MAX_CHECKERS} checkers: {arr.tolist()!r}")
    return int(_k.rank(counts.astype(np.int8), _k.BINOM))


def rolls_distribution(side: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """P(bearing off every checker takes exactly k rolls), k = 0 .. MAX_ROLLS - 1, playing to
    minimise the expected number of rolls. ``side`` as for :func:`side_rank`."""
    row: npt.NDArray[np.float64] = tables().rolls[side_rank(side)].astype(np.float64)
    return row


def gammon_distribution(side: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """P(bearing off the first checker takes exactly k rolls); a point mass at 0 when a
    checker is already off. ``side`` as for :func:`side_rank`."""
    row: npt.NDArray[np.float64] = tables().gammon[side_rank(side)].astype(np.float64)
    return row


def expected_rolls(side: npt.ArrayLike) -> float:
    """Expected number of rolls to bear off every checker (with the optimal play)."""
    d = rolls_distribution(side)
    return float(d @ np.arange(d.shape[0]))


def _check_boards(boards: npt.ArrayLike) -> npt.NDArray[np.int8]:
    arr = np.asarray(boards)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 26:
        raise BoardError(f"expected boards of shape (n, 26), got {arr.shape!r}")
    b = np.ascontiguousarray(arr, dtype=np.int8)
    ok = bearoff_mask(b)
    if not ok.all():
        raise BoardError(f"not a bear-off position: {b[int(np.argmin(ok))].tolist()!r}")
    mine = np.clip(b[:, 1:7].astype(np.int64), 0, None).sum(axis=1)
    theirs = np.clip(-b[:, 19:25].astype(np.int64), 0, None).sum(axis=1)
    over = (mine > _k.MAX_CHECKERS) | (theirs > _k.MAX_CHECKERS)
    if over.any():
        raise BoardError(f"more than {_k.MAX_CHECKERS} checkers a side: "
                         f"{b[int(np.argmax(over))].tolist()!r}")
    return b


def bearoff_probabilities(boards: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """float32[n, 5] (win, win gammon, win backgammon = 0, lose gammon, lose backgammon = 0)
    for the side to move of each bear-off board (int8[n, 26], or one int8[26]).

    Exact when both sides have at most 6 checkers left; otherwise from the one-sided tables
    (see the module docstring). Raises :class:`BoardError` for a board that is not a bear-off.
    """
    b = _check_boards(boards)
    t = tables()
    out = np.zeros((b.shape[0], 5), dtype=np.float32)
    _k.race_probabilities(b, t.rolls, t.gammon, t.two_sided, _k.BINOM, out)
    return out


def two_sided_win(b: npt.ArrayLike) -> float:
    """Exact cubeless P(win) for the side to move of a bear-off board with at most 6 checkers
    a side (optimal play by both sides)."""
    board = _check_boards(b)[0]
    me, op = side_rank(board), side_rank(np.asarray(board)[::-1] * -1)
    if me >= N_SMALL or op >= N_SMALL:
        raise BoardError(f"more than {_k.SMALL_CHECKERS} checkers a side: {board.tolist()!r}")
    return float(tables().two_sided[me, op])
