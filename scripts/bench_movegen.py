#!/usr/bin/env python3
"""Move-generation speed: plays generated per second over a fixed, seeded set of position/roll
pairs, beside gnubg-nn's ``moves(board, d1, d2)`` on the same pairs in the same run.

The pairs come from seeded random self-play and are drawn to a fixed mix: 40 % contact,
20 % with the mover on the bar, 20 % race (no contact, not all home) and 20 % bear-off (every
checker of the mover home). gbot is timed through ``legal_boards_batch`` (one call for all
pairs: the batch rate the search uses) and through ``legal_boards`` one pair at a time (the
Python-call rate); gnubg-nn one pair at a time, which is its only interface. Each figure is
the best of ``--repeat`` runs. Result counts are compared pair by pair.

    python3 scripts/bench_movegen.py            # 100,000 pairs, seed 2024
    python3 scripts/bench_movegen.py --pairs 20000 --repeat 1

This is the long form of ``gbot bench``'s move-generation row: the same pairs
(``benchlib.make_pairs``) and the same ``legal_boards_batch`` timing
(``benchlib.movegen_batch``), here with the bare kernel, the kinds of position, the Python-call
rate and gnubg-nn beside them.
"""

from __future__ import annotations

import argparse
import functools
import time

import benchlib
import numpy as np
import numpy.typing as npt
from benchlib import MIX, TARGETS, best_of, gnubg_nn, kind, make_pairs, movegen_batch

from gbot.core import movegen
from gbot.core.board import to_gnubg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--single", type=int, default=20_000,
                    help="pairs timed one Python call at a time (gbot)")
    args = ap.parse_args()

    benchlib.header()
    t0 = time.perf_counter()
    movegen.warm()
    print(f"warm-up (compile or load cache): {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    boards, dice = make_pairs(args.pairs, args.seed)
    kinds = [kind(b) for b in boards]
    print(f"{len(boards):,} pairs (seed {args.seed}) made in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{k} {kinds.count(k):,}" for k in MIX))

    t_api, counts = movegen_batch(boards, dice, args.repeat)
    total = int(counts.sum())
    print(f"gbot legal_boards_batch: {total:,} plays, {t_api:.3f} s, "
          f"{t_api / len(boards) * 1e6:.2f} us/pair, {total / t_api:,.0f} plays/s")

    ws = movegen.Workspace()

    def kernel(b: npt.NDArray[np.int8], d: npt.NDArray[np.int64]) -> int:
        out = np.empty((len(b) * 64 + 64, 26), dtype=np.int8)  # ample: no retry
        off = np.empty(len(b) + 1, dtype=np.int64)
        return int(movegen.generate_batch(b, d, False, out, off, ws.out, ws.steps, ws.table,
                                          ws.hashes, ws.state, ws.path, ws.marks,
                                          movegen.HASH_KEYS))

    t_batch, _ = best_of(args.repeat, lambda: kernel(boards, dice))
    per_pair = t_batch / len(boards)
    print(f"gbot batch kernel      : {total:,} plays, {t_batch:.3f} s, "
          f"{per_pair * 1e6:.2f} us/pair, {total / t_batch:,.0f} plays/s")
    for k in MIX:
        sel = np.array([x == k for x in kinds])
        bk, dk = np.ascontiguousarray(boards[sel]), np.ascontiguousarray(dice[sel])
        tk, _ = best_of(args.repeat, functools.partial(kernel, bk, dk))
        print(f"  {k:8s}: {tk / sel.sum() * 1e6:6.2f} us/pair, "
              f"{counts[sel].mean():5.1f} plays/pair")

    m = min(args.single, len(boards))

    def singles() -> None:
        for i in range(m):
            movegen.legal_boards(boards[i], int(dice[i, 0]), int(dice[i, 1]))

    t_single, _ = best_of(args.repeat, singles)
    print(f"gbot single: {t_single / m * 1e6:.2f} us/pair over {m:,} Python calls")

    g = gnubg_nn()
    if g is None:
        print("gnubg-nn not installed: no comparison")
        return
    gboards = []
    for b in boards:
        me, opp = to_gnubg(b)
        gboards.append([opp, me])
    dl = dice.tolist()

    def gnubg_all() -> list[int]:
        return [len(g.moves(gb, d[0], d[1])) for gb, d in zip(gboards, dl, strict=True)]

    t_g, gcounts = best_of(args.repeat, gnubg_all)
    g_arr = np.array(gcounts)
    g_total = int(g_arr.sum())
    g_per = t_g / len(boards)
    print(f"gnubg-nn   : {g_total:,} plays, {t_g:.3f} s, {g_per * 1e6:.2f} us/pair, "
          f"{g_total / t_g:,.0f} plays/s")
    agree = int((g_arr == counts).sum())
    print(f"result counts agree on {agree:,} of {len(boards):,} pairs")
    ratio = g_per / per_pair
    print(f"ratio (gbot batch kernel / gnubg-nn)   : {ratio:.2f}x  "
          f"({TARGETS['movegen_kernel'].verdict(ratio)})")
    print(f"ratio (gbot legal_boards_batch / gnubg): {g_per / (t_api / len(boards)):.2f}x")
    print(f"ratio (gbot single-call / gnubg-nn)    : {g_per / (t_single / m):.2f}x")


if __name__ == "__main__":
    main()
