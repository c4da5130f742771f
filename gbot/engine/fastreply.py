"""The engine's one-call answers to bare gnubg board lines
(:meth:`gbot.engine.engine.Engine.fast_reply`).

Most questions of a gnubg match are a move, double/roll or take/drop with nothing to weigh
beyond the 0-ply networks and the cube model. :class:`FastPath` answers those from the line's
bytes in :func:`gbot.core.answer.answer_board` (and, in match play,
:func:`~gbot.core.answer.match_play`, :func:`~gbot.core.answer.match_cube` or
:func:`~gbot.core.answer.match_take`), with the engine's thresholds and the cube situation
built as the engine builds it; everything else is left to the engine's general path (None),
which is the reference for these replies (``tests/test_fast_answer.py`` holds the two equal).
"""

from __future__ import annotations

import math
import threading
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
from gbot.core.fastcall import Bound
from gbot.core.limits import CENTRE
from gbot.cube.cubeful import END_MULTIPLIERS, Owner
from gbot.cube.decision import context_from_state
from gbot.cube.plays import kernel_params
from gbot.errors import GbotError
from gbot.game.match import Rules

if TYPE_CHECKING:
    from gbot.eval.evaluator import Evaluator

__all__ = ["FastPath", "FastReply", "situation_of"]

FastReply = tuple[str, tuple[int, int], int]
"""The reply (``roll``, ``double``, ``take``, ``drop``, ``beaver`` or a move's text, empty when
no move exists), the line's score ``(me, opponent)`` and the level of the resignation the
engine would offer instead (0: none; 1, 2, 3: single, gammon, backgammon), as
:meth:`gbot.engine.engine.Engine.resign_offer` gives it: the caller decides whether to offer it."""

_OWNER_OF = (CENTRE, 1, 0)
"""The match state's cube owner (me = player 1 here) for the line's owner field."""

_frombuffer = np.frombuffer
_U8 = np.dtype(np.uint8)
_FALLBACK, _MOVE, _ROLL, _DOUBLE = _an.FALLBACK, _an.MOVE, _an.ROLL, _an.DOUBLE
_NEED_MATCH, _NEED_CUBE, _NEED_TAKE = _an.NEED_MATCH, _an.NEED_CUBE, _an.NEED_TAKE
_RESIGNS, _RESIGN_ASK = _an.RESIGNS, _an.RESIGN_ASK
_WORDS = {_ROLL: "roll", _DOUBLE: "double", _an.TAKE: "take", _an.DROP: "drop",
          _an.BEAVERS: "beaver"}
"""The replies that are one word, by kernel code."""
assert (_NEED_MATCH, _NEED_CUBE, _NEED_TAKE) == (4, 5, 6)    # match_kernels' order
assert all(c < _NEED_MATCH or c > _NEED_TAKE for c in (_FALLBACK, _MOVE, *_WORDS))
_LEN, _ME, _OPP, _CUBE, _OWN, _CRAW = (i - OUT_CUBE for i in (
    OUT_LENGTH, OUT_SCORE_ME, OUT_SCORE_OPP, OUT_CUBE, OUT_OWNER, OUT_CRAWFORD))
"""The situation key's fields in ``fields[OUT_CUBE:OUT_CRAWFORD + 1]``."""
assert min(_LEN, _ME, _OPP, _OWN, _CRAW) >= 0

_SituationKey = tuple[int, int, int, int, int, int]
"""A line's match length, score (me, opponent), cube value, cube owner and Crawford flag."""


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


def situation_of(params: tuple[Any, ...]) -> _an.Situation:
    """:func:`gbot.cube.plays.kernel_params`'s values as a :class:`gbot.core.answer.Situation`
    of fixed types (C-ordered float64 arrays, Python scalars)."""
    lives, mult, met, away, opp_away, cube, owner, top, dead_nd, can, outcomes, win, lose, \
        window, keep = params
    return _an.Situation(_f64(lives), _f64(mult), _f64(met), int(away), int(opp_away),
                         int(cube), int(owner), int(top), bool(dead_nd), bool(can),
                         _f64(outcomes), float(win), float(lose), float(window), int(keep))


def _f64(a: Any) -> npt.NDArray[np.float64]:
    """A writeable C-ordered float64 copy of ``a``."""
    return np.array(a, dtype=np.float64, order="C")


