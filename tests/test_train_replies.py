"""The replies stage: the training set of a pruning network."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gbot.core.board import flip_py
from gbot.core.classify import BEAROFF, OVER, classify
from gbot.core.expand import ROLLS
from gbot.core.movegen import legal_boards
from gbot.eval.evaluator import Evaluator
from gbot.eval.net import Networks
from gbot.game.position import Position
from gbot.train import replies as RP
from gbot.train.label import load_with_groups

POSITIONS = ("4HPwATDgc/ABMA", "jNccAxBs2wIHQA", "zM3BAHC/XQAAAA", "2LahgGDbZhAEMg")


def _boards() -> np.ndarray:
    return np.array([Position.from_id(p).board for p in POSITIONS], dtype=np.int8)


def test_reply_rows_are_each_rolls_distinct_plays_the_networks_value() -> None:
    boards = _boards()
    got, groups = RP.reply_rows(boards, Evaluator(networks=Networks.default()))
    for i, board in enumerate(boards):
        for r, (d1, d2) in enumerate(ROLLS):
            want = {flip_py(b).tobytes() for b in legal_boards(board, int(d1), int(d2))}
            want = {b for b in want
                    if classify(np.frombuffer(b, dtype=np.int8)) not in (OVER, BEAROFF)}
            mine = {b.tobytes() for b in got[groups == 21 * i + r]}
            assert mine == (want if len(want) >= 2 else set()), (POSITIONS[i], d1, d2)


def test_build_writes_a_grouped_labelled_set_and_keeps_it(tmp_path: Path) -> None:
    nets = Networks.default()
    out = tmp_path / "r"
    n = RP.build(out, _boards(), nets, rows=200, seed=1, log=lambda m: None)
    boards, probs, groups = load_with_groups(out)
    assert boards.shape[0] == n >= 200
    np.testing.assert_array_equal(probs, nets.evaluate(boards))
    assert groups is not None and groups.shape[0] == n
    assert np.all(np.bincount(groups) >= 2)               # every roll has plays to rank
    assert RP.build(out, _boards()[:1], nets, rows=5, seed=2, log=lambda m: None) == n
