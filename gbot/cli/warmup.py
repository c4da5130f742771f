"""``gbot warmup``: compile (or load) every numba kernel ahead of use, with progress, and the
one-line notice other commands print on stderr when a kernel compiles.

numba compiles a kernel on its first call and caches it in ``gbot/core/__pycache__``; a fresh
install therefore spends minutes in its first command, which says so on stderr when its first
kernel starts to compile (numba reports compiles only on cache misses). ``scripts/run`` and
``scripts/test`` run ``gbot warmup`` after set-up, so the commands a user types next answer at
once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import click
from tqdm import tqdm

from gbot.engine.warmup import kernels_cached

__all__ = ["ALL_KERNELS", "COMPILE_NOTICE", "all_cached", "steps", "warmup_command"]

COMPILE_NOTICE = ("gbot: compiling numba kernels on first use after install or update (minutes "
                  "on a busy machine; 'gbot warmup' compiles them all ahead, with progress)")
"""What a command prints on stderr when its first kernel compiles."""

ALL_KERNELS = ("movegen", "forward", "expand", "bestplay", "dedup", "answer", "oneply",
               "cubetree", "cubemath", "encode", "bearoff", "rollout", "facts", "notation",
               "boardline", "classify")
"""The kernel modules of :mod:`gbot.core` whose cache says whether a run will compile."""


def steps() -> list[tuple[str, Callable[[], object]]]:
    """The warm-up's steps, in order: a name and a call that loads that group of kernels."""
    from gbot.adapters.gnubg_external import warm as warm_answers
    from gbot.analysis.rollout import Rollout, RolloutSettings
    from gbot.core import movegen
    from gbot.engine.engine import Engine
    from gbot.eval.evaluator import Evaluator
    from gbot.game.match import MatchState
    from gbot.game.position import Position

    start = Position.initial()
    bear_off = Position.from_gnubg([2, 2, 1] + [0] * 22, [1, 1, 2] + [0] * 22)
    money, match = MatchState(), MatchState(match_length=5)

    def moves() -> None:
        movegen.warm()
        start.legal_plays((3, 1))

    def rollouts() -> None:
        for ply in (0, 1):
            Rollout(RolloutSettings(trials=2, checker_ply=ply, seed=1)).position(start, money)

    return [
        ("move generation", moves),
        ("networks, 0-ply play", lambda: Engine().choose_play(start, (3, 1))),
        ("1- and 2-ply search", lambda: (Engine(ply=1).choose_play(start, (6, 4)),
                                         Evaluator().evaluate(bear_off.board, 2))),
        ("cube decisions", lambda: (Engine(cube_ply=1).cube_action(start, money),
                                    Engine(cube_ply=0).cube_action(start, match),
                                    Engine().equity(start, match, 0, cubeful=False))),
        ("gnubg's one-call answers", lambda: warm_answers(Engine())),
        ("rollouts", rollouts),
    ]


def all_cached() -> bool:
    """Whether every kernel module has a cache newer than its source (False after install or
    an update until ``gbot warmup`` or enough commands have run)."""
    return kernels_cached(ALL_KERNELS)


@click.command(name="warmup")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar; only the final line.")
def warmup_command(quiet: bool) -> None:
    """Compile (or load from the cache) every kernel gbot uses, so later commands answer
    at once; says how long each group took."""
    t0 = time.perf_counter()
    todo = steps()
    bar = tqdm(todo, unit="step", file=sys.stderr, disable=quiet,
               bar_format="gbot warmup {n_fmt}/{total_fmt} {bar:20} {elapsed}  {desc}")
    timings = []
    for name, call in bar:
        bar.set_description_str(name)
        s = time.perf_counter()
        call()
        timings.append(f"{name} {time.perf_counter() - s:.1f} s")
    bar.close()
    click.echo(f"kernels ready in {time.perf_counter() - t0:.1f} s ({'; '.join(timings)})",
               err=True)
