#!/usr/bin/env python3
"""gbot's match analysis beside GNU Backgammon 1.07's, on the same .mat files.

For every file: gnubg (text mode) imports it, ``analyse match`` at --ply, ``show statistics
match`` and ``export match text`` (one text file per game); gbot analyses it at the same ply.
Printed: per player the overall error rate (mEMG per decision) and the checker error total
(EMG) of both, their Pearson correlation over all players of all files, the mean absolute
difference of the rates, and for every checker play gnubg marks doubtful, bad or very bad
whether gbot calls the same play best (matched by game, position and roll). Each very bad
play that gbot calls best is listed with both engines' equities of the played and of gnubg's
best play (and gnubg-nn's cubeless ones at the same ply where gnubg_nn is importable), and
per player how each analysis judges the players' checker plays (share called best, mean
error, the per-file difference). With --conversion, gnubg's printed probabilities of each
listed candidate also go through gbot's own match conversion, beside gnubg's equities.

With --cache DIR, gnubg's outputs and gbot's analyses are kept in DIR/plyN/FILE-STEM/ and
reused (delete a file's folder to redo it).

    python3 scripts/compare_analysis.py --ply 2 --cache /tmp/cmp runs/matches/*.mat
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
from typing import Any

GNUBG = "/usr/games/gnubg"
_NUM = r"([+-]?\d+\.\d+)"
MARKS = ("doubtful", "bad", "very bad")


# --- gnubg -----------------------------------------------------------------------------


def run_gnubg(path: str, ply: int, into: Path) -> None:
    """gnubg's analysis of ``path``: its statistics in ``into/gnubg.out``, its text export
    in ``into/export.txt``, ``export_002.txt``, ... (one per game)."""
    into.mkdir(parents=True, exist_ok=True)
    for old in into.glob("export*.txt"):
        old.unlink()
    script = "\n".join([
        "set threads 1", f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
        f"import mat {Path(path).resolve()}", "analyse match", "show statistics match",
        f"export match text {(into / 'export.txt').resolve()}", ""])
    proc = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True,
                          timeout=3600)
    (into / "gnubg.out").write_text(proc.stdout)


def game_exports(into: Path) -> list[str]:
    """The exported games' texts in game order."""
    def number(p: Path) -> int:
        m = re.search(r"_(\d+)\.txt$", p.name)
        return int(m.group(1)) if m else 1
    return [p.read_text(errors="replace")
            for p in sorted(into.glob("export*.txt"), key=number)]


def gnubg_statistics(out: str, path: str) -> dict[str, Any]:
    """Per player (gnubg's order) the overall error rate (mEMG), the checker error total
    (EMG), the checker and cube error rates (mEMG per unforced move, per close or actual
    cube decision) and the luck total (EMG, signed)."""
    names = re.search(r"^Player\s+(\S+)\s+(\S+)", out, re.M)
    overall = out[out.find("Overall statistics"):]
    checker = out[out.find("Chequerplay statistics"):out.find("Luck statistics")]
    luck = out[out.find("Luck statistics"):out.find("Cube statistics")]
    cube = out[out.find("Cube statistics"):out.find("Overall statistics")]
    pair = rf"{_NUM}.*?\)\s+{_NUM}"
    rate = re.search(rf"Error rate mEMG \(MWC\)\s+{pair}", overall)
    moves_err = re.search(rf"Error total EMG \(MWC\)\s+{pair}", checker)
    move_rate = re.search(rf"Error rate mEMG \(MWC\)\s+{pair}", checker)
    cube_rate = re.search(rf"Error rate mEMG \(MWC\)\s+{pair}", cube)
    luck_total = re.search(rf"Luck total EMG \(MWC\)\s+{pair}", luck)
    if not (names and rate and moves_err and move_rate and cube_rate and luck_total):
        raise RuntimeError(f"gnubg gave no statistics for {path}: {out[-400:]!r}")

    def both(m: re.Match[str], signed: bool = False) -> list[float]:
        a, b = float(m.group(1)), float(m.group(2))
        return [a, b] if signed else [abs(a), abs(b)]

    return {"names": [names.group(1), names.group(2)], "rate": both(rate),
            "checker_error": both(moves_err), "checker_rate": both(move_rate),
            "cube_rate": both(cube_rate), "luck": both(luck_total, signed=True)}


