"""scripts/judge_disagreements.py on a small head-to-head: the rolls where gbot's and gnubg-nn's
0-ply picks differ, judged by evaluators whose own best pick is known."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gbot.core.classify import BEAROFF, NAMES, classify_many
from tests.conftest import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "judge_disagreements.py"



@pytest.fixture(scope="module")
def versus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("gnubg_nn")
    from gbot.train import selfplay

    out = tmp_path_factory.mktemp("vs")
    selfplay.run(out, games=6, seed=9101, policy="versus", eps=0.0, chunk_games=3,
                 disagreements=True, log=lambda m: None)
    return out


def test_picks_are_the_two_players_choices(versus: Path) -> None:
    J = load_script("judge_disagreements")
    picks_g, picks_b, games = J.disagreements(versus)
    assert picks_g.shape == picks_b.shape and picks_g.shape[0] == games.shape[0] > 5
    assert not any(np.array_equal(a, b) for a, b in zip(picks_g, picks_b, strict=True))
    # judged by gnubg-nn 0-ply, gnubg's pick is never worse than gbot's
    probs = J.judge_boards(np.concatenate([picks_g, picks_b]), "gnubg-nn", 0, 1,
                           log=lambda m: None)
    eq = J.mover_equity(probs)
    n = picks_g.shape[0]
    diff = eq[n:] - eq[:n]
    assert (diff <= 1e-6).all() and (diff < 0).mean() > 0.5
    # judged by gbot's own 0-ply (the same networks, the exact bear-off tables aside), gbot's
    # pick is never worse
    probs = J.judge_boards(np.concatenate([picks_g, picks_b]), "gbot", 0, 1,
                           log=lambda m: None)
    eq = J.mover_equity(probs)
    net_judged = classify_many(picks_g) != BEAROFF
    assert (eq[n:] - eq[:n])[net_judged].min() >= -1e-5
    rep = J.report(picks_g, diff, int(np.unique(games).shape[0]))
    assert rep["rolls"] == n and rep["gbot_better"] == 0.0
    assert rep["per_game"] == pytest.approx(diff.sum() / rep["games"])
    assert sum(r["rolls"] for r in rep["by_class"].values()) == n


def test_an_empty_folder_is_refused(tmp_path: Path) -> None:
    import click

    with pytest.raises(click.ClickException, match="no self-play chunks"):
        load_script("judge_disagreements").disagreements(tmp_path)


def test_the_rollout_judge_rolls_both_picks_out_on_the_same_dice(versus: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    J = load_script("judge_disagreements")
    B = sys.modules["benchlib"]
    picks_g, picks_b, _ = J.disagreements(versus)
    g, b = picks_g[:2], picks_b[:2]
    cache = tmp_path / "judged.jsonl"
    diff, se = B.rollout_pairs(g, b, 8, 0, 5, 1, cache, log=lambda m: None)
    assert diff.shape == se.shape == (2,) and (se > 0).all()
    # the same dice for both results: a roll judged with its picks swapped gives minus the
    # figure, and a roll whose two picks are the same board gives exactly 0
    back, back_se = B.rollout_pairs(b, g, 8, 0, 5, 1, log=lambda m: None)
    assert back == pytest.approx(-diff, abs=1e-12) and back_se == pytest.approx(se)
    same, same_se = B.rollout_pairs(g, g, 8, 0, 5, 1, log=lambda m: None)
    assert (same == 0).all() and (same_se == 0).all()
    # the cache resumes: nothing is rolled out again for the same trials, plies and seed ...
    monkeypatch.setattr(B, "_roll_out_pair", lambda job: pytest.fail("rolled out again"))
    again, _ = B.rollout_pairs(g, b, 8, 0, 5, 1, cache, log=lambda m: None)
    assert (again == diff).all()
    # ... and other settings are not taken from it
    with pytest.raises(pytest.fail.Exception):
        B.rollout_pairs(g, b, 8, 0, 6, 1, cache, log=lambda m: None)


def test_the_rollout_judge_of_one_class_from_the_command_line(versus: Path,
                                                              tmp_path: Path) -> None:
    from click.testing import CliRunner

    J = load_script("judge_disagreements")
    picks_g, _, games = J.disagreements(versus)
    contact = int((classify_many(picks_g) == NAMES.index("contact")).sum())
    out = tmp_path / "r.json"
    res = CliRunner().invoke(J.main, ["--src", str(versus), "--judge", "rollout", "--plies", "0",
                                      "--trials", "4", "--class", "contact", "--limit", "2",
                                      "--workers", "1", "--json-out", str(out)])
    assert res.exit_code == 0, res.output
    import json

    rep = json.loads(out.read_text())
    assert rep["rolls"] == 2 and list(rep["by_class"]) == ["contact"] and rep["trials"] == 4
    # the per-game figure counts every contact roll of the games, not only the two judged
    n_games = int(np.unique(games).shape[0])
    assert rep["per_game"] == pytest.approx(rep["mean_per_roll"] * contact / n_games)
