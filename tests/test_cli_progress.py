"""The progress bars of ``gbot analyse`` and ``gbot rollout`` on stderr (count, rate, ETA), the
training stages' terminal-only bars, and ``gbot rollout --help``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import gbot.analysis.progress as progress
from gbot.cli import main

DATA = Path(__file__).parent / "data"


@pytest.fixture
def every_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """A progress line for every report (not one per 10 s) when stderr is not a terminal."""
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)


def _bar_lines(err: str, label: str) -> list[str]:
    return [ln for ln in err.splitlines() if re.match(rf"{label} \d+/\d+ ", ln)]


@pytest.mark.usefixtures("every_report")
def test_analyse_shows_games_done_with_an_eta() -> None:
    res = CliRunner().invoke(main, ["analyse", str(DATA / "gnubg_3pt.mat"), "--ply", "0",
                                    "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    lines = _bar_lines(res.stderr, "analyse")
    assert lines[0].startswith("analyse 0/3 ")
    assert any(re.match(r"analyse [12]/3 .*ETA \d\d:\d\d, .*game/s", ln) for ln in lines)
    assert re.match(r"analyse 3/3 100% .*ETA 00:00", lines[-1])
    assert sum(ln.startswith("analyse 3/3") for ln in lines) == 1     # the end drawn once
    assert res.stderr.splitlines()[-1].startswith("analyse: done in")


@pytest.mark.usefixtures("every_report")
def test_rollout_shows_trials_done_with_an_eta() -> None:
    res = CliRunner().invoke(main, ["rollout", "4HPwATDgc/ABMA", "31", "--trials", "72",
                                    "-n", "1"])
    assert res.exit_code == 0, res.output
    lines = _bar_lines(res.stderr, "rollout")
    assert lines and re.match(r"rollout 72/72 100% \[\d\d:\d\d, ETA 00:00, .*trial/s\]",
                              lines[-1])
    assert "rolled out" in res.stdout and "ETA" not in res.stdout


def test_a_log_file_gets_whole_lines() -> None:
    out = io.StringIO()
    writer = progress.LineWriter(out)
    writer.write("\rlabel 1/4  25% [00:01, ETA 00:03, 1.00chunk/s]   ")
    writer.write("\n")
    assert out.getvalue() == "label 1/4  25% [00:01, ETA 00:03, 1.00chunk/s]\n"


def test_training_bars_only_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    bar = progress.terminal_bar(4, "label", "chunk", initial=1)      # stderr is captured
    log = progress.around_bars(print)
    bar.update(1)
    log("chunk 2/4 labelled")
    bar.close()
    got = capsys.readouterr()
    assert got.err == "" and got.out == "chunk 2/4 labelled\n"


def test_rollout_help_documents_every_option_and_position_form() -> None:
    from gbot.cli.analysis import rollout

    for param in rollout.params:
        if isinstance(param, click.Option):
            assert param.help, f"--{param.name} has no help text"
    out = " ".join(CliRunner().invoke(main, ["rollout", "--help"]).output.split())
    for option in ("--trials", "--seed", "--workers", "--backend"):
        assert re.search(rf"{option} \S+( RANGE)? [A-Z]", out), option
    for form in ("Position ID", "PID:MatchID", "XGID", "board: line"):
        assert form in out, form
