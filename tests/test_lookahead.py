"""The cubeful lookahead (:mod:`gbot.cube.lookahead`): its batched leaf values against the
one-position cube model (:func:`gbot.cube.cubeful.cubeful_clipped` and the decision rule),
its one-call reply search (:mod:`gbot.core.cubetree`) against the search through
``Evaluator.evaluate``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gbot.cube.cubeful import CubeContext, Owner, check_probs, cubeful_clipped
from gbot.cube.lookahead import (
    Leaves,
    _best_value,
    _build,
    _checked_rows,
    _child_values,
    _probs,
    action_value,
    leaf_values,
    lookahead_cubeful,
)
from gbot.errors import CubeError, EvaluatorError
from gbot.eval.evaluator import Evaluator
from gbot.game.match import Rules


def _reference(probs: tuple[float, ...], life: float, ctx: CubeContext) -> float:
    """The best cube action's value, one position at a time (points or winning chance): the
    one-position model and the decision rule, as the search's inner nodes value it."""
    p = check_probs(probs)  # type: ignore[arg-type]
    return action_value(cubeful_clipped(p, replace(ctx, cube_life=life)), p, ctx)


def _random_probs(rng: np.random.Generator) -> tuple[float, ...]:
    win = rng.uniform(0.02, 0.98)
    wg = win * rng.uniform(0, 0.4)
    lg = (1 - win) * rng.uniform(0, 0.4)
    return (win, wg, wg * rng.uniform(0, 0.2), lg, lg * rng.uniform(0, 0.2))


CONTEXTS = [
    CubeContext(),
    CubeContext(cube=2, owner=Owner.ME, rules=Rules(jacoby=True, beavers=True)),
    CubeContext(cube=2, owner=Owner.OPPONENT, rules=Rules(beavers=True)),
    CubeContext(cube=2, owner=Owner.ME, rules=Rules(cube_cap=8)),               # capped money
    CubeContext(cube=8, owner=Owner.OPPONENT, rules=Rules(cube_cap=8)),  # capped, cannot double
    CubeContext(match_length=7, away=4, opp_away=2, cube=2, owner=Owner.ME),
    CubeContext(match_length=5, away=3, opp_away=5),
    CubeContext(match_length=5, away=1, opp_away=3, crawford=True),  # cannot double
    CubeContext(match_length=5, away=3, opp_away=1, cube=2, owner=Owner.ME),  # post-Crawford
]


@pytest.mark.parametrize("k", range(len(CONTEXTS)))
def test_leaf_values_are_the_one_position_model(k: int) -> None:
    ctx = CONTEXTS[k]
    rng = np.random.default_rng(k)
    probs = [_random_probs(rng) for _ in range(21)]
    lives = rng.uniform(0.3, 0.9, 21)
    got = leaf_values(Leaves.of(np.array(probs), lives), ctx)
    want = [_reference(p, float(x), ctx) for p, x in zip(probs, lives, strict=True)]
    assert np.allclose(got, want, rtol=0, atol=1e-12)


class _GeneralPath(Evaluator):
    """The shipped evaluator, but not the exact type the lookahead's kernel serves: the
    lookahead then searches through ``evaluate``."""


def test_kernel_replies_search_as_the_general_path() -> None:
    from tests.randomplay import random_positions

    ev = Evaluator(prune=False)
    general = _GeneralPath(prune=False)
    boards = [b for i, (b, _, _) in enumerate(random_positions(400, seed=8)) if i % 40 == 0]
    contexts = [CubeContext(cube_life=0.7),
                CubeContext(match_length=7, away=3, opp_away=5, cube=2, owner=Owner.ME,
                            cube_life=0.7)]
    checked = 0
    for k, board in enumerate(boards):
        ctx = contexts[k % 2]
        for ply in (1, 2) if k < 3 else (1,):
            got, p_got = lookahead_cubeful(board, ctx, ev, ply=ply)
            want, p_want = lookahead_cubeful(board, ctx, general, ply=ply)
            assert np.allclose(p_got, p_want, rtol=0, atol=1e-12)
            for a, b in ((got.nd, want.nd), (got.dt, want.dt)):
                assert a == pytest.approx(b, abs=1e-12)
            checked += 1
    assert checked >= 10


def test_pruned_level_keeping_every_reply_is_the_full_search() -> None:
    """At 2-ply the replies one ply down are picked in one pruned batch; when the pruner keeps
    every reply for the full networks, the search is the unpruned one exactly."""
    from tests.randomplay import random_positions

    full = Evaluator(prune=False)
    keep_all = Evaluator(prune_keep=10_000, cube_prune_keep=10_000, prune_window=float("inf"))
    keep_default = Evaluator(prune_keep=10_000)    # the look-ahead keeps cube_prune_keep
    assert keep_all.pruner is not None
    ctx = CubeContext(match_length=7, away=4, opp_away=2, cube=1, cube_life=0.7)
    differ = 0
    for board, _, _ in list(random_positions(120, seed=21))[::30]:
        got, p_got = lookahead_cubeful(board, ctx, keep_all, ply=2)
        want, p_want = lookahead_cubeful(board, ctx, full, ply=2)
        assert np.allclose(p_got, p_want, rtol=0, atol=1e-12)
        for a, b in ((got.nd, want.nd), (got.dt, want.dt)):
            assert a == pytest.approx(b, abs=1e-12)
        differ += lookahead_cubeful(board, ctx, keep_default, ply=2)[0].nd != want.nd
    assert differ >= 1


