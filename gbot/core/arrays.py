"""The array types the kernels of :mod:`gbot.core` take, named once, and the two casts that
let a kernel call another with the argument types the other is compiled for.

numba compiles a kernel once for every distinct tuple of argument types it is called with: a
read-only board from Python and a writable one from another kernel, or a constant
(``Literal[bool](True)``) in one caller and a variable elsewhere, are two compiles of the same
code, seconds each on a fresh install. Kernels called from Python take read-only boards
(:func:`frozen`); a kernel passes its writable arrays on through :func:`read_only` and its
constant flags through :func:`nonliteral`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import types
from numba.core import imputils
from numba.extending import intrinsic

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


def _read_only(typingctx: Any, arr: Any) -> Any:
    """Inside a kernel: ``arr`` typed as a read-only array (the same data, no copy)."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr.copy(readonly=True)(arr)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        borrowed: Any = imputils.impl_ret_borrowed
        return borrowed(context, builder, signature.return_type, args[0])
    return sig, codegen


def _nonliteral(typingctx: Any, value: Any) -> Any:
    """Inside a kernel: ``value`` typed as a variable of its type (``bool``, ``int64``), not
    as the constant it is, so a callee given it compiles for the variable's type."""
    unliteral: Any = types.unliteral
    plain = unliteral(value)
    sig = plain(value)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return context.cast(builder, args[0], signature.args[0], signature.return_type)
    return sig, codegen


read_only = cast(Callable[[Any], Any], intrinsic(_read_only))
""":func:`_read_only` as kernels call it: ``read_only(arr)``."""
nonliteral = cast(Callable[[Any], Any], intrinsic(_nonliteral))
""":func:`_nonliteral` as kernels call it: ``nonliteral(value)``."""
