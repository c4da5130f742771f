"""Rollout dice and standard errors: quasi-random dice give unbiased figures at every trial
count, the standard errors match the spread of the figures, and variance reduction reaches
the cubeful figures (issue 33)."""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

import gbot
from gbot.analysis.rollout import Rollout, RolloutError, RolloutResult, RolloutSettings
from tests.test_rollout import _last_roll

OPENING = gbot.Position.from_id("4HPwATDgc/ABMA")
REFERENCE_TRIALS = 10_000
"""Trials of the reference rollout of the opening (independent dice, no luck cancellation):
a standard error of about 0.013 in equity, some 12 s here."""


def _opening(trials: int, seed: int, *, quasi: bool = True, truncate: int = 0) -> RolloutResult:
    """The opening position rolled out cubeless at 0-ply without variance reduction (the
    dice alone decide how far a figure strays)."""
    s = RolloutSettings(trials=trials, seed=seed, quasi_random=quasi, variance_reduction=False,
                        truncate=truncate, bearoff_stop=truncate == 0, chunk=1296,
                        batch=trials)
    return Rollout(s).position(OPENING)


@pytest.fixture(scope="module")
def reference() -> RolloutResult:
    """A long rollout of the opening with independent dice."""
    return _opening(REFERENCE_TRIALS, 99, quasi=False)


def test_stratified_trials_are_the_whole_blocks_of_36() -> None:
    from gbot.analysis.rollout import stratified_trials

    got = {n: stratified_trials(RolloutSettings(trials=n)) for n in (5, 35, 36, 72, 144, 1000,
                                                                    1296)}
    assert got == {5: 0, 35: 0, 36: 36, 72: 72, 144: 144, 1000: 972, 1296: 1296}
    assert stratified_trials(RolloutSettings(trials=1296, quasi_random=False)) == 0


def test_opening_rollouts_agree_with_a_long_rollout(reference: RolloutResult) -> None:
    """Before issue 33 trial t's reply was roll (t div 36) mod 36 whatever the trial count:
    at 72 trials only 11 and 21 (seed 1: equity -0.453 +- 0.164), at 1,000 never a 6."""
    off = []
    for trials in (72, 144, 1000):
        for seed in (1, 2, 3):
            r = _opening(trials, seed)
            z = (r.equity - reference.equity) / math.hypot(r.equity_se, reference.equity_se)
            if abs(z) > 3.0:
                off.append((trials, seed, round(r.equity, 3), round(r.equity_se, 3),
                            round(z, 2)))
    assert not off, (reference.equity, reference.equity_se, off)


def test_standard_error_matches_the_spread_over_seeds(reference: RolloutResult) -> None:
    figures = [_opening(144, seed) for seed in range(1, 17)]
    eq = np.array([r.equity for r in figures])
    se = np.array([r.equity_se for r in figures])
    ratio = eq.std(ddof=1) / se.mean()
    # 16 seeds: the ratio of a right standard error lies within 0.55-1.45 in 99.8 % of cases
    assert 0.55 < ratio < 1.45, (eq.round(3), se.round(3))
    z = (eq - reference.equity) / np.hypot(se, reference.equity_se)
    assert math.sqrt(float(np.mean(z ** 2))) < 1.45, z.round(2)


def test_two_ply_rollouts_average_to_the_exact_value() -> None:
    """Truncated after the reply (0-ply value there), a rollout estimates the mean over the
    1,296 pairs of opening roll and reply, which every whole block of 1,296 holds once."""
    exact = _opening(1296, 1, truncate=2)
    assert _opening(1296, 2, truncate=2).equity == pytest.approx(exact.equity, abs=1e-12)
    independent = _opening(12_960, 1, quasi=False, truncate=2)
    assert abs(independent.equity - exact.equity) < 3 * independent.equity_se
    for trials in (72, 144, 1000):
        figures = [_opening(trials, seed, truncate=2) for seed in range(1, 21)]
        eq = np.array([r.equity for r in figures])
        se = np.array([r.equity_se for r in figures])
        z = (eq - exact.equity) / se
        # the replies change with the seed (before issue 33 they did not: sd 0)
        assert eq.std(ddof=1) > 0.2 * se.mean(), (trials, eq)
        assert np.abs(z).max() < 3.0, (trials, z.round(2))
        # averaged over the seeds the figures meet the exact value: no bias
        assert abs(eq.mean() - exact.equity) < 3 * eq.std(ddof=1) / math.sqrt(len(eq)), (
            trials, eq.mean(), exact.equity)


def test_figures_do_not_depend_on_chunks_across_the_last_block() -> None:
    """40 trials: 36 stratified, 4 with independent dice; tasks that straddle trial 36 give
    the same figures, cubeless (many boards a task) and cubeful (the recorded games)."""
    from gbot.analysis.rollout import rollout_boards

    base = RolloutSettings(trials=40, seed=4, truncate=8, chunk=40, batch=40)
    boards = np.stack([OPENING.board, OPENING.swapped().board])
    a = Rollout(base).boards(boards)
    assert Rollout(RolloutSettings(trials=40, seed=4, truncate=8, chunk=7, batch=20)
                   ).boards(boards) == a
    probs, _ = rollout_boards(boards, 40, seed=4, truncate=8)
    assert [r.probabilities for r in a] == [tuple(row) for row in probs.tolist()]
    state = gbot.MatchState()
    whole = Rollout(base).cube(OPENING, state)
    assert Rollout(RolloutSettings(trials=40, seed=4, truncate=8, chunk=5, batch=20)
                   ).cube(OPENING, state) == whole


