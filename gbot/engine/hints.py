"""What the bot would do in a position, with the figures gnubg's ``hint`` shows.

:func:`play_hints` lists the plays of one roll in the order the decision engine
(:class:`gbot.engine.engine.Engine`) ranks them, its own choice first: per candidate the ply it was
evaluated at, the mover's five cubeless probabilities, the cubeless money equity and, after
the play, the value of the opponent's right cube action turned round to the mover's side
(cubeful money equity, or match winning chance and EMG). :func:`cube_hint` gives the cube
decision (no double / double, take / double, pass with cubeful equities),
:func:`take_hint` the answer to a pending double, :func:`resign_hint` the answer to a pending
resignation. :func:`action_words` spells decisions the way gnubg does ("Double, take").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gbot.cube.plays import cube_lives
from gbot.errors import GbotError
from gbot.game.match import CENTRE, GameState, MatchState
from gbot.game.position import Play, Position

__all__ = ["CubeHint", "PlayHint", "ResignHint", "TakeHint", "action_words", "cube_hint",
           "describe_state", "no_double_reason", "play_hints", "resign_hint", "take_hint"]

Probabilities = tuple[float, float, float, float, float]


@dataclass(frozen=True)
class PlayHint:
    """One candidate play, all figures from the mover's side.

    ``ply``: the look-ahead its figures come from (shallower than asked when the move
    filters dropped it early). ``cubeless``: cubeless money equity of ``probabilities``.
    ``cubeful``: money: cubeful equity per unit of the current cube; match: EMG (the match
    equity normalised to money, +1 = winning the current cube). ``mwc``: cubeful match winning
    chance (None for money). ``chosen``: the engine plays this one.
    """

    play: Play
    ply: int
    probabilities: Probabilities
    cubeless: float
    cubeful: float
    mwc: float | None
    chosen: bool = False

    @property
    def value(self) -> float:
        """What the ranking compares: the match winning chance, or the cubeful equity."""
        return self.mwc if self.mwc is not None else self.cubeful


@dataclass(frozen=True)
class CubeHint:
    """The cube decision of the side on roll, before rolling.

    ``equities``: cubeful (no double, double/take, double/pass) from the side on roll, money
    points per unit cube or, in a match, EMG; ``mwc`` the same as match winning chances.
    ``words``: gnubg's name of the proper action ("No double, take"); ``reason``: why no
    double is possible, when none is.
    """

    action: str
    response: str
    words: str
    equities: tuple[float, float, float]
    mwc: tuple[float, float, float] | None
    probabilities: Probabilities
    cubeless: float
    ply: int
    can_double: bool
    reason: str = ""


@dataclass(frozen=True)
class TakeHint:
    """The answer to a pending double, from the side that was doubled.

    ``take``/``pass_``/``beaver``: its cubeful equity (or EMG) after each answer, per unit of
    the cube before the double; ``mwc_take``/``mwc_pass`` its match winning chances. ``answer``
    is the engine's: ``"take"``, ``"drop"`` or ``"beaver"``.
    """

    answer: str
    take: float
    pass_: float
    beaver: float | None
    mwc_take: float | None
    mwc_pass: float | None
    probabilities: Probabilities
    ply: int


@dataclass(frozen=True)
class ResignHint:
    """The answer to a pending resignation of ``level`` (1 single, 2 gammon, 3 backgammon)."""

    level: int
    accept: bool


def action_words(action: str, response: str) -> str:
    """gnubg's words for a cube decision (:mod:`gbot.cube.decision`'s action and response)."""
    answer = {"take": "take", "pass": "pass", "beaver": "beaver"}.get(response, response)
    if action == "no_double":
        return f"No double, {answer}"
    if action in ("double_take", "double_pass"):
        return f"Double, {answer}"
    if action in ("too_good_take", "too_good_pass"):
        return f"Too good to double, {answer}"
    raise GbotError(f"unknown cube action {action!r}")


def no_double_reason(state: MatchState) -> str:
    """Why the player to act may not double in ``state`` ('' when it may)."""
    me = state.player_to_act
    r = state.rules
    if state.game_state != GameState.PLAYING:
        return "no game in progress"
    if not r.cube_enabled:
        return "the cube is off"
    if state.match_length > 0 and state.crawford:
        return "Crawford game"
    if state.cube_owner not in (CENTRE, me):
        return "the opponent owns the cube"
    if state.cube_value * 2 > r.max_cube:
        return f"the cube is at its cap ({r.max_cube})"
    if state.match_length > 0 and state.match_length - state.score[me] <= state.cube_value:
        return "the cube is dead (a win already ends the match)"
    return "" if state.may_double(me) else "not allowed now"


def _cubeless(p: Probabilities) -> float:
    win, wg, wbg, lg, lbg = p
    return 2.0 * win - 1.0 + wg - lg + wbg - lbg


def _for(state: MatchState, player: int) -> MatchState:
    """``state`` with ``player`` on roll and to act, no double pending."""
    return replace(state, player_on_roll=player, player_to_act=player, double_offered=False,
                   resign_offered=0, dice=(0, 0))


def _need_cube(engine: Any) -> Any:
    cube = getattr(engine, "cube_model", None)
    if cube is None or engine.evaluator is None:
        raise GbotError("hints need the shipped networks and the cube module "
                        "(the engine runs on its built-in heuristic)")
    return cube


def play_hints(engine: Any, pos: Position, dice: tuple[int, int], state: MatchState,
               n: int | None = None) -> list[PlayHint]:
    """The plays of ``dice`` in ``pos`` (the player to act of ``state`` on roll), the engine's
    choice first, then the others as the engine ranks them: plays searched deeper first, then
    by match winning chance in match play (and under end modes that rank by the cube), by
    cubeless equity in ordinary money play. ``n`` cuts the list (None: all)."""
    cube = _need_cube(engine)

    st = engine.rules_state(state)
    me = st.player_to_act
    chosen = engine.choose_play(pos, dice, st)
    if chosen is None:
        return []
    hints = engine.evaluator.hint(pos, dice, engine.ply, n=None)
    by_state = engine.plays_by_state(st)
    theirs = _for(st, 1 - me)
    lives = cube_lives([h.play.position.swapped().board for h in hints])
    out: list[PlayHint] = []
    key = chosen.position.board.tobytes()
    for h, life in zip(hints, lives.tolist(), strict=True):
        w, wg, wbg, lg, lbg = h.probabilities
        opp = (1.0 - w, lg, lbg, wg, wbg)
        d = cube.decide(opp, cube.context_from_state(theirs, float(life)))
        if d.mwc is None:
            mwc = None
        else:
            nd, dt, dp = d.mwc
            mwc = 1.0 - (nd if not d.doubles else dp if d.response == "pass" else dt)
        out.append(PlayHint(play=h.play, ply=int(h.ply), probabilities=h.probabilities,
                            cubeless=_cubeless(h.probabilities), cubeful=-float(d.equity),
                            mwc=mwc, chosen=h.play.position.board.tobytes() == key))
    if not any(h.chosen for h in out):     # not among the evaluator's candidates: add it
        raise GbotError(f"the engine's play {chosen.notation!r} is not among the candidates")

    def rank(h: PlayHint) -> tuple[bool, int, float]:
        return (h.chosen, h.ply, h.value if by_state else h.cubeless)

    out.sort(key=rank, reverse=True)
    return out if n is None else out[:n]


def _decision(engine: Any, pos: Position, state: MatchState) -> Any:
    """The engine's cube decision for the player on roll of ``state`` (``pos`` its view)."""
    _need_cube(engine)
    return engine.cube_decision(pos, _for(engine.rules_state(state), state.player_on_roll))


