"""Legal plays against gnubg's vectors, gnubg-nn, the naive oracle, and rule properties."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.core import movegen
from gbot.core.board import START, checkers, flip, flip_py
from gbot.core.movegen import legal_boards, legal_boards_batch, legal_plays_raw
from gbot.game.notations import position_id
from tests.conftest import read_jsonl, shared_path
from tests.handboards import board_of
from tests.oracle.naive_movegen import legal_results
from tests.randomplay import random_positions, random_race_positions
from tests.strategies import boards

SLOW = os.environ.get("GBOT_SLOW") == "1"


def _vectors() -> list[dict]:
    return list(read_jsonl(shared_path("vectors", "legal_moves_public.jsonl")))


def test_every_public_vector_matches_gnubg() -> None:
    cases = _vectors()
    assert len(cases) == 2000
    mismatches = []
    for case in cases:
        board = position_id.decode(case["position_id"])
        got = sorted(position_id.encode(r) for r in legal_boards(board, *case["dice"]))
        if got != case["legal"]:
            mismatches.append(case["position_id"])
    assert mismatches == []


def test_batch_agrees_with_single_calls() -> None:
    cases = _vectors()[:300]
    boards = np.array([position_id.decode(c["position_id"]) for c in cases])
    dice = np.array([c["dice"] for c in cases])
    results, offsets = legal_boards_batch(boards, dice)
    for k, case in enumerate(cases):
        got = sorted(position_id.encode(r) for r in results[offsets[k]:offsets[k + 1]])
        assert got == case["legal"]


def test_naive_oracle_agrees_on_vectors() -> None:
    for case in _vectors()[::10]:
        board = position_id.decode(case["position_id"])
        want = {position_id.encode(np.array(r, dtype=np.int8))
                for r in legal_results([int(x) for x in board], *case["dice"])}
        assert want == set(case["legal"])


@pytest.mark.parametrize("seed", [1, 2])
def test_naive_oracle_agrees_on_random_play(seed: int) -> None:
    for board, d1, d2 in random_positions(400, seed):
        fast = {r.tobytes() for r in legal_boards(board, d1, d2)}
        slow = {np.array(r, dtype=np.int8).tobytes()
                for r in legal_results([int(x) for x in board], d1, d2)}
        assert fast == slow, (position_id.encode(board), d1, d2)


def _gnubg_nn_results(gnubg_nn, board: np.ndarray, d1: int, d2: int) -> set[str]:
    me, opp = position_id.to_gnubg(board) if hasattr(position_id, "to_gnubg") else _arrays(board)
    keys = gnubg_nn.moves([opp, me], d1, d2)
    return {gnubg_nn.position_id([list(x) for x in gnubg_nn.boardfromkey(k)]) for k in keys}


def _arrays(board: np.ndarray) -> tuple[list[int], list[int]]:
    from gbot.core.board import to_gnubg
    return to_gnubg(board)


def test_gnubg_nn_cross_check_random_play() -> None:
    """Random positions from random play agree with gnubg-nn's generator (100,000 when slow)."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    n = 100_000 if SLOW else 4_000
    bad = []
    for board, d1, d2 in random_positions(n, seed=20261129):
        got = {position_id.encode(r) for r in legal_boards(board, d1, d2)}
        if got != _gnubg_nn_results(gnubg_nn, board, d1, d2):
            bad.append((position_id.encode(board), d1, d2))
    assert bad == []


def test_races_and_bear_offs_against_oracles() -> None:
    """Races with checkers still coming home: the naive oracle, and gnubg-nn when installed."""
    try:
        import gnubg_nn
    except ImportError:
        gnubg_nn = None
    n = 50_000 if SLOW else 5_000
    for board, d1, d2 in random_race_positions(n, seed=4):
        fast = {r.tobytes() for r in legal_boards(board, d1, d2)}
        slow = {np.array(r, dtype=np.int8).tobytes()
                for r in legal_results([int(x) for x in board], d1, d2)}
        assert fast == slow, (position_id.encode(board), d1, d2)
        if gnubg_nn is not None:
            got = {position_id.encode(r) for r in legal_boards(board, d1, d2)}
            want = _gnubg_nn_results(gnubg_nn, board, d1, d2)
            assert got == want, (position_id.encode(board), d1, d2)


# --- hand-checked rules ------------------------------------------------------------------


def _results(b: np.ndarray, d1: int, d2: int, caucasian: bool = False) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in r) for r in legal_boards(b, d1, d2, caucasian)}


def test_dance_when_both_entry_points_closed() -> None:
    b = board_of({25: 1, 6: 14}, {20: 2, 22: 2, 1: 11})
    assert len(legal_boards(b, 5, 3)) == 0


