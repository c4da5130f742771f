"""``gbot bench`` (the quick front door to the speed figures) and what it shares with the
benchmark scripts: its context lines, each figure with its unit, target and long form, the
shared measuring module :mod:`gbot.testing.bench`, and scripts that import ``benchlib``
instead of each other or ``sys.path`` edits."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from gbot.cli import main
from gbot.testing import bench as measure

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def test_gbot_bench_prints_its_context_and_each_figure_beside_its_target() -> None:
    res = CliRunner().invoke(main, ["bench", "--pairs", "100", "--decisions", "4"])
    assert res.exit_code == 0, res.output
    out = res.output
    for label in ("machine", "software", "networks", "samples", "peer", "timing"):
        assert f"\n  {label} " in out, label
    assert "cores" in out and "load average" in out
    assert "Python " in out and "numba " in out
    from gbot.eval.net import Networks

    hidden = Networks.default().nets["contact"]["b1"].shape[0]
    assert f"contact net {hidden} hidden units" in out
    for figure, unit, target in (("move generation", "µs/pair", "(no target)"),
                                 ("batch evaluation", "M positions/s", ">= 2 M positions/s"),
                                 ("0-ply best play", "µs/decision", ">= 4x gnubg-nn"),
                                 ("2-ply best play", "ms/decision", "<= 5 ms")):
        row = next(line for line in out.splitlines() if line.startswith(f"  {figure} "))
        assert unit in row and target in row and "scripts/bench_" in row, row
        script = row.split()[-1]
        assert (ROOT / script).exists(), script


def test_targets_judge_both_ways() -> None:
    t = measure.TARGETS["best2_ms"]
    assert t.met(4.9) and not t.met(5.1)
    assert t.verdict(7.0) == "target <= 5 ms: MISSED"
    r = measure.TARGETS["best0"]
    assert r.verdict(4.5) == "target >= 4x: met"
    assert measure.TARGETS["batch_eval"].text() == "target >= 2 M positions/s"


def test_pairs_keep_the_mix_and_the_seed() -> None:
    boards, dice = measure.make_pairs(200, 3)
    again, dice2 = measure.make_pairs(200, 3)
    assert boards.shape == (200, 26) and dice.shape == (200, 2)
    assert (boards == again).all() and (dice == dice2).all()
    kinds = [measure.kind(b) for b in boards]
    assert {k: kinds.count(k) for k in measure.MIX} == {
        k: round(share * 200) for k, share in measure.MIX.items()}
    seconds, counts = measure.movegen_batch(boards, dice, 1)
    assert seconds > 0 and counts.shape == (200,) and counts.sum() > 200   # 0: a dance


def test_interleaved_takes_turns_and_keeps_the_values() -> None:
    calls: list[str] = []
    t = measure.interleaved([(1, 10), (2, 20)], lambda a: calls.append(f"o{a}") or a,
                            lambda b: calls.append(f"t{b}") or b, keep=True)
    assert calls == ["o1", "t10", "o2", "t20"]
    assert t.ours_out == [1, 2] and t.theirs_out == [10, 20]
    assert t.ours >= 0 and t.theirs is not None
    alone = measure.interleaved([(1, None)], lambda a: a, None)
    assert alone.theirs is None


def test_evaluation_batch_is_the_flipped_candidates() -> None:
    positions, _ = measure.contact_positions(5, 2)
    rolls = measure.seeded_rolls(5, 3)
    batch = measure.evaluation_batch(positions, rolls)
    first = positions[0].board
    from gbot.core.movegen import legal_boards

    n0 = len(legal_boards(first, *rolls[0]))
    assert batch.dtype == np.int8 and batch.shape[1] == 26 and len(batch) >= n0 >= 1


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_scripts_share_benchlib_instead_of_importing_each_other() -> None:
    scripts = {p.stem: p for p in SCRIPTS.glob("*.py")}
    tools = {"benchlib", "tap"}      # tap.py: the transcript relay capture_transcripts drives
    for name, path in scripts.items():
        text = path.read_text()
        assert "sys.path.insert" not in text and "sys.path.append" not in text, name
        others = (_imports(path) & set(scripts)) - tools
        assert not others, f"{name} imports {others}"
    assert "sys.path" not in (SCRIPTS / "run").read_text()
