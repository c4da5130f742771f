"""Tournaments: player specs, the board lines sent to external players, duplicate-dice
bookkeeping, resuming, statistics, reports, and gnubg importing every match we write.

Oracles: gbot's own board-line parser and external-player server (a line we send must read back
as the state we meant, and gbot answering over the protocol must play exactly as gbot
in-process: mirrored games then cancel to the point); hand-computed statistics; an uninterrupted
run (an interrupted and resumed tournament must hold the very same games); gnubg 1.07 importing
the ``.mat`` files with the recorded scores; our ``.mat`` reader replaying every move.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gbot.adapters.gnubg_external import Session, handle_line
from gbot.adapters.gnubg_server import BackgroundServer
from gbot.engine.engine import Engine
from gbot.errors import PlayerError, TournamentError
from gbot.game.match import GameState, MatchState, Rules
from gbot.game.notations.fibs_board import parse_fibs_board
from gbot.records import matfile
from gbot.tournament import TournamentConfig, parse_player, run
from gbot.tournament.players import board_line, my_view
from gbot.tournament.records import ResultStore
from gbot.tournament.report import html, summarize, text
from gbot.tournament.stats import clustered_mean, elo_ratings, pairing_stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from players import play_match  # noqa: E402

from tests.conftest import gnubg_binary  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GNUBG = gnubg_binary()
needs_gnubg = pytest.mark.skipif(GNUBG is None, reason="Debian's gnubg is not installed")
SLOW = os.environ.get("GBOT_SLOW") == "1"

VOLATILE = ("seconds", "engines")
H = "gbot,eval=heuristic,ply=0"
"""gbot's built-in heuristic: deterministic, fast, and independent of the networks, for the
tests whose oracle is bookkeeping rather than strength."""


def _nets_spec() -> str:
    """gbot at 0-ply with its networks when they load (else the heuristic, said in the
    test output): the gauntlet against gnubg plays the real engine whenever it can."""
    try:
        from gbot.eval.evaluator import Evaluator
        from gbot.game.position import Position

        Evaluator().probabilities(Position.initial(), 0)
        return "gbot"
    except Exception as exc:
        print(f"gbot's networks do not load ({exc}); the gauntlet plays the heuristic")
        return H + ",name=gbot-0ply"


def _games(folder: Path) -> dict[tuple[int, ...], dict[str, Any]]:
    out = {}
    for line in (folder / "games.jsonl").read_text().splitlines():
        r = json.loads(line)
        key = (*r["key"], r["game"])
        assert key not in out, f"game {key} recorded twice"
        out[key] = {k: v for k, v in r.items() if k not in VOLATILE}
    return out


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize("text, kind, options, address, label", [
    ("gbot", "gbot", (), "", "gbot-2ply"),
    ("gbot,ply=2", "gbot", (("ply", "2"),), "", "gbot-2ply"),
    ("gbot,ply=1,weights=/x/my nets.npz,name=mine", "gbot",
     (("ply", "1"), ("weights", "/x/my nets.npz")), "", "mine"),
    ("gnubg,skill=expert", "gnubg", (("skill", "expert"),), "", "gnubg-expert"),
    ("gnubg,ply=2,noise=0.01", "gnubg", (("noise", "0.01"), ("ply", "2")), "",
     "gnubg-2ply-n0.01"),
    ("127.0.0.1:4000", "external", (), "127.0.0.1:4000", "ext-127.0.0.1-4000"),
    ("external:localhost:31000,timeout=5", "external", (("timeout", "5"),),
     "localhost:31000", "ext-localhost-31000"),
    ("gnubg-nn,ply=1", "gnubgnn", (("ply", "1"),), "", "gnubgnn-1ply"),
    ("random,name=R", "random", (), "", "R"),
    ("gbot,eval=heuristic,ply=1", "gbot", (("eval", "heuristic"), ("ply", "1")), "",
     "gbot-heuristic-1ply"),
])
def test_player_specs(text: str, kind: str, options: tuple[tuple[str, str], ...],
                      address: str, label: str) -> None:
    from gbot.tournament.players import default_label

    spec = parse_player(text)
    assert (spec.kind, spec.options, spec.address) == (kind, options, address)
    assert (spec.label or default_label(spec)) == label
    assert parse_player(spec.text()) == spec


@pytest.mark.parametrize("text, needle", [
    ("", "empty"), ("chess", "unknown player kind"), ("gbot,ply=9", "ply must be"),
    ("gbot,depth=2", "takes no option 'depth'"), ("gnubg,skill=god", "unknown gnubg skill"),
    ("gnubg,skill=expert,ply=1", "not both"), ("external:nohost", "HOST:PORT"),
    ("random,name=a:b", "a name is"), ("gbot,ply", "key=value"),
    ("gnubg,noise=-1", "noise must be"), ("gbot,eval=fast", "eval is nets or heuristic"),
    ("gbot,eval=heuristic,weights=w.npz", "takes no weights"),
])
def test_bad_player_specs(text: str, needle: str) -> None:
    with pytest.raises(TournamentError, match=needle) as err:
        parse_player(text)
    assert isinstance(err.value, ValueError)


def test_config_checks() -> None:
    with pytest.raises(TournamentError, match="exactly two"):
        TournamentConfig(("gbot", "random", "gnubg"))
    with pytest.raises(TournamentError, match="two players or more"):
        TournamentConfig(("gbot",), scheme="round-robin")
    with pytest.raises(TournamentError, match="named 'x'"):
        TournamentConfig(("gbot,name=x", "random,name=x")).specs()
    cfg = TournamentConfig(("gbot", "gbot", "random", "random"), scheme="round-robin", games=5)
    assert cfg.labels == ["gbot-2ply", "gbot-2ply-2", "random", "random-2"]
    assert cfg.pairings() == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert cfg.units == 3 and cfg.total_units == 6 * 3 * 2
    g = TournamentConfig(("gbot", "random", "gnubg"), scheme="gauntlet", games=4,
                         duplicate=False)
    assert g.pairings() == [(0, 1), (0, 2)] and g.units == 4
    assert [g.mirrors(u) for u in range(4)] == [(0,), (1,), (0,), (1,)]
    assert TournamentConfig.from_json(json.loads(json.dumps(cfg.to_json()))) == cfg


# --------------------------------------------------------------------------- board lines


def _questions(seed: int, length: int, rules: Rules) -> list[tuple[MatchState, str]]:
    """States of random matches with the board-line question each one poses."""
    out: list[tuple[MatchState, str]] = []

    def grab(s: MatchState) -> None:
        if s.game_state != GameState.PLAYING or s.resign_offered or s.final_roll:
            return
        if s.double_offered:
            out.append((s, "beavered" if s.beavers else "take"))
        elif s.dice == (0, 0):
            out.append((s, "double_or_roll" if s.may_double(s.player_on_roll)
                        and not s.crawford else "resignation"))
        else:
            out.append((s, "move"))

    play_match(length, rules, seed, games=4, check=grab)
    return out


@pytest.mark.parametrize("length", [0, 3, 5])
def test_board_lines_read_back(length: int) -> None:
    """Every question we send reads back, with gbot's parser, as the state we meant."""
    rules = Rules(beavers=length == 0, jacoby=length == 0)
    seen: set[str] = set()
    for seed in range(6):
        for s, question in _questions(40 + seed, length, rules):
            me = s.player_to_act
            line = board_line(s, me, ("me_1", "them"), question)  # type: ignore[arg-type]
            seen.add(question)
            if question == "beavered":
                # gnubg 1.07's own quirk: gbot's server must read it as the beaver question
                reply, _ = handle_line(Session(Engine(rules=rules)), line)
                assert reply in ("take", "drop"), (line, reply)
                continue
            fb = parse_fibs_board(line, "gnubg_external")
            assert fb.position == my_view(s, me)
            assert fb.score == (s.score[me], s.score[1 - me])
            assert fb.cube_value == s.cube_value and fb.match_length == s.match_length
            assert fb.names == ("me_1", "them")
            expect = {"take": "take_or_drop", "move": "move"}.get(question, "double_or_roll")
            assert fb.question == expect
            back = fb.state
            assert back.player_to_act == me and back.cube_owner == s.cube_owner
            if question == "move":
                assert fb.dice == s.dice
            if question != "resignation":
                assert back.crawford == s.crawford and back.post_crawford == s.post_crawford
    assert {"move", "double_or_roll", "take", "resignation"} <= seen
    if length == 0:
        assert "beavered" in seen


