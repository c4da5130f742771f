"""The HTML report of a match analysis (``gbot analyse FILE --html OUT``): one self-contained
page (inline CSS, SVG and a few lines of script; nothing fetched).

It holds the players' figures (:func:`summary_rows`, shared with the text output), a plot of
the equity over the match (player 0's match winning chance in a match, its equity in money
play; each game its own line, game boundaries marked, errors dotted and linked), and per
game its decisions in order. An unforced checker play shows the board as SVG (points,
checkers with counts, bar, borne-off trays, dice, cube), the candidates the analysis valued
(at least the best five and the played one) with equities and probabilities, the luck of the
roll, the Position ID and Match ID, and the mark. A cube decision or an answer to a double
shows the board with the cube figures (no double, double/take, double/pass and the proper
action). A forced play (one legal play, or none) takes one line.

The board keeps one orientation: player 0 at the bottom, bearing off to the right; the point
numbers are those of the player to act, as gnubg draws them.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from typing import Any

from gbot.analysis.analyse import Analysis, Decision, PlayerStats
from gbot.game.notations.match_id import decode as decode_mid
from gbot.game.notations.position_id import decode

__all__ = ["board_svg", "html_report", "plot_svg", "summary_rows"]

LUCKY = 0.3
"""A roll this lucky (EMG) is "lucky", from :data:`VERY_LUCKY` "very lucky" (gnubg 1.07's
default luck thresholds, ``show analysis``); the same below zero for unlucky."""
VERY_LUCKY = 0.6
TOP_CANDIDATES = 5
"""Candidates listed per checker play (the played one besides)."""

_COLOURS = ("#f3efe2", "#8c2a22")
_TEXT_ON = ("#222", "#fff")


def _esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def luck_word(luck: float | None) -> str:
    """gnubg's word for a roll's luck: '', 'lucky', 'very lucky', 'unlucky', 'very unlucky'."""
    if luck is None:
        return ""
    if luck >= VERY_LUCKY:
        return "very lucky"
    if luck >= LUCKY:
        return "lucky"
    if luck <= -VERY_LUCKY:
        return "very unlucky"
    if luck <= -LUCKY:
        return "unlucky"
    return ""


# --- the players' figures --------------------------------------------------------------------


def summary_rows(a: Analysis) -> list[tuple[str, str, str]]:
    """The players' figures as ``(label, player 0, player 1)`` rows (text and HTML)."""
    money = a.match_length == 0
    p0, p1 = a.players

    def both(f: Any) -> tuple[str, str]:
        return f(p0), f(p1)

    def marks(d: dict[str, int]) -> str:
        return f"{d['doubtful']} / {d['bad']} / {d['very bad']}"

    rows: list[tuple[str, str, str]] = [
        ("unforced moves", *both(lambda p: f"{p.moves}")),
        ("checker error (mEMG/move)", *both(lambda p: f"{p.move_rate:.1f}")),
        ("moves doubtful / bad / very bad", *both(lambda p: marks(p.marks))),
        ("cube decisions", *both(lambda p: f"{p.cube_decisions}")),
        ("cube error (mEMG/decision)", *both(lambda p: f"{p.cube_rate:.1f}")),
        ("cube doubtful / bad / very bad", *both(lambda p: marks(p.cube_marks))),
        ("missed / wrong doubles", *both(
            lambda p: f"{p.cube_mistakes['missed double']} / {p.cube_mistakes['wrong double']}")),
        ("wrong takes / passes", *both(
            lambda p: f"{p.cube_mistakes['wrong take']} / {p.cube_mistakes['wrong pass']}")),
        ("error rate (mEMG/decision)", *both(lambda p: f"{p.error_rate:.1f}")),
        ("PR", *both(lambda p: f"{p.pr:.1f}")),
        ("total error (EMG)", *both(lambda p: f"{p.move_error + p.cube_error:.3f}")),
    ]
    if not money:
        rows.append(("total error (MWC %)", *both(lambda p: f"{100 * p.error_mwc:.2f}")))
    rows.append(("luck (EMG)", *both(lambda p: f"{p.luck:+.3f}")))
    if money:
        rows.append(("luck (points)", *both(lambda p: f"{p.luck_points:+.3f}")))
    else:
        rows.append(("luck (MWC %)", *both(lambda p: f"{100 * p.luck_mwc:+.2f}")))
    rows.append(("rating", *both(lambda p: p.rating)))
    return rows


