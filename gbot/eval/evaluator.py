"""The :class:`Evaluator`: cubeless probabilities, money equity, hints and best plays by search.

Probabilities are always those of the side to move, cubeless and cumulative, gnubg-style:
``(win, win_g, win_bg, lose_g, lose_bg)``; the cubeless money equity is
``2 win - 1 + win_g - lose_g + win_bg - lose_bg``.

Search depth ("ply"), gnubg's convention:

* 0-ply value of a position (side to move about to roll): the exact result when the game has
  ended, the exact bear-off tables when every checker is home (:mod:`gbot.eval.bearoff`),
  else the networks' estimate.
* n-ply value: over the 21 rolls, weighted 1/36 (doubles) or 2/36, the side to move picks its
  play by 0-ply, and the (n-1)-ply value of the result (the opponent then to move) is seen from
  the mover's side. A roll with no legal play passes the turn unchanged.
* n-ply equity of a play: the n-ply value of its result, the opponent to move, seen by the
  mover. So a 0-ply hint scores each result with one network call, a 1-ply hint averages the
  opponent's 21 best replies, a 2-ply hint looks one turn further.

Move filtering at the root (gnubg-style candidate pruning): every play is scored at 0-ply;
before each deeper stage the survivors are cut by a :class:`MoveFilter` (at most ``keep``
plays, each within ``window`` equity of the best so far). :data:`DEFAULT_FILTERS` keeps up to
8 plays within 0.16 after 0-ply and up to 5 within 0.08 after 1-ply, so a 2-ply decision
searches at most 5 candidates 2 plies deep. Inner levels pick by 0-ply, as gnubg does.

Inner reply choices may be pruned, gnubg-style: when the networks carry a cheaper ``prune``
evaluator, every reply is scored with it and only the ``prune_keep`` best of each roll that it
values within ``prune_window`` of its best are scored by the full networks before the pick.
Root plays are never pruned. The shipped networks carry theirs
(:attr:`gbot.eval.net.Networks.prune`: 128 hidden units on the raw board inputs only, trained
on the full networks' values of replies: ``gbot train replies``), so 1- and more-ply searches
prune unless ``prune=False``; ``scripts/bench_prune.py`` measures what it saves and costs.

Every network call is one batch over all candidates and rolls of a level, each distinct board
evaluated once (:mod:`gbot.core.dedup`). Within one decision, the replies a stage picked for
a candidate are reused when a deeper stage searches that candidate again (the same figures);
nothing is cached between calls. A level with enough boards is split between threads
(``threads``, default :func:`default_threads`): the kernels release the GIL, and each board's
figures do not depend on the batch it is in, so the results are the same. With
:class:`gbot.eval.net.Networks`, 0-ply best plays and 0-ply values take one kernel call
(:mod:`gbot.core.bestplay`), checked against the general search when first used. An
:class:`Evaluator` may be shared by threads: scratch space is per thread and the networks are
loaded once under a lock (their ``evaluate`` must be thread-safe itself).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from gbot.core import bearoff as _bk
from gbot.core import bestplay as _bp
from gbot.core import dedup as _dd
from gbot.core import expand as _ex
from gbot.core import movegen as _mg
from gbot.core.board import Board
from gbot.core.fastcall import Bound as _Bound
from gbot.errors import EvaluatorError
from gbot.eval.bearoff import tables
from gbot.eval.net import Networks
from gbot.game.notations.position_id import decode
from gbot.game.position import Dice, Play, Position, check_dice

_log = logging.getLogger("gbot.eval")

_T = TypeVar("_T")
_R = TypeVar("_R")

_Memo = dict[bytes, tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]]
"""One root decision's reply picks by board bytes (see :meth:`Evaluator._pick`)."""

Probabilities = tuple[float, float, float, float, float]
"""``(win, win_g, win_bg, lose_g, lose_bg)`` of the side to move."""

_INVERT = np.array([0, 3, 4, 1, 2])


class BoardEvaluator(Protocol):
    """What the search needs from the networks: probabilities for a batch of boards.

    A networks object may also carry a ``prune`` attribute, itself a :class:`BoardEvaluator`
    that is cheaper and rougher (gnubg's pruning nets); the search then uses it for the
    reply choices inside 1- and 2-ply evaluations (see :class:`Evaluator`)."""

    def evaluate(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """``float32[n, 5]`` for ``int8[n, 26]`` boards (side to move; games not over)."""
        ...


@dataclass(frozen=True)
class MoveFilter:
    """Candidates that survive a search stage: at most ``keep``, each within ``window`` equity
    of the best (the best always survives)."""

    keep: int
    window: float

    def __post_init__(self) -> None:
        if self.keep < 1 or not self.window >= 0.0:
            raise EvaluatorError(f"a move filter keeps >= 1 play within a window >= 0: {self!r}")


PRUNE_KEEP = 4
"""Replies per roll that the full networks score after pruning (when a pruner is present), at
most."""
PRUNE_WINDOW = 0.2
"""Of those, only the ones the pruner values within this much equity of its best reply."""
CUBE_PRUNE_KEEP = 2
"""The same for the cube look-ahead's pruned level (:meth:`Evaluator.best_replies`), whose
leaves are averaged over 441 rolls: on the 2,000 positions of ``tests/data/cube_vectors.jsonl``
keeping 2 instead of 4 changed 1 double and 1 answer, moved the no-double equity by 0.0005 on
average (0.0057 at the 99th percentile), cost 0.02 mEMG a decision under gnubg 1.07's 2-ply
cube verdicts, and made a look-ahead about a third faster."""

MAX_THREADS = 4
"""The most threads one search splits its reply picks over by default."""
SPLIT_MIN_BOARDS = 4
"""A search splits a level's reply picks between threads only where each thread gets at least
this many boards (21 rolls each): below it the hand-over costs more than it saves."""


def default_threads() -> int:
    """Threads a search may use by default: ``$GBOT_THREADS`` where set; 1 in a worker process
    (batch jobs already keep every core busy with processes); else the usable cores, at most
    :data:`MAX_THREADS`."""
    env = os.environ.get("GBOT_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            n = 0
        if n < 1:
            raise EvaluatorError(f"GBOT_THREADS must be a whole number >= 1, got {env!r}")
        return n
    if multiprocessing.parent_process() is not None:
        return 1
    return max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))

