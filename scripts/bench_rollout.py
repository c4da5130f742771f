#!/usr/bin/env python3
"""Rollout speed: games per CPU-second, gbot at 0-ply with and without variance reduction and
at 1- and 2-ply checker play, beside gnubg-nn's ``rollout`` and GNU Backgammon 1.07's own
rollout (0-, 1- and 2-ply) on the same positions, same run.

CPU seconds (not wall time) are counted, so the figures are per core on a shared machine:
gbot's by ``time.process_time`` around the kernel calls (one process, one thread), gnubg's and
gnubg-nn's as the CPU time of their child processes less a start-up run with no games.

    python3 scripts/bench_rollout.py [--games 360] [--vr-games 36] [--ply1-games 6]
                                     [--ply2-games 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import benchlib

POSITIONS = ["4HPwATDgc/ABMA",      # opening
             "3toBKAL7/AAAEA",      # contact
             "4POFCwDDzuABIQ",      # contact
             "u/YqAAClXkMjAA"]      # race


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bench_gbot(games: int, vr: bool, checker_ply: int = 0) -> dict[str, object]:
    """gbot's kernel on every position (compiled first)."""
    import numpy as np

    from gbot.analysis.rollout import RolloutSettings, TrialTask, kernel_args, run_task
    from gbot.game.notations.position_id import decode

    kernel_args()
    boards = np.array([decode(p) for p in POSITIONS], dtype=np.int8)
    s = RolloutSettings(trials=games, variance_reduction=vr, checker_ply=checker_ply)
    run_task(TrialTask(boards[:1], np.array([0]), 0, 2, s, None, False))       # compile / load
    t = time.process_time()
    w = time.perf_counter()
    rows = []
    for k in range(boards.shape[0]):
        _, out, plies, _, _ = run_task(TrialTask(boards[k:k + 1], np.array([k]), 0, games, s,
                                                 None, False))
        eq = out[0] @ np.array([2.0, 1, 1, -1, -1]) - 1.0
        rows.append({"position": POSITIONS[k], "equity": float(eq.mean()),
                     "equity_se": float(eq.std(ddof=1) / np.sqrt(games)),
                     "plies_per_game": float(plies.mean())})
    cpu = time.process_time() - t
    n = games * boards.shape[0]
    return {"engine": f"gbot {checker_ply}-ply{' + VR' if vr else ''}", "ply": checker_ply,
            "vr": vr, "games": n, "cpu_s": cpu, "wall_s": time.perf_counter() - w,
            "games_per_cpu_s": n / cpu, "positions": rows}


_NN_SCRIPT = """
import sys, time, json
import gnubg_nn as g
key = g.key_of_board(g.board_from_position_id(sys.argv[2]))
t = time.process_time()
r = g.rollout(key, int(sys.argv[1]))
print(json.dumps({"cpu_s": time.process_time() - t, "result": r}))
"""


