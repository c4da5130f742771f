"""The one numba wrapper every kernel in :mod:`gbot.core` uses (cached, no Python fallback)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def jit(fn: F) -> F:
    """Compile ``fn`` in nopython mode with an on-disk cache."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy")(fn))


def jit_fast(fn: F) -> F:
    """:func:`jit` with fast-math (reassociation, fused multiply-add) for float hot loops whose
    results may differ in the last bits (the network forward pass)."""
    return cast(F, numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=True)(fn))