DEFAULT_FILTERS: tuple[MoveFilter, ...] = (MoveFilter(8, 0.16), MoveFilter(5, 0.08))
"""Stage ``j`` cuts the candidates after their ``j``-ply scores; the last one repeats.

So a 2-ply decision values at most 8 plays (within 0.16 of the best 0-ply equity) at 1-ply and
at most 5 of them (within 0.08 of the best 1-ply equity) at 2-ply. Chosen by
``scripts/compare_filters.py`` on 4,000 distinct contact positions never used before (seed 43),
with three judges of the choices that change (gnubg-nn 2-ply; bgsage at gnubg's 2-ply; gbot's
rollouts, 144 games a play on the same dice): against keeping 3 within 0.04 (the setting
before 2026-12-06), 81 choices differ and the wider filter gains 0.00016 +- 0.00004,
0.00025 +- 0.00006 and 0.00024 +- 0.00008 equity a decision, for 1.66 times the time; keeping 8
within 0.16 (gnubg's own 2-ply filter) changes 22 more choices and gains nothing on them
(+0.00000, -0.00006, -0.00000; SE 0.00003-0.00006) for 1.58 times the time again."""


@dataclass(frozen=True)
class Hint:
    """One ranked play: its equity and probabilities for the mover, and the ply they come from
    (lower than asked when the play was filtered out early)."""

    play: Play
    equity: float
    probabilities: Probabilities
    ply: int

    def __str__(self) -> str:
        return f"{self.play.notation or '(no move)'} {self.equity:+.3f} ({self.ply}-ply)"


_new = object.__new__
_set = object.__setattr__


def zero_ply_hint(play: Play, equity: float, probs: list[float]) -> Hint:
    """``Hint(play, equity, tuple(probs), 0)``, its fields set at once (the frozen dataclass's
    ``__init__`` sets them one by one; tests/test_hint_static.py checks the two agree)."""
    h: Hint = _new(Hint)
    _set(h, "__dict__", {"play": play, "equity": equity,
                         "probabilities": (probs[0], probs[1], probs[2], probs[3], probs[4]),
                         "ply": 0})
    return h


class _Scratch:
    """Per-thread buffers for the move generator and the root expansion."""

    def __init__(self) -> None:
        cap = _mg.CAPACITY
        self.ws = _mg.Workspace()
        self.children = np.empty((cap, 26), dtype=np.int8)
        self.results = np.empty((cap, 26), dtype=np.int8)
        self.steps = np.empty((cap, 2 * _mg.MAX_STEPS), dtype=np.int8)
        self.probs = np.empty((cap, 5), dtype=np.float64)
        self.kinds = np.empty(cap, dtype=np.int8)
        self.counts = np.empty(2, dtype=np.int64)
        self.mover = np.empty((cap, 5), dtype=np.float64)
        self.eqs = np.empty(cap, dtype=np.float64)
        self.rows = np.empty((cap, 26), dtype=np.int8)
        self.values = np.empty((cap, 5), dtype=np.float32)
        self.res = np.empty(2, dtype=np.int64)
        ws = self.ws
        self.play = _bp.PlayWork(self.children, self.probs, self.kinds, self.counts,
                                 self.mover, self.eqs, self.rows, self.values, ws.out,
                                 ws.steps, ws.table, ws.hashes, ws.state, ws.path, ws.marks,
                                 self.res)
        """These arrays as :func:`gbot.core.bestplay.best_static` takes them."""
        # the gnubg server's one-call answers (gbot.core.answer)
        self.fields = np.empty(64, dtype=np.int64)
        self.reply = np.empty(128, dtype=np.uint8)
        self.info = np.empty(2, dtype=np.int64)
        self.answer_args: tuple[Any, ...] | None = None
        # bestplay.best_static's arguments after the position's (kept while they hold)
        self.best_call: _Bound | None = None
        self.best_for: tuple[Any, ...] | None = None
        self.ws_bytes = self.ws.i8.data


def _best_args(s: _Scratch, fast: _bp.Nets) -> tuple[Any, ...]:
    """:func:`gbot.core.bestplay.best_static`'s arguments after the board, dice and rule
    switches, for scratch ``s`` and kernel arrays ``fast``."""
    return (s.play, _mg.HASH_KEYS, fast)


