#!/usr/bin/env python3
"""Evaluator speed, one core, beside gnubg-nn on the same positions in the same run.

* Batched evaluation: positions per second through ``Networks.evaluate`` (one call over every
  candidate result of the test positions) and through ``Evaluator.evaluate`` (which also sorts
  out ended games and bear-offs); gnubg-nn's ``probabilities(board, 0)`` one call per board.
* Best-play latency: ``Evaluator.best_play`` at 0, 1 and 2 ply against gnubg-nn's
  ``best_move(board, d1, d2, plies)`` on the same contact positions and rolls, one pass each
  (gnubg-nn keeps an evaluation cache, so passes are not repeated; each ply has positions of
  its own), the two engines taking turns decision by decision so that both see the same
  machine load, with how often both pick the same play.

Positions: contact positions from the shared gnubg2ply set (``../shared/data/gnubg2ply``),
sampled with ``--seed``, each with a seeded roll; without that data, contact positions from
seeded random self-play. The shipped weights are used when present; otherwise a random
stand-in with the default architecture (hidden 128, sigmoid), which is said in the output:
its speed is representative, its choices (and the agreement figures) are not.

    python3 scripts/bench_eval.py                 # 1000 / 200 / 40 positions at 0 / 1 / 2 ply
    python3 scripts/bench_eval.py --n0 300 --n1 50 --n2 10

The long form of ``gbot bench``'s batch-evaluation row (the same ``benchlib.evaluation_batch``
and ``benchlib.evaluation_rate``); each figure is printed beside its target
(``benchlib.TARGETS``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import benchlib
import numpy as np
from benchlib import (
    TARGETS,
    contact_positions,
    evaluation_batch,
    evaluation_rate,
    gnubg_board,
    gnubg_nn,
    interleaved,
    load_networks,
    networks_summary,
    seeded_rolls,
    timed,
)

from gbot.eval.evaluator import Evaluator
from gbot.game.position import Position


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n0", type=int, default=1000, help="positions for 0-ply best play")
    ap.add_argument("--n1", type=int, default=200, help="positions for 1-ply best play")
    ap.add_argument("--n2", type=int, default=40, help="positions for 2-ply best play")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--batch", type=int, default=1000,
                    help="positions whose candidate results make the evaluation batch")
    ap.add_argument("--repeat", type=int, default=3, help="best of, for batch timings")
    args = ap.parse_args()

    benchlib.header()
    networks, what = load_networks(args.seed)
    ev = Evaluator(networks=networks)
    t_warm, _ = timed(ev.warm)
    print(f"networks: {what}; {networks_summary(networks)}")
    print(f"warm-up (weights, bear-off tables, kernels from cache or compiled): {t_warm:.2f} s")
    n_lat = args.n0 + args.n1 + args.n2  # disjoint sets, so no run warms gnubg-nn's cache
    n_all = n_lat + 20 + args.batch
    positions, source = contact_positions(n_all, args.seed)
    rolls = seeded_rolls(len(positions), args.seed + 1)
    print(f"positions: {len(positions)} {source}, one seeded roll each")
    g = gnubg_nn()
    if g is None:
        print("gnubg-nn not installed: gbot figures only")

    # --- best-play latency ------------------------------------------------------------------
    print("\nbest-play latency (one pass over positions of its own, gbot and gnubg-nn "
          "interleaved, mean per decision):")
    warm_pos = positions[n_lat:n_lat + 20]
    start = 0
    for ply, n in ((0, args.n0), (1, args.n1), (2, args.n2)):
        if n <= 0:
            continue
        pairs = list(zip(positions[start:start + n], rolls[start:start + n], strict=True))
        start += n
        for p, d in zip(warm_pos[:3], rolls[n_lat:n_lat + 3], strict=True):
            ev.best_play(p, d, ply)
        if g is not None:
            for p, d in zip(warm_pos[:3], rolls[n_lat:n_lat + 3], strict=True):
                g.best_move(gnubg_board(p), d[0], d[1], ply)

        def ours(a: tuple[Position, tuple[int, int]], ply: int = ply) -> object:
            return ev.best_play(a[0], a[1], ply)

        def theirs(b: tuple[list[list[int]], tuple[int, int]], ply: int = ply) -> object:
            return g.best_move(b[0], b[1][0], b[1][1], ply, b=1)

        # interleaved, one decision each in turn, so both see the same machine load
        timing = interleaved([(a, (gnubg_board(a[0]), a[1])) for a in pairs], ours,
                             theirs if g is not None else None, keep=True)
        line = f"  {ply}-ply, {n:4d} positions: gbot {timing.ours * 1e3:8.3f} ms"
        if ply == 2:
            line += f" ({TARGETS['best2_ms'].verdict(timing.ours * 1e3)})"
        if timing.theirs is not None:
            same = _agreement(timing.ours_out, timing.theirs_out)
            speedup = timing.theirs / timing.ours
            target = TARGETS.get(f"best{ply}")
            goal = f" ({target.verdict(speedup)})" if target is not None else ""
            line += (f", gnubg-nn {timing.theirs * 1e3:8.3f} ms -> {speedup:5.2f}x{goal}; "
                     f"same play {same}/{n}")
        print(line)

    # --- batched evaluation -----------------------------------------------------------------
    # positions of their own: gnubg-nn's cache must not have seen them
    batch = evaluation_batch(positions[n_lat + 20:], rolls[n_lat + 20:])
    rate_net = evaluation_rate(networks.evaluate, batch, args.repeat)
    rate_ev = evaluation_rate(ev.evaluate, batch, args.repeat)
    print(f"\nbatched evaluation of {len(batch):,} candidate results (opponent to move):")
    print(f"  gbot Networks.evaluate : {rate_net:12,.0f} positions/s "
          f"({1e6 / rate_net:.2f} us each; {TARGETS['batch_eval'].verdict(rate_net)})")
    print(f"  gbot Evaluator.evaluate: {rate_ev:12,.0f} positions/s")
    if g is not None:
        sub = [gnubg_board(Position.from_owned_array(np.array(b, dtype=np.int8)))
               for b in batch[:20_000]]
        t_g, _ = timed(lambda: [g.probabilities(b, 0) for b in sub])
        print(f"  gnubg-nn probabilities : {len(sub) / t_g:12,.0f} positions/s "
              f"({t_g / len(sub) * 1e6:.2f} us each, one call per board) -> gbot "
              f"{(t_g / len(sub)) * rate_net:.1f}x")


def _agreement(ours: Sequence[Any], theirs: Sequence[Any]) -> int:
    """How many decisions pick the same resulting position."""
    g = gnubg_nn()
    same = 0
    for play, reply in zip(ours, theirs, strict=True):
        steps, key = reply[0], reply[1]
        if play is None:
            same += not steps
            continue
        board = g.boardfromkey(key)
        same += Position.from_gnubg(board[1], board[0]) == play.position.swapped()
    return same


if __name__ == "__main__":
    main()
