"""The teacher label stage: close-decision selection from self-play and deeper labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gbot.core.expand import EQUITY_WEIGHTS
from gbot.train import teacher as T
from tests.conftest import gnubg_selfplay


def _selfplay(tmp_path: Path) -> Path:
    return gnubg_selfplay(tmp_path / "sp", games=2, seed=3)


def test_close_candidates_keep_played_and_near_best(tmp_path: Path) -> None:
    sp = _selfplay(tmp_path)
    with np.load(sp / "chunk-00000.npz") as z:
        boards, probs, played = z["boards"], z["probs"].astype(np.float64), z["played"]
        key = z["game"] * 4096 + z["turn"]
    mover = -(probs @ EQUITY_WEIGHTS - 1.0)
    expect = []
    for k in np.unique(key):          # by definition, turn by turn
        sel = np.flatnonzero(key == k)
        best = mover[sel].max()
        expect += [i for i in sel if played[i] or best - mover[i] <= 0.05]
    got, got_played = T.close_candidates([sp], 0.05)
    assert np.array_equal(got, boards[np.array(expect)])
    assert got_played.sum() == played.sum()
    wide, _ = T.close_candidates([sp], 10.0)
    assert wide.shape[0] == boards.shape[0] > got.shape[0]


def test_close_candidate_groups_are_the_rolls(tmp_path: Path) -> None:
    sp = _selfplay(tmp_path)
    with np.load(sp / "chunk-00000.npz") as z:
        key = z["game"] * 4096 + z["turn"]
    boards, played, groups = T.close_candidate_groups([sp], 10.0)   # every candidate
    assert boards.shape[0] == key.shape[0] == groups.shape[0]
    for g in np.unique(groups):         # one group per (game, turn), one played result each
        assert np.unique(key[groups == g]).shape[0] == 1 and played[groups == g].sum() == 1
    assert np.unique(groups).shape[0] == np.unique(key).shape[0]
    out = tmp_path / "t"
    T.prepare(out, boards, 300, seed=1, groups=groups)
    from gbot.train.label import load_groups

    with np.load(out / "positions.npz") as z:
        chosen, chosen_groups = z["boards"], z["group"]
    first = {b.tobytes(): int(g) for b, g in zip(boards[::-1], groups[::-1], strict=True)}
    assert [first[b.tobytes()] for b in chosen] == chosen_groups.tolist()
    # whole decisions, one after another: every group but the last (cut at the limit) whole
    order = list(dict.fromkeys(chosen_groups.tolist()))
    assert len(order) == 1 + int(np.count_nonzero(np.diff(chosen_groups)))
    members: dict[int, set[bytes]] = {}
    for b, g in first.items():
        members.setdefault(g, set()).add(b)
    picked = {b.tobytes() for b in chosen}
    assert len(order) > 2 and all(members[g] <= picked for g in order[:-1])
    assert load_groups(out) is None          # nothing labelled yet: rows would not line up


def test_groups_of_a_folder_still_being_labelled(tmp_path: Path) -> None:
    from gbot.train.label import load, load_groups

    sp = _selfplay(tmp_path)
    boards, _, groups = T.close_candidate_groups([sp], 10.0)
    out = tmp_path / "t"
    T.prepare(out, boards, 40, seed=1, groups=groups)
    T.run(out, "gnubg-nn", 0, workers=1, chunk=15, log=lambda m: None)   # 15 + 15 + 10 rows
    with np.load(out / "positions.npz") as z:
        chosen = z["group"]
    assert np.array_equal(load_groups(out), chosen)
    (out / "label-00001.npz").unlink()                # a gap: chunks 0 and 2 are labelled
    b, _ = load(out)
    got = load_groups(out, b.shape[0])
    assert got is not None and np.array_equal(got, np.r_[chosen[:15], chosen[30:]])
    assert load_groups(out, b.shape[0] + 1) is None   # rows that do not line up
    (out / "label-00000.npz").unlink()                # only the short last chunk: size unknown
    assert load_groups(out) is None


def test_close_candidate_groups_of_one_class(tmp_path: Path) -> None:
    from gbot.core.classify import NAMES, classify_many

    sp = _selfplay(tmp_path)
    boards, played, groups = T.close_candidate_groups([sp], 0.08)
    cls = classify_many(boards)
    for name in ("contact", "race"):
        b, p, g = T.close_candidate_groups([sp], 0.08, name)
        mask = cls == NAMES.index(name)
        assert 0 < b.shape[0] < boards.shape[0]          # both classes occur in two games
        assert np.array_equal(b, boards[mask]) and np.array_equal(p, played[mask])
        assert np.array_equal(g, groups[mask])


def test_teacher_labels_resume_and_match_the_teacher(tmp_path: Path) -> None:
    sp = _selfplay(tmp_path)
    boards, _ = T.close_candidates([sp], 0.05)
    out = tmp_path / "t"
    n = T.prepare(out, boards, 50, seed=1)
    assert n == 50 and T.prepare(out, boards[:10], 5, seed=2) == 50   # the choice is kept
    T.run(out, "gnubg-nn", 1, workers=1, chunk=20, log=lambda m: None)
    from gbot.train.label import load
    from gbot.train.oracle import probabilities

    b, p = load(out)
    assert b.shape[0] == 50
    assert np.allclose(p, probabilities(b, 1), atol=1e-6)
    first = (out / "label-00000.npz").stat().st_mtime_ns
    (out / "label-00001.npz").unlink()
    T.run(out, "gnubg-nn", 1, workers=1, chunk=20, log=lambda m: None)   # only the gap
    assert (out / "label-00000.npz").stat().st_mtime_ns == first
    assert load(out)[0].shape[0] == 50


def test_gbot_teacher_is_gbot_search(tmp_path: Path) -> None:
    from gbot.eval.evaluator import Evaluator

    label = T.make_teacher("gbot", 1)
    start = np.array([[0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0,
                       0, 0, 2, 0]], dtype=np.int8)
    assert np.allclose(label(start), Evaluator().evaluate(start, ply=1), atol=1e-6)
    with pytest.raises(ValueError, match="unknown teacher"):
        T.make_teacher("oracle-of-delphi", 1)
