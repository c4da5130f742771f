#!/usr/bin/env python3
"""What pruning the inner reply choices costs and saves: pick agreement, decisions, time.

Pruning (see :mod:`gbot.eval.evaluator`): inside a 1- or 2-ply search, a small network ranks
the plays of each reply roll and the full networks value only the ``--keep`` it likes best.
On ``--n`` distinct contact positions of the shared gnubg2ply set (not the positions the
pruning networks learnt from), this prints:

* **reply picks**: over every roll of every position, how often the pruned pick is the full
  networks' own 0-ply pick, and the mean and largest 0-ply equity given up when it is not;
* **decisions** at ``--ply`` (one seeded roll per position): CPU time per decision unpruned
  and pruned (interleaved, each position timed once per side), how often the same play is
  chosen, and for the others the equity lost by the pruned choice as the unpruned search
  values both (the search's own judgement of the cost), with its standard error;
* **cube decisions** (``--cube-ply``, money with the cube centred and 7-point 0-0, on the
  same positions before the roll): CPU time per decision unpruned and pruned, how often the
  pruned look-ahead doubles and takes as the unpruned one does, and the equity lost where it
  does not, as the unpruned look-ahead values the two actions.

    python3 scripts/bench_prune.py                         # shipped pruner, keep 4, 2-ply
    python3 scripts/bench_prune.py --prune runs/prune.npz --keep 3 --n 300
    python3 scripts/bench_prune.py --window 1e9             # keep 4 whatever their values
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import benchlib
import numpy as np
from benchlib import clock, contact_positions, seeded_rolls

from gbot.core import expand as _ex
from gbot.cube.decision import CubeDecision, cube_decision
from gbot.eval.evaluator import PRUNE_KEEP, PRUNE_WINDOW, Evaluator, equities
from gbot.eval.net import Networks
from gbot.game.match import MatchState
from gbot.game.position import Position


def reply_agreement(full: Networks, prune: Networks, positions: np.ndarray, keep: int,
                    window: float) -> dict[str, float]:
    """Pick agreement of ``prune`` (top ``keep`` within ``window``, then ``full``: the search's
    own kernels) with ``full`` over every roll of ``positions`` whose plays the networks value
    (two or more), the equity lost where they differ, and the replies a roll ``full`` values."""
    ev = Evaluator(networks=full, prune=False)
    children, offsets, _, kinds, _ = ev.children(positions)
    groups = offsets.shape[0] - 1
    row_group = np.repeat(np.arange(groups), np.diff(offsets))
    exact = np.bincount(row_group[kinds != _ex.NET], minlength=groups)
    counted = (exact == 0) & (np.diff(offsets) >= 2)
    p_full = full.evaluate(children).astype(np.float64)
    p_prune = prune.evaluate(children).astype(np.float64)
    selected = np.empty(children.shape[0], dtype=np.bool_)
    _ex.prune_select(p_prune, offsets, keep, window, selected)
    n_full = int(np.count_nonzero(selected & (kinds == _ex.NET)))
    pick = np.empty(groups, dtype=np.int64)
    best = np.empty(groups, dtype=np.int64)
    _ex.pick_best_of(p_full, offsets, selected, pick)
    _ex.pick_best(p_full, offsets, best)
    # the children are seen by the opponent: the mover loses what the opponent gains
    eq = equities(p_full)
    loss = (eq[pick] - eq[best])[counted]
    total = max(int(counted.sum()), 1)
    lost = loss[loss != 0.0]
    return {"rolls": int(counted.sum()), "same_pick": float((loss == 0.0).sum()) / total,
            "mean_loss_per_roll": float(lost.sum()) / total,
            "largest_loss": float(lost.max(initial=0.0)),
            "full_per_roll": n_full / max(groups, 1)}


def _losses(loss: np.ndarray) -> dict[str, float]:
    """Mean equity lost a decision (zeros included), its standard error and the largest."""
    n = loss.shape[0]
    return {"mean_loss_per_decision": float(loss.mean()),
            "se_loss_per_decision": float(loss.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
            "largest_loss": float(loss.max(initial=0.0))}


def decisions(full: Networks, prune: Networks, positions: list[Position], ply: int, keep: int,
              window: float, seed: int) -> dict[str, float]:
    """Time and agreement of ``ply``-ply best plays, unpruned and pruned."""
    plain = Evaluator(networks=full, prune=False)
    pruned = Evaluator(networks=full, prune=prune, prune_keep=keep, prune_window=window)
    rolls = seeded_rolls(len(positions), seed)
    pos0, d0 = positions[0], rolls[0]
    plain.best_play(pos0, d0, ply)
    pruned.best_play(pos0, d0, ply)
    tick = clock("cpu")
    t_plain: list[float] = []
    t_pruned: list[float] = []
    same = 0
    lost: list[float] = []
    for i, (pos, dice) in enumerate(zip(positions, rolls, strict=True)):
        order = (plain, pruned) if i % 2 == 0 else (pruned, plain)
        got = {}
        for ev in order:
            t = tick()
            got[id(ev)] = ev.best_play(pos, dice, ply)
            (t_plain if ev is plain else t_pruned).append(tick() - t)
        a, b = got[id(plain)], got[id(pruned)]
        if a is None or b is None or a.position == b.position:
            same += 1
            lost.append(0.0)
            continue
        ea = plain.equity(a.position.swapped(), ply)
        eb = plain.equity(b.position.swapped(), ply)
        lost.append(float(eb - ea))   # the opponent's equity: the mover loses eb - ea
    n = len(positions)
    loss = np.asarray(lost)
    return {"decisions": n, "unpruned_ms": 1e3 * float(np.mean(t_plain)),
            "pruned_ms": 1e3 * float(np.mean(t_pruned)),
            "unpruned_p99_ms": 1e3 * float(np.percentile(t_plain, 99)),
            "pruned_p99_ms": 1e3 * float(np.percentile(t_pruned, 99)),
            "speedup": float(np.mean(t_plain) / np.mean(t_pruned)),
            "same_play": same / n, **_losses(loss)}


CUBE_STATES = {"money": MatchState(), "7-point 0-0": MatchState(match_length=7)}
"""The cube situations :func:`cube_decisions` asks each position in."""


def _cube_loss(plain: CubeDecision, pruned: CubeDecision) -> tuple[float, float]:
    """Equity the pruned decision gives up, as ``plain``'s look-ahead values the actions:
    (doubler's, taker's), in cube-normalised equity."""
    nd, dt, dp = plain.equities
    double_lost = 0.0
    if pruned.doubles != plain.doubles:
        double_lost = abs(min(dt, dp) - nd)
    take_lost = abs(dt - dp) if pruned.takes != plain.takes else 0.0
    return double_lost, take_lost


def cube_decisions(full: Networks, prune: Networks, positions: list[Position], ply: int,
                   keep: int, window: float) -> dict[str, float]:
    """Agreement of the pruned ``ply`` cube look-ahead with the unpruned one, in
    :data:`CUBE_STATES`."""
    plain = Evaluator(networks=full, prune=False)
    pruned = Evaluator(networks=full, prune=prune, prune_keep=keep, prune_window=window)
    cube_decision(positions[0], MatchState(), ply, evaluator=plain)
    cube_decision(positions[0], MatchState(), ply, evaluator=pruned)
    tick = clock("cpu")
    times: dict[int, list[float]] = {id(plain): [], id(pruned): []}
    losses: list[tuple[float, float]] = []
    for i, pos in enumerate(positions):
        for state in CUBE_STATES.values():
            got = {}
            for ev in ((plain, pruned) if i % 2 == 0 else (pruned, plain)):
                t = tick()
                got[id(ev)] = cube_decision(pos, state, ply, evaluator=ev)
                times[id(ev)].append(tick() - t)
            losses.append(_cube_loss(got[id(plain)], got[id(pruned)]))
    arr = np.asarray(losses).reshape(-1, 2)
    n = arr.shape[0]
    t_plain, t_pruned = np.mean(times[id(plain)]), np.mean(times[id(pruned)])
    return {"decisions": n, "unpruned_ms": 1e3 * float(t_plain),
            "pruned_ms": 1e3 * float(t_pruned), "speedup": float(t_plain / t_pruned),
            "same_double": float((arr[:, 0] == 0).mean()),
            "same_take": float((arr[:, 1] == 0).mean()), **_losses(arr.sum(axis=1))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="distinct contact positions")
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--keep", type=int, default=None, help="default: the evaluator's")
    ap.add_argument("--window", type=float, default=None, help="default: the evaluator's")
    ap.add_argument("--prune", type=Path, default=None,
                    help="pruning networks (default: the shipped ones)")
    ap.add_argument("--cube-ply", type=int, default=2, help="0 skips the cube decisions")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args()
    benchlib.header()
    full = Networks.default()
    prune = Networks.load(args.prune) if args.prune else getattr(full, "prune", None)
    if prune is None:
        raise SystemExit("no pruning networks: give --prune")
    keep = args.keep or PRUNE_KEEP
    window = PRUNE_WINDOW if args.window is None else args.window
    positions, source = contact_positions(args.n, args.seed)
    print(f"positions: {args.n} distinct contact positions, {source}; keep {keep} within "
          f"{window}")
    boards = np.array([p.board for p in positions], dtype=np.int8)
    rep = reply_agreement(full, prune, boards, keep, window)
    print(f"reply picks: {rep['rolls']} rolls, same pick {100 * rep['same_pick']:.2f} %, "
          f"equity given up {rep['mean_loss_per_roll']:.5f} per roll (largest "
          f"{rep['largest_loss']:.3f}); {rep['full_per_roll']:.2f} replies a roll for the full "
          f"networks")
    dec = decisions(full, prune, positions, args.ply, keep, window, args.seed)
    print(f"{args.ply}-ply decisions: {dec['decisions']}, unpruned {dec['unpruned_ms']:.2f} ms "
          f"(p99 {dec['unpruned_p99_ms']:.1f}), pruned {dec['pruned_ms']:.2f} ms (p99 "
          f"{dec['pruned_p99_ms']:.1f}): {dec['speedup']:.2f}x; same play "
          f"{100 * dec['same_play']:.1f} %, equity lost {dec['mean_loss_per_decision']:.5f} "
          f"± {dec['se_loss_per_decision']:.5f} per decision (largest {dec['largest_loss']:.3f}, "
          f"by the unpruned search)")
    out: dict[str, object] = {"keep": keep, "window": window, "replies": rep, "decisions": dec}
    if args.cube_ply > 0:
        cub = cube_decisions(full, prune, positions, args.cube_ply, keep, window)
        print(f"{args.cube_ply}-ply cube decisions: {cub['decisions']} "
              f"({', '.join(CUBE_STATES)}), unpruned {cub['unpruned_ms']:.2f} ms, pruned "
              f"{cub['pruned_ms']:.2f} ms: {cub['speedup']:.2f}x; "
              f"same double {100 * cub['same_double']:.2f} %, "
              f"same take {100 * cub['same_take']:.2f} %, equity lost "
              f"{cub['mean_loss_per_decision']:.6f} ± {cub['se_loss_per_decision']:.6f} per "
              f"decision (largest {cub['largest_loss']:.3f}, by the unpruned look-ahead)")
        out["cube"] = cub
    if args.json_out:
        benchlib.write_json(args.json_out, out)
    else:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
