"""The tournament's progress line (ETA), ratings that never print ``-0.0``, the chart's axis
labels, and the money-rule defaults of ``gbot tournament``."""

from __future__ import annotations

import re

from click.testing import CliRunner

from gbot.cli import main
from gbot.tournament.report import format_rating, running_svg
from gbot.tournament.runner import Progress


def test_progress_line_has_an_eta() -> None:
    p = Progress(units_done=100, units_total=400, games=100, new_games=50, elapsed=25.0,
                 pairings=[("a", "b", 100, 0.1)])
    # 2 games/s, 300 units of one game each left: 150 s
    assert p.eta == 150.0
    assert "ETA 2m30s" in p.line()
    matches = Progress(units_done=10, units_total=40, games=60, new_games=60, elapsed=3600.0,
                       pairings=[])
    # 6 games per match, 30 matches left, 1 game/min: 180 min
    assert matches.eta == 180 * 60.0 and "ETA 3h00m" in matches.line()
    assert Progress(0, 10, 0, 0, 0.0, []).eta is None
    assert "ETA" not in Progress(10, 10, 10, 10, 5.0, []).line()


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