@pytest.mark.parametrize("state", [gbot.MatchState(),
                                   gbot.MatchState(match_length=5, score=(2, 1))])
def test_position_and_cube_from_one_set_of_trials_equal_the_two_rollouts(
        state: gbot.MatchState) -> None:
    """One set of trials gives the position's and the cube decision's figures, each equal to
    its own rollout on the same seed, money and match."""
    s = RolloutSettings(trials=40, seed=9, truncate=6)
    whole, cube = Rollout(s).position_and_cube(OPENING, state)
    assert whole == Rollout(s).position(OPENING, state)
    assert cube == Rollout(s).cube(OPENING, state)
    assert whole.cubeful is not None and cube.no_double.trials == whole.trials == 40


def test_finish_by_starts_no_block_that_would_end_past_it() -> None:
    """A bound the next block cannot meet stops the rollout after its first whole block (never
    fewer); a bound far off leaves every trial played."""
    soon = RolloutSettings(trials=108, seed=3, truncate=4, batch=12, chunk=12,
                           finish_by=time.monotonic() + 1e-3)
    assert Rollout(soon).position(OPENING).trials == 36
    later = replace(soon, finish_by=time.monotonic() + 3600.0)
    assert Rollout(later).position(OPENING).trials == 108
    with pytest.raises(RolloutError, match="finish_by"):
        RolloutSettings(finish_by=float("nan"))


def test_min_se_stops_only_after_whole_blocks() -> None:
    s = RolloutSettings(trials=1296, batch=20, min_se=10.0, variance_reduction=False)
    # checked every 20 trials; 180 is the first check that ends a block of 36
    assert Rollout(s).position(OPENING).trials == 180


@pytest.mark.parametrize("mine", [{6: 1, 5: 1}, {4: 1, 2: 1}])
@pytest.mark.parametrize("trials", [5, 36])
def test_cubeful_variance_reduction_is_exact_on_the_last_roll(mine: dict[int, int],
                                                              trials: int) -> None:
    """With one roll to go the luck of the roll is all there is: cancelled, every trial
    gives the exact value, cubeless and cubeful, money and match, with or without
    stratified dice."""
    pos, p = _last_roll(mine)
    s = RolloutSettings(trials=trials, variance_reduction=True)
    r = Rollout(s).cube(pos, gbot.MatchState())
    assert r.no_double.equity == pytest.approx(2 * p - 1, abs=1e-9)
    assert r.no_double.cubeful == pytest.approx(2 * p - 1, abs=1e-9)
    assert r.double_take.cubeful == pytest.approx(2 * (2 * p - 1), abs=1e-9)
    assert r.no_double.equity_se < 1e-9
    assert r.no_double.cubeful_se is not None and r.no_double.cubeful_se < 1e-9
    assert r.double_take.cubeful_se is not None and r.double_take.cubeful_se < 1e-9
    m = Rollout(s).cube(pos, gbot.MatchState(match_length=5, score=(2, 1)))
    assert m.no_double.cubeful == pytest.approx(2 * p - 1, abs=1e-9)
    assert m.no_double.mwc_se is not None and m.no_double.mwc_se < 1e-9


def test_cubeful_rollouts_cancel_luck_in_both_figures() -> None:
    plain = RolloutSettings(trials=72, variance_reduction=False)
    a = Rollout(plain).cube(OPENING, gbot.MatchState())
    b = Rollout(RolloutSettings(trials=72)).cube(OPENING, gbot.MatchState())
    assert a.no_double.cubeful_se is not None and b.no_double.cubeful_se is not None
    # measured at 144 trials: cubeless 0.109 -> 0.019, cubeful no double 0.256 -> 0.054
    assert b.no_double.equity_se < a.no_double.equity_se / 3
    assert b.no_double.cubeful_se < a.no_double.cubeful_se / 2.5


def test_rollout_command_stars_gbots_play_and_says_what_se_is() -> None:
    from gbot.cli import main as cli

    args = ["rollout", "4HPwATDgc/ABMA", "31", "--trials", "36", "-n", "3", "--no-vr"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    starred = [line for line in out.output.splitlines() if re.match(r"\s*\*\s*\d+\.", line)]
    assert len(starred) == 1 and "8/5 6/5" in starred[0], out.output
    assert "* gbot's play (at 0-ply)" in out.output
    assert "± is one standard error" in out.output
    js = CliRunner().invoke(cli, [*args, "--json"])
    plays = json.loads(js.output[js.output.index("{"):])["plays"]
    assert [p["play"] for p in plays if p["chosen"]] == ["8/5 6/5"]
    cube = CliRunner().invoke(cli, ["rollout", "4HPwATDgc/ABMA", "--trials", "36", "--no-vr"])
    assert cube.exit_code == 0 and "± is one standard error" in cube.output, cube.output


def test_hint_rollout_says_what_se_is() -> None:
    from gbot.cli import main as cli

    out = CliRunner().invoke(cli, ["hint", "4HPwATDgc/ABMA", "31", "--rollout", "--trials",
                                   "36", "-n", "2"])
    assert out.exit_code == 0, out.output
    assert "* gbot's play" in out.output and "± is one standard error" in out.output
