"""The blend stage: labels mixed with another teacher's probabilities, resumable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gbot.core.board import START
from gbot.train import blend as B


def _folder(path: Path, chunks: int, seed: int = 4) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    path.mkdir()
    boards = np.repeat(START[None, :], 3 * chunks, axis=0).astype(np.int8)
    boards[:, 1] = np.arange(3 * chunks) % 3 - 2         # distinct boards
    np.savez(path / "positions.npz", boards=boards, group=np.arange(3 * chunks) // 3)
    labels = []
    for i in range(chunks):
        p = rng.uniform(0, 1, size=(3, 5)).astype(np.float32)
        np.savez(path / f"label-{i:05d}.npz", boards=boards[3 * i:3 * i + 3], probs=p)
        labels.append(p)
    return labels


def _flat(boards: np.ndarray) -> np.ndarray:
    return np.full((boards.shape[0], 5), 0.5, dtype=np.float32)


def test_blend_mixes_every_chunk_and_resumes(tmp_path: Path) -> None:
    labels = _folder(tmp_path / "src", 3)
    out = tmp_path / "out"
    assert B.run(tmp_path / "src", out, 0.25, teacher=_flat, log=lambda m: None) == 3
    for i, p in enumerate(labels):
        with np.load(out / f"label-{i:05d}.npz") as z:
            assert np.allclose(z["probs"], 0.25 * 0.5 + 0.75 * p, atol=1e-7)
    with np.load(out / "positions.npz") as z, np.load(tmp_path / "src" / "positions.npz") as y:
        assert np.array_equal(z["group"], y["group"])
    (out / "label-00001.npz").unlink()               # an interrupted run redoes what is missing
    assert B.run(tmp_path / "src", out, 0.25, teacher=_flat, log=lambda m: None) == 1
    assert B.run(tmp_path / "src", out, 0.25, teacher=_flat, log=lambda m: None) == 0


def test_blend_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        B.run(tmp_path, tmp_path / "out", 0.3, teacher=_flat)
    _folder(tmp_path / "src", 1)
    with pytest.raises(ValueError, match="share"):
        B.run(tmp_path / "src", tmp_path / "out", 1.5, teacher=_flat)


def test_blend_with_gnubg_zero_ply_moves_toward_it(tmp_path: Path) -> None:
    oracle = pytest.importorskip("gbot.train.oracle")
    pytest.importorskip("gnubg_nn")
    labels = _folder(tmp_path / "src", 1)
    B.run(tmp_path / "src", tmp_path / "out", 1.0, log=lambda m: None)
    with np.load(tmp_path / "out" / "label-00000.npz") as z:
        assert np.allclose(z["probs"], oracle.probabilities(z["boards"], 0), atol=1e-6)
        assert not np.allclose(z["probs"], labels[0])


def test_blend_with_another_folder_of_the_same_positions(tmp_path: Path) -> None:
    labels = _folder(tmp_path / "src", 2)
    other = _folder(tmp_path / "other", 2, seed=5)  # same boards, other labels
    assert B.run(tmp_path / "src", tmp_path / "out", 0.4, log=lambda m: None,
                 other=tmp_path / "other") == 2
    for i in range(2):
        with np.load(tmp_path / "out" / f"label-{i:05d}.npz") as z:
            assert np.allclose(z["probs"], 0.4 * other[i] + 0.6 * labels[i], atol=1e-7)


def test_blend_with_a_folder_of_other_positions_is_refused(tmp_path: Path) -> None:
    _folder(tmp_path / "src", 1)
    (tmp_path / "other").mkdir()
    np.savez(tmp_path / "other" / "label-00000.npz",
             boards=np.zeros((3, 26), np.int8), probs=np.zeros((3, 5), np.float32))
    with pytest.raises(ValueError, match="same positions"):
        B.run(tmp_path / "src", tmp_path / "out", 0.5, log=lambda m: None,
              other=tmp_path / "other")
    with pytest.raises(FileNotFoundError, match="same positions"):
        B.run(tmp_path / "src", tmp_path / "out2", 0.5, log=lambda m: None,
              other=tmp_path / "src" / "missing")