def headline(a: Analysis) -> str:
    """One line: what was analysed, how, and the final score."""
    head = "money session" if a.match_length == 0 else f"{a.match_length}-point match"
    return (f"{head}, {a.games} games, analysed at {a.ply}-ply; final score "
            f"{a.names[0]} {a.final_score[0]} - {a.names[1]} {a.final_score[1]}")


def luck_adjusted_text(a: Analysis) -> str:
    """The luck-adjusted result for player 0, in words."""
    adj = a.luck_adjusted()
    return (f"luck-adjusted result for {a.names[0]}: "
            + (f"{adj:+.3f} ppg" if a.match_length == 0
               else f"{100 * adj:.1f}% match winning chance"))


# --- the board -------------------------------------------------------------------------------

_PW = 30            # point width
_H = 300            # board height (inside the frame)
_TRI = 120          # triangle height
_R = 13.5           # checker radius
_LEFT = 34          # left tray (cube)
_BAR = 34
_RIGHT = 40         # right tray (borne off)
_W = _LEFT + 12 * _PW + _BAR + _RIGHT
_TOP = 16           # room for the point numbers
_SVG_H = _H + 2 * _TOP


def _point_x(p0_point: int) -> float:
    """Centre x of player 0's point ``p0_point`` (1..24)."""
    if p0_point <= 12:          # bottom row, 1 at the right
        col = 12 - p0_point      # 0 at the left (12) .. 11 at the right (1)
    else:                        # top row, 13 at the left
        col = p0_point - 13
    x = _LEFT + col * _PW + _PW / 2
    return x + (_BAR if col >= 6 else 0)


def _checker(x: float, y: float, who: int, label: str = "") -> str:
    out = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_R}" fill="{_COLOURS[who]}" '
           f'stroke="#333" stroke-width="1"/>')
    if label:
        out += (f'<text x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle" font-size="13" '
                f'font-weight="bold" fill="{_TEXT_ON[who]}">{label}</text>')
    return out


def _stack(x: float, n: int, who: int, top: bool, base: float | None = None) -> str:
    """``n`` checkers of ``who`` on a point at ``x`` (from the top or bottom edge), at most
    five drawn, the count on the last one when there are more."""
    start = (_TOP + _R + 1) if top else (_TOP + _H - _R - 1)
    if base is not None:
        start = base
    step = 2 * _R if top else -2 * _R
    out = []
    for k in range(min(n, 5)):
        label = str(n) if (k == 4 and n > 5) else ""
        out.append(_checker(x, start + k * step, who, label))
    return "".join(out)


def _die(x: float, y: float, value: int, who: int, size: float = 26) -> str:
    pips = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
            4: [(0, 0), (0, 2), (2, 0), (2, 2)], 5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
            6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)]}[value]
    fill, dot = _COLOURS[who], _TEXT_ON[who]
    out = [f'<rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" rx="4" '
           f'fill="{fill}" stroke="#333"/>']
    for cx, cy in pips:
        out.append(f'<circle cx="{x + size * (0.22 + 0.28 * cx):.1f}" '
                   f'cy="{y + size * (0.22 + 0.28 * cy):.1f}" r="{size * 0.09:.1f}" '
                   f'fill="{dot}"/>')
    return "".join(out)