def test_bar_first_then_other_die() -> None:
    b = board_of({25: 1, 13: 14}, {20: 2, 1: 13})
    # the 5 cannot enter (my 20 is closed); the 3 enters on 22, then the 5 is played
    want = {_key(board_of({17: 1, 13: 14}, {20: 2, 1: 13})),
            _key(board_of({22: 1, 13: 13, 8: 1}, {20: 2, 1: 13}))}
    assert _results(b, 5, 3) == want


def test_larger_die_forced_when_only_one_playable() -> None:
    # 14/8/7 and 14/13/7 both end on the closed 7; the checkers on 1 may not bear off
    b = board_of({14: 1, 1: 14}, {7: 2, 20: 13})
    assert _results(b, 6, 1) == {_key(board_of({8: 1, 1: 14}, {7: 2, 20: 13}))}
    # the smaller die alone is legal only when the larger cannot be played
    b2 = board_of({14: 1, 1: 14}, {8: 2, 7: 2, 20: 11})
    assert _results(b2, 6, 1) == {_key(board_of({13: 1, 1: 14}, {8: 2, 7: 2, 20: 11}))}


def _key(b: np.ndarray) -> tuple[int, ...]:
    return tuple(int(x) for x in b)


def test_bear_off_with_larger_die_only_from_highest_point() -> None:
    b = board_of({4: 1, 2: 1}, {20: 15})
    res = _results(b, 6, 5)
    # 6 bears off the 4 (highest), then 5 bears off the 2: all off
    assert res == {tuple([0] * 20 + [-15] + [0] * 5)}


def test_must_play_both_dice_if_possible() -> None:
    b = board_of({8: 1, 6: 14}, {7: 2, 1: 13})
    # 8/7 blocked; 8/5 ok with 3; then 1 from 5 -> 4 ok, or 6/5
    for r in _results(b, 3, 1):
        moved = sum(abs(int(a) - int(c)) for a, c in zip(r, b, strict=True))
        assert moved >= 2


def test_hit_sends_blot_to_bar() -> None:
    b = board_of({13: 15}, {10: 1, 1: 14})
    res = _results(b, 3, 1)
    hit = [r for r in res if r[10] == 1]
    assert hit and all(r[0] == -1 for r in hit)


def test_hit_during_bear_off_must_reenter_first() -> None:
    b = board_of({25: 1, 3: 14}, {22: 1, 1: 14})
    for r in _results(b, 6, 3):
        assert r[25] == 0  # entered with one die (19 open via 6, 22 blot via 3)
        assert sum(max(int(x), 0) for x in r[1:26]) == 15  # nothing borne off


# --- Caucasian rule (hand-checked: no external oracle) ---------------------------------

def test_caucasian_hitter_may_not_join_own_point() -> None:
    # hit on my 4 with the 2 (6/4*), then the hitter may not continue 4/3 onto my checkers on 3
    b = board_of({6: 1, 3: 2, 13: 12}, {4: 1, 1: 14})
    std = _results(b, 2, 1)
    cau = _results(b, 2, 1, caucasian=True)
    hitter_joins = tuple(int(x) for x in board_of({3: 3, 13: 12}, {0: 1, 1: 14}))
    assert hitter_joins in std
    assert hitter_joins not in cau
    assert cau < std


def test_caucasian_hitter_may_move_to_empty_point_or_off() -> None:
    b = board_of({6: 1, 5: 14}, {4: 1, 0: 0, 20: 14})
    # all home: 6/4* then the hitter 4/3 onto an empty point is fine
    onto_empty = tuple(int(x) for x in board_of({3: 1, 5: 14}, {0: 1, 20: 14}))
    assert onto_empty in _results(b, 2, 1, caucasian=True)
    # 6/4* then 4/off with a 4 is fine (bearing off)
    off = tuple(int(x) for x in board_of({5: 14}, {0: 1, 20: 14}))
    assert off in _results(b, 2, 4, caucasian=True)


def test_caucasian_other_checker_may_cover_hitter() -> None:
    b = board_of({6: 1, 5: 1, 13: 13}, {4: 1, 1: 14})
    covered = tuple(int(x) for x in board_of({4: 2, 13: 13}, {0: 1, 1: 14}))
    assert covered in _results(b, 2, 1, caucasian=True)


def test_caucasian_hit_outside_home_board_is_unrestricted() -> None:
    b = board_of({12: 1, 9: 2, 13: 12}, {10: 1, 1: 14})
    joins = tuple(int(x) for x in board_of({9: 3, 13: 12}, {0: 1, 1: 14}))
    assert joins in _results(b, 2, 1, caucasian=True)


