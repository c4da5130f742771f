"""0-ply ``Evaluator.hint`` / ``best_play`` from the one-call kernel against the general
search (the same networks behind a wrapper the kernels do not stand in for): the same plays in
the same order with the same figures, bit for bit, on contact, race and bear-off positions."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from gbot.errors import EvaluatorError, WeightsError
from gbot.eval.evaluator import Evaluator, Hint
from gbot.game.position import Position
from tests.randomplay import random_positions, random_race_positions


class _Plain:
    """The networks seen through their ``evaluate`` only (the evaluator's general path)."""

    def __init__(self, nets: Any) -> None:
        self.nets = nets

    def evaluate(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        out: npt.NDArray[np.float32] = self.nets.evaluate(boards)
        return out


@pytest.fixture(scope="module")
def nets() -> Any:
    from gbot.eval.net import Networks
    try:
        return Networks.default()
    except (OSError, WeightsError) as exc:  # weights not trained yet
        pytest.skip(f"shipped weights unavailable: {exc}")


def _cases() -> list[tuple[np.ndarray, int, int]]:
    return list(random_positions(150, seed=77)) + list(random_race_positions(80, seed=78))


def _same(got: list[Hint], want: list[Hint]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.play == w.play and g.play.steps == w.play.steps
        assert g.play.notation == w.play.notation and g.play.dice == w.play.dice
        assert (g.equity, g.probabilities, g.ply) == (w.equity, w.probabilities, w.ply)
        assert all(type(x) is float for x in (g.equity, *g.probabilities))


@pytest.mark.parametrize("caucasian", [False, True])
def test_static_hints_equal_the_general_search(nets: Any, caucasian: bool) -> None:
    fast = Evaluator(networks=nets, caucasian=caucasian)
    general = Evaluator(networks=_Plain(nets), caucasian=caucasian)
    assert fast.kernel_arrays() is not None and general.kernel_arrays() is None
    seen = {0: 0, 1: 0, 2: 0}
    for board, d1, d2 in _cases()[::1 if not caucasian else 3]:
        pos = Position(board)
        for n in (None, 3, 1, 0):
            want = general.hint(pos, (d1, d2), 0, n=n)
            got = fast.hint(pos, (d1, d2), 0, n=n)
            _same(got, want)
        full = general.hint(pos, (d1, d2), 0, n=None)
        seen[min(len(full), 2)] += 1
        best = fast.best_play(pos, (d1, d2), 0)
        assert (best is None) == (not full)
        if best is not None:
            assert best == full[0].play and best.steps == full[0].play.steps
    assert seen[2] > 50 and seen[1] > 0       # forced plays take the general path


@pytest.mark.parametrize("dice", [(True, 1), [3, 1], (np.int64(3), np.int8(1)), (3.0, 1)])
def test_best_play_dice_of_other_types(nets: Any, dice: Any) -> None:
    ev = Evaluator(networks=nets)
    pos = Position.initial()
    want = (int(dice[0]), int(dice[1]))
    got = ev.best_play(pos, dice, 0)
    assert got is not None and got.dice == want and all(type(d) is int for d in got.dice)
    assert got == ev.best_play(pos, want, np.int64(0))


@pytest.mark.parametrize("ply", [-1, True, 0.0, "0"])
def test_best_play_bad_ply_raises(nets: Any, ply: Any) -> None:
    with pytest.raises(EvaluatorError, match="ply must be an integer"):
        Evaluator(networks=nets).best_play(Position.initial(), (3, 1), ply)


@pytest.mark.parametrize("dice", [(0, 3), ([1], 2), (1, 2, 3), None])
def test_bad_dice_raise_value_error(nets: Any, dice: Any) -> None:
    ev = Evaluator(networks=nets)
    with pytest.raises(ValueError, match="dice must be two numbers"):
        ev.best_play(Position.initial(), dice)
    with pytest.raises(ValueError, match="dice must be two numbers"):
        ev.hint(Position.initial(), dice)


def test_fast_built_hint_is_a_hint_built_whole() -> None:
    from dataclasses import FrozenInstanceError, replace

    from gbot.eval.evaluator import zero_ply_hint
    play = Position.initial().legal_plays((3, 1))[2]
    probs = [0.5, 0.125, 0.0078125, 0.25, 0.015625]
    got = zero_ply_hint(play, 0.25, probs)
    want = Hint(play, 0.25, tuple(probs), 0)  # type: ignore[arg-type]
    assert type(got) is Hint and got == want and hash(got) == hash(want)
    assert repr(got) == repr(want) and str(got) == str(want) and vars(got) == vars(want)
    assert type(got.probabilities) is tuple and replace(got, ply=1) == replace(want, ply=1)
    with pytest.raises(FrozenInstanceError):
        got.ply = 2  # type: ignore[misc]