@pytest.mark.parametrize("keep", [1, 2, 4])
def test_the_look_ahead_level_keeps_cube_prune_keep_replies_a_roll(keep: int) -> None:
    """:meth:`Evaluator.best_replies` picks each roll's reply among the ``cube_prune_keep``
    best by the pruner: its picks averaged over the rolls are the 1-ply value of a search that
    keeps as many (``prune_keep``), whatever ``prune_keep`` the evaluator has."""
    from gbot.cube.lookahead import WEIGHTS
    from gbot.game.position import Position

    ev = Evaluator(prune_keep=7, cube_prune_keep=keep)
    ref = Evaluator(prune_keep=keep)
    for pid in ("4HPwATDgc/ABMA", "3toBKAL7/AAAEA", "4POFCwDDzuABIQ", "f2cDAEBsmwFoDA"):
        pos = Position.from_id(pid)
        _, probs = ev.best_replies(np.asarray(pos.board, dtype=np.int8)[None])
        mover = probs[:, [0, 3, 4, 1, 2]]
        mover[:, 0] = 1.0 - probs[:, 0]
        np.testing.assert_allclose(WEIGHTS @ mover, ref.probabilities(pos, ply=1), atol=1e-12)
    with pytest.raises(EvaluatorError):
        Evaluator(cube_prune_keep=0)


def test_pruned_level_follows_the_pruner() -> None:
    """With the shipped pruner (2 replies a roll for the full networks) the 2-ply look-ahead
    differs from the full search only where a pruned pick differs; under another move rule
    than the evaluator's it searches every reply."""
    from tests.randomplay import random_positions

    pruned, full = Evaluator(), Evaluator(prune=False)
    assert pruned.pruner is not None
    ctx = CubeContext(cube_life=0.7)
    differ = 0
    for board, _, _ in list(random_positions(200, seed=22))[::25]:
        got, _ = lookahead_cubeful(board, ctx, pruned, ply=2)
        want, _ = lookahead_cubeful(board, ctx, full, ply=2)
        assert got.nd == pytest.approx(want.nd, abs=0.05)
        differ += got.nd != want.nd
        cauc, _ = lookahead_cubeful(board, ctx, pruned, ply=2, caucasian=True)
        cauc_full, _ = lookahead_cubeful(board, ctx, full, ply=2, caucasian=True)
        assert cauc.nd == cauc_full.nd
    assert differ >= 1      # the pruner is in use


def test_checked_rows_are_the_one_row_check() -> None:
    """The leaves' probabilities checked in one go are :func:`check_probs`'s, row by row (the
    clipping too), and a row it refuses is refused."""
    rng = np.random.default_rng(5)
    rows = np.array([_random_probs(rng) for _ in range(40)])
    rows[::7] += 3e-7                   # within the tolerance: clipped, not refused
    assert [tuple(r) for r in _checked_rows(rows).tolist()] == [_probs(r) for r in rows]
    bad = rows.copy()
    bad[5] = (0.5, 0.7, 0.0, 0.1, 0.0)  # more gammons than wins
    with pytest.raises(CubeError):
        _checked_rows(bad)


def test_replies_valued_together_are_valued_one_by_one() -> None:
    """At 2-ply the leaves below all 21 replies go through the cube model together
    (:func:`_child_values`); each reply's value is the one its own search gives
    (:func:`_best_value`: its cube actions from its leaves, then the decision rule), in every
    kind of cube context, a reply that ends the game included."""
    from tests.randomplay import random_positions

    ev = Evaluator()
    boards = [b for b, _, _ in list(random_positions(300, seed=31))[::60]]
    near_end = np.zeros(26, dtype=np.int8)      # one checker each: some rolls end the game
    near_end[6], near_end[19] = 1, -1
    boards.append(near_end)
    for k, board in enumerate(boards):
        root = _build(board, np.zeros(5), 2, ev, False)
        assert len(root.children) == 21 and all(c.leaves is not None or c.is_leaf
                                                for c in root.children)
        for ctx in CONTEXTS[k % 3::3]:
            got = _child_values(root.children, ctx)
            want = [_best_value(c, ctx) for c in root.children]
            assert np.allclose(got, want, rtol=0, atol=1e-12)
    ends = [c.is_leaf for c in root.children]
    assert any(ends) and not all(ends)      # the game ended on some rolls, not on others
