"""The server's one-call answers (:mod:`gbot.core.answer`) against the general path.

* The move-text kernel writes gnubg 1.07's own text for every play of the legal-move vectors.
* :func:`gbot.adapters.gnubg_external.handle_line` gives the same replies, and keeps the same
  session state, with the one-call answers on and off, on the boards gnubg sent as referee and
  on generated lines, under several rule sets.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from gbot.adapters import gnubg_external as ge
from gbot.core.answer import Nets, Situation, answer_board
from gbot.core.cubemath import LIVES
from gbot.core.facts import checkers_left, contact
from gbot.core.movegen import legal_plays_raw
from gbot.core.notation import TEXT_SIZE, format_steps_into
from gbot.cube.decision import context_from_state
from gbot.cube.plays import MATCH_KEEP, MATCH_WINDOW, kernel_params
from gbot.engine import fastreply
from gbot.engine.engine import NO_RESIGN_ABOVE, Engine, skips_cube_model
from gbot.engine.fastreply import FastPath
from gbot.game.match import MatchState, Rules
from gbot.game.notations.fibs_board import FibsBoard, format_fibs_board, parse_gnubg_question
from gbot.game.position import Position
from tests.conftest import read_jsonl, shared_path
from tests.test_fibs_board import fibs_boards

ROOT = Path(__file__).resolve().parents[1]
RULES = [Rules(), Rules(jacoby=True, beavers=True), Rules(cube_enabled=False),
         Rules(cube_cap=4), Rules(end_mode="single")]


def test_move_text_kernel_reproduces_gnubg() -> None:
    out = np.empty(TEXT_SIZE, dtype=np.uint8)
    total = 0
    for case in read_jsonl(shared_path("vectors", "legal_moves_public.jsonl")):
        pos = Position.from_id(case["position_id"])
        results, steps = legal_plays_raw(pos.board, *case["dice"])
        for res, st in zip(results, steps, strict=True):
            n = format_steps_into(pos.board, st, out)
            assert out[:n].tobytes().decode() == case["moves"][Position(res).id()]
            total += 1
    assert total == 27_845


def referee_boards() -> Iterator[str]:
    """Every board line gnubg 1.07 sent as referee in the captured transcripts, in order."""
    paths = sorted((ROOT / "protocols" / "transcripts").glob("referee-*.txt"))
    if not paths:
        pytest.skip("no captured transcripts")
    for path in paths:
        for raw in path.read_text().splitlines():
            if raw.startswith("C "):
                data = ast.literal_eval(raw[2:]).decode().strip("\x00\n")
                if data.startswith("board:"):
                    yield data


def _answers(engine: Engine, lines: list[str], fast: bool,
             monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    monkeypatch.setattr(ge, "FAST_PATH", fast)
    session = ge.Session(engine)
    out: list[tuple[object, ...]] = []
    for line in lines:
        reply, end = ge.handle_line(session, line)
        out.append((reply, end, session.declined, session.game_score, session.pending_resign))
    return out


@pytest.fixture(scope="module")
def engines() -> list[Engine]:
    # the default engines look ahead for the cube; the static cube model's engines (cube_ply
    # 0) let the kernels decide doubles too (money: Janowski's forms, match: match_cube)
    return ([Engine(rules=r) for r in RULES]
            + [Engine(rules=r, cube_ply=0) for r in RULES[:2]])


def test_referee_boards_same_replies(engines: list[Engine],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    lines = list(referee_boards())
    assert len(lines) > 1000
    for engine in engines:
        want = _answers(engine, lines, False, monkeypatch)
        assert _answers(engine, lines, True, monkeypatch) == want
        # bytes, blanks and gnubg's NUL as the server passes them
        raw = [(line + "\x00").encode() for line in lines]
        assert _answers(engine, raw, True, monkeypatch) == want  # type: ignore[arg-type]


def test_most_referee_questions_take_the_fast_path(engines: list[Engine]) -> None:
    engine = engines[0]
    ge.warm(engine)
    session = ge.Session(engine)
    lines = list(referee_boards())
    answered = sum(ge.fast_reply(session, line) is not None for line in lines)
    assert answered >= 0.6 * len(lines)


def test_look_ahead_engines_answer_screened_doubles_in_the_kernels(engines: list[Engine]) -> None:
    """A look-ahead engine's double questions past the no-double screen are the kernels' to
    answer exactly where the engine keeps the static decision (its cube screen finds the
    verdict clear, or the match cube is dead for the opponent: ``cube_decision_ply`` 0),
    and the look-ahead's where it looks ahead."""
    engine = engines[0]
    assert engine.cube_ply > 0 and engine.ply == 0
    session = ge.Session(engine)
    kept = looked = 0
    for line in referee_boards():
        fb = parse_gnubg_question(line)[0]
        if fb.question != "double_or_roll":
            continue
        st = fb.match_state(engine.rules)
        me = st.player_on_roll
        if not st.may_double(me) or skips_cube_model(engine.probabilities(fb.position)[0],
                                                     st, me):
            continue
        got = ge.fast_reply(session, line)
        if engine.cube_decision_ply(fb.position, st) == 0:
            kept += 1
            assert got is not None, line
        else:
            looked += 1
            assert got is None, line
    assert kept >= 50 and looked >= 50, (kept, looked)


