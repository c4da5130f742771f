"""Speed measurements shared by ``gbot bench`` and the benchmark scripts.

``gbot bench`` (:mod:`gbot.cli.tools`) is the quick front door; ``scripts/bench_*.py`` are its
long forms and reach this module through ``scripts/benchlib.py``, so that both measure with the
same code:

* :data:`TARGETS`: every speed target, each figure's in one place (:class:`Target`);
* :func:`machine` and :func:`networks_summary`: the context a figure needs (cores, versions,
  the network size);
* seeded samples: :func:`make_pairs` (position/roll pairs in a fixed mix of kinds),
  :func:`contact_positions`, :func:`seeded_rolls`, :func:`evaluation_batch`;
* timers: :func:`timed`, :func:`best_of`, :func:`clock`, and :func:`interleaved`, which times
  gbot and a peer (gnubg-nn) call by call in turn so both see the same machine load;
* figures: :func:`movegen_batch` (move generation in one batch call) and
  :func:`evaluation_rate` (batched network evaluation);
* the peer: :func:`gnubg_nn` (the module, or None when it is not installed) and
  :func:`gnubg_board` (a position in gnubg-nn's layout);
* :func:`load_networks`: the shipped networks, or a seeded random stand-in of the default
  architecture.

Nothing here is used by the bot itself.
"""

from __future__ import annotations

import gzip
import importlib.metadata
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from gbot.core import movegen
from gbot.core.board import START, flip_py
from gbot.core.classify import CONTACT, classify
from gbot.game.position import Position

T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")

# --- targets --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """A figure's target: ``figure op value`` in ``unit`` (``op`` is ``>=`` or ``<=``)."""

    op: str
    value: float
    unit: str
    source: str

    def met(self, figure: float) -> bool:
        """Whether ``figure`` (in :attr:`unit`) meets the target."""
        return figure >= self.value if self.op == ">=" else figure <= self.value

    def text(self) -> str:
        """``target >= 4x`` and the like."""
        return f"target {self.op} {_amount(self.value, self.unit)}"

    def verdict(self, figure: float) -> str:
        """``target >= 4x: met`` or ``...: MISSED``."""
        return f"{self.text()}: {'met' if self.met(figure) else 'MISSED'}"


def _amount(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:g}x"
    if value >= 1e6:
        return f"{value / 1e6:g} M {unit}"
    return f"{value:g} {unit}"


_PERF = "the performance issue"
TARGETS: dict[str, Target] = {
    "batch_eval": Target(">=", 2_000_000, "positions/s",
                         f"{_PERF}: batch evaluation on one core"),
    "best0": Target(">=", 4.0, "x", f"{_PERF}: 0-ply best play against gnubg-nn, public API"),
    "best2_ms": Target("<=", 5.0, "ms", f"{_PERF}: a 2-ply decision"),
    "server_median": Target(">=", 1.0, "x",
                            f"{_PERF}: server median no slower than gnubg's at --cube-ply 0"),
    "server_p99_ms": Target("<=", 5.0, "ms", f"{_PERF}: server p99 at the defaults"),
    "startup_s": Target("<=", 2.0, "s", "issue 14: gbot serve listening, kernels compiled"),
    "movegen_kernel": Target(">=", 5.0, "x", "the move-generator kernel against gnubg-nn"),
    "legal_plays": Target(">=", 1.0, "x", "Position.legal_plays against gnubg-nn moves()"),
    "hint0": Target(">=", 4.0, "x", "0-ply hint of every play against gnubg-nn list=1"),
    "best1": Target(">=", 4.0, "x", "1-ply best play against gnubg-nn"),
    "best2": Target(">=", 4.0, "x", "2-ply best play against gnubg-nn"),
}
"""Every benchmark target by figure; the scripts and ``gbot bench`` print these beside the
figures."""


# --- context --------------------------------------------------------------------------------
def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, str]:
    """What a speed figure depends on: ``cores``, ``cpu``, ``load``, ``threads`` (a search's
    default, :func:`gbot.eval.evaluator.default_threads`), ``python``, ``numpy``, ``numba``,
    ``gbot`` (all as text)."""
    from gbot.eval.evaluator import default_threads
    from gbot.version import __version__

    cores = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = cores
    try:
        load = f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        load = "unknown"
    return {"cores": f"{cores} cores ({usable} usable)", "cpu": _cpu_model(), "load": load,
            "threads": str(default_threads()), "python": platform.python_version(),
            "numpy": np.__version__, "numba": _version("numba"), "gbot": __version__}


def threads_text(n: int) -> str:
    """``"1 search thread"``, ``"2 search threads"``."""
    return f"{n} search thread{'s' if n > 1 else ''}"


def machine_line() -> str:
    """:func:`machine` in one line."""
    m = machine()
    return (f"{m['cores']}, {m['cpu']}, load average {m['load']}, "
            f"{threads_text(int(m['threads']))}; gbot {m['gbot']}, "
            f"Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}")


