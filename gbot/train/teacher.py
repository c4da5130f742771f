"""Teacher labels deeper than gnubg 0-ply, at training time only.

Positions come from self-play folders (:mod:`gbot.train.selfplay`): the played result of every
turn plus the other candidates whose 0-ply equity, from the mover's side, is within ``margin``
of that turn's best. Those are the close decisions, where a better label changes a choice.
The choice is de-duplicated, shuffled with ``seed`` and written once as ``positions.npz``.

A teacher then labels them chunk by chunk on a backend of :mod:`gbot.analysis.backends` (local
worker processes or Ray); each chunk is written
atomically as ``label-NNNNN.npz`` (``boards``, ``probs``; the layout of :mod:`gbot.train.label`,
so ``gbot train supervised --data FOLDER`` reads it), and a rerun continues with the missing
chunks. Teachers: ``gnubg-nn`` at 1 or 2 plies (``gnubg_nn.probabilities``), ``gbot`` at
``plies`` with gbot's own search over the given weights (the iterated 1-ply target: the mean
over the 21 rolls of the best reply's value under the current networks), ``bgsage`` at
``plies`` in bgsage's own naming (1 = its raw net, 2 = gnubg's 1-ply, 3 = gnubg's 2-ply; see
:mod:`gbot.train.bgsage_bridge`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.analysis.backends import as_finished, make_backend
from gbot.core.classify import NAMES, classify_many
from gbot.eval.evaluator import Evaluator, equities
from gbot.train.bgsage_bridge import Bgsage
from gbot.train.label import prepare
from gbot.train.oracle import probabilities

__all__ = ["TEACHERS", "LabelTask", "close_candidate_groups", "close_candidates",
           "label_task", "make_teacher", "prepare", "run"]

TEACHERS = ("gnubg-nn", "gbot", "bgsage")


def close_candidates(folders: list[Path], margin: float
                     ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Boards of the played results and of candidates within ``margin`` of each turn's best
    0-ply equity; returns ``(boards, played flags)``."""
    boards, played, _ = close_candidate_groups(folders, margin)
    return boards, played


def close_candidate_groups(folders: list[Path], margin: float, only_class: str = "any"
                           ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_],
                                      npt.NDArray[np.int64]]:
    """:func:`close_candidates` with the decision each board belongs to: boards of one roll
    of one game share a group number (numbered from 0 in order of appearance). With
    ``only_class`` (a name of :data:`gbot.core.classify.NAMES`) only boards of that class are
    kept, so that the labels go to the one network that evaluates them."""
    boards, played, groups = [], [], []
    base = 0
    for folder in folders:
        for path in sorted(Path(folder).glob("chunk-*.npz")):
            if ".tmp" in path.name:
                continue
            with np.load(path) as z:
                if "turn" not in z.files:
                    raise ValueError(f"{path} has no turn numbers (made by an older selfplay)")
                b, p, f = z["boards"], z["probs"].astype(np.float64), z["played"]
                key = z["game"].astype(np.int64) * 4096 + z["turn"]
            mover = -equities(p)
            new_group = np.r_[True, key[1:] != key[:-1]]
            starts = np.flatnonzero(new_group)
            best = np.maximum.reduceat(mover, starts)
            group = np.cumsum(new_group) - 1
            keep = f | (best[group] - mover <= margin)
            if only_class != "any":     # classify only what the margin kept
                keep[keep] = classify_many(b[keep]) == NAMES.index(only_class)
            boards.append(b[keep])
            played.append(f[keep])
            groups.append(base + group[keep])
            base += int(starts.shape[0])
    return (np.concatenate(boards).astype(np.int8), np.concatenate(played),
            np.concatenate(groups).astype(np.int64))


def make_teacher(teacher: str, plies: int, weights: str | None = None
                 ) -> Callable[[npt.NDArray[np.int8]], npt.NDArray[np.float32]]:
    """A function from ``int8[n, 26]`` boards (side to move) to cubeless probabilities."""
    if teacher == "gnubg-nn":
        return lambda b: probabilities(b, plies)
    if teacher == "gbot":
        ev = Evaluator(weights) if weights else Evaluator()
        ev.warm()

        def label(b: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
            return np.asarray(ev.evaluate(b, ply=plies), dtype=np.float32)
        return label
    if teacher == "bgsage":
        return Bgsage(plies, threads=1).probabilities
    raise ValueError(f"unknown teacher {teacher!r} (choose from {', '.join(TEACHERS)})")


@dataclass(frozen=True)
class LabelTask:
    """One chunk to label: the teacher (name, plies, weights file) and the chunk's boards."""

    teacher: str
    plies: int
    weights: str | None
    chunk: int
    boards: npt.NDArray[np.int8]


_TEACHERS: dict[tuple[str, int, str | None], Callable[[npt.NDArray[np.int8]],
                                                      npt.NDArray[np.float32]]] = {}


def label_task(task: LabelTask) -> npt.NDArray[np.float32]:
    """The teacher's probabilities of the task's boards (each process builds a teacher once
    and keeps it for the tasks that follow)."""
    key = (task.teacher, task.plies, task.weights)
    if key not in _TEACHERS:
        _TEACHERS[key] = make_teacher(*key)
    return np.asarray(_TEACHERS[key](task.boards), dtype=np.float32)


def run(out: Path, teacher: str, plies: int, workers: int = 2, chunk: int = 5000,
        weights: Path | None = None, log: Callable[[str], None] = print,
        backend: str = "process", address: str | None = None) -> None:
    """Label every chunk of ``out/positions.npz`` that has no label file yet, on ``backend``
    (:mod:`gbot.analysis.backends`: ``process`` with ``workers`` processes, ``serial`` or
    ``ray``, at ``address`` for a cluster); each chunk's file is written here as it comes
    back."""
    with np.load(out / "positions.npz") as z:
        boards = z["boards"].astype(np.int8)
    n = int(boards.shape[0])
    n_chunks = (n + chunk - 1) // chunk
    todo = [c for c in range(n_chunks) if not (out / f"label-{c:05d}.npz").exists()]
    log(f"{teacher} {plies}-ply: {len(todo)} of {n_chunks} chunks to label "
        f"({n} positions, {backend} backend, {workers} workers)")
    if not todo:
        return
    from gbot.analysis.progress import around_bars, terminal_bar

    pool = make_backend(backend, label_task, workers, address)
    bar = terminal_bar(n_chunks, f"{teacher} {plies}-ply", "chunk",
                       initial=n_chunks - len(todo))
    log = around_bars(log)
    t0 = time.time()
    rows = 0
    w = str(weights) if weights else None
    tasks = (LabelTask(teacher, plies, w, c, boards[c * chunk:(c + 1) * chunk]) for c in todo)
    cancel = True
    try:
        for k, (task, probs) in enumerate(as_finished(pool, tasks), 1):
            tmp = out / f"label-{task.chunk:05d}.tmp.npz"
            np.savez_compressed(tmp, boards=task.boards, probs=probs)
            tmp.replace(out / f"label-{task.chunk:05d}.npz")
            rows += int(task.boards.shape[0])
            rate = rows / max(time.time() - t0, 1e-9)
            left = (len(todo) - k) * chunk / max(rate, 1e-9)
            bar.update(1)
            log(f"{k}/{len(todo)} chunks ({rate:.0f} rows/s, ETA {left / 60:.1f} min)")
        cancel = False
    finally:
        pool.close(cancel=cancel)
        bar.close()
