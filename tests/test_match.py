"""MatchState, Rules and the variation start positions: switch checks, cube availability,
Crawford bookkeeping, stakes, and gnubg's own IDs for every variation's opening position."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

import gbot
from gbot.core.board import START, checkers
from gbot.errors import MatchRuleError
from gbot.game.match import CENTRE, MAX_CUBE, GameState, MatchState, Rules
from gbot.game.notations.position_id import encode
from gbot.game.variations import checkers_per_side, start_board

SHARED = Path(__file__).resolve().parents[2] / "shared"
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists()
                                  else None)

# Position IDs gnubg 1.07 shows after `set variation ...` + `new session` (captured by hand)
VARIATION_IDS = {
    "standard": "4HPwATDgc/ABMA",
    "nackgammon": "4Dl4ADbgOXgANg",
    "hyper1": "AACAAAAAAgAAAA",
    "hyper2": "AABAAQAACgAAAA",
    "hyper3": "AACgAgAAKgAAAA",
}
GNUBG_VARIATION = {"standard": "standard", "nackgammon": "nackgammon",
                   "hyper1": "1-chequer-hypergammon", "hyper2": "2-chequer-hypergammon",
                   "hyper3": "3-chequer-hypergammon"}


def test_exports() -> None:
    assert gbot.MatchState is MatchState and gbot.Rules is Rules
    assert gbot.CENTRE == CENTRE == -1 and gbot.GameState is GameState


def test_game_state_values_are_gnubgs() -> None:
    assert [int(g) for g in GameState] == [0, 1, 2, 3, 4]
    assert GameState.DROPPED.name == "DROPPED"


def test_defaults() -> None:
    s = MatchState()
    assert (s.match_length, s.score, s.cube_value, s.cube_owner) == (0, (0, 0), 1, CENTRE)
    assert s.game_state == GameState.PLAYING and s.dice == (0, 0)
    assert s.rules == Rules() and s.rules.end_mode == "backgammons"
    assert hash(s) == hash(MatchState())  # frozen, hashable, equal by value


@pytest.mark.parametrize("kw", [{"cube_cap": 3}, {"cube_cap": 128}, {"end_mode": "mars"},
                                {"opener": "winner"}, {"variation": "hyper4"},
                                {"resignation": "maybe"}])
def test_bad_switches_are_rejected(kw: dict[str, object]) -> None:
    with pytest.raises(MatchRuleError) as exc:
        Rules(**kw)  # type: ignore[arg-type]
    assert repr(next(iter(kw.values()))) in str(exc.value)


def test_max_cube() -> None:
    assert Rules().max_cube == MAX_CUBE == 2**15
    assert Rules(cube_cap=8).max_cube == 8
    assert Rules(cube_enabled=False, cube_cap=8).max_cube == 1


@pytest.mark.parametrize("mode,expected", [("single", (1, 1, 1)), ("gammons", (1, 2, 2)),
                                           ("backgammons", (1, 2, 3))])
def test_end_multipliers(mode: str, expected: tuple[int, int, int]) -> None:
    r = Rules(end_mode=mode)
    assert tuple(r.end_multiplier(k) for k in (1, 2, 3)) == expected
    assert r.max_end_multiplier == expected[2]
    with pytest.raises(MatchRuleError):
        r.end_multiplier(4)


def test_stake_to_cover() -> None:
    # the site's rule: stake x cube cap x end-mode multiplier (Mars with a 4-cap: 2 x 4)
    assert Rules(cube_cap=4, end_mode="gammons").stake_to_cover(10) == 80
    assert Rules(cube_cap=64, end_mode="backgammons").stake_to_cover(5) == 960
    assert Rules(cube_cap=2, end_mode="single").stake_to_cover(7) == 14
    assert Rules(cube_enabled=False, end_mode="backgammons").stake_to_cover(10) == 30
    assert Rules().stake_to_cover(1) == 3 * 2**15


def test_may_double_ownership_and_cap() -> None:
    s = MatchState()
    assert s.may_double(0) and s.may_double(1)
    owned = replace(s, cube_value=2, cube_owner=1)
    assert owned.may_double(1) and not owned.may_double(0)
    capped = replace(s, cube_value=8, cube_owner=0, rules=Rules(cube_cap=8))
    assert not capped.may_double(0)
    assert replace(capped, cube_value=4).may_double(0)
    assert not replace(s, rules=Rules(cube_enabled=False)).may_double(0)
    assert not replace(s, cube_value=MAX_CUBE, cube_owner=0).may_double(0)


def test_may_double_needs_a_quiet_game_in_play() -> None:
    s = MatchState(match_length=5)
    assert s.may_double(0)
    assert not replace(s, crawford=True).may_double(0)
    assert not replace(s, double_offered=True).may_double(0)
    assert not replace(s, resign_offered=1).may_double(0)
    assert not replace(s, final_roll=True).may_double(0)
    for gs in (GameState.NONE, GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
        assert not replace(s, game_state=gs).may_double(0)
    assert not replace(s, score=(5, 2)).may_double(0)  # match over
    # the Crawford flag means nothing in money play
    assert replace(MatchState(), crawford=True).may_double(0)


def test_post_crawford() -> None:
    assert not MatchState().post_crawford
    assert not MatchState(match_length=5, score=(3, 2)).post_crawford
    assert not MatchState(match_length=5, score=(4, 2), crawford=True).post_crawford
    assert MatchState(match_length=5, score=(4, 2)).post_crawford
    assert MatchState(match_length=5, score=(0, 4)).post_crawford
    assert MatchState(match_length=1).post_crawford


def test_match_id_delegation_on_vectors() -> None:
    path = SHARED / "vectors" / "ids.jsonl"
    if not path.exists():
        pytest.skip("shared vectors absent")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("kind") == "match"]
    assert rows
    for r in rows:
        f = r["fields"]
        s = MatchState.from_match_id(r["match_id"])
        assert (s.match_length, s.score, s.cube_value) == (
            f["match_length"], tuple(f["score"]), f["cube"])
        assert s.match_id() == r["match_id"]
    s = MatchState.from_match_id(rows[0]["match_id"], Rules(cube_cap=4))
    assert s.rules.cube_cap == 4


def test_board_array() -> None:
    s = MatchState(board=tuple(int(x) for x in START))
    assert (s.board_array() == START).all()
    with pytest.raises(MatchRuleError):
        MatchState().board_array()


@pytest.mark.parametrize("variation,n", [("standard", 15), ("nackgammon", 15), ("hyper1", 1),
                                         ("hyper2", 2), ("hyper3", 3)])
def test_variation_start_positions(variation: str, n: int) -> None:
    b = start_board(variation)
    assert checkers_per_side(variation) == Rules(variation=variation).checkers == n
    assert checkers(b) == (n, n)
    assert (b == -b[::-1]).all()  # the same seen from either side
    assert encode(b) == VARIATION_IDS[variation]
    with pytest.raises(MatchRuleError):
        start_board("hyper9")


@pytest.mark.gnubg
@pytest.mark.skipif(GNUBG is None, reason="gnubg binary absent")
def test_variation_ids_live_gnubg() -> None:
    lines = ["import gnubg", "gnubg.command('set player 0 human')",
             "gnubg.command('set player 1 human')"]
    for ours, theirs in GNUBG_VARIATION.items():
        lines += [f"gnubg.command('set variation {theirs}')", "gnubg.command('new session')",
                  f"print('VAR', {ours!r}, gnubg.positionid())"]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "v.py"
        script.write_text("\n".join(lines) + "\n")
        out = subprocess.run([str(GNUBG), "-t", "-q", "-p", str(script)], capture_output=True,
                             text=True, timeout=120).stdout
    got = dict(line.split()[1:3] for line in out.splitlines() if line.startswith("VAR "))
    assert got == VARIATION_IDS


def test_beaver_rule_has_one_owner_and_its_kernel_twin_agrees() -> None:
    """``MatchState.beaver_allowed`` is the rule (money, beavers on, the cube in use, room for
    the redouble); the engine and the compiled answers give the same verdict on every case."""
    from gbot.core.cubemath import beaver_allowed
    from gbot.engine.engine import Engine

    engine = Engine(evaluator=None)
    seen = set()
    for length in (0, 5):
        for beavers in (False, True):
            for enabled in (False, True):
                for cap in (0, 4, 8):
                    for cube in (1, 2, 4, 8):
                        rules = Rules(beavers=beavers, cube_enabled=enabled, cube_cap=cap)
                        if cube > rules.max_cube:
                            continue
                        owner = CENTRE if cube == 1 else 0
                        s = replace(MatchState(match_length=length, rules=rules),
                                    cube_value=cube, cube_owner=owner)
                        want = (length == 0 and beavers and enabled
                                and cube * 4 <= (cap or MAX_CUBE))
                        assert s.beaver_allowed is want
                        assert engine.may_beaver(s) is want
                        assert bool(beaver_allowed(length == 0, beavers, enabled, cube,
                                                   rules.max_cube)) is want
                        seen.add(want)
    assert seen == {False, True}
