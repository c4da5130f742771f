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
"""

from __future__ import annotations

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import gzip  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gbot.core import movegen  # noqa: E402
from gbot.core.board import START, flip_py  # noqa: E402
from gbot.core.classify import CONTACT, classify  # noqa: E402
from gbot.eval.evaluator import Evaluator  # noqa: E402
from gbot.game.position import Position  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "gnubg2ply"

TARGETS = {"batch": 1_000_000, 0: 4.0, 2: 3.0}


def load_networks(seed: int) -> tuple[Any, str]:
    """The shipped networks, or a seeded random stand-in of the default architecture."""
    from gbot.errors import WeightsError
    from gbot.eval import net

    try:
        return net.Networks.default(), "shipped weights"
    except (OSError, WeightsError) as exc:
        from gbot.core.encode import N_INPUTS

        rng = np.random.default_rng(seed)
        hidden = 128

        def params() -> dict[str, npt.NDArray[np.float32]]:
            return {"w1": rng.normal(0, 0.1, (N_INPUTS, hidden)).astype(np.float32),
                    "b1": rng.normal(0, 0.1, hidden).astype(np.float32),
                    "w2": rng.normal(0, 0.3, (hidden, 5)).astype(np.float32),
                    "b2": np.zeros(5, dtype=np.float32)}

        nets = net.Networks({name: params() for name in net.NET_NAMES})
        return nets, f"RANDOM STAND-IN (hidden {hidden}; shipped weights unavailable: {exc})"


def contact_positions(n: int, seed: int) -> tuple[list[Position], str]:
    """``n`` distinct contact positions (side on roll), seeded."""
    rng = np.random.default_rng(seed)
    if DATA.exists():
        ids: list[str] = []
        for part in sorted(DATA.glob("part-*.csv.gz"))[:4]:
            with gzip.open(part, "rt") as fh:
                next(fh)
                ids.extend(line.split(",", 1)[0] for line in fh if ",contact," in line)
        pick = rng.choice(len(ids), size=min(n, len(ids)), replace=False)
        return [Position.from_id(ids[i]) for i in pick], f"gnubg2ply contact (seed {seed})"
    out: list[Position] = []
    seen: set[bytes] = set()
    while len(out) < n:
        b = START.copy()
        for _ in range(int(rng.integers(4, 40))):
            d = rng.integers(1, 7, size=2)
            res = movegen.legal_boards(b, int(d[0]), int(d[1]))
            if len(res):
                b = res[rng.integers(len(res))]
            b = flip_py(b)
        if classify(b) == CONTACT and b.tobytes() not in seen:
            seen.add(b.tobytes())
            out.append(Position(b))
    return out, f"random self-play contact (seed {seed})"


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    return min(timed(fn)[0] for _ in range(repeat))


def gnubg_board(pos: Position) -> list[list[int]]:
    me, opp = pos.to_gnubg()
    return [opp, me]


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

    networks, what = load_networks(args.seed)
    ev = Evaluator(networks=networks)
    t_warm, _ = timed(ev.warm)
    print(f"networks: {what}")
    print(f"warm-up (weights, bear-off tables, kernels from cache or compiled): {t_warm:.2f} s")
    n_lat = args.n0 + args.n1 + args.n2  # disjoint sets, so no run warms gnubg-nn's cache
    n_all = n_lat + 20 + args.batch
    positions, source = contact_positions(n_all, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    rolls = [(int(a), int(b)) for a, b in rng.integers(1, 7, size=(len(positions), 2))]
    print(f"positions: {len(positions)} {source}, one seeded roll each")
    try:
        import gnubg_nn as g
    except ImportError:
        g = None
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
        gb = [gnubg_board(p) for p, _ in pairs]
        if g is not None:
            for p, d in zip(warm_pos[:3], rolls[n_lat:n_lat + 3], strict=True):
                g.best_move(gnubg_board(p), d[0], d[1], ply)
        # interleaved, one decision each in turn, so both see the same machine load
        t_ours = t_g = 0.0
        ours: list[Any] = []
        theirs: list[Any] = []
        for (p, d), b in zip(pairs, gb, strict=True):
            t0 = time.perf_counter()
            ours.append(ev.best_play(p, d, ply))
            t1 = time.perf_counter()
            t_ours += t1 - t0
            if g is not None:
                theirs.append(g.best_move(b, d[0], d[1], ply, b=1))
                t_g += time.perf_counter() - t1
        line = f"  {ply}-ply, {n:4d} positions: gbot {t_ours / n * 1e3:8.3f} ms"
        if g is not None:
            same = _agreement(ours, theirs)
            speedup = t_g / t_ours
            target = TARGETS.get(ply)
            goal = f" (target >= {target}x)" if isinstance(target, float) else ""
            line += (f", gnubg-nn {t_g / n * 1e3:8.3f} ms -> {speedup:5.2f}x{goal}; "
                     f"same play {same}/{n}")
        print(line)

    # --- batched evaluation -----------------------------------------------------------------
    # positions of their own: gnubg-nn's cache must not have seen them
    boards_in = np.array([p.board for p in positions[n_lat + 20:]])
    dice_in = np.array(rolls[n_lat + 20:], dtype=np.int64)
    results, _ = movegen.legal_boards_batch(boards_in, dice_in)
    batch = np.ascontiguousarray(np.array([flip_py(b) for b in results]))
    networks.evaluate(batch[:64])
    t_net = best_of(args.repeat, lambda: networks.evaluate(batch))
    t_ev = best_of(args.repeat, lambda: ev.evaluate(batch))
    print(f"\nbatched evaluation of {len(batch):,} candidate results (opponent to move):")
    print(f"  gbot Networks.evaluate : {len(batch) / t_net:12,.0f} positions/s "
          f"({t_net / len(batch) * 1e6:.2f} us each; target >= {TARGETS['batch']:,})")
    print(f"  gbot Evaluator.evaluate: {len(batch) / t_ev:12,.0f} positions/s")
    if g is not None:
        sub = [gnubg_board(Position.from_owned_array(np.array(b, dtype=np.int8)))
               for b in batch[:20_000]]
        t_g, _ = timed(lambda: [g.probabilities(b, 0) for b in sub])
        print(f"  gnubg-nn probabilities : {len(sub) / t_g:12,.0f} positions/s "
              f"({t_g / len(sub) * 1e6:.2f} us each, one call per board) -> gbot "
              f"{(t_g / len(sub)) / (t_net / len(batch)):.1f}x")


def _agreement(ours: Sequence[Any], theirs: Sequence[Any]) -> int:
    """How many decisions pick the same resulting position."""
    import gnubg_nn as g

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
