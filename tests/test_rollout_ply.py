"""Rollouts with 1-ply checker play and 1-ply cube decisions, against the evaluator's search."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import gbot
from gbot.analysis.rollout import (
    Rollout,
    RolloutError,
    RolloutSettings,
    kernel_args,
    rollout_boards,
)
from gbot.core import movegen
from gbot.core import rollout as kernel
from gbot.eval.evaluator import DEFAULT_FILTERS
from gbot.game.position import Position

SLOW = bool(os.environ.get("GBOT_SLOW"))
slow = pytest.mark.skipif(not SLOW, reason="set GBOT_SLOW=1")

OPENING = "4HPwATDgc/ABMA"
HITS = "4HPhASLgc/ABMA"           # blots to hit after 24/21 (shots at 1- and 4-points)
BEAROFF = "NwAAwB0AAAAAAA"
RACE = "zJ0zAADujhkAAA"            # no contact, 10-11 checkers a side outside home
ROLLS36 = [(t // 6 + 1, t % 6 + 1) for t in range(36)]
"""The opening roll of quasi-random trial ``t`` (``t mod 36``, numbered ``6 (d1-1) + (d2-1)``)."""


def _kernel_first_plays(board: np.ndarray, checker_ply: int) -> np.ndarray:
    """The board after the first play of each of 36 quasi-random trials (truncated at once),
    seen by the mover."""
    b = np.asarray(board, dtype=np.int8).reshape(1, 26)
    out = np.empty((1, 36, 5))
    plies = np.empty((1, 36), dtype=np.int32)
    ends = np.empty((1, 36), dtype=np.int8)
    paths = np.zeros((36, 2, 26), dtype=np.int8)
    f, f2 = DEFAULT_FILTERS
    code = kernel.rollout_many(b, 36, 0, 1, np.zeros(1, dtype=np.int64), 1, True, False, False,
                               False, checker_ply or None, f.keep, f.window, f2.keep, f2.window,
                               *kernel_args(), movegen.HASH_KEYS, out, plies, ends,
                               paths)  # type: ignore[call-arg]
    assert code == kernel.OK
    return -paths[:, 1, ::-1]


def _after(ev: gbot.Evaluator, pos: Position, dice: tuple[int, int], ply: int) -> np.ndarray:
    play = ev.best_play(pos, dice, ply=ply)
    return np.asarray((play.position if play is not None else pos).board, dtype=np.int8)


def _differing(ev: gbot.Evaluator) -> tuple[Position, list[int]]:
    """A position and the quasi-random trials whose opening roll the evaluator plays
    differently at 0- and 1-ply."""
    for pid in (OPENING, HITS):
        pos = Position.from_id(pid)
        rolls = [t for t, d in enumerate(ROLLS36)
                 if not np.array_equal(_after(ev, pos, d, 0), _after(ev, pos, d, 1))]
        if rolls:
            return pos, rolls
    pytest.skip("these networks play every roll of the test positions alike at 0- and 1-ply")


@pytest.mark.parametrize("pid", [OPENING, HITS, RACE, BEAROFF])
def test_kernel_plays_what_the_evaluator_plays_at_one_ply(pid: str) -> None:
    ev = gbot.Evaluator(prune=False)     # the rollout kernels search every reply
    pos = Position.from_id(pid)
    got = _kernel_first_plays(pos.board, 1)
    for t, d in enumerate(ROLLS36):
        assert np.array_equal(got[t], _after(ev, pos, d, 1)), (pid, d)
    zero = _kernel_first_plays(pos.board, 0)
    for t, d in enumerate(ROLLS36):
        assert np.array_equal(zero[t], _after(ev, pos, d, 0)), (pid, d)


# rolls of quasi-random trials (numbered as ROLLS36) that the evaluator plays differently at
# 1- and 2-ply with the v7 networks, measured; the test below checks they still differ
TWO_PLY_DIFFERS = {OPENING: [1, 6, 15, 20, 23, 33], HITS: [4, 8, 13, 23, 24, 33]}


@pytest.mark.parametrize("pid", [OPENING, HITS])
def test_kernel_plays_what_the_evaluator_plays_at_two_ply(pid: str) -> None:
    ev = gbot.Evaluator(prune=False)
    pos = Position.from_id(pid)
    got = _kernel_first_plays(pos.board, 2)
    rolls = sorted(set(TWO_PLY_DIFFERS[pid]) | {0, 7, 14, 35})
    differ = 0
    for t in rolls:
        want = _after(ev, pos, ROLLS36[t], 2)
        assert np.array_equal(got[t], want), (pid, ROLLS36[t])
        differ += not np.array_equal(want, _after(ev, pos, ROLLS36[t], 1))
    assert differ > 0, "no roll here is played otherwise at 1-ply: the test checks nothing"


def test_two_ply_figures_do_not_depend_on_chunks_or_workers() -> None:
    board = Position.from_id(HITS).board
    base = RolloutSettings(trials=4, checker_ply=2, seed=6, truncate=3, batch=2)
    a = Rollout(base).boards(board)
    assert a == Rollout(replace(base, chunk=1, batch=3)).boards(board)
    # 5 trials fill no block of 36, so their dice are independent: with seed 2 trials 1
    # and 3 open with 6-4 and 1-5, which HITS plays otherwise at 1- and 2-ply
    one = rollout_boards(board, 5, seed=2, checker_ply=2, truncate=1)
    assert one[0].tolist() != rollout_boards(board, 5, seed=2, checker_ply=1,
                                             truncate=1)[0].tolist()
    if SLOW:
        two = rollout_boards(np.stack([board, board]), 5, seed=2, checker_ply=2, truncate=1,
                             workers=2)
        assert np.array_equal(two[0][0], one[0][0])


def test_one_ply_rollout_differs_where_the_plays_differ() -> None:
    ev = gbot.Evaluator()
    pos, rolls = _differing(ev)
    figures = {}
    for ply in (0, 1):
        # one ply, then the 0-ply value: the mean over the 36 rolls of the chosen plays' values
        probs, _ = rollout_boards(pos.board, 36, truncate=1, variance_reduction=False,
                                  bearoff_stop=False, checker_ply=ply)
        after = np.array([Position(_after(ev, pos, d, ply)).swapped().board for d in ROLLS36])
        mine = ev.evaluate(after, 0)[:, [0, 3, 4, 1, 2]]
        mine[:, 0] = 1.0 - mine[:, 0]
        assert probs[0] == pytest.approx(mine.mean(axis=0), abs=1e-9)
        figures[ply] = probs[0]
    assert not np.allclose(figures[0], figures[1], atol=1e-6, rtol=0), (rolls, figures)
    # played to the end: the trials that open with those rolls come out otherwise
    full = [Rollout(RolloutSettings(trials=36, checker_ply=ply, variance_reduction=False)
                    ).boards(pos.board)[0] for ply in (0, 1)]
    assert full[0].probabilities != full[1].probabilities


def test_one_ply_figures_do_not_depend_on_chunks_and_resume(tmp_path: Path) -> None:
    board = Position.from_id(HITS).board
    base = RolloutSettings(trials=8, checker_ply=1, seed=6, truncate=12, batch=4)
    a = Rollout(base).boards(board)
    b = Rollout(replace(base, chunk=3, batch=5)).boards(board)
    assert a == b

    def stop(done: int, planned: int) -> None:
        if done < planned:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Rollout(base, checkpoint=tmp_path, progress=stop).boards(board)
    assert Rollout(base, checkpoint=tmp_path).boards(board) == a


@pytest.mark.slow
@slow
def test_one_ply_workers_give_the_same_figures() -> None:
    boards = np.stack([Position.from_id(p).board for p in (HITS, RACE, OPENING)] * 2)
    one = rollout_boards(boards, 4, seed=2, workers=1, checker_ply=1, truncate=10)
    two = rollout_boards(boards, 4, seed=2, workers=2, checker_ply=1, truncate=10)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    s = RolloutSettings(trials=6, checker_ply=1, seed=3, truncate=10, chunk=2)
    a = Rollout(s).boards(boards[:1])
    b = Rollout(RolloutSettings(trials=6, checker_ply=1, seed=3, truncate=10, chunk=2,
                                workers=2)).boards(boards[:1])
    assert a == b


def test_race_one_ply_rollout_agrees_with_two_ply() -> None:
    ev = gbot.Evaluator()
    board = Position.from_id(RACE).board
    two_ply = ev.evaluate(board.reshape(1, 26), 2)[0]
    probs, se = rollout_boards(board, 36, variance_reduction=True, seed=5, checker_ply=1)
    # measured: 1-ply rollout 0.558 +- 0.001, 2-ply 0.537 (the 0-ply rollout 0.554)
    assert abs(probs[0, 0] - two_ply[0]) < 0.03 + 3 * se[0, 0], (probs[0], se[0], two_ply)


def test_plies_other_than_zero_to_two_are_refused() -> None:
    for bad in ({"checker_ply": 3}, {"cube_ply": -1}, {"checker_ply": True}):
        with pytest.raises(RolloutError):
            RolloutSettings(**bad)


def test_rollout_command_passes_the_plies_through() -> None:
    import json

    from click.testing import CliRunner

    from gbot.cli import main as cli
    from gbot.cli.tools import read_position

    args = ["rollout", HITS, "51", "--trials", "4", "--truncate", "2", "-n", "2",
            "--checker-ply", "2", "--cube-ply", "2", "--json"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    got = json.loads(res.output[res.output.index("{"):])
    s = RolloutSettings(trials=4, truncate=2, checker_ply=2, cube_ply=2)
    pos, state = read_position(HITS, None)
    want = Rollout(s).plays(pos, (5, 1), state, candidates=2)
    assert [p["play"] for p in got["plays"]] == [r.play.notation for r in want]
    assert [p["cubeful"] for p in got["plays"]] == [r.result.cubeful for r in want]
    bad = CliRunner().invoke(cli, [*args[:-6], "--checker-ply", "3"])
    assert bad.exit_code != 0


def test_train_rollout_stage_labels_at_the_ply_asked(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gbot.train import rollout_label as R
    from gbot.train.cli import cli

    pos, _ = _differing(gbot.Evaluator())
    boards = np.stack([pos.board, Position.from_id(RACE).board])
    np.savez(tmp_path / "set.npz", boards=boards, probs=np.zeros((2, 5), dtype=np.float32))
    labels = {}
    for ply in (0, 1):
        out = tmp_path / f"out{ply}"
        args = ["rollout", "--src", str(tmp_path / "set.npz"), "--out", str(out), "--trials",
                "36", "--truncate", "1", "--workers", "1", "--seed", "4", "--checker-ply",
                str(ply)]
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 0, res.output
        b, labels[ply] = R.load(out)
        want, _ = rollout_boards(b, 36, truncate=1, seed=4, checker_ply=ply)
        assert np.allclose(labels[ply], want, atol=1e-6)
    assert not np.allclose(labels[0], labels[1], atol=1e-4)
    # a resume at another ply would mix two kinds of label in one set: refused
    again = CliRunner().invoke(cli, [*args[:-1], "0"])
    assert again.exit_code != 0 and "checker_ply 1" in again.output
