"""The rule switches of :mod:`gbot.cli.rules`: ``gbot serve`` and ``gbot web`` show the same
six options with the same help, and what is typed reaches the engine's or the service's
:class:`gbot.game.match.Rules` (the servers themselves replaced by fakes)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gbot.cli import main
from gbot.game.match import Rules

RULE_OPTIONS = ("--jacoby / --no-jacoby", "--beavers / --no-beavers", "--cube-cap",
                "--no-cube", "--end-mode", "--caucasian")

SWITCHES = ["--no-jacoby", "--no-beavers", "--cube-cap", "16", "--end-mode", "gammons",
            "--caucasian"]
EXPECTED = Rules(cube_enabled=True, cube_cap=16, end_mode="gammons", jacoby=False,
                 beavers=False, caucasian=True)
GNUBG_DEFAULTS = Rules(jacoby=True, beavers=True)
"""What no switch gives: money games with Jacoby and beavers, as gnubg plays them."""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), terminal_width=200)


def _option_help(text: str) -> dict[str, str]:
    """Each rule option's help (one line, spaces folded) in a ``--help`` output."""
    found: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        for name in RULE_OPTIONS:
            if line.strip().startswith(name) and name not in found:
                body = [line.strip()[len(name):]]
                for more in lines[i + 1:]:
                    if not more.startswith("      ") or more.strip().startswith("-"):
                        break
                    body.append(more.strip())
                help_text = " ".join(" ".join(body).split())
                found[name] = re.sub(r"^\[[^\]]*\]\s*", "", help_text)   # a Choice's values
    return found


def test_serve_and_web_show_the_same_rule_options() -> None:
    serve = _option_help(invoke("serve", "--help").output)
    web = _option_help(invoke("web", "--help").output)
    assert set(serve) == set(RULE_OPTIONS)
    assert serve == web
    assert serve["--cube-cap"].startswith("Highest cube value")
    assert "[default: jacoby]" in serve["--jacoby / --no-jacoby"]


def test_serve_builds_the_rules_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    import gbot.adapters.gnubg_server as server

    monkeypatch.setattr(server, "serve", lambda address, engine, **kw: 0)
    engines: list[dict[str, Any]] = []
    monkeypatch.setattr("gbot.cli.Engine", lambda **kw: engines.append(kw) or object())
    assert invoke("serve", "--listen", "31559", *SWITCHES).exit_code == 0
    assert invoke("serve", "--listen", "31559", "--no-cube").exit_code == 0
    assert invoke("serve", "--listen", "31559").exit_code == 0
    assert [e["rules"] for e in engines] == [EXPECTED, Rules(cube_enabled=False, jacoby=True,
                                                             beavers=True), GNUBG_DEFAULTS]


def test_web_builds_the_rules_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvicorn")
    import uvicorn

    import gbot.adapters.web.app as app
    import gbot.adapters.web.service as service

    services: list[dict[str, Any]] = []
    monkeypatch.setattr(service, "Service", lambda **kw: services.append(kw) or object())
    monkeypatch.setattr(app, "create_app", lambda svc, **kw: object())
    monkeypatch.setattr(uvicorn, "run", lambda application, **kw: None)
    assert invoke("web", *SWITCHES).exit_code == 0
    assert invoke("web").exit_code == 0
    assert [s["rules"] for s in services] == [EXPECTED, GNUBG_DEFAULTS]


def test_a_cube_cap_off_the_list_is_a_usage_error() -> None:
    res = invoke("serve", "--cube-cap", "3")
    assert res.exit_code == 2
    assert "'3' is not one of" in res.output