@given(b=fibs_boards("gnubg_external"))
@settings(max_examples=300, deadline=None)
def test_generated_lines_same_replies(engines: list[Engine], b: FibsBoard) -> None:
    line = format_fibs_board(b)
    for engine in engines[:3] + engines[-1:]:
        got = []
        for fast in (False, True):
            ge.FAST_PATH = fast
            try:
                session = ge.Session(engine)
                got.append((ge.handle_line(session, line), session.game_score))
            finally:
                ge.FAST_PATH = True
        assert got[0] == got[1]



TAKE_SITUATIONS = [
    # (match length, score (me, them), cube, owner seen by the doubled side, post-Crawford)
    (0, (0, 0), 1, "centre", False), (0, (0, 0), 2, "opponent", False),
    (0, (0, 0), 8, "opponent", False), (7, (0, 0), 1, "centre", False),
    (7, (2, 4), 2, "opponent", False), (7, (5, 3), 1, "centre", False),
    (9, (3, 8), 1, "centre", True), (5, (4, 1), 1, "centre", True),
    (11, (6, 9), 4, "opponent", False), (3, (1, 1), 1, "centre", False)]


def take_lines(boards: list[str]) -> list[str]:
    """Take questions on the positions of ``boards``, in each of :data:`TAKE_SITUATIONS`."""
    out = []
    for line in boards:
        fb, beavered = ge.parse_gnubg_question(line)
        if beavered:
            continue
        for length, score, cube, owner, post in TAKE_SITUATIONS:
            out.append(format_fibs_board(FibsBoard(
                points=fb.points, dice=(0, 0), cube_value=cube, cube_owner=owner,
                may_double=(owner == "centre", True), double_pending=True, score=score,
                match_length=length, crawford_game=False, post_crawford=post,
                names=("gbot", "taker"))))
    return out