def board_svg(position_id: str, on_roll: int, *, dice: tuple[int, int] = (0, 0),
              cube_value: int = 1, cube_owner: int = -1, offered: bool = False,
              checkers: int = 15, names: tuple[str, str] = ("player 0", "player 1"),
              to_act: int | None = None) -> str:
    """The position ``position_id`` (seen by ``on_roll``) as an inline SVG: player 0 at the
    bottom bearing off to the right, player 1 at the top; point numbers of the player to act
    (``to_act``, default ``on_roll``); ``dice`` on the roller's half; the cube in the left
    tray (centre, or the owner's side; ``offered``: doubled, beside the board's middle); the
    borne-off checkers in the right tray."""
    b = [int(v) for v in decode(position_id, max(checkers, 15))]
    me = on_roll
    view = me if to_act is None else to_act
    # counts[who][p0 point]
    counts: list[dict[int, int]] = [{}, {}]
    for i in range(1, 25):
        v = b[i]
        if v == 0:
            continue
        p0pt = i if me == 0 else 25 - i
        who = me if v > 0 else 1 - me
        counts[who][p0pt] = abs(v)
    bar = {me: b[25], 1 - me: -b[0]}
    off = {w: checkers - sum(counts[w].values()) - bar[w] for w in (0, 1)}
    parts = [f'<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_SVG_H}"'
             f' width="{_W}" height="{_SVG_H}" role="img" aria-label="board {_esc(position_id)}">',
             f'<rect x="0" y="{_TOP}" width="{_W}" height="{_H}" fill="#5b3a1e" rx="4"/>',
             f'<rect x="{_LEFT}" y="{_TOP}" width="{6 * _PW}" height="{_H}" fill="#2f6b3a"/>',
             f'<rect x="{_LEFT + 6 * _PW + _BAR}" y="{_TOP}" width="{6 * _PW}" height="{_H}" '
             f'fill="#2f6b3a"/>']
    for p in range(1, 25):
        x = _point_x(p)
        top = p > 12
        y0 = _TOP if top else _TOP + _H
        y1 = y0 + _TRI if top else y0 - _TRI
        colour = "#d9c7a3" if p % 2 else "#a0522d"
        parts.append(f'<polygon points="{x - _PW / 2:.1f},{y0} {x + _PW / 2:.1f},{y0} '
                     f'{x:.1f},{y1}" fill="{colour}"/>')
        label = p if view == 0 else 25 - p
        ly = _TOP - 4 if top else _TOP + _H + 12
        parts.append(f'<text x="{x:.1f}" y="{ly}" text-anchor="middle" font-size="10" '
                     f'fill="#555">{label}</text>')
    for who in (0, 1):
        for p, n in counts[who].items():
            parts.append(_stack(_point_x(p), n, who, top=p > 12))
    bar_x = _LEFT + 6 * _PW + _BAR / 2
    mid = _TOP + _H / 2
    if bar[0]:       # player 0's checkers on the bar: below the middle
        parts.append(_stack(bar_x, bar[0], 0, top=True, base=mid + _R + 4))
    if bar[1]:
        parts.append(_stack(bar_x, bar[1], 1, top=False, base=mid - _R - 4))
    # borne off, right tray: player 0 at the bottom, player 1 at the top
    tray_x = _W - _RIGHT + 6
    for who in (0, 1):
        n = off[who]
        for k in range(n):
            y = (_TOP + _H - 8 - k * 6) if who == 0 else (_TOP + 4 + k * 6)
            parts.append(f'<rect x="{tray_x}" y="{y}" width="{_RIGHT - 12}" height="5" '
                         f'fill="{_COLOURS[who]}" stroke="#333" stroke-width="0.6"/>')
        if n:
            ty = (_TOP + _H - 14 - n * 6) if who == 0 else (_TOP + 18 + n * 6)
            parts.append(f'<text x="{tray_x + (_RIGHT - 12) / 2}" y="{ty}" '
                         f'text-anchor="middle" font-size="11" fill="#fff">{n}</text>')
    # cube, left tray
    shown = cube_value * (2 if offered else 1)
    cube_text = "64" if shown == 1 else str(shown)
    size = 24
    cx = (_LEFT - size) / 2
    if offered:
        cy = mid - size / 2
        cx = (_LEFT + 6 * _PW + _BAR + 3 * _PW - size / 2) if on_roll == 0 else (
            _LEFT + 3 * _PW - size / 2)
    elif cube_owner == 0:
        cy = _TOP + _H - size - 6
    elif cube_owner == 1:
        cy = _TOP + 6
    else:
        cy = mid - size / 2
    parts.append(f'<g class="cube"><rect x="{cx:.1f}" y="{cy:.1f}" width="{size}" '
                 f'height="{size}" rx="3" fill="#fff" stroke="#000"/><text x="{cx + size / 2:.1f}"'
                 f' y="{cy + size / 2 + 4.5:.1f}" text-anchor="middle" font-size="12" '
                 f'font-weight="bold">{cube_text}</text></g>')
    if dice[0]:
        # on the roller's half: player 0 rolls on the right half, player 1 on the left
        half = _LEFT + 6 * _PW + _BAR if on_roll == 0 else _LEFT
        x0 = half + 3 * _PW - 30
        parts.append(_die(x0, mid - 13, dice[0], on_roll) + _die(x0 + 34, mid - 13, dice[1],
                                                                  on_roll))
    parts.append(f'<title>{_esc(names[0])} at the bottom, {_esc(names[1])} at the top; '
                 f'{_esc(position_id)}</title></svg>')
    return "".join(parts)