class _Calls:
    """One thread's kernels bound to its scratch arrays and one set of network arrays
    (``fast``, the evaluator's kernel arrays): every argument but the line's bytes is fixed,
    so each call goes straight to the compiled code (:class:`gbot.core.fastcall.Bound`)."""

    __slots__ = ("fast", "work", "answer", "match", "_first")

    def __init__(self, path: FastPath, fast: _an.Nets) -> None:
        s = path.evaluator.scratch()
        self.fast = fast
        self.work = _an.Work(s.play, _mg.HASH_KEYS, s.fields, s.reply, s.info)
        self.answer = Bound(_an.answer_board, (path.settings, fast, self.work))
        self.match: dict[_SituationKey, tuple[Bound, Bound, Bound, Bound]] = {}
        """match_play, match_cube, match_take and match_resign per cube situation, bound to its
        two sides' :class:`gbot.core.answer.Situation` (match_play and match_take to the
        opponent's: the doubler's, and the side on roll after my play)."""
        self._first: dict[tuple[Any, tuple[Any, ...]], Bound] = {}
        """The first :class:`Bound` of a kernel per layout of its situation
        (:func:`_layout`): later ones share its compiled version."""

    def match_kernels(self, path: FastPath, key: _SituationKey
                      ) -> tuple[Bound, Bound, Bound, Bound]:
        """``(match_play, match_cube, match_take, match_resign)`` for the situation ``key``
        (GbotError: impossible)."""
        hit = self.match.get(key)
        if hit is None:
            mine, theirs = path.situations(key)
            hit = (self._bound(_an.match_play, (path.settings, self.fast, self.work, theirs),
                               theirs),
                   self._bound(_an.match_cube, (path.settings, self.work, mine), mine),
                   self._bound(_an.match_take, (self.work, theirs), theirs),
                   self._bound(_an.match_resign, (self.work, mine), mine))
            if len(self.match) > 4096:
                self.match.clear()
            self.match[key] = hit
        return hit

    def _bound(self, kernel: Any, tail: tuple[Any, ...], situation: _an.Situation) -> Bound:
        """``kernel`` bound to ``tail``, whose only argument that changes from one situation
        to the next is ``situation``: with the compiled version that an earlier situation of
        the same layout resolved (a new score or cube then costs no type resolution)."""
        layout = (kernel, _layout(situation))
        first = self._first.get(layout)
        bound = Bound(kernel, tail, None if first is None else first.compiled)
        if first is None or first.compiled is None:
            self._first[layout] = bound
        return bound


def _layout(situation: _an.Situation) -> tuple[Any, ...]:
    """What of a :class:`gbot.core.answer.Situation`'s numba type :func:`situation_of` leaves
    open: each array's number of dimensions (all are C-ordered writeable float64 arrays, the
    scalars Python ints, bools and floats)."""
    return tuple(v.ndim if isinstance(v, np.ndarray) else type(v) for v in situation)


