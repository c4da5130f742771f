"""The bgsage bridge (training-time teacher and benchmark opponent) against gnubg-nn and the
definitions: layout, side, finished games, bear-offs, depth, the teacher registration."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from gbot.core.board import START, flip_py, pips
from gbot.core.movegen import legal_boards
from tests.randomplay import random_positions

bgbot_cpp = pytest.importorskip("bgbot_cpp")
pytest.importorskip("gnubg_nn")

from gbot.train import bgsage_bridge as BB  # noqa: E402
from gbot.train.oracle import probabilities as gnubg_probs  # noqa: E402

pytestmark = pytest.mark.oracle
HELDOUT = Path(__file__).resolve().parent / "data" / "heldout_positions.csv"
ROLLS = [(i, j) for i in range(1, 7) for j in range(i, 7)]


@pytest.fixture(scope="module")
def raw() -> BB.Bgsage:
    return BB.Bgsage(1)


def _heldout() -> tuple[np.ndarray, np.ndarray]:
    from gbot.game.position import Position

    with HELDOUT.open() as fh:
        rows = list(csv.DictReader(fh))
    boards = np.array([Position.from_id(r["position_id"]).board for r in rows], dtype=np.int8)
    return boards, np.array([r["class"] for r in rows])


def test_layout_round_trip_flip_and_pips() -> None:
    boards = np.array([b for b, _, _ in random_positions(400, 3)], dtype=np.int8)
    assert (boards[:, 0] < 0).any() and (boards[:, 25] > 0).any()   # bars on both sides
    assert np.array_equal(BB.from_bgsage(BB.to_bgsage(boards)), boards)
    for b in boards:
        x = BB.to_bgsage(b)[0].tolist()
        assert bgbot_cpp.flip_board(x) == BB.to_bgsage(flip_py(b))[0].tolist()
        assert tuple(bgbot_cpp.pip_counts(x)) == pips(b)


def test_candidates_are_gbots_legal_results(raw: BB.Bgsage) -> None:
    dances = 0
    for b, d1, d2 in random_positions(1500, 11):
        mine = {r.tobytes() for r in legal_boards(b, d1, d2)}
        theirs = {r.tobytes() for r in raw.candidates(b, d1, d2)}
        assert theirs == mine, (b.tolist(), d1, d2)
        dances += not mine
    assert dances > 0                      # a dance is an empty list, not the board itself


def test_the_one_rule_difference_last_checker_by_one_die(raw: BB.Bgsage) -> None:
    b = np.zeros(26, dtype=np.int8)
    b[6] = 1                               # my last checker
    b[2], b[4], b[5] = -1, -2, -2          # an opposing blot on my 2-point
    b[19] = -10
    gbot = legal_boards(b, 6, 4)
    both_dice = b.copy()
    both_dice[6], both_dice[2], both_dice[0] = 0, 0, -1     # 6/2*/off
    assert np.array_equal(gbot, both_dice[None])
    one_die = b.copy()
    one_die[6] = 0                                          # 6/off: gnubg's rules forbid it
    got = {r.tobytes() for r in raw.candidates(b, 6, 4)}
    assert got == {both_dice.tobytes(), one_die.tobytes()}


def test_finished_games_are_exact(raw: BB.Bgsage) -> None:
    lost = np.zeros(26, dtype=np.int8)
    lost[3] = 2                            # I have 2 left, the opponent is off: single loss
    gammoned = np.zeros(26, dtype=np.int8)
    gammoned[6], gammoned[13] = 10, 5      # none of mine off
    bgd = gammoned.copy()
    bgd[13], bgd[20] = 4, 1                # one in the winner's home board
    barred = gammoned.copy()
    barred[13], barred[25] = 4, 1
    got = raw.probabilities(np.array([lost, gammoned, bgd, barred]))
    assert np.array_equal(got, np.array([[0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1],
                                         [0, 0, 0, 1, 1]], dtype=np.float32))
    # the same games seen by the winner who has just moved
    assert np.array_equal(raw.post_move(np.array([flip_py(gammoned), flip_py(bgd)])),
                          np.array([[1, 1, 0, 0, 0], [1, 1, 1, 0, 0]], dtype=np.float32))


def test_sure_wins_and_bearoffs_agree_with_gnubg_nn(raw: BB.Bgsage) -> None:
    rng = np.random.default_rng(1)
    boards = []
    for _ in range(200):
        b = np.zeros(26, dtype=np.int8)
        for _k in range(int(rng.integers(1, 16))):
            b[int(rng.integers(1, 7))] += 1
        for _k in range(int(rng.integers(1, 16))):
            b[int(rng.integers(19, 25))] -= 1
        boards.append(b)
    # a won race bgsage's raw net gives 0.66 backgammons: one checker on my 1-point, the
    # opponent with 15 checkers none of which is in my home board
    won = np.zeros(26, dtype=np.int8)
    won[1] = 1
    for pt, n in ((7, 3), (11, 1), (12, 3), (15, 2), (19, 2), (20, 2), (21, 1), (24, 1)):
        won[pt] = -n
    boards.append(won)
    boards = np.array(boards)
    got, ref = raw.probabilities(boards), gnubg_probs(boards, 0)
    assert np.abs(got - ref).max() < 0.005
    assert np.array_equal(got[-1], np.array([1, 1, 0, 0, 0], dtype=np.float32))


def test_heldout_equity_close_to_gnubg_nn(raw: BB.Bgsage) -> None:
    boards, cls = _heldout()
    got = BB.equity(raw.probabilities(boards))
    ref = BB.equity(gnubg_probs(boards, 0))
    err = np.abs(got - ref)
    assert err.mean() < 0.045              # measured 0.034 (gnubg 0-ply vs its 2-ply: 0.024)
    assert err[cls == "bearoff"].mean() < 0.002
    on_bar = (boards[:, 25] > 0) | (boards[:, 0] < 0)
    assert on_bar.sum() > 300 and err[on_bar].mean() < 0.055   # a wrong bar sign gives ~0.3
    # no flip: scoring the position as if its side to move had just moved is far off
    wrong = BB.equity(raw.post_move(boards))
    assert np.abs(wrong - ref).mean() > 0.15


def test_symmetric_positions() -> None:
    sym = []
    for b, _, _ in random_positions(3000, 5):
        s = b.copy()
        s[13:26] = -b[12::-1]              # my half mirrored onto the opponent's
        if (s[1:13] >= 0).all() and int(s[1:13].sum()) + int(s[25]) == 15:
            sym.append(s)
    sym.append(START.copy())
    boards = np.array(sym, dtype=np.int8)
    assert boards.shape[0] > 20
    assert all(np.array_equal(flip_py(b), b) for b in boards)
    for plies in (1, 2):
        bs = BB.Bgsage(plies)
        p = bs.probabilities(boards[:25])
        assert np.allclose(p, BB.invert(bs.post_move(boards[:25])), atol=1e-6)
        assert (p[:, 0] > 0.5).mean() > 0.9            # the roll is worth something
        assert np.all(p[:, 1] >= p[:, 2]) and np.all(p[:, 3] >= p[:, 4])
    start = BB.Bgsage(1).probabilities(START[None])[0]
    assert abs(BB.equity(start)[0] - BB.equity(gnubg_probs(START[None], 0))[0]) < 0.03


def test_two_ply_is_the_raw_net_one_roll_deeper(raw: BB.Bgsage) -> None:
    """bgsage "2-ply" = the mean over the 21 rolls of the side to move's best raw-net result."""
    deep = BB.Bgsage(2)
    boards = np.array([b for b, _, _ in random_positions(200, 8)][40::20], dtype=np.int8)
    got = deep.probabilities(boards)
    for b, g in zip(boards, got, strict=True):
        acc = np.zeros(5)
        for d1, d2 in ROLLS:
            res = legal_boards(b, d1, d2)
            res = res if res.shape[0] else b[None]
            p = raw.post_move(res)
            acc += (1 if d1 == d2 else 2) * p[int(np.argmax(BB.equity(p)))]
        assert np.abs(acc / 36 - g).max() < 0.01


def test_registered_as_teacher(raw: BB.Bgsage) -> None:
    from gbot.train.teacher import TEACHERS, make_teacher

    assert "bgsage" in TEACHERS
    boards = np.array([b for b, _, _ in random_positions(50, 2)], dtype=np.int8)
    assert np.array_equal(make_teacher("bgsage", 1)(boards), raw.probabilities(boards))
    with pytest.raises(ValueError, match="plies"):
        make_teacher("bgsage", 0)
