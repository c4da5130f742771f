"""The package layout: the folders are the layers, the old module paths are gone, and every
name that :mod:`gbot` exports resolves."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

import gbot

PACKAGE = Path(gbot.__file__).resolve().parent

LAYERS = ("core", "game", "records", "eval", "cube", "engine", "analysis", "tournament",
          "adapters", "train", "testing", "cli")
"""The layer folders under ``gbot/`` (docs/architecture.md draws their order)."""

# module paths of earlier layouts: none may import again
OLD_PATHS = ("gbot.ids", "gbot.matchid", "gbot.xgid", "gbot.moves", "gbot.matfile", "gbot.sgf",
             "gbot.sgf_read", "gbot.matchnotes", "gbot.cli_analysis", "gbot.cli_fibs",
             "gbot.cli_logging", "gbot.cli_play", "gbot.cli_tools", "gbot.cli_tournament",
             "gbot.cli_web", "gbot.core.cubemodel", "gbot.position", "gbot.match",
             "gbot.referee", "gbot.variations", "gbot.boardtext", "gbot.notations",
             "gbot.hints", "gbot.fastreply", "gbot.warmup", "gbot.rollout", "gbot.rollout_cube",
             "gbot.server", "gbot.ubgi", "gbot.web", "gbot.protocols")


def test_top_level_holds_only_the_layers() -> None:
    """Besides the layer folders, ``gbot/`` holds the package's face (``__init__``), the one
    exception root (``errors``), the version, and data folders (no code)."""
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__", "errors", "version"]
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(LAYERS)
    for data in ("weights", "data"):
        assert not list((PACKAGE / data).glob("*.py"))


@pytest.mark.parametrize("old", OLD_PATHS)
def test_old_paths_are_gone(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_no_module_attribute_hook() -> None:
    """No old-name ``__getattr__`` on the package: an unknown attribute is an AttributeError."""
    assert "__getattr__" not in vars(gbot)
    with pytest.raises(AttributeError):
        _ = gbot.ids  # type: ignore[attr-defined]


def test_every_exported_name_resolves() -> None:
    for name in gbot.__all__:
        assert getattr(gbot, name) is not None, name
    ns: dict[str, object] = {}
    exec("from gbot import *", ns)
    assert set(gbot.__all__) <= set(ns)


def test_the_version_has_one_home() -> None:
    """``gbot.__version__`` is :mod:`gbot.version`'s, and the installed metadata agrees."""
    from gbot.version import __version__

    assert gbot.__version__ == __version__
    assert importlib.metadata.version("gbot") == __version__


def test_console_script_target() -> None:
    """``gbot = "gbot.cli:main"`` (pyproject.toml) names the click group with every
    subcommand."""
    import gbot.cli

    assert callable(gbot.cli.main)
    assert {"serve", "hint", "play", "tournament", "fibs", "web", "ubgi", "analyse",
            "train"} <= set(gbot.cli.main.commands)


def test_python_dash_m_gbot_cli() -> None:
    """``python -m gbot.cli`` (the tests' and scripts' way to start a server) runs."""
    out = subprocess.run([sys.executable, "-m", "gbot.cli", "--version"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert out.strip() == f"gbot, version {gbot.__version__}"
