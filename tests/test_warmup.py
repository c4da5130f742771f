"""Start-up warm-up: questions at 1 ply at most, and a message while compiling."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gbot.engine import warmup
from gbot.engine.engine import Engine


def test_deep_engine_warms_through_a_one_ply_copy() -> None:
    deep = Engine(ply=4)
    twin = warmup.warm_ply(deep)
    assert twin is not deep and twin.ply == 1 and deep.ply == 4
    assert twin.evaluator is deep.evaluator and twin.rules is deep.rules
    shallow = Engine(ply=1, cube_ply=1)
    assert warmup.warm_ply(shallow) is shallow


@pytest.mark.parametrize(("ply", "cube_ply", "warm"), [
    (0, None, (0, 1)), (2, None, (1, 1)), (3, None, (1, 1)), (4, None, (1, 1)),
    (4, 0, (1, 0)), (0, 0, (0, 0)), (0, 4, (0, 1))])
def test_warm_up_cube_look_ahead_is_one_ply_at_most(ply: int, cube_ply: int | None,
                                                    warm: tuple[int, int]) -> None:
    # a cube question at --ply 4 looked 4 plies ahead (minutes at start-up; issue 14)
    engine = Engine(ply=ply, cube_ply=cube_ply)
    twin = warmup.warm_ply(engine)
    assert (twin.ply, twin.cube_ply) == warm
    assert (engine.ply, engine.cube_ply) == (ply, cube_ply if cube_ply is not None
                                             else max(ply, 2))
    # the fast path (0-ply engines) keeps its kind: cube look-ahead on or off
    assert (twin.cube_ply > 0) == (engine.cube_ply > 0)


def test_cache_index_older_than_source_or_missing_is_cold(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setattr(warmup, "CORE", tmp_path)
    (tmp_path / "__pycache__").mkdir()
    src = tmp_path / "movegen.py"
    src.write_text("")
    assert not warmup.kernels_cached(("movegen",))
    index = tmp_path / "__pycache__" / "movegen.generate-1.py311.nbi"
    index.write_text("")
    os.utime(src, (1_000, 1_000))
    assert warmup.kernels_cached(("movegen",))
    stale = tmp_path / "__pycache__" / "movegen.gone-9.py311.nbi"
    stale.write_text("")
    os.utime(stale, (10, 10))
    assert warmup.kernels_cached(("movegen",))       # a left-over index does not count
    os.utime(index, (10, 10))
    assert not warmup.kernels_cached(("movegen",))
    assert warmup.kernels_cached(("not_a_module",))


def _compile_once() -> None:
    """Compile a kernel no cache holds: numba reports it as a compile."""
    import numba

    @numba.njit(cache=False)
    def fresh(x: int) -> int:
        return x + 1

    assert fresh(1) == 2


@pytest.mark.parametrize("cold", [True, False])
def test_says_what_compiles_only_when_a_kernel_compiles(cold: bool) -> None:
    said: list[str] = []
    asked: list[tuple[int, int]] = []

    def warm(e: Engine) -> None:
        asked.append((e.ply, e.cube_ply))
        if cold:
            _compile_once()

    spent = warmup.warm_engine(Engine(ply=3), warm, said.append)
    assert asked == [(1, 1)] and spent >= 0.0
    if cold:
        assert len(said) == 2 and "compiling" in said[0] and "ready in" in said[1]
    else:
        assert said == []


def test_serve_warm_up_loads_the_engines_resignation_kernels() -> None:
    # a resignation question left to the engine's own path compiled these on first use (1.9 s
    # inside one round trip of bench_server): the server's warm-up loads them before play
    import subprocess
    import sys

    code = ("from gbot.engine.engine import Engine\n"
            "from gbot.adapters.gnubg_external import warm\n"
            "from gbot.core import cubemath as C\n"
            "before = len(C.resignation_level.signatures) + len(C.resignation_points.signatures)\n"
            "warm(Engine())\n"
            "print(before, len(C.resignation_level.signatures),"
            " len(C.resignation_points.signatures))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, check=True).stdout.split()
    assert out[0] == "0" and int(out[1]) >= 1 and int(out[2]) >= 1


def test_gbot_warmup_loads_every_group_and_says_so() -> None:
    """``gbot warmup`` runs each group of kernels once and reports each group's time; after
    it the kernel caches are complete (no notice before the next command)."""
    from click.testing import CliRunner

    from gbot.cli import main
    from gbot.cli.warmup import all_cached, steps

    result = CliRunner().invoke(main, ["warmup", "-q"])
    assert result.exit_code == 0, result.output
    for name, _ in steps():
        assert name in result.output
    assert "kernels ready in" in result.output
    assert all_cached()


def test_a_command_says_so_when_a_kernel_compiles_and_only_then(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the notice used to follow the cache files: printed by every command until every kernel
    # module had a cache (a warm hint answering in 1 s said "compiling"), and by none when
    # the cache lay elsewhere (NUMBA_CACHE_DIR)
    from click.testing import CliRunner
    from numba.core import event

    import gbot.cli.tools as tools
    from gbot.cli import main
    from gbot.cli.warmup import COMPILE_NOTICE

    listeners = len(event._registered["numba:compile"])
    real = tools.read_position

    def compiling(*args: object, **kwargs: object) -> object:
        _compile_once()
        _compile_once()
        return real(*args, **kwargs)

    monkeypatch.setattr(tools, "read_position", compiling)
    out = CliRunner().invoke(main, ["show", "4HPwATDgc/ABMA"])
    assert out.exit_code == 0 and out.stderr.count(COMPILE_NOTICE) == 1
    monkeypatch.setattr(tools, "read_position", real)
    warm = CliRunner().invoke(main, ["show", "4HPwATDgc/ABMA"])
    assert warm.exit_code == 0 and "compiling" not in warm.stderr
    assert "Position ID 4HPwATDgc/ABMA" in warm.stdout
    assert len(event._registered["numba:compile"]) == listeners


_COMPILES = """
import json, sys
sys.path.insert(0, sys.argv[1])
from gbot.cli.warmup import steps
from profile_compile import needless, specialisations
for _name, call in steps():
    call()
