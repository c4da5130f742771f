"""Label positions with gnubg-nn at ``plies`` (training time only), resumable, with progress.

``prepare`` fixes the positions to label once (``positions.npz`` in the output folder); ``run``
then labels them in chunks of ``chunk`` rows, each written atomically as ``label-NNNNN.npz``
(``boards``, ``probs``), so an interrupted run continues with the first missing chunk.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.train.oracle import probabilities


def prepare(out: Path, boards: npt.NDArray[np.int8], limit: int, seed: int,
            groups: npt.NDArray[np.int64] | None = None) -> int:
    """Choose (shuffled, de-duplicated) positions to label; keeps an existing choice. With
    ``groups`` (the decision of each board) the chosen boards' groups are kept too (a board met
    in several decisions keeps its first)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "positions.npz"
    if path.exists():
        with np.load(path) as z:
            return int(z["boards"].shape[0])
    keys = np.ascontiguousarray(boards).view(np.dtype((np.void, 26))).ravel()
    _, first = np.unique(keys, return_index=True)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(np.sort(first))[:limit]
    tmp = out / "positions.tmp.npz"
    extra = {} if groups is None else {"group": np.asarray(groups, dtype=np.int64)[idx]}
    np.savez_compressed(tmp, boards=boards[idx].astype(np.int8), **extra)
    tmp.replace(path)
    return int(idx.shape[0])


def run(out: Path, plies: int, chunk: int = 5000,
        log: Callable[[str], None] = print) -> None:
    """Label every chunk of ``positions.npz`` that has no label file yet."""
    from gbot.analysis.progress import around_bars, terminal_bar

    with np.load(out / "positions.npz") as z:
        boards = z["boards"]
    n_chunks = (boards.shape[0] + chunk - 1) // chunk
    t0 = time.time()
    done_rows = 0
    had = sum(1 for c in range(n_chunks) if (out / f"label-{c:05d}.npz").exists())
    bar = terminal_bar(n_chunks, f"label {plies}-ply", "chunk", initial=had)
    log = around_bars(log)
    for c in range(n_chunks):
        path = out / f"label-{c:05d}.npz"
        if path.exists():
            continue
        b = boards[c * chunk:(c + 1) * chunk]
        p = probabilities(b, plies)
        tmp = out / f"label-{c:05d}.tmp.npz"
        np.savez_compressed(tmp, boards=b, probs=p)
        tmp.replace(path)
        done_rows += b.shape[0]
        rate = done_rows / max(time.time() - t0, 1e-9)
        left = sum(1 for k in range(c + 1, n_chunks) if not (out / f"label-{k:05d}.npz").exists())
        bar.update(1)
        log(f"chunk {c + 1}/{n_chunks} labelled at {plies}-ply ({rate:.0f} rows/s, "
            f"about {left * chunk / max(rate, 1e-9) / 60:.0f} min left)")
    bar.close()


_Chunk = tuple[int, npt.NDArray[np.int8], npt.NDArray[np.float32]]


def _labelled_chunks(out: Path) -> list[_Chunk]:
    """``(chunk number, boards, probs)`` of every finished ``label-NNNNN.npz``, in order."""
    chunks = []
    for path in sorted(out.glob("label-*.npz")):
        if ".tmp" not in path.name:
            with np.load(path) as z:
                chunks.append((int(path.stem.split("-")[1]), z["boards"], z["probs"]))
    return chunks


def _chunk_groups(out: Path, chunks: list[_Chunk]) -> npt.NDArray[np.int64] | None:
    """The decision groups of ``chunks``' rows (see :func:`load_groups`)."""
    with np.load(out / "positions.npz") as z:
        if "group" not in z.files:
            return None
        groups = z["group"].astype(np.int64)
        chosen = z["boards"]
    size = max((b.shape[0] for _, b, _ in chunks), default=0)
    parts = []
    for c, b, _ in chunks:
        lo = c * size
        if not np.array_equal(chosen[lo:lo + b.shape[0]], b):
            return None
        parts.append(groups[lo:lo + b.shape[0]])
    return np.concatenate(parts) if parts else None


def load_groups(out: Path, rows: int | None = None) -> npt.NDArray[np.int64] | None:
    """The decision group of each row of :func:`load` (``None`` when the folder has none).
    A folder still being labelled gives the groups of its labelled chunks, in :func:`load`'s
    order: chunk ``c`` must hold the chosen positions from ``c * size`` on (``size`` the
    longest chunk), else, as when ``rows`` (the rows :func:`load` gave) differs, ``None``."""
    chunks = _labelled_chunks(out)
    if rows is not None and rows != sum(b.shape[0] for _, b, _ in chunks):
        return None
    return _chunk_groups(out, chunks)


def _joined(chunks: list[_Chunk]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    return (np.concatenate([b for _, b, _ in chunks]).astype(np.int8),
            np.concatenate([p for _, _, p in chunks]).astype(np.float32))


def load(out: Path) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """All labelled chunks of a folder."""
    return _joined(_labelled_chunks(out))


def load_with_groups(out: Path) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32],
                                         npt.NDArray[np.int64] | None]:
    """:func:`load` and :func:`load_groups` from one read of the chunks."""
    chunks = _labelled_chunks(out)
    return (*_joined(chunks), _chunk_groups(out, chunks))
