"""gnubg Match ID codec against gnubg 1.07's vectors, hand-decoded IDs, round trips and fuzz."""

from __future__ import annotations

import ast
import base64
import random
import string
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gbot
from gbot.errors import MatchIdError
from gbot.game.match import (
    CENTRE,
    GameState,
    MatchState,
    Rules,
    match_id_fields,
    state_from_match_id,
)
from gbot.game.notations import match_id
from gbot.game.notations.match_id import MatchIdFields
from tests.conftest import gnubg_binary, read_jsonl, run_gnubg_script, shared_path


def _vectors() -> list[dict[str, Any]]:
    return [r for r in read_jsonl(shared_path("vectors", "ids.jsonl")) if r["kind"] == "match"]


def _fields(rec: dict[str, Any]) -> MatchIdFields:
    f = dict(rec["fields"])
    f["dice"] = tuple(f["dice"])
    f["score"] = tuple(f["score"])
    return MatchIdFields(**f)


def test_issue_example() -> None:
    state = gbot.MatchState.from_match_id("cAkAAAAAAAAA")
    assert state.match_id() == "cAkAAAAAAAAA"
    assert state.match_length == 0 and state.cube_value == 1 and state.cube_owner == CENTRE
    assert state.player_on_roll == 1 and state.player_to_act == 1
    assert state.game_state == GameState.PLAYING and state.dice == (0, 0)


def test_manual_example_hand_decoded() -> None:
    # gnubg's manual: 9-point match, score 2-4, player 0 owns a 2-cube, player 1 rolled 5-2.
    f = match_id.decode("QYkqASAAIAAA")
    assert f == MatchIdFields(cube=2, cube_owner=0, dice_owner=1, crawford=False, game_state=1,
                              turn=1, doubled=False, resigned=0, dice=(5, 2), match_length=9,
                              score=(2, 4), jacoby=True)
    # the manual's ID predates bit 66, so it reads as "Jacoby on"; gnubg 1.07 writes 1 there
    assert match_id.encode(replace(f, jacoby=False)) == "QYkqASAAIAAE"


def test_every_vector_encodes_and_decodes() -> None:
    recs = _vectors()
    assert len(recs) >= 30
    for rec in recs:
        mid = rec["match_id"]
        fields = _fields(rec)
        assert match_id.encode(fields) == mid, rec["description"]
        # quirk: the larger die is always written first
        high_first = replace(fields, dice=tuple(sorted(fields.dice, reverse=True)))
        assert match_id.decode(mid) == high_first, rec["description"]
        assert match_id.encode(match_id.decode(mid)) == mid


def test_every_vector_through_match_state() -> None:
    for rec in _vectors():
        mid, f = rec["match_id"], rec["fields"]
        state = MatchState.from_match_id(mid)
        assert state.match_id() == mid, rec["description"]
        assert state.match_length == f["match_length"]
        assert state.score == tuple(f["score"])
        assert state.cube_value == f["cube"] and state.cube_owner == f["cube_owner"]
        assert state.player_on_roll == f["dice_owner"] and state.player_to_act == f["turn"]
        assert state.crawford == bool(f["crawford"])
        assert state.game_state == GameState(f["game_state"])
        assert state.double_offered == bool(f["doubled"])
        assert state.resign_offered == f["resigned"]
        assert sorted(state.dice) == sorted(f["dice"])
        assert state.rules.jacoby == bool(f["jacoby"])
        assert match_id_fields(state_from_match_id(match_id.decode(mid))) == match_id.decode(mid)


def test_dice_order_quirk() -> None:
    a = MatchIdFields(dice_owner=1, turn=1, dice=(2, 5), jacoby=True)
    b = replace(a, dice=(5, 2))
    assert match_id.encode(a) == match_id.encode(b) == "cIkKAAAAAAAA"
    assert match_id.decode("cIkKAAAAAAAA").dice == (5, 2)


def test_jacoby_bit_is_inverted() -> None:
    assert match_id.encode(MatchIdFields(jacoby=True)) == "MAEAAAAAAAAA"
    assert match_id.encode(MatchIdFields(jacoby=False)) == "MAEAAAAAAAAE"
    assert MatchState.from_match_id("MAEAAAAAAAAA").rules.jacoby is True
    assert MatchState.from_match_id("MAEAAAAAAAAE").rules.jacoby is False
    # a match state made with default rules writes "Jacoby off", as gnubg 1.07 does in matches
    assert MatchState(match_length=7).match_id().endswith("E")