_CAND = re.compile(r"^(\*?)\s+(\d+)\.\s+(?:Cubeful|Cubeless)\s+(\d)-ply\s+(.+?)\s+Eq\.:\s*"
                   rf"{_NUM}")


_PROBS = re.compile(r"^\s+(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)\s*$")


def checker_plays(game_text: str, game: int) -> list[dict[str, Any]]:
    """Every analysed checker play of one exported game: ``game`` (0-based, as gbot numbers
    games), gnubg's move number,
    player name, roll, position ID (before the play), played text, gnubg's mark ('' for
    none), and its candidates ``[(play text, equity)]`` best first, the played one
    flagged by ``played_rank`` (index into candidates), with gnubg's cubeless
    probabilities of each (``probs``: win, win g, win bg, lose g, lose bg; mover's view)."""
    found = []
    for block in re.split(r"\nMove number ", "\n" + game_text)[1:]:
        head = re.match(r"(\d+):\s+(\S+) to play (\d)(\d)", block)
        pid = re.search(r"Position ID:\s*(\S+)", block)
        moved = re.search(r"^\* (\S+) moves (.*)$", block, re.M)
        if not (head and pid and moved):
            continue
        cands: list[tuple[str, float]] = []
        probs: list[list[float]] = []
        played_rank = None
        for line in block.splitlines():
            m = _CAND.match(line)
            if m:
                if m.group(1):
                    played_rank = len(cands)
                cands.append((m.group(4).strip(), float(m.group(5))))
                continue
            pm = _PROBS.match(line)
            if pm and len(probs) < len(cands):
                probs.append([float(pm.group(k)) for k in (1, 2, 3, 5, 6)])
        alert = re.search(r"Alert: (doubtful|bad|very bad) move", block)
        d1, d2 = int(head.group(3)), int(head.group(4))
        found.append({"game": game, "move": int(head.group(1)), "player": head.group(2),
                      "dice": [max(d1, d2), min(d1, d2)], "position_id": pid.group(1),
                      "played": moved.group(2).strip(), "mark": alert.group(1) if alert else "",
                      "candidates": cands, "probs": probs, "played_rank": played_rank})
    return found


def gnubg_analysis(path: str, ply: int, cache: Path | None) -> dict[str, Any]:
    """gnubg's statistics and marked checker plays for ``path`` (run, or read from
    ``cache``)."""
    if cache is not None and (cache / "gnubg.out").exists():
        into = cache
        return _gnubg_read(into, path)
    if cache is not None:
        run_gnubg(path, ply, cache)
        return _gnubg_read(cache, path)
    with tempfile.TemporaryDirectory() as tmp:
        run_gnubg(path, ply, Path(tmp))
        return _gnubg_read(Path(tmp), path)


def _gnubg_read(into: Path, path: str) -> dict[str, Any]:
    res = gnubg_statistics((into / "gnubg.out").read_text(errors="replace"), path)
    plays = [p for i, t in enumerate(game_exports(into)) for p in checker_plays(t, i)]
    res["plays"] = plays
    return res


# --- gbot ------------------------------------------------------------------------------


