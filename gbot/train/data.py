"""Labelled position sets: read, write and split ``(boards int8[n,26], probs float32[n,5])``.

Two formats: the gnubg2ply CSV layout (``position_id,win,win_g,win_bg,lose_g,lose_bg,...``,
optionally gzip-compressed) and a compact ``.npz`` with arrays ``boards`` and ``probs``.
Probabilities are always for the side on roll (gnubg's cumulative ordering).
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.game.notations import position_id

Boards = npt.NDArray[np.int8]
Probs = npt.NDArray[np.float32]

COLUMNS = ("position_id", "win", "win_g", "win_bg", "lose_g", "lose_bg")


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="ascii")
    return io.TextIOWrapper(open(path, "rb"), encoding="ascii")


def iter_csv(path: Path) -> Iterator[tuple[str, list[float], dict[str, str]]]:
    """Rows ``(position_id, [5 probabilities], all columns)`` of a labelled CSV file."""
    with _open_text(path) as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            yield row["position_id"], [float(row[c]) for c in COLUMNS[1:]], row


def read_csv(paths: Iterable[Path]) -> tuple[Boards, Probs]:
    """Boards and labels of one or more labelled CSV files, in file order."""
    boards: list[npt.NDArray[np.int8]] = []
    probs: list[list[float]] = []
    for path in paths:
        for pid, p, _ in iter_csv(Path(path)):
            boards.append(position_id.decode(pid))
            probs.append(p)
    if not boards:
        return np.zeros((0, 26), np.int8), np.zeros((0, 5), np.float32)
    return np.stack(boards).astype(np.int8), np.asarray(probs, dtype=np.float32)


def save_npz(path: Path, boards: Boards, probs: Probs) -> None:
    """Save a set as ``.npz`` (written to a temporary name, then renamed)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, boards=boards.astype(np.int8), probs=probs.astype(np.float32))
    tmp.replace(path)


def load_npz(path: Path) -> tuple[Boards, Probs]:
    """Load a set saved by :func:`save_npz`."""
    with np.load(path) as z:
        return z["boards"].astype(np.int8), z["probs"].astype(np.float32)


def gnubg2ply_parts(folder: Path) -> list[Path]:
    """The part files of the shared gnubg2ply set, in order."""
    return sorted(Path(folder).glob("part-*.csv.gz"))


def dedupe(boards: Boards, probs: Probs) -> tuple[Boards, Probs]:
    """Drop repeated boards, keeping the last label seen for each."""
    keys = np.ascontiguousarray(boards).view(np.dtype((np.void, 26))).ravel()
    _, idx = np.unique(keys[::-1], return_index=True)
    keep = np.sort(boards.shape[0] - 1 - idx)
    return boards[keep], probs[keep]
