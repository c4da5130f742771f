"""scripts/compare_filters.py: its judges' verdicts on changed choices, checked where the answer
is known (a judge that is the chooser itself never prefers the other play)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from gbot.eval.evaluator import Evaluator
from gbot.game.notations.position_id import decode
from gbot.game.position import Position
from tests.conftest import load_script


def test_a_judge_is_a_known_engine_with_its_depth() -> None:
    F = load_script("compare_filters")
    assert F.parse_judge("gnubg-nn:2") == ("gnubg-nn", 2)
    assert F.parse_judge("rollout:0") == ("rollout", 0)
    for bad in ("gnubg:2", "bgsage", "gbot:x", ":1"):
        with pytest.raises(argparse.ArgumentTypeError, match="NAME:PLIES"):
            F.parse_judge(bad)


def test_the_judges_value_the_changed_pick_against_the_reference() -> None:
    F = load_script("compare_filters")
    ev = Evaluator()
    pos = Position(board=decode("4HPwATDgc/ABMA"))
    hints = ev.hint(pos, (5, 2), ply=0)
    best = hints[0].play.position.swapped().board
    others = np.stack([h.play.position.swapped().board for h in hints[1:4]])
    refs = np.repeat(best[None], others.shape[0], axis=0)
    args = argparse.Namespace(trials=8, seed=3, workers=1, cache=None)
    # gbot's 0-ply judge is the chooser: every other play is worse than its best
    d = F.judged_differences(refs, others, "gbot", 0, args)
    assert d.shape == (3,) and (d < 0).all()
    # swapped, the same figures with the sign turned; the rollout judge uses the same dice for
    # both results, so it turns its sign exactly too
    back = F.judged_differences(others, refs, "gbot", 0, args)
    assert back == pytest.approx(-d)
    r = F.judged_differences(refs, others, "rollout", 0, args)
    assert F.judged_differences(others, refs, "rollout", 0, args) == pytest.approx(-r, abs=1e-12)
    assert F.judged_differences(refs[:0], others[:0], "gbot", 0, args).shape == (0,)
