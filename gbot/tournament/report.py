"""Tournament reports: a JSON summary, a text table and a self-contained HTML page.

:func:`summarize` turns a run (configuration plus game records) into one JSON-ready dict: the
settings, the players and what really played for each (engine, ply, backend), one row of
:class:`~gbot.tournament.stats.PairingStats` per pairing, and Elo-style ratings. :func:`text`
and :func:`html` format that dict; the HTML page draws each pairing's running score as inline
SVG (no plotting library, no external files). :func:`write_reports` writes ``results.json``,
``report.txt`` and ``report.html`` into the tournament folder.
"""

from __future__ import annotations

import html as _html
import json
import math
from pathlib import Path
from typing import Any

from gbot.tournament.config import RunSummary
from gbot.tournament.stats import elo_ratings, pairing_stats, running_score
from gbot.version import __version__

__all__ = ["format_rating", "html", "running_svg", "summarize", "text", "write_reports"]


def _rules_text(cfg: dict[str, Any]) -> str:
    r = cfg["rules"]
    bits = ["cube " + ("on" if r["cube_enabled"] else "off")]
    if r["cube_enabled"] and r["cube_cap"]:
        bits.append(f"cap {r['cube_cap']}")
    if r["end_mode"] != "backgammons":
        bits.append(f"end mode {r['end_mode']}")
    for key, name in (("jacoby", "Jacoby"), ("beavers", "beavers"), ("raccoons", "raccoons"),
                      ("caucasian", "Caucasian"), ("draw_last_roll", "draw on last roll")):
        if r[key] and (cfg["length"] == 0 or key not in ("jacoby", "beavers", "raccoons")):
            bits.append(name)
    if r["opener"] != "roll":
        bits.append(f"opener {r['opener']}")
    if r["variation"] != "standard":
        bits.append(r["variation"])
    return ", ".join(bits)


def summarize(run: RunSummary) -> dict[str, Any]:
    """The JSON-ready summary of ``run`` (see the module docstring)."""
    cfg = run.config
    labels = cfg.labels
    pairings = cfg.pairings()
    rows = []
    results = []
    running = {}
    for p, (i, j) in enumerate(pairings):
        a, b = labels[i], labels[j]
        recs = [r for r in run.records if int(r["key"][0]) == p]
        st = pairing_stats(recs, a, b, cfg.length)
        rows.append(st.to_json())
        running[f"{a} vs {b}"] = running_score(recs)
        if cfg.length:
            results.append((a, b, float(st.match_wins), float(st.matches)))
        else:
            results.append((a, b, st.wins + 0.5 * st.draws, float(st.games)))
    anchor = labels[0] if cfg.scheme == "gauntlet" else None
    ratings = elo_ratings(labels, results, anchor=anchor)
    return {
        "gbot": __version__,
        "config": cfg.to_json(),
        "rules_text": _rules_text(cfg.to_json()),
        "players": [{"label": s.label, "spec": s.text(),
                     "plays": run.engines.get(s.label, "")} for s in cfg.specs()],
        "units_total": cfg.total_units,
        "games": len(run.records),
        "complete": run.complete,
        "pairings": rows,
        "ratings": {k: round(v, 1) for k, v in sorted(ratings.items(),
                                                       key=lambda kv: -kv[1])},
        "rated_on": "matches" if cfg.length else "games",
        "running": running,
    }


def _f(x: float | None, fmt: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}" if d else "-"


def _head(s: dict[str, Any]) -> str:
    c = s["config"]
    what = f"{c['length']}-point matches" if c["length"] else "money games"
    dice = "duplicate dice" if c["duplicate"] else "independent dice"
    state = "complete" if s["complete"] else "INCOMPLETE"
    return (f"{c['scheme']}, {what} ({s['rules_text']}), {dice}, seed {c['seed']}; "
            f"{s['games']} games, {state}")


def _table_rows(s: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    match = bool(s["config"]["length"])
    head = ["A", "B"]
    if match:
        head += ["matches", "A match%", "s.e.", "95% interval"]
    head += ["games", "A ppg", "s.e.", "95% interval", "A win%", "A g%", "A bg%", "B g%",
             "B bg%"]
    rows = []
    for r in s["pairings"]:
        row = [r["a"], r["b"]]
        if match:
            ci = r["match_ci"]
            row += [str(r["matches"]), _f(None if r["match_rate"] is None
                                          else 100 * r["match_rate"], ".1f"),
                    _f(None if r["match_se"] is None else 100 * r["match_se"], ".1f"),
                    "-" if ci[0] is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"]
        ci = r["ci"]
        g = r["games"]
        row += [str(g), _f(r["ppg"], "+.3f"), _f(r["se"], ".3f"),
                "-" if ci[0] is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]",
                _f(None if r["win_rate"] is None else 100 * r["win_rate"], ".1f"),
                _pct(r["gammons"][0], g), _pct(r["backgammons"][0], g),
                _pct(r["gammons"][1], g), _pct(r["backgammons"][1], g)]
        rows.append(row)
    return head, rows


def text(s: dict[str, Any]) -> str:
    """The summary as plain-text tables."""
    head, rows = _table_rows(s)
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h)
              for k, h in enumerate(head)]
    lines = [_head(s), ""]
    lines.append("  ".join(h.ljust(w) if k < 2 else h.rjust(w)
                           for k, (h, w) in enumerate(zip(head, widths, strict=True))))
    for r in rows:
        lines.append("  ".join(v.ljust(w) if k < 2 else v.rjust(w)
                               for k, (v, w) in enumerate(zip(r, widths, strict=True))))
    if len(s["ratings"]) > 2 or s["config"]["scheme"] != "head-to-head":
        lines += ["", f"Elo-style ratings (from {s['rated_on']} won; "
                  + ("first player = 0)" if s["config"]["scheme"] == "gauntlet" else "mean 0)")]
        for label, r in s["ratings"].items():
            lines.append(f"  {label:<24} {format_rating(r):>8s}")
    lines += ["", "players:"]
    for p in s["players"]:
        lines.append(f"  {p['label']}: {p['spec']}" + (f" ({p['plays']})" if p["plays"] else ""))
    return "\n".join(lines) + "\n"