def pips(position_id: str, on_roll: int) -> tuple[int, int]:
    """Pip counts ``(player 0, player 1)`` of a position seen by ``on_roll``."""
    b = [int(v) for v in decode(position_id, 30)]
    mine = sum(i * v for i, v in enumerate(b) if v > 0 and 1 <= i <= 24) + 25 * b[25]
    theirs = sum((25 - i) * -v for i, v in enumerate(b) if v < 0 and 1 <= i <= 24) - 25 * b[0]
    return (mine, theirs) if on_roll == 0 else (theirs, mine)


# --- the plot --------------------------------------------------------------------------------


def _plot_value(a: Analysis, d: Decision) -> float:
    """Player 0's figure for the plot: MWC (match) or equity (money) of the best choice."""
    if a.match_length and d.equity_mwc is not None:
        return d.equity_mwc if d.player == 0 else 1.0 - d.equity_mwc
    return d.equity if d.player == 0 else -d.equity


def plot_svg(a: Analysis, anchors: dict[int, str] | None = None) -> str:
    """Player 0's match winning chance (match) or equity (money, EMG) after each roll, best
    play assumed; one line per game, a dashed mark where each game starts, the marked
    decisions as dots (linked to ``anchors[id(decision)]``)."""
    moves = [d for d in a.decisions if d.kind == "move"]
    w, h, pad_l, pad_r, pad_t, pad_b = 900, 260, 46, 12, 20, 26
    match = a.match_length > 0
    vals = [_plot_value(a, d) for d in moves]
    if match:
        lo, hi = 0.0, 1.0
    else:
        lo = min(-1.0, math.floor(2.0 * min(vals, default=0.0)) / 2.0)
        hi = max(1.0, math.ceil(2.0 * max(vals, default=0.0)) / 2.0)
    n = max(len(moves) - 1, 1)

    def X(i: int) -> float:
        return pad_l + (w - pad_l - pad_r) * i / n

    def Y(v: float) -> float:
        return pad_t + (h - pad_t - pad_b) * (hi - v) / (hi - lo)

    parts = [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
             f'width="100%" preserveAspectRatio="xMinYMin meet" role="img" '
             f'aria-label="equity plot">',
             f'<rect x="{pad_l}" y="{pad_t}" width="{w - pad_l - pad_r}" '
             f'height="{h - pad_t - pad_b}" fill="#fbfbf8" stroke="#ccc"/>']
    step = 0.5 if hi - lo <= 4.0 else 1.0
    ticks = [0.0, 0.25, 0.5, 0.75, 1.0] if match else [
        lo + k * step for k in range(int(round((hi - lo) / step)) + 1)]
    for t in ticks:
        y = Y(t)
        text = f"{100 * t:.0f}%" if match else f"{t:+.1f}"
        parts.append(f'<line x1="{pad_l}" x2="{w - pad_r}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="{"#999" if t == (0.5 if match else 0.0) else "#e4e4e4"}"/>'
                     f'<text x="{pad_l - 4}" y="{y + 4:.1f}" text-anchor="end" '
                     f'font-size="11" fill="#555">{text}</text>')
    by_game: dict[int, list[int]] = {}
    for i, d in enumerate(moves):
        by_game.setdefault(d.game, []).append(i)
    for g, idx in by_game.items():
        x = X(idx[0])
        parts.append(f'<line class="game-start" x1="{x:.1f}" x2="{x:.1f}" y1="{pad_t}" '
                     f'y2="{h - pad_b}" stroke="#888" stroke-dasharray="4 3"/>'
                     f'<text x="{x + 3:.1f}" y="{h - pad_b + 14}" font-size="11" '
                     f'fill="#333">game {g + 1}</text>')
        pts = " ".join(f"{X(i):.1f},{Y(vals[i]):.1f}" for i in idx)
        parts.append(f'<polyline class="game-line" data-game="{g + 1}" fill="none" '
                     f'stroke="#2060c0" stroke-width="1.6" points="{pts}"/>')
    for i, d in enumerate(moves):
        if not d.mark:
            continue
        colour = {"doubtful": "#e0a000", "bad": "#e06000", "very bad": "#c00000"}[d.mark]
        dot = (f'<circle cx="{X(i):.1f}" cy="{Y(vals[i]):.1f}" r="4" fill="{colour}">'
               f'<title>game {d.game + 1}: {_esc(a.names[d.player])} {d.dice[0]}{d.dice[1]} '
               f'{_esc(d.played)}, {d.mark} ({-d.error:+.3f})</title></circle>')
        ref = (anchors or {}).get(id(d))
        parts.append(f'<a href="#{ref}">{dot}</a>' if ref else dot)
    label = (f"{a.names[0]}'s match winning chance" if match
             else f"{a.names[0]}'s equity (EMG)")
    parts.append(f'<text x="{pad_l + 4}" y="{pad_t - 6}" font-size="12" fill="#333">'
                 f'{_esc(label)} after each roll, best play at {a.ply}-ply; dots: errors</text>'
                 '</svg>')
    return "".join(parts)