def _decision_ply(engine: Any, pos: Position, st: MatchState) -> int:
    """The ply of the engine's cube decision (its own ply for engines that do not say)."""
    ask = getattr(engine, "cube_decision_ply", None)
    return int(ask(pos, st)) if ask is not None else int(engine.ply)


def cube_hint(engine: Any, pos: Position, state: MatchState) -> CubeHint:
    """The cube decision of the player on roll of ``state`` (``pos`` seen by it) as the
    engine takes it."""
    st = _for(engine.rules_state(state), state.player_on_roll)
    reason = no_double_reason(st)
    d = _decision(engine, pos, st)
    p: Probabilities = tuple(float(x) for x in d.probabilities)  # type: ignore[assignment]
    if not d.can_double:
        words = "No double possible" + (f" ({reason})" if reason else "")
    else:
        words = action_words(d.action, d.response)
    return CubeHint(action=d.action, response=d.response, words=words,
                    equities=tuple(float(x) for x in d.equities),  # type: ignore[arg-type]
                    mwc=None if d.mwc is None else tuple(float(x) for x in d.mwc),  # type: ignore[arg-type]
                    probabilities=p, cubeless=_cubeless(p), ply=_decision_ply(engine, pos, st),
                    can_double=bool(d.can_double), reason=reason)