_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")


def _signed(v: float, digits: int) -> str:
    """``v`` with its sign and ``digits`` decimals; what rounds to zero is ``+0``, never
    ``-0``."""
    r = round(v, digits)
    return f"{(r if r != 0 else 0.0):+.{digits}f}"


def format_rating(v: float) -> str:
    """An Elo-style rating to one decimal (``+0.0``, not ``-0.0``)."""
    return _signed(v, 1)


def running_svg(running: dict[str, list[float]], width: int = 720, height: int = 320) -> str:
    """Running scores as an SVG line chart (A's cumulative points against games)."""
    series = {k: v for k, v in running.items() if v}
    if not series:
        return "<p>No games yet.</p>"
    left, right, top, bottom = 60, 10, 10, 40
    n = max(len(v) for v in series.values())
    lo = min(0.0, *(min(v) for v in series.values()))
    hi = max(0.0, *(max(v) for v in series.values()))
    if hi - lo < 1e-9:
        hi, lo = hi + 1, lo - 1
    w, h = width - left - right, height - top - bottom

    def x(games: int) -> float:
        return left + w * games / max(n, 1)

    def y(v: float) -> float:
        return top + h * (hi - v) / (hi - lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="running score">',
           f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#999"/>',
           f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + w}" y2="{y(0):.1f}" '
           'stroke="#bbb" stroke-dasharray="4 3"/>']
    drawn: list[float] = []
    for v in (0.0, lo, hi):          # each label once, none on top of another
        if any(abs(y(v) - d) < 12 for d in drawn):
            continue
        drawn.append(y(v))
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" font-size="11" '
                   f'text-anchor="end">{_signed(v, 0)}</text>')
    out.append(f'<text x="{left + w / 2:.0f}" y="{height - 8}" font-size="12" '
               f'text-anchor="middle">games (0 to {n})</text>')
    for k, (name, vals) in enumerate(series.items()):
        colour = _COLOURS[k % len(_COLOURS)]
        step = max(1, len(vals) // 2000)
        pts = [(0, 0.0)] + [(i + 1, vals[i]) for i in range(0, len(vals), step)]
        if (len(vals) - 1) % step:
            pts.append((len(vals), vals[-1]))
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in pts)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                   f'points="{path}"/>')
        out.append(f'<text x="{left + 8}" y="{top + 16 + 15 * k}" font-size="12" '
                   f'fill="{colour}">{_html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def html(s: dict[str, Any]) -> str:
    """The summary as one self-contained HTML page (tables and an inline SVG chart)."""
    e = _html.escape
    head, rows = _table_rows(s)
    table = ["<table>", "<tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        table.append("<tr>" + "".join(f"<td>{e(v)}</td>" for v in r) + "</tr>")
    table.append("</table>")
    ratings = ""
    if s["ratings"] and (len(s["ratings"]) > 2 or s["config"]["scheme"] != "head-to-head"):
        ratings = ("<h2>Ratings</h2><p>Elo-style, from " + e(s["rated_on"]) + " won.</p>"
                   "<table><tr><th>player</th><th>rating</th></tr>"
                   + "".join(f"<tr><td>{e(k)}</td><td>{format_rating(v)}</td></tr>"
                             for k, v in s["ratings"].items()) + "</table>")
    players = "".join(f"<li><b>{e(p['label'])}</b>: <code>{e(p['spec'])}</code>"
                      + (f" ({e(p['plays'])})" if p["plays"] else "") + "</li>"
                      for p in s["players"])
    style = ("body{font-family:sans-serif;margin:2em;max-width:70em}"
             "table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}"
             "td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>gbot tournament</title>", f"<style>{style}</style></head><body>",
        "<h1>gbot tournament</h1>", f"<p>{e(_head(s))}</p>", *table, ratings,
        "<h2>Running score</h2><p>Each pairing's first player's net points, game by game "
        "(mirrored games next to each other).</p>", running_svg(s["running"]),
        f"<h2>Players</h2><ul>{players}</ul>",
        f"<p><small>gbot {e(s['gbot'])}</small></p>", "</body></html>", ""])


def write_reports(run: RunSummary) -> dict[str, Any]:
    """Write ``results.json``, ``report.txt`` and ``report.html`` for ``run``; returns the
    summary."""
    s = summarize(run)
    folder = Path(run.folder)
    for name, body in (("results.json", json.dumps(s, indent=1) + "\n"),
                       ("report.txt", text(s)), ("report.html", html(s))):
        tmp = folder / (name + ".tmp")
        tmp.write_text(body, encoding="utf-8")
        tmp.replace(folder / name)
    return s
