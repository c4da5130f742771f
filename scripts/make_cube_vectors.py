"""Label positions with GNU Backgammon 1.07's cube decisions, for tests/data/cube_vectors.jsonl.

Positions come from ../shared/data/gnubg2ply (side on roll before rolling): half drawn plainly
from those self-play games, half from where cube decisions are close (contact positions with
60-88 % winning chances, gammonish ones, races and bear-offs with 55-97 %). Each gets one cube
situation drawn with a fixed seed: money (centred cube, or owned by the side on roll; with and
without Jacoby and beavers) or a match of 3 to 25 points (any score, centred or owned cube,
Crawford and post-Crawford games). gnubg itself (Debian's gnubg 1.07, ``-t`` tty mode, one
process at a time) gets the situation as an XGID with the side on roll at the bottom and answers
``hint`` with its cube analysis, at 0-ply and at 2-ply. The output records gnubg's cubeless
probabilities (6 decimals), its cubeful equities (money equity, or normalised match equity),
and its proper cube action text; "cannot double" where gnubg refuses to analyse a double.

Usage::

    python3 scripts/make_cube_vectors.py [--n 2000] [--seed 2024] [--out FILE.jsonl]

It prints progress and takes a few minutes (the 2-ply analyses dominate).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import subprocess
import time
from pathlib import Path
from typing import Any

from gbot.game.notations.position_id import decode

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "gnubg2ply"
GNUBG = "/usr/games/gnubg"

_NUM = r"([+-]?\d+\.\d+)"


def xgid(pid: str, ctx: dict[str, Any]) -> str:
    """XGID with the side on roll as the bottom player (gnubg's player 1), dice not rolled."""
    b = decode(pid)
    chars = []
    for v in b.tolist():
        chars.append("-" if v == 0 else chr(ord("A") + v - 1) if v > 0 else chr(ord("a") - v - 1))
    cube_log = ctx["cube"].bit_length() - 1
    owner = {"centre": 0, "me": 1, "opponent": -1}[ctx["owner"]]
    if ctx["match_length"]:
        n = ctx["match_length"]
        s_me, s_opp = n - ctx["away"], n - ctx["opp_away"]
        rules = 1 if ctx["crawford"] else 0
    else:
        s_me = s_opp = 0
        rules = (1 if ctx["jacoby"] else 0) | (2 if ctx["beavers"] else 0)
    return (f"XGID={''.join(chars)}:{cube_log}:{owner}:1:00:{s_me}:{s_opp}:{rules}:"
            f"{ctx['match_length']}:10")


def load_rows(limit_parts: int = 4) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for part in sorted(SHARED.glob("part-*.csv.gz"))[:limit_parts]:
        with gzip.open(part, "rt") as fh:
            rows.extend(csv.DictReader(fh))
    return rows


def pick_positions(rows: list[dict[str, str]], n: int, rng: random.Random) -> list[dict[str, str]]:
    """Half plain positions from the games, half picked where cube decisions are close."""
    def w(r: dict[str, str]) -> float:
        return float(r["win"])

    near = [r for r in rows if r["class"] in ("contact", "crashed") and 0.6 <= w(r) <= 0.88]
    gammonish = [r for r in rows if float(r["win_g"]) >= 0.25 and w(r) >= 0.55]
    racing = [r for r in rows if r["class"] in ("race", "bearoff") and 0.55 <= w(r) <= 0.97]
    buckets = [(list(rows), 0.5), (near, 0.2), (gammonish, 0.1), (racing, 0.2)]
    seen: set[str] = set()
    out: list[dict[str, str]] = []
    for pool, share in buckets:
        want = int(round(n * share))
        rng.shuffle(pool)
        for r in pool:
            if len(out) >= n or want == 0:
                break
            if r["position_id"] in seen:
                continue
            seen.add(r["position_id"])
            out.append(r)
            want -= 1
    return out[:n]


def pick_context(rng: random.Random) -> dict[str, Any]:
    """One cube situation for the side on roll (who may double in all but a few)."""
    ctx: dict[str, Any] = {"match_length": 0, "away": 0, "opp_away": 0, "cube": 1,
                           "owner": "centre", "crawford": False, "jacoby": False,
                           "beavers": False}
    u = rng.random()
    if u < 0.4:
        ctx["jacoby"] = rng.random() < 0.25
        ctx["beavers"] = rng.random() < 0.25
        if rng.random() < 0.3:
            ctx["owner"] = "me"
            ctx["cube"] = rng.choice((2, 2, 4))
        return ctx
    n = rng.choice((3, 5, 5, 7, 7, 7, 9, 11, 13, 15, 17, 21, 25))
    ctx["match_length"] = n
    v = rng.random()
    if v < 0.08:
        # Post-Crawford, the trailer on roll (a few with the leader on roll).
        if rng.random() < 0.2:
            ctx["away"], ctx["opp_away"] = 1, rng.randint(2, n)
        else:
            ctx["away"], ctx["opp_away"] = rng.randint(2, n), 1
        if ctx["away"] > 1 and rng.random() < 0.3:
            ctx["owner"], ctx["cube"] = "me", 2
        return ctx
    if v < 0.11:
        # The Crawford game: nobody may double.
        ctx["crawford"] = True
        if rng.random() < 0.5:
            ctx["away"], ctx["opp_away"] = 1, rng.randint(2, n)
        else:
            ctx["away"], ctx["opp_away"] = rng.randint(2, n), 1
        return ctx
    ctx["away"], ctx["opp_away"] = rng.randint(2, n), rng.randint(2, n)
    if rng.random() < 0.3:
        ctx["owner"] = "me"
        ctx["cube"] = rng.choice((2, 2, 4))
    return ctx


def parse_hint(block: str) -> dict[str, Any]:
    """gnubg's answer to one ``hint`` (text between two markers)."""
    if "You cannot double" in block:
        return {"cannot_double": True}
    if "Cube analysis" not in block:
        raise ValueError(f"no cube analysis in {block[-400:]!r}")
    m = re.search(r"cubeless (?:equity|MWC)\s+" + _NUM, block)
    p6 = r"(-?\d\.\d+) (-?\d\.\d+) (-?\d\.\d+) - (-?\d\.\d+) (-?\d\.\d+) (-?\d\.\d+)"
    probs_m = re.search(r"\n\s+" + p6, block)
    if not m or not probs_m:
        raise ValueError(f"cannot read the cubeless line in {block[-400:]!r}")
    vals = [float(x) for x in probs_m.groups()]
    out: dict[str, Any] = {"cannot_double": False,
                           "probs": [abs(v) for v in (vals[0], vals[1], vals[2], vals[4], vals[5])],
                           "cubeless": float(m.group(1))}
    for key, label in (("nd", "No double"), ("nd", "No redouble"), ("dt", "Double, take"),
                       ("dt", "Redouble, take"), ("dp", "Double, pass"),
                       ("dp", "Redouble, pass")):
        mm = re.search(r"\d\. " + label + r"\s+" + _NUM, block)
        if mm:
            out[key] = float(mm.group(1))
    act = re.search(r"Proper cube action: (.+?)(?: \(|\n|$)", block)
    if not act or not all(k in out for k in ("nd", "dt", "dp")):
        raise ValueError(f"incomplete cube analysis {block[-400:]!r}")
    out["action"] = act.group(1).strip()
    return out


def run_gnubg(items: list[tuple[int, str]], ply: int) -> dict[int, dict[str, Any]]:
    """gnubg's hints for (index, XGID) pairs, in one process."""
    cmds = ["set automatic roll off", "set output digits 6", "set output rawboard on",
            "set jacoby off", "set beavers 3",
            f"set evaluation cubedecision evaluation plies {ply}"]
    for idx, xg in items:
        cmds += [f"m_{idx}", f"set xgid {xg}", "hint"]
    cmds.append("m_end")
    # Unbuffered, with stderr (where the markers go) merged in order.
    proc = subprocess.run(["stdbuf", "-o0", "-e0", GNUBG, "-t", "-q"],
                          input="\n".join(cmds) + "\n", stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=3600)
    text = proc.stdout
    parts = re.split(r"Unknown keyword `m_(\w+)'\.", text)
    # parts = [preamble, idx0, text0, idx1, text1, ..., 'end', tail]
    results: dict[int, dict[str, Any]] = {}
    for k in range(1, len(parts) - 1, 2):
        key = parts[k]
        if key == "end":
            continue
        body = parts[k + 1]
        results[int(key)] = parse_hint(body)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "cube_vectors.jsonl")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = pick_positions(load_rows(), args.n, rng)
    records = []
    for i, r in enumerate(rows):
        ctx = pick_context(rng)
        records.append({"i": i, "position_id": r["position_id"], "class": r["class"],
                        "ctx": ctx, "xgid": xgid(r["position_id"], ctx)})
    t0 = time.time()
    for ply in (0, 2):
        for start in range(0, len(records), args.chunk):
            chunk = records[start:start + args.chunk]
            res = run_gnubg([(rec["i"], rec["xgid"]) for rec in chunk], ply)
            for rec in chunk:
                if rec["i"] not in res:
                    raise SystemExit(f"no gnubg answer for record {rec['i']} ({rec['xgid']})")
                rec[f"ply{ply}"] = res[rec["i"]]
            print(f"ply {ply}: {start + len(chunk)}/{len(records)} labelled, "
                  f"{time.time() - t0:.0f} s", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as fh:
        for rec in records:
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
    print(f"wrote {len(records)} records to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
