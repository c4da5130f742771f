"""Training sets for pruning networks: every reply to every roll of positions from play,
valued by the networks they are to stand in for.

A pruning network (see :mod:`gbot.eval.evaluator`, inner reply choices) ranks the plays of one
roll so that the full networks need only value the few it likes best; it learns the full
networks' own 0-ply values of exactly those plays. The set is written in the layout of
:mod:`gbot.train.label` (``positions.npz`` with a ``group`` per row, the roll it answers, and
``label-NNNNN.npz`` chunks), so ``gbot train supervised`` reads its groups for the rank term.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.core import expand as _ex
from gbot.eval.evaluator import Evaluator
from gbot.eval.net import Networks

CHUNK = 100_000
"""Rows per label file."""


def reply_rows(positions: npt.NDArray[np.int8], evaluator: Evaluator
               ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """The plays of every roll of ``positions`` (side to move about to roll) that the
    networks value (not ended games, not exact bear-offs), as boards after the play, and each
    one's group: ``21 * position + roll``. Rolls with fewer than two such plays are left out
    (nothing to rank)."""
    children, offsets, _, kinds, _ = evaluator.children(positions)
    group = np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))
    net = kinds == _ex.NET
    sizes = np.bincount(group[net], minlength=offsets.shape[0] - 1)
    keep = net & (sizes[group] >= 2)
    return children[keep], group[keep]


def build(out: Path, positions: npt.NDArray[np.int8], networks: Networks, rows: int,
          seed: int, log: Callable[[str], None] = print) -> int:
    """Write the set to ``out``: the replies of positions taken in a seeded order until about
    ``rows`` rows, with the networks' probabilities; keeps a finished set. Returns its rows."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "positions.npz"
    if path.exists():
        with np.load(path) as z:
            return int(z["boards"].shape[0])
    evaluator = Evaluator(networks=networks)
    order = np.random.default_rng(seed).permutation(positions.shape[0])
    boards: list[npt.NDArray[np.int8]] = []
    groups: list[npt.NDArray[np.int64]] = []
    total = 0
    next_group = 0
    for start in range(0, order.shape[0], 256):
        b, g = reply_rows(positions[order[start:start + 256]], evaluator)
        if b.shape[0] == 0:
            continue
        _, g = np.unique(g, return_inverse=True)
        boards.append(b)
        groups.append(g.astype(np.int64) + next_group)
        next_group += int(g.max()) + 1
        total += b.shape[0]
        if total >= rows:
            break
    all_boards = np.concatenate(boards)
    all_groups = np.concatenate(groups)
    for c in range(0, all_boards.shape[0], CHUNK):
        part = all_boards[c:c + CHUNK]
        tmp = out / f"label-{c // CHUNK:05d}.tmp.npz"
        np.savez_compressed(tmp, boards=part, probs=networks.evaluate(part))
        tmp.replace(out / f"label-{c // CHUNK:05d}.npz")
    tmp = out / "positions.tmp.npz"
    np.savez_compressed(tmp, boards=all_boards, group=all_groups)
    tmp.replace(path)
    log(f"{all_boards.shape[0]} replies in {next_group} rolls of {out}")
    return int(all_boards.shape[0])
