"""Rollouts against exact tables, 2-ply search, exact last-roll cube values, and themselves."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import gbot
from gbot.analysis.rollout import Rollout, RolloutError, RolloutSettings, rollout_boards
from gbot.eval.bearoff import two_sided_win
from tests.handboards import board_of_own


def _board(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """Board from my points (1..24) and the opponent's own points (1..24)."""
    return np.array(board_of_own(mine, theirs), dtype=np.int8)


BEAR = _board({6: 2, 5: 1, 3: 2}, {6: 1, 4: 2, 2: 2})      # 5 checkers a side, both in table
RACE = _board({6: 3, 5: 3, 4: 3, 9: 2, 11: 2}, {6: 3, 5: 3, 8: 3, 10: 2, 3: 2})
SLOW = bool(os.environ.get("GBOT_SLOW"))
slow = pytest.mark.skipif(not SLOW, reason="set GBOT_SLOW=1")


def test_two_sided_bearoff_matches_exact_table() -> None:
    exact = two_sided_win(BEAR)
    for vr in (False, True):
        probs, se = rollout_boards(BEAR, 1296 if not vr else 216, variance_reduction=vr,
                                   bearoff_stop=False, seed=3)
        # float32 tables: with luck cancelled by the exact table the estimate is the table
        assert abs(probs[0, 0] - exact) <= 3 * se[0, 0] + 1e-6, (vr, probs[0], se[0], exact)
        assert probs[0, 1:].tolist() == [0.0] * 4    # no gammons with 5 checkers a side


def test_bearoff_stop_after_36_quasi_random_openings_is_exact() -> None:
    # one ply over the 36 rolls, then the exact table: the table's own one-roll recursion
    probs, _ = rollout_boards(BEAR, 36, variance_reduction=False, bearoff_stop=True)
    assert probs[0, 0] == pytest.approx(two_sided_win(BEAR), abs=2e-6)


def test_race_rollout_agrees_with_2ply() -> None:
    ev = gbot.Evaluator()
    two_ply = ev.evaluate(RACE.reshape(1, 26), 2)[0]
    probs, se = rollout_boards(RACE, 288, variance_reduction=True, seed=5)
    # the networks' 2-ply and a 0-ply rollout of a race differ by well under 0.03
    assert abs(probs[0, 0] - two_ply[0]) < 0.03 + 3 * se[0, 0], (probs[0], se[0], two_ply)


def test_variance_reduction_cuts_the_standard_error() -> None:
    _, plain = rollout_boards(RACE, 288, variance_reduction=False, seed=9)
    _, vr = rollout_boards(RACE, 288, variance_reduction=True, seed=9)
    assert vr[0, 0] < plain[0, 0] / 2.5, (plain[0], vr[0])


def test_trials_do_not_depend_on_chunks_or_batches() -> None:
    boards = np.stack([RACE, BEAR, RACE])
    a = Rollout(RolloutSettings(trials=72, chunk=36, batch=72, seed=4)).boards(boards)
    b = Rollout(RolloutSettings(trials=72, chunk=7, batch=20, seed=4)).boards(boards)
    assert a == b
    assert a[0] != a[2]            # the dice hash numbers the boards: same board, other dice
    c = rollout_boards(boards, 72, seed=4)[0]
    assert [r.probabilities for r in a] == [tuple(row) for row in c.tolist()]


@pytest.mark.slow
@slow
def test_workers_give_the_same_figures() -> None:
    boards = np.stack([RACE, BEAR] * 40)
    one = rollout_boards(boards, 12, seed=2, workers=1)
    two = rollout_boards(boards, 12, seed=2, workers=2)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])


