"""The gnubg statistics reader of scripts/bench_cube_judged.py, on a table gnubg 1.07 printed
(``show statistics match`` after ``analyse match`` of two money games), and the split of
checker errors by position class, which must add up to gnubg's own totals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_cube_judged.py"

TABLE = """\
Player                                   gnubg                   ext                    

Chequerplay statistics

Total moves                               17                      16                    
Unforced moves                            16                      15                    
Unmarked moves                            17                      14                    
Moves marked doubtful                      0                       2                    
Moves marked bad                           0                       0                    
Moves marked very bad                      0                       0                    
Error total EMG (Points)                      -0.000 ( -0.000)        -0.105 ( -0.122)  
Error rate mEMG (Points)                      -0.0   ( -0.000)        -7.0   ( -0.008)  
Chequerplay rating                       Supernatural            Expert                 


Luck statistics

Rolls marked very lucky                    0                       1                    
Rolls marked lucky                         1                       2                    
Rolls unmarked                            15                       9                    
Rolls marked unlucky                       1                       4                    
Rolls marked very unlucky                  0                       0                    
Luck total EMG (Points)                       -0.439 ( -1.152)        -0.623 ( +0.133)  
Luck rate mEMG (Points)                      -25.8   ( -0.068)       -38.9   ( +0.008)  
Luck rating                              None                    Bad dice, man!         


Cube statistics

Total cube decisions                      14                      19                    
Close or actual cube decisions             4                       4                    
Doubles                                    2                       1                    
Takes                                      0                       1                    
Passes                                     1                       1                    
Missed doubles below CP (EMG (Points))     0                       0                    
Missed doubles above CP (EMG (Points))     0                       0                    
Wrong doubles below DP (EMG (Points))      0                       0                    
Wrong doubles above TG (EMG (Points))      0                       0                    
Wrong takes (EMG (Points))                 0                       0                    
Wrong passes (EMG (Points))                0                       1 (-0.049 ( -0.049)) 
Error total EMG (Points)                      -0.000 ( -0.000)        -0.049 ( -0.049)  
Error rate mEMG (Points)                      -0.0   ( -0.000)       -12.3   ( -0.012)  
Cube decision rating                     Supernatural            Intermediate           


Overall statistics

Error total EMG (Points)                      -0.000 ( -0.000)        -0.154 ( -0.171)  
Error rate mEMG (Points)                      -0.0   ( -0.000)        -8.1   ( -0.009)  
Snowie error rate                             -0.0   ( +0.000)        -4.7   ( +0.000)  
Overall rating                           Supernatural            Advanced               
Actual result                             -1.000                  +1.000                
Luck adjusted result                      +0.285                  -0.285                
"""



def test_reads_both_columns_of_the_first_table() -> None:
    # a second table (e.g. ``show statistics game``) after the first is not read
    st = load_script("bench_cube_judged").parse_statistics(
        TABLE + "\n" + TABLE.replace("16 ", "99 "))
    ext, gnubg = st["ext"], st["gnubg"]
    assert (ext["moves"], ext["unforced"], ext["checker_emg"]) == (16, 15, -0.105)
    assert (gnubg["moves"], gnubg["unforced"], gnubg["checker_emg"]) == (17, 16, -0.0)
    assert (ext["cube_decisions"], ext["cube_emg"], gnubg["cube_decisions"]) == (4, -0.049, 4)
    assert (ext["Wrong passes"], ext["Wrong passes emg"]) == (1, -0.049)
    assert ext["Missed doubles below CP"] == 0 and gnubg["Wrong takes"] == 0
    assert (ext["doubles"], ext["takes"], ext["passes"]) == (1, 1, 1)
    assert (ext["actual"], ext["luck_adjusted"], gnubg["luck_adjusted"]) == (1.0, -0.285, 0.285)


def test_report_rates_are_gnubgs() -> None:
    mod = load_script("bench_cube_judged")
    st = mod.parse_statistics(TABLE)
    rep = mod.report([{"stats": st | {"gbot": st["ext"]}, "play": {"games": [{}, {}]}}])
    assert rep["gbot"]["checker_rate"] == pytest.approx(7.0)     # gnubg prints -7.0
    assert rep["gbot"]["cube_rate"] == pytest.approx(12.25)      # gnubg prints -12.3
    assert rep["gnubg"]["checker_rate"] == 0.0


def test_no_table_is_an_error() -> None:
    with pytest.raises(ValueError, match="no gnubg statistics"):
        load_script("bench_cube_judged").parse_statistics("Error: no match loaded\n")


DATA = Path(__file__).resolve().parent / "data"


def test_checker_errors_by_class_add_up_to_gnubgs_totals() -> None:
    # two money games gbot (server) played against gnubg 0-ply, Jacoby and beavers on,
    # analysed by gnubg 1.07 at 1-ply and saved; the statistics it printed for the same match
    mod = load_script("bench_cube_judged")
    split = mod.checker_by_class((DATA / "judged_money.analysed.sgf").read_text(), True, True)
    totals = mod.parse_statistics((DATA / "judged_money.stats.txt").read_text())
    assert set(split) == {"gbot", "gnubg"}
    for who in ("gbot", "gnubg"):
        moves = sum(n for n, _ in split[who].values())
        emg = sum(e for _, e in split[who].values())
        assert moves == totals[who]["unforced"]
        assert emg == pytest.approx(-totals[who]["checker_emg"], abs=6e-4)
        assert set(split[who]) <= {"contact", "crashed", "race", "bearoff"}
    assert "race" in split["gnubg"] and "contact" in split["gbot"]
    rep = mod.report([{"stats": totals, "by_class": split, "play": {"games": [{}, {}]}}])
    n, e = split["gbot"]["contact"]
    assert rep["checker_by_class"]["gbot"]["contact"] == [n, e]
    assert f"{1000 * e / n:.2f} ({n:.0f})" in rep["table"]


def test_by_class_refuses_a_file_whose_plays_do_not_replay() -> None:
    from gbot.errors import GbotError
    text = (DATA / "judged_money.analysed.sgf").read_text()
    with pytest.raises((GbotError, ValueError)):
        load_script("bench_cube_judged").checker_by_class(text.replace(";B[", ";B[x", 1),
                                                          True, True)
