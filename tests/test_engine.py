"""The decision engine (:mod:`gbot.engine.engine`): its answers against the modules it stands on.

Cube actions against :func:`gbot.cube.decision.decide` on the same probabilities (the
static model, ``cube_ply=0``) and against the cube look-ahead (the default), the take
answer against the doubler's decision, plays against the evaluator's best play, the one-call
answers (:meth:`Engine.fast_reply`) against the engine's own general answers for the same line,
and where the engine declines the one-call path.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from gbot.cube.decision import board_cube_life, context_from_state, cube_decision, decide
from gbot.engine.engine import CUBE_PLY, NO_DOUBLE_BELOW, Engine, short_bearoff
from gbot.game.match import CENTRE, MatchState, Rules
from gbot.game.notations.fibs_board import FibsBoard, parse_gnubg_line
from gbot.game.position import Position
from tests.randomplay import random_positions


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _contact(n: int, seed: int) -> list[Position]:
    """Positions of games in progress from seeded random play, every ``7``th move."""
    out = []
    for i, (board, _, _) in enumerate(random_positions(n * 7, seed=seed)):
        if i % 7 == 0 and (board > 0).any() and (board < 0).any():
            out.append(Position(board))
    return out[:n]


def _money(cube: int = 1, owner: int = CENTRE, rules: Rules | None = None) -> MatchState:
    return MatchState(match_length=0, cube_value=cube, cube_owner=owner, player_on_roll=0,
                      rules=rules or Rules())


@pytest.fixture(scope="module")
def model_engine(engine: Engine) -> Engine:
    """The engine deciding the cube by the static model (no look-ahead), same evaluator."""
    return Engine(engine.evaluator, cube_ply=0)


def test_cube_ply_defaults() -> None:
    assert CUBE_PLY == 2
    ev = Engine().evaluator
    assert Engine(ev).cube_ply == CUBE_PLY
    assert Engine(ev, ply=1).cube_ply == 2
    assert Engine(ev, ply=3).cube_ply == 3
    assert Engine(ev, cube_ply=0).cube_ply == 0
    with pytest.raises(ValueError):
        Engine(ev, cube_ply=-1)


def _cube_module_decision(engine: Engine, pos: Position, st: MatchState) -> Any:
    if engine.cube_ply == 0:
        return decide(engine.probabilities(pos), context_from_state(st, board_cube_life(pos)))
    return cube_decision(pos, st, engine.cube_ply, evaluator=engine.evaluator)


@pytest.mark.parametrize("which", ["model", "lookahead"])
def test_cube_action_is_the_cube_modules_decision(engine: Engine, model_engine: Engine,
                                                  which: str) -> None:
    eng = model_engine if which == "model" else engine
    checked = 0
    for pos in _contact(40, seed=3):
        for st in (_money(), _money(2, 0), MatchState(match_length=7, score=(2, 4),
                                                       player_on_roll=0)):
            p = eng.probabilities(pos)
            want = "roll"
            if st.may_double(0) and (p[0] >= NO_DOUBLE_BELOW or st.post_crawford):
                want = "double" if _cube_module_decision(eng, pos, st).doubles else "roll"
            if short_bearoff(pos.board):
                continue                      # those get the look-ahead decision
            assert eng.cube_action(pos, st) == want
            checked += 1
    assert checked > 60


@pytest.mark.parametrize("which", ["model", "lookahead"])
def test_take_answer_is_the_doublers_decision(engine: Engine, model_engine: Engine,
                                              which: str) -> None:
    eng = model_engine if which == "model" else engine
    for pos in _contact(30, seed=5):
        st = replace(_money(), player_on_roll=1, player_to_act=0, double_offered=True)
        doubler = pos.swapped()
        d = _cube_module_decision(eng, doubler,
                                  replace(st, player_on_roll=1, double_offered=False))
        want = "drop" if d.response == "pass" else "take"
        assert eng.respond_double(pos, st) == want


def test_plays_are_the_evaluators_best_play(engine: Engine) -> None:
    rng = random.Random(1)
    for pos in _contact(30, seed=7):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        want = engine.evaluator.best_play(pos, dice, 0)
        got = engine.choose_play(pos, dice)
        assert (None if got is None else got.notation) == (None if want is None
                                                           else want.notation)


def _line(pos: Position, dice: tuple[int, int], length: int = 0,
          score: tuple[int, int] = (0, 0)) -> str:
    fb = FibsBoard(points=tuple(int(v) for v in pos.board), dice=dice, cube_value=1,
                   cube_owner="centre", may_double=(True, True), double_pending=False,
                   score=score, match_length=length, crawford_game=False, post_crawford=False,
                   names=("gbot", "other"))
    return fb.line()


def test_fast_reply_is_the_engines_answer(engine: Engine) -> None:
    rng = random.Random(2)
    answered = 0
    for pos in _contact(40, seed=11):
        for dice, length, score in (((rng.randint(1, 6), rng.randint(1, 6)), 0, (0, 0)),
                                    ((0, 0), 0, (0, 0)),
                                    ((rng.randint(1, 6), rng.randint(1, 6)), 7, (3, 1)),
                                    ((0, 0), 7, (1, 4))):
            line = _line(pos, dice, length, score)
            fast = engine.fast_reply(line.encode())
            if fast is None:
                continue
            fb = parse_gnubg_line(line)
            st = fb.match_state(engine.rules)
            if dice == (0, 0):
                want = engine.cube_action(fb.position, st)
            else:
                play = engine.choose_play(fb.position, fb.dice,
                                          st if engine.plays_by_state(st) else None)
                want = "" if play is None else play.notation
            assert fast == (want, score, engine.resign_offer(fb.position, st))
            answered += 1
    assert answered > 100


def test_fast_reply_declines_what_it_cannot_decide(engine: Engine) -> None:
    line = _line(Position.initial(), (3, 1)).encode()
    assert engine.fast_reply(line) is not None
    assert Engine(engine.evaluator, ply=1).fast_reply(line) is None
    assert engine.with_rules(Rules(end_mode="single")).fast_reply(line) is None

    class Cautious(Engine):
        pass

    assert Cautious(engine.evaluator).fast_reply(line) is None
    assert engine.fast_reply(b"board:not a line") is None


def test_with_rules_shares_the_evaluator(engine: Engine) -> None:
    other = engine.with_rules(Rules(jacoby=True))
    assert other.evaluator is engine.evaluator and other.ply == engine.ply
    assert other.rules.jacoby and not engine.rules.jacoby


def test_heuristic_engine_plays_legal_moves() -> None:
    eng = Engine.__new__(Engine)
    eng.__dict__.update(Engine().__dict__)
    eng.evaluator = None
    assert eng.backend == "heuristic"
    rng = random.Random(4)
    for pos in _contact(20, seed=13):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        play = eng.choose_play(pos, dice)
        legal = {p.notation for p in pos.legal_plays(dice)}
        assert (play is None and not legal) or (play is not None and play.notation in legal)
    assert eng.cube_action(Position.initial(), _money()) == "roll"


def test_engine_uses_what_a_partial_evaluator_provides(engine: Engine) -> None:
    """An evaluator with probabilities and best_play only (gnubg-nn's tournament wrapper):
    plays come from its best_play, cube actions from the 0-ply model, no one-call path."""
    from gbot.eval.protocol import provides

    full = engine.evaluator

    class Partial:
        caucasian = False

        def __init__(self) -> None:
            self.asked = 0

        def probabilities(self, pos: Position, ply: int = 0) -> tuple[float, ...]:
            return tuple(full.probabilities(pos, ply))

        def best_play(self, pos: Position, dice: tuple[int, int], ply: int = 0):  # type: ignore[no-untyped-def]
            self.asked += 1
            return full.best_play(pos, dice, ply)

    ev = Partial()
    assert provides(ev, "best_play") and not provides(ev, "evaluate")
    with pytest.raises(ValueError):
        provides(ev, "probabilities")  # type: ignore[arg-type]
    eng = Engine(ev)
    pos = Position.initial()
    assert eng.choose_play(pos, (3, 1)) is not None and ev.asked == 1
    assert not eng.plays_by_state(MatchState(match_length=5))
    assert eng.cube_action(pos, _money()) == engine.cube_action(pos, _money())
    assert eng.fast_reply(_line(pos, (3, 1)).encode()) is None


def test_clear_static_verdicts_skip_the_lookahead_and_agree_with_it(engine: Engine) -> None:
    """A 0-ply engine looks ahead for the cube only where the static model's verdict is not
    clear by CUBE_SCREEN; where it skips, the look-ahead's action and answer are the same;
    an engine at the look-ahead's own ply, or told its cube look-ahead, never skips."""
    from gbot.engine.engine import CUBE_SCREEN

    deep = Engine(engine.evaluator, ply=2)
    asked = Engine(engine.evaluator, cube_ply=CUBE_PLY)     # an explicit look-ahead is searched
    skipped = looked = 0
    for pos in _contact(60, seed=11):
        for st in (_money(), MatchState(match_length=7, score=(3, 1), player_on_roll=0),
                   MatchState(match_length=7, score=(2, 3), cube_value=2, cube_owner=0,
                              player_on_roll=0)):
            if short_bearoff(pos.board):
                continue
            static = decide(engine.probabilities(pos), context_from_state(st, board_cube_life(pos)))
            nd, dt, dp = static.equities
            clear = min(dt, dp) - nd < -CUBE_SCREEN and abs(dp - dt) > CUBE_SCREEN
            ply = engine.cube_decision_ply(pos, st)
            assert ply == (0 if clear else CUBE_PLY)
            assert deep.cube_decision_ply(pos, st) == 2
            assert asked.cube_decision_ply(pos, st) == CUBE_PLY
            if clear:
                skipped += 1
                ahead = cube_decision(pos, st, CUBE_PLY, evaluator=engine.evaluator)
                got = engine.cube_decision(pos, st)
                assert got.equities == static.equities
                assert (got.doubles, got.takes) == (ahead.doubles, ahead.takes)
            else:
                looked += 1
    assert skipped >= 20 and looked >= 5