def take_hint(engine: Any, pos: Position, state: MatchState) -> TakeHint:
    """The answer to the double pending in ``state``; ``pos`` is seen by the doubler (the
    player on roll)."""
    st = engine.rules_state(state)
    taker = st.player_to_act
    d = _decision(engine, pos, st)
    nd, dt, dp = (float(x) for x in d.equities)
    answer = engine.respond_double(pos.swapped(), st)
    beaver = -2.0 * dt if engine.may_beaver(st) else None
    mwc_take = mwc_pass = None
    if d.mwc is not None:
        mwc_take, mwc_pass = 1.0 - float(d.mwc[1]), 1.0 - float(d.mwc[2])
    w, wg, wbg, lg, lbg = (float(x) for x in d.probabilities)
    del taker
    return TakeHint(answer=str(answer), take=-dt, pass_=-dp, beaver=beaver, mwc_take=mwc_take,
                    mwc_pass=mwc_pass, probabilities=(1.0 - w, lg, lbg, wg, wbg),
                    ply=_decision_ply(engine, pos, st))


def resign_hint(engine: Any, pos: Position, state: MatchState) -> ResignHint:
    """Whether the player to act accepts the resignation pending in ``state`` (``pos`` seen
    by the player on roll)."""
    st = engine.rules_state(state)
    view = pos if st.player_to_act == st.player_on_roll else pos.swapped()
    level = int(st.resign_offered)
    return ResignHint(level=level, accept=bool(engine.accept_resignation(view, st, level)))


def describe_state(state: MatchState, on_roll: str = "X", other: str = "O") -> str:
    """One line: the score (or money rules), the cube and who is on roll; ``on_roll`` and
    ``other`` name the player on roll and the opponent."""
    me = state.player_on_roll
    names = {me: on_roll, 1 - me: other}
    r = state.rules
    if state.match_length > 0:
        a, b = state.score[me], state.score[1 - me]
        head = f"{state.match_length}-point match, {on_roll} {a} - {other} {b}"
        if state.crawford:
            head += ", Crawford game"
        elif state.post_crawford:
            head += ", post-Crawford"
    else:
        extras = [f"Jacoby {'on' if r.jacoby else 'off'}",
                  f"beavers {'on' if r.beavers else 'off'}"]
        head = f"money game ({', '.join(extras)})"
    if not r.cube_enabled:
        cube = "cube off"
    elif state.cube_owner == CENTRE:
        cube = f"cube {state.cube_value} centred"
    else:
        cube = f"cube {state.cube_value} owned by {names[state.cube_owner]}"
    if r.cube_cap:
        cube += f" (cap {r.cube_cap})"
    if r.end_mode != "backgammons":
        head += {"single": ", single games only", "gammons": ", backgammons count as gammons"
                 }[r.end_mode]
    turn = f"{names[state.player_to_act]} to act" if state.player_to_act != me else ""
    parts = [head, cube, f"{on_roll} on roll"] + ([turn] if turn else [])
    return "; ".join(parts)
