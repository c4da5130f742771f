"""The kernel cache is dropped when any core source changes (numba alone checks one file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbot.core import _jit


def _fake_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    core = tmp_path / "core"
    cache = core / "__pycache__"
    cache.mkdir(parents=True)
    (core / "encode.py").write_text("N = 14\n")
    (core / "forward.py").write_text("from encode import N\n")
    monkeypatch.setattr(_jit, "_CORE", core)
    monkeypatch.setattr(_jit, "_CACHE", cache)
    monkeypatch.setattr(_jit, "_STAMP", cache / "gbot-core.fingerprint")
    return core


def test_cache_survives_while_sources_are_unchanged(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    core = _fake_core(tmp_path, monkeypatch)
    _jit._drop_stale_cache()
    kernel = core / "__pycache__" / "forward.kernel-10.py311.nbi"
    kernel.write_bytes(b"index")
    _jit._drop_stale_cache()
    assert kernel.exists()


def test_edit_to_one_module_drops_every_cached_kernel(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    core = _fake_core(tmp_path, monkeypatch)
    _jit._drop_stale_cache()
    before = _jit.core_fingerprint()
    cached = [core / "__pycache__" / n for n in ("forward.kernel-10.py311.nbi",
                                                 "forward.kernel-10.py311.1.nbc")]
    for f in cached:
        f.write_bytes(b"machine code")
    (core / "encode.py").write_text("N = 17\n")      # forward.py itself is untouched
    assert _jit.core_fingerprint() != before
    _jit._drop_stale_cache()
    assert not any(f.exists() for f in cached)
    assert _jit._STAMP.read_text().strip() == _jit.core_fingerprint()