def _batch(boards: npt.ArrayLike) -> Board:
    """``boards`` as the kernels take a batch: C-ordered, writable ``int8[n, 26]`` (a
    read-only one, such as a position's board, is copied: one compiled type per kernel)."""
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    return arr if arr.flags.writeable else arr.copy()


def _bearoff(boards: Board) -> npt.NDArray[np.float32]:
    """The exact bear-off tables' probabilities (tables loaded, or built, on first use)."""

    t = tables()
    out = np.zeros((boards.shape[0], 5), dtype=np.float32)
    _bk.race_probabilities(boards, t.rolls, t.gammon, t.two_sided, _bk.BINOM, out)
    return out


def _distinct(evaluate: Callable[[Board], npt.ArrayLike], boards: Board,
              kinds: npt.NDArray[np.int8], kind: int, count: int,
              probs: npt.NDArray[np.float64]) -> tuple[Board, npt.NDArray[np.int64]]:
    """``probs[i] = evaluate(boards[i])`` for the ``count`` rows of ``kind``, each distinct
    board evaluated once; returns the distinct boards and, for each row of ``boards``, its
    index among them (-1 for rows of another kind)."""
    rows = np.empty((count, 26), dtype=np.int8)
    inverse = np.empty(boards.shape[0], dtype=np.int64)
    m = _dd.unique_rows(boards, kinds, kind, rows, inverse)
    values = np.ascontiguousarray(evaluate(rows[:m]))
    _dd.scatter_rows(values, inverse, probs)
    return rows[:m], inverse


_CHECK_IDS = ("4HPwATDgc/ABMA", "3toBKAL7/AAAEA", "4POFCwDDzuABIQ", "f2cDAEBsmwFoDA",
              "BwAAsN12AgAAAA", "u/YqAAClXkMjAA", "NwAAwB0AAAAAAA", "1X0DAIDtGQAAAA")
"""Positions of every class on which the one-call kernels must reproduce the networks."""


def _kernel_args(nets: BoardEvaluator) -> _bp.Nets | None:
    """:meth:`Evaluator._fast`'s arrays for ``nets``, or None when the kernels cannot stand in
    for ``nets.evaluate`` (other networks, or a forward pass that no longer matches)."""
    if type(nets) is not Networks:
        return None

    try:
        empty = np.empty((0, 0), dtype=np.float32)
        empty.setflags(write=False)         # as the tables that replace it: one compiled type
        args = _bp.Nets(*nets.kernel_args(), empty, empty, empty, _bk.BINOM)
        boards = np.array([decode(pid) for pid in _CHECK_IDS], dtype=np.int8)
        boards = np.concatenate([boards, -boards[:, ::-1]])
        n = boards.shape[0]
        got = np.empty((n, 5), dtype=np.float64)
        code = _bp.static_values(boards, False, got, np.empty(n, dtype=np.int8),
                                 np.empty(2, dtype=np.int64), np.empty_like(boards),
                                 np.empty((n, 5), dtype=np.float32), *args)
        same = code == 0 and np.array_equal(got, nets.evaluate(boards).astype(np.float64))
    except Exception as exc:  # a changed forward pass: keep to the general path
        _log.warning("one-call search kernels unavailable (%s: %s)", type(exc).__name__, exc)
        return None
    if not same:
        _log.warning("one-call search kernels disagree with the networks; not used")
        return None
    return args


def _as_tuple(p: npt.NDArray[np.float64]) -> Probabilities:
    return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))