def networks_summary(networks: Any) -> str:
    """``contact net 128 hidden units (sigmoid), 3 networks`` for a
    :class:`gbot.eval.net.Networks` (``?`` where the object does not say)."""
    nets = getattr(networks, "nets", {})
    contact = nets.get("contact") if isinstance(nets, dict) else None
    hidden = int(contact["b1"].shape[0]) if contact is not None else "?"
    act = getattr(networks, "activation", "?")
    return f"contact net {hidden} hidden units ({act}), {len(nets)} networks"


def load_networks(seed: int) -> tuple[Any, str]:
    """The shipped networks and ``"shipped weights"``, or a seeded random stand-in of the
    default architecture (hidden 128, sigmoid) and a text saying so: its speed is
    representative, its choices are not."""
    from gbot.errors import WeightsError
    from gbot.eval import net

    try:
        return net.Networks.default(), "shipped weights"
    except (OSError, WeightsError) as exc:
        from gbot.core.encode import N_INPUTS

        rng = np.random.default_rng(seed)
        hidden = 128

        def params() -> dict[str, npt.NDArray[np.float32]]:
            return {"w1": rng.normal(0, 0.1, (N_INPUTS, hidden)).astype(np.float32),
                    "b1": rng.normal(0, 0.1, hidden).astype(np.float32),
                    "w2": rng.normal(0, 0.3, (hidden, 5)).astype(np.float32),
                    "b2": np.zeros(5, dtype=np.float32)}

        nets = net.Networks({name: params() for name in net.NET_NAMES})
        return nets, f"RANDOM STAND-IN (hidden {hidden}; shipped weights unavailable: {exc})"


# --- samples --------------------------------------------------------------------------------
MIX = {"contact": 0.4, "bar": 0.2, "race": 0.2, "bearoff": 0.2}
"""The mix of :func:`make_pairs`: shares of contact, mover on the bar, race, bear-off."""


def kind(b: npt.NDArray[np.int8]) -> str:
    """The bucket of a board (mover's view) for :data:`MIX`."""
    if b[25] > 0:
        return "bar"
    mine = np.nonzero(b[1:25] > 0)[0]
    theirs = np.nonzero(b[1:25] < 0)[0]
    back = mine.max() + 1 if mine.size else 0
    opp_back = theirs.min() + 1 if theirs.size else 25
    if b[0] < 0:
        opp_back = 0
    if back > opp_back:
        return "contact"
    return "bearoff" if back <= 6 else "race"


