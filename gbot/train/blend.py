"""Blend a labelled folder's probabilities with gnubg-nn's 0-ply ones, or with another labelled
folder's of the same positions (training time only).

A 1-ply label is the value after one ply of search, and odd plies lean one way: on positions
labelled at 2-ply, ``0.3 x 0-ply + 0.7 x 1-ply`` is closer to the 2-ply label than the 1-ply
value alone (contact equity error 0.0195 against 0.0229 on the gnubg2ply validation part; see
gbot/weights/README.md). ``run`` writes such blended labels for every chunk of a labelled
folder (``positions.npz`` and ``label-NNNNN.npz``, as :mod:`gbot.train.label` and
:mod:`gbot.train.teacher` write them), chunk by chunk and atomically, so an interrupted run
continues with the first missing chunk. Teachers of different families err in different
places: given ``other``, a folder of the same positions labelled by another teacher (for
example bgsage's 2-ply beside gnubg-nn's 1-ply), its labels take the place of gnubg-nn's
0-ply ones, and the blends chain (blend two teachers, then the result with 0-ply).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

Teacher = Callable[[npt.NDArray[np.int8]], npt.NDArray[np.float32]]


def blend(probs: npt.NDArray[np.float32], other: npt.NDArray[np.float32],
          share: float) -> npt.NDArray[np.float32]:
    """``share x other + (1 - share) x probs``, as float32."""
    return (share * np.asarray(other, np.float64)
            + (1.0 - share) * np.asarray(probs, np.float64)).astype(np.float32)


def _other_labels(other: Path, chunk: str, boards: npt.NDArray[np.int8]
                  ) -> npt.NDArray[np.float32]:
    """The labels of ``other``'s chunk of the same name, which must hold the same boards."""
    path = other / chunk
    if not path.exists():
        raise FileNotFoundError(f"{other} has no {chunk} (label it from the same positions)")
    with np.load(path) as z:
        if not np.array_equal(z["boards"], boards):
            raise ValueError(f"{path} holds other boards than the source's {chunk} (label "
                             "both folders from the same positions)")
        return np.asarray(z["probs"], dtype=np.float32)


def run(src: Path, out: Path, share: float, teacher: Teacher | None = None,
        log: Callable[[str], None] = print, other: Path | None = None) -> int:
    """Write ``out`` (positions and labels of ``src``, labels blended with ``share`` of
    ``teacher``'s probabilities, default gnubg-nn 0-ply, or of the labels that the folder
    ``other`` holds for the same positions); returns the chunks written."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be within 0..1, not {share}")
    chunks = sorted(src.glob("label-*.npz"))
    if not (src / "positions.npz").exists() or not chunks:
        raise FileNotFoundError(f"{src} holds no labelled positions (positions.npz, label-*.npz)")
    if other is None and teacher is None:
        from gbot.train.oracle import probabilities
        teacher = probabilities
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "positions.npz").exists():
        shutil.copyfile(src / "positions.npz", out / "positions.tmp.npz")
        (out / "positions.tmp.npz").replace(out / "positions.npz")
    todo = [c for c in chunks if not (out / c.name).exists()]
    start = time.time()
    for i, chunk in enumerate(todo, 1):
        with np.load(chunk) as z:
            boards, probs = z["boards"], z["probs"]
        if other is not None:
            theirs = _other_labels(other, chunk.name, boards)
        else:
            assert teacher is not None
            theirs = teacher(boards)
        mixed = blend(probs, theirs, share)
        tmp = out / (chunk.stem + ".tmp.npz")
        np.savez(tmp, boards=boards, probs=mixed)
        tmp.replace(out / chunk.name)
        if i % 20 == 0 or i == len(todo):
            rate = i / max(time.time() - start, 1e-9)
            log(f"{len(chunks) - len(todo) + i}/{len(chunks)} chunks "
                f"(ETA {(len(todo) - i) / rate / 60:.1f} min)")
    return len(todo)
