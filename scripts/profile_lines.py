#!/usr/bin/env python3
"""Thread CPU time of :func:`gbot.adapters.gnubg_external.handle_line` per kind of line, in
process: the board lines ``scripts/bench_server.py`` asks (the first ``--boards`` distinct
lines gnubg 1.07 sent as referee), one session, ``--passes`` passes after a warm-up pass.

Lines are grouped by whether the one-call path answers them (``fast``) or the general path
(``general``), by question (move, cube, take) and by what makes them special: no contact
(``nocontact``, the resignation check's lines) or a short bear-off (``short``). Prints per group
the number of lines, the median and the largest time per line (us), and the total per pass.

    python3 scripts/profile_lines.py [--boards 1000] [--cube-ply N] [--passes 3]

Without ``--cube-ply`` the engine decides the cube as ``gbot serve`` does by default.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

import benchlib
from benchlib import captured_boards

from gbot.adapters import gnubg_external as ge
from gbot.core import facts
from gbot.engine.engine import SHORT_BEAROFF_CHECKERS, Engine
from gbot.game.notations.fibs_board import parse_gnubg_question


def kind_of(session: ge.Session, line: str) -> str:
    """The group of ``line`` (see the module docstring)."""
    fb, _ = parse_gnubg_question(line)
    board = fb.position.board
    if fb.question == "take_or_drop":
        board = fb.position.swapped().board
    q = {"move": "move", "double_or_roll": "cube", "take_or_drop": "take"}[fb.question]
    match = "match" if fb.match_length else "money"
    tag = ""
    if not facts.contact(board):
        tag = "-nocontact"
        if facts.bearoff_within(board, SHORT_BEAROFF_CHECKERS) and facts.checkers_left(board)[0]:
            tag = "-short"
    path = "fast" if ge.fast_reply(ge.Session(session.engine), line) is not None else "general"
    return f"{path} {q}-{match}{tag}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--cube-ply", type=int, default=None,
                    help="the cube look-ahead (default: the engine's, as gbot serve's)")
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args(argv)
    benchlib.header()
    engine = Engine(cube_ply=args.cube_ply)
    ge.warm(engine)
    lines = captured_boards(args.boards)
    kinds = [kind_of(ge.Session(engine), line) for line in lines]
    times: dict[str, list[float]] = defaultdict(list)
    totals = []
    for p in range(args.passes + 1):
        session = ge.Session(engine)
        total = 0.0
        for line, kind in zip(lines, kinds, strict=True):
            t0 = time.thread_time_ns()
            ge.handle_line(session, line)
            dt = (time.thread_time_ns() - t0) / 1000.0
            if p:
                times[kind].append(dt)
                total += dt
        if p:
            totals.append(total / 1000.0)
    print(f"{'group':32} {'lines':>5} {'median us':>10} {'max us':>10}")
    for kind in sorted(times):
        ts = times[kind]
        print(f"{kind:32} {len(ts) // args.passes:5d} {statistics.median(ts):10.1f} "
              f"{max(ts):10.1f}")
    print("handle_line per pass (ms): " + " / ".join(f"{t:.1f}" for t in totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
