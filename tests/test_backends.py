"""The shared backends (this process, worker processes, Ray) and the training stages on them:
each backend gives every task's own result, a failing task raises, and a stage's output is the
same whatever backend made it."""

from __future__ import annotations

import operator
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gbot.analysis.backends import as_finished, make_backend, map_ordered
from gbot.errors import BackendError

pytest.importorskip("gnubg_nn")


def _chunks(folder: Path, pattern: str) -> list[dict[str, np.ndarray]]:
    out = []
    for path in sorted(folder.glob(pattern)):
        with np.load(path) as z:
            out.append({k: z[k] for k in z.files})
    return out


def _same(a: list[dict[str, np.ndarray]], b: list[dict[str, np.ndarray]]) -> bool:
    return len(a) == len(b) and all(
        x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)
        for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name,workers", [("serial", None), ("process", 2)])
def test_each_task_gets_its_own_result_in_order(name: str, workers: int | None) -> None:
    tasks = list(range(-20, 20))
    pool = make_backend(name, operator.neg, workers)
    try:
        assert map_ordered(pool, tasks) == [-t for t in tasks]
        seen = dict(as_finished(pool, iter(tasks)))
        assert seen == {t: -t for t in tasks}
    finally:
        pool.close()


def _search_threads(_: int) -> int:
    from gbot.eval.evaluator import default_threads
    return default_threads()


def test_workers_search_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker process or Ray task already holds a core: its searches do not split."""
    monkeypatch.delenv("GBOT_THREADS", raising=False)
    pool = make_backend("process", _search_threads, 2)
    try:
        assert map_ordered(pool, [0, 1, 2]) == [1, 1, 1]
    finally:
        pool.close()
    pytest.importorskip("ray")
    pool = make_backend("ray", os.getenv, 2)      # Ray tasks import no test module
    try:
        assert map_ordered(pool, ["GBOT_THREADS"]) == ["1"]
    finally:
        pool.close()


def test_a_failing_task_raises_its_error() -> None:
    pool = make_backend("process", int, 2)
    try:
        with pytest.raises(ValueError, match="'x'"):
            map_ordered(pool, ["1", "2", "x", "4"])
    finally:
        pool.close(cancel=True)


def test_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="unknown backend 'cloud'"):
        make_backend("cloud", abs)


@pytest.mark.usefixtures("without_ray")
def test_missing_ray_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="pip install"):
        make_backend("ray", abs)


def test_selfplay_in_worker_processes_writes_the_serial_chunks(tmp_path: Path) -> None:
    from gbot.train import selfplay as S

    S.run(tmp_path / "one", games=5, seed=4, chunk_games=2, log=lambda m: None)
    S.run(tmp_path / "two", games=5, seed=4, chunk_games=2, log=lambda m: None, workers=2)
    one = _chunks(tmp_path / "one", "chunk-*.npz")
    assert len(one) == 3 and _same(one, _chunks(tmp_path / "two", "chunk-*.npz"))
    # a missing chunk in the middle is played again, the others are kept
    (tmp_path / "two" / "chunk-00001.npz").unlink()
    kept = (tmp_path / "two" / "chunk-00002.npz").stat().st_mtime_ns
    S.run(tmp_path / "two", games=5, seed=4, chunk_games=2, log=lambda m: None, workers=2)
    assert (tmp_path / "two" / "chunk-00002.npz").stat().st_mtime_ns == kept
    assert _same(one, _chunks(tmp_path / "two", "chunk-*.npz"))


def test_label_stage_on_workers_gives_the_serial_labels(tmp_path: Path) -> None:
    from gbot.train import selfplay as S
    from gbot.train.cli import cli

    S.run(tmp_path / "sp", games=8, seed=3, chunk_games=8, log=lambda m: None)
    for backend, workers in (("serial", "1"), ("process", "2")):
        res = CliRunner().invoke(cli, ["label", "--src", str(tmp_path / "sp"), "--out",
                                       str(tmp_path / backend), "--plies", "0", "--limit",
                                       "12000", "--backend", backend, "--workers", workers])
        assert res.exit_code == 0, res.output
    serial = _chunks(tmp_path / "serial", "label-*.npz")
    assert len(serial) >= 2 and _same(serial, _chunks(tmp_path / "process", "label-*.npz"))


@pytest.mark.usefixtures("without_ray")
def test_a_stage_refuses_ray_in_one_line_when_ray_is_missing(tmp_path: Path) -> None:
    from gbot.train.cli import cli

    res = CliRunner().invoke(cli, ["selfplay", "--out", str(tmp_path / "sp"), "--games", "2",
                                   "--backend", "ray"])
    assert res.exit_code == 1
    assert res.output.strip().splitlines() == [
        "Error: the ray backend needs Ray: pip install 'gbot[ray]' (or pip install ray)"]
    assert not list((tmp_path / "sp").glob("chunk-*.npz"))


def test_stages_on_ray_give_the_serial_results(tmp_path: Path) -> None:
    """Self-play chunks, teacher labels and rollout labels made as Ray tasks (a local
    instance) are those made in this process."""
    pytest.importorskip("ray")
    from gbot.train import rollout_label as R
    from gbot.train import selfplay as S
    from gbot.train import teacher as T
    from gbot.train.label import prepare

    S.run(tmp_path / "one", games=3, seed=8, chunk_games=1, log=lambda m: None)
    S.run(tmp_path / "ray", games=3, seed=8, chunk_games=1, log=lambda m: None, workers=2,
          backend="ray")
    assert _same(_chunks(tmp_path / "one", "chunk-*.npz"),
                 _chunks(tmp_path / "ray", "chunk-*.npz"))
    boards, _ = S.load(tmp_path / "one")
    for backend in ("serial", "ray"):
        out = tmp_path / f"t-{backend}"
        prepare(out, boards, 30, 1)
        T.run(out, "gnubg-nn", 0, workers=2, chunk=10, log=lambda m: None, backend=backend)
        r = tmp_path / f"r-{backend}"
        np.savez(tmp_path / "src.npz", boards=boards[:6])
        R.prepare(tmp_path / "src.npz", r, 6, 1)
        R.run(r, 4, 0, 1, 2, log=lambda m: None, backend=backend)
    assert _same(_chunks(tmp_path / "t-serial", "label-*.npz"),
                 _chunks(tmp_path / "t-ray", "label-*.npz"))
    assert _same(_chunks(tmp_path / "r-serial", "part-*.npz"),
                 _chunks(tmp_path / "r-ray", "part-*.npz"))