def make_pairs(n: int, seed: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """``n`` boards and rolls from seeded random self-play, in the :data:`MIX` proportions."""
    rng = np.random.default_rng(seed)
    quota = {k: int(round(share * n)) for k, share in MIX.items()}
    quota["contact"] += n - sum(quota.values())
    got: dict[str, list[npt.NDArray[np.int8]]] = {k: [] for k in MIX}
    while any(len(got[k]) < quota[k] for k in MIX):
        b = START.copy()
        while True:
            k = kind(b)
            if len(got[k]) < quota[k] and rng.random() < 0.5:
                got[k].append(b.copy())
            d = rng.integers(1, 7, size=2)
            results = movegen.legal_boards(b, int(d[0]), int(d[1]))
            if len(results):
                b = results[rng.integers(len(results))]
            if (b[1:26] > 0).sum() == 0:
                break
            b = flip_py(b)
    boards = np.concatenate([np.array(got[k]) for k in MIX if got[k]])
    order = rng.permutation(len(boards))
    dice = rng.integers(1, 7, size=(n, 2)).astype(np.int64)
    return np.ascontiguousarray(boards[order]), dice


def contact_positions(n: int, seed: int, data: Path | None = None
                      ) -> tuple[list[Position], str]:
    """``n`` distinct contact positions (side on roll), seeded, and where they come from: the
    contact rows of a gnubg2ply folder (``part-*.csv.gz``, the first four parts) when ``data``
    exists, else seeded random self-play."""
    rng = np.random.default_rng(seed)
    if data is not None and data.exists():
        ids: list[str] = []
        for part in sorted(data.glob("part-*.csv.gz"))[:4]:
            with gzip.open(part, "rt") as fh:
                next(fh)
                ids.extend(line.split(",", 1)[0] for line in fh if ",contact," in line)
        pick = rng.choice(len(ids), size=min(n, len(ids)), replace=False)
        return [Position.from_id(ids[i]) for i in pick], f"gnubg2ply contact (seed {seed})"
    out: list[Position] = []
    seen: set[bytes] = set()
    while len(out) < n:
        b = START.copy()
        for _ in range(int(rng.integers(4, 40))):
            d = rng.integers(1, 7, size=2)
            res = movegen.legal_boards(b, int(d[0]), int(d[1]))
            if len(res):
                b = res[rng.integers(len(res))]
            b = flip_py(b)
        if classify(b) == CONTACT and b.tobytes() not in seen:
            seen.add(b.tobytes())
            out.append(Position(b))
    return out, f"random self-play contact (seed {seed})"


def seeded_rolls(n: int, seed: int) -> list[tuple[int, int]]:
    """``n`` rolls from ``seed``."""
    rng = np.random.default_rng(seed)
    return [(int(a), int(b)) for a, b in rng.integers(1, 7, size=(n, 2))]


def evaluation_batch(positions: Sequence[Position], rolls: Sequence[tuple[int, int]]
                     ) -> npt.NDArray[np.int8]:
    """Every candidate result of each position with its roll, flipped (the opponent to move):
    what a 0-ply search sends to the networks."""
    boards = np.array([p.board for p in positions])
    dice = np.array(rolls, dtype=np.int64)
    results, _ = movegen.legal_boards_batch(boards, dice)
    return np.ascontiguousarray(np.array([flip_py(b) for b in results]))


# --- timers ---------------------------------------------------------------------------------
def clock(name: str) -> Callable[[], float]:
    """``"wall"``: :func:`time.perf_counter`; ``"cpu"``: this thread's CPU time (on a shared,
    loaded machine the wall clock mostly measures waiting for a core)."""
    if name not in ("wall", "cpu"):
        raise ValueError(f"clock is 'wall' or 'cpu', not {name!r}")
    return time.thread_time if name == "cpu" else time.perf_counter


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Wall seconds of one ``fn()``, and its value."""
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def best_of(repeat: int, fn: Callable[[], T], warmup: bool = False) -> tuple[float, T]:
    """The least wall seconds of ``repeat`` runs of ``fn`` (after one untimed run when
    ``warmup``), and the last run's value."""
    if warmup:
        fn()
    best, out = timed(fn)
    for _ in range(repeat - 1):
        t, out = timed(fn)
        best = min(best, t)
    return best, out


def movegen_batch(boards: npt.NDArray[np.int8], dice: npt.NDArray[np.int64], repeat: int,
                  warmup: bool = False) -> tuple[float, npt.NDArray[np.int64]]:
    """Move generation as the search uses it: the least wall seconds of ``repeat`` calls of
    ``legal_boards_batch`` over every pair (one call for all), and the plays of each pair."""
    seconds, (_, offsets) = best_of(repeat, lambda: movegen.legal_boards_batch(boards, dice),
                                    warmup)
    return seconds, np.diff(offsets)


def evaluation_rate(evaluate: Callable[[npt.NDArray[np.int8]], object],
                    batch: npt.NDArray[np.int8], repeat: int) -> float:
    """Positions per second of ``evaluate(batch)`` (one call for the whole batch), the best of
    ``repeat`` after a small untimed call."""
    evaluate(batch[:64])
    seconds, _ = best_of(repeat, lambda: evaluate(batch))
    return len(batch) / seconds


class PeerTiming(NamedTuple):
    """Mean seconds per call of gbot (``ours``) and the peer (``theirs``, None without one);
    the values returned when :func:`interleaved` was asked to keep them."""

    ours: float
    theirs: float | None
    ours_out: list[Any]
    theirs_out: list[Any]


def interleaved(pairs: Sequence[tuple[A, B]], ours: Callable[[A], object],
                theirs: Callable[[B], object] | None,
                clock: Callable[[], float] = time.perf_counter, keep: bool = False
                ) -> PeerTiming:
    """``ours(a)`` and ``theirs(b)`` over ``pairs`` taking turns call by call (so both see the
    same machine load), each call timed on its own with ``clock``."""
    t_o = t_t = 0.0
    kept_o: list[Any] = []
    kept_t: list[Any] = []
    for a, b in pairs:
        t0 = clock()
        r = ours(a)
        t1 = clock()
        t_o += t1 - t0
        if keep:
            kept_o.append(r)
        if theirs is not None:
            r = theirs(b)
            t_t += clock() - t1
            if keep:
                kept_t.append(r)
    n = max(len(pairs), 1)
    return PeerTiming(t_o / n, None if theirs is None else t_t / n, kept_o, kept_t)


# --- the peer -------------------------------------------------------------------------------
def gnubg_nn() -> Any:
    """The ``gnubg_nn`` module, or None where it is not installed (the figures against it are
    then left out)."""
    try:
        import gnubg_nn as g
    except ImportError:
        return None
    return g


def gnubg_nn_version() -> str:
    """gnubg-nn's installed version, or ``not installed``."""
    return _version("gnubg-nn")


def gnubg_board(pos: Position) -> list[list[int]]:
    """``pos`` in gnubg-nn's layout: ``[opponent, side on roll]``."""
    me, opp = pos.to_gnubg()
    return [opp, me]

