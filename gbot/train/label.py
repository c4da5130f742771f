"""A labelled folder's layout (training time only): the positions to label, chosen once
(``positions.npz``, with each board's decision group where known), and their labels in chunks
(``label-NNNNN.npz``: ``boards``, ``probs``), which :func:`gbot.train.teacher.run` writes
atomically one by one, so an interrupted run continues with the missing chunks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt


def prepare(out: Path, boards: npt.NDArray[np.int8], limit: int, seed: int,
            groups: npt.NDArray[np.int64] | None = None) -> int:
    """Choose (shuffled, de-duplicated) positions to label; keeps an existing choice. With
    ``groups`` (the decision of each board) whole decisions are chosen, in shuffled order, until
    ``limit`` boards (so the rank term sees every close candidate of a chosen roll), and the
    chosen boards' groups are kept too (a board met in several decisions keeps its first)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "positions.npz"
    if path.exists():
        with np.load(path) as z:
            return int(z["boards"].shape[0])
    keys = np.ascontiguousarray(boards).view(np.dtype((np.void, 26))).ravel()
    _, first = np.unique(keys, return_index=True)
    rng = np.random.default_rng(seed)
    if groups is None:
        idx = rng.permutation(np.sort(first))[:limit]
    else:
        first = np.sort(first)
        g = np.asarray(groups, dtype=np.int64)[first]
        rank = rng.permutation(int(g.max()) + 1 if g.size else 0)   # a random order of groups
        idx = first[np.argsort(rank[g], kind="stable")][:limit]
    tmp = out / "positions.tmp.npz"
    extra = {} if groups is None else {"group": np.asarray(groups, dtype=np.int64)[idx]}
    np.savez_compressed(tmp, boards=boards[idx].astype(np.int8), **extra)
    tmp.replace(path)
    return int(idx.shape[0])


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