# --------------------------------------------------------------------------- stats


def test_clustered_mean_by_hand() -> None:
    # one value per cluster: the ordinary standard error s / sqrt(n)
    xs = [1.0, -1.0, 2.0, 0.0]
    mean, se = clustered_mean(xs, [0, 1, 2, 3])
    s = math.sqrt(sum((x - 0.5) ** 2 for x in xs) / 3)
    assert mean == 0.5 and se == pytest.approx(s / 2)
    # perfectly cancelling mirrored pairs: no error at all
    assert clustered_mean([1.0, -1.0, 2.0, -2.0], [0, 0, 1, 1]) == (0.0, 0.0)
    # pairs with sums 2 and 0: deviations from the mean 0.5 per cluster are +1 and -1
    mean, se = clustered_mean([2.0, 0.0, 1.0, -1.0], [0, 0, 1, 1])
    assert mean == 0.5 and se == pytest.approx(math.sqrt(2 / 1 * 2 / 16))
    assert math.isnan(clustered_mean([1.0, 2.0], [0, 0])[1])


def test_elo_by_hand() -> None:
    # 3 wins in 4, plus the virtual draw: 3.5 to 1.5
    r = elo_ratings(["a", "b"], [("a", "b", 3.0, 4.0)], anchor="b")
    assert r["a"] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)
    assert r["b"] == 0.0
    # a cycle of equal results rates everyone equal; a transitive chain is ordered
    flat = elo_ratings(["a", "b", "c"], [("a", "b", 5, 10), ("b", "c", 5, 10),
                                         ("a", "c", 5, 10)])
    assert all(abs(v) < 1e-9 for v in flat.values())
    chain = elo_ratings(["a", "b", "c"], [("a", "b", 7, 10), ("b", "c", 7, 10),
                                          ("a", "c", 9, 10)])
    assert chain["a"] > chain["b"] > chain["c"] and abs(sum(chain.values())) < 1e-6


