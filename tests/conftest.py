"""Shared test helpers: where the reference material lives, and gnubg availability."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gnubg_harness import find_gnubg, run_script

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GBOT_SHARED", ROOT.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or skip the test when the reference material is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"reference material {p} not available")
    return p


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open() as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def load_script(name: str, module: str | None = None) -> Any:
    """``scripts/<name>.py`` imported as the module ``module`` (default ``name``), registered
    in ``sys.modules`` (its dataclasses and pickles need that), with ``scripts/`` importable
    for the helpers it imports."""
    import importlib.util
    import sys

    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location(module or name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module or name] = mod
    spec.loader.exec_module(mod)
    return mod


def gnubg_selfplay(folder: Path, games: int, seed: int) -> Path:
    """A small self-play folder of gnubg-nn 0-ply games (``gbot train selfplay``'s layout),
    or skip the test where gnubg-nn is not installed."""
    pytest.importorskip("gnubg_nn")
    from gbot.train import selfplay

    selfplay.run(folder, games=games, seed=seed, chunk_games=games, log=lambda m: None)
    return folder


def gnubg_binary() -> str | None:
    """Path of Debian's gnubg, if installed."""
    return find_gnubg()


def run_gnubg_script(exe: str, script: str, cases: Any, folder: Path) -> Any:
    """Run the Python ``script`` inside gnubg (``exe -t -q -p``) in ``folder``: it reads
    ``cases`` (JSON) from the file named by ``$GBOT_CASES`` and writes its answer (JSON) to
    ``$GBOT_OUT``; returns that answer."""
    return run_script(exe, script, cases, folder)[0]


@pytest.fixture
def without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing ``ray`` fails inside the test, as where the optional package is missing."""
    import builtins

    real = builtins.__import__

    def no_ray(name: str, *a: Any, **k: Any) -> Any:
        if name == "ray":
            raise ImportError("no ray")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_ray)
