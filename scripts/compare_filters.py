#!/usr/bin/env python3
"""Root move filters compared at n-ply: decision time, choices that change, and how gnubg-nn's
2-ply judges the changed choices.

Each setting plays ``Evaluator.best_play(ply=--ply)`` on the same distinct contact positions
(the bench_eval set, one seeded roll each); the first setting is the reference. Where another
setting picks a different play, both resulting positions are valued by gnubg-nn at 2-ply
(``probabilities(board, 2)``, the opponent to move, seen from the mover) and the difference is
reported: its mean over the changed decisions with its standard error, and per decision.
gnubg-nn's 2-ply is an independent, stronger-than-0-ply judge, not the truth: a setting is
"not worse" when the per-decision difference is not significantly below zero.

    python3 scripts/compare_filters.py --filters 8:0.16,3:0.06 --filters 8:0.16,3:0.04
    python3 scripts/compare_filters.py --n 1200 --skip 0 --seed 31 --filters ...
"""

from __future__ import annotations

import argparse
import time

import benchlib
import numpy as np
from benchlib import contact_positions, gnubg_board, load_networks, parse_filters, seeded_rolls

from gbot.eval.evaluator import Evaluator, MoveFilter
from gbot.game.position import Play


def label(filters: tuple[MoveFilter, ...]) -> str:
    return ",".join(f"{f.keep}:{f.window:g}" for f in filters)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--filters", type=parse_filters, action="append", required=True,
                    help="KEEP:WINDOW,... (repeat; the first is the reference)")
    ap.add_argument("--n", type=int, default=500, help="distinct contact positions")
    ap.add_argument("--skip", type=int, default=0, help="positions of the set skipped first")
    ap.add_argument("--seed", type=int, default=16, help="seed of the rolls")
    ap.add_argument("--ply", type=int, default=2)
    args = ap.parse_args()
    import gnubg_nn as g

    benchlib.header()
    networks, what = load_networks(14)
    evs = [Evaluator(networks=networks, filters=f) for f in args.filters]
    for e in evs:
        e.warm()
    contact, source = contact_positions(args.skip + args.n, 14)
    rolls = seeded_rolls(len(contact), args.seed)
    judged: dict[bytes, float] = {}

    def judge(play: Play) -> float:
        key = play.position.board.tobytes()
        if key not in judged:
            p = g.probabilities(gnubg_board(play.position.swapped()), 2)
            judged[key] = -benchlib.equity(p)
        return judged[key]

    seconds = [0.0] * len(evs)
    diffs: list[list[float]] = [[] for _ in evs]
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
                diffs[k].append(judge(pick) - judge(ref))
    n = args.n
    print(f"networks: {what}; {n} positions: {source}, rolls seed {args.seed}; "
          f"{args.ply}-ply; CPU time per decision")
    for k, f in enumerate(args.filters):
        line = f"  {label(f):16s} {seconds[k] / n * 1e3:7.2f} ms"
        if k == 0:
            print(line + "  (reference)")
            continue
        x = np.array(diffs[k])
        if x.size == 0:
            print(line + "  same choices everywhere")
            continue
        se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")
        print(line + f"  {x.size} choices differ; gnubg-nn 2-ply (this - reference) on those "
              f"{x.mean():+.4f} +- {se:.4f}, per decision {x.sum() / n:+.5f} "
              f"+- {se * x.size / n:.5f}; better {int((x > 0).sum())}, worse "
              f"{int((x < 0).sum())}")


if __name__ == "__main__":
    main()