def test_pairing_stats_by_hand() -> None:
    def rec(unit: int, mirror: int, seats: list[str], winner: int, points: int, kind: int,
            how: str = "OVER") -> dict[str, Any]:
        a_seat = seats.index("A")
        a_pts = 0 if winner < 0 else (points if winner == a_seat else -points)
        return {"key": [0, unit, mirror], "game": 0, "seats": seats, "winner": winner,
                "points": points, "a_points": a_pts, "kind": kind, "how": how,
                "match_over": False, "match_winner": -1}

    recs = [rec(0, 0, ["A", "B"], 0, 2, 2), rec(0, 1, ["B", "A"], 0, 1, 1),
            rec(1, 0, ["A", "B"], 1, 1, 0, "DROPPED"), rec(1, 1, ["B", "A"], 1, 3, 3)]
    st = pairing_stats(recs, "A", "B")
    assert (st.games, st.units, st.points, st.ppg) == (4, 2, 3.0, 0.75)
    assert (st.wins, st.losses, st.draws) == (2, 2, 0)
    assert st.gammons == (2, 0) and st.backgammons == (1, 0) and st.drops == (0, 1)
    # unit sums 1 and 2 against the mean 0.75 per game: deviations -0.5 and +0.5
    assert st.se == pytest.approx(math.sqrt(2 * (0.25 + 0.25) / 16))
    assert st.ci[0] == pytest.approx(0.75 - 1.959964 * st.se, abs=1e-6)


def test_match_win_interval_stays_a_share() -> None:
    """The match-win rate's interval is Wilson's: within 0..1 even for few matches or all
    won, and the normal interval's width for many."""
    def final(unit: int, a_wins: bool) -> dict[str, Any]:
        return {"key": [0, unit, 0], "game": 0, "seats": ["A", "B"], "winner": 0,
                "points": 1, "a_points": 1, "kind": 1, "how": "OVER", "match_over": True,
                "match_winner": 0 if a_wins else 1}

    for recs in ([final(0, True), final(1, True), final(2, False)],
                 [final(u, True) for u in range(3)], [final(0, False)]):
        lo, hi = pairing_stats(recs, "A", "B", match_length=7).match_ci
        assert 0.0 <= lo <= hi <= 1.0
    lo, hi = pairing_stats([final(u, u % 2 == 0) for u in range(400)], "A", "B", 7).match_ci
    assert hi - lo == pytest.approx(2 * 1.959964 * 0.5 / math.sqrt(400), rel=0.02)


# --------------------------------------------------------------------------- runs


