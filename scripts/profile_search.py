#!/usr/bin/env python3
"""Where an n-ply decision's time goes: stages, positions, network evaluations, kernels.

For ``--n`` distinct contact positions (the bench_api/bench_eval set, one seeded roll each),
``Evaluator.best_play(ply=--ply)`` is timed once per position, with the search's pieces
wrapped and timed as it runs:

* the candidates searched at each stage (after each root move filter) and the positions each
  deeper level values;
* network evaluations (distinct boards sent to ``Networks.evaluate``) per decision, the time
  in the forward pass and per board, for the full networks and apart for the pruning networks
  (the boards of every inner reply, ranked before the full networks value the best few);
* the time in the move expansion (``expand_rolls``: the move generator over the 21 rolls)
  and in the duplicate removal (``unique_rows``);
* the rest (Python, picking, averaging) as the difference.

The wrappers add a few microseconds per call (a few dozen calls per decision), so the total
is a little above bench_api's figure. ``--filters KEEP:WINDOW,...`` replaces the root move
filters, to compare filter settings on the same positions.

    python3 scripts/profile_search.py                    # 40 positions, 2-ply, CPU clock
    python3 scripts/profile_search.py --filters 8:0.16,2:0.04
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import benchlib
from benchlib import clock, contact_positions, load_networks, parse_filters, seeded_rolls

from gbot.core import dedup, expand
from gbot.eval.evaluator import DEFAULT_FILTERS, Evaluator


class Meter:
    """Calls, seconds and items of one wrapped function."""

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0
        self.items = 0


def wrap(owner: Any, name: str, meter: Meter, clock: Callable[[], float],
         items: Callable[[tuple[Any, ...]], int]) -> None:
    """Replace ``owner.name`` by a timed version that adds to ``meter``."""
    fn = getattr(owner, name)

    def timed(*a: Any, **k: Any) -> Any:
        t = clock()
        out = fn(*a, **k)
        meter.seconds += clock() - t
        meter.calls += 1
        meter.items += items(a)
        return out

    setattr(owner, name, timed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=40, help="distinct contact positions")
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--skip", type=int, default=1700,
                    help="positions of the seeded set skipped first (bench_api's 0/1/2-ply "
                         "cases come first)")
    ap.add_argument("--filters", type=parse_filters, default=DEFAULT_FILTERS,
                    help="root move filters KEEP:WINDOW,... (default: the evaluator's)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="cpu")
    args = ap.parse_args()
    clk = clock(args.clock)
    benchlib.header()
    networks, what = load_networks(args.seed)
    ev = Evaluator(networks=networks, filters=args.filters)
    ev.warm()
    contact, source = contact_positions(args.skip + args.n + 3, args.seed)
    rolls = seeded_rolls(len(contact), args.seed + 2)
    cases = list(zip(contact[args.skip:], rolls[args.skip:], strict=True))
    warm, cases = cases[:3], cases[3:3 + args.n]
    for p, d in warm:
        ev.best_play(p, d, args.ply)

    forward, pruning, expanding, dedupe = Meter(), Meter(), Meter(), Meter()
    wrap(networks, "evaluate", forward, clk, lambda a: len(a[0]))
    if ev.pruner is not None:
        wrap(ev.pruner, "evaluate", pruning, clk, lambda a: len(a[0]))
    wrap(expand, "expand_rolls", expanding, clk, lambda a: len(a[0]) * 21)
    wrap(dedup, "unique_rows", dedupe, clk, lambda a: len(a[0]))
    levels: dict[tuple[int, int], list[int]] = {}
    depth = [0]
    values = ev._values

    def counted(boards: Any, ply: int, ws: Any, memo: Any = None) -> Any:
        key = (depth[0], ply)
        levels.setdefault(key, []).append(len(boards))
        depth[0] += 1
        try:
            return values(boards, ply, ws, memo)
        finally:
            depth[0] -= 1

    ev._values = counted  # type: ignore[method-assign]
    total = 0.0
    for p, d in cases:
        t = clk()
        ev.best_play(p, d, args.ply)
        total += clk() - t
    n = len(cases)
    print(f"networks: {what}; positions: {source}; filters: "
          + ", ".join(f"({f.keep}, {f.window:g})" for f in args.filters)
          + f"; clock: {args.clock}")
    print(f"{args.ply}-ply decision: {total / n * 1e3:.2f} ms mean over {n} contact positions")
    print("positions valued per decision (each a search call at that depth):")
    for (lvl, ply), sizes in sorted(levels.items()):
        where = "root candidates" if lvl == 0 else f"replies at depth {lvl}"
        print(f"  {where:22s} at {ply}-ply: {sum(sizes) / n:7.1f} per decision "
              f"(searched in {len(sizes) / n * 100:5.1f} % of decisions)")
    rest = total - forward.seconds - pruning.seconds - expanding.seconds - dedupe.seconds
    for name, m, unit in (("forward pass", forward, "boards"),
                          ("pruning networks", pruning, "boards"),
                          ("move expansion", expanding, "position-rolls"),
                          ("duplicate removal", dedupe, "rows")):
        per = f"{m.seconds / m.items * 1e6:6.3f} us per {unit[:-1]}" if m.items else ""
        print(f"  {name:18s} {m.seconds / n * 1e3:7.2f} ms ({m.seconds / total * 100:4.1f} %)"
              f"  {m.items / n:9.1f} {unit} per decision  {per}")
    print(f"  {'rest':18s} {rest / n * 1e3:7.2f} ms ({rest / total * 100:4.1f} %)")


if __name__ == "__main__":
    main()
