"""The tournament's progress bar (ETA), ratings that never print ``-0.0``, the chart's axis
labels, and the money-rule defaults of ``gbot tournament``."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from gbot.cli import main
from gbot.tournament.report import format_rating, running_svg


def test_progress_line_has_an_eta(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    import gbot.analysis.progress as progress

    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)       # a line for every report
    out = Path(str(tmp_path)) / "t"
    res = CliRunner().invoke(main, ["tournament", "random", "random", "-n", "4", "--seed", "3",
                                    "--backend", "serial", "--out", str(out)])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if re.match(r"tournament \d", ln)]
    assert lines[0].startswith("tournament 0/4 ") and "ETA ?" in lines[0]
    # done/total, the rate and an ETA once a game is played; the running score
    assert any(re.match(r"tournament [1-3]/4 .*ETA \d\d:\d\d, .*game/s", ln) for ln in lines)
    assert re.match(r"tournament 4/4 100% .*ETA 00:00, .*random v random-2 [+-]\d\.\d{3} ppg",
                    lines[-1])
    assert all("\r" not in ln for ln in lines)                # whole lines, not redraws
    quiet = CliRunner().invoke(main, ["tournament", "--resume", str(out), "-q"])
    assert quiet.exit_code == 0 and "ETA" not in quiet.stderr


def test_ratings_never_print_minus_zero() -> None:
    assert format_rating(-0.04) == "+0.0" and format_rating(-0.0) == "+0.0"
    assert format_rating(0.04) == "+0.0"
    assert format_rating(-0.06) == "-0.1" and format_rating(12.34) == "+12.3"


def _labels(svg: str) -> list[str]:
    return re.findall(r'text-anchor="end">([^<]*)</text>', svg)


def test_axis_labels_drawn_once() -> None:
    assert _labels(running_svg({"a v b": [1.0, 2.0, 3.0]})) == ["+0", "+3"]        # lo is 0
    assert _labels(running_svg({"a v b": [-1.0, -4.0]})) == ["+0", "-4"]          # hi is 0
    assert _labels(running_svg({"a v b": [-20.0, 30.0]})) == ["+0", "-20", "+30"]
    assert _labels(running_svg({"a v b": [-0.2, 40.0]})) == ["+0", "+40"]         # -0 sits on +0


def test_tournament_money_defaults_are_gnubgs() -> None:
    out = CliRunner().invoke(main, ["tournament", "--help"]).output
    flat = " ".join(out.split())
    assert re.search(r"--jacoby / --no-jacoby .*?\[default: jacoby\]", flat)
    assert re.search(r"--beavers / --no-beavers .*?\[default: beavers\]", flat)


def test_a_money_run_uses_jacoby_and_beavers_unless_switched_off(tmp_path: object) -> None:
    from pathlib import Path

    base = ["tournament", "random", "random", "-n", "2", "--seed", "3", "--backend", "serial",
            "-q"]
    on = CliRunner().invoke(main, [*base, "--out", str(Path(str(tmp_path)) / "on")])
    assert on.exit_code == 0, on.output
    assert "Jacoby, beavers" in on.output
    off = CliRunner().invoke(main, [*base, "--no-jacoby", "--no-beavers", "--out",
                                    str(Path(str(tmp_path)) / "off")])
    assert off.exit_code == 0, off.output
    assert "Jacoby" not in off.output and "beavers" not in off.output
