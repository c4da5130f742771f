"""The engine's one-call answers to bare gnubg board lines (:meth:`gbot.engine.Engine.fast_reply`).

Most questions of a gnubg match are a move or double/roll with nothing to weigh beyond the
0-ply networks and the cube model. :class:`FastPath` answers those from the line's bytes in
:func:`gbot.core.answer.answer_board` (and, in match play, :func:`~gbot.core.answer.match_play`
or :func:`~gbot.core.answer.match_cube`), with the engine's thresholds and the cube situation
built as the engine builds it; everything else is left to the engine's general path (None),
which is the reference for these replies (``tests/test_fast_answer.py`` holds the two equal).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gbot.core import answer as _an
from gbot.core import movegen as _mg
from gbot.core.boardline import (
    OUT_CRAWFORD,
    OUT_CUBE,
    OUT_LENGTH,
    OUT_OWNER,
    OUT_SCORE_ME,
    OUT_SCORE_OPP,
)
from gbot.core.limits import CENTRE
from gbot.cube.cubeful import END_MULTIPLIERS, Owner
from gbot.cube.decision import context_from_state
from gbot.cube.plays import kernel_params
from gbot.errors import GbotError
from gbot.match import Rules

if TYPE_CHECKING:
    from gbot.eval.evaluator import Evaluator

__all__ = ["FastPath", "FastReply"]

FastReply = tuple[str, tuple[int, int]]
"""The reply (``roll``, ``double`` or a move's text, empty when no move exists) and the line's
score ``(me, opponent)``."""

_OWNER_OF = (CENTRE, 1, 0)
"""The match state's cube owner (me = player 1 here) for the line's owner field."""


@dataclass(frozen=True)
class _SimpleState:
    """The fields of a match state that :func:`gbot.cube.decision.context_from_state` reads,
    for me (player 1) on roll."""

    match_length: int
    score: tuple[int, int]
    cube_value: int
    cube_owner: int
    crawford: bool
    rules: Rules
    player_on_roll: int = 1


class FastPath:
    """One-call answers for an engine at 0-ply with :class:`gbot.Evaluator` under ``rules``.

    ``no_double_below`` and ``no_resign_above`` are the engine's thresholds
    (:data:`gbot.engine.NO_DOUBLE_BELOW`, :data:`gbot.engine.NO_RESIGN_ABOVE`);
    ``cube_lookahead``: the engine decides the cube by a look-ahead (:attr:`Engine.cube_ply`),
    so every cube decision that needs more than the no-double screen is left to it.
    """

    def __init__(self, evaluator: Evaluator, rules: Rules, no_double_below: float,
                 no_resign_above: float, *, cube_lookahead: bool = False) -> None:
        self.evaluator = evaluator
        self.rules = rules
        self.cube_lookahead = cube_lookahead
        cube = np.zeros(_an.N_CUBE, dtype=np.float64)
        cube[_an.MULT:_an.MULT + 3] = END_MULTIPLIERS[rules.end_mode]
        # the kernel leaves a capped cube's decision to the general path; so it does every
        # cube decision the engine looks ahead for (those the no-double screen lets through)
        cube[[_an.JACOBY, _an.BEAVERS, _an.CUBE_CAP]] = (rules.jacoby, rules.beavers,
                                                         rules.cube_cap or cube_lookahead)
        self.head: tuple[Any, ...] = (
            evaluator.caucasian, evaluator.exact_bearoff, rules.cube_enabled, rules.max_cube,
            no_double_below, no_resign_above, rules.end_mode == "backgammons", cube)
        self._situations: dict[tuple[int, ...], tuple[tuple[Any, ...], tuple[Any, ...]]] = {}

    def reply(self, raw: bytes) -> FastReply | None:
        """The reply to the bare board line ``raw`` (ASCII, stripped), or None when the
        general path must answer."""
        fast = self.evaluator.kernel_arrays()
        if fast is None:
            return None
        s = self.evaluator.scratch()
        args = s.answer_args        # the arguments after the line, kept while they hold
        if args is None or args[0] is not fast or args[1] is not self.head:
            ws = s.ws
            args = s.answer_args = (fast, self.head, (
                *self.head, s.children, s.probs, s.kinds, s.counts, s.mover, s.eqs, s.rows,
                s.values, ws.out, ws.steps, ws.table, ws.hashes, ws.state, ws.path, ws.marks,
                _mg.HASH_KEYS, *fast, s.res, s.fields, s.reply, s.info))
        code = _an.answer_board(np.frombuffer(raw, dtype=np.uint8), *args[2])
        if code == _an.FALLBACK:
            return None
        f = s.fields
        if code == _an.NEED_MATCH or code == _an.NEED_CUBE:
            try:
                mine, theirs = self._situation(f)
            except GbotError:               # an impossible cube situation: reported there
                return None
        if code == _an.NEED_MATCH:          # a match's move: ranked with the opponent's cube
            ws = s.ws
            tail: tuple[Any, ...] = (*fast, *theirs, s.reply, s.info)
            code = _an.match_play(f, self.head[0], self.head[1], s.children, s.probs, s.kinds,
                                  s.counts, s.rows, s.values, ws.out, ws.steps, ws.table,
                                  ws.hashes, ws.state, ws.path, ws.marks, _mg.HASH_KEYS, *tail)
        elif code == _an.NEED_CUBE:         # a match's cube decision: the cube model
            if self.cube_lookahead:
                return None
            code = _an.match_cube(f, s.probs[0], *mine[:10], *mine[11:13])
        if code == _an.FALLBACK:
            return None
        score = (int(f[OUT_SCORE_ME]), int(f[OUT_SCORE_OPP]))
        if code == _an.ROLL:
            return "roll", score
        if code == _an.DOUBLE:
            return "double", score
        return s.reply[:int(s.info[0])].tobytes().decode("ascii"), score

    def _situation(self, f: npt.NDArray[np.int64]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The kernel parameters (:func:`gbot.cube.plays.kernel_params`) of my cube situation
        in the line read into ``f`` (cube life aside) and of the opponent's after my play,
        kept per situation: the match score and the cube repeat through a match."""
        key = (int(f[OUT_LENGTH]), int(f[OUT_SCORE_ME]), int(f[OUT_SCORE_OPP]), int(f[OUT_CUBE]),
               int(f[OUT_OWNER]), int(f[OUT_CRAWFORD]))
        hit = self._situations.get(key)
        if hit is not None:
            return hit
        length, me, them, cube, owner, crawford = key
        # as the engine builds them: the state with me (player 1 here) on roll, my context,
        # the opponent's with the aways and the cube's owner swapped
        st = _SimpleState(length, (them, me), cube, _OWNER_OF[owner], bool(crawford),
                          self.rules)
        mine = context_from_state(st)     # type: ignore[arg-type]
        flip = {Owner.CENTRE: Owner.CENTRE, Owner.ME: Owner.OPPONENT, Owner.OPPONENT: Owner.ME}
        theirs = replace(mine, away=mine.opp_away, opp_away=mine.away, owner=flip[mine.owner])
        entry = (kernel_params(mine), kernel_params(theirs))
        if len(self._situations) > 4096:
            self._situations.clear()
        self._situations[key] = entry
        return entry