def gbot_analysis(path: str, ply: int, cache: Path | None) -> dict[str, Any]:
    """gbot's figures and checker plays for the same file (kept in ``cache``)."""
    from gbot.analysis.analyse import analyse, read_match

    target = cache / f"gbot{ply}.json" if cache is not None else None
    if target is not None and target.exists():
        return dict(json.loads(target.read_text()))
    a = analyse(read_match(path), ply)
    res = {"names": list(a.names), "rate": [p.error_rate for p in a.players],
           "checker_error": [p.move_error for p in a.players],
           "checker_rate": [p.move_rate for p in a.players],
           "cube_rate": [p.cube_rate for p in a.players],
           "luck": [p.luck for p in a.players],
           "moves": [{"game": d.game, "index": d.index, "player": d.player,
                      "position_id": d.position_id, "dice": list(d.dice), "played": d.played,
                      "best": d.best, "error": d.error, "equity": d.equity,
                      "forced": d.forced}
                     for d in a.decisions if d.kind == "move"]}
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(res))
    return res


def game_index(record: Any, number: int) -> int:
    """The index in ``record.games`` of game ``number``."""
    return next(i for i, g in enumerate(record.games) if g.number == number)


def second_opinions(path: str, ply: int, gb_move: dict[str, Any],
                    plays: list[str]) -> dict[str, list[float]]:
    """gbot's values (EMG, as its analysis ranks plays) of ``plays`` where ``gb_move`` was
    played, and gnubg-nn's cubeless equities of them at ``ply`` (where importable)."""
    import gbot
    from gbot.analysis.analyse import play_values, read_match

    record = read_match(path)
    gi = game_index(record, int(gb_move["game"]))
    out = {"gbot": play_values(record, gi, int(gb_move["index"]), plays, ply)}
    try:
        import gnubg_nn
    except ImportError:
        return out
    pos = gbot.Position.from_id(str(gb_move["position_id"]))
    dice = tuple(gb_move["dice"])
    vals = []
    for t in plays:
        on_roll, opp = pos.play_from_text(t, dice).position.swapped().to_gnubg()
        p = [float(x) for x in gnubg_nn.probabilities([list(opp), list(on_roll)], ply)]
        eq = 2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]
        vals.append(-eq)
    out["gnubg_nn"] = vals
    return out


# --- comparing -------------------------------------------------------------------------


