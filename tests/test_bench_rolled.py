"""scripts/bench_rolled.py: players scored by the rollout equity they give up per decision, on
folders whose rollout labels are known (exact losses by hand; labels that are a player's own
values, so that player loses nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gbot.core import movegen
from gbot.eval.evaluator import Evaluator
from tests.conftest import load_script

START = np.array([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2,
                  0], dtype=np.int8)
EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def _folder(tmp: Path, boards: np.ndarray, probs: np.ndarray, groups: np.ndarray | None) -> Path:
    """A rollout folder as ``gbot train rollout`` writes one (one part)."""
    tmp.mkdir(parents=True, exist_ok=True)
    if groups is None:
        np.savez(tmp / "positions.npz", boards=boards)
    else:
        np.savez(tmp / "positions.npz", boards=boards, group=groups)
    np.savez(tmp / "part-00000.npz", boards=boards, probs=probs.astype(np.float32),
             se=np.zeros_like(probs))
    return tmp


def _candidates() -> tuple[np.ndarray, np.ndarray]:
    """Every result of the opening position for three rolls, seen by the opponent, and the
    roll (decision) each belongs to."""
    rows, groups = [], []
    for k, (d1, d2) in enumerate([(3, 1), (6, 5), (4, 2)]):
        res = movegen.legal_boards(START, d1, d2)
        rows.append(np.ascontiguousarray(-res[:, ::-1]))
        groups += [k] * res.shape[0]
    return np.concatenate(rows).astype(np.int8), np.array(groups, dtype=np.int64)


def test_losses_and_scores_by_hand() -> None:
    B = load_script("bench_rolled")
    d = B.Decisions(np.zeros((5, 26), np.int8), np.array([0.1, 0.3, 0.2, -0.5, -0.4]),
                    np.array([0, 3]))
    loss = B.losses(d, np.array([0.0, 0.0, 9.0, 1.0, 0.0]))   # picks 0.2 and -0.5
    assert loss == pytest.approx([0.1, 0.1])
    best = B.losses(d, d.rolled)
    assert best == pytest.approx([0.0, 0.0])
    s = B.score("x", loss, best)
    assert (s.decisions, s.best_share, s.differ) == (2, 0.0, 2)
    assert s.loss == pytest.approx(0.1) and s.minus_first == pytest.approx(0.1)
    assert s.minus_first_se == pytest.approx(0.0)


def test_a_player_judged_by_its_own_values_loses_nothing(tmp_path: Path) -> None:
    B = load_script("bench_rolled")
    boards, groups = _candidates()
    own = Evaluator().evaluate(boards, 0)
    # a single-candidate decision is left out; the rows are shuffled as a folder may hold them
    boards = np.concatenate([boards, START[None, :]])
    own = np.concatenate([own, [[0.5, 0.1, 0.0, 0.1, 0.0]]])
    groups = np.r_[groups, 99]
    perm = np.random.default_rng(3).permutation(boards.shape[0])
    folder = _folder(tmp_path / "ro", boards[perm], own[perm], groups[perm])
    d = B.decisions(folder)
    assert d.count == 3 and d.rolled.shape[0] == boards.shape[0] - 1
    assert B.decisions(folder, limit=2).count == 2
    out = tmp_path / "score.json"
    res = CliRunner().invoke(B.main, ["--src", str(folder), "--player", "gbot:0",
                                      "--player", "gbot:1", "--workers", "1",
                                      "--json-out", str(out)])
    assert res.exit_code == 0, res.output
    scores = json.loads(out.read_text())["scores"]
    assert scores[0]["player"] == "gbot 0-ply"
    assert scores[0]["loss"] == 0.0 and scores[0]["best_share"] == 1.0
    # the 1-ply player may differ from the 0-ply labels, never gain on them
    assert scores[1]["loss"] >= 0.0 and scores[1]["minus_first"] == scores[1]["loss"]


def test_a_folder_without_decisions_is_refused(tmp_path: Path) -> None:
    B = load_script("bench_rolled")
    boards, _ = _candidates()
    folder = _folder(tmp_path / "flat", boards, np.full((boards.shape[0], 5), 0.2), None)
    res = CliRunner().invoke(B.main, ["--src", str(folder)])
    assert res.exit_code != 0 and "no decision groups" in res.output
    res = CliRunner().invoke(B.main, ["--src", str(tmp_path)])
    assert res.exit_code != 0 and "no labelled parts" in res.output


@pytest.mark.parametrize("text", ["gbot", "gbot:x", "pubeval:0", "gnubg:1:w.npz", "gbot:7"])
def test_a_bad_player_is_refused(text: str) -> None:
    import click

    with pytest.raises(click.BadParameter):
        load_script("bench_rolled").parse_player(text)


def test_mover_equity_of_the_labels() -> None:
    """The mover's equity after a play is minus the cubeless equity of the side on roll."""
    B = load_script("bench_rolled")
    p = np.array([[0.6, 0.2, 0.05, 0.1, 0.01]])
    assert B.mover_equity(p) == pytest.approx(-(p @ EQUITY))


