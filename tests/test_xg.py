"""eXtreme Gammon ``.xg`` / ``.xgp`` reading (:mod:`gbot.records.xg`), on files assembled from
the public format description by :mod:`tests.xgbuild` (no file written by XG itself is at
hand): hand-worked matches, round trips through the ``.mat`` writer, positions, and damaged
or hostile files, each refused in one line or read with warnings in bounded time."""

from __future__ import annotations

import struct
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbot.analysis.analyse import MAX_ENTRIES, MAX_GAMES, read_match
from gbot.core.board import flip_py
from gbot.errors import MatchFileError
from gbot.game.match import CENTRE, GameState, Rules
from gbot.game.referee import MatchRecord
from gbot.game.variations import start_board
from gbot.records import matfile, xg
from gbot.records.matfile import MatchFileWarning
from tests import xgbuild
from tests.xgbuild import Match, container


def _read(data: bytes, **kw: object) -> tuple[MatchRecord, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MatchFileWarning)
        rec = xg.loads(data, **kw)  # type: ignore[arg-type]
    return rec, [str(w.message) for w in caught if isinstance(w.message, MatchFileWarning)]


def three_point() -> Match:
    """Hand-worked 3-point match, Alice (XG player 1) against Bob (XG player 2):

    1. Alice opens 31: 8/5 6/5, Bob 52: 13/8 13/11, Alice doubles, Bob drops: 1-0 Alice.
    2. Bob opens 64: 24/18 13/9, Alice 62: 24/18 13/11, Bob doubles, Alice takes, Bob 31:
       8/5 6/5, Alice resigns a single game at cube 2: Alice 1, Bob 2.
    3. Crawford game: Alice 21: 13/11 6/5, Bob 43: 24/20* 13/10, Bob resigns: 2-2.
    4. Bob 43: 24/20 13/10, Alice doubles, Bob takes, Alice 66: 24/18(2) 13/7(2), Bob
       resigns a single game at cube 2: Alice wins the match 4-2.
    """
    return (Match(length=3)
            .game(0, 0, 1).play(1, (3, 1), "8/5 6/5").play(-1, (5, 2), "13/8 13/11")
            .double(1, 0).end(1, 0, 1, 1, 0)
            .game(1, 0, 2).play(-1, (6, 4), "24/18 13/9").play(1, (6, 2), "24/18 13/11")
            .double(-1, 1).play(-1, (3, 1), "8/5 6/5").end(1, 2, -1, 2, 101)
            .game(1, 2, 3, crawford=True).play(1, (2, 1), "13/11 6/5")
            .play(-1, (4, 3), "24/20 13/10").end(2, 2, 1, 1, 101)
            .game(2, 2, 4).play(-1, (4, 3), "24/20 13/10").double(1, 1)
            .play(1, (6, 6), "24/18 24/18 13/7 13/7").end(4, 2, 1, 2, 101)
            .finish(4, 2, 1))


def _kinds(rec: MatchRecord, game: int) -> list[tuple[str, int]]:
    return [(a.kind, a.player) for a in rec.games[game].actions if a.kind != "roll"]


# --------------------------------------------------------------------------- hand-worked


def test_hand_worked_three_point_match() -> None:
    rec, said = _read(three_point().file())
    assert said == []
    # XG's player 2 (Bob) is gbot's player 0, player 1 (Alice) gbot's player 1
    assert rec.names == ("Bob", "Alice")
    assert rec.match_length == 3
    assert [g.score for g in rec.games] == [(0, 0), (0, 1), (2, 1), (2, 2)]
    assert [(g.winner, g.points) for g in rec.games] == [(1, 1), (0, 2), (1, 1), (1, 2)]
    assert [g.how for g in rec.games] == [GameState.DROPPED, GameState.RESIGNED,
                                          GameState.RESIGNED, GameState.RESIGNED]
    assert [g.crawford for g in rec.games] == [False, False, True, False]
    assert rec.final_score == (2, 4)
    first = rec.games[0].actions[1]
    assert (first.kind, first.player, first.steps) == ("move", 1, ((8, 5), (6, 5)))
    assert _kinds(rec, 0) == [("move", 1), ("move", 0), ("double", 1), ("drop", 0), ("win", 1)]
    assert _kinds(rec, 1)[2:6] == [("double", 0), ("take", 1), ("move", 0), ("resign", 1)]
    hit = rec.games[2].actions[3]
    assert hit.steps == ((24, 20), (13, 10))
    assert rec.games[3].actions[-3].value == 1          # a single game resigned at cube 2