def test_interrupted_rollout_resumes_to_the_same_figures(tmp_path: object) -> None:
    settings = RolloutSettings(trials=144, batch=36, seed=8, variance_reduction=False)
    pos = gbot.Position(RACE)
    full = Rollout(settings).position(pos)

    calls = []

    def stop(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Rollout(settings, checkpoint=tmp_path, progress=stop).position(pos)  # type: ignore[arg-type]
    seen = []
    again = Rollout(settings, checkpoint=tmp_path,  # type: ignore[arg-type]
                    progress=lambda d, t: seen.append(d)).position(pos)
    assert seen[0] == 108                      # 72 trials came from the checkpoint
    assert again == full


def test_min_se_stops_early() -> None:
    r = Rollout(RolloutSettings(trials=1296, batch=36, min_se=0.05,
                                variance_reduction=True)).boards(RACE)[0]
    assert r.trials < 1296 and r.equity_se < 0.05


def _last_roll(mine: dict[int, int]) -> tuple[gbot.Position, float]:
    """Me to roll with ``mine`` left; the opponent, with one checker on its 1-point, wins
    whenever I miss. Returns the position and my exact chance (rolls that bear all off)."""
    b = _board(mine, {1: 1})
    pos = gbot.Position(b)
    hits = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            plays = pos.legal_plays((d1, d2))
            if any(int(np.clip(p.position.board[1:26], 0, None).sum()) == 0 for p in plays):
                hits += 1
    return pos, hits / 36


@pytest.mark.parametrize("mine", [{6: 1, 5: 1}, {6: 2}, {4: 1, 2: 1}, {6: 1, 1: 1}])
def test_cubeful_last_roll_reproduces_exact_cube_values(mine: dict[int, int]) -> None:
    pos, p = _last_roll(mine)
    r = Rollout(RolloutSettings(trials=36, variance_reduction=False)).cube(pos, gbot.MatchState())
    assert r.no_double.cubeful == pytest.approx(2 * p - 1, abs=1e-12)
    assert r.double_take.cubeful == pytest.approx(2 * (2 * p - 1), abs=1e-12)
    assert r.double_pass == 1.0
    doubles = 2 * (2 * p - 1) > 2 * p - 1
    assert (r.action in ("double_take", "double_pass")) == doubles
    assert r.response == ("pass" if 2 * (2 * p - 1) > 1 else "take")


def test_cubeless_cube_rollout_of_the_opening_is_sane() -> None:
    # 720 trials: at 72 the sample decides (networks v8: no-double 0.28, double-take 0.46)
    r = Rollout(RolloutSettings(trials=720, variance_reduction=False)).cube(
        gbot.Position.from_id("4HPwATDgc/ABMA"), gbot.MatchState())
    assert r.action == "no_double" and r.response == "take"
    assert r.no_double.cubeful is not None and abs(r.no_double.cubeful) < 0.5


def test_plays_are_ranked_and_seen_by_the_mover() -> None:
    pos = gbot.Position.from_id("4HPwATDgc/ABMA")
    rows = Rollout(RolloutSettings(trials=36)).plays(pos, (3, 1), candidates=2)
    assert [r.play.notation for r in rows][0] == "8/5 6/5"
    assert rows[0].result.equity > rows[1].result.equity
    assert 0.5 < rows[0].result.probabilities[0] < 0.65


@pytest.mark.parametrize("bad", [dict(trials=0), dict(truncate=-1), dict(seed=-1),
                                 dict(min_se=math.nan), dict(backend="mpi"),
                                 dict(trials=1.5)])
def test_bad_settings_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(RolloutError):
        RolloutSettings(**bad)  # type: ignore[arg-type]


def test_bad_boards_are_refused() -> None:
    with pytest.raises(RolloutError):
        rollout_boards(np.zeros((2, 25), dtype=np.int8))
    with pytest.raises(RolloutError):
        rollout_boards(np.full((1, 26), 3, dtype=np.int8))


def test_rollout_label_stage_is_resumable(tmp_path: object) -> None:
    from pathlib import Path

    from click.testing import CliRunner

    from gbot.train import rollout_label as R
    from gbot.train.cli import cli

    tmp = Path(str(tmp_path))
    boards = np.stack([RACE, BEAR, RACE, BEAR, RACE])
    np.savez(tmp / "set.npz", boards=boards, probs=np.zeros((5, 5), dtype=np.float32))
    args = ["rollout", "--src", str(tmp / "set.npz"), "--out", str(tmp / "out"), "--trials",
            "6", "--workers", "1", "--seed", "3"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    b, p = R.load(tmp / "out")
    assert b.shape == (5, 26) and p.shape == (5, 5)
    again, se = rollout_boards(b, 6, seed=3)
    assert np.allclose(p, again, atol=1e-6)
    before = (tmp / "out" / "part-00000.npz").stat().st_mtime_ns
    assert CliRunner().invoke(cli, args).exit_code == 0          # resumed: nothing to do
    assert (tmp / "out" / "part-00000.npz").stat().st_mtime_ns == before


def test_rollout_label_stage_logs_its_progress_within_a_part(tmp_path: object,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    # a long part says how far it is and when it will end, not only when it is done; the
    # labels are those of a run without progress lines
    from pathlib import Path

    from gbot.train import rollout_label as R

    tmp = Path(str(tmp_path))
    boards = np.stack([RACE, BEAR, RACE, BEAR, RACE] * 14)        # 70: two tasks of 64
    (tmp / "out").mkdir()
    np.savez(tmp / "out" / "positions.npz", boards=boards)
    monkeypatch.setattr(R, "PROGRESS_EVERY", 0.0)
    lines: list[str] = []
    R.run(tmp / "out", 2, 0, 3, 1, part_size=70, log=lines.append)
    counts = [int(line.split()[1]) for line in lines if line.startswith("positions ")]
    assert counts == [64, 70]                 # after each task of 64 boards, then the rest
    assert all("of 70, ETA " in line for line in lines if line.startswith("positions "))
    assert lines[-1].startswith("part 0: positions 0..69 of 70")
    _, p = R.load(tmp / "out")
    again, _ = rollout_boards(boards, 2, seed=3)
    assert np.allclose(p, again, atol=1e-6)


def test_a_time_bound_stops_at_a_whole_block_with_the_figures_of_those_trials() -> None:
    """Past ``stop_at`` no more trials start once a position has whole blocks of 36: the
    result is exactly the rollout of the trials played (the first block of the same seed),
    and never fewer than one block."""
    import time

    pos = gbot.Position.from_id("4HPwATDgc/ABMA")
    late = Rollout(RolloutSettings(trials=144, seed=5, batch=12, chunk=12,
                                   stop_at=time.monotonic() - 1.0)).position(pos)
    block = Rollout(RolloutSettings(trials=36, seed=5, batch=12, chunk=12)).position(pos)
    whole = Rollout(RolloutSettings(trials=144, seed=5, batch=12, chunk=12,
                                    stop_at=time.monotonic() + 3600)).position(pos)
    assert late.trials == 36 and whole.trials == 144
    assert late.probabilities == block.probabilities and late.equity == block.equity
    with pytest.raises(RolloutError, match="stop_at"):
        RolloutSettings(stop_at=float("nan"))


def test_a_rollout_folder_is_a_training_set(tmp_path: object) -> None:
    """`supervised --data` takes a rollout folder: its labels are the parts' probabilities."""
    from pathlib import Path

    from click.testing import CliRunner

    from gbot.train import rollout_label as R
    from gbot.train.cli import _check_data, _load_data, cli

    tmp = Path(str(tmp_path))
    np.savez(tmp / "set.npz", boards=np.stack([RACE, BEAR]), probs=np.zeros((2, 5), np.float32))
    res = CliRunner().invoke(cli, ["rollout", "--src", str(tmp / "set.npz"), "--out",
                                   str(tmp / "out"), "--trials", "4", "--workers", "1"])
    assert res.exit_code == 0, res.output
    _check_data(tmp / "out")
    boards, probs, groups = _load_data(tmp / "out")
    want_b, want_p = R.load(tmp / "out")
    assert groups is None
    assert np.array_equal(boards, want_b) and np.array_equal(probs, want_p)
    assert sorted(map(bytes, boards)) == sorted(map(bytes, np.stack([RACE, BEAR])))


def test_rollout_stage_takes_the_close_candidates_of_a_selfplay_folder(tmp_path: object
                                                                       ) -> None:
    """From a selfplay folder the stage rolls out the close candidates the teacher stage
    would label (the same choice, decision groups kept), each exactly as rollout_boards."""
    from pathlib import Path

    from click.testing import CliRunner

    from gbot.train import rollout_label as R
    from gbot.train import selfplay as S
    from gbot.train.cli import _load_data, cli

    pytest.importorskip("gnubg_nn")
    tmp = Path(str(tmp_path))
    S.run(tmp / "sp", games=2, seed=3, chunk_games=2, log=lambda m: None)
    common = ["--src", str(tmp / "sp"), "--margin", "0.05", "--class", "contact", "--limit", "6",
              "--seed", "2"]
    res = CliRunner().invoke(cli, ["rollout", *common, "--out", str(tmp / "ro"), "--trials", "4",
                                   "--workers", "1"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["teacher", *common, "--out", str(tmp / "te"), "--plies", "0",
                                   "--workers", "1"])
    assert res.exit_code == 0, res.output
    with np.load(tmp / "ro" / "positions.npz") as a, np.load(tmp / "te" / "positions.npz") as b:
        assert a["boards"].shape[0] == 6
        assert np.array_equal(a["boards"], b["boards"]) and np.array_equal(a["group"], b["group"])
    boards, probs = R.load(tmp / "ro")
    again, _ = rollout_boards(boards, 4, seed=2)
    assert np.allclose(probs, again, atol=1e-6)
    # a training set with its decision groups (the rank term's), a part in progress left out
    np.savez(tmp / "ro" / "part-00001.npz.tmp.npz", boards=boards, probs=probs)
    got_b, got_p, got_g = _load_data(tmp / "ro")
    with np.load(tmp / "ro" / "positions.npz") as z:
        assert got_g is not None and np.array_equal(got_g, z["group"])
    assert np.array_equal(got_b, boards) and np.array_equal(got_p, probs)
    (tmp / "empty").mkdir()
    empty = CliRunner().invoke(cli, ["rollout", "--src", str(tmp / "empty"), "--out",
                                     str(tmp / "none")])
    assert empty.exit_code == 1 and "holds no selfplay chunks" in empty.output