print(json.dumps({name: [len(sigs), *needless(sigs)]
                  for name, sigs in specialisations(least=1).items()}))
"""

CONSTANT_SPECIALISED = {
    f"gbot.core.{name}" for name in (
        # small helpers of the feature encoder, the forward pass's first layer, the play
        # hashes and the cube model, each called with constants (a side, an offset, a flag)
        # that numba folds into their code on hot paths; a fraction of a second each
        "encode._contact_from", "encode._lead", "encode._low", "encode._moment2",
        "encode._open_moves", "encode._write_side", "forward._on_board", "forward._put",
        "forward._slot", "forward._slot_change", "dedup._word", "bestplay._gather",
        "bestplay._scatter", "cubemath._at", "cubemath._clip", "cubemath._dead",
        "cubemath._envelope", "cubemath._hull", "cubemath._outcome")}
"""Kernels allowed a compile per constant argument."""


def test_no_kernel_compiles_twice_for_the_same_types(tmp_path: Path) -> None:
    """Every kernel the warm-up reaches, compiled from an empty cache, compiles once for
    each argument type it really takes: no second compile for a read-only board where a
    writable one was compiled (or the reverse, or another memory layout of the same array),
    and none for a constant where a variable of its type was compiled, outside
    :data:`CONSTANT_SPECIALISED`. Each such compile cost a fresh install seconds (the
    warm-up took 105 s of CPU with them, 85 s without)."""
    import json
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    scripts = str(Path(__file__).resolve().parents[1] / "scripts")
    out = subprocess.run([sys.executable, "-c", _COMPILES, scripts], capture_output=True,
                         text=True, timeout=1800, check=True, env=env).stdout
    counts = json.loads(out)
    assert len(counts) > 60 and sum(n for n, _, _ in counts.values()) > 60
    array_twice = {name: n for name, (n, _, array) in counts.items() if array}
    constant_twice = {name: n for name, (n, constant, _) in counts.items()
                      if constant and name not in CONSTANT_SPECIALISED}
    assert array_twice == {}
    assert constant_twice == {}