def invert(probs: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Probability rows ``[n, 5]`` seen by the other side."""
    out = probs[:, _INVERT]
    out[:, 0] = 1.0 - probs[:, 0]
    return out


def equities(probs: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Cubeless money equity of each probability row ``[n, 5]``."""
    return probs @ _ex.EQUITY_WEIGHTS - 1.0  # type: ignore[no-any-return]


class Evaluator:
    """Position evaluation and play choice with the shipped networks (or ``path``'s).

    ``networks`` replaces the networks with any :class:`BoardEvaluator` (tests, experiments);
    ``caucasian`` selects the Caucasian move rule; ``filters`` the root move filters;
    ``exact_bearoff`` (default) scores positions with every checker home from the exact
    bear-off tables of :mod:`gbot.eval.bearoff` instead of the networks. ``prune`` (default:
    the networks' ``prune`` attribute, if any) and ``prune_keep`` set the inner-level pruning
    described in the module docstring; ``prune=False`` turns it off; ``cube_prune_keep`` is
    ``prune_keep`` for the cube look-ahead (:meth:`best_replies`); ``prune_window``: both keep
    only replies the pruner values within that much equity of its best. ``threads`` (default
    :func:`default_threads`): how many threads a 1- or more-ply search splits each level's
    reply picks over (the same results whatever the number).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *,
                 networks: BoardEvaluator | None = None, caucasian: bool = False,
                 filters: Sequence[MoveFilter] = DEFAULT_FILTERS,
                 exact_bearoff: bool = True, prune: BoardEvaluator | bool | None = None,
                 prune_keep: int = PRUNE_KEEP, cube_prune_keep: int = CUBE_PRUNE_KEEP,
                 prune_window: float = PRUNE_WINDOW, threads: int | None = None) -> None:
        if path is not None and networks is not None:
            raise EvaluatorError(f"give weights {path!r} or networks, not both")
        if not filters:
            raise EvaluatorError(f"at least one move filter is needed, got {filters!r}")
        self._path = path
        self._networks = networks
        self.caucasian = bool(caucasian)
        self.filters = tuple(filters)
        self.exact_bearoff = bool(exact_bearoff)
        if prune is True or any(not isinstance(k, int) or k < 1
                                for k in (prune_keep, cube_prune_keep)):
            raise EvaluatorError(f"prune takes an evaluator, None or False and prune_keep and "
                                 f"cube_prune_keep integers >= 1, got {prune!r}, "
                                 f"{prune_keep!r}, {cube_prune_keep!r}")
        if not isinstance(prune_window, (int, float)) or not prune_window >= 0.0:
            raise EvaluatorError(f"prune_window must be a number >= 0, got {prune_window!r}")
        self._prune_off = prune is False
        self._prune = None if isinstance(prune, bool) else prune
        self.prune_keep = prune_keep
        self.cube_prune_keep = cube_prune_keep
        self.prune_window = float(prune_window)
        if threads is None:
            threads = default_threads()
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise EvaluatorError(f"threads must be an integer >= 1, got {threads!r}")
        self.threads = threads
        self._pool: tuple[int, ThreadPoolExecutor] | None = None   # (pid, helpers)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._kernel_args: _bp.Nets | None | bool = None   # None: not yet known

    def __repr__(self) -> str:
        src = repr(os.fspath(self._path)) if self._path is not None else ""
        return f"Evaluator({src})"

    # --- plumbing --------------------------------------------------------------------------
    @property
    def networks(self) -> BoardEvaluator:
        """The networks in use (the shipped ones are loaded on first use)."""
        nets = self._networks
        if nets is None:
            with self._lock:
                if self._networks is None:
                    self._networks = (Networks.default() if self._path is None
                                      else Networks.load(os.fspath(self._path)))
                nets = self._networks
        return nets

    @property
    def pruner(self) -> BoardEvaluator | None:
        """The evaluator used to prune inner reply choices, or None."""
        if self._prune_off:
            return None
        if self._prune is not None:
            return self._prune
        found: BoardEvaluator | None = getattr(self.networks, "prune", None)
        return found

    def _scratch(self) -> _Scratch:
        s: _Scratch | None = getattr(self._local, "scratch", None)
        if s is None:
            s = _Scratch()
            self._local.scratch = s
        return s

    def scratch(self) -> _Scratch:
        """This thread's buffers for the one-call kernels (:mod:`gbot.engine.fastreply`)."""
        return self._scratch()

    def kernel_arrays(self, tables: bool = False) -> _bp.Nets | None:
        """The networks' and bear-off tables' arrays the one-call kernels take after their
        scratch arrays, or None where the general path must be used (see :meth:`_fast`).
        ``tables``: with the bear-off tables loaded (otherwise they may still be empty)."""
        args = self._fast()
        if args is None or not tables or args.dist.size:
            return args
        return self._with_tables(args)

    def _fast(self) -> _bp.Nets | None:
        """The arrays the one-call kernels of :mod:`gbot.core.bestplay` need: the networks'
        (when they are :class:`gbot.eval.net.Networks`, whose ``evaluate`` is exactly that
        forward pass) and the bear-off tables' (empty until a bear-off needs them). None
        when the general path must be used: other networks, or kernels that disagree with
        it on a few positions (a changed forward pass or move generator, a stale cache)."""
        args = self._kernel_args
        if args is None:
            found = _kernel_args(self.networks)
            if found is not None and not self._kernels_agree(found):
                _log.warning("one-call search kernels disagree with the general search (a "
                             "stale numba cache in gbot/core/__pycache__?); not used")
                found = None
            with self._lock:
                if self._kernel_args is None:
                    self._kernel_args = found or False
                args = self._kernel_args
        return None if isinstance(args, bool) else args

    def _with_tables(self, args: _bp.Nets) -> _bp.Nets:
        """``args`` with the bear-off tables in (kept for later calls once in use)."""

        t = tables()
        new = args._replace(dist=t.rolls, gdist=t.gammon, two=t.two_sided)
        if isinstance(self._kernel_args, _bp.Nets):
            self._kernel_args = new
        return new

    def _kernels_agree(self, args: _bp.Nets) -> bool:
        """Whether :meth:`_best_static` with ``args`` picks what the general search picks,
        with the same equity, on positions of every class."""
        s = self._scratch()
        for pid in _CHECK_IDS:
            pos = Position.from_id(pid)
            for d in ((3, 1), (6, 6), (5, 2)):
                got = self._best_static(pos, d, args)
                got_eq = float(s.eqs[int(s.res[1])]) if int(s.res[0]) > 1 else None
                count, order, _, eqs, _, s = self._rank(pos, d, 0, full=True)
                if count == 0 or got is None:
                    if count != 0 or got is not None:
                        return False
                    continue
                best = int(order[0])
                if got.position.board.tobytes() != s.results[best].tobytes():
                    return False
                if count > 1 and got_eq != float(eqs[best]):
                    return False
        return True

    def warm(self) -> None:
        """Load the networks and compile (or load from cache) every kernel the search uses."""
        pos = Position.initial()
        self.hint(pos, (3, 1), ply=1, n=1)
        self.probabilities(pos.swapped(), ply=1)

    @staticmethod
    def _check_ply(ply: int) -> int:
        if type(ply) is int and ply >= 0:
            return ply
        if not isinstance(ply, (int, np.integer)) or isinstance(ply, bool) or ply < 0:
            raise EvaluatorError(f"ply must be an integer >= 0, got {ply!r}")
        return int(ply)

    # --- batched values --------------------------------------------------------------------
    def _fill(self, boards: Board, probs: npt.NDArray[np.float64],
              kinds: npt.NDArray[np.int8], counts: npt.NDArray[np.int64],
              dedup: bool = False) -> None:
        """Complete ``probs`` for boards sorted by :func:`gbot.core.expand.static_kinds`:
        bear-offs from the tables, the rest from the networks (ended games are done).
        ``dedup``: evaluate each distinct board once (batches with repeats)."""
        n = boards.shape[0]
        n_over, n_bear = int(counts[0]), int(counts[1])
        if dedup:
            if n_bear:
                _distinct(_bearoff, boards, kinds, _ex.BEAROFF, n_bear, probs)
            if n_over + n_bear < n:
                _distinct(self.networks.evaluate, boards, kinds, _ex.NET, n - n_over - n_bear,
                          probs)
            return
        if n_over + n_bear == 0:
            probs[:] = self.networks.evaluate(boards)
            return
        if n_bear:
            sel = kinds == _ex.BEAROFF
            probs[sel] = _bearoff(np.ascontiguousarray(boards[sel]))
        if n_over + n_bear < n:
            sel = kinds == _ex.NET
            probs[sel] = self.networks.evaluate(np.ascontiguousarray(boards[sel]))

    def _static(self, boards: Board) -> npt.NDArray[np.float64]:
        """0-ply probabilities of boards ``[n, 26]``: exact for ended games and (with
        ``exact_bearoff``) bear-offs, else the networks."""
        n = boards.shape[0]
        probs = np.empty((n, 5), dtype=np.float64)
        kinds = np.empty(n, dtype=np.int8)
        counts = np.empty(2, dtype=np.int64)
        fast = self._fast()
        if fast is not None:
            s = self._scratch()
            rows, values = (s.rows, s.values) if n <= s.rows.shape[0] else (
                np.empty((n, 26), dtype=np.int8), np.empty((n, 5), dtype=np.float32))
            code = _bp.static_values(boards, self.exact_bearoff, probs, kinds, counts, rows,
                                     values, *fast)
            if code == _bp.NEED_TABLES:
                code = _bp.static_values(boards, self.exact_bearoff, probs, kinds, counts,
                                         rows, values, *self._with_tables(fast))
            return probs
        _ex.static_kinds(boards, self.exact_bearoff, probs, kinds, counts)
        self._fill(boards, probs, kinds, counts)
        return probs

    def _expand(self, boards: Board, ws: _mg.Workspace
                ) -> tuple[Board, npt.NDArray[np.int64], npt.NDArray[np.float64],
                           npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Children of ``boards`` over the 21 rolls (see
        :func:`gbot.core.expand.expand_rolls`): ``(children, offsets, probs, kinds, counts)``
        with only the exact probabilities filled in."""
        m = boards.shape[0]
        offsets = np.empty(m * _ex.N_ROLLS + 1, dtype=np.int64)
        counts = np.empty(2, dtype=np.int64)
        size = m * _ex.N_ROLLS * 48 + 64
        while True:
            children = np.empty((size, 26), dtype=np.int8)
            probs = np.empty((size, 5), dtype=np.float64)
            kinds = np.empty(size, dtype=np.int8)
            total = _ex.expand_rolls(boards, _ex.ROLLS, self.caucasian, self.exact_bearoff,
                                     children, offsets, probs, kinds, counts, ws.out, ws.steps,
                                     ws.table, ws.hashes, ws.state, ws.path, ws.marks,
                                     _mg.HASH_KEYS)
            if total >= 0:
                break
            size *= 4
        return children[:total], offsets, probs[:total], kinds[:total], counts

    def children(self, boards: Board
                 ) -> tuple[Board, npt.NDArray[np.int64], npt.NDArray[np.float64],
                            npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """The results of every play of each of the 21 rolls of ``boards`` ``[n, 26]``
        (side to move about to roll), seen by the opponent: ``(children, offsets, probs,
        kinds, counts)``; group ``21 * i + r`` (board ``i``, roll ``r`` of
        :data:`gbot.core.expand.ROLLS`) is ``children[offsets[g]:offsets[g + 1]]``; ``probs``
        holds the exact figures only (ended games, bear-offs), ``kinds`` says which."""
        return self._expand(_batch(boards), self._scratch().ws)

    def _pick(self, boards: Board, ws: _mg.Workspace, memo: _Memo | None = None
              ) -> tuple[Board, npt.NDArray[np.float64]]:
        """For each board and roll (group ``21 * i + r``), the reply the side to move picks
        by 0-ply (pruned when a pruner is present): ``(chosen boards, their probabilities)``.

        ``memo`` (one root decision's): picks already made for these boards are reused when
        every board has them, and the picks made here are kept in it."""
        keys: list[bytes] = []
        if memo is not None:
            keys = [b.tobytes() for b in boards]
            if all(k in memo for k in keys):
                got = [memo[k] for k in keys]
                return (np.concatenate([g[0] for g in got]),
                        np.concatenate([g[1] for g in got]))
        picked, picked_probs = self._pick_split(boards, ws, self.prune_keep)
        r = _ex.N_ROLLS
        for i, k in enumerate(keys):
            memo[k] = (picked[r * i:r * i + r], picked_probs[r * i:r * i + r])  # type: ignore[index]
        return picked, picked_probs

    def _pick_split(self, boards: Board, ws: _mg.Workspace, keep: int
                    ) -> tuple[Board, npt.NDArray[np.float64]]:
        """:meth:`_pick` without the memo (``keep`` replies a roll for the full networks after
        pruning), its boards split between up to :attr:`threads` threads, each with its own
        scratch (``ws``: this thread's, where it does not split)."""
        n = boards.shape[0]
        parts = min(self.threads, n // SPLIT_MIN_BOARDS)
        if parts < 2:
            return self._pick_part(boards, ws, keep)
        # every parts-th board to a thread: neighbours (one candidate's replies) cost alike
        got = self.map_threads(lambda part: self._pick_here(part, keep),
                               [boards[j::parts] for j in range(parts)])
        picked = np.empty((n * _ex.N_ROLLS, 26), dtype=np.int8)
        probs = np.empty((n * _ex.N_ROLLS, 5), dtype=np.float64)
        by_board = picked.reshape(n, _ex.N_ROLLS, 26)
        probs_by_board = probs.reshape(n, _ex.N_ROLLS, 5)
        for j, (part_picked, part_probs) in enumerate(got):
            by_board[j::parts] = part_picked.reshape(-1, _ex.N_ROLLS, 26)
            probs_by_board[j::parts] = part_probs.reshape(-1, _ex.N_ROLLS, 5)
        return picked, probs

    def map_threads(self, fn: Callable[[_T], _R], items: Sequence[_T]) -> list[_R]:
        """``[fn(x) for x in items]``, the first in this thread and the others at once in the
        search's helper threads (at most :attr:`threads` - 1 of them): for work that releases
        the GIL and keeps its working memory per thread."""
        if len(items) < 2 or self.threads < 2:
            return [fn(x) for x in items]
        helpers = self._helpers()
        rest = [helpers.submit(fn, x) for x in items[1:]]
        first = fn(items[0])
        return [first] + [f.result() for f in rest]

    def _helpers(self) -> ThreadPoolExecutor:
        """This process's helper threads (a fresh set after a fork: threads do not survive one)."""
        pid = os.getpid()
        pool = self._pool
        if pool is None or pool[0] != pid:
            with self._lock:
                pool = self._pool
                if pool is None or pool[0] != pid:
                    pool = (pid, ThreadPoolExecutor(self.threads - 1,
                                                    thread_name_prefix="gbot-search"))
                    self._pool = pool
        return pool[1]

    def _pick_here(self, boards: Board, keep: int) -> tuple[Board, npt.NDArray[np.float64]]:
        """:meth:`_pick_part` with this thread's scratch."""
        return self._pick_part(np.ascontiguousarray(boards), self._scratch().ws, keep)

    def _pick_part(self, boards: Board, ws: _mg.Workspace, keep: int
                   ) -> tuple[Board, npt.NDArray[np.float64]]:
        """For each board and roll, the reply picked (see :meth:`_pick`)."""
        children, offsets, probs, kinds, counts = self._expand(boards, ws)
        chosen = np.empty(offsets.shape[0] - 1, dtype=np.int64)
        pruner = self.pruner
        if pruner is None or int(counts[0]) + int(counts[1]) == children.shape[0]:
            self._fill(children, probs, kinds, counts, dedup=True)
            _ex.pick_best(probs, offsets, chosen)
        else:
            n_bear = int(counts[1])
            if n_bear:
                _distinct(_bearoff, children, kinds, _ex.BEAROFF, n_bear, probs)
            # each distinct board once: the pruner values all, the full networks the kept
            rows, inverse = _distinct(pruner.evaluate, children, kinds, _ex.NET,
                                      children.shape[0] - int(counts[0]) - n_bear, probs)
            m = rows.shape[0]
            selected = np.empty(children.shape[0], dtype=np.bool_)
            _ex.prune_select(probs, offsets, keep, self.prune_window, selected)
            full = selected & (inverse >= 0)
            if full.any():
                kept = np.zeros(m, dtype=np.bool_)
                kept[inverse[full]] = True
                ids = np.flatnonzero(kept)
                values = np.ascontiguousarray(self.networks.evaluate(rows[ids]))
                at = np.empty(m, dtype=np.int64)
                at[ids] = np.arange(ids.shape[0])
                probs[full] = values[at[inverse[full]]]
            _ex.pick_best_of(probs, offsets, selected, chosen)
        return children[chosen], probs[chosen]

    def best_replies(self, boards: npt.ArrayLike
                     ) -> tuple[Board, npt.NDArray[np.float64]]:
        """For each board ``[n, 26]`` (side to move about to roll, game not over) and each roll
        of :data:`gbot.core.expand.ROLLS` (row ``21 * i + r``): the result of the play the side
        to move picks at 0-ply, pruned as the deeper searches prune (see the module docstring)
        but keeping :attr:`cube_prune_keep` replies a roll, seen by the opponent, and the
        opponent's probabilities there (the cube look-ahead's second level)."""
        return self._pick_split(_batch(boards), self._scratch().ws, self.cube_prune_keep)

    def _values(self, boards: Board, ply: int, ws: _mg.Workspace, memo: _Memo | None = None
                ) -> npt.NDArray[np.float64]:
        """``ply``-ply probabilities of boards ``[n, 26]`` (side to move about to roll);
        ``memo``: the root decision's reply picks (see :meth:`_pick`)."""
        if ply == 0:
            return self._static(boards)
        n = boards.shape[0]
        out = np.empty((n, 5), dtype=np.float64)
        over = np.empty(n, dtype=np.bool_)
        n_over = _ex.over_batch(boards, out, over)
        if n_over == n:
            return out
        live = boards if n_over == 0 else np.ascontiguousarray(boards[~over])
        # the same board often comes several times (rolls with no play, transpositions)
        distinct = np.empty_like(live)
        inverse = np.empty(live.shape[0], dtype=np.int64)
        m = _dd.unique_rows(live, np.zeros(live.shape[0], dtype=np.int8), 0, distinct, inverse)
        if m < live.shape[0]:
            live = distinct[:m]
        replies, reply_probs = self._pick(live, ws, memo)
        if ply == 1:
            picked = reply_probs
        else:
            picked = self._values(np.ascontiguousarray(replies), ply - 1, ws)
        res = np.empty((live.shape[0], 5), dtype=np.float64)
        _ex.average_over_rolls(picked, _ex.ROLL_WEIGHTS, res)
        if m < inverse.shape[0]:
            res = res[inverse]
        if n_over == 0:
            return res
        out[~over] = res
        return out

    def evaluate(self, boards: npt.ArrayLike, ply: int = 0) -> npt.NDArray[np.float64]:
        """Probabilities ``float64[n, 5]`` of boards ``int8[n, 26]`` (side to move in each,
        about to roll) at ``ply``."""
        ply = self._check_ply(ply)
        return self._values(_batch(boards), ply, self._scratch().ws)

    # --- one position ----------------------------------------------------------------------
    def probabilities(self, pos: Position, ply: int = 0) -> Probabilities:
        """Cubeless ``(win, win_g, win_bg, lose_g, lose_bg)`` for the side on roll of ``pos``."""
        ply = self._check_ply(ply)
        if ply == 0:
            fast = self._fast()
            if fast is not None:      # one kernel call on the scratch arrays
                s = self._scratch()
                board = s.children[:1]
                board[0] = pos.board
                code = _bp.static_values(board, self.exact_bearoff, s.probs, s.kinds, s.counts,
                                         s.rows, s.values, *fast)
                if code == _bp.NEED_TABLES:
                    _bp.static_values(board, self.exact_bearoff, s.probs, s.kinds, s.counts,
                                      s.rows, s.values, *self._with_tables(fast))
                return _as_tuple(s.probs[0])
        board = np.array(pos.board, dtype=np.int8).reshape(1, 26)
        return _as_tuple(self._values(board, ply, self._scratch().ws)[0])

    def equity(self, pos: Position, ply: int = 0) -> float:
        """Cubeless money equity for the side on roll of ``pos``."""
        p = self.probabilities(pos, ply)
        return 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]

    # --- plays -----------------------------------------------------------------------------
    def _rank(self, pos: Position, dice: Dice, ply: int, full: bool
              ) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.float64],
                         npt.NDArray[np.float64], npt.NDArray[np.int64], _Scratch]:
        """Score the plays of ``dice``: ``(count, order best first, mover probabilities,
        equities, plies, scratch)``. Without ``full`` only ``order[0]`` is meaningful, and a
        stage with one survivor ends the search (its figures are then shallower)."""
        s = self._scratch()
        ws = s.ws
        board = np.array(pos.board, dtype=np.int8)
        n = _ex.expand_roll(board, dice[0], dice[1], self.caucasian, self.exact_bearoff,
                            s.children, s.results, s.steps, s.probs, s.kinds, s.counts, ws.out,
                            ws.steps, ws.table, ws.hashes, ws.state, ws.path, ws.marks,
                            _mg.HASH_KEYS)
        if n < 0 or ws.state[2]:
            raise EvaluatorError(f"too many plays to search in {pos.id()!r} with {dice!r}")
        plies = np.zeros(n, dtype=np.int64)
        if n == 0 or (n == 1 and not full):
            empty = np.zeros((n, 5), dtype=np.float64)
            return n, np.arange(n), empty, np.zeros(n), plies, s
        children = s.children[:n]
        child_probs = s.probs[:n]
        self._fill(children, child_probs, s.kinds[:n], s.counts)
        probs = np.empty((n, 5), dtype=np.float64)
        eqs = np.empty(n, dtype=np.float64)
        best = _ex.score_plays(child_probs, probs, eqs)
        if ply == 0 and not full:
            return n, np.array([best]), probs, eqs, plies, s
        alive = np.arange(n)
        memo: _Memo = {}     # the candidates' reply picks: a later stage meets them again
        for stage in range(ply):
            f = self.filters[min(stage, len(self.filters) - 1)]
            order = alive[np.argsort(-eqs[alive], kind="stable")]
            keep = order[eqs[order] >= eqs[order[0]] - f.window][:f.keep]
            if keep.shape[0] == 1 and not full:
                break
            deeper = invert(self._values(np.ascontiguousarray(children[keep]), stage + 1, ws,
                                         memo))
            probs[keep] = deeper
            eqs[keep] = equities(deeper)
            plies[keep] = stage + 1
            alive = keep
        order = np.lexsort((-eqs, -plies))
        return n, order, probs, eqs, plies, s

    def _run_static(self, pos: Position, d: Dice, fast: _bp.Nets) -> _Scratch:
        """One call of :func:`gbot.core.bestplay.best_static` on this thread's scratch: the
        plays left in its workspace (``ws.out``, ``ws.steps``), ``res`` = (count, best) and,
        with two plays or more, the mover's figures in ``mover`` and ``eqs``."""
        s = self._scratch()
        call = s.best_call
        if call is None or s.best_for is not fast:
            call = s.best_call = _Bound(_bp.best_static, _best_args(s, fast))
            s.best_for = fast
        board = pos.board
        cauc = self.caucasian is True
        bearoff = self.exact_bearoff is True
        code = call(board, d[0], d[1], cauc, bearoff)
        if code == _bp.NEED_TABLES:
            fast = s.best_for = self._with_tables(fast)
            call = s.best_call = _Bound(_bp.best_static, _best_args(s, fast))
            code = call(board, d[0], d[1], cauc, bearoff)
        if code == _bp.TOO_MANY:
            raise EvaluatorError(f"too many plays to search in {pos.id()!r} with {d!r}")
        return s

    def _best_static(self, pos: Position, d: Dice, fast: _bp.Nets) -> Play | None:
        """:meth:`best_play` at 0-ply in one kernel call (:mod:`gbot.core.bestplay`)."""
        s = self._run_static(pos, d, fast)
        n, best = s.res.tolist()
        if n == 0:
            return None
        mv = s.ws_bytes
        at = _mg.STEPS_OFFSET + 8 * best
        return Play.from_packed(pos, d, mv[26 * best:26 * best + 26].tobytes()
                         + mv[at:at + 8].tobytes())

    def _hint_static(self, pos: Position, d: Dice, fast: _bp.Nets, n: int | None
                     ) -> list[Hint]:
        """:meth:`hint` at 0-ply from one kernel call (a forced play valued on its own)."""
        s = self._run_static(pos, d, fast)
        count = int(s.res[0])
        if count == 0:
            return []
        if count == 1:      # the kernel values two plays or more: the one child here
            child = np.ascontiguousarray(-s.ws.out[:1, ::-1])
            _ex.score_plays(self._static(child), s.mover[:1], s.eqs[:1])
        eqs = s.eqs[:count].tolist()
        # best first, ties in the generator's order: the general path's order at one ply
        order = sorted(range(count), key=eqs.__getitem__, reverse=True)
        if n is not None:
            order = order[:max(int(n), 0)]
        mover = s.mover[:count].tolist()
        mv = s.ws_bytes
        at = _mg.STEPS_OFFSET
        raw = mv[:26 * count].tobytes() + mv[at:at + 8 * count].tobytes()
        plays = Play.picked_from_packed(pos, d, raw, count, order)
        return [zero_ply_hint(play, eqs[i], mover[i])
                for play, i in zip(plays, order, strict=True)]

    def _search_args(self, dice: Sequence[int], ply: int
                     ) -> tuple[Dice, int, _bp.Nets | None]:
        """Checked ``dice`` and ``ply`` for :meth:`hint` and :meth:`best_play`, and the
        one-call kernels' arrays where they give the answer (0-ply; None otherwise)."""
        d = check_dice(dice)
        if type(ply) is not int or ply != 0:
            ply = self._check_ply(ply)
        if ply == 0:
            fast = self._kernel_args
            if type(fast) is _bp.Nets or (fast is None and (fast := self._fast()) is not None):
                return d, 0, fast
        return d, ply, None

    def _play(self, pos: Position, dice: Dice, s: _Scratch, i: int) -> Play:
        return Play.from_rows(pos, dice, s.results[i], s.steps[i])

    def hint(self, pos: Position, dice: Sequence[int], ply: int = 0,
             n: int | None = 5) -> list[Hint]:
        """The ``n`` best plays of ``dice`` (all when ``n`` is None), best first.

        Plays searched to ``ply`` come first, by equity; those the move filters dropped
        follow with their shallower figures. Empty when no play is legal."""
        d, ply, fast = self._search_args(dice, ply)
        if fast is not None:
            return self._hint_static(pos, d, fast, n)
        count, order, probs, eqs, plies, s = self._rank(pos, d, ply, full=True)
        if n is not None:
            order = order[:max(int(n), 0)]
        return [Hint(self._play(pos, d, s, int(i)), float(eqs[i]), _as_tuple(probs[i]),
                     int(plies[i])) for i in order]

    def best_play(self, pos: Position, dice: Sequence[int], ply: int = 0) -> Play | None:
        """The play this evaluator makes with ``dice`` at ``ply`` (None when none is legal)."""
        d, ply, fast = self._search_args(dice, ply)
        if fast is not None:
            return self._best_static(pos, d, fast)
        count, order, _, _, _, s = self._rank(pos, d, ply, full=False)
        if count == 0:
            return None
        return self._play(pos, d, s, int(order[0]))
