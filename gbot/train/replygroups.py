"""Rank groups of replied positions: what trains a network's odd plies (training time only).

The candidates of one decision differ in the checkers of the side that has just moved, and the
rank term of ``gbot train supervised`` teaches a network to tell such siblings apart. A 1-ply
value averages, over the opponent's 21 rolls, the network's value of the position after the
opponent's reply: there the candidates' differences sit in the checkers of the side *to move*,
a comparison the candidates' groups never ask for. This stage builds groups that do:

* close decisions are drawn from self-play folders
  (:func:`gbot.train.teacher.close_candidate_groups`: the played result and the candidates
  within ``margin`` of the turn's best, of one class), ``decisions`` of those with two or more
  candidates, in a seeded order;
* for each candidate and each roll, the reply the opponent picks
  (:meth:`gbot.eval.evaluator.Evaluator.best_replies`, pruned as the searches prune), seen by
  the root mover, now on roll;
* the replies of one roll to the candidates of one decision form a group
  (``21 * decision + roll``); replies of another class and groups of fewer than two are left
  out.

Two labelled folders come out (the layout of :mod:`gbot.train.label`): ``replies/``, labelled
by a teacher (:func:`gbot.train.teacher.run`: resumable, on a backend), and ``cands/``, the
candidates themselves grouped by decision and labelled by gbot's own networks at 0-ply, an
anchor that keeps the 0-ply ranking they had.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.core.classify import NAMES, classify_many
from gbot.core.expand import N_ROLLS
from gbot.eval.evaluator import Evaluator
from gbot.train.label import prepare
from gbot.train.teacher import close_candidate_groups

REPLIES = "replies"
CANDIDATES = "cands"
BATCH = 2000
"""Candidates answered per call of ``best_replies``."""


def choose_decisions(folders: list[Path], margin: float, decisions: int, seed: int,
                     only_class: str = "contact"
                     ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """The candidates (opponent on roll) of ``decisions`` close decisions with two or more
    candidates of ``only_class``, drawn in a seeded order, and each one's decision, numbered
    from 0 in the order drawn."""
    boards, _, groups = close_candidate_groups(folders, margin, only_class=only_class)
    sizes = np.bincount(groups) if groups.size else np.zeros(0, dtype=np.int64)
    multi = np.flatnonzero(sizes >= 2)
    rng = np.random.default_rng(seed)
    chosen = rng.permutation(multi)[:decisions]
    number = np.full(sizes.shape[0], -1, dtype=np.int64)
    number[chosen] = np.arange(chosen.shape[0])
    keep = number[groups] >= 0
    order = np.argsort(number[groups[keep]], kind="stable")
    return boards[keep][order], number[groups[keep]][order]


def reply_groups(candidates: npt.NDArray[np.int8], decisions: npt.NDArray[np.int64],
                 evaluator: Evaluator, only_class: str = "contact",
                 log: Callable[[str], None] = print
                 ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """Each candidate's picked reply to each roll (root mover on roll) and its group
    ``21 * decision + roll``, sorted by group; replies not of ``only_class`` (``"any"`` keeps
    all) and groups of fewer than two distinct boards are left out."""
    parts = []
    for start in range(0, candidates.shape[0], BATCH):
        replies, _ = evaluator.best_replies(candidates[start:start + BATCH])
        parts.append(replies)
        log(f"replies to {min(start + BATCH, candidates.shape[0])} of "
            f"{candidates.shape[0]} candidates")
    boards = np.concatenate(parts) if parts else np.zeros((0, 26), dtype=np.int8)
    groups = (np.repeat(decisions, N_ROLLS) * N_ROLLS
              + np.tile(np.arange(N_ROLLS), candidates.shape[0])).astype(np.int64)
    if only_class != "any" and boards.shape[0]:
        keep = classify_many(boards) == NAMES.index(only_class)
        boards, groups = boards[keep], groups[keep]
    # a group ranks only where it holds two different boards
    keys = np.ascontiguousarray(boards).view(np.dtype((np.void, 26))).ravel()
    pairs = np.unique(np.stack([groups, np.unique(keys, return_inverse=True)[1].ravel()]),
                      axis=1)
    distinct = np.bincount(pairs[0]) if pairs.size else np.zeros(0, dtype=np.int64)
    keep = distinct[groups] >= 2 if groups.size else np.zeros(0, dtype=np.bool_)
    order = np.argsort(groups[keep], kind="stable")
    return boards[keep][order], groups[keep][order]


def build(out: Path, folders: list[Path], margin: float, decisions: int, seed: int,
          evaluator: Evaluator, only_class: str = "contact",
          log: Callable[[str], None] = print) -> tuple[int, int]:
    """Choose the decisions and write ``out/replies/positions.npz`` and
    ``out/cands/positions.npz`` with their groups (a finished choice is kept). Returns the
    rows of each ``(replies, candidates)``."""
    replies_dir, cands_dir = out / REPLIES, out / CANDIDATES
    done = [d / "positions.npz" for d in (replies_dir, cands_dir)]
    if all(p.exists() for p in done):
        counts = []
        for p in done:
            with np.load(p) as z:
                counts.append(int(z["boards"].shape[0]))
        return counts[0], counts[1]
    cands, dec = choose_decisions(folders, margin, decisions, seed, only_class)
    if cands.shape[0] == 0:
        raise ValueError(f"no close {only_class} decisions with two or more candidates in "
                         f"{', '.join(map(str, folders))}")
    n_dec = int(dec.max()) + 1
    log(f"{n_dec} decisions, {cands.shape[0]} candidates (margin {margin})")
    boards, groups = reply_groups(cands, dec, evaluator, only_class, log)
    n_rep = prepare(replies_dir, boards, boards.shape[0], seed, groups)
    n_cand = prepare(cands_dir, cands, cands.shape[0], seed, dec)
    log(f"{n_rep} replies in {np.unique(groups).shape[0]} groups; {n_cand} candidates")
    return n_rep, n_cand