def test_to_state_keeps_other_rules_and_infers_crawford_done() -> None:
    rules = Rules(beavers=True, cube_cap=64)
    s = state_from_match_id(match_id.decode("MAEAAAAAAAAA"), rules)
    assert s.rules == replace(rules, jacoby=True)
    assert state_from_match_id(match_id.decode("sAGgAcAAAAAE")).crawford_done  # Crawford game
    assert state_from_match_id(match_id.decode("QQmrAQAAYAAE")).crawford_done  # post-Crawford
    assert not state_from_match_id(match_id.decode("QYnqACAAIAAE")).crawford_done


@st.composite
def match_fields(draw: st.DrawFn) -> MatchIdFields:
    """Any Match ID field set a game can reach."""
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 11, 25, 64, 32767]))
    game_state = draw(st.integers(0, 4))
    if length:
        top = length - 1 if game_state == 1 else 32767
        score = (draw(st.integers(0, top)), draw(st.integers(0, top)))
    else:
        score = (draw(st.integers(0, 32767)), draw(st.integers(0, 32767)))
    crawford = bool(length) and draw(st.booleans())
    dice_owner = draw(st.integers(0, 1))
    pending = draw(st.sampled_from(["none", "double", "resign"]))
    doubled = pending == "double"
    resigned = draw(st.integers(1, 3)) if pending == "resign" else 0
    turn = 1 - dice_owner if doubled else draw(st.integers(0, 1))
    dice = (0, 0) if doubled or draw(st.booleans()) else (
        draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return MatchIdFields(
        cube=2 ** draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([CENTRE, 0, 1])),
        dice_owner=dice_owner,
        crawford=crawford,
        game_state=game_state,
        turn=turn,
        doubled=doubled,
        resigned=resigned,
        dice=dice,
        match_length=length,
        score=score,
        jacoby=draw(st.booleans()),
    )


@given(match_fields())
@settings(max_examples=300, deadline=None)
def test_round_trip_random_fields(f: MatchIdFields) -> None:
    mid = match_id.encode(f)
    assert len(mid) == 12
    back = match_id.decode(mid)
    assert back == replace(f, dice=tuple(sorted(f.dice, reverse=True)))
    assert match_id.encode(back) == mid
    assert MatchState.from_match_id(mid).match_id() == mid


@pytest.mark.parametrize(
    "bad",
    ["", "cAkAAAAAAAA", "cAkAAAAAAAAAA", "cAkAAAAAAAA=", "cAkAAAA AAAA", "cAkAAAAAAAA!",
     "cAkAAAAAAAA\u00e9", "MAEAAAAAAAA8"],
)
def test_malformed_ids_raise(bad: str) -> None:
    with pytest.raises(MatchIdError) as exc:
        match_id.decode(bad)
    assert repr(bad) in str(exc.value)


def _with_bits(**values: int) -> str:
    """A Match ID with the given raw fields, for impossible combinations."""
    layout = {name: (start, width) for name, start, width in match_id.LAYOUT}
    key = (3 << 4) | (1 << 8) | (1 << 66)  # centred cube, playing, Jacoby off
    for name, v in values.items():
        start, width = layout[name]
        key &= ~(((1 << width) - 1) << start)
        key |= v << start
    return base64.b64encode(key.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    "raw",
    [
        {"owner": 2},
        {"game_state": 5},
        {"game_state": 7},
        {"die1": 7, "die2": 3},
        {"die1": 4, "die2": 0},
        {"crawford": 1},  # Crawford in money
        {"doubled": 1, "resigned": 1, "turn": 1},
        {"doubled": 1, "die1": 3, "die2": 1, "turn": 1},
        {"doubled": 1},  # turn equals the doubler
        {"match_length": 5, "score0": 5},
    ],
)
def test_impossible_fields_raise(raw: dict[str, int]) -> None:
    mid = _with_bits(**raw)
    with pytest.raises(MatchIdError) as exc:
        match_id.decode(mid)
    assert repr(mid) in str(exc.value)


def test_unused_bits_raise() -> None:
    mid = match_id.encode(MatchIdFields())
    data = bytearray(base64.b64decode(mid))
    data[8] |= 0x80
    bad = base64.b64encode(bytes(data)).decode()
    with pytest.raises(MatchIdError, match="beyond bit 66"):
        match_id.decode(bad)


@pytest.mark.parametrize(
    "kwargs",
    [{"cube": 3}, {"cube": 0}, {"cube": 2**16}, {"cube_owner": 2}, {"dice": (0, 4)},
     {"dice": (7, 1)}, {"score": (-1, 0)}, {"match_length": 40000}, {"turn": 2},
     {"resigned": 4}, {"dice": (1,)}],
)
def test_impossible_field_values_raise(kwargs: dict[str, Any]) -> None:
    with pytest.raises(MatchIdError):
        MatchIdFields(**kwargs)


