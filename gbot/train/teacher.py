"""Teacher labels deeper than gnubg 0-ply, at training time only.

Positions come from self-play folders (:mod:`gbot.train.selfplay`): the played result of every
turn plus the other candidates whose 0-ply equity, from the mover's side, is within ``margin``
of that turn's best. Those are the close decisions, where a better label changes a choice.
The choice is de-duplicated, shuffled with ``seed`` and written once as ``positions.npz``.

A teacher then labels them chunk by chunk in ``workers`` processes; each chunk is written
atomically as ``label-NNNNN.npz`` (``boards``, ``probs``; the layout of :mod:`gbot.train.label`,
so ``gbot train supervised --data FOLDER`` reads it), and a rerun continues with the missing
chunks. Teachers: ``gnubg-nn`` at 1 or 2 plies (``gnubg_nn.probabilities``), ``gbot`` at
``plies`` with gbot's own search over the given weights (the iterated 1-ply target: the mean
over the 21 rolls of the best reply's value under the current networks), ``bgsage`` at
``plies`` in bgsage's own naming (1 = its raw net, 2 = gnubg's 1-ply, 3 = gnubg's 2-ply; see
:mod:`gbot.train.bgsage_bridge`).
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.core.classify import NAMES, classify_many
from gbot.eval.evaluator import Evaluator
from gbot.train.bgsage_bridge import Bgsage
from gbot.train.label import prepare
from gbot.train.oracle import probabilities

__all__ = ["EQUITY", "TEACHERS", "close_candidate_groups", "close_candidates", "make_teacher",
           "prepare", "run"]

EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
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
            mover = -(p @ EQUITY - 1.0)
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


_WORKER: dict[str, Any] = {}


def _init_worker(out: str, teacher: str, plies: int, weights: str | None) -> None:
    with np.load(Path(out) / "positions.npz") as z:
        _WORKER["boards"] = z["boards"]
    _WORKER["out"] = Path(out)
    _WORKER["label"] = make_teacher(teacher, plies, weights)


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


def _label_chunk(args: tuple[int, int]) -> int:
    c, chunk = args
    b = _WORKER["boards"][c * chunk:(c + 1) * chunk]
    p = _WORKER["label"](b)
    out: Path = _WORKER["out"]
    tmp = out / f"label-{c:05d}.tmp.npz"
    np.savez_compressed(tmp, boards=b, probs=p)
    tmp.replace(out / f"label-{c:05d}.npz")
    return int(b.shape[0])


def run(out: Path, teacher: str, plies: int, workers: int = 2, chunk: int = 5000,
        weights: Path | None = None, log: Callable[[str], None] = print) -> None:
    """Label every chunk of ``out/positions.npz`` that has no label file yet."""
    with np.load(out / "positions.npz") as z:
        n = int(z["boards"].shape[0])
    n_chunks = (n + chunk - 1) // chunk
    todo = [c for c in range(n_chunks) if not (out / f"label-{c:05d}.npz").exists()]
    log(f"{teacher} {plies}-ply: {len(todo)} of {n_chunks} chunks to label "
        f"({n} positions, {workers} workers)")
    if not todo:
        return
    from gbot.analysis.progress import around_bars, terminal_bar

    bar = terminal_bar(n_chunks, f"{teacher} {plies}-ply", "chunk",
                       initial=n_chunks - len(todo))
    log = around_bars(log)
    t0 = time.time()
    rows = 0
    init = (str(out), teacher, plies, str(weights) if weights else None)
    with mp.get_context("spawn").Pool(workers, _init_worker, init) as pool:
        for k, got in enumerate(pool.imap_unordered(_label_chunk,
                                                    [(c, chunk) for c in todo]), 1):
            rows += got
            rate = rows / max(time.time() - t0, 1e-9)
            left = (len(todo) - k) * chunk / max(rate, 1e-9)
            bar.update(1)
            log(f"{k}/{len(todo)} chunks ({rate:.0f} rows/s, ETA {left / 60:.1f} min)")
    bar.close()