def _pearson(x: list[float], y: list[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def match_marked(g: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """gnubg's marked checker plays, each with gbot's analysis of the same decision
    (``gbot``: None where gbot has no move there, matched by game, position ID and roll)."""
    by_key = {(m["game"], m["position_id"], tuple(m["dice"])): m for m in b["moves"]}
    return [dict(p, gbot=by_key.get((p["game"], p["position_id"], tuple(p["dice"]))))
            for p in g["plays"] if p["mark"]]


def _one(args: tuple[str, int, str | None]) -> dict[str, Any]:
    path, ply, cache = args
    where = Path(cache) / f"ply{ply}" / Path(path).stem if cache else None
    return {"file": path, "gnubg": gnubg_analysis(path, ply, where),
            "gbot": gbot_analysis(path, ply, where)}


def report(rows: list[dict[str, Any]], ply: int) -> dict[str, Any]:
    """Print the comparison; return its figures."""
    counts = {k: [0, 0, 0] for k in MARKS}      # marked, gbot calls best, not matched
    failures = []
    for r in rows:
        g, b = r["gnubg"], r["gbot"]
        by_name = {n: i for i, n in enumerate(b["names"])}
        for i, name in enumerate(g["names"]):
            j = by_name.get(name, i)
            print(f"{Path(r['file']).name:<10s} {name:<8s} gnubg {g['rate'][i]:6.1f} mEMG "
                  f"{g['checker_error'][i]:6.3f} EMG   gbot {b['rate'][j]:6.1f} mEMG "
                  f"{b['checker_error'][j]:6.3f} EMG")
        for p in match_marked(g, b):
            c = counts[p["mark"]]
            c[0] += 1
            m = p["gbot"]
            if m is None:
                c[2] += 1
            elif not m["forced"] and m["error"] == 0.0:
                c[1] += 1
                if p["mark"] == "very bad":
                    failures.append((r["file"], p))
    rates = figure_agreement(rows, "rate")
    n, mad = rates["players"], rates["mean_abs_diff"]
    per_figure = {k: figure_agreement(rows, k) for k in ("checker_rate", "cube_rate", "luck")}
    fig: dict[str, Any] = {"files": len(rows), "players": n, "ply": ply,
                           "rate_correlation": rates["correlation"],
                           "checker_total_correlation":
                               figure_agreement(rows, "checker_error")["correlation"],
                           "rate_mean_abs_diff": mad,
                           "marked": {k: {"gnubg": v[0], "gbot_best": v[1],
                                          "unmatched": v[2]} for k, v in counts.items()},
                           "very_bad_called_best": [], "figures": per_figure}
    print(f"\n{len(rows)} files, {n} player figures at {ply}-ply")
    print(f"correlation of error rates (mEMG/decision): {fig['rate_correlation']:.3f}")
    print(f"correlation of checker error totals (EMG):  {fig['checker_total_correlation']:.3f}")
    print(f"mean abs difference of error rates:         {mad:.2f} mEMG")
    for key, f in per_figure.items():
        print(f"{key:<13s} over {f['players']} player figures: correlation {f['correlation']:.3f},"
              f" mean abs difference {f['mean_abs_diff']:.4f}, sums gnubg {f['gnubg_sum']:.3f}"
              f" gbot {f['gbot_sum']:.3f} ({100 * f['sum_rel_diff']:+.1f} %), within 5 % of "
              f"gnubg's figure: {f['within_5pct']} of {f['players']}")
    for how, (k, same, lost) in counts.items():
        print(f"checker plays gnubg marks {how}: {k}; of those gbot calls best: {same}"
              + (f" ({lost} not found in gbot's analysis)" if lost else ""))
    for path, p in failures:
        fig["very_bad_called_best"].append(_failure(path, p, ply))
    print("\nchecker plays by player, as each analysis judges them:")
    fig["self_judgement"] = self_judgement(rows)
    return fig


def figure_agreement(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """One per-player figure of both analyses (``key``: ``rate``, ``checker_rate``,
    ``cube_rate`` in mEMG, ``checker_error``, ``luck`` in EMG) over every player of every
    file (matched by name): correlation, mean absolute difference, both sums and their
    relative difference, and how many of gbot's figures lie within 5 % of gnubg's."""
    gx: list[float] = []
    bx: list[float] = []
    for r in rows:
        g, b = r["gnubg"], r["gbot"]
        if key not in g or key not in b:
            continue
        by_name = {n: i for i, n in enumerate(b["names"])}
        for i, name in enumerate(g["names"]):
            gx.append(float(g[key][i]))
            bx.append(float(b[key][by_name.get(name, i)]))
    n = len(gx)
    gs, bs = sum(gx), sum(bx)
    return {"players": n, "correlation": _pearson(gx, bx) if n > 1 else float("nan"),
            "mean_abs_diff": sum(abs(a - c) for a, c in zip(gx, bx, strict=True)) / n
            if n else float("nan"),
            "gnubg_sum": gs, "gbot_sum": bs,
            "sum_rel_diff": (bs - gs) / abs(gs) if gs else float("nan"),
            "within_5pct": sum(1 for a, c in zip(gx, bx, strict=True)
                               if abs(c - a) <= 0.05 * abs(a))}


def self_judgement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How each analysis judges each player's checker plays, over the plays both analysed
    (unforced in gbot's, with the played one among gnubg's listed candidates): per player
    name, the plays, the share each analysis calls best, each one's mean error (mEMG per
    play), and per file gbot's mean error less gnubg's (the bias)."""
    out: dict[str, Any] = {}
    for r in rows:
        g, b = r["gnubg"], r["gbot"]
        by_key = {(m["game"], m["position_id"], tuple(m["dice"])): m for m in b["moves"]}
        per: dict[str, list[float]] = {}
        for p in g["plays"]:
            m = by_key.get((p["game"], p["position_id"], tuple(p["dice"])))
            if m is None or m["forced"] or p["played_rank"] is None or len(p["candidates"]) < 2:
                continue
            g_err = max(0.0, p["candidates"][0][1] - p["candidates"][p["played_rank"]][1])
            t = per.setdefault(p["player"], [0, 0, 0, 0.0, 0.0])
            t[0] += 1
            t[1] += p["played_rank"] == 0
            t[2] += m["error"] == 0.0
            t[3] += g_err
            t[4] += m["error"]
        for name, (n, g_best, b_best, g_sum, b_sum) in per.items():
            o = out.setdefault(name, {"plays": 0, "gnubg_best": 0, "gbot_best": 0,
                                      "gnubg_error": 0.0, "gbot_error": 0.0, "bias": []})
            o["plays"] += n
            o["gnubg_best"] += g_best
            o["gbot_best"] += b_best
            o["gnubg_error"] += g_sum
            o["gbot_error"] += b_sum
            o["bias"].append(1000.0 * (b_sum - g_sum) / n)
    for name, o in out.items():
        n = max(o["plays"], 1)
        bias = o["bias"]
        mean = sum(bias) / len(bias) if bias else float("nan")
        sd = (math.sqrt(sum((x - mean) ** 2 for x in bias) / (len(bias) - 1))
              if len(bias) > 1 else float("nan"))
        o.update(bias_mean=mean, bias_se=sd / math.sqrt(len(bias)) if bias else float("nan"),
                 files_gbot_lower=sum(1 for x in bias if x < 0), files=len(bias))
        print(f"{name:<8s} {o['plays']:4d} plays: called best by gnubg "
              f"{100.0 * o['gnubg_best'] / n:5.1f} %, by gbot {100.0 * o['gbot_best'] / n:5.1f} %;"
              f" mean error gnubg {1000.0 * o['gnubg_error'] / n:5.2f}, gbot "
              f"{1000.0 * o['gbot_error'] / n:5.2f} mEMG/play; per file gbot - gnubg "
              f"{mean:+.2f} +- {o['bias_se']:.2f} mEMG/play (gbot lower in "
              f"{o['files_gbot_lower']} of {o['files']} files)")
    return out


def conversion_check(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """gnubg's printed cubeless probabilities of every listed candidate through gbot's own
    conversion to the mover's value (:meth:`gbot.analysis.analyse.GameAnalysis.values_of`: cube
    model, match table, EMG at the cube), beside gnubg's printed cubeful equity. Differences
    come from the state reaching the conversion (score, cube, Crawford) or from the cube
    models, never from the networks. Per file: the candidates compared, the mean and largest
    absolute difference, and the largest one's play; per player the checker error totals
    gnubg prints and those its probabilities give through gbot's conversion."""
    import numpy as np

    import gbot
    from gbot.analysis.analyse import GameAnalysis, read_match

    out: dict[str, Any] = {"files": {}, "n": 0, "sum": 0.0, "over": 0, "errors": {}}
    for r in rows:
        record = read_match(r["file"])
        by_key = {(m["game"], m["position_id"], tuple(m["dice"])): m
                  for m in r["gbot"]["moves"]}
        n, total, worst, where = 0, 0.0, 0.0, ""
        games: dict[int, Any] = {}
        for p in r["gnubg"]["plays"]:
            m = by_key.get((p["game"], p["position_id"], tuple(p["dice"])))
            if m is None or m["forced"] or len(p["probs"]) != len(p["candidates"]):
                continue
            gi = game_index(record, int(m["game"]))
            g = games.get(gi) or games.setdefault(
                gi, GameAnalysis(record, record.games[gi], 0, None))
            a = record.games[gi].actions[int(m["index"])]
            dice = (max(a.dice), min(a.dice))
            st = g.match_state(a.player, *g.cube_before(int(m["index"])), dice)
            pos = gbot.Position.from_id(p["position_id"])
            boards = [pos.play_from_text(t, dice).position.swapped().board
                      for t, _ in p["candidates"]]
            vals = g.values_of(np.array(p["probs"]), np.array(boards, dtype=np.int8), st)
            if p["played_rank"] is not None:
                e = out["errors"].setdefault(p["player"], [0, 0.0, 0.0])
                e[0] += 1
                e[1] += p["candidates"][0][1] - p["candidates"][p["played_rank"]][1]
                e[2] += float(max(vals) - vals[p["played_rank"]])
            for (t, eq), v in zip(p["candidates"], vals, strict=True):
                d = abs(float(v) - eq)
                n += 1
                total += d
                out["over"] += d > 0.02
                if d > worst:
                    worst, where = d, (f"game {p['game'] + 1} move {p['move']} {t} gnubg "
                                       f"{eq:+.3f} gbot {float(v):+.3f}")
        out["files"][r["file"]] = {"n": n, "mean": total / n if n else 0.0, "max": worst,
                                   "where": where}
        out["n"] += n
        out["sum"] += total
        print(f"{Path(r['file']).name:<10s} {n:4d} candidates: mean |diff| "
              f"{total / max(n, 1):.4f}, max {worst:.3f} ({where})")
    out["mean"] = out["sum"] / max(out["n"], 1)
    print(f"all: {out['n']} candidates, mean |diff| {out['mean']:.4f} EMG, "
          f"{out['over']} over 0.02")
    for name, (k, g_err, c_err) in out["errors"].items():
        print(f"{name:<8s} {k:4d} plays: gnubg's error total {g_err:.3f} EMG, the same "
              f"probabilities through gbot's conversion {c_err:.3f}")
    return out


def _failure(path: str, p: dict[str, Any], ply: int) -> dict[str, Any]:
    """Print one very bad play gbot calls best, with both engines' equities."""
    best_t, best_g = p["candidates"][0]
    played_g = (p["candidates"][p["played_rank"]][1] if p["played_rank"] is not None
                else float("nan"))
    ops = second_opinions(path, ply, p["gbot"], [p["played"], best_t])
    print(f"  very bad, gbot's best: {Path(path).name} game {p['game'] + 1} move {p['move']} "
          f"{p['player']} {p['dice'][0]}{p['dice'][1]} {p['position_id']}\n"
          f"    played {p['played']:<22s} gnubg {played_g:+.3f}  gbot {ops['gbot'][0]:+.3f}"
          + (f"  gnubg-nn cubeless {ops['gnubg_nn'][0]:+.3f}" if "gnubg_nn" in ops else "")
          + f"\n    gnubg's best {best_t:<16s} gnubg {best_g:+.3f}  gbot {ops['gbot'][1]:+.3f}"
          + (f"  gnubg-nn cubeless {ops['gnubg_nn'][1]:+.3f}" if "gnubg_nn" in ops else ""))
    return {"file": path, "game": p["game"], "move": p["move"], "player": p["player"],
            "dice": p["dice"], "position_id": p["position_id"], "played": p["played"],
            "gnubg_best": best_t, "gnubg": [played_g, best_g], **ops}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cache", metavar="DIR", help="keep and reuse each file's outputs here")
    ap.add_argument("--json", metavar="PATH", help="also write every figure here")
    ap.add_argument("--conversion", action="store_true",
                    help="also put gnubg's printed probabilities through gbot's conversion")
    a = ap.parse_args()
    tasks = [(f, a.ply, a.cache) for f in a.files]
    if a.jobs <= 1:
        rows = [_one(t) for t in tasks]
    else:
        with cf.ProcessPoolExecutor(a.jobs) as pool:
            rows = list(pool.map(_one, tasks))
    fig = report(rows, a.ply)
    if a.conversion:
        print("\ngnubg's probabilities through gbot's conversion, beside gnubg's equities:")
        fig["conversion"] = conversion_check(rows)
    if a.json:
        Path(a.json).write_text(json.dumps({"figures": fig, "rows": rows}, indent=1))
    sys.exit(0)


if __name__ == "__main__":
    main()
