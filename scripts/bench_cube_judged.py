#!/usr/bin/env python3
"""gnubg-judged money play with the cube: gbot's server against gnubg, analysed by gnubg 1.07.

gbot's gnubg external-player server (the engine of ``gbot serve``, run in this process on an
ephemeral port) plays money games with the cube against gnubg (0-ply by default) through
``../shared/tools/gnubg_match.py``; Jacoby and beavers are the same on both sides. Games are
played in chunks, each with its own dice seed (``seed * 1000 + chunk``) and saved as
``chunk-NNN.sgf``; gnubg (``gnubg -t``) then analyses each chunk (``analyse match`` at
``--analysis-ply``) and ``show statistics match`` is kept as ``chunk-NNN.stats.txt``, the
analysed match as ``chunk-NNN.analysed.sgf``. A rerun with the same folder continues with the
missing chunks. The report sums the chunks and prints
both players' checker-play and cube error rates (mEMG per unforced move / per close-or-actual
cube decision, gnubg's definitions, printed as positive costs) side by side, with the counts
of missed doubles, wrong doubles, wrong takes and wrong passes, and the actual and
luck-adjusted results. From the analysed matches, checker errors are also split by position
class (contact, crashed, race, bear-off; gbot's classifier on the position before the move).

gbot does not resign in these runs (its resignation offers are counted, then withheld): gnubg
accepts or declines a resignation by its own rules, and none of the points may come from
there. Games that still end by a resignation (gnubg's own) are counted and reported.

Examples:

  python3 scripts/bench_cube_judged.py --games 10 --analysis-ply 1       # a quick check
  python3 scripts/bench_cube_judged.py --games 200 --out ~/.cache/gbot/runs/judged-200
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click
import numpy as np

ROOT = Path(__file__).resolve().parents[1]

GNUBG_MATCH = ROOT.parent / "shared" / "tools" / "gnubg_match.py"
GNUBG = "/usr/games/gnubg"
RUNS = Path(os.environ.get("GBOT_RUNS", Path.home() / ".cache" / "gbot" / "runs"))

_FLOAT_PAIR = re.compile(r"([-+]?\d+\.\d+)\s*\(\s*[-+]?\d+\.\d+\s*\)")
_COUNT_EMG = re.compile(r"(\d+)(?:\s*\(\s*([-+]?\d+\.\d+)\s*\(\s*[-+]?\d+\.\d+\s*\)\s*\))?")
_LABEL = re.compile(r"^(\S.*?)\s{2,}(\S.*)$")
_COUNTS = {"Total moves", "Unforced moves", "Close or actual cube decisions", "Doubles",
           "Takes", "Passes"}
_ERRORS = ("Missed doubles below CP", "Missed doubles above CP", "Wrong doubles below DP",
           "Wrong doubles above TG", "Wrong takes", "Wrong passes")
_SECTIONS = {"Chequerplay statistics": "checker", "Cube statistics": "cube",
             "Overall statistics": "overall", "Luck statistics": "luck"}


def parse_statistics(text: str) -> dict[str, dict[str, float]]:
    """Per player name: the totals of one ``show statistics match`` table (gnubg 1.07).

    Keys: ``moves``, ``unforced``, ``checker_emg``, ``cube_decisions``, ``cube_emg``,
    ``doubles``, ``takes``, ``passes``, each of :data:`_ERRORS` as ``<name>`` (count) and
    ``<name> emg``, ``luck_adjusted`` and ``actual`` (points, the table's totals).
    """
    names: list[str] = []
    out: list[dict[str, float]] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("Player "):
            if names:
                break                           # only the first table
            names = line.split()[1:3]
            out = [{}, {}]
            continue
        if line.strip() in _SECTIONS:
            section = _SECTIONS[line.strip()]
            continue
        if not names:
            continue
        m = _LABEL.match(line)
        if m is None:
            continue
        label, rest = m.group(1), m.group(2)
        if label in _COUNTS:
            vals = [int(v) for v in rest.split()[:2]]
            key = {"Total moves": "moves", "Unforced moves": "unforced",
                   "Close or actual cube decisions": "cube_decisions"}.get(label,
                                                                           label.lower())
            for i in range(2):
                out[i][key] = vals[i]
        elif label.startswith(_ERRORS):
            name = label.split(" (")[0]
            for i, (count, emg) in enumerate(_COUNT_EMG.findall(rest)[:2]):
                out[i][name] = int(count)
                out[i][name + " emg"] = float(emg) if emg else 0.0
        elif label == "Error total EMG (Points)" and section in ("checker", "cube"):
            for i, v in enumerate(_FLOAT_PAIR.findall(rest)[:2]):
                out[i][f"{section}_emg"] = float(v)
        elif label in ("Luck adjusted result", "Actual result"):
            key = "luck_adjusted" if label.startswith("Luck") else "actual"
            for i, v in enumerate(rest.split()[:2]):
                out[i][key] = float(v)
    if len(names) != 2 or "unforced" not in out[0]:
        raise ValueError("no gnubg statistics table in the analysis output")
    return dict(zip(names, out, strict=True))


def _weights_tag(weights: Path | None) -> str:
    """The default output folder's suffix for ``weights``: a finished chunk is reused from
    that folder, so games of other networks must not land in it."""
    if weights is None:
        return ""
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:10]
    return f"-w{weights.stem}-{digest}"


def _play_chunk(address: Any, games: int, seed: int, gnubg_ply: int, jacoby: bool,
                beavers: bool, sgf: Path) -> dict[str, Any]:
    """One gnubg session of ``games`` money games against the server at ``address``."""
    cmd = [sys.executable, str(GNUBG_MATCH), "--external", f"{address.host}:{address.port}",
           "--games", str(games), "--seed", str(seed), "--plies", str(gnubg_ply),
           "--ext-name", "gbot", "--gnubg-name", "gnubg", "--beavers", "3" if beavers else "0",
           "--save", str(sgf), "--json", "--gnubg", GNUBG]
    if jacoby:
        cmd.append("--jacoby")
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    text = run.stdout
    result: dict[str, Any] = json.loads(text[text.index("{"):]) if "{" in text else {}
    result["returncode"] = run.returncode
    result["summary"] = next((ln for ln in text.splitlines() if ln.startswith("RESULT")), "")
    if not sgf.exists():
        raise click.ClickException(f"gnubg saved no match ({result['summary'] or run.stderr})")
    return result


def _analyse(sgf: Path, ply: int, jacoby: bool, beavers: bool,
             analysed: Path | None = None) -> str:
    """gnubg 1.07's ``show statistics match`` after ``analyse match`` at ``ply`` (the analysed
    match saved as ``analysed`` when given)."""
    script = "\n".join([
        "set threads 1",
        f"set jacoby {'on' if jacoby else 'off'}",
        f"set beavers {3 if beavers else 0}",
        f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
        "set analysis chequerplay evaluation cubeful on",
        "set analysis cubedecision evaluation cubeful on",
        f'load match "{sgf}"',
        "analyse match",
        "show statistics match",
        *([f'save match "{analysed}"'] if analysed else []),
        ""])
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write(script)
    try:
        run = subprocess.run([GNUBG, "-t", "-q"], stdin=open(fh.name), capture_output=True,
                             text=True, timeout=7200)
    finally:
        os.unlink(fh.name)
    text = run.stdout
    start = text.find("Player ")
    if start < 0:
        raise click.ClickException(f"gnubg's analysis of {sgf} printed no statistics "
                                   f"({run.stderr.strip()[-200:]})")
    return text[start:]


_EQUITY_FIELD = 9
"""Where a candidate of gnubg's ``A[]`` property keeps its equity: move, ``E``, ``ver``, ``3``,
five probabilities, equity."""


def checker_by_class(sgf_text: str, jacoby: bool, beavers: bool
                     ) -> dict[str, dict[str, list[float]]]:
    """Per player name and position class: ``[moves, EMG lost]`` of the checker plays gnubg
    analysed with more than one candidate (its "unforced" moves) in an analysed ``.sgf``;
    the loss of a move is the best candidate's equity less the played one's."""
    from gbot.core.classify import NAMES, classify
    from gbot.game.match import Rules
    from gbot.records.sgf_read import loads, parse

    record = loads(sgf_text, Rules(jacoby=jacoby, beavers=beavers, raccoons=beavers))
    out: dict[str, dict[str, list[float]]] = {}
    for tree, game in zip(parse(sgf_text), record.games, strict=True):
        root = tree[0]
        names = {"W": root.get("PW", ["white"])[0], "B": root.get("PB", ["black"])[0]}
        plays = [(col, node) for node in tree[1:] for col in ("B", "W")
                 if col in node and node[col][0][:1].isdigit()]
        moves = [a for a in game.actions if a.kind == "move"]
        if len(plays) != len(moves):
            raise ValueError(f"game {game.number}: {len(plays)} checker plays in the tree, "
                             f"{len(moves)} replayed")
        for (col, node), action in zip(plays, moves, strict=True):
            cands = node.get("A", [])[1:]
            if len(cands) < 2:
                continue
            equities = [float(c.split()[_EQUITY_FIELD]) for c in cands]
            loss = max(equities) - equities[int(node["A"][0])]
            cls = NAMES[classify(np.array(action.board, dtype=np.int8))]
            row = out.setdefault(names[col], {}).setdefault(cls, [0.0, 0.0])
            row[0] += 1
            row[1] += loss
    return out


def _total(chunks: list[dict[str, Any]], who: str) -> dict[str, float]:
    tot: dict[str, float] = {}
    for c in chunks:
        for k, v in c["stats"][who].items():
            tot[k] = tot.get(k, 0.0) + v
    return tot


def report(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Summed figures of the analysed chunks, and the printed table."""
    games = [g for c in chunks for g in c["play"].get("games", [])]
    gb, gn = _total(chunks, "gbot"), _total(chunks, "gnubg")
    rows: list[tuple[str, str, str]] = []

    def rate(t: dict[str, float], emg: str, n: str) -> float:
        return -1000.0 * t.get(emg, 0.0) / t[n] + 0.0 if t.get(n) else float("nan")

    out: dict[str, Any] = {"games": len(games)}
    for who, t in (("gbot", gb), ("gnubg", gn)):
        out[who] = dict(t)
        out[who]["checker_rate"] = rate(t, "checker_emg", "unforced")
        out[who]["cube_rate"] = rate(t, "cube_emg", "cube_decisions")
    rows.append(("checker play, mEMG per unforced move", f"{out['gbot']['checker_rate']:.2f}",
                 f"{out['gnubg']['checker_rate']:.2f}"))
    rows.append(("  unforced moves", f"{gb['unforced']:.0f}", f"{gn['unforced']:.0f}"))
    by_class: dict[str, dict[str, list[float]]] = {}
    for c in chunks:
        for who, classes in c.get("by_class", {}).items():
            for cls, (n, emg) in classes.items():
                row = by_class.setdefault(who, {}).setdefault(cls, [0.0, 0.0])
                row[0] += n
                row[1] += emg
    if by_class:
        covered = sum(1 for c in chunks if c.get("by_class"))
        out["checker_by_class"] = by_class
        from gbot.core.classify import NAMES
        for cls in reversed(NAMES[1:]):     # contact, crashed, race, bear-off
            cells = []
            for who in ("gbot", "gnubg"):
                n, emg = by_class.get(who, {}).get(cls, [0.0, 0.0])
                cells.append(f"{1000 * emg / n:.2f} ({n:.0f})" if n else "-")
            rows.append((f"  {cls} (mEMG per move, {covered} chunks)", cells[0], cells[1]))
    rows.append(("cube, mEMG per close or actual decision", f"{out['gbot']['cube_rate']:.2f}",
                 f"{out['gnubg']['cube_rate']:.2f}"))
    rows.append(("  close or actual cube decisions", f"{gb['cube_decisions']:.0f}",
                 f"{gn['cube_decisions']:.0f}"))
    for name in _ERRORS:
        rows.append((f"  {name.lower()} (EMG)",
                     f"{gb.get(name, 0):.0f} ({gb.get(name + ' emg', 0):+.3f})",
                     f"{gn.get(name, 0):.0f} ({gn.get(name + ' emg', 0):+.3f})"))
    for k in ("doubles", "takes", "passes"):
        rows.append((f"  {k}", f"{gb.get(k, 0):.0f}", f"{gn.get(k, 0):.0f}"))
    n = max(len(games), 1)
    rows.append(("result, ppg", f"{gb.get('actual', 0) / n:+.3f}",
                 f"{gn.get('actual', 0) / n:+.3f}"))
    rows.append(("luck-adjusted result, ppg", f"{gb.get('luck_adjusted', 0) / n:+.3f}",
                 f"{gn.get('luck_adjusted', 0) / n:+.3f}"))
    width = max(len(r[0]) for r in rows)
    lines = [f"{'':{width}}  {'gbot':>16}  {'gnubg':>16}"]
    lines += [f"{a:{width}}  {b:>16}  {c:>16}" for a, b, c in rows]
    out["table"] = "\n".join(lines)
    out["resigned_games"] = sum(1 for g in games if g.get("resigned"))
    out["gbot_resignations_withheld"] = sum(c.get("withheld", 0) for c in chunks)
    out["protocol_trouble"] = [c["play"]["summary"] for c in chunks
                               if c["play"].get("returncode")]
    return out


