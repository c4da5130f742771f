"""The referee's transitions, rule by rule, on hand-built positions; gnubg's own Match IDs for
a beaver/raccoon sequence; and seeded random matches under random rule switches."""

from __future__ import annotations

import os
import random
from dataclasses import replace

import numpy as np
import pytest

from gbot.core.board import START, flip_py
from gbot.core.movegen import legal_boards
from gbot.errors import MatchRuleError
from gbot.game.match import CENTRE, GameState, MatchState, Rules
from gbot.game.notations.position_id import encode
from gbot.game.position import Position
from gbot.game.referee import (
    Dice,
    GameResult,
    Referee,
    accept_resign,
    beaver,
    can_double,
    double,
    drop,
    legal_results,
    loss_kind,
    match_winner,
    may_beaver,
    new_match,
    next_game,
    play,
    reject_resign,
    resign,
    roll,
    take,
)
from tests.players import play_match, random_rules

OVER = (GameState.OVER, GameState.RESIGNED, GameState.DROPPED)


def board(mine: dict[int, int], theirs: dict[int, int]) -> tuple[int, ...]:
    """A board seen by the player on roll: ``mine`` on my points (25 = bar), ``theirs`` on
    *my* points too (0 = their bar)."""
    b = [0] * 26
    for p, n in mine.items():
        b[p] += n
    for p, n in theirs.items():
        b[p] -= n
    return tuple(b)


def playing(b: tuple[int, ...], *, length: int = 0, rules: Rules | None = None,
            on_roll: int = 0, opener: int = 0, **kw: object) -> MatchState:
    """A game in play at board ``b`` with ``on_roll`` to roll."""
    return replace(MatchState(match_length=length, rules=rules or Rules()), board=b,
                   player_on_roll=on_roll, player_to_act=on_roll, game_opener=opener, turn=5,
                   **kw)  # type: ignore[arg-type]


def text_play(s: MatchState, text: str) -> MatchState:
    """Play ``text`` with the rolled dice."""
    p = Position(s.board_array(), max_checkers=s.rules.checkers).play_from_text(
        text, s.dice, caucasian=s.rules.caucasian)
    return play(s, p.position.board)


# --------------------------------------------------------------------------- opening


def test_opening_roll_ties_and_opener() -> None:
    s = new_match(3)
    assert s.game_state == GameState.NONE and s.board == tuple(int(x) for x in START)
    t = roll(s, (4, 4))
    assert t.game_state == GameState.NONE and t.dice == (4, 4)
    t = roll(t, (2, 5))  # player 0 shows 2, player 1 shows 5
    assert t.game_state == GameState.PLAYING
    assert (t.player_on_roll, t.player_to_act, t.game_opener, t.dice) == (1, 1, 1, (2, 5))
    # the opener plays both opening dice, no second roll
    assert not can_double(t)
    with pytest.raises(MatchRuleError):
        roll(t, (3, 1))
    results = legal_results(t)
    assert len(results) == len(legal_boards(START, 5, 2))
    u = play(t, results[0])
    assert (u.player_on_roll, u.dice, u.turn) == (0, (0, 0), 1)
    assert u.board == tuple(int(x) for x in flip_py(results[0]))


def test_bad_dice_and_out_of_turn() -> None:
    s = roll(new_match(), (6, 1))
    for bad in ((0, 1), (7, 2), (1.5, 2), (True, 2)):
        with pytest.raises(MatchRuleError) as exc:
            roll(new_match(), bad)  # type: ignore[arg-type]
        assert "die" in str(exc.value)
    with pytest.raises(MatchRuleError):
        play(s, legal_results(s)[0], player=1)
    with pytest.raises(MatchRuleError):
        play(s, START)  # not a result of 6-1
    with pytest.raises(MatchRuleError):
        play(s, None)  # 6-1 must be played
    with pytest.raises(MatchRuleError):
        next_game(s)