def test_same_engine_over_the_protocol_mirrors_exactly(tmp_path: Path) -> None:
    """gbot in-process against gbot answering as an external player: every mirrored pair of
    games must cancel to the point (the protocol carries the whole decision state)."""
    rules = Rules(jacoby=True, beavers=True)
    engine = Engine(rules=rules)
    engine.evaluator = None          # the same heuristic engine on both sides
    with BackgroundServer(engine) as srv:
        cfg = TournamentConfig((H + ",name=inproc", f"external:{srv.address},name=remote"),
                               games=6, seed=7, rules=rules)
        summary = run(cfg, tmp_path / "t", backend="serial")
    assert summary.complete and len(summary.records) == 6
    by_unit: dict[int, float] = {}
    for r in summary.records:
        by_unit[r["key"][1]] = by_unit.get(r["key"][1], 0) + r["a_points"]
    assert by_unit == {0: 0, 1: 0, 2: 0}, by_unit
    assert "external player" in summary.engines["remote"]


def test_match_play_interrupt_and_resume(tmp_path: Path) -> None:
    """A run stopped after some games and resumed holds exactly the games of an uninterrupted
    run: none lost, none repeated, unfinished matches continued from their score."""
    cfg = TournamentConfig((H, "random"), length=3, games=4, seed=3,
                           rules=Rules(cube_enabled=True))
    whole = run(cfg, tmp_path / "whole", backend="serial")
    assert whole.complete and whole.new_games == len(whole.records)
    # stop after 1, 2, ... games: every interruption point of a short run
    part = tmp_path / "part"
    first = run(cfg, part, backend="serial", stop_after=2)
    assert not first.complete and first.new_games == 2
    with (part / "games.jsonl").open("a") as fh:   # a record cut short by the interruption
        fh.write('{"v":1,"key":[0,1')
    rounds = 0
    while True:
        s = run(cfg, part, backend="serial", stop_after=3)
        rounds += 1
        if s.complete:
            break
        assert rounds < 20
    assert _games(part) == _games(tmp_path / "whole")
    assert run(cfg, part, backend="serial").new_games == 0     # nothing left to play
    # every match reached 3 points; the .mat reader replays every move and agrees
    mats = sorted((part / "mat").rglob("*.mat"))
    assert len(mats) == 4
    for path in mats:
        back = matfile.read(path, cfg.rules)
        assert max(back.final_score) >= 3
    with pytest.raises(TournamentError, match="another tournament"):
        run(TournamentConfig((H, "random"), length=5, games=4), part, backend="serial")


