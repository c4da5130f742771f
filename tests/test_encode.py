"""Network inputs and position classes: hand-checked values, symmetry, movegen and gnubg oracles."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from gbot.core import classify as C
from gbot.core import encode as E
from gbot.core.board import START, flip_py
from gbot.game.notations import position_id
from tests.handboards import board_of

HELDOUT = Path(__file__).resolve().parent / "data" / "heldout_positions.csv"


def _heldout() -> tuple[np.ndarray, list[str]]:
    with open(HELDOUT, encoding="ascii") as fh:
        rows = list(csv.DictReader(fh))
    boards = np.stack([position_id.decode(r["position_id"]) for r in rows])
    return boards, [r["class"] for r in rows]



def _features(b: np.ndarray) -> np.ndarray:
    return E.encode(b)[0, E.FEATURES_AT:]


def test_layout() -> None:
    assert E.N_INPUTS == 2 * E.RAW_PER_SIDE + 2 * E.N_FEATURES
    assert len(E.FEATURE_NAMES) == E.N_FEATURES
    x = E.encode(np.stack([START, START]))
    assert x.shape == (2, E.N_INPUTS) and x.dtype == np.float32


def test_start_raw_inputs() -> None:
    x = E.encode(START)[0]
    for s in (0, 1):
        base = s * E.RAW_PER_SIDE
        assert list(x[base + 4 * 23: base + 4 * 24]) == [1, 1, 0, 0]      # 24-point: 2
        assert list(x[base + 4 * 12: base + 4 * 13]) == [1, 1, 1, 1.0]    # 13-point: 5
        assert list(x[base + 4 * 7: base + 4 * 8]) == [1, 1, 1, 0]        # 8-point: 3
        assert list(x[base + 4 * 5: base + 4 * 6]) == [1, 1, 1, 1.0]      # 6-point: 5
        assert x[base + E.OFF_AT] == 0.0
        assert x[base:base + E.RAW_PER_SIDE].sum() == pytest.approx(2 + 4 + 3 + 4)


def test_start_features() -> None:
    f = _features(START)
    expected = {
        E.PIPS: 1.67, E.BACK_ESCAPES: 0.0, E.SHOTS: 0.0, E.PRIME: 1 / 6, E.HOME_POINTS: 1 / 6,
        E.ANCHOR: 1 / 6, E.ANCHORS: 1 / 3, E.DANCE: 1 / 36, E.BLOTS: 0.0, E.BACK: 24 / 25,
        E.OUTSIDE: 10 / 15, E.OUTSIDE_PIPS: 77 / 50, E.CROSSOVERS: 19 / 15,
    }
    for side in (0, 1):
        for k, v in expected.items():
            assert f[side * E.N_FEATURES + k] == pytest.approx(v, abs=1e-6), E.FEATURE_NAMES[k]


def test_bar_and_off_counts() -> None:
    b = board_of({25: 2, 6: 3}, {0: 1, 20: 4})
    x = E.encode(b)[0]
    assert list(x[4 * 24: 4 * 25]) == [1, 1, 0, 0]                # my bar
    assert x[E.OFF_AT] == pytest.approx(10 / 15)
    opp = E.RAW_PER_SIDE
    assert list(x[opp + 4 * 24: opp + 4 * 25]) == [1, 0, 0, 0]    # opponent's bar
    assert list(x[opp + 4 * 4: opp + 4 * 5]) == [1, 1, 1, 0.5]    # their 5-point (my 20)
    assert x[opp + E.OFF_AT] == pytest.approx(10 / 15)
    f = _features(b)
    assert f[E.PIPS] == pytest.approx((50 + 18) / 100)
    assert f[E.BACK] == 1.0
    assert f[E.OUTSIDE] == pytest.approx(2 / 15)


def test_swapping_sides_swaps_inputs() -> None:
    boards, _ = _heldout()
    x = E.encode(boards)
    y = E.encode(np.stack([flip_py(b) for b in boards]))
    r = E.RAW_PER_SIDE
    assert np.array_equal(x[:, :r], y[:, r:2 * r])
    assert np.array_equal(x[:, r:2 * r], y[:, :r])
    f, n = E.FEATURES_AT, E.N_FEATURES
    assert np.array_equal(x[:, f:f + n], y[:, f + n:f + 2 * n])
    assert np.array_equal(x[:, f + n:], y[:, f:f + n])


def test_one_pass_features_match_per_side_reference() -> None:
    boards, _ = _heldout()
    esc = E.escape_table()
    for b in boards[:600]:
        want = np.zeros(2 * E.N_FEATURES, dtype=np.float32)
        E.side_features(b, esc, want, 0)
        E.side_features(flip_py(b), esc, want, E.N_FEATURES)
        assert np.allclose(_features(b), want, rtol=1e-6, atol=1e-7), position_id.encode(b)


def test_inputs_bounded() -> None:
    boards, _ = _heldout()
    x = E.encode(boards)
    assert np.isfinite(x).all()
    assert x.min() >= 0.0 and x.max() <= 6.0


# -- escapes --------------------------------------------------------------------------------

def _mask(*distances: int) -> int:
    m = 0
    for k in distances:
        m |= 1 << (E.WINDOW - k)
    return m


@pytest.mark.parametrize(("blocks", "count"), [
    ((), 36),
    ((1,), 35),                # only 1-1 fails
    ((1, 2, 3, 4, 5, 6), 0),   # a full prime directly in front
    ((6,), 20),                # 18 non-doubles with sum >= 7, plus 4-4 and 5-5
])
def test_escape_table(blocks: tuple[int, ...], count: int) -> None:
    assert E.escape_table()[_mask(*blocks)] == count


# -- shots ----------------------------------------------------------------------------------

CLASSIC_SHOTS = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2,
                 12: 3, 13: 0, 14: 0, 15: 1, 16: 1, 17: 0, 18: 1, 19: 0, 20: 1, 24: 1}


@pytest.mark.parametrize(("distance", "count"), sorted(CLASSIC_SHOTS.items()))
def test_direct_and_indirect_shot_numbers(distance: int, count: int) -> None:
    """The well-known shot counts for one shooter and one blot, nothing in between."""
    b = board_of({1 + distance: 1}, {1: 1})     # distance 24: shooting from the bar
    assert round(_features(b)[E.SHOTS] * 36) == count


def test_blocks_stop_indirect_shots() -> None:
    # shooter on 10, blot on 4 (6 away); opponent points on 8, 7, 6 block 2-4, 3-3 and 2-2
    b = board_of({10: 1}, {4: 1, 8: 2, 7: 2, 6: 2})
    assert round(_features(b)[E.SHOTS] * 36) == 11 + 2


def test_shots_against_move_generator() -> None:
    """Every roll on which some legal play hits is counted; extra counts (a hit that the
    must-use-both-dice rule forbids) are rare."""
    movegen = pytest.importorskip("gbot.core.movegen")
    boards, _ = _heldout()
    boards = [b for b in boards if b[25] == 0 and C.classify(b) >= C.CRASHED][:300]
    equal = 0
    for b in boards:
        hits = 0
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                res = movegen.legal_boards(b, d1, d2)
                if res.shape[0] and (res[:, 0] < b[0]).any():
                    hits += 1
        mine = round(_features(b)[E.SHOTS] * 36)
        assert hits <= mine, position_id.encode(b)
        equal += hits == mine
    assert equal >= 0.97 * len(boards)


def test_pip_loss_and_double_shots_by_hand() -> None:
    # my shooter on 24, their blots on my 20 (4 away: 15 rolls) and my 18 (6 away: 17 rolls);
    # 5 rolls hit either (4-2, 2-4, 6-4, 4-6, 2-2): 27 rolls, the 20-blot (20 pips travelled)
    # first on its 15, the 18-blot on the other 12
    b = board_of({24: 1, 6: 14}, {20: 1, 18: 1, 1: 13})
    f = _features(b)
    assert round(f[E.SHOTS] * 36) == 27
    assert round(f[E.PIP_LOSS] * 36 * 12) == 20 * 15 + 18 * 12
    assert round(f[E.DOUBLE_SHOTS] * 36) == 5
    # their shots at my blot on 24 (my checker has travelled 1 pip): from 20 (4 away) and
    # from 18 (6 away): 15 + 17 - 5 rolls, one pip each; one blot, so no double shots
    opp = E.N_FEATURES
    assert round(f[opp + E.SHOTS] * 36) == 27
    assert round(f[opp + E.PIP_LOSS] * 36 * 12) == 27
    assert f[opp + E.DOUBLE_SHOTS] == 0.0


def test_break_contact_by_hand() -> None:
    f = _features(START)
    for side in (0, 1):   # every checker must pass the rearmost opposing checker on point 1
        assert round(f[side * E.N_FEATURES + E.BREAK_CONTACT] * 100) == 167 - 15
    b = board_of({24: 1, 6: 14}, {20: 1, 18: 1, 1: 13})
    assert round(f[E.BREAK_CONTACT] * 100) == 152
    g = _features(b)
    assert round(g[E.BREAK_CONTACT] * 100) == (24 - 1) + 14 * (6 - 1)   # all past their 1
    assert round(g[E.N_FEATURES + E.BREAK_CONTACT] * 100) == (24 - 20) + (24 - 18) + 13 * 23
    race = board_of({6: 5, 5: 5}, {20: 5, 19: 5})
    r = _features(race)
    assert r[E.BREAK_CONTACT] == 0.0 and r[E.N_FEATURES + E.BREAK_CONTACT] == 0.0
    bar = board_of({25: 1, 6: 14}, {0: 1, 19: 14})
    h = _features(bar)
    assert round(h[E.BREAK_CONTACT] * 100) == 25 + 14 * 6   # their checker on the bar: all mine
    assert round(h[E.N_FEATURES + E.BREAK_CONTACT] * 100) == 25 + 14 * 6


def test_pip_loss_against_move_generator() -> None:
    """Per roll, the farthest-travelled blot that some legal play hits never exceeds the
    feature's choice, and equals it on almost all positions."""
    movegen = pytest.importorskip("gbot.core.movegen")
    boards, _ = _heldout()
    boards = [b for b in boards if b[25] == 0 and C.classify(b) >= C.CRASHED][:300]
    equal = 0
    for b in boards:
        blots = np.flatnonzero(b[1:25] == -1) + 1
        loss = 0
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                res = movegen.legal_boards(b, d1, d2)
                best = 0
                for r in res:
                    hit = [int(t) for t in blots if r[t] >= 0]
                    if hit:
                        best = max(best, max(hit))
                loss += best
        mine = round(_features(b)[E.PIP_LOSS] * 36 * 12)
        assert loss <= mine, position_id.encode(b)
        equal += loss == mine
    assert equal >= 0.95 * len(boards)