class FastPath:
    """One-call answers for an engine at 0-ply with :class:`gbot.Evaluator` under ``rules``.

    ``no_double_below`` and ``no_resign_above`` are the engine's thresholds
    (:data:`gbot.engine.engine.NO_DOUBLE_BELOW`, :data:`gbot.engine.engine.NO_RESIGN_ABOVE`);
    ``cube_lookahead``: the engine decides the cube by a look-ahead (:attr:`Engine.cube_ply`),
    so every cube decision that needs more than the no-double screen is left to it, except
    where ``cube_screen`` (the engine's :data:`gbot.engine.engine.CUBE_SCREEN` where it
    screens, else infinity) finds the static verdict clear, or a match's cube is dead for the
    opponent, as the engine then keeps the static decision (take questions are always left to
    it);
    ``short_bearoff``: the engine's cube decisions in bear-offs with at most this many
    checkers a side look ahead (:data:`gbot.engine.engine.SHORT_BEAROFF_CHECKERS`), and are left to
    it (the default: every bear-off).
    """

    def __init__(self, evaluator: Evaluator, rules: Rules, no_double_below: float,
                 no_resign_above: float, *, cube_lookahead: bool = False,
                 cube_screen: float = math.inf, short_bearoff: int = 15) -> None:
        self.evaluator = evaluator
        self.rules = rules
        self.settings = _an.Settings(
            caucasian=bool(evaluator.caucasian), bearoff=bool(evaluator.exact_bearoff),
            cube_enabled=bool(rules.cube_enabled), max_cube=int(rules.max_cube),
            no_double_below=float(no_double_below), no_resign_above=float(no_resign_above),
            cubeless_plays=rules.end_mode == "backgammons",
            mult=_f64(END_MULTIPLIERS[rules.end_mode]), jacoby=bool(rules.jacoby),
            beavers=bool(rules.beavers), cube_cap=int(rules.cube_cap),
            cube_lookahead=bool(cube_lookahead), cube_screen=float(cube_screen),
            short_bearoff=int(short_bearoff),
            resign_offers=rules.resignation == "offer")
        self._local = threading.local()
        self._situations: dict[_SituationKey, tuple[_an.Situation, _an.Situation]] = {}

    def reply(self, raw: bytes) -> FastReply | None:
        """The reply to the bare board line ``raw`` (ASCII, stripped), or None when the
        general path must answer."""
        # (this runs for most lines of a match: each Python call or attribute look-up it
        # saves is a visible share of a question's round trip)
        fast = self.evaluator.kernel_arrays()
        if fast is None:
            return None
        calls: _Calls | None = getattr(self._local, "calls", None)
        if calls is None or calls.fast is not fast:
            calls = self._local.calls = _Calls(self, fast)
        if type(raw) is not bytes:          # the kernel's argument type is fixed: read-only
            raw = bytes(raw)
        code = calls.answer(_frombuffer(raw, _U8))
        if code >= _RESIGNS:
            return self._resigning(calls, code)
        w = calls.work
        if code == _FALLBACK:
            return None
        if code < _NEED_MATCH or code > _NEED_TAKE:
            f = w.fields
            score = (int(f[OUT_SCORE_ME]), int(f[OUT_SCORE_OPP]))
        else:
            # a match's move is ranked with the opponent's cube, a cube decision by the
            # static cube model (a look-ahead engine's only where its screen finds the
            # static verdict clear: the kernel says which)
            v = w.fields[OUT_CUBE:OUT_CRAWFORD + 1].tolist()
            key = (v[_LEN], v[_ME], v[_OPP], v[_CUBE], v[_OWN], v[_CRAW])
            try:
                kernels = calls.match_kernels(self, key)
            except GbotError:               # an impossible cube situation: reported there
                return None
            code = kernels[code - _NEED_MATCH]()
            if code == _FALLBACK:
                return None
            score = (v[_ME], v[_OPP])
        if code == _MOVE:
            return w.reply[:int(w.info[0])].tobytes().decode("ascii"), score, 0
        return _WORDS[code], score, 0

    def _resigning(self, calls: _Calls, code: int) -> FastReply | None:
        """:meth:`reply` for a line where a resignation was weighed (no contact, a winning
        chance at most the engine's threshold): answer_board's ``code`` holds the level
        (:data:`gbot.core.answer.RESIGNS`), or asks :func:`gbot.core.answer.match_resign`
        for it in the match's situation, before the answer's own kernel."""
        resign, code = divmod(code, _RESIGNS)
        w = calls.work
        v = w.fields[OUT_CUBE:OUT_CRAWFORD + 1].tolist()
        score = (v[_ME], v[_OPP])
        needs = _NEED_MATCH <= code <= _NEED_TAKE
        kernels = None
        if resign == _RESIGN_ASK or needs:
            try:
                kernels = calls.match_kernels(
                    self, (v[_LEN], v[_ME], v[_OPP], v[_CUBE], v[_OWN], v[_CRAW]))
            except GbotError:               # an impossible cube situation: reported there
                return None
        if resign == _RESIGN_ASK:
            assert kernels is not None
            resign = kernels[3]()           # (before match_play overwrites the probabilities)
            if resign < 0:
                return None
        if needs:
            assert kernels is not None
            code = kernels[code - _NEED_MATCH]()
        if code == _FALLBACK:
            return None
        if code == _MOVE:
            return w.reply[:int(w.info[0])].tobytes().decode("ascii"), score, resign
        return _WORDS[code], score, resign

    def situations(self, key: _SituationKey) -> tuple[_an.Situation, _an.Situation]:
        """My cube situation in a line with the numbers ``key`` (cube life aside) and the
        opponent's after my play, as the engine builds them, kept per situation: the match
        score and the cube repeat through a match. GbotError: an impossible situation."""
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
        entry = (situation_of(kernel_params(mine)), situation_of(kernel_params(theirs)))
        if len(self._situations) > 4096:
            self._situations.clear()
        self._situations[key] = entry
        return entry
