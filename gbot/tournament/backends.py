"""Where the games of a tournament run: in this process, in local worker processes, or on Ray.

Every backend takes :class:`~gbot.tournament.game.GameTask` values and hands back
``(task, GameResult | exception)`` pairs as games finish; the runner keeps at most
:attr:`Backend.capacity` tasks in flight. Players are built once per worker process and reused
for every game it plays (a gnubg player keeps its gnubg process).

* ``serial``: one game at a time in the calling process (tests, debugging, one core).
* ``process`` (the default): a pool of spawned worker processes, one per core by default.
* ``ray``: Ray tasks, on a local Ray instance or the cluster at ``ray_address``; needs the
  optional ``ray`` package (``pip install "gbot[ray]"``).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import signal
from collections import deque
from typing import Any, Protocol

from gbot.analysis.workers import die_with_parent
from gbot.errors import TournamentError
from gbot.tournament.game import GameResult, GameTask, close_players, run_task

__all__ = ["BACKENDS", "Backend", "ProcessBackend", "RayBackend", "SerialBackend",
           "default_workers", "make_backend"]

BACKENDS = ("process", "serial", "ray")

Outcome = tuple[GameTask, "GameResult | BaseException"]


class Backend(Protocol):
    """Runs game tasks somewhere and returns their outcomes as they finish."""

    capacity: int

    def submit(self, task: GameTask) -> None:
        """Queue ``task``."""
        ...

    def results(self, timeout: float) -> list[Outcome]:
        """Outcomes finished so far, waiting up to ``timeout`` seconds for the first one."""
        ...

    def close(self, cancel: bool = False) -> None:
        """Stop the workers (``cancel``: drop queued tasks and stop running ones at once)."""
        ...


def default_workers() -> int:
    """Worker processes by default: every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class SerialBackend:
    """Plays each task in this process when its outcome is asked for."""

    capacity = 1

    def __init__(self) -> None:
        self._queue: deque[GameTask] = deque()

    def submit(self, task: GameTask) -> None:
        """Queue ``task``."""
        self._queue.append(task)

    def results(self, timeout: float) -> list[Outcome]:
        """Play the oldest queued task now."""
        if not self._queue:
            return []
        task = self._queue.popleft()
        try:
            return [(task, run_task(task))]
        except Exception as exc:
            return [(task, exc)]

    def close(self, cancel: bool = False) -> None:
        """Close the players cached in this process."""
        self._queue.clear()
        close_players()


def _worker_init(parent: int) -> None:
    """Pool workers leave Ctrl-C to the runner, which stops them itself, and end with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    if os.getppid() != parent:   # the runner died before the request took effect
        os._exit(1)


class ProcessBackend:
    """A pool of ``workers`` spawned processes (two tasks in flight per worker)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()
        self.capacity = 2 * self.workers
        ctx = multiprocessing.get_context("spawn")
        self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx,
                                            initializer=_worker_init,
                                            initargs=(os.getpid(),))
        self._futures: dict[cf.Future[GameResult], GameTask] = {}

    def submit(self, task: GameTask) -> None:
        """Send ``task`` to the pool."""
        self._futures[self._pool.submit(run_task, task)] = task

    def results(self, timeout: float) -> list[Outcome]:
        """Finished tasks, waiting up to ``timeout`` for the first."""
        if not self._futures:
            return []
        done, _ = cf.wait(list(self._futures), timeout=timeout,
                          return_when=cf.FIRST_COMPLETED)
        out: list[Outcome] = []
        for fut in done:
            task = self._futures.pop(fut)
            exc = fut.exception()
            out.append((task, exc if exc is not None else fut.result()))
        return out

    def close(self, cancel: bool = False) -> None:
        """Shut the pool down; with ``cancel`` the running games are abandoned."""
        if cancel:
            procs: dict[Any, Any] = dict(getattr(self._pool, "_processes", None) or {})
            self._pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs.values():
                with contextlib.suppress(Exception):
                    proc.terminate()
            for proc in procs.values():
                with contextlib.suppress(Exception):
                    proc.join(5)
        else:
            self._pool.shutdown(wait=True)
        self._futures.clear()


class RayBackend:
    """Ray tasks: a local Ray instance (``workers`` CPUs) or the cluster at ``address``."""

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise TournamentError("the ray backend needs Ray: pip install 'gbot[ray]' "
                                  "(or pip install ray)") from None
        self._ray: Any = ray
        self._started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                kwargs["address"] = address
            else:
                kwargs["num_cpus"] = workers or default_workers()
            ray.init(**kwargs)
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.capacity = 2 * max(1, cpus)
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        self._refs: dict[Any, GameTask] = {}

    def submit(self, task: GameTask) -> None:
        """Start ``task`` as a Ray task."""
        self._refs[self._remote.remote(task)] = task

    def results(self, timeout: float) -> list[Outcome]:
        """Finished tasks, waiting up to ``timeout`` for the first."""
        if not self._refs:
            return []
        ray = self._ray
        done, _ = ray.wait(list(self._refs), num_returns=1, timeout=timeout)
        if done:
            more, _ = ray.wait(list(self._refs), num_returns=len(self._refs), timeout=0)
            done = list({id(r): r for r in [*done, *more]}.values())
        out: list[Outcome] = []
        for ref in done:
            task = self._refs.pop(ref)
            try:
                out.append((task, ray.get(ref)))
            except Exception as exc:
                cause = getattr(exc, "cause", None)
                out.append((task, cause if isinstance(cause, BaseException) else exc))
        return out

    def close(self, cancel: bool = False) -> None:
        """Cancel what is left (with ``cancel``) and shut down a Ray instance we started."""
        ray = self._ray
        if cancel:
            for ref in list(self._refs):
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
        self._refs.clear()
        if self._started:
            ray.shutdown()


def make_backend(name: str, workers: int | None = None,
                 ray_address: str | None = None) -> Backend:
    """The backend called ``name`` (one of :data:`BACKENDS`)."""
    if name == "serial":
        return SerialBackend()
    if name == "process":
        if workers == 1:
            return SerialBackend()
        return ProcessBackend(workers)
    if name == "ray":
        return RayBackend(workers, ray_address)
    raise TournamentError(f"unknown backend {name!r} (one of {', '.join(BACKENDS)})")