@pytest.mark.parametrize("name, cls, decisions, candidates, rolled, seed",
                         [("contact", "CONTACT", 512, 2745, 3000, 41),
                          ("race", "RACE", 190, 2900, 3000, 44),
                          ("race2", "RACE", 317, 3849, 4000, 48),
                          ("race3", "RACE", 263, 3858, 4000, 49),
                          ("crashed", "CRASHED", 339, 2620, 3000, 43)])
def test_a_kept_rolled_out_set_is_whole(name: str, cls: str, decisions: int, candidates: int,
                                        rolled: int, seed: int) -> None:
    # scripts/data/rolled/NAME, as its README and the model card describe it: the decisions
    # and candidates counted there (``rolled`` results of the class rolled out, 36 games each),
    # every figure an estimate with its standard error (variance reduction can take one a
    # little below 0)
    from gbot.core import classify
    from gbot.train.rollout_label import load_with_groups

    B = load_script("bench_rolled")
    folder = Path(__file__).parents[1] / "scripts" / "data" / "rolled" / name
    d = B.decisions(folder)
    assert (d.starts.shape[0], d.boards.shape[0]) == (decisions, candidates)
    boards, probs, groups = load_with_groups(folder)
    assert groups is not None and boards.shape[0] == probs.shape[0] == rolled
    assert (classify.classify_many(boards) == getattr(classify, cls)).all()
    se = np.concatenate([np.load(p)["se"] for p in sorted(folder.glob("part-*.npz"))])
    assert se.shape == probs.shape and (se >= 0).all() and (se < 0.1).all()
    assert (probs > -0.02).all() and (probs < 1.02).all()
    assert (probs[:, 1] <= probs[:, 0] + 3 * se[:, 0] + 0.01).all()
    settings = json.loads((folder / "settings.json").read_text())
    assert settings == {"checker_ply": 0, "seed": seed, "trials": 36, "truncate": 0}


def test_reply_values_by_hand() -> None:
    # two candidates; each roll's replies: the opponent takes the one lowest for the mover by
    # the picker's figures, and the valuer's figure of that reply is averaged over the rolls
    from gbot.core import expand as ex

    B = load_script("bench_rolled")
    d = B.Decisions(np.zeros((2, 26), np.int8), np.zeros(2), np.array([0]))
    sizes = np.r_[[2] * ex.N_ROLLS, [1] * ex.N_ROLLS]
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    a = np.tile([0.1, 0.3], ex.N_ROLLS)          # candidate 0: A picks the first reply
    b = np.tile([0.5, 0.2], ex.N_ROLLS)          # ... and B the second
    a, b = np.r_[a, np.full(ex.N_ROLLS, 0.7)], np.r_[b, np.full(ex.N_ROLLS, -0.4)]
    v = B.reply_values(d, {"A": a, "B": b}, offsets)
    assert v["A", "A"] == pytest.approx([0.1, 0.7])
    assert v["A", "B"] == pytest.approx([0.5, -0.4])
    assert v["B", "A"] == pytest.approx([0.3, 0.7])
    assert v["B", "B"] == pytest.approx([0.2, -0.4])


def test_cross_matches_each_engines_own_one_ply(tmp_path: Path) -> None:
    """Picked and valued by one engine, the taken-apart 1-ply is that engine's own 1-ply:
    gbot's unpruned search, and gnubg-nn's ``probabilities(board, 1)``."""
    pytest.importorskip("gnubg_nn")
    from gbot.core import expand as ex
    from gbot.train.oracle import probabilities

    B = load_script("bench_rolled")
    boards, groups = _candidates()
    d = B.Decisions(boards, np.zeros(boards.shape[0]), np.array([0]))
    ev = Evaluator(prune=False)
    children, offsets, probs, kinds, _ = ev.children(boards)
    exact = kinds == ex.OVER
    figures = {"gbot": ev.evaluate(children, 0) @ EQUITY,
               "gnubg-nn": np.where(exact[:, None], probs, probabilities(children, 0)) @ EQUITY}
    v = B.reply_values(d, figures, offsets)
    # both figures leave out the equity's constant term, with opposite signs: 2 apart
    assert v["gbot", "gbot"] == pytest.approx(B.mover_equity(ev.evaluate(boards, 1)) + 2,
                                              abs=1e-9)
    assert v["gnubg-nn", "gnubg-nn"] == pytest.approx(
        B.mover_equity(probabilities(boards, 1)) + 2, abs=1e-5)
    assert not np.allclose(v["gbot", "gnubg-nn"], v["gbot", "gbot"])
    # the CLI adds the four players after the others
    own = ev.evaluate(boards, 0)
    folder = _folder(tmp_path / "ro", boards, own, groups)
    out = tmp_path / "score.json"
    res = CliRunner().invoke(B.main, ["--src", str(folder), "--player", "gbot:0", "--cross",
                                      "--workers", "1", "--json-out", str(out)])
    assert res.exit_code == 0, res.output
    names = [s["player"] for s in json.loads(out.read_text())["scores"]]
    assert names == ["gbot 0-ply"] + [f"1-ply: picks {p}, values {q}"
                                      for p in ("gbot", "gnubg-nn")
                                      for q in ("gbot", "gnubg-nn")]
