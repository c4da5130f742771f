"""Move text: format a play in GNU Backgammon's style and parse what gnubg or a person writes.

Points are in the mover's own numbering: 25 or ``bar`` is the bar, 0 or ``off`` is off.
A play is a list of single-die steps ``(from, to)``; :func:`format_steps` turns it into
``24/18 13/11*``, ``24/13``, ``8/7*/2``, ``6/4(2)``; :func:`parse_move` reads any of those
forms, plus FIBS's ``24-18`` and ``bar-22``, with chains, repetitions and ``*`` marks.

The text is written by :func:`gbot.core.notation.format_steps_into`, the one writer of move
text (the fast path's too); ``tests/oracle/movetext.py`` is its plain-Python reference.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from gbot.core.board import Board
from gbot.core.notation import MAX_STEPS, TEXT_SIZE, format_steps_into
from gbot.errors import MoveParseError

Step = tuple[int, int]


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
    """gnubg-style text for ``steps`` (at most four) played from ``board`` (the mover's view),
    written by the move-text kernel :func:`gbot.core.notation.format_steps_into`."""
    if not steps:
        return ""
    if len(steps) > MAX_STEPS:
        raise ValueError(f"a play has at most {MAX_STEPS} steps, got {len(steps)}")
    packed = np.zeros(2 * MAX_STEPS, dtype=np.int8)
    packed[:2 * len(steps)] = [p for step in steps for p in step]
    out = np.empty(TEXT_SIZE, dtype=np.uint8)
    n = format_steps_into(np.array(board, dtype=np.int8), packed, out)
    return out[:n].tobytes().decode("ascii")


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

