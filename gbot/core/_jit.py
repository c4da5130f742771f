"""The one numba wrapper every kernel in :mod:`gbot.core` uses (cached, no Python fallback).

numba's on-disk cache keys each kernel on its own source file only, but kernels inline
constants and other kernels from sibling modules: after an edit to one core module the cached
machine code of the others could be stale. So the cache is tied to a fingerprint of every core
source: when any of them changes, the cached kernels are dropped once and recompiled.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])

_CORE = Path(__file__).resolve().parent
_CACHE = _CORE / "__pycache__"
_STAMP = _CACHE / "gbot-core.fingerprint"


def core_fingerprint() -> str:
    """A digest of every source file of :mod:`gbot.core` (names and contents)."""
    h = hashlib.sha256()
    for path in sorted(_CORE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _drop_stale_cache() -> None:
    """Delete cached kernels compiled from other versions of the core sources."""
    try:
        stamp = core_fingerprint()
        if _STAMP.is_file() and _STAMP.read_text(encoding="ascii").strip() == stamp:
            return
        _CACHE.mkdir(exist_ok=True)
        for pattern in ("*.nbi", "*.nbc"):
            for f in _CACHE.glob(pattern):
                f.unlink(missing_ok=True)
        tmp = _STAMP.with_name(f"{_STAMP.name}.{os.getpid()}")
        tmp.write_text(stamp + "\n", encoding="ascii")
        tmp.replace(_STAMP)
    except OSError:
        pass   # a read-only install: numba's own per-file check is all there is


_drop_stale_cache()


def jit(fn: F) -> F:
    """Compile ``fn`` in nopython mode with an on-disk cache."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy")(fn))


def jit_fast(fn: F) -> F:
    """:func:`jit` with fast-math (reassociation, fused multiply-add) for float hot loops whose
    results may differ in the last bits (the network forward pass)."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)(fn))
