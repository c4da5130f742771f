#!/usr/bin/env python3
"""gbot's match analysis beside GNU Backgammon 1.07's, on the same .mat files.

For every file: gnubg (text mode) imports it, ``analyse match`` at --ply, ``show statistics
match`` and ``export match text``; gbot analyses it at the same ply. Printed: per player the
overall error rate (mEMG per decision) and the checker error total (EMG) of both, their
Pearson correlation over all players of all files, and the moves gnubg marks very bad that
gbot calls best.

    python3 scripts/compare_analysis.py --ply 0 runs/matches/*.mat
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

GNUBG = "/usr/games/gnubg"
_NUM = r"([+-]?\d+\.\d+)"


def gnubg_analysis(path: str, ply: int) -> dict[str, object]:
    """gnubg's figures: per player overall error rate (mEMG), checker error total (EMG), and
    the very bad moves as (game, move number, player name)."""
    with tempfile.TemporaryDirectory() as tmp:
        txt = Path(tmp) / "export.txt"
        script = "\n".join([
            "set threads 1", f"set analysis chequerplay evaluation plies {ply}",
            f"set analysis cubedecision evaluation plies {ply}", f"import mat {path}",
            "analyse match", "show statistics match", f"export match text {txt}", ""])
        proc = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True,
                              text=True, timeout=1800)
        out = proc.stdout
        exported = txt.read_text(errors="replace") if txt.exists() else ""
    names = re.search(r"^Player\s+(\S+)\s+(\S+)", out, re.M)
    overall = out[out.find("Overall statistics"):]
    checker = out[out.find("Chequerplay statistics"):out.find("Luck statistics")]
    rate = re.search(rf"Error rate mEMG \(MWC\)\s+{_NUM}.*?\)\s+{_NUM}", overall)
    moves_err = re.search(rf"Error total EMG \(MWC\)\s+{_NUM}.*?\)\s+{_NUM}", checker)
    if not (names and rate and moves_err):
        raise RuntimeError(f"gnubg gave no statistics for {path}: {out[-400:]!r}")
    return {"names": [names.group(1), names.group(2)],
            "rate": [abs(float(rate.group(1))), abs(float(rate.group(2)))],
            "checker_error": [abs(float(moves_err.group(1))), abs(float(moves_err.group(2)))],
            "very_bad": _very_bad(exported)}


def _very_bad(text: str) -> list[tuple[int, str, str]]:
    """(game number, position ID, mark) of each move gnubg's text export marks doubtful, bad
    or very bad."""
    found = []
    game = 0
    pid = ""
    for line in text.splitlines():
        m = re.match(r"^Game (\d+)", line.strip())
        if m:
            game = int(m.group(1))
        m = re.search(r"Position ID:\s*(\S+)", line)
        if m:
            pid = m.group(1)
        m = re.search(r"Alert: (doubtful|bad|very bad) move", line, re.I)
        if m:
            found.append((game, pid, m.group(1).lower()))
    return found


def gbot_analysis(path: str, ply: int) -> dict[str, object]:
    """gbot's figures for the same file."""
    from gbot.analysis import analyse, read_match

    a = analyse(read_match(path), ply)
    best_ids = {d.position_id for d in a.decisions
                if d.kind == "move" and not d.forced and d.error == 0.0}
    return {"names": list(a.names), "rate": [p.error_rate for p in a.players],
            "checker_error": [p.move_error for p in a.players], "best_ids": sorted(best_ids)}


def _pearson(x: list[float], y: list[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def _one(args: tuple[str, int]) -> dict[str, object]:
    path, ply = args
    return {"file": path, "gnubg": gnubg_analysis(path, ply), "gbot": gbot_analysis(path, ply)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", metavar="PATH", help="also write every figure here")
    a = ap.parse_args()
    with cf.ProcessPoolExecutor(a.jobs) as pool:
        rows = list(pool.map(_one, [(f, a.ply) for f in a.files]))
    gx, bx, gc, bc = [], [], [], []
    marked: dict[str, list[int]] = {"doubtful": [0, 0], "bad": [0, 0], "very bad": [0, 0]}
    for r in rows:
        g, b = r["gnubg"], r["gbot"]
        by_name = {n: i for i, n in enumerate(b["names"])}  # type: ignore[index]
        for i, name in enumerate(g["names"]):  # type: ignore[index]
            j = by_name.get(name, i)
            gx.append(g["rate"][i])  # type: ignore[index]
            bx.append(b["rate"][j])  # type: ignore[index]
            gc.append(g["checker_error"][i])  # type: ignore[index]
            bc.append(b["checker_error"][j])  # type: ignore[index]
            print(f"{Path(str(r['file'])).name:<10s} {name:<8s} gnubg {gx[-1]:6.1f} mEMG "
                  f"{gc[-1]:6.3f} EMG   gbot {bx[-1]:6.1f} mEMG {bc[-1]:6.3f} EMG")
        best = set(b["best_ids"])  # type: ignore[arg-type]
        for _, pid, how in g["very_bad"]:  # type: ignore[attr-defined]
            marked[how][0] += 1
            marked[how][1] += pid in best
    print(f"\n{len(rows)} files, {len(gx)} player figures at {a.ply}-ply")
    print(f"correlation of error rates (mEMG/decision): {_pearson(gx, bx):.3f}")
    print(f"correlation of checker error totals (EMG):  {_pearson(gc, bc):.3f}")
    for how, (n, same) in marked.items():
        print(f"moves gnubg marks {how}: {n}; of those gbot calls best: {same} "
              "(matched by the position before the move)")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    sys.exit(0)


if __name__ == "__main__":
    main()