def bench_gnubg_nn(games: int, timeout: float = 60.0) -> dict[str, object]:
    """gnubg-nn's ``rollout(pos, ngames)`` (its defaults otherwise), one child process per
    position: the call has crashed (SIGSEGV) or run away with some arguments here."""
    rows: list[dict[str, object]] = []
    errors = []
    cpu = 0.0
    for pid in POSITIONS:
        try:
            proc = subprocess.run([sys.executable, "-c", _NN_SCRIPT, str(games), pid],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            errors.append(f"{pid}: no answer in {timeout:.0f} s")
            continue
        if proc.returncode != 0:
            errors.append(f"{pid}: exit {proc.returncode} {proc.stderr.strip()[-120:]}")
            continue
        got = json.loads(proc.stdout)
        cpu += got["cpu_s"]
        rows.append({"position": pid, "probabilities": got["result"][0]})
    n = games * len(rows)
    out: dict[str, object] = {"engine": "gnubg-nn rollout", "ply": 0, "games": n, "cpu_s": cpu,
                              "games_per_cpu_s": n / cpu if cpu else None, "positions": rows}
    if errors:
        out["errors"] = errors
    if not rows:
        out["error"] = "; ".join(errors)
    return out


def _gnubg_script(games: int, pids: list[str], ply: int = 0) -> str:
    lines = ["set player 0 human", "set player 1 human", "set threads 1",
             f"set rollout trials {max(games, 1)}", "set rollout cubeful off",
             "set rollout varredn off", "set rollout quasirandom on",
             f"set rollout chequerplay plies {ply}", "set rollout truncation enable off"]
    for pid in pids:
        lines += ["new game", f"set board {pid}", "set turn 1"]
        if games:
            lines.append("rollout")
    return "\n".join(lines) + "\nquit\ny\n"


def bench_gnubg(games: int, binary: str = "/usr/games/gnubg", ply: int = 0
                ) -> dict[str, object]:
    """GNU Backgammon 1.07's rollout (cubeless, ``ply``-ply, no VR, one thread) in text
    mode."""
    name = f"gnubg 1.07 rollout ({ply}-ply, no VR, 1 thread)"
    if not os.path.exists(binary):
        return {"engine": name, "ply": ply, "error": f"{binary} not found"}
    cpu = []
    for n in (0, games):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
            fh.write(_gnubg_script(n, POSITIONS, ply))
        before = _child_cpu()
        with open(fh.name) as src:
            subprocess.run([binary, "-t", "-q"], stdin=src, capture_output=True, timeout=900)
        cpu.append(_child_cpu() - before)
        os.unlink(fh.name)
    used = cpu[1] - cpu[0]
    total = games * len(POSITIONS)
    return {"engine": name, "ply": ply, "games": total,
            "cpu_s": used, "startup_cpu_s": cpu[0], "games_per_cpu_s": total / used}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=360, help="games per position")
    ap.add_argument("--vr-games", type=int, default=36, help="games per position with VR")
    ap.add_argument("--ply1-games", type=int, default=6,
                    help="games per position at 1-ply checker play (0: skip)")
    ap.add_argument("--nn-timeout", type=float, default=20.0,
                    help="seconds each gnubg-nn rollout call may take (it runs away here)")
    ap.add_argument("--ply2-games", type=int, default=1,
                    help="games per position at 2-ply checker play (0: skip)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [bench_gbot(a.games, False), bench_gbot(a.vr_games, True),
            bench_gnubg_nn(a.games, a.nn_timeout), bench_gnubg(a.games)]
    if a.ply1_games > 0:
        rows += [bench_gbot(a.ply1_games, False, 1), bench_gbot(a.ply1_games, True, 1),
                 bench_gnubg(a.ply1_games, ply=1)]
    if a.ply2_games > 0:
        rows += [bench_gbot(a.ply2_games, False, 2), bench_gnubg(a.ply2_games, ply=2)]
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    benchlib.header()
    for r in rows:
        if "error" in r:
            print(f"{r['engine']:<44s} failed: {r['error']}")
            continue
        rate = r["games_per_cpu_s"]
        # the reference: gbot's row at the same ply without variance reduction
        ref = next(g for g in rows if str(g["engine"]).startswith("gbot")
                   and g["ply"] == r["ply"] and not g["vr"])
        ref_rate = float(ref["games_per_cpu_s"])  # type: ignore[arg-type]
        ratio = (f"  (gbot {r['ply']}-ply/this {ref_rate / float(rate):.2f})"  # type: ignore[arg-type]
                 if rate and not str(r["engine"]).startswith("gbot") else "")
        print(f"{r['engine']:<44s} {r['games']:6d} games {r['cpu_s']:8.2f} CPU-s  "
              f"{rate:8.1f} games/CPU-s{ratio}")
    nn = rows[2]
    for e in nn.get("errors", []):  # type: ignore[attr-defined]
        print(f"  gnubg-nn failed on {e}")
    by_pid = {r["position"]: r for r in rows[0]["positions"]}  # type: ignore[attr-defined]
    for n in nn.get("positions", []):  # type: ignore[attr-defined]
        g = by_pid[n["position"]]
        if True:
            p = n["probabilities"]
            nn_eq = benchlib.equity(p)
            print(f"  {g['position']}: gbot equity {g['equity']:+.3f} ± {g['equity_se']:.3f}, "
                  f"gnubg-nn {nn_eq:+.3f} (win {p[0]:.3f})")


if __name__ == "__main__":
    main()
