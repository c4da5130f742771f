"""Move text in plain Python: the reference for :mod:`gbot.core.notation` (the one writer).

gnubg 1.07's text for a play's steps, written with lists: steps sorted from the highest point,
each checker's steps chained (points passed without a hit left out), hits starred, identical
chains counted. ``tests/test_move_text.py`` holds
:func:`gbot.game.notations.move_text.format_steps` (the kernel) to it; the vector tests hold both to
gnubg.
"""

from __future__ import annotations

from collections.abc import Sequence

from gbot.core.board import Board
from gbot.game.notations.move_text import Step, hits_along


def _point_text(p: int) -> str:
    if p == 25:
        return "bar"
    if p <= 0:
        return "off"
    return str(p)


def format_steps_model(board: Board, steps: Sequence[Step]) -> str:
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