# --- decisions -------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def _probs(p: Sequence[float]) -> str:
    win, wg, wbg, lg, lbg = p
    return f"{win:.3f} {wg:.3f} {wbg:.3f} &ndash; {1 - win:.3f} {lg:.3f} {lbg:.3f}"


def _mark_span(d: Decision) -> str:
    if not d.mark:
        return ""
    return f'<span class="mark {d.mark.replace(" ", "-")}">{d.mark} ({-d.error:+.3f})</span>'


def _candidate_rows(a: Analysis, d: Decision) -> str:
    match = a.match_length > 0
    played_rank = next((i for i, c in enumerate(d.candidates) if c.played), None)
    rows = []
    best = d.candidates[0].equity if d.candidates else 0.0
    for i, c in enumerate(d.candidates):
        if i >= TOP_CANDIDATES and not c.played:
            continue
        if i > TOP_CANDIDATES:        # the played one, below the listed best
            rows.append(f'<tr class="gap"><td colspan="{7 if match else 6}">&hellip;</td></tr>')
        diff = "" if i == 0 else f"{c.equity - best:+.3f}"
        cls = ' class="played"' if c.played else ""
        mwc = f"<td class='num'>{_pct(c.mwc)}</td>" if match else ""
        rows.append(f"<tr{cls}><td class='num'>{i + 1}</td><td>{'&bull;' if c.played else ''}"
                    f"</td><td class='play'>{_esc(c.play)}</td><td class='num'>{c.equity:+.3f}"
                    f"</td><td class='num'>{diff}</td>{mwc}<td class='probs'>"
                    f"{_probs(c.probabilities)}</td></tr>")
    if played_rank is None:
        rows.append(f'<tr class="played"><td></td><td>&bull;</td><td class="play">'
                    f'{_esc(d.played)}</td><td colspan="4">not valued</td></tr>')
    head = (f"<tr><th>#</th><th></th><th>play</th><th>{a.ply}-ply cubeful equity</th><th>diff</th>"
            + ("<th>MWC</th>" if match else "")
            + "<th>win g bg &ndash; lose g bg</th></tr>")
    return f'<table class="cands">{head}{"".join(rows)}</table>'


