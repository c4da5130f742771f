"""Cost of gbot's cube decisions under gnubg 1.07's 2-ply cube analysis.

Reads ``tests/data/cube_vectors.jsonl`` (positions in money and match situations, each with
gnubg's 2-ply cubeful equities no double / double-take / double-pass) and decides each one
with gbot's networks, by the static model at 0-ply and by the cubeful lookahead at 1- and
2-ply. Each decision is charged what it loses by gnubg's 2-ply equities:

* the doubler's error: ``max(ND, min(DT, DP)) - (min(DT, DP) if it doubles else ND)``;
* the taker's error: ``(DT if it takes else DP) - min(DT, DP)`` (in the doubler's units).

Prints, per method and for money and match separately, the mean errors per decision
(milli-units of the cube), the counts of wrong doubles, missed doubles, wrong takes and
wrong passes, and the time per decision. With ``--life-scale`` the static model's cube life
is scaled, to see where the model's windows sit against gnubg's.

    python scripts/cube_calibration.py --methods model0,look1 [--every 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from gbot.cube.cubeful import CubeContext, Owner
from gbot.cube.decision import board_cube_life, decide, decide_from_equities
from gbot.cube.lookahead import lookahead_cubeful
from gbot.eval.evaluator import Evaluator
from gbot.game.match import Rules
from gbot.game.notations.position_id import decode
from gbot.game.position import Position

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "data" / "cube_vectors.jsonl"
OWNERS = {"centre": Owner.CENTRE, "me": Owner.ME, "opponent": Owner.OPPONENT}


def context(rec: dict[str, Any], life: float) -> CubeContext:
    """The record's cube situation as a :class:`CubeContext` with cube life ``life``."""
    c = rec["ctx"]
    return CubeContext(match_length=c["match_length"], away=c["away"], opp_away=c["opp_away"],
                       cube=c["cube"], owner=OWNERS[c["owner"]], crawford=c["crawford"],
                       cube_life=life, rules=Rules(jacoby=c["jacoby"], beavers=c["beavers"]))


class Tally:
    """Errors of one method in one kind of situation."""

    def __init__(self) -> None:
        self.n = 0
        self.double_err = 0.0
        self.take_err = 0.0
        self.counts = {"wrong_double": 0, "missed_double": 0, "wrong_take": 0, "wrong_pass": 0}
        self.seconds = 0.0

    def add(self, doubles: bool, takes: bool, g: dict[str, Any]) -> None:
        nd, dt, dp = g["nd"], g["dt"], g["dp"]
        self.n += 1
        doubled = min(dt, dp)
        e = max(nd, doubled) - (doubled if doubles else nd)
        self.double_err += e
        if e > 0:
            self.counts["wrong_double" if doubles else "missed_double"] += 1
        t = (dt if takes else dp) - doubled
        self.take_err += t
        if t > 0:
            self.counts["wrong_take" if takes else "wrong_pass"] += 1

    def row(self) -> dict[str, Any]:
        n = max(self.n, 1)
        return {"n": self.n, "double_merr": 1000 * self.double_err / n,
                "take_merr": 1000 * self.take_err / n, **self.counts,
                "ms_per_decision": 1000 * self.seconds / n}


def decide_one(method: str, rec: dict[str, Any], ev: Evaluator,
               scale: float) -> tuple[bool, bool]:
    """gbot's (doubles, takes) for the record by ``method``."""
    board = decode(rec["position_id"])
    life = float(np.clip(board_cube_life(board) * scale, 0.0, 1.0))
    ctx = context(rec, life)
    if method == "model0":
        d = decide(tuple(ev.probabilities(Position.from_id(rec["position_id"]))), ctx)
    else:
        e, probs = lookahead_cubeful(board, ctx, ev, ply=int(method[-1]))
        d = decide_from_equities(e, ctx, probs)
    return d.doubles, d.takes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--methods", default="model0,look1", help="model0, look1, look2")
    ap.add_argument("--every", type=int, default=1, help="use every n-th record")
    ap.add_argument("--weights", type=Path, default=None, help="networks (default: shipped)")
    ap.add_argument("--life-scale", type=float, default=1.0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    ev = Evaluator(args.weights)
    recs = [json.loads(line) for line in VECTORS.open()]
    recs = [r for k, r in enumerate(recs) if k % args.every == 0 and not r["ply2"]["cannot_double"]]
    out: dict[str, Any] = {}
    for method in args.methods.split(","):
        tallies = {"money": Tally(), "match": Tally()}
        t_start = time.perf_counter()
        for k, rec in enumerate(recs):
            t0 = time.perf_counter()
            doubles, takes = decide_one(method, rec, ev, args.life_scale)
            kind = "money" if rec["ctx"]["match_length"] == 0 else "match"
            tallies[kind].seconds += time.perf_counter() - t0
            tallies[kind].add(doubles, takes, rec["ply2"])
            if k and k % 200 == 0:
                el = time.perf_counter() - t_start
                print(f"progress: {method} {k}/{len(recs)}, ETA "
                      f"{el / k * (len(recs) - k) / 60:.1f} min", file=sys.stderr)
        out[method] = {kind: t.row() for kind, t in tallies.items()}
        for kind, row in out[method].items():
            print(f"{method:7s} {kind:5s} n={row['n']:4d} double {row['double_merr']:6.2f} "
                  f"take {row['take_merr']:6.2f} m/decision; wrong doubles "
                  f"{row['wrong_double']}, missed {row['missed_double']}, wrong takes "
                  f"{row['wrong_take']}, wrong passes {row['wrong_pass']}; "
                  f"{row['ms_per_decision']:.1f} ms")
    if args.json:
        args.json.write_text(json.dumps({"life_scale": args.life_scale, "results": out},
                                        indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
