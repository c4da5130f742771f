"""scripts/compare_published.py: gnubg 1.07's and gbot's readings of a folder of match files,
the verdict per file, the summary line, the exit status and the manifest it fills in."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, gnubg_binary, load_script

cp = load_script("compare_published")

# a short game typed for this test: each side plays one roll, then the first resigns a single
_GAME = (" 3 point match\n\n Game 1\n ann : 0                        ben : 0\n"
         "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
         "  2) 65: 24/13                   Wins 1 point\n")


def test_the_verdict_names_what_differs() -> None:
    R = cp.Reading
    theirs = R(True, 3, [(0, 0), (0, 1)], (2, 1))
    assert cp.verdict(theirs, R(True, 3, [(0, 0), (0, 1)], (2, 1))) == "same"
    assert cp.verdict(theirs, R(False, why="no")) == "gbot refuses"
    assert cp.verdict(theirs, R(True, 3, [(0, 0)], (2, 1))) == "differs: games"
    assert cp.verdict(theirs, R(True, 5, [(0, 0), (0, 1)], (1, 1))) == \
        "differs: length, final score"
    assert cp.verdict(R(False, why="not a match"), R(True, 3, [(0, 0)], (1, 0))) == "-"


def test_gbot_reading_counts_warnings_and_refusals(tmp_path: Path) -> None:
    good = tmp_path / "good.mat"
    good.write_text(_GAME.replace("65: 24/13", "65: ????"))
    r = cp.gbot_reading(good)
    assert r.read and r.length == 3 and r.scores == [(0, 0)] and r.final == (0, 1)
    assert len(r.warnings) == 1 and r.warnings[0].startswith("6: ")
    bad = tmp_path / "bad.mat"
    bad.write_text("nothing here\n")
    r = cp.gbot_reading(bad)
    assert not r.read and r.why


@pytest.mark.gnubg
@pytest.mark.skipif(gnubg_binary() is None, reason="gnubg binary absent")
def test_the_script_compares_a_folder_and_fills_the_manifest(tmp_path: Path) -> None:
    files = tmp_path / "files"
    (files / "typed").mkdir(parents=True)
    (files / "junk").mkdir()
    (files / "typed" / "game.mat").write_text(_GAME)
    (files / "junk" / "words.mat").write_text("no match in here\n")
    (files / "junk" / "blob.xg").write_bytes(b"not an xg file")
    manifest = tmp_path / "manifest.json"
    entries = [{"file": "typed/game.mat", "sha256": hashlib.sha256(
        (files / "typed" / "game.mat").read_bytes()).hexdigest()}]
    manifest.write_text(json.dumps(entries))
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare_published.py"),
                           str(files), "--manifest", str(manifest)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == ("3 files from 2 writers; gnubg 1.07 read 1, gbot read 1; of the 1 "
                         "gnubg read, gbot reads 1 with the same games and final score")
    row = next(line for line in lines if line.startswith("typed/game.mat"))
    assert row.split()[-1] == "same" and "1 games  0-1" in row
    assert "gbot reads 3/3" in proc.stderr
    got = json.loads(manifest.read_text())[0]
    assert got["gnubg"] == {"read": True, "length": 3, "games": 1, "final": [0, 1]}
    assert got["gbot"] == got["gnubg"] and got["verdict"] == "same"

    # a manifest naming another text stops the run
    manifest.write_text(json.dumps([{**entries[0], "sha256": "0" * 64}]))
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare_published.py"),
                           str(files), "--manifest", str(manifest)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 2 and "sha256" in proc.stderr


def test_the_manifest_holds_facts_about_the_published_files() -> None:
    entries = json.loads((ROOT / "tests" / "data" / "published_manifest.json").read_text())
    keys = {"repository", "path", "commit", "writer", "writer_seen_as", "file", "sha256",
            "chars", "source_chars", "gnubg", "gbot", "verdict"}
    assert entries and all(set(e) == keys for e in entries)
    assert len({e["file"] for e in entries}) == len(entries)
    assert len({e["writer"] for e in entries}) >= 5
    for e in entries:
        assert len(e["commit"]) == 40 and int(e["commit"], 16) >= 0, e["file"]
        assert len(e["sha256"]) == 64 and int(e["sha256"], 16) >= 0, e["file"]
        assert e["file"].split("/")[0] == e["writer"], e["file"]
        for side in ("gnubg", "gbot"):
            assert set(e[side]) <= {"read", "length", "games", "final", "warnings", "why"}
        assert e["verdict"] == cp.verdict(
            cp.Reading(e["gnubg"]["read"], e["gnubg"].get("length", 0),
                       [(0, 0)] * e["gnubg"].get("games", 0),
                       tuple(e["gnubg"].get("final", (0, 0)))),
            cp.Reading(e["gbot"]["read"], e["gbot"].get("length", 0),
                       [(0, 0)] * e["gbot"].get("games", 0),
                       tuple(e["gbot"].get("final", (0, 0))))), e["file"]