def test_no_legal_play_passes_the_turn() -> None:
    # I am on the bar against a closed board
    b = board({25: 1, 13: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
    s = roll(playing(b), (6, 5))
    assert len(legal_results(s)) == 0
    with pytest.raises(MatchRuleError):
        play(s, tuple(int(x) for x in START))
    t = play(s, None)
    assert t.player_on_roll == 1 and t.board == tuple(int(x) for x in flip_py(np.array(b)))


# --------------------------------------------------------------------------- cube


def _after_opening(rules: Rules | None = None, length: int = 0) -> MatchState:
    """Player 1 opened with 2-1 (13/11 6/5); player 0 is on roll, cube centred."""
    s = roll(new_match(length, rules), (1, 2))
    return text_play(s, "13/11 6/5")


def test_double_take_redouble_drop() -> None:
    s = _after_opening()
    assert can_double(s) and s.may_double(0) and s.may_double(1)
    with pytest.raises(MatchRuleError):
        double(s, player=1)  # not on roll
    d = double(s)
    assert (d.double_offered, d.player_to_act, d.cube_value) == (True, 1, 1)
    with pytest.raises(MatchRuleError):
        roll(d, (3, 1))
    t = take(d)
    assert (t.cube_value, t.cube_owner, t.player_to_act, t.double_offered) == (2, 1, 0, False)
    assert not can_double(t) and not t.may_double(0) and t.may_double(1)
    with pytest.raises(MatchRuleError) as exc:
        double(t)
    assert "owns the cube" in str(exc.value)
    t = roll(t, (3, 1))
    assert not can_double(t)
    t = text_play(t, "8/5 6/5")
    assert can_double(t)  # player 1, the owner, redoubles
    r = drop(double(t))
    assert r.game_state == GameState.DROPPED
    assert (r.winner, r.game_points, r.score) == (1, 2, (0, 2))  # the value before the double
    assert GameResult.of(r) == GameResult(1, 2, GameState.DROPPED)


def test_double_only_before_rolling() -> None:
    s = roll(_after_opening(), (4, 2))
    with pytest.raises(MatchRuleError) as exc:
        double(s)
    assert "before rolling" in str(exc.value)


@pytest.mark.parametrize("cap", [2, 4, 8, 16, 32, 64])
def test_cube_cap(cap: int) -> None:
    s = _after_opening(Rules(cube_cap=cap))
    value = 1
    while True:
        assert s.cube_value == value
        if value * 2 > cap:
            assert not can_double(s)
            with pytest.raises(MatchRuleError) as exc:
                double(s)
            assert "cap" in str(exc.value)
            break
        s = take(double(s))
        value *= 2
        # hand the turn to the new owner: roll and play for the doubler
        s = roll(s, (1, 2))
        s = play(s, legal_results(s)[0])
    assert value == cap


def test_cube_off() -> None:
    s = _after_opening(Rules(cube_enabled=False))
    assert not can_double(s)
    with pytest.raises(MatchRuleError) as exc:
        double(s)
    assert "cube is off" in str(exc.value)


def test_beaver_and_raccoon_match_gnubgs_ids() -> None:
    """gnubg 1.07 (set beavers 3, jacoby off, seed 7): player 1 opens 21 13/11 6/5, player 0
    doubles, player 1 beavers, player 0 raccoons, player 1 takes; IDs captured after each."""
    s = _after_opening(Rules(beavers=True, raccoons=True, jacoby=False))
    assert encode(s.board_array()) == "0HPkATDgc/ABMA"
    assert s.match_id() == "MAEAAAAAAAAE"
    s = double(s)
    assert s.match_id() == "MBkAAAAAAAAE"
    assert may_beaver(s)
    s = beaver(s)
    assert s.match_id() == "EREAAAAAAAAE"
    assert may_beaver(s)
    s = beaver(s)  # the raccoon
    assert s.match_id() == "EhkAAAAAAAAE"
    assert not may_beaver(s)
    s = take(s)
    assert s.match_id() == "EwEAAAAAAAAE"
    assert (s.cube_value, s.cube_owner, s.player_to_act) == (8, 1, 0)


def test_beaver_limits() -> None:
    base = double(_after_opening(Rules(beavers=True)))
    b = beaver(base)
    assert not may_beaver(b)  # raccoons off
    with pytest.raises(MatchRuleError):
        beaver(b)
    r = drop(b)  # the doubler drops the beaver: loses the 2 the cube had reached
    assert (r.winner, r.game_points) == (1, 2)
    assert not may_beaver(double(_after_opening(Rules(beavers=False))))
    assert not may_beaver(double(_after_opening(Rules(beavers=True, cube_cap=2))))
    assert not may_beaver(double(_after_opening(Rules(beavers=True), length=7)))
    with pytest.raises(MatchRuleError):
        beaver(double(_after_opening(Rules(beavers=True), length=7)))


# --------------------------------------------------------------------------- game end


def _bearoff_win(theirs: dict[int, int], *, rules: Rules | None = None, cube: int = 1,
                 length: int = 0) -> MatchState:
    """Player 0 on roll bears off its last checker (on its 1-point) with 2-1."""
    owner = CENTRE if cube == 1 else 0
    s = playing(board({1: 1}, theirs), rules=rules, length=length, cube_value=cube,
                cube_owner=owner)
    s = roll(s, (2, 1))
    (result,) = [r for r in legal_results(s) if not (r[1:26] > 0).any()][:1]
    return play(s, result)


SINGLE = {20: 10}  # five of their checkers are off
GAMMON = {20: 15}  # all fifteen in their home board
BACKGAMMON = {20: 14, 3: 1}  # one still in my home board
BACKGAMMON_BAR = {20: 14, 0: 1}  # one on their bar


@pytest.mark.parametrize("mode,mults", [("single", (1, 1, 1, 1)), ("gammons", (1, 2, 2, 2)),
                                        ("backgammons", (1, 2, 3, 3))])
@pytest.mark.parametrize("cube", [1, 2, 4])
def test_end_modes_times_cube(mode: str, mults: tuple[int, ...], cube: int) -> None:
    for theirs, mult in zip((SINGLE, GAMMON, BACKGAMMON, BACKGAMMON_BAR), mults, strict=True):
        s = _bearoff_win(theirs, rules=Rules(end_mode=mode), cube=cube, length=25)
        assert s.game_state == GameState.OVER and s.winner == 0
        assert s.game_points == mult * cube
        assert s.score == (mult * cube, 0)


def test_loss_kind_hand_cases() -> None:
    assert loss_kind(flip_py(np.array(board({}, SINGLE), dtype=np.int8))) == 1
    assert loss_kind(flip_py(np.array(board({}, GAMMON), dtype=np.int8))) == 2
    assert loss_kind(flip_py(np.array(board({}, BACKGAMMON), dtype=np.int8))) == 3
    assert loss_kind(flip_py(np.array(board({}, BACKGAMMON_BAR), dtype=np.int8))) == 3
    assert loss_kind(flip_py(np.array(board({}, {3: 1}), dtype=np.int8)), 1) == 3  # hyper
    assert loss_kind(flip_py(np.array(board({}, {10: 1}), dtype=np.int8)), 3) == 1


def test_jacoby() -> None:
    rules = Rules(jacoby=True)
    assert _bearoff_win(GAMMON, rules=rules).game_points == 1  # cube never turned
    assert _bearoff_win(BACKGAMMON, rules=rules, cube=2).game_points == 6
    # no Jacoby in match play
    assert _bearoff_win(GAMMON, rules=rules, length=7).game_points == 2


def test_resignation_offers() -> None:
    s = playing(board({6: 15}, GAMMON), cube_value=2, cube_owner=1)
    r = resign(s, 2)
    assert (r.resign_offered, r.player_to_act) == (2, 1)
    with pytest.raises(MatchRuleError):
        roll(r, (3, 1))
    back = reject_resign(r)
    assert (back.resign_offered, back.player_to_act) == (0, 0)
    done = accept_resign(r)
    assert done.game_state == GameState.RESIGNED
    assert (done.winner, done.game_points, done.score) == (1, 4, (0, 4))
    # the player not on roll may resign too; the offer is capped by the end mode
    o = resign(replace(s, rules=Rules(end_mode="gammons")), 3, player=1)
    assert o.player_to_act == 0
    assert accept_resign(o).game_points == 4  # gammons mode: backgammon counts 2, x cube 2
    with pytest.raises(MatchRuleError):
        resign(s, 4)
    with pytest.raises(MatchRuleError):
        resign(double(replace(s, cube_owner=0)), 1)  # not while a double is pending


@pytest.mark.parametrize("mode", ["single", "gammons", "backgammons"])
def test_site_style_resignation(mode: str) -> None:
    rules = Rules(resignation="position", end_mode=mode)
    cap = Rules(end_mode=mode).max_end_multiplier
    for theirs, kind in ((SINGLE, 1), (GAMMON, 2), (BACKGAMMON, 3)):
        # player 1 (not on roll) gives up; its position decides the score
        s = playing(board({6: 15}, theirs), rules=rules, cube_value=4, cube_owner=0)
        r = resign(s, player=1)
        assert r.game_state == GameState.RESIGNED and r.winner == 0
        assert r.game_points == min(kind, cap) * 4
    with pytest.raises(MatchRuleError):
        resign(playing(board({6: 15}, SINGLE), rules=rules), 2)


# --------------------------------------------------------------------------- draw


def _draw_setup(theirs: dict[int, int], rules: Rules) -> MatchState:
    """Player 0 opened this game and bears off its last checker; player 1 has ``theirs``."""
    s = roll(playing(board({1: 1}, theirs), rules=rules, opener=0), (2, 1))
    (result,) = [r for r in legal_results(s) if not (r[1:26] > 0).any()][:1]
    return play(s, result)


def test_draw_on_last_roll() -> None:
    rules = Rules(draw_last_roll=True)
    s = _draw_setup({24: 1, 23: 1}, rules)  # their 1- and 2-points
    assert s.game_state == GameState.PLAYING and s.final_roll
    assert (s.player_on_roll, s.player_to_act) == (1, 1)
    assert not can_double(s)
    with pytest.raises(MatchRuleError):
        double(s)
    d = text_play(roll(s, (2, 1)), "2/off 1/off")
    assert d.game_state == GameState.OVER and (d.winner, d.game_points) == (-1, 0)
    assert d.score == (0, 0) and match_winner(d) == -1
    # the final roll falls short: the opener wins, scored by the final position
    s = _draw_setup({19: 2}, rules)
    w = play(roll(s, (2, 1)), legal_results(roll(s, (2, 1)))[0])
    assert (w.game_state, w.winner, w.game_points) == (GameState.OVER, 0, 1)


def test_no_final_roll_for_the_opener_or_when_off() -> None:
    # the second player (player 1 opened) bears off first: it wins at once
    t = roll(playing(board({1: 1}, {24: 1}), rules=Rules(draw_last_roll=True), opener=1),
             (2, 1))
    t = play(t, [r for r in legal_results(t) if not (r[1:26] > 0).any()][0])
    assert t.game_state == GameState.OVER and t.winner == 0
    u = _draw_setup({24: 1, 23: 1}, Rules(draw_last_roll=False))
    assert u.game_state == GameState.OVER and u.winner == 0


# --------------------------------------------------------------------------- series


def _finished(s: MatchState, winner: int, points: int = 1) -> MatchState:
    score = list(s.score)
    score[winner] += points
    return replace(s, game_state=GameState.OVER, winner=winner, game_points=points,
                   score=(score[0], score[1]))


@pytest.mark.parametrize("how", ["roll", "loser", "alternate"])
def test_who_opens_the_next_game(how: str) -> None:
    s = new_match(0, Rules(opener=how))
    assert s.game_state == GameState.NONE  # the first game: always an opening roll
    s = roll(s, (6, 3))  # player 0 opens game 1
    s = _finished(s, winner=1)
    n = next_game(s)
    assert n.game_number == 1 and n.cube_value == 1 and n.cube_owner == CENTRE
    if how == "roll":
        assert n.game_state == GameState.NONE
        return
    expected = 0 if how == "loser" else 1  # loser of game 1 is player 0; alternate: player 1
    assert n.game_state == GameState.PLAYING
    assert (n.player_on_roll, n.game_opener, n.dice) == (expected, expected, (0, 0))
    assert can_double(n)  # a designated opener's turn starts before the roll
    n = roll(n, (3, 3))  # an ordinary roll: doubles allowed
    assert len(legal_results(n)) > 0
    # after a draw, "loser" falls back to the opening roll
    if how == "loser":
        d = next_game(replace(_finished(n, 0, 0), winner=-1))
        assert d.game_state == GameState.NONE


def test_crawford_once() -> None:
    s = roll(new_match(5), (6, 3))
    s = next_game(_finished(s, 0, 4))
    assert s.crawford and s.crawford_done and not s.post_crawford
    s = roll(s, (6, 3))
    assert not s.may_double(1)
    s = next_game(_finished(s, 1, 1))  # the Crawford game is over: post-Crawford
    assert not s.crawford and s.crawford_done
    s = roll(s, (6, 3))
    assert s.post_crawford and s.may_double(0)
    s = next_game(_finished(s, 1, 2))
    assert not s.crawford
    s = next_game(_finished(s, 1, 1))  # both at match point: still no second Crawford game
    assert not s.crawford and s.score == (4, 4)
    done = _finished(roll(s, (1, 2)), 0, 1)
    assert done.match_over and match_winner(done) == 0
    with pytest.raises(MatchRuleError):
        next_game(done)


def test_crawford_skipped_when_jumping_past() -> None:
    s = next_game(_finished(roll(new_match(5), (6, 3)), 0, 2))
    assert not s.crawford
    s = next_game(_finished(roll(s, (6, 3)), 1, 3))  # 2-3: nobody at 4
    assert not s.crawford and not s.crawford_done


# --------------------------------------------------------------------------- variants


def test_caucasian_hitter_may_not_hide() -> None:
    # my checker on 8 hits their blot on my 5 and may not go on to my 4-point (my checkers)
    b = board({8: 1, 4: 2, 13: 12}, {5: 1, 19: 14})
    std = roll(playing(b), (3, 1))
    cau = roll(playing(b, rules=Rules(caucasian=True)), (3, 1))
    a = {r.tobytes() for r in legal_results(std)}
    c = {r.tobytes() for r in legal_results(cau)}
    hidden = Position(np.array(b, dtype=np.int8)).play_from_text("8/5*/4", (3, 1))
    key = hidden.position.board.tobytes()
    assert key in a and key not in c and c < a
    with pytest.raises(MatchRuleError):
        play(cau, hidden.position.board)
    assert play(std, hidden.position.board).player_on_roll == 1


@pytest.mark.parametrize("variation,n", [("nackgammon", 15), ("hyper1", 1), ("hyper2", 2),
                                         ("hyper3", 3)])
def test_variation_games_finish(variation: str, n: int) -> None:
    ref = play_match(3, Rules(variation=variation, cube_enabled=False), seed=n)
    assert ref.state.match_over
    for g in ref.record.games:
        moves = [a for a in g.actions if a.kind == "move"]
        assert sum(int(x) for x in moves[0].board if x > 0) == n


# --------------------------------------------------------------------------- referee, dice


def test_dice_are_seeded() -> None:
    d1, d2 = Dice(9), Dice(9)
    rolls = [d1.roll() for _ in range(600)]
    assert rolls == [d2.roll() for _ in range(600)]
    counts = np.bincount([x for r in rolls for x in r], minlength=7)[1:]
    assert counts.min() > 150 and counts.max() < 260


def test_referee_log_adds_up() -> None:
    ref = play_match(7, Rules(), seed=3)
    assert ref.state.match_over and ref.record.final_score == ref.state.score
    assert sum(g.points for g in ref.record.games) == sum(ref.state.score)
    for g in ref.record.games:
        assert g.actions[-1].kind == "win" and g.actions[-1].value == g.points


# --------------------------------------------------------------------------- properties


def _independent_kind(winner_view: np.ndarray, n: int) -> int:
    on_board = -int(winner_view[winner_view < 0].sum())
    if on_board < n:
        return 1
    if winner_view[0] < 0 or (winner_view[1:7] < 0).any():
        return 3
    return 2


def _check_states(states: list[MatchState]) -> None:
    crawford_games: set[int] = set()
    reached_point = -1
    for s in states:
        r = s.rules
        n = r.checkers
        assert s.cube_value & (s.cube_value - 1) == 0 and 1 <= s.cube_value <= r.max_cube
        assert (s.cube_owner == CENTRE) == (s.cube_value == 1)
        if s.board:
            b = np.array(s.board)
            assert b[25] >= 0 and b[0] <= 0
            mine, theirs = int(b[b > 0].sum()), -int(b[b < 0].sum())
            assert 0 <= mine <= n and 0 <= theirs <= n
            if s.game_state == GameState.NONE or (s.turn == 0 and s.dice == (0, 0)):
                assert mine == theirs == n
        if s.crawford:
            assert s.match_length > 0 and not s.double_offered and s.cube_value == 1
            crawford_games.add(s.game_number)
        if s.match_length > 1 and reached_point < 0 and s.match_length - 1 in s.score \
                and s.game_state not in OVER:
            reached_point = s.game_number
        if s.final_roll:
            assert r.draw_last_roll and s.player_on_roll != s.game_opener
    assert len(crawford_games) <= 1
    if states[0].match_length:
        # the Crawford game is the game after someone first reached match point
        assert crawford_games == (set() if reached_point < 0 else {reached_point})


def _check_record(ref: Referee, finals: list[MatchState]) -> None:
    rules = ref.record.rules
    total = [0, 0]
    for g, s in zip(ref.record.games, finals, strict=True):
        assert g.score == tuple(total)
        if g.winner < 0:
            assert g.points == 0 and rules.draw_last_roll and g.how == GameState.OVER
            continue
        total[g.winner] += g.points
        assert g.points % s.cube_value == 0
        mult = g.points // s.cube_value
        assert 1 <= mult <= rules.max_end_multiplier
        if g.how == GameState.DROPPED:
            assert mult == 1
        elif g.how == GameState.OVER or rules.resignation == "position":
            # a finished game, or a site-style resignation: the loser's actual position decides
            b = np.array(s.board, dtype=np.int8)  # seen by the player on roll
            winner_view = b if s.player_on_roll == g.winner else flip_py(b)
            kind = _independent_kind(winner_view, rules.checkers)
            if s.is_money and rules.jacoby and s.cube_value == 1:
                kind = 1
            assert mult == min(kind, rules.max_end_multiplier)
    assert tuple(total) == ref.state.score
    if ref.state.match_length:
        assert ref.state.match_over
        assert max(ref.record.games[-1].score) < ref.state.match_length


def _run(seed: int) -> None:
    rng = random.Random(seed)
    money = rng.random() < 0.3
    rules = random_rules(rng, money)
    length = 0 if money else rng.randint(1, 9)
    states: list[MatchState] = []
    ref = play_match(length, rules, seed, games=4, check=states.append)
    last = {s.game_number: s for s in states if s.game_state in OVER}
    _check_states(states)
    _check_record(ref, [last[k] for k in sorted(last)])


def test_random_matches_quick() -> None:
    for seed in range(200):
        _run(seed)


@pytest.mark.slow
def test_random_matches_many(request: pytest.FixtureRequest) -> None:
    if not os.environ.get("GBOT_SLOW") and "slow" not in str(
            request.config.getoption("markexpr")):
        pytest.skip("slow: set GBOT_SLOW=1 or run -m slow")
    for seed in range(1000, 4000):
        _run(seed)


def test_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "referee.md"
    if not doc.exists():
        pytest.skip("docs/referee.md absent")
    code = doc.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, str(doc), "exec"), {})
    score = eval(capsys.readouterr().out.strip())
    assert max(score) >= 5
