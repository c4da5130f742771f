"""scripts/compare_analysis.py: reading gnubg 1.07's text export and matching its marked
checker plays with gbot's analysis of the same decisions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"



ca = load_script("compare_analysis")


def test_reads_gnubgs_checker_plays_and_marks() -> None:
    # part of gnubg 1.07's 2-ply export of a 3-point gbot-vs-gnubg match: two cube
    # decisions (no checker play), gnubg's unmarked 21, ext's 31 marked very bad
    plays = ca.checker_plays((DATA / "gnubg_export_3pt.txt").read_text(), 0)
    assert [(p["move"], p["player"], p["dice"], p["mark"]) for p in plays] == [
        (34, "gnubg", [2, 1], ""), (35, "ext", [3, 1], "very bad")]
    vb = plays[1]
    assert vb["position_id"] == "bHcLgAIqtgUAWw" and vb["played"] == "bar/24 8/5*"
    assert vb["candidates"][0] == ("bar/24 10/7", -0.647)
    assert vb["played_rank"] == 3 and vb["candidates"][3] == ("bar/24 8/5*", -0.794)
    assert len(vb["candidates"]) == 5 and plays[0]["played_rank"] == 1
    assert len(vb["probs"]) == 5 and vb["probs"][0] == [0.309, 0.009, 0.0, 0.457, 0.155]


def test_game_exports_in_game_order(tmp_path: Path) -> None:
    # gnubg writes game 1 to the named file, game n to NAME_00n.txt
    for name, text in (("export_010.txt", "ten"), ("export.txt", "one"),
                       ("export_002.txt", "two")):
        (tmp_path / name).write_text(text)
    assert ca.game_exports(tmp_path) == ["one", "two", "ten"]


def _gbot_move(game: int, pid: str, dice: list[int], error: float) -> dict[str, Any]:
    return {"game": game, "index": 0, "player": 1, "position_id": pid, "dice": dice,
            "played": "x", "best": "y", "error": error, "equity": 0.0, "forced": False}


def test_marked_plays_match_by_game_position_and_roll() -> None:
    plays = ca.checker_plays((DATA / "gnubg_export_3pt.txt").read_text(), 1)
    g = {"plays": plays}
    pid = "bHcLgAIqtgUAWw"
    # the same position with another roll, or in another game, is another decision
    b = {"moves": [_gbot_move(1, pid, [6, 1], 0.0), _gbot_move(0, pid, [3, 1], 0.0)]}
    (m,) = ca.match_marked(g, b)
    assert m["gbot"] is None
    b["moves"].append(_gbot_move(1, pid, [3, 1], 0.25))
    (m,) = ca.match_marked(g, b)
    assert m["gbot"]["error"] == 0.25


def test_report_counts_and_lists_a_very_bad_play_called_best(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    plays = ca.checker_plays((DATA / "gnubg_export_3pt.txt").read_text(), 0)
    seen: list[list[str]] = []

    def opinions(path: str, ply: int, move: dict[str, Any], texts: list[str]
                 ) -> dict[str, list[float]]:
        seen.append(texts)
        return {"gbot": [1.29, 1.23]}

    monkeypatch.setattr(ca, "second_opinions", opinions)
    stats = {"names": ["gnubg", "ext"], "rate": [1.0, 2.0], "checker_error": [0.1, 0.2]}
    rows = [{"file": "m.mat", "gnubg": dict(stats, plays=plays),
             "gbot": dict(stats, moves=[_gbot_move(0, "bHcLgAIqtgUAWw", [3, 1], 0.0)])},
            {"file": "n.mat", "gnubg": dict(stats, rate=[3.0, 1.0], plays=[]),
             "gbot": dict(stats, rate=[2.0, 2.0], moves=[])}]
    fig = ca.report(rows, 2)
    assert fig["marked"]["very bad"] == {"gnubg": 1, "gbot_best": 1, "unmatched": 0}
    assert fig["rate_mean_abs_diff"] == pytest.approx(0.5)
    assert seen == [["bar/24 8/5*", "bar/24 10/7"]]
    (f,) = fig["very_bad_called_best"]
    assert f["gnubg"] == [-0.794, -0.647] and f["gbot"] == [1.29, 1.23]
    out = capsys.readouterr().out
    assert "checker plays gnubg marks very bad: 1; of those gbot calls best: 1" in out
    assert "bar/24 10/7" in out and "-0.647" in out


def test_self_judgement_per_player_and_file() -> None:
    # gnubg's unmarked 21 (its 2nd choice, 0.003 behind) and ext's very bad 31 (0.147
    # behind); gbot calls the 21 best and finds 0.05 in the 31
    plays = ca.checker_plays((DATA / "gnubg_export_3pt.txt").read_text(), 0)
    moves = [dict(_gbot_move(0, "Km0LADZsuwsAAw", [2, 1], 0.0), player=0),
             _gbot_move(0, "bHcLgAIqtgUAWw", [3, 1], 0.05)]
    rows = [{"file": "m.mat", "gnubg": {"plays": plays}, "gbot": {"moves": moves}}] * 2
    out = ca.self_judgement(rows)
    assert out["gnubg"]["plays"] == 2 and out["gnubg"]["gnubg_best"] == 0
    assert out["gnubg"]["gbot_best"] == 2
    assert out["gnubg"]["bias"] == pytest.approx([-2.0, -2.0], abs=1e-9)
    assert out["ext"]["gnubg_error"] == pytest.approx(2 * 0.147)
    assert out["ext"]["bias_mean"] == pytest.approx(1000.0 * (0.05 - 0.147))
    assert out["ext"]["files_gbot_lower"] == 2 and out["ext"]["files"] == 2


def test_conversion_of_gnubgs_probabilities_matches_its_equities() -> None:
    import gbot
    from gbot.analysis.analyse import read_match

    # the match the export excerpt comes from (tests/data/gnubg_3pt_backgame.mat): gnubg's
    # printed probabilities of the 10 listed candidates through gbot's conversion give its
    # printed cubeful equities within their rounding and the cube models' small difference
    path = str(DATA / "gnubg_3pt_backgame.mat")
    plays = ca.checker_plays((DATA / "gnubg_export_3pt.txt").read_text(), 0)
    record = read_match(path)
    moves = []
    for i, a in enumerate(record.games[0].actions):
        if a.kind == "move" and a.board:
            pid = gbot.Position(np.array(a.board, dtype=np.int8)).id()
            if pid in ("Km0LADZsuwsAAw", "bHcLgAIqtgUAWw"):
                moves.append(dict(_gbot_move(0, pid, [max(a.dice), min(a.dice)], 0.0),
                                  index=i))
    assert len(moves) == 2
    out = ca.conversion_check([{"file": path, "gnubg": {"plays": plays},
                                "gbot": {"moves": moves}}])
    assert out["n"] == 10 and out["mean"] < 0.004 and out["over"] == 0
    assert out["errors"]["ext"][1] == pytest.approx(0.147, abs=1e-9)
    assert out["errors"]["ext"][2] == pytest.approx(0.147, abs=0.005)


def test_reads_gnubgs_statistics_per_player() -> None:
    """gnubg 1.07's `show statistics match` of tests/data/gnubg_3pt.mat analysed at 0-ply
    (tests/data/gnubg_3pt.stats.txt): the figures as printed there."""
    got = ca.gnubg_statistics((DATA / "gnubg_3pt.stats.txt").read_text(), "gnubg_3pt.mat")
    assert got["names"] == ["gbot", "gnubg"]
    assert got["checker_error"] == [0.096, 0.0]
    assert got["checker_rate"] == [2.5, 0.0]
    assert got["cube_rate"] == [1.1, 0.0]
    assert got["rate"] == [2.2, 0.0]
    assert got["luck"] == [1.161, 0.249]       # signed: both lucky here


def test_figure_agreement_over_players() -> None:
    rows = [{"gnubg": {"names": ["a", "b"], "luck": [1.0, -0.5]},
             "gbot": {"names": ["b", "a"], "luck": [-0.52, 1.04]}},
            {"gnubg": {"names": ["c", "d"], "luck": [0.2, 0.0]},
             "gbot": {"names": ["c", "d"], "luck": [0.3, 0.0]}}]
    got = ca.figure_agreement(rows, "luck")
    assert got["players"] == 4
    assert got["gnubg_sum"] == pytest.approx(0.7) and got["gbot_sum"] == pytest.approx(0.82)
    assert got["mean_abs_diff"] == pytest.approx((0.04 + 0.02 + 0.1 + 0.0) / 4)
    assert got["within_5pct"] == 3               # a (4 %), b (4 %) and d (exactly 0)
    assert got["correlation"] > 0.98
    assert ca.figure_agreement(rows, "cube_rate")["players"] == 0
