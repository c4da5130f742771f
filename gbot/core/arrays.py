"""The array types the kernels of :mod:`gbot.core` take, named once (annotations only)."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]

_T = TypeVar("_T", bound=np.generic)


def frozen(a: npt.NDArray[_T]) -> npt.NDArray[_T]:
    """A read-only view of ``a``: kernels called from Python take read-only boards, so each
    compiles for one array type (numba compiles a writable and a read-only array apart)."""
    view = a.view()
    view.setflags(write=False)
    return view
