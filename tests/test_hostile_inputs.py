"""Hostile match files end to end: ``gbot analyse`` on files made to exhaust memory or time, or
to reach a bare exception, answers with one ``Error:`` line, exit status 1, no traceback,
within 30 s of processor time and 500 MB (issue 34's cases).

Oracles: the limits themselves (:data:`gbot.game.match.MAX_MATCH_LENGTH`,
:data:`gbot.records.matfile.MAX_BYTES`, :data:`gbot.analysis.analyse.MAX_GAMES` and
``MAX_ENTRIES``), the child's own resource figures (``wait4``), and a real match file that
stays readable.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gbot.analysis.analyse import MAX_ENTRIES, MAX_GAMES, read_match
from gbot.errors import MatchFileError
from gbot.game.match import MAX_MATCH_LENGTH
from gbot.records import matfile, sgf_read

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
TIME_LIMIT = 30.0
MEMORY_LIMIT = 500 * 2**20

needs_posix = pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs os.wait4")


def _game_body() -> str:
    """Game 1 of a real gnubg export, without its ``Game 1`` line (score line onwards)."""
    text = (DATA / "gnubg_3pt.mat").read_text()
    return text.split(" Game 1\n", 1)[1].split(" Game 2\n", 1)[0]


def repeated_games(n: int, length: int = 0) -> str:
    """A plausible ``.mat`` text: one real game written ``n`` times."""
    body = _game_body()
    return f" {length} point match\n\n" + "".join(f" Game {i}\n{body}" for i in range(1, n + 1))


# The child reports its own peak resident size (VmHWM, reset at exec) to a file at exit:
# wait4's ru_maxrss would also count the memory of the test process it was forked from.
_CHILD = ("import atexit, os, sys\n"
          "def _peak():\n"
          "    with open('/proc/self/status') as fh:\n"
          "        kb = [ln.split()[1] for ln in fh if ln.startswith('VmHWM:')]\n"
          "    with open(os.environ['GBOT_TEST_PEAK'], 'w') as out:\n"
          "        out.write(kb[0] if kb else '')\n"
          "if os.path.exists('/proc/self/status'):\n"
          "    atexit.register(_peak)\n"
          "from gbot.cli import main\n"
          "sys.argv = ['gbot', *sys.argv[1:]]\n"
          "main()\n")


def _analyse(path: Path | str, tmp_path: Path) -> tuple[int, str, float, int]:
    """``gbot analyse --ply 0 path`` as a child: (exit status, stderr, processor seconds, peak
    bytes); processor time, not wall time, so that a loaded machine does not fail it."""
    err = tmp_path / "stderr.txt"
    peak_file = tmp_path / "peak.txt"
    with open(os.devnull, "w") as out, err.open("w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, "analyse", "--ply", "0",
                                 "--workers", "1", str(path)],
                                stdout=out, stderr=fh, cwd=ROOT,
                                env={**os.environ, "GBOT_TEST_PEAK": str(peak_file)})
        killer = threading.Timer(10 * TIME_LIMIT, proc.kill)     # wall time, loaded machine
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = usage.ru_utime + usage.ru_stime
    reported = peak_file.read_text().strip() if peak_file.exists() else ""
    peak_kb = int(reported) if reported.isdigit() else usage.ru_maxrss
    return proc.returncode, err.read_text(), seconds, peak_kb * 1024


def _refused(path: Path | str, tmp_path: Path, pattern: str) -> str:
    rc, err, seconds, peak = _analyse(path, tmp_path)
    assert rc == 1, (rc, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err[-2000:]
    assert re.search(pattern, lines[0]), lines[0]
    assert seconds < TIME_LIMIT, (seconds, lines[0])
    assert peak < MEMORY_LIMIT, (peak, lines[0])
    return lines[0]


@needs_posix
@pytest.mark.parametrize("length", [32767, 99999999])
def test_a_match_longer_than_gnubg_plays_is_refused_before_any_table(tmp_path: Path,
                                                                     length: int) -> None:
    # was: _ArrayMemoryError (8 GiB) building the MET for 32767, a ValueError for 99999999
    f = tmp_path / "long.mat"
    f.write_text(repeated_games(1, length))
    _refused(f, tmp_path, rf"match length .*0 to {MAX_MATCH_LENGTH}, got '{length}'")


@needs_posix
def test_an_sgf_match_length_beyond_the_limit_is_refused(tmp_path: Path) -> None:
    # was: ValueError: array is too big
    f = tmp_path / "long.sgf"
    text = (DATA / "gnubg_3pt.sgf").read_text().replace("[length:3]", "[length:9999999999]")
    f.write_text(text)
    _refused(f, tmp_path, rf"MI length .*0 to {MAX_MATCH_LENGTH}")


@needs_posix
def test_an_sgf_superscript_score_is_refused(tmp_path: Path) -> None:
    # was: a bare ValueError from int('0²')
    f = tmp_path / "sup.sgf"
    f.write_text((DATA / "gnubg_3pt.sgf").read_text().replace("[bs:0]", "[bs:0\u00b2]", 1))
    _refused(f, tmp_path, r"MI bs .*'0²'")


@needs_posix
def test_dev_zero_is_refused_at_the_size_limit(tmp_path: Path) -> None:
    # was: MemoryError after 18 s and 2.7 GB
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    _refused("/dev/zero", tmp_path, rf"more than {matfile.MAX_BYTES:,} bytes")


@needs_posix
def test_a_50_mb_plausible_mat_is_refused_by_size_at_once(tmp_path: Path) -> None:
    # was: killed at 120 s and 1.2 GB with no output
    f = tmp_path / "big.mat"
    one = repeated_games(200)
    with f.open("w") as fh:
        while fh.tell() < 50_000_000:
            fh.write(one)
    msg = _refused(f, tmp_path, rf"is [0-9,]+ bytes, more than the {matfile.MAX_BYTES:,}")
    assert f"{f.stat().st_size:,}" in msg


@needs_posix
def test_a_plausible_mat_under_the_size_limit_is_refused_by_game_count(tmp_path: Path) -> None:
    f = tmp_path / "many.mat"
    f.write_text(repeated_games(MAX_GAMES + 1))
    assert f.stat().st_size < matfile.MAX_BYTES
    _refused(f, tmp_path, rf"more than {MAX_GAMES:,} games")


def test_one_endless_game_is_refused_by_its_entry_count() -> None:
    line = "  1) 32: 24/21 13/11             61: 8/7 13/7\n"
    head = " 0 point match\n\n Game 1\n a : 0                b : 0\n"
    text = head + line * (MAX_ENTRIES // 2 + 1)
    with pytest.raises(MatchFileError, match=rf"more than {MAX_ENTRIES:,} moves"):
        matfile.loads(text, max_games=MAX_GAMES, max_entries=MAX_ENTRIES)


def test_sgf_counts_are_limited_as_they_are_read() -> None:
    with pytest.raises(MatchFileError, match="more than 3 game trees"):
        sgf_read.parse("(;GM[6])" * 4, max_games=3)
    with pytest.raises(MatchFileError, match="more than 5 nodes"):
        sgf_read.parse("(;GM[6]" + ";W[31ac]" * 6 + ")", max_nodes=5)
    with pytest.raises(MatchFileError, match="nest more than"):
        sgf_read.parse("(" * (sgf_read.MAX_DEPTH + 1) + ")" * (sgf_read.MAX_DEPTH + 1))


def test_read_match_names_every_limit_and_reads_a_real_match(tmp_path: Path) -> None:
    # without an extension the content decides, and the size limit holds there too
    f = tmp_path / "noext"
    f.write_text(repeated_games(MAX_GAMES + 1))
    with pytest.raises(MatchFileError, match=rf"more than {MAX_GAMES:,} games"):
        read_match(str(f))
    real = read_match(str(DATA / "gnubg_3pt.mat"))
    assert real.match_length == 3 and len(real.games) == 3