def test_resume_after_kill(tmp_path: Path) -> None:
    """``gbot tournament`` killed with SIGKILL mid-run, then resumed: same games as a clean run."""
    out = tmp_path / "killed"
    args = [sys.executable, "-m", "gbot.cli", "tournament", H, "random", "-n", "16",
            "--seed", "5", "--backend", "serial", "-q", "--no-cube"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([*args, "--out", str(out)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games = out / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if games.exists() and games.read_text().count("\n") >= 5:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = games.read_text().count("\n")
    assert 1 <= done < 16, done
    subprocess.run([*args[:4], "--resume", str(out), "-q"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    clean = tmp_path / "clean"
    run(TournamentConfig((H, "random"), games=16, seed=5,
                         rules=Rules(cube_enabled=False)), clean, backend="serial")
    assert _games(out) == _games(clean)


def test_reports(tmp_path: Path) -> None:
    cfg = TournamentConfig((H, "random", "random,name=r2"), scheme="round-robin", games=2,
                           seed=2)
    s = run(cfg, tmp_path, backend="serial")
    summary = summarize(s)
    assert [(r["a"], r["b"], r["games"]) for r in summary["pairings"]] == [
        ("gbot-heuristic-0ply", "random", 2), ("gbot-heuristic-0ply", "r2", 2),
        ("random", "r2", 2)]
    ratings = summary["ratings"]
    assert set(ratings) == {"gbot-heuristic-0ply", "random", "r2"}
    assert ratings["gbot-heuristic-0ply"] > max(ratings["random"], ratings["r2"])
    assert json.loads((tmp_path / "results.json").read_text())["games"] == 6
    page = html(summary)
    assert "<svg" in page and "polyline" in page
    assert "src=" not in page and "href=" not in page and "<script" not in page
    table = text(summary)
    assert "Elo-style ratings" in table and "gbot-heuristic-0ply" in table
    assert (tmp_path / "report.txt").read_text() == table
    # the running score plotted is each pairing's A points, game by game
    for r, (name, series) in zip(summary["pairings"], summary["running"].items(), strict=True):
        assert name == f"{r['a']} vs {r['b']}" and series[-1] == r["points"]


def test_broken_external_player_stops_the_run(tmp_path: Path) -> None:
    """A reply that is no legal play stops the tournament with PlayerError; nothing is
    recorded for that game."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]

    def serve() -> None:
        while True:                 # as gnubg's "external": back to listening after a client
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                f = conn.makefile("rwb")
                for raw in f:
                    if raw.startswith(b"exit"):
                        break
                    f.write(b"roll\n" if b":0:0:0:0:1:" in raw else b"24/1 24/1\n")
                    f.flush()

    threading.Thread(target=serve, daemon=True).start()
    cfg = TournamentConfig(("random", f"127.0.0.1:{port},timeout=10"), games=2,
                           rules=Rules(cube_enabled=False))
    with pytest.raises(PlayerError, match="no legal play in '24/1 24/1'"):
        run(cfg, tmp_path, backend="serial")
    assert not (tmp_path / "games.jsonl").exists() or not ResultStore(
        tmp_path / "games.jsonl").records
    srv.close()


def test_gbot_networks_that_do_not_load_are_an_error(tmp_path: Path) -> None:
    cfg = TournamentConfig((f"gbot,weights={tmp_path / 'none.npz'}", "random"), games=2)
    with pytest.raises(PlayerError, match="cannot be loaded.*eval=heuristic"):
        run(cfg, tmp_path / "t", backend="serial")


def test_gnubgnn_against_itself_cancels(tmp_path: Path) -> None:
    pytest.importorskip("gnubg_nn")
    cfg = TournamentConfig(("gnubgnn,name=a", "gnubgnn,name=b"), games=4, seed=11,
                           rules=Rules(cube_enabled=False))
    s = run(cfg, tmp_path, backend="serial")
    assert s.complete and sum(r["a_points"] for r in s.records) == 0
    assert "gnubg-nn 0-ply" in s.engines["a"]


# --------------------------------------------------------------------------- gnubg


_IMPORT = """
import gnubg, json, os
out = []
for path in json.load(open(os.environ["GBOT_MATS"])):
    gnubg.command("import mat " + path)
    m = gnubg.match()
    out.append([[g["info"].get("winner"), g["info"].get("points-won", 0),
                 g["info"]["score-X"], g["info"]["score-O"]] for g in m["games"]])
json.dump(out, open(os.environ["GBOT_OUT"], "w"))
"""


def _gnubg_import(paths: list[Path], tmp: Path) -> list[list[list[Any]]]:
    (tmp / "mats.json").write_text(json.dumps([str(p) for p in paths]))
    (tmp / "imp.py").write_text(_IMPORT)
    env = dict(os.environ, GBOT_MATS=str(tmp / "mats.json"), GBOT_OUT=str(tmp / "out.json"),
               HOME=str(tmp))
    proc = subprocess.run([str(GNUBG), "-t", "-q", "-r", "-p", str(tmp / "imp.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert "WARNING" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-2000:]
    result: list[list[list[Any]]] = json.loads((tmp / "out.json").read_text())
    return result


@pytest.mark.gnubg
@needs_gnubg
def test_duplicate_gauntlet_with_gnubg(tmp_path: Path) -> None:
    """gbot 0-ply against a random player and against gnubg 0-ply (its external server),
    duplicate dice: mirrored games share their rolls, the scores add up, gnubg imports every
    session we write with the recorded results."""
    rules = Rules(jacoby=True)
    cfg = TournamentConfig((_nets_spec(), "random", "gnubg,ply=0"), scheme="gauntlet", games=4,
                           seed=21, rules=rules)
    folder = tmp_path / "g"
    s = run(cfg, folder, backend="process", workers=2)
    assert s.complete and len(s.records) == 8
    assert "gnubg 1.07 external server, 0-ply" in s.engines["gnubg-0ply"]
    recs = {(r["key"][0], r["key"][1], r["key"][2]): r for r in s.records}
    for (p, u, m), r in recs.items():
        a, b = r["pairing"]
        assert r["seats"] == ([a, b] if m == 0 else [b, a])
        twin = recs[(p, u, 1 - m)]
        # same dice stream; the shorter game's rolls are the start of the longer one's
        assert r["dice_seed"] == twin["dice_seed"] == cfg.dice_seed(u, 0)
        mine, theirs = r["rolls"].split(), twin["rolls"].split()
        n = min(len(mine), len(theirs))
        assert n > 0 and mine[:n] == theirs[:n]
        # every pairing gets the same rolls in unit u
        assert r["dice_seed"] == recs[(1 - p, u, m)]["dice_seed"]
        # the score moved by the game's points, to the winner; A's points have the right sign
        delta = [r["score"][i] - r["start_score"][i] for i in (0, 1)]
        assert delta[r["winner"]] == r["points"] and delta[1 - r["winner"]] == 0
        assert r["a_points"] == (r["points"] if r["seats"][r["winner"]] == a else -r["points"])
    summary = summarize(s)
    for row in summary["pairings"]:
        pts = [r["a_points"] for r in s.records if r["pairing"] == [row["a"], row["b"]]]
        assert row["points"] == sum(pts) and row["ppg"] == pytest.approx(sum(pts) / 4)
        assert row["wins"] + row["losses"] + row["draws"] == 4
    assert summary["pairings"][0]["ppg"] > 0          # gbot beats the random player
    # gnubg imports each session with the games, winners and points we recorded
    mats = sorted((folder / "mat").glob("*.mat"))
    assert len(mats) == 4
    seen = _gnubg_import(mats, tmp_path)
    for path, games in zip(mats, seen, strict=True):
        seats = path.stem.split("_vs_")
        ours = sorted((r for r in s.records if r["seats"] == seats), key=lambda r: r["key"])
        assert len(games) == len(ours) == 2
        score = [0, 0]
        for g, r in zip(games, ours, strict=True):
            assert [g[2], g[3]] == score
            assert ({"X": 0, "O": 1}[g[0]], g[1]) == (r["winner"], r["points"])
            score[r["winner"]] += r["points"]
        back = matfile.read(path, rules)   # our reader replays every move through the referee
        assert [(gr.winner, gr.points) for gr in back.games] == [
            (r["winner"], r["points"]) for r in ours]


@pytest.mark.gnubg
@needs_gnubg
def test_gnubg_imports_match_files(tmp_path: Path) -> None:
    """Match play: gnubg imports every match file with our games, scores and Crawford game."""
    cfg = TournamentConfig((H, "random"), length=5, games=4, seed=4)
    s = run(cfg, tmp_path / "m", backend="serial")
    mats = sorted((tmp_path / "m" / "mat").rglob("*.mat"))
    assert len(mats) == 4
    crawford = 0
    for path, games in zip(mats, _gnubg_import(mats, tmp_path), strict=True):
        unit = int(path.stem[1:6])
        seats = path.stem.split("_", 1)[1].split("_vs_")
        ours = sorted((r for r in s.records if r["seats"] == seats and r["key"][1] == unit),
                      key=lambda r: r["game"])
        assert [({"X": 0, "O": 1}[g[0]], g[1], [g[2], g[3]]) for g in games] == [
            (r["winner"], r["points"], r["start_score"]) for r in ours]
        assert max(ours[-1]["score"]) >= 5 and ours[-1]["match_over"]
        crawford += sum(1 for r in ours if r["state"]["crawford"])
    assert crawford >= 1


@pytest.mark.gnubg
@needs_gnubg
def test_gnubg_player_stops_its_process(tmp_path: Path) -> None:
    from gbot.tournament.players import GnubgPlayer

    p = GnubgPlayer("g", Rules())
    proc = p._server.proc
    assert proc.poll() is None
    p.close()
    assert proc.poll() is not None and not os.path.exists(p._server.home)


# --------------------------------------------------------------------------- ray


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="set GBOT_SLOW=1")
def test_ray_backend_matches_serial(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    cfg = TournamentConfig((H, "random"), games=6, seed=9, length=3)
    run(cfg, tmp_path / "serial", backend="serial")
    run(cfg, tmp_path / "ray", backend="ray", workers=2)
    assert _games(tmp_path / "ray") == _games(tmp_path / "serial")


@pytest.mark.usefixtures("without_ray")
def test_ray_missing_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="pip install"):
        run(TournamentConfig((H, "random"), games=2), tmp_path, backend="ray")