@given(st.text(alphabet=string.ascii_letters + string.digits + "+/=!- ", max_size=14))
@settings(max_examples=400, deadline=None)
def test_fuzz_random_text(text: str) -> None:
    try:
        f = match_id.decode(text)
    except MatchIdError as exc:
        assert repr(text) in str(exc)
        return
    high_first = replace(f, dice=tuple(sorted(f.dice, reverse=True)))
    assert match_id.decode(match_id.encode(f)) == high_first
    if f == high_first:
        assert match_id.encode(f) == text.strip()


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_fuzz_mutated_vectors(data: st.DataObject) -> None:
    recs = _vectors()
    mid = data.draw(st.sampled_from([r["match_id"] for r in recs]))
    i = data.draw(st.integers(0, 11))
    ch = data.draw(st.sampled_from(string.ascii_letters + string.digits + "+/"))
    text = mid[:i] + ch + mid[i + 1:]
    try:
        f = match_id.decode(text)
    except MatchIdError as exc:
        assert repr(text) in str(exc)
        return
    if f.dice[0] >= f.dice[1]:
        assert match_id.encode(f) == text


_GNUBG_SCRIPT = r"""
import gnubg, json, os
for c in ["set player 0 human", "set player 1 human", "set display off", "new session"]:
    gnubg.command(c)
out = []
for f in json.load(open(os.environ["GBOT_CASES"])):
    ci = gnubg.cubeinfo(f["cube"], f["cube_owner"], f["dice_owner"], f["match_length"],
                        tuple(f["score"]), f["crawford"], 0)
    ci["jacoby"] = f["jacoby"]
    pi = gnubg.posinfo(f["turn"], f["resigned"], f["doubled"], f["game_state"],
                       tuple(f["dice"]))
    out.append(gnubg.matchid(ci, pi))
open(os.environ["GBOT_OUT"], "w").write(json.dumps(out))
"""


@pytest.mark.gnubg
def test_random_fields_agree_with_live_gnubg(tmp_path: Path) -> None:
    exe = gnubg_binary()
    if exe is None:
        pytest.skip("gnubg not installed")
    rng = random.Random(20240611)
    cases = []
    for _ in range(200):
        length = rng.choice([0, 0, 1, 3, 5, 7, 9, 13, 21, 64])
        score = [rng.randrange(length) if length else 0 for _ in range(2)]
        dice_owner = rng.randrange(2)
        doubled = rng.random() < 0.2
        resigned = 0 if doubled else rng.choice([0, 0, 0, 1, 2, 3])
        dice = [0, 0] if doubled or rng.random() < 0.3 else [rng.randint(1, 6),
                                                                rng.randint(1, 6)]
        cases.append({
            # gnubg 1.07 crashes on cubes beyond its match equity table (above 64 in a match)
            "cube": 2 ** rng.randrange(7 if length else 13),
            "cube_owner": rng.choice([CENTRE, 0, 1]),
            "dice_owner": dice_owner, "crawford": int(bool(length) and rng.random() < 0.2),
            "game_state": rng.choice([1, 1, 1, 0, 2, 3, 4]),
            "turn": 1 - dice_owner if doubled else rng.randrange(2),
            "doubled": int(doubled), "resigned": resigned, "dice": dice,
            "match_length": length, "score": score, "jacoby": int(rng.random() < 0.5),
        })
    got = run_gnubg_script(exe, _GNUBG_SCRIPT, cases, tmp_path)
    assert len(got) == len(cases)
    for case, mid in zip(cases, got, strict=True):
        f = MatchIdFields(**{**case, "dice": tuple(case["dice"]), "score": tuple(case["score"])})
        assert match_id.encode(f) == mid, case


def test_matchid_does_not_import_the_match_model() -> None:
    """:mod:`gbot.game.notations.match_id` stands below :mod:`gbot.game.match` (no import cycle;
    see tests/test_import_graph.py): it imports nothing of the match model, not even for type
    checking, and has no names bound into it by another module."""
    import gbot.game.match
    from tests.test_import_graph import imports

    source = Path(match_id.__file__).resolve()
    tree = ast.parse(source.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = ([node.module] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names])
            assert "gbot.game.match" not in names, ast.unparse(node)
    assert list(imports(tree))
    assert not hasattr(match_id, "to_state") and not hasattr(match_id, "from_state")
    assert match_id.CENTRE is gbot.game.match.CENTRE == -1
    with pytest.raises(AttributeError):
        _ = match_id.no_such_name  # type: ignore[attr-defined]
