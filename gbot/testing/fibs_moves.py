"""Moves in the FIBS test server: reading a ``move`` command's words and checking them step
by step with the rules core's step rule, in FIBS's wording, and the number of steps the dice
allow (the move generator's longest play)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gbot.core.movegen import can_step, legal_plays_raw, play_step
from gbot.game.match import GameState, MatchState

ORDINALS = ("first", "second", "third", "fourth")


def parse_fibs_steps(args: Sequence[str], colour: int) -> list[tuple[int, int]] | None:
    """``a-b`` words of a ``move`` command as steps in the mover's numbering (25 = bar,
    0 = off); ``colour`` is the mover's sign on the board line. None if a word is bad."""
    steps = []
    for word in args:
        if "-" not in word:
            return None
        a, b = word.lower().split("-", 1)
        pts = []
        for tok, source in ((a, True), (b, False)):
            if tok in ("bar", "b") and source:
                pts.append(25)
            elif tok in ("off", "home", "o", "h") and not source:
                pts.append(0)
            elif tok.isdigit() and 1 <= int(tok) <= 24:
                pts.append(int(tok) if colour > 0 else 25 - int(tok))
            else:
                return None
        steps.append((pts[0], pts[1]))
    return steps


def apply_steps(board: np.ndarray, steps: Sequence[tuple[int, int]], dice: tuple[int, int],
                colour: int = 1) -> tuple[np.ndarray, str | None]:
    """Play ``steps`` one by one on ``board`` (mover's view) with ``dice``; returns the board
    and None, or the board so far and FIBS's complaint about the first bad step (points named
    in FIBS numbering for a mover of ``colour``)."""
    def name(p: int) -> int:
        return p if colour > 0 else 25 - p


    b = np.array(board, dtype=np.int8)
    pool = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    for k, (src, dst) in enumerate(steps):
        nth = ORDINALS[k] if k < 4 else f"{k + 1}th"
        if src != 25 and b[25] > 0:
            return b, "** You have to remove pieces from the bar in your first move."
        if not 1 <= src <= 25 or b[src] <= 0:
            return b, f"** You can't move from {name(src)} in your {nth} move."
        if dst == 0:   # bearing off: the exact die, else the smallest die above the point
            die = src if src in pool else min((d for d in pool if d > src), default=0)
            if die == 0 or not can_step(b, src, die):
                return b, "** You can't remove this piece."
        else:
            die = src - dst
            if die not in pool or not can_step(b, src, die):
                return b, f"** You can't move to {name(dst)} in your {nth} move."
        pool.remove(die)
        play_step(b, src, die)
    return b, None


def max_steps(state: MatchState) -> int:
    """How many checker steps the rolled dice allow (FIBS's can-move field)."""

    if state.game_state != GameState.PLAYING or state.dice == (0, 0):
        return 0
    boards, steps = legal_plays_raw(state.board_array(), state.dice[0], state.dice[1],
                                    state.rules.caucasian)
    best = 0
    for row in steps:
        best = max(best, sum(1 for k in range(4) if row[2 * k] > 0))
    return best


__all__ = ["ORDINALS", "apply_steps", "max_steps", "parse_fibs_steps"]
