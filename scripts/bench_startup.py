#!/usr/bin/env python3
"""Time ``gbot serve`` from launch until it prints that it is listening, at each ``--ply``.

Each start is a fresh process (``python -m gbot.cli serve --listen 127.0.0.1:0``) and is timed
twice: wall-clock seconds until the ``listening on`` line, and the CPU seconds the process had
used by then (user + system, from ``/proc``; on a loaded machine the wall time also counts
waiting for a core, the CPU time does not). Plies alternate across ``--repeat`` rounds so each
sees the same load. The target (issue 14; ``benchlib.TARGETS["startup_s"]``) is 2 s at every
ply once the kernels are compiled; run the script once before timing after a kernel change (the
first start compiles them and says so on its log). Prints the median per ply and whether it
meets the target.

    python3 scripts/bench_startup.py [--plies 0,1,2,3,4] [--repeat 3] [--json out.json]

Exit status 0 when every ply's median wall time is within the target, 1 when not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import benchlib
from benchlib import TARGETS, cpu_seconds, start_gbot_serve, write_json

TARGET = TARGETS["startup_s"]


def start_once(ply: int) -> tuple[float, float]:
    """Wall and CPU seconds until one ``gbot serve --ply ply`` is listening."""
    t0 = time.perf_counter()
    proc, _ = start_gbot_serve(ply)
    try:
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    """Run the starts and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plies", default="0,1,2,3,4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    plies = [int(p) for p in args.plies.split(",")]
    benchlib.header()
    runs: dict[int, list[tuple[float, float]]] = {p: [] for p in plies}
    for _ in range(args.repeat):
        for ply in plies:
            runs[ply].append(start_once(ply))
    print(f"gbot serve until listening, {args.repeat} starts per ply ({TARGET.text()}, "
          "the median wall time)")
    print(f"{'ply':>3} {'wall med':>9} {'wall min':>9} {'cpu med':>8}  target")
    figures: dict[str, dict[str, float]] = {}
    ok = True
    for ply in plies:
        walls = [w for w, _ in runs[ply]]
        cpus = [c for _, c in runs[ply]]
        med = statistics.median(walls)
        met = TARGET.met(med)
        ok = ok and met
        figures[str(ply)] = {"wall_median_s": med, "wall_min_s": min(walls),
                             "cpu_median_s": statistics.median(cpus)}
        print(f"{ply:3d} {med:9.2f} {min(walls):9.2f} {statistics.median(cpus):8.2f}  "
              + ("met" if met else "MISSED"))
    if args.json:
        write_json(args.json, figures)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
