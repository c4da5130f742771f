#!/usr/bin/env python3
"""Root move filters compared at n-ply: decision time, choices that change, and how judges value
the changed choices.

Each setting plays ``Evaluator.best_play(ply=--ply)`` on the same distinct contact positions
(the bench_eval set, one seeded roll each); the first setting is the reference. Where another
setting picks a different play, both results are valued by each ``--judge`` and the difference
(this setting's pick minus the reference's, the mover's cubeless equity) is reported: its mean
over the changed decisions with its standard error, and per decision. The judges
(``NAME:PLIES``, default ``gnubg-nn:2``):

* ``gnubg-nn:N``: gnubg-nn at N plies (a stronger-than-0-ply judge of gnubg's family);
* ``bgsage:N``: bgsage at its own depth N (3 = gnubg's 2-ply), a network family of its own;
* ``gbot:N``: gbot's own networks at N plies;
* ``rollout:N``: both results rolled out by gbot on the same dice (``--trials`` games each,
  checker play at N plies, variance reduction), so the standard error includes the
  rollouts' noise; ``--cache`` keeps the rolled-out pairs, so a rerun resumes.

No judge is the truth: a setting is "not worse" when its per-decision difference is not
significantly below zero by the judges.

    python3 scripts/compare_filters.py --filters 8:0.16,3:0.06 --filters 8:0.16,3:0.04
    python3 scripts/compare_filters.py --n 1200 --skip 0 --seed 31 --filters ... \
        --judge gnubg-nn:2 --judge bgsage:3 --judge rollout:0 --trials 144
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import benchlib
import numpy as np
import numpy.typing as npt
from benchlib import (
    JUDGES,
    contact_positions,
    judge_boards,
    load_networks,
    mover_equity,
    parse_filters,
    rollout_pairs,
    seeded_rolls,
)

from gbot.eval.evaluator import Evaluator, MoveFilter
from gbot.game.position import Play


def label(filters: tuple[MoveFilter, ...]) -> str:
    return ",".join(f"{f.keep}:{f.window:g}" for f in filters)


def parse_judge(text: str) -> tuple[str, int]:
    """``NAME:PLIES`` as ``(name, plies)``, the name one of :data:`benchlib.JUDGES`."""
    name, _, plies = text.partition(":")
    if name not in JUDGES or not plies.isdigit():
        raise argparse.ArgumentTypeError(
            f"a judge is NAME:PLIES with NAME one of {', '.join(JUDGES)}: {text!r}")
    return name, int(plies)


def judged_differences(refs: npt.NDArray[np.int8], picks: npt.NDArray[np.int8], judge: str,
                       plies: int, args: argparse.Namespace,
                       memo: dict[bytes, float] | None = None) -> npt.NDArray[np.float64]:
    """Per changed decision, the judge's equity of ``picks[i]`` minus that of ``refs[i]``
    (results, the opponent on roll). A board judge values each distinct board once: those
    already in ``memo`` (this judge's equities by board, from earlier calls) not at all, and
    the new ones are added to it."""
    if refs.shape[0] == 0:
        return np.zeros(0)
    if judge == "rollout":
        diff, _ = rollout_pairs(refs, picks, args.trials, plies, args.seed, args.workers,
                                args.cache, log=lambda m: None)
        return diff
    known = {} if memo is None else memo
    boards = np.concatenate([refs, picks])
    todo = {b.tobytes(): b for b in boards if b.tobytes() not in known}
    if todo:
        eq = mover_equity(judge_boards(np.stack(list(todo.values())), judge, plies,
                                       args.workers, log=lambda m: None))
        known.update(zip(todo, eq.tolist(), strict=True))
    return np.array([known[p.tobytes()] - known[r.tobytes()]
                     for r, p in zip(refs, picks, strict=True)], dtype=np.float64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--filters", type=parse_filters, action="append", required=True,
                    help="KEEP:WINDOW,... (repeat; the first is the reference)")
    ap.add_argument("--n", type=int, default=500, help="distinct contact positions")
    ap.add_argument("--skip", type=int, default=0, help="positions of the set skipped first")
    ap.add_argument("--seed", type=int, default=16, help="seed of the rolls")
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--judge", type=parse_judge, action="append",
                    help="NAME:PLIES (repeat; default gnubg-nn:2)")
    ap.add_argument("--trials", type=int, default=144, help="games a result, rollout judge")
    ap.add_argument("--cache", type=Path, default=None, help="rollout judge's pairs (JSON lines)")
    ap.add_argument("--workers", type=int, default=2, help="processes of the judges")
    args = ap.parse_args()
    judges = args.judge or [("gnubg-nn", 2)]
    memos: dict[tuple[str, int], dict[bytes, float]] = {j: {} for j in judges}

    benchlib.header()
    networks, what = load_networks(14)
    evs = [Evaluator(networks=networks, filters=f) for f in args.filters]
    for e in evs:
        e.warm()
    contact, source = contact_positions(args.skip + args.n, 14)
    rolls = seeded_rolls(len(contact), args.seed)
    seconds = [0.0] * len(evs)
    changed: list[list[tuple[Play, Play]]] = [[] for _ in evs]
    for i in range(args.skip, args.skip + args.n):
        pos, dice = contact[i], rolls[i]
        picks = []
        for k, e in enumerate(evs):
            t = time.thread_time()
            picks.append(e.best_play(pos, dice, args.ply))
            seconds[k] += time.thread_time() - t
        ref = picks[0]
        for k, pick in enumerate(picks[1:], start=1):
            if ref is not None and pick is not None and pick.position != ref.position:
                changed[k].append((ref, pick))
    n = args.n
    print(f"networks: {what}; {n} positions: {source}, rolls seed {args.seed}; "
          f"{args.ply}-ply; CPU time per decision; judged: the changed choice minus the "
          f"reference's, mover's cubeless equity")
    for k, f in enumerate(args.filters):
        line = f"  {label(f):16s} {seconds[k] / n * 1e3:7.2f} ms"
        if k == 0:
            print(line + "  (reference)")
            continue
        if not changed[k]:
            print(line + "  same choices everywhere")
            continue
        print(line + f"  {len(changed[k])} choices differ")
        refs = np.stack([r.position.swapped().board for r, _ in changed[k]])
        chosen = np.stack([p.position.swapped().board for _, p in changed[k]])
        for name, plies in judges:
            x = judged_differences(refs, chosen, name, plies, args, memos[name, plies])
            se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")
            print(f"      {name}:{plies:<3d} on those {x.mean():+.4f} +- {se:.4f}, per decision "
                  f"{x.sum() / n:+.5f} +- {se * x.size / n:.5f}; better "
                  f"{int((x > 0).sum())}, worse {int((x < 0).sum())}")


if __name__ == "__main__":
    main()
