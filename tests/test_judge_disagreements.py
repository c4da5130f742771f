"""scripts/judge_disagreements.py on a small head-to-head: the rolls where gbot's and gnubg-nn's
0-ply picks differ, judged by evaluators whose own best pick is known."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gbot.core.classify import BEAROFF, classify_many
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