def test_mat_round_trip() -> None:
    rec, _ = _read(three_point().file())
    text = matfile.dumps(rec)
    assert "31: 8/5 6/5" in text and "43: 24/20* 13/10" in text
    back = matfile.loads(text)
    assert back.final_score == rec.final_score == (2, 4)
    assert [(g.winner, g.points, g.score) for g in back.games] == \
        [(g.winner, g.points, g.score) for g in rec.games]
    moves = [[a.steps for a in g.actions if a.kind == "move"] for g in rec.games]
    assert [[a.steps for a in g.actions if a.kind == "move"] for g in back.games] == moves


def test_money_session_with_jacoby_beaver_and_raccoon() -> None:
    m = (Match(length=99999, header_kw={"jacoby": True, "beaver": True})
         .game(0, 0, 1).play(1, (3, 1), "8/5 6/5").double(-1, 2, beaver=1)
         .play(-1, (5, 2), "13/8 13/11").end(0, 8, -1, 8, 102)
         .game(0, 8, 2).play(-1, (3, 1), "8/5 6/5").double(1, 2, beaver=2, raccoon=1)
         .play(1, (6, 5), "24/18 18/13").end(8, 8, 1, 8, 101))
    rec, said = _read(m.file())
    assert said == []
    assert rec.match_length == 0
    assert rec.rules.jacoby and rec.rules.beavers and rec.rules.raccoons
    # game 1: Bob doubles, Alice beavers (cube 4), Bob takes, Alice resigns a gammon: 8
    assert _kinds(rec, 0)[1:4] == [("double", 0), ("beaver", 1), ("take", 0)]
    assert (rec.games[0].winner, rec.games[0].points) == (0, 8)
    # game 2: Alice doubles, Bob beavers, Alice raccoons, Bob takes: cube 8, single game
    assert _kinds(rec, 1)[1:5] == [("double", 1), ("beaver", 0), ("beaver", 1), ("take", 0)]
    assert (rec.games[1].winner, rec.games[1].points) == (1, 8)
    assert rec.final_score == (8, 8)


def test_beaver_refused_ends_the_game_at_twice_the_cube() -> None:
    m = (Match(length=99999, header_kw={"beaver": True})
         .game(0, 0, 1).play(1, (3, 1), "8/5 6/5").double(-1, 2, beaver=0).end(2, 0, 1, 2, 0))
    rec, said = _read(m.file())
    assert said == []
    assert (rec.games[0].winner, rec.games[0].points, rec.games[0].how) == \
        (1, 2, GameState.DROPPED)


def test_unicode_names_and_ansi_fallback() -> None:
    m = Match(p1="Zoe", p2="Ann", header_kw={"wide1": "Zoë".encode("utf-16-le") + b"\0\0",
                                             "wide2": b"\0\0"})
    m.game(0, 0, 1).play(1, (3, 1), "8/5 6/5").end(0, 0, 0, 0)
    rec, _ = _read(m.file())
    assert rec.names == ("Ann", "Zoë")
    assert rec.games[0].how == GameState.PLAYING        # no result recorded