def _cube_table(a: Analysis, d: Decision) -> str:
    c = d.cube
    if c is None:
        return ""
    match = a.match_length > 0
    rows = [("No double", c.no_double, c.mwc[0] if c.mwc else None),
            ("Double, take", c.double_take, c.mwc[1] if c.mwc else None),
            ("Double, pass", c.double_pass, c.mwc[2] if c.mwc else None)]
    proper = {"no_double": 0, "too_good_take": 0, "too_good_pass": 0, "double_take": 1,
              "double_pass": 2}[c.action]
    ref = rows[proper][1]
    body = []
    for i, (name, eq, mwc) in enumerate(rows):
        diff = "" if i == proper else f"{eq - ref:+.3f}"
        cls = ' class="proper"' if i == proper else ""
        body.append(f"<tr{cls}><td>{i + 1}. {name}</td><td class='num'>{eq:+.3f}</td>"
                    f"<td class='num'>{diff}</td>"
                    + (f"<td class='num'>{_pct(mwc)}</td>" if match else "") + "</tr>")
    head = (f"<tr><th>cube action</th><th>{a.ply}-ply equity</th><th>diff</th>"
            + ("<th>MWC</th>" if match else "") + "</tr>")
    doubler = a.names[d.on_roll]
    return (f'<table class="cube">{head}{"".join(body)}</table>'
            f'<p class="proper">Proper cube action: <b>{_esc(c.words)}</b></p>'
            f'<p class="small">cubeless, {_esc(doubler)} on roll: {_probs(c.probabilities)}'
            f"</p>")


def _ids(d: Decision) -> str:
    return (f'<p class="ids">Position ID: <code class="pid">{_esc(d.position_id)}</code> '
            f'Match ID: <code class="mid">{_esc(d.match_id)}</code></p>')


def _board_for(a: Analysis, d: Decision) -> str:
    return board_svg(d.position_id, d.on_roll, dice=d.dice if d.kind == "move" else (0, 0),
                     cube_value=d.cube_value, cube_owner=d.cube_owner,
                     offered=d.kind == "take", checkers=a.checkers, names=a.names,
                     to_act=d.player)


