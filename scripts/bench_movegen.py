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
"""

from __future__ import annotations

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gbot.core import movegen  # noqa: E402
from gbot.core.board import START, flip_py, to_gnubg  # noqa: E402

MIX = {"contact": 0.4, "bar": 0.2, "race": 0.2, "bearoff": 0.2}


def kind(b: npt.NDArray[np.int8]) -> str:
    """The bucket of a board for the mix (mover's view)."""
    if b[25] > 0:
        return "bar"
    mine = np.nonzero(b[1:25] > 0)[0]
    theirs = np.nonzero(b[1:25] < 0)[0]
    back = mine.max() + 1 if mine.size else 0
    opp_back = theirs.min() + 1 if theirs.size else 25
    if b[0] < 0:
        opp_back = 0
    if back > opp_back:
        return "contact"
    return "bearoff" if back <= 6 else "race"


def make_pairs(n: int, seed: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """``n`` boards and rolls from seeded random self-play, in the :data:`MIX` proportions."""
    rng = np.random.default_rng(seed)
    quota = {k: int(round(share * n)) for k, share in MIX.items()}
    quota["contact"] += n - sum(quota.values())
    got: dict[str, list[npt.NDArray[np.int8]]] = {k: [] for k in MIX}
    while any(len(got[k]) < quota[k] for k in MIX):
        b = START.copy()
        while True:
            k = kind(b)
            if len(got[k]) < quota[k] and rng.random() < 0.5:
                got[k].append(b.copy())
            d = rng.integers(1, 7, size=2)
            results = movegen.legal_boards(b, int(d[0]), int(d[1]))
            if len(results):
                b = results[rng.integers(len(results))]
            if (b[1:26] > 0).sum() == 0:
                break
            b = flip_py(b)
    boards = np.concatenate([np.array(got[k]) for k in MIX])
    order = rng.permutation(len(boards))
    dice = rng.integers(1, 7, size=(n, 2)).astype(np.int64)
    return np.ascontiguousarray(boards[order]), dice


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    best = float("inf")
    out: object = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--single", type=int, default=20_000,
                    help="pairs timed one Python call at a time (gbot)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    movegen.warm()
    print(f"warm-up (compile or load cache): {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    boards, dice = make_pairs(args.pairs, args.seed)
    kinds = [kind(b) for b in boards]
    print(f"{len(boards):,} pairs (seed {args.seed}) made in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{k} {kinds.count(k):,}" for k in MIX))

    t_api, res = best_of(args.repeat, lambda: movegen.legal_boards_batch(boards, dice))
    assert isinstance(res, tuple)
    offsets: npt.NDArray[np.int64] = res[1]
    counts = np.diff(offsets)
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

    try:
        import gnubg_nn
    except ImportError:
        print("gnubg-nn not installed: no comparison")
        return
    gboards = []
    for b in boards:
        me, opp = to_gnubg(b)
        gboards.append([opp, me])
    dl = dice.tolist()

    def gnubg_all() -> list[int]:
        return [len(gnubg_nn.moves(gb, d[0], d[1])) for gb, d in zip(gboards, dl, strict=True)]

    t_g, gcounts = best_of(args.repeat, gnubg_all)
    g_arr = np.array(gcounts)
    g_total = int(g_arr.sum())
    g_per = t_g / len(boards)
    print(f"gnubg-nn   : {g_total:,} plays, {t_g:.3f} s, {g_per * 1e6:.2f} us/pair, "
          f"{g_total / t_g:,.0f} plays/s")
    agree = int((g_arr == counts).sum())
    print(f"result counts agree on {agree:,} of {len(boards):,} pairs")
    print(f"ratio (gbot batch kernel / gnubg-nn)   : {g_per / per_pair:.2f}x  (target >= 5x)")
    print(f"ratio (gbot legal_boards_batch / gnubg): {g_per / (t_api / len(boards)):.2f}x")
    print(f"ratio (gbot single-call / gnubg-nn)    : {g_per / (t_single / m):.2f}x")


if __name__ == "__main__":
    main()