def test_take_questions_same_replies(engines: list[Engine],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Take, drop and beaver from the kernels (the static cube model's engines) are the
    general path's, on the referee's positions (contact, races, no-contact, bear-offs) in
    money and match situations; the kernels answer all but the bear-offs."""
    boards = list(referee_boards())[::3]
    lines = take_lines(boards)
    assert len(lines) > 3000
    for engine in engines[-2:] + engines[:1]:
        want = _answers(engine, lines, False, monkeypatch)
        assert _answers(engine, lines, True, monkeypatch) == want
        kinds = {r[0] for r in want}
        assert {"take", "drop"} <= kinds, kinds
        if engine.rules.beavers:
            assert "beaver" in kinds
        answered = sum(ge.fast_reply(ge.Session(engine), line) is not None for line in lines)
        if engine.cube_ply == 0:
            assert answered >= 0.8 * len(lines)
        else:
            assert answered == 0                     # the look-ahead decides every take


def test_kernel_arguments_are_the_sources_named_fields(engines: list[Engine]) -> None:
    """The bundles the fast path builds hold what their sources give, field by field, and
    every call goes to the compiled code (no dispatcher)."""
    engine = engines[-1]                              # static cube model, Jacoby and beavers
    ge.warm(engine)
    path = engine._fast_path
    assert isinstance(path, FastPath)
    calls = path._local.calls
    ev = path.evaluator
    assert tuple(calls.answer.tail[1]) == ev.kernel_arrays()
    assert Nets._fields[:7] == ("esc", "class_net", "w1m", "b1", "w2t", "b2", "activation")
    s = ev.scratch()
    work = calls.work
    assert work.play is s.play
    for name in ("children", "probs", "kinds", "counts", "mover", "eqs", "rows", "values",
                 "res"):
        assert getattr(work.play, name) is getattr(s, name)
    for name in ("out", "steps", "table", "hashes", "state", "path", "marks"):
        assert getattr(work.play, name) is getattr(s.ws, name)
    for name in ("fields", "reply", "info"):
        assert getattr(work, name) is getattr(s, name)
    st = path.settings
    r = engine.rules
    assert (st.jacoby, st.beavers, st.cube_enabled, st.max_cube, st.cube_lookahead) == (
        r.jacoby, r.beavers, r.cube_enabled, r.max_cube, False)
    assert list(st.mult) == [1.0, 2.0, 3.0]
    assert calls.answer._fn is not answer_board       # the compiled version, not numba's
    called = [b for pair in calls.match.values() for b in pair if b._fn is not None]
    assert len(called) >= 2                           # warm() asked a match move and cube
    assert all(b._fn is not b.kernel for b in called)


def test_situation_is_kernel_params_by_name() -> None:
    """:class:`Situation` names :func:`gbot.cube.plays.kernel_params`'s values in order."""
    st = MatchState(match_length=7, score=(2, 4), cube_value=2, cube_owner=0)
    ctx = context_from_state(st)
    params = kernel_params(ctx)
    sit = fastreply.situation_of(params)
    assert len(params) == len(Situation._fields)
    assert (sit.away, sit.opp_away, sit.cube) == (ctx.away, ctx.opp_away, ctx.cube)
    assert (sit.owner, sit.can) == (int(ctx.owner), ctx.can_double())
    assert np.array_equal(sit.lives, LIVES) and np.array_equal(sit.outcomes, params[10])
    assert (sit.window, sit.keep) == (MATCH_WINDOW, MATCH_KEEP)


def test_new_situations_share_the_compiled_kernels(engines: list[Engine]) -> None:
    """A score or cube the thread has not met before binds the kernels to the compiled
    version an earlier situation resolved: no first-call type resolution (about a millisecond
    a situation) and the same replies as the general path."""
    engine = engines[-1]
    ge.warm(engine)
    path = engine._fast_path
    assert isinstance(path, FastPath)
    calls = path._local.calls
    resolved = {b.kernel: b.compiled for pair in calls.match.values() for b in pair
                if b.compiled is not None}
    assert set(resolved) == {fastreply._an.match_play, fastreply._an.match_cube,
                             fastreply._an.match_take, fastreply._an.match_resign}
    assert all(fn is not kernel for kernel, fn in resolved.items())
    lines = [format_fibs_board(FibsBoard(
        points=tuple(int(v) for v in Position.initial().board), dice=dice, cube_value=cube,
        cube_owner="centre" if cube == 1 else "me", may_double=(True, cube == 1),
        double_pending=False, score=(me, them), match_length=length, crawford_game=False,
        post_crawford=False, names=("gbot", "new")))
        for length, me, them, cube, dice in ((11, 3, 7, 1, (6, 2)), (13, 4, 9, 2, (0, 0)),
                                             (15, 10, 2, 2, (5, 3)))]
    for line in lines:
        calls.match.clear()     # (earlier tests may have met these scores: start afresh)
        known = set(calls.match)
        session = ge.Session(engine)
        reply = ge.handle_line(session, line)
        ge.FAST_PATH = False
        try:
            assert ge.handle_line(ge.Session(engine), line) == reply
        finally:
            ge.FAST_PATH = True
        new = [pair for key, pair in calls.match.items() if key not in known]
        assert len(new) == 1
        for b in new[0]:
            assert b.compiled is None or b.compiled is resolved[b.kernel]


RESIGN_SITUATIONS = [
    # (match length, score (me, them), cube, owner, Crawford game, post-Crawford)
    (0, (0, 0), 1, "centre", False, False), (0, (0, 0), 2, "me", False, False),
    (0, (0, 0), 4, "opponent", False, False), (7, (0, 0), 1, "centre", False, False),
    (7, (3, 5), 2, "me", False, False), (7, (2, 4), 2, "opponent", False, False),
    (5, (2, 4), 1, "centre", True, False), (5, (4, 2), 1, "centre", False, True),
    (9, (6, 8), 1, "centre", False, True), (3, (1, 1), 1, "centre", False, False),
    (11, (1, 9), 4, "opponent", False, False), (7, (4, 5), 1, "centre", False, False)]
"""Money and match situations for the resignation lines: the opponent 1 away (any loss ends
the match: a single at most), 2 away (a gammon is a backgammon), owned and centred cubes."""


def _side(mine: dict[int, int], theirs: dict[int, int]) -> tuple[int, ...]:
    """A board: my checkers on my points ``mine``, the opponent's on ITS points ``theirs``."""
    b = [0] * 26
    for pt, n in mine.items():
        b[pt] = n
    for pt, n in theirs.items():
        b[25 - pt] = -n
    return tuple(b)


CERTAIN_LOSSES = [
    _side({10: 15}, {1: 1}),                    # a certain gammon (none of mine can get off)
    _side({9: 8, 8: 7}, {1: 2}),                # a certain gammon, two of theirs left
    _side({20: 5, 21: 5, 22: 5}, {1: 1}),       # a certain backgammon (mine in their home)
    _side({12: 5, 19: 10}, {2: 1}),             # a certain backgammon
    _side({6: 5, 5: 5, 4: 5}, {1: 2}),          # the gammon is 2/36 (the Mars position)
    _side({1: 1, 6: 1}, {1: 1}),                # a single loss
    _side({3: 2}, {1: 1, 2: 1}),                # they bear off with any roll but 2-1
]
"""No-contact positions the side on roll loses: a certain gammon or backgammon (the gammon
and backgammon resignations), a possible gammon, a single loss, and one it may still win."""


def _random_no_contact(games: int, seed: int) -> list[tuple[int, ...]]:
    """Positions without contact from random play, seen by the side on roll."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pos = Position.initial()
        for _ in range(400):
            plays = pos.legal_plays((rng.randint(1, 6), rng.randint(1, 6)))
            if plays:
                pos = rng.choice(plays).position
            pos = pos.swapped()
            b = pos.board
            if int(b[b > 0].sum()) == 0 or int(b[b < 0].sum()) == 0:
                break
            if not contact(b):
                out.append(tuple(int(v) for v in b))
    return out


def resign_lines(points: list[tuple[int, ...]], seed: int) -> list[str]:
    """Move and double questions on ``points`` in each of :data:`RESIGN_SITUATIONS`, each
    line asked twice (gnubg asks again at the same score when it declines a resignation)."""
    rng = random.Random(seed)
    out = []
    for pts in points:
        for length, score, cube, owner, crawford, post in RESIGN_SITUATIONS:
            rolled = (rng.randint(1, 6), rng.randint(1, 6))
            for dice in (rolled,) if crawford else (rolled, (0, 0)):
                line = format_fibs_board(FibsBoard(
                    points=pts, dice=dice, cube_value=cube, cube_owner=owner,
                    may_double=(owner != "opponent", owner != "me"),
                    double_pending=False, score=score, match_length=length,
                    crawford_game=crawford, post_crawford=post, names=("gbot", "resigner")))
                out += [line, line]
    return out


@pytest.fixture(scope="module")
def losing_boards(engines: list[Engine]) -> list[tuple[int, ...]]:
    """No-contact boards whose side on roll wins at most the engine's resignation threshold:
    :data:`CERTAIN_LOSSES`, random play's and the referee's (both sides of its no-contact
    boards)."""
    engine = engines[0]
    boards = list(CERTAIN_LOSSES) + _random_no_contact(30, seed=5)
    for line in list(referee_boards()):
        fb, _ = ge.parse_gnubg_question(line)
        if not contact(fb.position.board):
            boards += [tuple(int(v) for v in fb.position.board),
                       tuple(int(v) for v in fb.position.swapped().board)]
    seen: dict[tuple[int, ...], None] = {}
    for b in boards:
        pos = Position(np.array(b, dtype=np.int8))
        if b not in seen and 0 not in checkers_left(pos.board) and (
                engine.probabilities(pos)[0] <= NO_RESIGN_ABOVE):
            seen[b] = None
    return list(seen)


def test_resignation_lines_same_replies(engines: list[Engine], losing_boards: list[tuple[int, ...]],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """No-contact lines where the engine weighs a resignation (money and match, several
    scores and cubes, the Crawford game and after): the one-call path answers them with the
    general path's replies and session state, offering the resignation where the general
    path does and not where it does not (a chance left, or the
    same offer declined: the line asked again at the same score)."""
    assert len(losing_boards) > 60
    lines = resign_lines(losing_boards, seed=3)
    position = Engine(rules=Rules(resignation="position"))
    for engine in engines + [position]:
        want = _answers(engine, lines, False, monkeypatch)
        assert _answers(engine, lines, True, monkeypatch) == want
        replies = [r[0] for r in want]
        # (the 0-ply networks never call a gammon certain: single resignations only here;
        # test_match_resign_levels_are_the_engines checks the gammon and backgammon levels)
        assert "resign" in replies
        # offered, then declined and not offered again; and lines with no offer at all
        declined = sum(str(a).startswith("resign") and not str(b).startswith("resign")
                       for a, b in zip(replies[::2], replies[1::2], strict=True))
        assert declined > 0 or engine.rules.resignation == "position"
        assert sum(not str(r).startswith("resign") for r in replies[::2]) > 100
        answered = sum(ge.fast_reply(ge.Session(engine), line) is not None for line in lines)
        if engine.rules.resignation == "position" or engine.rules.end_mode != "backgammons":
            assert answered == 0            # (site-style scoring: the general path weighs it)
        elif engine.cube_ply == 0:
            assert answered >= 0.9 * len(lines), (answered, len(lines))
        else:
            assert answered >= 0.8 * len(lines), (answered, len(lines))


@pytest.mark.parametrize("probs", [(0.0, 0.0, 0.0, 0.3, 0.0), (0.0, 0.0, 0.0, 1.0, 0.2),
                                   (0.0, 0.0, 0.0, 1.0, 1.0), (1e-7, 0.0, 0.0, 1.0, 1.0),
                                   (0.005, 0.0, 0.0, 0.995, 0.5)])
def test_match_resign_levels_are_the_engines(engines: list[Engine],
                                             probs: tuple[float, ...]) -> None:
    """:func:`gbot.core.answer.match_resign` in the fast path's cube situations gives the
    level :func:`gbot.cube.resign.resignation_level` gives in the engine's context, gammons
    and backgammons included (certain losses the networks do not produce)."""
    from gbot.cube.resign import resignation_level

    engine = engines[0]
    ge.warm(engine)
    path = engine._fast_path
    assert isinstance(path, FastPath)
    work = path._local.calls.work
    levels = set()
    for length, score, cube, owner, crawford, post in RESIGN_SITUATIONS:
        if not length:
            continue
        fb = FibsBoard(points=CERTAIN_LOSSES[0], dice=(3, 1), cube_value=cube,
                       cube_owner=owner, may_double=(owner != "opponent", owner != "me"),
                       double_pending=False, score=score, match_length=length,
                       crawford_game=crawford, post_crawford=post,
                       names=("gbot", "resigner"))
        st = fb.match_state(engine.rules)
        want = resignation_level(probs, context_from_state(st))
        mine, _ = path.situations((length, score[0], score[1], cube,
                                   {"centre": 0, "me": 1, "opponent": 2}[owner], int(crawford)))
        work.play.probs[0, :] = probs
        got = fastreply._an.match_resign(work, mine)
        assert got == want, (length, score, cube, owner)
        levels.add(got)
    if probs[0] <= 1e-6 and probs[3] == 1.0:        # a certain gammon: lower 1 away
        assert len(levels) >= 2, levels


def test_a_decision_replaced_on_the_instance_is_honoured(
        losing_boards: list[tuple[int, ...]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool that replaces an engine's decision on the instance (scripts/bench_cube_judged.py
    withholds gbot's resignations so) is obeyed on the one-call path too: the lines where the
    plain engine resigns get the withheld engine's moves, and it is asked every time."""
    lines = resign_lines(losing_boards[:20], seed=4)
    plain = _answers(Engine(), lines, True, monkeypatch)
    assert any(str(r[0]).startswith("resign") for r in plain)
    engine = Engine()
    asked: list[int] = []
    offer = engine.resign_offer

    def withheld(pos: Position, state: object) -> int:
        asked.append(offer(pos, state))  # type: ignore[arg-type]
        return 0

    monkeypatch.setattr(engine, "resign_offer", withheld)
    replies = _answers(engine, lines, True, monkeypatch)
    assert not any(str(r[0]).startswith("resign") for r in replies)
    assert sum(1 for level in asked if level) >= sum(
        1 for r in plain if str(r[0]).startswith("resign"))
