"""scripts/bench_vs_gnubg.py against a live gnubg 1.07 (its referee, its own seat): the match
and money summaries agree with gnubg_match's own RESULT lines, and a rerun continues."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED, gnubg_binary

SCRIPT = ROOT / "scripts" / "bench_vs_gnubg.py"
pytestmark = pytest.mark.skipif(
    gnubg_binary() != "/usr/games/gnubg" or not (SHARED / "tools" / "gnubg_match.py").exists()
    or SHARED != ROOT.parent / "shared",
    reason="needs /usr/games/gnubg and ../shared/tools/gnubg_match.py")


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args, "--gnubg-ply", "0", "--ply", "0"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _records(folder: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("match-*.json"))]


def test_matches_are_counted_as_gnubg_scored_them(tmp_path: Path) -> None:
    out = _run("--matches", "2", "--length", "1", "--out", str(tmp_path))
    recs = _records(tmp_path)
    assert [r["seat"] for r in recs] == [0, 1] and recs[0]["seed"] == recs[1]["seed"]
    won = 0
    for r in recs:
        fields = dict(f.split("=", 1) for f in str(r["summary"]).split()[1:])
        gbot_pts, gnubg_pts = int(fields["gbot(ext)"]), int(fields["gnubg(gnubg)"])
        assert r["complete"] and max(gbot_pts, gnubg_pts) >= 1
        assert r["winner"] == ("gbot" if gbot_pts > gnubg_pts else "gnubg")
        assert sum(r["points"]) == gbot_pts - gnubg_pts          # type: ignore[arg-type]
        won += r["winner"] == "gbot"
    assert f"gbot won {won} of 2 matches" in out
    again = _run("--matches", "2", "--length", "1", "--out", str(tmp_path))   # nothing to play
    assert _records(tmp_path) == recs and f"gbot won {won} of 2 matches" in again


def test_money_points_per_game_from_the_session_pairs(tmp_path: Path) -> None:
    out = _run("--matches", "2", "--length", "0", "--session-games", "2", "--out", str(tmp_path))
    recs = _records(tmp_path)
    per_session = []
    for r in recs:
        fields = dict(f.split("=", 1) for f in str(r["summary"]).split()[1:])
        points = r["points"]
        assert isinstance(points, list) and len(points) == 2
        assert sum(points) == int(fields["gbot(ext)"]) - int(fields["gnubg(gnubg)"])
        per_session.append(sum(points) / 2)
    ppg = re.search(r"gbot ([-+]\d+\.\d+) ppg", out)
    assert ppg is not None and float(ppg.group(1)) == pytest.approx(sum(per_session) / 2,
                                                                   abs=5e-4)
