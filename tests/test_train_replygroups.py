"""The replygroups stage: each close candidate's reply to each roll, grouped by (decision,
roll), beside the candidates grouped by decision."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from gbot.core.board import flip_py
from gbot.core.classify import CONTACT, classify
from gbot.core.expand import N_ROLLS, ROLLS
from gbot.core.movegen import legal_boards
from gbot.eval.evaluator import Evaluator
from gbot.train import replygroups as RG
from gbot.train import teacher as T
from gbot.train.label import load_with_groups
from tests.conftest import gnubg_selfplay


def _selfplay(tmp_path: Path) -> Path:
    return gnubg_selfplay(tmp_path / "sp", games=3, seed=5)


def test_decisions_are_whole_close_decisions_of_the_class(tmp_path: Path) -> None:
    sp = _selfplay(tmp_path)
    cands, dec = RG.choose_decisions([sp], 0.08, 5, seed=2)
    boards, _, groups = T.close_candidate_groups([sp], 0.08, only_class="contact")
    assert dec.min() == 0 and dec.max() == 4 and np.all(np.diff(dec) >= 0)
    for d in range(5):
        mine = cands[dec == d]
        # exactly one decision of the selection, with all its candidates (two or more)
        (g,) = {int(groups[np.flatnonzero((boards == b).all(axis=1))[0]]) for b in mine}
        assert mine.shape[0] >= 2
        assert np.array_equal(mine, boards[groups == g])
    again, _ = RG.choose_decisions([sp], 0.08, 5, seed=2)
    assert np.array_equal(again, cands)                          # seeded
    other, _ = RG.choose_decisions([sp], 0.08, 5, seed=3)
    assert not np.array_equal(other, cands)


def test_each_group_holds_the_picked_reply_of_one_roll_to_each_candidate(tmp_path: Path
                                                                          ) -> None:
    sp = _selfplay(tmp_path)
    cands, dec = RG.choose_decisions([sp], 0.08, 3, seed=1)
    ev = Evaluator()
    boards, groups = RG.reply_groups(cands, dec, ev, log=lambda m: None)
    assert np.all(np.diff(groups) >= 0)
    for g in np.unique(groups):
        d, r = divmod(int(g), N_ROLLS)
        mine = boards[groups == g]
        assert len({b.tobytes() for b in mine}) >= 2
        assert all(classify(b) == CONTACT for b in mine)
        want = []
        for c in cands[dec == d]:
            # the opponent's plays of roll r, the one its 0-ply (pruned) search likes best,
            # seen by the root mover: the reply best_replies picks
            picked, _ = ev.best_replies(c[None, :])
            reply = picked[r]
            d1, d2 = ROLLS[r]
            results = legal_boards(c, int(d1), int(d2))
            if results.shape[0]:
                assert any(np.array_equal(flip_py(x), reply) for x in results)
            if classify(reply) == CONTACT:
                want.append(reply.tobytes())
        assert sorted(b.tobytes() for b in mine) == sorted(want)


def test_stage_writes_both_labelled_folders_and_resumes(tmp_path: Path) -> None:
    sp = _selfplay(tmp_path)
    from gbot.train.cli import cli
    out = tmp_path / "rg"
    args = ["replygroups", "--src", str(sp), "--out", str(out), "--decisions", "4",
            "--seed", "7", "--workers", "1", "--backend", "serial"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    rb, rp, rg = load_with_groups(out / RG.REPLIES)
    cb, cp, cg = load_with_groups(out / RG.CANDIDATES)
    from gbot.train.oracle import probabilities
    assert np.allclose(rp, probabilities(rb, 0), atol=1e-6)          # the teacher's labels
    assert np.allclose(cp, Evaluator().evaluate(cb, 0), atol=1e-6)    # gbot 0-ply anchor
    assert rg is not None and cg is not None
    assert len(np.unique(cg)) == 4 and np.all(np.bincount(cg)[np.unique(cg)] >= 2)
    assert np.all(np.unique(rg) // N_ROLLS < 4)
    stamp = (out / RG.REPLIES / "label-00000.npz").stat().st_mtime_ns
    res = CliRunner().invoke(cli, args)                              # finished: kept
    assert res.exit_code == 0, res.output
    assert (out / RG.REPLIES / "label-00000.npz").stat().st_mtime_ns == stamp


def test_stage_without_decisions_is_a_one_line_error(tmp_path: Path) -> None:
    from gbot.train.cli import cli
    empty = tmp_path / "empty"
    empty.mkdir()
    res = CliRunner().invoke(cli, ["replygroups", "--src", str(empty), "--out",
                                   str(tmp_path / "o"), "--workers", "1"])
    assert res.exit_code == 1 and "holds no selfplay chunks" in res.output
    sp = _selfplay(tmp_path)          # below every margin: only the played results are kept
    res = CliRunner().invoke(cli, ["replygroups", "--src", str(sp), "--out", str(tmp_path / "o"),
                                   "--margin=-1", "--workers", "1"])
    assert res.exit_code == 1 and "no close contact decisions" in res.output
    assert len(res.output.strip().splitlines()) == 1
