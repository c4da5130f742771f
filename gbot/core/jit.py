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

CORE = Path(__file__).resolve().parent
"""The folder of :mod:`gbot.core`'s sources."""
STAMP_NAME = "gbot-core.fingerprint"
"""The file in the cache folder that holds the fingerprint the cached kernels belong to."""


def core_fingerprint(core: Path = CORE) -> str:
    """A digest of every source file of the folder ``core`` (names and contents)."""
    h = hashlib.sha256()
    for path in sorted(core.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def drop_stale_cache(core: Path = CORE) -> None:
    """Delete the cached kernels in ``core/__pycache__`` compiled from other versions of the
    sources in ``core`` (and note the current fingerprint there)."""
    cache = core / "__pycache__"
    stamp_file = cache / STAMP_NAME
    try:
        stamp = core_fingerprint(core)
        if stamp_file.is_file() and stamp_file.read_text(encoding="ascii").strip() == stamp:
            return
        cache.mkdir(exist_ok=True)
        for pattern in ("*.nbi", "*.nbc"):
            for f in cache.glob(pattern):
                f.unlink(missing_ok=True)
        tmp = stamp_file.with_name(f"{STAMP_NAME}.{os.getpid()}")
        tmp.write_text(stamp + "\n", encoding="ascii")
        tmp.replace(stamp_file)
    except OSError:
        pass   # a read-only install: numba's own per-file check is all there is


drop_stale_cache()


_NRT_ON: dict[str, Any] = {"_nrt": True}
_NRT_OFF: dict[str, Any] = {"_nrt": False}
"""numba's (undocumented, long-standing) switch of its reference-counting runtime."""


def jit(fn: F) -> F:
    """Compile ``fn`` in nopython mode with an on-disk cache.

    Reference counting is asked for explicitly: numba otherwise takes the setting of the
    first caller that compiles a kernel, and a :func:`jit_bare` caller would leave a kernel
    that creates arrays without it."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy", **_NRT_ON)(fn))


def jit_fast(fn: F) -> F:
    """:func:`jit` with fast-math (reassociation, fused multiply-add) for float hot loops whose
    results may differ in the last bits (the network forward pass)."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=True,
                              **_NRT_ON)(fn))


def jit_bare(fn: F) -> F:
    """:func:`jit` without numba's reference counting (its runtime, NRT, switched off for
    this kernel): for small, hot kernels that allocate nothing, where the atomic
    increment/decrement of every array argument and view (an out-of-line call each) costs
    more than the work. Such a kernel may not create arrays (``np.empty``, ``copy``); views
    (slices, ``reshape``, ``view``) and calls of :func:`jit` kernels are fine, and any
    kernel may call it. The kernels it calls that are neither (plain ``numba.njit``, the
    inlined helpers) are compiled without reference counting too."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy", **_NRT_OFF)(fn))
