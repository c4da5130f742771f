"""Start-up of long-running commands: every kernel loaded (or, on a first run, compiled) before
the first question, in about the same time at every ply, and said when it is compiling.

The numba kernels of :mod:`gbot.core` are compiled on first use and cached in
``gbot/core/__pycache__``; a later process loads them from there. Deeper searches use the same
kernels as a 1-ply one, so the warm-up asks its questions at 1 ply at most, cube look-ahead
included (a 4-ply warm-up question would take minutes and load nothing more).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from numba.core import event

if TYPE_CHECKING:
    from gbot.engine.engine import Engine

__all__ = ["CompileWatch", "kernels_cached", "warm_engine", "warm_ply", "watch_compiles"]

CORE = Path(__file__).resolve().parents[1] / "core"
WARM_PLY = 1
"""The deepest look-ahead the warm-up questions use, for checker play and for the cube (a
cube look-ahead of 1 ply calls every kernel a deeper one calls)."""


def kernels_cached(modules: tuple[str, ...]) -> bool:
    """Whether numba's cache holds, for each of ``modules``, an index newer than its source
    (False on a first run after installing or changing the code)."""
    cache = CORE / "__pycache__"
    for name in modules:
        src = CORE / f"{name}.py"
        if not src.exists():
            continue
        # indexes of functions that moved or went away stay behind: the newest one counts
        indexes = list(cache.glob(f"{name}.*.nbi"))
        if not indexes or max(p.stat().st_mtime for p in indexes) < src.stat().st_mtime:
            return False
    return True


class CompileWatch(event.Listener):
    """Calls ``first`` once, when numba starts the first compile it reports while installed
    (numba reports a compile only on a cache miss, never for a kernel loaded from the cache);
    :attr:`compiled` says whether one started."""

    def __init__(self, first: Callable[[], None]) -> None:
        self._first = first
        self._lock = threading.Lock()
        self.compiled = False

    def on_start(self, event: event.Event) -> None:
        with self._lock:
            if self.compiled:
                return
            self.compiled = True
        self._first()

    def on_end(self, event: event.Event) -> None:
        """Nothing to do when a compile ends."""


@contextmanager
def watch_compiles(first: Callable[[], None]) -> Iterator[CompileWatch]:
    """While the block runs, call ``first`` at the first kernel numba compiles (in any
    thread of this process); yields the :class:`CompileWatch`."""
    watch = CompileWatch(first)
    event.register("numba:compile", watch)  # type: ignore[no-untyped-call]
    try:
        yield watch
    finally:
        event.unregister("numba:compile", watch)  # type: ignore[no-untyped-call]


def warm_ply(engine: Engine) -> Engine:
    """``engine`` itself when its checker play and its cube look ahead 1 ply at most, else a
    copy (same evaluator and rules) that looks :data:`WARM_PLY` ahead where ``engine`` looks
    deeper (:attr:`Engine.ply`, :attr:`Engine.cube_ply`)."""
    if engine.ply <= WARM_PLY and engine.cube_ply <= WARM_PLY:
        return engine
    twin = engine.with_rules(engine.rules)
    twin.ply = min(engine.ply, WARM_PLY)
    twin.cube_ply = min(engine.cube_ply, WARM_PLY)
    return twin


def warm_engine(engine: Engine, warm: Callable[[Engine], None],
                say: Callable[[str], None] | None = None) -> float:
    """Run ``warm`` (questions that load every kernel) on :func:`warm_ply` of ``engine``;
    when a kernel has to compile (it was not cached), ``say`` so at its start, and how long
    the warm-up took at the end. Returns the seconds spent."""
    def announce() -> None:
        if say is not None:
            say("compiling gbot's numba kernels that are not cached yet (first run after "
                "install or an update: up to a few minutes on a busy 2-core machine; cached "
                "in gbot/core/__pycache__ for later starts)...")

    t0 = time.perf_counter()
    with watch_compiles(announce) as watch:
        warm(warm_ply(engine))
    spent = time.perf_counter() - t0
    if watch.compiled and say is not None:
        say(f"kernels ready in {spent:.1f} s")
    return spent
