#!/usr/bin/env python3
"""gbot's server on its defaults against gnubg 1.07 as referee and opponent: N-point matches,
or money games with the cube (``--length 0``).

Each match (or session of ``--session-games`` money games, Jacoby and beavers on both sides
unless ``--no-jacoby`` / ``--no-beavers``) is one ``../shared/tools/gnubg_match.py`` session:
gnubg runs the match, plays its own seat at ``--gnubg-ply`` (2 = gnubg's default "World class"
player: cubeful, pruning nets, its own move filters) and asks gbot's external-player server
(the engine of ``gbot serve``, on its defaults unless ``--ply`` / ``--cube-ply`` say otherwise)
for the other seat. Matches come in pairs on the same dice seed with the seats swapped.
gbot's resignation offers are withheld (counted): gnubg's answer to a resignation is not
gbot's strength. Each finished match is kept as ``match-NNNN.json`` (and ``.sgf``) in the
output folder, so a rerun into the same folder continues; ``-j`` runs that many matches at
once, each worker with its own server.

Example:

  python3 scripts/bench_vs_gnubg.py --matches 300 --length 7 --gnubg-ply 2 -j 2
  python3 scripts/bench_vs_gnubg.py --matches 100 --length 0 --session-games 20 -j 2
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

import click

from gbot.tournament.stats import rate_interval

ROOT = Path(__file__).resolve().parents[1]
GNUBG_MATCH = ROOT.parent / "shared" / "tools" / "gnubg_match.py"
GNUBG = "/usr/games/gnubg"
RUNS = Path(os.environ.get("GBOT_RUNS", Path.home() / ".cache" / "gbot" / "runs"))

_server: Any = None
_offers: list[int] = []


def _start_server(ply: int | None, cube_ply: int | None, jacoby: bool, beavers: bool) -> None:
    """This worker's gbot server (resignation offers withheld and counted)."""
    global _server
    from benchlib import withholding_engine

    from gbot.adapters.gnubg_server import BackgroundServer
    from gbot.engine.engine import PLAY_PLY
    from gbot.game.match import Rules

    engine = withholding_engine(PLAY_PLY if ply is None else ply,
                                Rules(jacoby=jacoby, beavers=beavers, raccoons=beavers),
                                _offers, cube_ply=cube_ply)
    _server = BackgroundServer(engine)
    _server.__enter__()


def _play(k: int, length: int, seed: int, gnubg_ply: int, out: Path,
          money: tuple[int, bool, bool]) -> dict[str, Any]:
    """Match (money session) ``k``: dice seed ``seed * 100000 + k // 2``, gbot in seat
    ``k % 2``; ``money`` is (games per session, Jacoby, beavers)."""
    before = len(_offers)
    addr = _server.address
    sgf = out / f"match-{k:04d}.sgf"
    games, jacoby, beavers = money
    what = ["--match", str(length)] if length else (
        ["--games", str(games), "--beavers", "3" if beavers else "0"]
        + (["--jacoby"] if jacoby else []))
    cmd = [sys.executable, str(GNUBG_MATCH), "--external", f"{addr.host}:{addr.port}",
           *what, "--seed", str(seed * 100000 + k // 2),
           "--plies", str(gnubg_ply), "--ext-seat", str(k % 2), "--ext-name", "gbot",
           "--gnubg-name", "gnubg", "--save", str(sgf), "--json", "--gnubg", GNUBG,
           "--timeout", "3600"]
    t0 = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=3700)
    text = run.stdout
    result: dict[str, Any] = json.loads(text[text.index("{"):]) if "{" in text else {}
    summary = next((ln for ln in text.splitlines() if ln.startswith("RESULT")), "")
    fields = dict(f.split("=", 1) for f in summary.split()[1:] if "=" in f)
    rec = {"match": k, "seat": k % 2, "seed": seed * 100000 + k // 2, "summary": summary,
           "returncode": run.returncode, "winner": fields.get("winner"),
           "complete": fields.get("complete") == "yes",
           "points": _gbot_points(result, k % 2), "withheld": len(_offers) - before,
           "seconds": round(time.time() - t0, 1)}
    (out / f"match-{k:04d}.json").write_text(json.dumps(rec) + "\n")
    return rec


def _gbot_points(result: dict[str, Any], seat: int) -> list[int]:
    """gbot's signed points in each finished game of a gnubg_match result (gnubg calls its
    player 0 "X" and player 1 "O")."""
    mine = "XO"[seat]
    return [(1 if g["winner"] == mine else -1) * int(g.get("points-won", 0))
            for g in result.get("games", []) if g.get("winner") in ("X", "O")]