def test_start_features_added_in_v8() -> None:
    """Mobility, spread, timing, outfield, wastage and lead of the opening position, by hand."""
    f = _features(START)
    for side in (0, 1):
        at = side * E.N_FEATURES
        # from 24: 23..20 and 18 (19 held); 13: 11..7 (12 held); 8: 7..2; 6: 5..2 (1 held)
        assert round(f[at + E.MOBILITY] * 36) == 5 + 5 + 6 + 4
        # 15 checkers, sum 167, square sum 2369: floor(4 * (15 * 2369 - 167 ** 2) / 225)
        assert round(f[at + E.MOMENT2] * 400) == (4 * (15 * 2369 - 167 ** 2)) // 225 == 135
        assert round(f[at + E.TIMING] * 100) == 77 + 3 * 5     # outside pips + 6-point spares
        assert round(f[at + E.OUTFIELD] * 6) == 2              # 8 and 13
        assert round(f[at + E.WASTAGE] * 20) == 2              # 4- and 5-points empty
        assert round(f[at + E.LEAD] * 100) == 100              # even race


def test_new_features_by_hand() -> None:
    # me: 3 on 1, 4 on 2, 4 on 3, 1 on 5, 2 on bar; them: 4 on my 4, 2 on my 20, 9 off
    b = board_of({1: 3, 2: 4, 3: 4, 5: 1, 25: 2}, {4: 4, 20: 2})
    f = _features(b)
    # bar: 24..19 minus 20 -> 5; 5: 3,2,1 (4 held) -> 3; 3: 2,1 -> 2; 2: 1 -> 1
    assert round(f[E.MOBILITY] * 36) == 5 + 3 + 2 + 1
    n, s1, s2 = 14, 3 + 8 + 12 + 5 + 50, 3 + 16 + 36 + 25 + 2 * 625
    assert round(f[E.MOMENT2] * 400) == (4 * (n * s2 - s1 * s1)) // (n * n)
    assert round(f[E.TIMING] * 100) == 2 * 19 + 2 * 1 + 2 * 2   # bar, two spares on 2 and 3
    assert round(f[E.WASTAGE] * 20) == 2 * 2 + 3 + 1 + 1 + 1   # 4 held by them = empty
    their = 4 * 21 + 2 * 5
    assert round(f[E.LEAD] * 100) == 100 + (100 * (their - s1)) // s1
    assert round(f[E.N_FEATURES + E.LEAD] * 100) == min(400, 100 + (100 * (s1 - their)) // their)
    # their side: from their 21 (my 4) and 5 (my 20); my points 1..3 are their 24..22
    assert round(f[E.N_FEATURES + E.MOBILITY] * 36) == 6 + 4
    assert round(f[E.N_FEATURES + E.OUTFIELD] * 6) == 0
    assert round(f[E.N_FEATURES + E.WASTAGE] * 20) == 2        # their 4- and 6-points empty
    held = board_of({7: 2, 9: 2, 18: 3, 19: 2, 6: 6}, {1: 15})
    assert round(_features(held)[E.OUTFIELD] * 6) == 3         # 7, 9, 18 (19 is not)


def test_borne_off_units_by_hand() -> None:
    # the same board: I have 14 on the board (1 off), they have 6 (9 off)
    b = board_of({1: 3, 2: 4, 3: 4, 5: 1, 25: 2}, {4: 4, 20: 2})
    f = _features(b)
    units = [f[side * E.N_FEATURES + E.OFF_1:side * E.N_FEATURES + E.OFF_1 + E.N_OFF_UNITS]
             for side in (0, 1)]
    assert units[0].tolist() == [1.0] + [0.0] * 13
    assert units[1].tolist() == [1.0] * 9 + [0.0] * 5
    assert not _features(START)[E.OFF_1:E.OFF_1 + E.N_OFF_UNITS].any()
    last = board_of({1: 1}, {1: 1})                  # one checker each: 14 off a side
    assert _features(last)[E.OFF_1:E.OFF_1 + E.N_OFF_UNITS].tolist() == [1.0] * 14


@pytest.mark.parametrize("old", E.LEGACY_FEATURE_COUNTS)
def test_legacy_weights_upgrade_to_the_same_network(old: int) -> None:
    """Weights of an older encoding (v6: 14 features, v7: 17, v8-v12: 23) compute the same
    function after upgrade_w1."""
    rng = np.random.default_rng(5)
    legacy = E.FEATURES_AT + 2 * old
    w1 = rng.normal(size=(legacy, 8)).astype(np.float32)
    up = E.upgrade_w1(w1)
    assert up.shape == (E.N_INPUTS, 8)
    boards, _ = _heldout()
    x = E.encode(boards[:200]).astype(np.float64)
    keep = np.r_[0:E.FEATURES_AT,
                 E.FEATURES_AT:E.FEATURES_AT + old,
                 E.FEATURES_AT + E.N_FEATURES:E.FEATURES_AT + E.N_FEATURES + old]
    assert np.allclose(x[:, keep] @ w1, x @ up, atol=1e-9)
    assert E.upgrade_w1(up) is up


# -- classes --------------------------------------------------------------------------------

def test_class_constants() -> None:
    assert (C.OVER, C.BEAROFF, C.RACE, C.CRASHED, C.CONTACT) == (0, 1, 2, 3, 4)
    assert C.NAMES[C.CONTACT] == "contact"


@pytest.mark.parametrize(("board", "cls"), [
    (START, C.CONTACT),
    (board_of({6: 5, 5: 5, 4: 5}, {}), C.OVER),
    (board_of({}, {20: 3}), C.OVER),
    (board_of({6: 5, 5: 5, 1: 2}, {19: 4, 24: 3}), C.BEAROFF),
    (board_of({7: 1, 5: 5}, {20: 4}), C.RACE),
    (board_of({6: 5}, {7: 1, 24: 2}), C.RACE),             # the armies have passed
    (board_of({6: 5}, {5: 1, 24: 2}), C.CRASHED),          # one opposing checker still behind
    (board_of({10: 2, 6: 5, 5: 4}, {8: 1, 20: 4, 21: 4}), C.CONTACT),
    (board_of({25: 1, 6: 5, 5: 5}, {20: 4, 19: 4}), C.CONTACT),   # on the bar: contact
    (board_of({1: 8, 2: 5, 20: 2}, {18: 5, 19: 5, 12: 5}), C.CRASHED),
    (board_of({24: 2, 6: 5, 8: 5, 13: 3}, {1: 2, 2: 2}), C.CRASHED),   # opponent has 4 left
])
def test_classify_hand_positions(board: np.ndarray, cls: int) -> None:
    assert C.classify(board) == cls
    assert C.classify_many(board[None, :])[0] == cls


def test_classify_agrees_with_gnubg_classes() -> None:
    """Race and bear-off match gnubg exactly; our crashed class is a subset of gnubg's."""
    boards, classes = _heldout()
    ours = C.classify_many(boards)
    for mine, theirs in zip(ours, classes, strict=True):
        if theirs == "race":
            assert mine == C.RACE
        elif theirs == "bearoff":
            assert mine == C.BEAROFF
        elif theirs == "contact":
            assert mine == C.CONTACT
        else:
            assert mine in (C.CRASHED, C.CONTACT)


def test_classify_symmetric() -> None:
    boards, _ = _heldout()
    assert np.array_equal(C.classify_many(boards),
                          C.classify_many(np.stack([flip_py(b) for b in boards])))