def _decision_html(a: Analysis, d: Decision, number: int, anchor: str) -> str:
    name = _esc(a.names[d.player])
    marked = " marked" if d.mark else ""
    p0, p1 = pips(d.position_id, d.on_roll)
    pipline = (f'<p class="small">pips: {_esc(a.names[0])} {p0}, {_esc(a.names[1])} {p1}; '
               f'cube {d.cube_value}' + ("" if d.cube_owner < 0 else
                                         f" ({_esc(a.names[d.cube_owner])}'s)") + "</p>")
    if d.kind == "move" and d.forced:
        what = "cannot move" if d.legal_plays == 0 else f"forced: {_esc(d.played)}"
        return (f'<p class="dec forced" id="{anchor}" data-kind="move">Move {number} &middot; '
                f'{name} {d.dice[0]}{d.dice[1]}: {what}'
                + (f' <span class="luck">luck {d.luck:+.3f}</span>' if d.luck is not None
                   else "") + "</p>")
    if d.kind == "move":
        title = f"Move {number} &middot; {name} to play {d.dice[0]}{d.dice[1]}"
        lw = luck_word(d.luck)
        luck = (f'<p class="small">luck of the roll: {d.luck:+.3f} EMG'
                + (f" ({lw})" if lw else "") + "</p>") if d.luck is not None else ""
        verdict = (f"<p>{name} played <b>{_esc(d.played)}</b>"
                   + ("" if d.played == d.best else f"; best <b>{_esc(d.best)}</b>")
                   + f" {_mark_span(d)}</p>")
        detail = verdict + _candidate_rows(a, d) + luck
    elif d.kind == "cube":
        title = f"Move {number} &middot; {name}: cube decision"
        verdict = (f"<p>{name} {'doubled' if d.played == 'double' else 'did not double'}"
                   f"; best: {_esc(d.best)} {_mark_span(d)}</p>")
        detail = verdict + _cube_table(a, d)
    else:
        title = f"Move {number} &middot; {name}: answer to the double"
        verdict = (f"<p>{name} {'passed' if d.played == 'pass' else d.played + 's'}; best: "
                   f"{_esc(d.best)} {_mark_span(d)}</p>")
        taker = ""
        if d.cube is not None:
            taker = (f'<p class="small">for {name}: take {-d.cube.double_take:+.3f}, pass '
                     f"{-d.cube.double_pass:+.3f}</p>")
        detail = verdict + taker + _cube_table(a, d)
    return (f'<div class="dec {d.kind}{marked}" id="{anchor}" data-kind="{d.kind}">'
            f'<div class="boardbox">{_board_for(a, d)}</div><div class="info">'
            f'<h3>{title}</h3>{detail}{pipline}{_ids(d)}</div></div>')


def _stats_table(a: Analysis) -> str:
    head = (f"<tr><th></th><th>{_esc(a.names[0])}</th><th>{_esc(a.names[1])}</th></tr>")
    body = "".join(f"<tr><td>{_esc(r[0])}</td><td class='num'>{_esc(r[1])}</td>"
                   f"<td class='num'>{_esc(r[2])}</td></tr>" for r in summary_rows(a))
    return f'<table class="stats">{head}{body}</table>'


def _games(a: Analysis) -> Iterable[tuple[int, list[Decision]]]:
    games: dict[int, list[Decision]] = {}
    for d in a.decisions:
        games.setdefault(d.game, []).append(d)
    return sorted(games.items())


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;
 background:#f4f4f1}
header,main{max-width:1240px;margin:0 auto;padding:0 16px}
header h1{margin:18px 0 4px;font-size:24px}
.sub{color:#555;margin:0 0 12px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 16px;
 margin:12px 0}