def summarise(recs: list[dict[str, Any]], money: bool) -> str:
    """One line: matches won by gbot with the interval (money: gbot's points per game with its
    standard error, from the seat-swapped pairs), and the trouble seen."""
    trouble = sum(1 for r in recs if r.get("returncode"))
    withheld = sum(r.get("withheld", 0) for r in recs)
    tail = (f"incomplete or troubled {trouble}; gbot resignation offers withheld {withheld}")
    if money:
        pts = [p for r in recs for p in r.get("points", [])]
        pairs: dict[int, list[float]] = {}
        for r in recs:
            if r.get("points"):
                pairs.setdefault(r["seed"], []).append(sum(r["points"]) / len(r["points"]))
        means = [sum(v) / 2 for v in pairs.values() if len(v) == 2]
        n = len(means)
        mean = sum(means) / n if n else float("nan")
        se = (math.sqrt(sum((m - mean) ** 2 for m in means) / (n - 1) / n) if n > 1
              else float("nan"))
        return (f"gbot {mean:+.3f} ppg +- {se:.3f} (SE over {n} seat-swapped session pairs, "
                f"{len(pts)} games); {tail}")
    done = [r for r in recs if r.get("complete") and r.get("winner") in ("gbot", "gnubg")]
    won = sum(r["winner"] == "gbot" for r in done)
    lo, hi = 0.0, 1.0
    if done:                            # Wilson's interval: the unclustered standard error
        rate = won / len(done)
        lo, hi = rate_interval(rate, math.sqrt(rate * (1 - rate) / len(done)), len(done))
    return (f"gbot won {won} of {len(done)} matches ({100 * won / max(len(done), 1):.1f} %, "
            f"95 % [{100 * lo:.1f}, {100 * hi:.1f}]); {tail}")


@click.command()
@click.option("--matches", default=300, show_default=True, help="matches in all (even)")
@click.option("--length", default=7, show_default=True, help="match length; 0: money games")
@click.option("--session-games", default=20, show_default=True,
              help="money games per gnubg session (--length 0)")
@click.option("--jacoby/--no-jacoby", default=True, show_default=True,
              help="money: Jacoby rule on both sides (gnubg's default)")
@click.option("--beavers/--no-beavers", default=True, show_default=True,
              help="money: beavers on both sides (gnubg's default)")
@click.option("--gnubg-ply", default=2, show_default=True,
              help="gnubg's depth (2 = its default World class player)")
@click.option("--ply", type=int, default=None, help="gbot's checker depth (default: gbot's)")
@click.option("--cube-ply", type=int, default=None, help="gbot's cube depth (default: gbot's)")
@click.option("--seed", default=1, show_default=True)
@click.option("-j", "--workers", default=1, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="results folder (default: under ~/.cache/gbot/runs); reruns continue")
def main(matches: int, length: int, session_games: int, jacoby: bool, beavers: bool,
         gnubg_ply: int, ply: int | None, cube_ply: int | None, seed: int, workers: int,
         out: Path | None) -> None:
    """Play gbot's server against gnubg in N-point matches and print gbot's match-win rate."""
    if not GNUBG_MATCH.exists() or not Path(GNUBG).exists():
        raise click.ClickException(f"needs {GNUBG_MATCH} and {GNUBG}")
    tag = f"p{'d' if ply is None else ply}-c{'d' if cube_ply is None else cube_ply}"
    if length == 0:
        tag += f"-m{session_games}{'j' if jacoby else ''}{'b' if beavers else ''}"
    money = (session_games, jacoby, beavers)
    out = out or RUNS / f"vs-gnubg-L{length}-g{gnubg_ply}-{tag}-s{seed}"
    out.mkdir(parents=True, exist_ok=True)
    recs = [json.loads(p.read_text()) for p in sorted(out.glob("match-*.json"))]
    todo = [k for k in range(matches) if not (out / f"match-{k:04d}.json").exists()]
    click.echo(f"{len(recs)} matches already in {out}; {len(todo)} to play", err=True)
    t0 = time.time()
    with ProcessPoolExecutor(workers, initializer=_start_server,
                             initargs=(ply, cube_ply, jacoby, beavers)) as pool:
        pending = {pool.submit(_play, k, length, seed, gnubg_ply, out, money)
                   for k in todo[:workers]}
        queue = todo[workers:]
        done_here = 0
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                recs.append(f.result())
                done_here += 1
                if queue:
                    pending.add(pool.submit(_play, queue.pop(0), length, seed, gnubg_ply, out,
                                            money))
            left = (len(todo) - done_here) * (time.time() - t0) / done_here
            click.echo(f"{done_here}/{len(todo)} ETA {left / 60:.0f} min: "
                       f"{summarise(recs, length == 0)}", err=True)
    what = f"{length}-point matches" if length else "money games with the cube"
    click.echo(f"gbot {tag} against gnubg {gnubg_ply}-ply, {what}: {summarise(recs, length == 0)}")


if __name__ == "__main__":
    main()
