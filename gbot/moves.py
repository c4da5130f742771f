"""Move text: format a play in GNU Backgammon's style and parse what gnubg or a person writes.

Points are in the mover's own numbering: 25 or ``bar`` is the bar, 0 or ``off`` is off.
A play is a list of single-die steps ``(from, to)``; :func:`format_steps` turns it into
``24/18 13/11*``, ``24/13``, ``8/7*/2``, ``6/4(2)``; :func:`parse_move` reads any of those
forms, plus FIBS's ``24-18`` and ``bar-22``, with chains, repetitions and ``*`` marks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gbot.core.board import Board
from gbot.errors import MoveParseError

Step = tuple[int, int]


def _point_text(p: int) -> str:
    if p == 25:
        return "bar"
    if p <= 0:
        return "off"
    return str(p)


def hits_along(board: Board, steps: Sequence[Step]) -> list[bool]:
    """For each step, whether it hits a blot when the steps are replayed in order."""
    b = board.tolist() if hasattr(board, "tolist") else list(board)
    out: list[bool] = []
    for src, dst in steps:
        b[src] -= 1
        hit = 1 <= dst <= 24 and b[dst] == -1
        if 1 <= dst <= 24:
            b[dst] = 1 if hit else b[dst] + 1
        out.append(hit)
    return out


def format_steps(board: Board, steps: Sequence[Step]) -> str:
    """gnubg-style text for ``steps`` played from ``board`` (the mover's view)."""
    if not steps:
        return ""
    hits = hits_along(board, steps)
    items = sorted(zip(steps, hits, strict=True), key=lambda s: (-s[0][0], -s[0][1]))
    used = [False] * len(items)
    chains: list[tuple[list[int], list[bool]]] = []
    for i, ((src, dst), hit) in enumerate(items):
        if used[i]:
            continue
        used[i] = True
        pts = [src, dst]
        marks = [hit]
        cur = dst
        while cur > 0:
            nxt = next((j for j in range(len(items))
                        if not used[j] and items[j][0][0] == cur), None)
            if nxt is None:
                break
            used[nxt] = True
            cur = items[nxt][0][1]
            pts.append(cur)
            marks.append(items[nxt][1])
        chains.append((pts, marks))
    texts: list[tuple[list[int], str]] = []
    for pts, marks in chains:
        parts = [_point_text(pts[0])]
        for k in range(1, len(pts)):
            if k < len(pts) - 1 and not marks[k - 1]:
                continue
            parts.append(_point_text(pts[k]) + ("*" if marks[k - 1] else ""))
        texts.append((pts, "/".join(parts)))
    out: list[str] = []
    i = 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j][0] == texts[i][0]:
            j += 1
        out.append(texts[i][1] + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


_TOKEN = re.compile(
    r"^(?P<path>(?:bar|b|off|o|\d{1,2})\*?(?:[/\-](?:bar|b|off|o|\d{1,2})\*?)+)"
    r"(?:\((?P<rep>\d)\))?$",
    re.IGNORECASE,
)


def _point_value(tok: str, text: str) -> int:
    t = tok.lower().rstrip("*")
    if t in ("bar", "b"):
        return 25
    if t in ("off", "o"):
        return 0
    v = int(t)
    if v > 25:
        raise MoveParseError(f"point {tok!r} out of range in move {text!r}")
    return v


def parse_move(text: str) -> list[tuple[int, int]]:
    """Segments ``(from, to)`` written in ``text``, in the writer's order, repetitions expanded.

    A segment may span several dice (``24/13``); the caller matches it against the roll.
    Raises :class:`MoveParseError` when the text is not move notation at all.
    """
    if not isinstance(text, str):
        raise MoveParseError(f"move text must be a string, got {text!r}")
    cleaned = text.strip().replace(",", " ")
    if cleaned.lower().startswith("move "):
        cleaned = cleaned[5:]
    if not cleaned:
        return []
    segs: list[tuple[int, int]] = []
    for tok in cleaned.split():
        m = _TOKEN.match(tok)
        if m is None:
            raise MoveParseError(f"cannot read {tok!r} in move {text!r}")
        pts = [_point_value(p, text) for p in re.split(r"[/\-]", m.group("path"))]
        rep = int(m.group("rep") or 1)
        if rep < 1 or rep > 4:
            raise MoveParseError(f"bad repetition in move {text!r}")
        chain = [(pts[k], pts[k + 1]) for k in range(len(pts) - 1)]
        for src, dst in chain:
            if src <= dst:
                raise MoveParseError(f"segment {src}/{dst} does not move forward in {text!r}")
            if src == 0:
                raise MoveParseError(f"cannot move from off in {text!r}")
        segs.extend(chain * rep)
    if len(segs) > 4 * 4:
        raise MoveParseError(f"too many segments in move {text!r}")
    return segs


def hit_marks(text: str) -> int:
    """Number of ``*`` hit marks written in ``text`` (a repeated token counts once)."""
    return text.count("*")