def test_names_that_are_no_utf16_are_replaced_not_refused() -> None:
    m = Match(header_kw={"wide1": b"\x00\xd8A\x00\n\x00\0\0", "version": 30})
    m.game(0, 0, 1).play(1, (3, 1), "8/5 6/5").end(1, 0, 1, 1)
    rec, _ = _read(m.file())
    assert rec.names[1] == "\ufffdA"
    old = Match(p1="Old", header_kw={"version": 20})
    old.game(0, 0, 1).play(1, (3, 1), "8/5 6/5").end(1, 0, 1, 1)
    assert _read(old.file())[0].names == ("Bob", "Old")


def test_positions_stored_from_player_1s_side_read_alike() -> None:
    a, _ = _read(three_point().file())
    m = three_point()
    m2 = Match(length=3, mirror_p2=True)
    m2.records = m.records[:1]
    rebuilt = (m2.game(0, 0, 1).play(1, (3, 1), "8/5 6/5").play(-1, (5, 2), "13/8 13/11")
               .double(1, 0).end(1, 0, 1, 1, 0))
    b, said = _read(rebuilt.file())
    assert said == []
    assert b.games[0].actions == a.games[0].actions


def test_container_variants_stored_members_thumbnail_and_plain_registry() -> None:
    temp = three_point().temp_xg()
    extra = {"temp.xgi": b"x" * 100, "temp.xgc": b"{\\rtf1 hello}\r\n"}
    for kw in ({"stored": True}, {"registry_compressed": False},
               {"thumbnail": b"\xff\xd8" + b"\0" * 3000}, {"extra": extra}):
        rec, said = _read(container(temp, **kw))  # type: ignore[arg-type]
        assert rec.final_score == (2, 4) and said == [], kw


def test_read_match_dispatches_on_suffix_and_magic(tmp_path: Path) -> None:
    data = three_point().file()
    for name in ("m.xg", "m.XG", "m.bin"):
        (tmp_path / name).write_bytes(data)
        assert read_match(str(tmp_path / name)).final_score == (2, 4)
    (tmp_path / "p.xgp").write_bytes(data)
    with pytest.raises(MatchFileError, match="gbot hint"):
        read_match(str(tmp_path / "p.xgp"))


