"""Calls of a compiled kernel that skip numba's per-call type resolution.

A numba dispatcher works out the type of every argument on each call before it picks the
compiled version; with thirty or more array arguments that costs more than a small kernel's
work (about 4 us for 33 arrays, against under 2 us for the compiled version's own argument
conversion). :func:`entry_point` hands out the compiled version itself for arguments of
exactly the given types, and :class:`Bound` keeps it with the arguments that stay the same from
call to call (several :class:`Bound` of one kernel whose fixed arguments have the same types
may share the compiled version: ``fn``). The caller must then pass arguments of the same numba
types every time (the compiled code does not check them): it is meant for kernels whose
varying arguments have types fixed by construction (a :class:`gbot.Position`'s read-only
``int8[26]`` board, Python ints and bools).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba


def entry_point(dispatcher: Any, args: tuple[Any, ...]) -> Callable[..., Any] | None:
    """The compiled version of ``dispatcher`` for the exact numba types of ``args``, or None
    when there is none yet (``dispatcher`` has not been called with such arguments) or the
    dispatcher would convert some argument instead (the caller keeps to the dispatcher)."""
    sig = tuple(numba.typeof(a) for a in args)  # type: ignore[no-untyped-call]
    found = dispatcher.overloads.get(sig)
    if found is None:
        return None
    fn: Callable[..., Any] = found.entry_point
    return fn


class Bound:
    """A kernel with its trailing arguments fixed: ``bound(*head)`` calls
    ``kernel(*head, *tail)``; the first call goes through the dispatcher (which compiles or
    loads the kernel), later ones through the compiled version for the types of that first
    call's arguments (through the dispatcher when there is none). ``fn``: another
    :class:`Bound`'s :attr:`compiled` for the same kernel and arguments of the same types,
    which saves the first call's type resolution (about a millisecond for a few dozen arrays);
    the caller vouches for the types."""

    __slots__ = ("kernel", "tail", "_fn")

    def __init__(self, kernel: Any, tail: tuple[Any, ...],
                 fn: Callable[..., Any] | None = None) -> None:
        self.kernel = kernel
        self.tail = tail
        self._fn: Callable[..., Any] | None = fn

    @property
    def compiled(self) -> Callable[..., Any] | None:
        """What later calls call (the compiled version, or the dispatcher where there is
        none); None before the first call."""
        return self._fn

    def __call__(self, *head: Any) -> Any:
        fn = self._fn
        if fn is not None:
            return fn(*head, *self.tail)
        args = (*head, *self.tail)
        out = self.kernel(*args)
        self._fn = entry_point(self.kernel, args) or self.kernel
        return out
