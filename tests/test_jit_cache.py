"""The kernel cache is dropped when any core source changes (numba alone checks one file)."""

from __future__ import annotations

from pathlib import Path

from gbot.core.jit import STAMP_NAME, core_fingerprint, drop_stale_cache


def _fake_core(tmp_path: Path) -> Path:
    core = tmp_path / "core"
    cache = core / "__pycache__"
    cache.mkdir(parents=True)
    (core / "encode.py").write_text("N = 14\n")
    (core / "forward.py").write_text("from encode import N\n")
    return core


def test_cache_survives_while_sources_are_unchanged(tmp_path: Path) -> None:
    core = _fake_core(tmp_path)
    drop_stale_cache(core)
    kernel = core / "__pycache__" / "forward.kernel-10.py311.nbi"
    kernel.write_bytes(b"index")
    drop_stale_cache(core)
    assert kernel.exists()


def test_edit_to_one_module_drops_every_cached_kernel(tmp_path: Path) -> None:
    core = _fake_core(tmp_path)
    drop_stale_cache(core)
    before = core_fingerprint(core)
    cached = [core / "__pycache__" / n for n in ("forward.kernel-10.py311.nbi",
                                                 "forward.kernel-10.py311.1.nbc")]
    for f in cached:
        f.write_bytes(b"machine code")
    (core / "encode.py").write_text("N = 17\n")      # forward.py itself is untouched
    assert core_fingerprint(core) != before
    drop_stale_cache(core)
    assert not any(f.exists() for f in cached)
    assert (core / "__pycache__" / STAMP_NAME).read_text().strip() == core_fingerprint(core)