def test_gbot_analyse_reads_an_xg_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gbot.cli import main

    f = tmp_path / "m.xg"
    f.write_bytes(three_point().file())
    out = CliRunner().invoke(main, ["analyse", str(f), "--ply", "0", "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert "Alice" in out.output and "Bob" in out.output


# --------------------------------------------------------------------------- inconsistent play


def test_illegal_move_list_read_from_the_position_after_it() -> None:
    m = Match(length=3).game(0, 0, 1)
    # the list says 8/5 6/4 for 31 (no legal play), the position after it is 8/5 6/5
    m.play(1, (3, 1), "8/5 6/5", pairs=[7, 4, 5, 3]).play(-1, (5, 2), "13/8 13/11")
    m.end(1, 0, 1, 1)
    rec, said = _read(m.file())
    assert rec.games[0].actions[1].steps == ((8, 5), (6, 5))
    assert len(said) == 1 and "game 1, move 1 (record 4)" in said[0]
    assert "reaches the position the file gives" in said[0]


def test_move_lists_as_xg_writes_them_junk_after_the_end_mark_and_bar_entries() -> None:
    """Move lists as files written by XG itself hold them (facts from a public reader tested on
    such files): what follows the first ``-1`` is leftover data, not steps; the bar is 24."""
    m = Match(length=3).game(0, 0, 1)
    m.play(1, (6, 2), "24/18 13/11", pairs=[23, 17, 12, 10, -1, 1, 2, 1])
    m.play(-1, (6, 1), "13/7* 8/7", pairs=[12, 6, 7, 6, -1, 6, 6, 0])
    m.play(1, (6, 3), "bar/22 22/16", pairs=[24, 21, 21, 15, -1, 3, 5, 3])
    m.end(1, 0, 1, 1)
    rec, said = _read(m.file())
    assert said == []
    moves = [a.steps for a in rec.games[0].actions if a.kind == "move"]
    assert moves == [((24, 18), (13, 11)), ((13, 7), (8, 7)), ((25, 22), (22, 16))]


def test_legal_move_list_that_disagrees_with_the_position_after_it_is_kept() -> None:
    m = Match(length=3).game(0, 0, 1)
    m.play(1, (3, 1), "8/5 6/5", pairs=[7, 4, 7, 6]).play(-1, (5, 2), "13/8 13/11")
    m.end(1, 0, 1, 1)
    rec, said = _read(m.file())
    assert rec.games[0].actions[1].steps == ((8, 5), (8, 7))
    # the file's later positions follow its own line: each move after says so too
    assert "move 1 (record 4)" in said[0] and "another position" in said[0]
    assert rec.games[0].winner == 1


def test_illegal_move_and_position_skip_the_rest_of_the_game_keep_the_result() -> None:
    m = Match(length=3).game(0, 0, 1).play(1, (3, 1), "8/5 6/5")
    m.records[-1] = xgbuild.move(1, (6, 4), xgbuild.pairs_of("8/5 6/5"), m.board, m.board)
    m.play(-1, (5, 2), "13/8 13/11").end(1, 0, 1, 1)
    m.game(1, 0, 2).play(-1, (3, 1), "8/5 6/5").end(1, 1, -1, 1)
    rec, said = _read(m.file())
    assert [(g.winner, g.points) for g in rec.games] == [(1, 1), (0, 1)]
    assert rec.final_score == (1, 1)
    assert any("game 1, move 1 (record 4)" in s and "skipped" in s for s in said)


def test_edited_position_and_autodoubles_skip_the_game_with_a_warning() -> None:
    m = Match(length=99999).game(0, 0, 1, autodoubles=1).play(1, (3, 1), "8/5 6/5")
    m.end(0, 2, -1, 2)
    m.game(0, 2, 2).play(1, (3, 1), "8/5 6/5")
    m.records.append(xgbuild.cube(-1, 0, edited=True))
    m.end(0, 3, -1, 1)
    rec, said = _read(m.file())
    assert rec.final_score == (3, 0)
    assert any("automatic double" in s for s in said)
    assert any("edited in XG" in s for s in said)


def test_score_and_footer_disagreements_are_warnings() -> None:
    m = Match(length=5).game(0, 0, 1).play(1, (3, 1), "8/5 6/5").double(-1, 0).end(0, 1, -1, 1)
    m.game(0, 3, 2).play(1, (3, 1), "8/5 6/5").double(-1, 0).end(0, 4, -1, 1).finish(0, 9, -1)
    rec, said = _read(m.file())
    assert rec.final_score == (4, 0)
    assert any("the file says score 3-0" in s for s in said)
    assert any("match footer" in s for s in said)


def test_unknown_record_types_and_strays_are_skipped() -> None:
    m = three_point()
    missing = bytearray(2560)
    missing[8] = 6
    m.records.insert(1, bytes(missing))
    m.records.insert(1, xgbuild.cube(1))           # a cube record before any game
    rec, said = _read(m.file())
    assert rec.final_score == (2, 4)
    assert any("outside a game" in s for s in said)
    assert any("type 6" in s for s in said)


# --------------------------------------------------------------------------- refused


def _refused(data: bytes, match: str, **kw: object) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MatchFileWarning)
        with pytest.raises(MatchFileError, match=match) as exc:
            xg.loads(data, **kw)  # type: ignore[arg-type]
    text = str(exc.value)
    assert "\n" not in text and len(text) < 300
    return text


def _with_trailer(data: bytes, **fields: int) -> bytes:
    end = len(data) - 36
    names = ("crc", "count", "version", "reg_size", "arch_size", "packed")
    values = dict(zip(names, struct.unpack_from("<Iiiiii", data, end), strict=True))
    values.update(fields)
    return data[:end] + struct.pack("<Iiiiii12x", *(values[n] for n in names))


def test_empty_short_and_wrong_magic() -> None:
    good = three_point().file()
    _refused(b"", "too short")
    _refused(good[:9000], "too short|trailer|archive")
    _refused(b"PK\x03\x04" + good[4:], "not an eXtreme Gammon file")
    _refused(good[:4] + struct.pack("<i", 2) + good[8:], "unknown eXtreme Gammon header")


def test_truncated_files_are_refused_in_one_line() -> None:
    good = three_point().file()
    for cut in (10, 36, 100, len(good) // 2, len(good) - 8232):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MatchFileWarning)
            with pytest.raises(MatchFileError):
                xg.loads(good[:-cut])


def test_bad_trailer_offsets_and_counts() -> None:
    good = three_point().file()
    _refused(_with_trailer(good, reg_size=2**31 - 1), "outside the file")
    _refused(_with_trailer(good, arch_size=-5), "outside the file")
    _refused(_with_trailer(good, count=2**31 - 1), "lists 2147483647 files")
    _refused(_with_trailer(good, count=0), "lists 0 files")
    _refused(_with_trailer(good, count=3), "registry")


def test_registry_without_temp_xg_and_member_outside_the_archive() -> None:
    temp = three_point().temp_xg()
    renamed = container(temp, registry_compressed=False).replace(b"\x07temp.xg", b"\x07temp.xq")
    _refused(renamed, "no temp.xg")
    data = bytearray(container(temp, registry_compressed=False))
    end = len(data) - 36
    reg = end - 532
    struct.pack_into("<i", data, reg + 520, 10**8)
    _refused(bytes(data), "outside the archive")


def test_member_that_is_no_game_file() -> None:
    _refused(container(b"\0" * 5120), "DMLI")
    _refused(container(b"not zlib", stored=True), "no record")
    m = three_point()
    _refused(container(m.records[1] + m.records[0][9:] + b"\0" * 9), "DMLI")


def test_out_of_range_numbers() -> None:
    _refused(Match(length=65).game(0, 0, 1).file(), "match length 65")
    _refused(Match(length=-3).game(0, 0, 1).file(), "match length -3")
    _refused(Match(header_kw={"variation": 3}).game(0, 0, 1).file(), "Longgammon")
    bad = Match().game(0, 0, 1)
    bad.records.append(xgbuild.move(5, (3, 1), [7, 4, 5, 4], bad.board, bad.board))
    _refused(bad.file(), "player is 5")
    dice = Match().game(0, 0, 1)
    dice.records.append(xgbuild.move(1, (0, 9), [7, 4, 5, 4], dice.board, dice.board))
    _refused(dice.file(), "dice 0-9")
    step = Match().game(0, 0, 1)
    step.records.append(xgbuild.move(1, (3, 1), [99, 4], step.board, step.board))
    _refused(step.file(), "no step")
    _refused(Match().game(-1, 0, 1).file(), "score -1")
    answer = Match().game(0, 0, 1)
    answer.records.append(xgbuild.cube(1, 1, 7))
    _refused(answer.file(), "cube answer 7")
    _refused(Match().game(0, 0, 1).end(1, 0, 1, 10**9).file(), "points won")
    _refused(Match().finish(0, 0, 1).file(), "no game")


def test_game_and_entry_limits() -> None:
    m = Match(length=0)
    for k in range(5):
        m.game(0, k, k + 1).play(1, (3, 1), "8/5 6/5").double(-1, 0).end(0, k + 1, -1, 1)
    _refused(m.file(), "more than 3 games", max_games=3, max_entries=1000)
    _refused(m.file(), "more than 7 moves", max_games=10, max_entries=7)
    assert _read(m.file(), max_games=5, max_entries=15)[0].final_score == (5, 0)


def _bomb(records: int) -> bytes:
    """temp.xg of a match header then ``records`` empty records, compressed a piece at a
    time (the inflated member is never built here)."""
    head = xgbuild.match_header()
    c = zlib.compressobj(9)
    body = bytearray(c.compress(head))
    zeros = b"\0" * (2560 * 256)
    for _ in range(records // 256):
        body += c.compress(zeros)
    body += c.flush()
    return bytes(body)


def _bomb_file(body: bytes) -> bytes:
    reg = bytearray(532)
    reg[0] = 7
    reg[1:8] = b"temp.xg"
    struct.pack_into("<iiiI", reg, 512, 2560, len(body), 0, 0)
    reg_z = zlib.compress(bytes(reg))
    archive = body + reg_z
    trailer = struct.pack("<Iiiiii12x", zlib.crc32(archive), 1, 1, len(reg_z), len(body), 1)
    head = bytearray(8232)
    head[0:4] = b"RGMH"
    struct.pack_into("<ii", head, 4, 1, 8232)
    return bytes(head) + archive + trailer


def test_zlib_bomb_is_refused_at_the_record_limit() -> None:
    data = _bomb_file(_bomb(30_000))
    assert len(data) < 200_000                      # 77 MB inflated
    t = time.monotonic()
    _refused(data, "more than 3,002 records", max_games=1000, max_entries=0)
    assert time.monotonic() - t < 5


@pytest.mark.slow
def test_zlib_bomb_at_the_default_limit_in_bounded_time() -> None:
    data = _bomb_file(_bomb(300_000))
    t = time.monotonic()
    _refused(data, "more than 250,000 records")
    assert time.monotonic() - t < 30


def test_16_mib_of_junk_is_refused_fast(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    junk = b"RGMH" + rng.integers(0, 256, 16 * 1024 * 1024 - 4, dtype=np.uint8).tobytes()
    f = tmp_path / "junk.xg"
    f.write_bytes(junk)
    t = time.monotonic()
    with pytest.raises(MatchFileError):
        read_match(str(f))
    assert time.monotonic() - t < 5
    f.write_bytes(junk + b"x")
    with pytest.raises(MatchFileError, match="more than the 16,777,216"):
        read_match(str(f))


# --------------------------------------------------------------------------- positions


def xgp(records: list[bytes], **kw: object) -> bytes:
    return container(b"".join(records), **kw)  # type: ignore[arg-type]


def test_xgp_checker_play_position() -> None:
    board = np.zeros(26, dtype=np.int8)
    board[[6, 8, 13, 24]] = [5, 3, 5, 2]
    board[[1, 12, 17, 19]] = [-2, -5, -3, -5]
    after = board.copy()
    after[[24, 18, 13, 10]] += [-1, 1, -1, 1]
    data = xgp([xgbuild.match_header(length=7), xgbuild.header_game(4, 4, 9),
                xgbuild.cube(-1, -2, cube_log=1, board=board),
                xgbuild.move(-1, (6, 3), [23, 17, 12, 9], board, after, cube_log=1)])
    sit = xg.loads_position(data)
    assert sit.deciding == "move" and sit.dice == (6, 3)
    assert np.array_equal(sit.position.board, board)
    s = sit.state
    assert (s.match_length, s.score, s.player_on_roll, s.cube_value, s.cube_owner) == \
        (7, (4, 4), 0, 2, 1)


def test_xgp_position_stored_mirrored_is_read_from_the_movers_side() -> None:
    board = np.zeros(26, dtype=np.int8)
    board[[6, 8, 13, 24]] = [5, 3, 5, 2]
    board[[1, 12, 17, 19]] = [-2, -5, -3, -5]
    board[6] = 4
    board[5] = 1
    after = board.copy()
    after[[24, 18, 13, 10]] += [-1, 1, -1, 1]
    data = xgp([xgbuild.match_header(length=99999, jacoby=True),
                xgbuild.header_game(0, 0, 1),
                xgbuild.move(-1, (6, 3), [23, 17, 12, 9], flip_py(board), flip_py(after))])
    sit = xg.loads_position(data)
    assert np.array_equal(sit.position.board, board)
    assert sit.state.match_length == 0 and sit.state.rules.jacoby


def test_xgp_cube_position_and_bad_ones() -> None:
    data = xgp([xgbuild.match_header(length=5), xgbuild.header_game(2, 3, 3),
                xgbuild.cube(1, 0, cube_log=0)])
    sit = xg.loads_position(data)
    assert sit.deciding == "double" and sit.state.cube_owner == CENTRE
    assert sit.state.score == (3, 2) and sit.state.player_on_roll == 1
    with pytest.raises(MatchFileError, match="no position"):
        xg.loads_position(xgp([xgbuild.match_header(), xgbuild.header_game(0, 0, 1)]))
    with pytest.raises(MatchFileError, match="past the end"):
        xg.loads_position(xgp([xgbuild.match_header(length=3), xgbuild.header_game(3, 0, 1),
                               xgbuild.cube(1)]))
    crowded = np.zeros(26, dtype=np.int8)
    crowded[3] = 20
    with pytest.raises(MatchFileError, match="record 3"):
        xg.loads_position(xgp([xgbuild.match_header(), xgbuild.header_game(0, 0, 1),
                               xgbuild.cube(1, board=crowded)]))


def test_gbot_hint_reads_an_xgp_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gbot.cli import main

    f = tmp_path / "p.xgp"
    f.write_bytes(xgp([xgbuild.match_header(length=99999), xgbuild.header_game(0, 0, 1),
                       xgbuild.cube(1, -2),
                       xgbuild.move(1, (3, 1), [7, 4, 5, 4], start_board(),
                                    start_board())]))
    out = CliRunner().invoke(main, ["hint", str(f)])
    assert out.exit_code == 0, out.output
    assert "8/5 6/5" in out.output
    bad = tmp_path / "bad.xgp"
    bad.write_bytes(b"RGMH")
    out = CliRunner().invoke(main, ["hint", str(bad)])
    assert out.exit_code != 0 and "too short" in out.output


# --------------------------------------------------------------------------- fuzzing

_GOOD = three_point()
_FILES = (_GOOD.file(), _GOOD.file(stored=True, registry_compressed=False))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from([0, 1]), data=st.data())
def test_mutated_files_give_a_record_or_a_match_file_error(which: int,
                                                           data: st.DataObject) -> None:
    raw = bytearray(_FILES[which])
    lo = 0 if which == 0 else 8232
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(lo, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, 64))
    if cut and data.draw(st.booleans()):
        raw = raw[:-cut]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MatchFileWarning)
        try:
            rec = xg.loads(bytes(raw), max_games=MAX_GAMES, max_entries=MAX_ENTRIES)
        except MatchFileError as exc:
            assert "\n" not in str(exc)
        else:
            assert isinstance(rec, MatchRecord)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(min_size=2560, max_size=2560), max_size=4), st.data())
def test_random_records_after_a_match_header(records: list[bytes],
                                             data: st.DataObject) -> None:
    recs = [bytearray(r) for r in records]
    for r in recs:
        r[8] = data.draw(st.integers(0, 7))
    body = xgbuild.match_header() + xgbuild.header_game(0, 0, 1) + b"".join(recs)
    for f in (container(body), xgp([body])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MatchFileWarning)
            for read in (xg.loads, xg.loads_position):
                try:
                    read(f)  # type: ignore[operator]
                except MatchFileError as exc:
                    assert "\n" not in str(exc)


def test_rules_of_the_file_are_kept() -> None:
    m = Match(length=99999, header_kw={"variation": 1}).game(
        0, 0, 1, board=start_board("nackgammon"))
    m.board = start_board("nackgammon")
    m.records.append(xgbuild.footer_game(1, 0, 1, 1))
    rec, said = _read(m.file())
    assert rec.rules.variation == "nackgammon"
    assert rec.rules == Rules(variation="nackgammon")