def test_caucasian_naive_oracle_agrees_on_random_play() -> None:
    for board, d1, d2 in random_positions(600, seed=77):
        fast = {r.tobytes() for r in legal_boards(board, d1, d2, caucasian=True)}
        slow = {np.array(r, dtype=np.int8).tobytes()
                for r in legal_results([int(x) for x in board], d1, d2, caucasian=True)}
        assert fast == slow, (position_id.encode(board), d1, d2)


def _general_search(board: np.ndarray, d1: int, d2: int) -> tuple[np.ndarray, np.ndarray]:
    """Results and step records of the general depth-first search (the Caucasian rule's
    path, here with the rule off) over the dice orders the fast kernels use."""
    cap = movegen.CAPACITY
    out, steps = np.zeros((cap, 26), np.int8), np.zeros((cap, 8), np.int8)
    table, hashes = np.zeros(movegen.TABLE_SIZE, np.int32), np.zeros(cap, np.int64)
    state, path, marks = np.zeros(4, np.int64), np.zeros(8, np.int8), np.zeros(26, np.int8)
    scratch = np.zeros((8, 5), np.int64)
    b = board.astype(np.int8)
    hi, lo = max(d1, d2), min(d1, d2)
    orders = [[hi] * 4] if d1 == d2 else [[hi, lo], [lo, hi]]
    for order in orders:
        movegen._search(b, np.array(order, np.int64), len(order), False, marks, path, out,
                        steps, table, hashes, state, movegen.HASH_KEYS, scratch)
    n = int(state[0])
    return out[:n], steps[:n]


def _assert_same_as_general_search(board: np.ndarray, d1: int, d2: int) -> None:
    got, got_steps = legal_plays_raw(board, d1, d2)
    want, want_steps = _general_search(board, d1, d2)
    where = (position_id.encode(board), d1, d2)
    assert np.array_equal(got, want), where          # same results in the same order
    assert np.array_equal(got_steps, want_steps), where


def test_fast_kernels_match_the_general_search() -> None:
    """The non-Caucasian kernels (bit sets of sources, nested loops, no reference counting)
    give the general search's results, order and step records."""
    for board, d1, d2 in itertools.chain(random_positions(1500, seed=91),
                                         random_race_positions(500, seed=92)):
        _assert_same_as_general_search(board, d1, d2)
    for case in _vectors()[::4]:
        _assert_same_as_general_search(position_id.decode(case["position_id"]), *case["dice"])
    assert not movegen.workspace().table.any()   # the hash table is left empty


def test_many_results_outgrow_the_small_table() -> None:
    """Past half of the small hash table's slots the results move to the whole table: same
    results as the general search (which uses the whole table throughout), and the table is
    left empty."""
    board = np.zeros(26, dtype=np.int8)
    board[[3, 4, 6, 8, 10, 11, 12, 13, 14, 16, 19, 20, 22, 23, 24]] = 1
    board[0] = -15
    for d1, d2 in ((1, 1), (2, 2), (2, 1)):
        _assert_same_as_general_search(board, d1, d2)
    assert len(legal_boards(board, 1, 1)) > (movegen.SMALL_MASK + 1) // 2
    assert not movegen.workspace().table.any()


@settings(max_examples=400, deadline=None)
@given(boards(), st.integers(1, 6), st.integers(1, 6))
def test_fast_kernels_match_the_general_search_on_any_board(board: np.ndarray, d1: int,
                                                            d2: int) -> None:
    _assert_same_as_general_search(board, d1, d2)


# --- properties -------------------------------------------------------------------------

positions = st.sampled_from([b for b, _, _ in itertools.islice(random_positions(3000, 5), 3000)])
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=300, deadline=None)
@given(positions, dice)
def test_properties(board: np.ndarray, roll: tuple[int, int]) -> None:
    results = legal_boards(board, *roll)
    start_mine, start_theirs = checkers(board)
    keys = {r.tobytes() for r in results}
    assert len(keys) == len(results)  # unique
    for r in results:
        mine, theirs = checkers(r)
        assert mine + (15 - start_mine) <= 15 and theirs == start_theirs
        assert ((r[1:25] > 0) | (r[1:25] <= 0)).all()
        assert np.array_equal(flip(flip(r)), r)
        assert np.array_equal(flip_py(r), flip(r))
        assert np.abs(r.astype(int)).sum() <= 30


def test_flip_is_an_involution_on_start() -> None:
    assert np.array_equal(flip(START), START)
    assert np.array_equal(flip(flip(START)), START)


def test_blocked_start_has_no_play() -> None:
    # mover on the bar against a closed board
    b = board_of({25: 2, 13: 13}, {i: 2 for i in range(19, 25)} | {1: 3})
    for d1, d2 in itertools.product(range(1, 7), repeat=2):
        assert len(legal_boards(b, d1, d2)) == 0