@click.command()
@click.option("--games", default=200, show_default=True, help="money games in all")
@click.option("--chunk", default=10, show_default=True, help="games per gnubg session")
@click.option("--ply", default=0, show_default=True, help="gbot's look-ahead (gbot serve --ply)")
@click.option("--gnubg-ply", default=0, show_default=True, help="gnubg's playing depth")
@click.option("--analysis-ply", default=2, show_default=True, help="gnubg's analysis depth")
@click.option("--jacoby/--no-jacoby", default=True, show_default=True,
              help="Jacoby rule on both sides")
@click.option("--beavers/--no-beavers", default=True, show_default=True,
              help="beavers on both sides")
@click.option("--seed", default=1, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="folder for the games and analyses (default: under ~/.cache/gbot/runs)")
@click.option("--json-out", type=click.Path(path_type=Path), default=None)
@click.option("--weights", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="gbot's networks (.npz; default: the shipped ones)")
def main(games: int, chunk: int, ply: int, gnubg_ply: int, analysis_ply: int, jacoby: bool,
         beavers: bool, seed: int, out: Path | None, json_out: Path | None,
         weights: Path | None) -> None:
    """Play gbot's server against gnubg with the cube and print gnubg's judgement of both."""
    from gbot.adapters.gnubg_server import BackgroundServer

    if not GNUBG_MATCH.exists() or not Path(GNUBG).exists():
        raise click.ClickException(f"needs {GNUBG_MATCH} and {GNUBG}")
    out = out or RUNS / (f"judged-s{seed}-p{ply}-g{gnubg_ply}-a{analysis_ply}"
                         f"-{'j' if jacoby else 'nj'}{_weights_tag(weights)}")
    out.mkdir(parents=True, exist_ok=True)
    n_chunks = (games + chunk - 1) // chunk
    chunks: list[dict[str, Any]] = []
    t0 = time.time()
    done_here = 0
    offers: list[int] = []
    from benchlib import withholding_engine

    from gbot.game.match import Rules

    engine = withholding_engine(ply, Rules(jacoby=jacoby, beavers=beavers), offers,
                                weights=weights)
    with BackgroundServer(engine) as srv:
        click.echo(f"gbot's server ready on {srv.address} ({time.time() - t0:.0f}s)", err=True)
        t0 = time.time()
        for k in range(n_chunks):
            size = min(chunk, games - k * chunk)
            sgf, stats, meta = (out / f"chunk-{k:03d}.sgf", out / f"chunk-{k:03d}.stats.txt",
                                out / f"chunk-{k:03d}.json")
            analysed = out / f"chunk-{k:03d}.analysed.sgf"
            if stats.exists() and meta.exists():
                rec = json.loads(meta.read_text())
            else:
                before = len(offers)
                t1 = time.time()
                play = _play_chunk(srv.address, size, seed * 1000 + k, gnubg_ply, jacoby,
                                   beavers, sgf)
                t2 = time.time()
                analysed.unlink(missing_ok=True)    # no older analysis left if this one fails
                text = _analyse(sgf, analysis_ply, jacoby, beavers, analysed)
                stats.write_text(text)
                rec = {"play": play, "withheld": len(offers) - before,
                       "play_s": round(t2 - t1, 1), "analyse_s": round(time.time() - t2, 1)}
                meta.write_text(json.dumps(rec, indent=1) + "\n")
                done_here += 1
            rec["stats"] = parse_statistics(stats.read_text())
            if analysed.exists():
                rec["by_class"] = checker_by_class(analysed.read_text(), jacoby, beavers)
            chunks.append(rec)
            elapsed = time.time() - t0
            left = (n_chunks - k - 1) * elapsed / done_here if done_here else 0.0
            now = report(chunks)
            click.echo(f"chunk {k + 1}/{n_chunks}: {now['games']} games, gbot checker "
                       f"{now['gbot']['checker_rate']:.2f} / cube {now['gbot']['cube_rate']:.2f}"
                       f" mEMG vs gnubg {now['gnubg']['checker_rate']:.2f} / "
                       f"{now['gnubg']['cube_rate']:.2f}; {elapsed / 60:.1f} min, "
                       f"ETA {left / 60:.1f} min", err=True)
    res = report(chunks)
    res.update({"ply": ply, "gnubg_ply": gnubg_ply, "analysis_ply": analysis_ply,
                "jacoby": jacoby, "beavers": beavers, "seed": seed, "out": str(out)})
    click.echo(f"gbot {ply}-ply (server) vs gnubg {gnubg_ply}-ply, {res['games']} money games "
               f"with the cube, Jacoby {'on' if jacoby else 'off'} and beavers "
               f"{'on' if beavers else 'off'} on both sides; gnubg 1.07 analysis at "
               f"{analysis_ply}-ply:")
    click.echo(res["table"])
    click.echo(f"games ended by a resignation: {res['resigned_games']}; gbot resignation "
               f"offers withheld: {res['gbot_resignations_withheld']}; sessions with protocol "
               f"trouble: {len(res['protocol_trouble'])}")
    if json_out:
        json_out.write_text(json.dumps({k: v for k, v in res.items() if k != "table"},
                                       indent=1) + "\n")


if __name__ == "__main__":
    main()
