"""The package layout: every old module path imports and is the very module object of its new
home (so ``from old import X`` and monkeypatching ``old.X`` act on the owner), and every name
that :mod:`gbot` exports still resolves."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import gbot

# old import path -> the module that owns the concept now
MOVED = {
    "gbot.ids": "gbot.notations.position_id",
    "gbot.matchid": "gbot.notations.match_id",
    "gbot.xgid": "gbot.notations.xgid",
    "gbot.moves": "gbot.notations.move_text",
    "gbot.matfile": "gbot.records.matfile",
    "gbot.sgf": "gbot.records.sgf",
    "gbot.sgf_read": "gbot.records.sgf_read",
    "gbot.matchnotes": "gbot.records.notes",
    "gbot.cli_analysis": "gbot.cli.analysis",
    "gbot.cli_fibs": "gbot.cli.fibs",
    "gbot.cli_logging": "gbot.cli.logs",
    "gbot.cli_play": "gbot.cli.play",
    "gbot.cli_tools": "gbot.cli.tools",
    "gbot.cli_tournament": "gbot.cli.tournament",
    "gbot.cli_web": "gbot.cli.web",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_path_is_the_new_module(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)
    assert sys.modules[old] is sys.modules[new]
    parent, _, leaf = old.rpartition(".")
    assert getattr(importlib.import_module(parent), leaf) is sys.modules[new]


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_path_in_a_fresh_interpreter(old: str, new: str) -> None:
    """Imported first (nothing else of gbot loaded by hand), the old path still gives the owner,
    and ``from old import name`` gives the owner's objects."""
    names = getattr(importlib.import_module(new), "__all__", [])
    code = (f"import {old}, {new}, sys; assert sys.modules[{old!r}] is {new}; "
            f"from {old} import *; import {new} as n; "
            f"assert all(globals()[k] is getattr(n, k) for k in {list(names)!r})")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_monkeypatching_the_old_path_patches_the_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    import gbot.notations.position_id as owner

    monkeypatch.setattr("gbot.ids.is_valid", lambda pid: "patched")
    assert owner.is_valid("x") == "patched"


def test_old_module_attributes_of_the_package() -> None:
    """``gbot.ids`` and its kin were attributes of the package after ``import gbot``."""
    for old, new in MOVED.items():
        if old.count(".") == 1:
            assert getattr(gbot, old.split(".")[1]) is importlib.import_module(new)
    with pytest.raises(AttributeError):
        _ = gbot.no_such_module


def test_every_exported_name_resolves() -> None:
    for name in gbot.__all__:
        assert getattr(gbot, name) is not None, name
    ns: dict[str, object] = {}
    exec("from gbot import *", ns)
    assert set(gbot.__all__) <= set(ns)


def test_console_script_target() -> None:
    """``gbot = "gbot.cli:main"`` (pyproject.toml) still names the click group, with every
    subcommand the old modules added."""
    import gbot.cli

    assert callable(gbot.cli.main)
    assert {"serve", "hint", "play", "tournament", "fibs", "web", "ubgi", "analyse",
            "train"} <= set(gbot.cli.main.commands)


def test_python_dash_m_gbot_cli() -> None:
    """``python -m gbot.cli`` (the tests' and scripts' way to start a server) still runs."""
    out = subprocess.run([sys.executable, "-m", "gbot.cli", "--version"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert out.strip() == f"gbot, version {gbot.__version__}"
