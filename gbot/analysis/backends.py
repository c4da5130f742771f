"""Where parallel work runs: in this process, in spawned worker processes, or as Ray tasks.

A backend applies one module-level function (``run``) to picklable tasks and hands back
``(task, result or exception)`` pairs as they finish; a caller keeps at most
:attr:`Backend.capacity` tasks in flight (:func:`as_finished` and :func:`map_ordered` do that
for a list of tasks). Whatever ``run``'s module caches per process (networks, players, a gnubg
process) is set up once in each worker and reused for every task it runs there. Tournaments,
rollouts and the training stages all run on these backends.

* ``serial``: one task at a time in the calling process.
* ``process`` (the default): a pool of spawned worker processes, one per core by default; the
  workers leave Ctrl-C to the caller and end with it.
* ``ray``: Ray tasks on a local Ray instance (``workers`` CPUs) or on the cluster at
  ``address``; needs the optional ``ray`` package (``pip install "gbot[ray]"``). Tasks carry
  their inputs and results travel back, so the cluster needs no shared files.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, Protocol, TypeVar

from gbot.analysis.workers import die_with_parent
from gbot.errors import BackendError

__all__ = ["BACKENDS", "Backend", "ProcessBackend", "RayBackend", "SerialBackend",
           "as_finished", "default_workers", "make_backend", "map_ordered"]

BACKENDS = ("process", "serial", "ray")

T = TypeVar("T")
R = TypeVar("R")


class Backend(Protocol[T, R]):
    """Runs tasks somewhere and returns their outcomes as they finish."""

    capacity: int

    def submit(self, task: T) -> None:
        """Queue ``task``."""
        ...

    def results(self, timeout: float) -> list[tuple[T, R | BaseException]]:
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


class SerialBackend(Generic[T, R]):
    """Runs each task in this process when its outcome is asked for; ``on_close`` releases
    what the tasks cached here (a tournament's players)."""

    capacity = 1

    def __init__(self, run: Callable[[T], R], on_close: Callable[[], None] | None = None
                 ) -> None:
        self._run = run
        self._on_close = on_close
        self._queue: deque[T] = deque()

    def submit(self, task: T) -> None:
        """Queue ``task``."""
        self._queue.append(task)

    def results(self, timeout: float) -> list[tuple[T, R | BaseException]]:
        """Run the oldest queued task now."""
        if not self._queue:
            return []
        task = self._queue.popleft()
        try:
            return [(task, self._run(task))]
        except Exception as exc:
            return [(task, exc)]

    def close(self, cancel: bool = False) -> None:
        """Drop what is queued and release the tasks' cached state."""
        self._queue.clear()
        if self._on_close is not None:
            self._on_close()


def _worker_init(parent: int) -> None:  # pragma: no cover - runs in child processes
    """Pool workers leave Ctrl-C to the caller, which stops them itself, and end with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    if os.getppid() != parent:   # the caller died before the request took effect
        os._exit(1)


class ProcessBackend(Generic[T, R]):
    """A pool of ``workers`` spawned processes (two tasks in flight per worker)."""

    def __init__(self, run: Callable[[T], R], workers: int | None = None) -> None:
        self._run = run
        self.workers = workers or default_workers()
        self.capacity = 2 * self.workers
        ctx = multiprocessing.get_context("spawn")
        self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx,
                                            initializer=_worker_init,
                                            initargs=(os.getpid(),))
        self._futures: dict[cf.Future[R], T] = {}

    def submit(self, task: T) -> None:
        """Send ``task`` to the pool."""
        self._futures[self._pool.submit(self._run, task)] = task

    def results(self, timeout: float) -> list[tuple[T, R | BaseException]]:
        """Finished tasks, waiting up to ``timeout`` for the first."""
        if not self._futures:
            return []
        done, _ = cf.wait(list(self._futures), timeout=timeout,
                          return_when=cf.FIRST_COMPLETED)
        out: list[tuple[T, R | BaseException]] = []
        for fut in done:
            task = self._futures.pop(fut)
            exc = fut.exception()
            out.append((task, exc if exc is not None else fut.result()))
        return out

    def close(self, cancel: bool = False) -> None:
        """Shut the pool down; with ``cancel`` the running tasks are abandoned."""
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


class RayBackend(Generic[T, R]):
    """Ray tasks: a local Ray instance (``workers`` CPUs) or the cluster at ``address``."""

    def __init__(self, run: Callable[[T], R], workers: int | None = None,
                 address: str | None = None) -> None:
        try:
            import ray as ray_module
        except ImportError:
            raise BackendError("the ray backend needs Ray: pip install 'gbot[ray]' "
                               "(or pip install ray)") from None
        ray: Any = ray_module
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            # each task holds one CPU: its searches stay on one thread (GBOT_THREADS)
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "runtime_env": {"env_vars": {"GBOT_THREADS": "1"}}}
            if address:
                kwargs["address"] = address
            else:
                kwargs["num_cpus"] = workers or default_workers()
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise BackendError(f"cannot start or reach Ray"
                                   f"{f' at {address}' if address else ''}: {exc}") from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.capacity = 2 * max(1, cpus)
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run)
        self._refs: dict[Any, T] = {}

    def submit(self, task: T) -> None:
        """Start ``task`` as a Ray task."""
        self._refs[self._remote.remote(task)] = task

    def results(self, timeout: float) -> list[tuple[T, R | BaseException]]:
        """Finished tasks, waiting up to ``timeout`` for the first."""
        if not self._refs:
            return []
        ray = self._ray
        done, _ = ray.wait(list(self._refs), num_returns=1, timeout=timeout)
        if done:
            more, _ = ray.wait(list(self._refs), num_returns=len(self._refs), timeout=0)
            done = list({id(r): r for r in [*done, *more]}.values())
        out: list[tuple[T, R | BaseException]] = []
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


def make_backend(name: str, run: Callable[[T], R], workers: int | None = None,
                 address: str | None = None, on_close: Callable[[], None] | None = None
                 ) -> Backend[T, R]:
    """The backend called ``name`` (one of :data:`BACKENDS`) applying ``run``; ``process``
    with one worker runs in this process. ``on_close``: what a serial backend calls when
    closed, to release what the tasks cached in this process."""
    if name == "serial" or (name == "process" and workers == 1):
        return SerialBackend(run, on_close)
    if name == "process":
        return ProcessBackend(run, workers)
    if name == "ray":
        return RayBackend(run, workers, address)
    raise BackendError(f"unknown backend {name!r} (one of {', '.join(BACKENDS)})")


def as_finished(backend: Backend[T, R], tasks: Iterable[T], poll: float = 1.0
                ) -> Iterator[tuple[T, R]]:
    """``(task, result)`` of every task as it finishes, at most ``backend.capacity`` in
    flight; the first task that fails raises its exception (the rest are dropped)."""
    todo = iter(tasks)
    flying = 0
    more = True
    while more or flying:
        while more and flying < backend.capacity:
            task = next(todo, None)
            if task is None:
                more = False
                break
            backend.submit(task)
            flying += 1
        for task, got in backend.results(poll):
            flying -= 1
            if isinstance(got, BaseException):
                raise got
            yield task, got


def map_ordered(backend: Backend[T, R], tasks: list[T]) -> list[R]:
    """Every task's result, in the order of ``tasks``."""
    slots: dict[int, deque[int]] = {}
    for k, t in enumerate(tasks):
        slots.setdefault(id(t), deque()).append(k)
    out: list[Any] = [None] * len(tasks)
    for task, got in as_finished(backend, tasks):
        out[slots[id(task)].popleft()] = got
    return out
