"""The rule switches of :mod:`gbot.cli.rules`: ``gbot serve`` and ``gbot web`` show the same
six options with the same help, and what is typed reaches the engine's or the service's
:class:`gbot.game.match.Rules` (the servers themselves replaced by fakes)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gbot.cli import main
from gbot.engine.engine import PLAY_PLY
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
    pytest.importorskip("pydantic")
    import uvicorn

    import gbot.adapters.web.app as app
    import gbot.adapters.web.service as service

    class FakeService:
        def __init__(self, **kw: Any) -> None:
            services.append(kw)

        def warm(self) -> None:
            pass

    class FakeServer:
        def __init__(self, config: Any) -> None:
            self.startup = None

        def run(self) -> None:
            pass

    services: list[dict[str, Any]] = []
    monkeypatch.setattr(service, "Service", FakeService)
    monkeypatch.setattr(app, "create_app", lambda svc, **kw: object())
    monkeypatch.setattr(app, "server_config", lambda application, host, port, **kw: object())
    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    assert invoke("web", *SWITCHES).exit_code == 0
    assert invoke("web").exit_code == 0
    assert [s["rules"] for s in services] == [EXPECTED, GNUBG_DEFAULTS]
    assert [s["ply"] for s in services] == [PLAY_PLY, PLAY_PLY]


def test_adapters_play_at_the_default_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """``gbot serve`` (and ``fibs``, ``web``, ``play``) play at :data:`PLAY_PLY` unless told;
    ``--ply 0`` stays for speed."""
    import gbot.adapters.gnubg_server as server

    monkeypatch.setattr(server, "serve", lambda address, engine, **kw: 0)
    engines: list[dict[str, Any]] = []
    monkeypatch.setattr("gbot.cli.Engine", lambda **kw: engines.append(kw) or object())
    assert invoke("serve", "--listen", "31559").exit_code == 0
    assert invoke("serve", "--listen", "31559", "--ply", "0").exit_code == 0
    assert [e["ply"] for e in engines] == [PLAY_PLY, 0] and PLAY_PLY == 2
    for command in ("fibs", "play"):
        assert f"[default: {PLAY_PLY};" in " ".join(invoke(command, "--help").output.split())


def test_a_cube_cap_off_the_list_is_a_usage_error() -> None:
    res = invoke("serve", "--cube-cap", "3")
    assert res.exit_code == 2
    assert "'3' is not one of" in res.output
