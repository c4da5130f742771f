"""Match analysis and the SGF reader: round trips, self-consistency, gnubg's marks and words."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gbot
from gbot.analysis.analyse import BAD, DOUBTFUL, VERY_BAD, analyse, mark, play_values, rating
from gbot.errors import MatchFileError
from gbot.game.match import GameState, Rules
from gbot.game.referee import Action, GameRecord, MatchRecord, Referee, can_double, legal_results
from gbot.records import sgf, sgf_read

GNUBG = "/usr/games/gnubg"


def _random_match(seed: int, length: int, games: int = 3, beavers: bool = False,
                  engine: object = None) -> MatchRecord:
    """A match of random (or ``engine``) plays and random cube actions."""
    ref = Referee(length=length, rules=Rules(beavers=beavers), seed=seed, names=("al", "bo"))
    pick = random.Random(seed)
    played = 0
    while not ref.state.match_over and played < games:
        s = ref.state
        if s.game_state in (GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
            played += 1
            if played < games:
                ref.next_game()
        elif s.double_offered:
            r = pick.random()
            if beavers and s.match_length == 0 and s.beavers == 0 and r < 0.2:
                ref.beaver()
            elif r < 0.7:
                ref.take()
            else:
                ref.drop()
        elif s.game_state == GameState.NONE or s.dice == (0, 0):
            if can_double(s) and pick.random() < 0.04:
                ref.double()
            else:
                ref.roll()
        else:
            results = legal_results(s)
            if engine is not None and len(results):
                pos = gbot.Position(s.board_array())
                play = engine.best_play(pos, s.dice, ply=0)  # type: ignore[attr-defined]
                ref.play(play.position.board if play is not None else None)
            else:
                ref.play(results[pick.randrange(len(results))] if len(results) else None)
    return ref.record


def _actions(rec: MatchRecord) -> list[list[tuple[object, ...]]]:
    return [[(a.kind, a.player, tuple(sorted(a.dice)), a.board, a.value) for a in g.actions]
            for g in rec.games]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.sampled_from([0, 1, 3, 5, 7]),
       beavers=st.booleans())
def test_sgf_round_trip(seed: int, length: int, beavers: bool) -> None:
    rec = _random_match(seed, length, beavers=beavers)
    back = sgf_read.loads(sgf.dumps(rec), rec.rules)
    assert _actions(back) == _actions(rec)
    assert back.final_score == rec.final_score and back.names == rec.names
    assert back.match_length == rec.match_length


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="()[];\\ WBGMIabcdefxyz0123456:+", max_size=80))
def test_sgf_garbage_gives_a_clear_error(text: str) -> None:
    try:
        sgf_read.loads(text)
    except MatchFileError as exc:
        assert str(exc)


def test_sgf_reader_names_the_bad_move() -> None:
    import re

    good = sgf.dumps(_random_match(3, 3))
    bad = re.sub(r";([WB])\[\d\d[a-z]*\]", r";\1[66xa]", good, count=1)   # 24/1 with 66
    with pytest.raises(MatchFileError, match="game 1, node 1"):
        sgf_read.loads(bad)
    with pytest.raises(MatchFileError, match="game 1, node 1: bad point letter"):
        sgf_read.loads(re.sub(r";([WB])\[\d\d[a-z]*\]", r";\1[66x5]", good, count=1))


def test_gnubg_marks_and_rating_words() -> None:
    # gnubg 1.07's default thresholds are 0.03 / 0.06 / 0.12; its 2-ply analysis of
    # gbot-vs-gnubg matches marks errors of 0.032 doubtful, 0.078 bad and 0.123 very bad
    assert [mark(x) for x in (0.0, 0.029, 0.03, 0.032, 0.059, 0.06, 0.078, 0.119, 0.12,
                              0.123, 1.0)] == [
        "", "", "doubtful", "doubtful", "doubtful", "bad", "bad", "bad", "very bad",
        "very bad", "very bad"]
    assert [rating(x) for x in (1.0, 3.0, 6.0, 10.0, 15.0, 20.0, 30.0, 40.0)] == [
        "Supernatural", "World class", "Expert", "Advanced", "Intermediate", "Casual player",
        "Beginner", "Awful!"]


def test_engine_moves_have_no_error_at_its_own_ply() -> None:
    ev = gbot.Evaluator()
    rec = _random_match(11, 0, games=1, engine=ev)
    a = analyse(rec, ply=0)
    moves = [d for d in a.decisions if d.kind == "move"]
    assert len(moves) > 10
    assert all(d.error == pytest.approx(0.0, abs=1e-9) for d in moves if not d.forced)
    assert all(d.played == d.best for d in moves if not d.forced)


def test_random_moves_are_marked_and_luck_sums_sensibly() -> None:
    rec = _random_match(5, 0, games=1)
    a = analyse(rec, ply=0)
    moves = [d for d in a.decisions if d.kind == "move" and not d.forced]
    assert sum(1 for d in moves if d.mark == "very bad") >= 3
    p0, p1 = a.players
    assert p0.moves + p1.moves == len(moves)
    assert p0.error_rate > 35.0 and p0.rating == "Awful!"
    # every roll's luck is the difference from an average of the same figures: bounded
    assert all(abs(d.luck or 0.0) < 3.0 for d in a.decisions if d.kind == "move")
    assert a.to_json()["players"][0]["rating"] == p0.rating


def test_match_analysis_reports_mwc() -> None:
    rec = _random_match(2, 3, games=1)
    a = analyse(rec, ply=0)
    assert any(d.error_mwc is not None and d.error_mwc > 0 for d in a.decisions)
    assert 0.0 <= a.luck_adjusted() <= 1.0 or abs(a.luck_adjusted()) < 2.0


def test_gnubg_sgf_reads_as_its_mat_export() -> None:
    from pathlib import Path

    from gbot.records import matfile

    data = Path(__file__).parent / "data"
    # gnubg 1.07 saved this gbot-vs-gnubg match as .sgf (with its analysis properties) and
    # exported it as .mat
    a = sgf_read.read(data / "gnubg_3pt.sgf")
    b = matfile.read(data / "gnubg_3pt.mat")
    assert _actions(a) == _actions(b) and len(a.games) == 3
    assert a.names == b.names == ("gbot", "gnubg") and a.final_score == b.final_score


def test_no_cube_decision_where_the_cube_is_dead() -> None:
    from pathlib import Path

    from gbot.records import matfile

    # gnubg 0-ply (player 0) against gbot 0-ply, 3 points (/work/shared/tools/gnubg_match.py):
    # in game 2 player 0 (2-away at 1-0) takes a redouble to 4, after which winning
    # the game wins the match; gnubg 1.07's 2-ply analysis counts 7 close or actual cube
    # decisions for player 0 and 5 for player 1
    rec = matfile.read(Path(__file__).parent / "data" / "gnubg_3pt_dead_cube.mat")
    a = analyse(rec, ply=0)
    cube_at: dict[tuple[int, int], int] = {}
    for g in rec.games:
        cube = 1
        for i, act in enumerate(g.actions):
            cube_at[g.number, i] = cube
            if act.kind in ("take", "beaver"):
                cube *= 4 if act.kind == "beaver" else 2
    dead = 0
    for d in a.decisions:
        if d.kind != "cube":
            continue
        g = rec.games[d.game]
        away = rec.match_length - g.score[d.player]
        dead += d.played == "no double" and cube_at[d.game, d.index] >= away
    assert dead == 0
    # the turns it leaves out are many: player 0 rolls on with a dead 4-cube to the end
    assert any(cube_at[g.number, i] >= rec.match_length - g.score[0]
               for g in rec.games for i, act in enumerate(g.actions)
               if act.player == 0 and act.kind == "roll")


def test_close_cube_decisions_of_a_lost_match_position_count_as_gnubg() -> None:
    from pathlib import Path

    from gbot.records import matfile

    # gnubg 0-ply (player 0) against gbot 0-ply, 3 points: player 0 takes an early double
    # and is nearly lost for the rest of the game, where redoubling changes little in EMG;
    # gnubg 1.07 at 2-ply counts 10 and 24 unforced moves, 19 and 1 close or actual cube
    # decisions (gbot counted 1 for player 0 while it screened out match positions below
    # 40 % winning chance)
    rec = matfile.read(Path(__file__).parent / "data" / "gnubg_3pt_lost_take.mat")
    a = analyse(rec, ply=0)
    assert [p.moves for p in a.players] == [10, 24]
    assert [p.cube_decisions for p in a.players] == [19, 1]


@pytest.mark.skipif(not Path(GNUBG).exists(), reason="needs gnubg 1.07")
def test_mark_thresholds_are_gnubgs() -> None:
    import re
    import subprocess

    out = subprocess.run([GNUBG, "-t", "-q"], input="show analysis\n", capture_output=True,
                         text=True, timeout=120).stdout
    found = dict((w, float(v)) for v, w in
                 re.findall(r"^\s*-(\d\.\d+) (doubtful|bad|very bad)$", out, re.M))
    assert found == {"doubtful": DOUBTFUL, "bad": BAD, "very bad": VERY_BAD}


def test_match_play_values_are_emg() -> None:
    # 3-point match at 1-0, cube 1: the mover (3 checkers on its ace point; the opponent
    # has one checker on its 22 and one on its 20 point, 13 off) bears off two with 21 and
    # wins a single game next turn whatever happens: EMG +1 (normalised equity, gnubg's
    # scale), not the MWC scaled by the stakes
    b = np.zeros(26, dtype=np.int8)
    b[1] = 3
    b[25 - 22] = -1
    b[25 - 20] = -1
    act = Action("move", 0, (2, 1), ((1, 0), (1, 0)), tuple(int(x) for x in b))
    rec = MatchRecord(3, names=("al", "bo"),
                      games=[GameRecord(0, (1, 0), False, actions=[act])])
    assert play_values(rec, 0, 0, ["1/off 1/off"], ply=2) == pytest.approx([1.0], abs=0.01)


def test_match_values_of_gnubgs_probabilities_are_gnubgs_equities() -> None:
    from gbot.analysis.analyse import GameAnalysis

    # gnubg 1.07's 2-ply analysis of a 3-point gbot-vs-gnubg match at 0-0, player 1 on roll
    # owning a 2-cube, 31 to play (a very bad play there that gbot's 2-ply calls best):
    # its cubeless probabilities of two plays and its cubeful equities of them. gbot's
    # conversion of the same probabilities (cube model, match table, EMG at this cube)
    # must give gnubg's equities: the position, score and cube reach it as gnubg sees them
    pos = gbot.Position.from_id("bHcLgAIqtgUAWw")
    acts = [Action("double", 0, value=2), Action("take", 1),
            Action("move", 1, (3, 1), (), tuple(int(x) for x in pos.board))]
    rec = MatchRecord(3, names=("gnubg", "ext"),
                      games=[GameRecord(0, (0, 0), False, actions=acts)])
    g = GameAnalysis(rec, rec.games[0], 0, None)
    assert g.cube_before(2) == (2, 1)
    st = g.match_state(1, 2, 1, (3, 1))
    plays = {"bar/24 10/7": ((0.309, 0.009, 0.000, 0.457, 0.155), -0.647),
             "bar/24 8/5*": ((0.279, 0.006, 0.000, 0.531, 0.236), -0.794)}
    boards = np.array([pos.play_from_text(t, (3, 1)).position.swapped().board
                       for t in plays], dtype=np.int8)
    probs = np.array([p for p, _ in plays.values()])
    got = g.values_of(probs, boards, st)
    assert got == pytest.approx([e for _, e in plays.values()], abs=0.004)


def test_read_match_refuses_before_replaying(tmp_path: Path) -> None:
    from gbot.analysis.analyse import MAX_GAMES, read_match

    data = Path(__file__).parent / "data"
    long = tmp_path / "long.mat"
    long.write_text((data / "gnubg_3pt.mat").read_text().replace(" 3 point match",
                                                                 " 32767 point match"))
    with pytest.raises(MatchFileError, match="from 0 to 64, got '32767'"):
        read_match(str(long))
    many = tmp_path / "many.sgf"
    many.write_text("(;GM[6]MI[length:0])\n" * (MAX_GAMES + 1))
    with pytest.raises(MatchFileError, match=f"more than {MAX_GAMES:,} game trees"):
        read_match(str(many))


def test_luck_adjusted_result_is_the_result_less_the_luck_difference() -> None:
    """gnubg's arithmetic: the actual result (1 or 0; for an unfinished match the winning
    chance at its last score) less player 0's luck plus player 1's, in MWC, not halved."""
    from dataclasses import replace

    from gbot.cube.met import default_table

    a = analyse(_random_match(2, 3, games=1), ply=0)
    p0, p1 = a.players
    lucky = replace(a, players=(replace(p0, luck_mwc=0.30), replace(p1, luck_mwc=-0.10)))
    for score, result in (((3, 1), 1.0), ((0, 3), 0.0), ((1, 0), default_table().mwc(2, 3))):
        got = replace(lucky, final_score=score).luck_adjusted()
        assert got == pytest.approx(result - 0.40)
    assert default_table().mwc(2, 3) > 0.5
