#!/usr/bin/env python3
"""Where a fresh install's compile time goes: every kernel compiled from an empty numba cache,
its own compile time (CPU seconds, without the kernels it calls) and its specialisations.

numba compiles a kernel once per distinct argument types: a read-only board here and a writable
one there, or a constant (``Literal[int](4)``) in one caller and a variable in another, is a
second compile of the same code. The report lists the kernels by compile time, then every
kernel of gbot compiled for more than one type, then the total beside the 60 s budget of a
fresh install's first command (docs/testing.md). The cache goes to a temporary folder, so the
real one is neither used nor changed.

    python scripts/profile_compile.py [--top 30] [--json f]          # gbot warmup's steps
    python scripts/profile_compile.py -- rollout 4HPwATDgc/ABMA 31     # one CLI command
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from typing import Any

if __name__ == "__main__":       # an empty cache of its own, set before numba loads
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="gbot-numba-")

from numba.core import event  # noqa: E402

BUDGET_S = 60.0


class CompileClock(event.Listener):
    """Listens to numba's compile events: per kernel its own CPU seconds and compile count."""

    def __init__(self) -> None:
        super().__init__()
        self.own: collections.Counter[str] = collections.Counter()
        self.count: collections.Counter[str] = collections.Counter()
        self._stack: list[list[Any]] = []

    @staticmethod
    def _name(event: Any) -> str:
        fn = event.data["dispatcher"].py_func
        return f"{fn.__module__}.{fn.__qualname__}"

    def on_start(self, event: Any) -> None:
        self._stack.append([self._name(event), time.process_time(), 0.0])

    def on_end(self, event: Any) -> None:
        name, t0, inner = self._stack.pop()
        spent = time.process_time() - t0
        self.own[name] += spent - inner
        self.count[name] += 1
        if self._stack:
            self._stack[-1][2] += spent


def specialisations(least: int = 2) -> dict[str, list[Any]]:
    """gbot's kernels compiled for at least ``least`` argument types, with those types."""
    import gc

    from numba.core.registry import CPUDispatcher

    out = {}
    for obj in gc.get_objects():
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__.startswith("gbot."):
            if len(obj.signatures) >= least:
                out[f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"] = obj.signatures
    return dict(sorted(out.items()))


def needless(signatures: list[Any]) -> tuple[int, int]:
    """Of a kernel's compiled ``signatures``: how many compiled the same code again for a
    constant where another caller gave a variable of its type, and how many for another
    read-only flag or memory layout of the same arrays."""
    from numba import types

    def variable(t: Any) -> Any:
        return types.unliteral(t)

    def plain_array(t: Any) -> Any:
        return t.copy(readonly=False, layout="C") if isinstance(t, types.Array) else t

    n = len(signatures)
    return (n - len({tuple(variable(t) for t in sig) for sig in signatures}),
            n - len({tuple(plain_array(t) for t in sig) for sig in signatures}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=30, help="kernels listed by compile time")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("command", nargs="*", help="a gbot command line (after --); default: "
                    "gbot warmup's steps")
    args = ap.parse_args()
    clock = CompileClock()
    event.register("numba:compile", clock)
    t0 = time.process_time()
    if args.command:
        from gbot.cli import main as gbot_main
        try:
            gbot_main(args.command, standalone_mode=False)
        except SystemExit:
            pass
    else:
        from gbot.cli.warmup import steps
        for name, call in steps():
            s = time.process_time()
            call()
            print(f"{name}: {time.process_time() - s:.1f} s", file=sys.stderr)
    total = time.process_time() - t0
    compiled = sum(clock.own.values())
    print(f"\n{'own s':>7}  count  kernel")
    for name, spent in clock.own.most_common(args.top):
        print(f"{spent:7.2f}  {clock.count[name]:5d}  {name}")
    twice = specialisations()
    print(f"\nkernels compiled for more than one type: {len(twice)} (needless compiles: "
          "for a constant / for another read-only flag or layout)")
    for name, sigs in twice.items():
        constant, array = needless(sigs)
        print(f"  {name}  ({constant} / {array})")
        for sig in sigs:
            print(f"      {str(sig)[:160]}")
    print(f"\nCPU {total:.1f} s in all, {compiled:.1f} s of it compiling "
          f"(budget of a fresh install's first command: {BUDGET_S:.0f} s)")
    if args.json:
        import json
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"cpu_s": total, "compile_s": compiled, "own_s": dict(clock.own),
                       "count": dict(clock.count),
                       "specialisations": {k: [str(v) for v in sigs]
                                           for k, sigs in twice.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