table{border-collapse:collapse}
td,th{padding:2px 8px;font-size:13px;text-align:left;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.stats tr:nth-child(even){background:#f6f6f2}
nav{position:sticky;top:0;background:#f4f4f1ee;padding:6px 0;z-index:2;font-size:14px}
nav a{margin-right:10px}
h2{margin:8px 0;font-size:19px}
.dec{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;
 border-top:1px solid #e2e2dc;padding:10px 0;scroll-margin-top:44px}
section.game{scroll-margin-top:44px}
.legend span{display:inline-block;width:11px;height:11px;border-radius:50%;border:1px solid #333;
 vertical-align:-1px;margin:0 3px 0 10px}
.dec h3{margin:0 0 6px;font-size:15px}
.dec p{margin:4px 0;font-size:14px}
.info{flex:1;min-width:320px;overflow-x:auto}
.boardbox svg{display:block;width:400px;max-width:100%;height:auto}
p.forced{display:block;color:#666;font-size:13px;margin:0;padding:3px 0;
 border-top:1px solid #eee}
table.cands tr.played{background:#fff4c8}
table.cands td.play{font-family:ui-monospace,Menlo,Consolas,monospace}
table.cands td.probs{color:#666;font-size:11px;font-family:ui-monospace,Menlo,Consolas,monospace}
table.cube tr.proper{background:#e5f1e0}
.mark{font-weight:bold;padding:0 4px;border-radius:3px;color:#fff}
.mark.doubtful{background:#d09a00}.mark.bad{background:#e06000}
.mark.very-bad{background:#c00000}
.small{color:#555;font-size:12.5px!important}
.ids code{font-size:12px;background:#f2f2ee;padding:1px 4px;border-radius:3px}
.luck{color:#777}
body.only-marked .dec:not(.marked){display:none}
footer{color:#777;font-size:12px;padding:12px 16px 30px;max-width:1180px;margin:0 auto}
"""

_SCRIPT = """
document.getElementById('only-marked').addEventListener('change', function (e) {
  document.body.classList.toggle('only-marked', e.target.checked);
});
"""


def html_report(a: Analysis, source: str = "") -> str:
    """The analysis ``a`` (of the file named ``source``) as one self-contained HTML page."""
    t = f"{a.names[0]} vs {a.names[1]}"
    sub = headline(a) + (f" ({source})" if source else "")
    anchors: dict[int, str] = {}
    games_html = []
    nav = []
    for g, decisions in _games(a):
        number = 0
        blocks = []
        first = decisions[0]
        score = ""
        if first.match_id:
            s = decode_mid(first.match_id).score
            score = f" &middot; score {_esc(a.names[0])} {s[0]}, {_esc(a.names[1])} {s[1]}"
        for d in decisions:
            if d.kind == "move":
                number += 1
            anchor = f"g{g + 1}-a{d.index}-{d.kind}"
            anchors[id(d)] = anchor
            blocks.append(_decision_html(a, d, number + (1 if d.kind != "move" else 0),
                                         anchor))
        nav.append(f'<a href="#game{g + 1}">game {g + 1}</a>')
        games_html.append(f'<section class="game" id="game{g + 1}"><h2>Game {g + 1}{score}'
                          f'</h2>{"".join(blocks)}</section>')
    p0, p1 = a.players
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>gbot analysis: {_esc(t)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{_esc(t)}</h1><p class='sub'>{_esc(sub)}</p></header><main>"
        f"<section id='summary'><h2>Summary</h2>{_stats_table(a)}"
        f"<p>{_esc(luck_adjusted_text(a))}</p>{_ratings(p0, p1)}</section>"
        f"<section id='plot'>{plot_svg(a, anchors)}</section>"
        f"<nav>{''.join(nav)}{_legend(a)}<label><input type='checkbox' id='only-marked'> "
        f"only marked decisions</label></nav>{''.join(games_html)}</main>"
        "<footer>Equities are EMG (normalised to the cube) for the player to act; "
        f"{'MWC is the match winning chance; ' if a.match_length else ''}"
        "marks: doubtful from 0.03, bad from 0.06, very bad from 0.12; PR = 500 &times; mean "
        "error per unforced decision. Luck: the roll's best-play equity at 0-ply less its "
        "average over all rolls, as gnubg measures it. Analysed by gbot.</footer>"
        f"<script>{_SCRIPT}</script></body></html>")


def _ratings(p0: PlayerStats, p1: PlayerStats) -> str:
    return (f"<p class='small'>{_esc(p0.name)}: PR {p0.pr:.1f} ({_esc(p0.rating)}); "
            f"{_esc(p1.name)}: PR {p1.pr:.1f} ({_esc(p1.rating)})</p>")


def _legend(a: Analysis) -> str:
    return ("<span class='legend'>"
            + "".join(f"<span style='background:{_COLOURS[w]}'></span>{_esc(a.names[w])} "
                      f"({'bottom' if w == 0 else 'top'})" for w in (0, 1))
            + "</span> ")
