"""gbot's server on real sockets, and against Debian's gnubg 1.07 as the referee.

Socket tests (no gnubg needed): framing (gnubg's NUL, pipelined lines, over-long lines), several
clients at once with their own sessions, garbage and abrupt disconnects that disturb nobody else,
Unix sockets, and ``gbot serve`` stopping cleanly on SIGINT/SIGTERM.

gnubg tests (``@pytest.mark.gnubg``): gnubg referees a 7-point match and money sessions with the
cube against the server, gbot in either seat, through ``tests/gnubg_harness.py``. The oracle
is gnubg's own record of the match: no console error, no stall, and every move gbot made is one
complete legal play of the recorded position and roll (gnubg would have recorded an illegal or
incomplete reply as "no move" without complaint).
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gbot.adapters.gnubg_server import Address, BackgroundServer, connect
from gbot.engine.engine import Engine
from gbot.game.match import MatchState, Rules
from gbot.game.position import Position

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gnubg_harness  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
START = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
MOVE = f"board:gnubg:you:3:0:0:{START}:-1:5:2:5:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
CUBE = f"board:gnubg:you:3:0:0:{START}:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"

needs_gnubg = pytest.mark.skipif(gnubg_harness.find_gnubg() is None,
                                 reason="Debian's gnubg is not installed")


def slow_enabled(config: pytest.Config) -> bool:
    return os.environ.get("GBOT_SLOW") == "1" or "slow" in (config.getoption("-m") or "")


@pytest.fixture
def full_size(request: pytest.FixtureRequest) -> None:
    if not slow_enabled(request.config):
        pytest.skip("slow: set GBOT_SLOW=1 or use -m slow")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(rules=Rules(jacoby=False, beavers=True))


@pytest.fixture(scope="module")
def server(engine: Engine):  # type: ignore[no-untyped-def]
    with BackgroundServer(engine) as srv:
        yield srv


class Client:
    """A blocking line client."""

    def __init__(self, address: Address) -> None:
        self.sock = connect(address)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self, timeout: float = 10.0) -> bytes:
        self.sock.settimeout(timeout)
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("server closed the connection")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def ask(self, text: str) -> str:
        self.send(text.encode() + b"\n\x00")      # the way gnubg 1.07 writes
        return self.line().decode()

    def quiet(self, wait: float = 0.3) -> bool:
        """True when nothing more arrives within ``wait`` seconds."""
        self.sock.settimeout(wait)
        try:
            data = self.sock.recv(65536)
        except (TimeoutError, socket.timeout):  # noqa: UP041
            return self.buf == b""
        self.buf += data
        return False

    def close(self) -> None:
        self.sock.close()


def legal(line: str, reply: str) -> bool:
    from gbot.game.notations.fibs_board import parse_fibs_board

    fb = parse_fibs_board(line)
    try:
        fb.position.play_from_text(reply, fb.dice)
    except ValueError:
        return False
    return True


# --- sockets -----------------------------------------------------------------------------------


def test_one_reply_per_request_with_gnubgs_nul(server: BackgroundServer) -> None:
    c = Client(server.address)
    reply = c.ask(MOVE)
    assert legal(MOVE, reply)
    assert c.ask(CUBE) in ("roll", "double")
    assert c.quiet()                      # nothing unsolicited, the NUL got no reply
    c.close()


def test_pipelined_requests_answered_in_order(server: BackgroundServer) -> None:
    c = Client(server.address)
    c.send(("\n".join(["version", "set debug off", CUBE, "foo", "help"]) + "\n").encode())
    got = [c.line().decode() for _ in range(4 + 4)]
    assert got[:4] == ["Interface: 2", "RFBF: 0", got[2], got[3]]
    assert got[4] == "Debug output OFF"
    assert got[5] in ("roll", "double")
    assert got[6].startswith("Error: ")
    assert got[7].startswith("\t")
    assert c.quiet()
    c.close()


def test_overlong_line_gets_one_error_and_the_session_goes_on(server: BackgroundServer) -> None:
    c = Client(server.address)
    c.send(b"x" * 20000)
    time.sleep(0.2)
    c.send(b"y" * 20000 + b"\n")
    assert c.line().startswith(b"Error: ")
    assert c.quiet()
    assert legal(MOVE, c.ask(MOVE))
    c.close()


def test_exit_closes_only_that_connection(server: BackgroundServer) -> None:
    a, b = Client(server.address), Client(server.address)
    a.send(b"exit\n")
    with pytest.raises(EOFError):
        a.line(timeout=5)
    assert legal(MOVE, b.ask(MOVE))
    b.close()


def test_many_clients_each_with_its_own_session(server: BackgroundServer) -> None:
    errors: list[str] = []

    def worker(k: int) -> None:
        try:
            c = Client(server.address)
            debug = k % 2 == 0
            assert c.ask(f"set debug {'on' if debug else 'off'}") == (
                "Debug output ON" if debug else "Debug output OFF")
            for _ in range(20):
                c.send(MOVE.encode() + b"\n\x00")
                first = c.line().decode()
                if debug:
                    assert first.startswith("DBG: ")
                    while first.startswith("DBG: "):
                        first = c.line().decode()
                assert legal(MOVE, first), first
            c.close()
        except Exception as exc:  # collected for the main thread
            errors.append(f"client {k}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors


def test_garbage_and_abrupt_disconnects_disturb_nobody(server: BackgroundServer) -> None:
    steady = Client(server.address)
    rng = random.Random(5)
    for i in range(30):
        rogue = Client(server.address)
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
        rogue.send(junk)
        if i % 3 == 0:
            rogue.send(b"\n")
            rogue.line()                       # an Error line (or a reply), never silence
        if i % 2:
            rogue.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00"
                                  b"\x00\x00\x00\x00")   # reset, not a clean close
        rogue.close()
        assert legal(MOVE, steady.ask(MOVE))
    steady.close()
    assert server.stats["connections"] >= 31


def test_socket_fuzz_one_reply_line_each(server: BackgroundServer) -> None:
    """5,000 mutated requests over one connection: exactly one reply line each (two for
    none of them: no version, no debug), in order, and the connection stays up."""
    from test_gnubg_external import _mutate, _seed_lines

    rng = random.Random(99)
    seeds = _seed_lines()
    c = Client(server.address)
    sent = 0
    for _ in range(5000):
        line = _mutate(rng, rng.choice(seeds))
        raw = line if isinstance(line, bytes) else line.encode("utf-8", "replace")
        raw = raw.replace(b"\n", b" ")
        head = raw.strip(b"\x00\r\t ").split(b" ")[0].lower()
        if head in (b"exit", b"quit", b"version", b"set"):
            continue
        c.send(raw + b"\n")
        reply = c.line(timeout=10)
        assert len(reply) < 256 and b"\r" not in reply
        sent += 1
    assert c.quiet()
    assert legal(MOVE, c.ask(MOVE))
    c.close()
    assert sent > 4000


def test_unix_socket(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "gbot.sock"
    with BackgroundServer(engine, Address(path=str(path))) as srv:
        c = Client(srv.address)
        assert legal(MOVE, c.ask(MOVE))
        c.close()
    assert not path.exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_gbot_serve_stops_cleanly_on_signals(sig: int, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    proc = subprocess.Popen([sys.executable, "-m", "gbot.cli", "serve", "--listen",
                             "127.0.0.1:0", "--log", str(log)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        import select

        # first start may compile the numba kernels into the cache: allow for it
        readable, _, _ = select.select([proc.stdout], [], [], 300)
        assert readable, "gbot serve did not report that it listens"
        ready = proc.stdout.readline()
        assert "listening on 127.0.0.1:" in ready, ready
        port = int(ready.split("listening on 127.0.0.1:")[1].split()[0])
        c = Client(Address("127.0.0.1", port))
        assert legal(MOVE, c.ask(MOVE))
        proc.send_signal(sig)
        assert proc.wait(timeout=15) == 0
        c.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    text = log.read_text()
    assert "connected" in text and "stopped after 1 connections" in text


# --- against gnubg -----------------------------------------------------------------------------


def check_clean(res: gnubg_harness.HarnessResult) -> None:
    """No console error, stall, forfeit or timeout; every bot move legal and complete."""
    assert res.complete, res.summary() + " " + ";".join(res.notes)
    assert not res.protocol_errors, res.protocol_errors[:5]
    assert res.stalls == 0, res.summary()
    assert not res.forfeits, res.forfeits[:5]
    assert not res.timed_out
    moves = res.bot_moves()
    assert moves
    for rec in moves:
        assert rec.board is not None
        pos = Position.from_id(rec.board)
        plays = pos.legal_plays(rec.dice)
        if not rec.move:
            assert not plays, f"forfeited {rec.dice} in {rec.board}"
            continue
        text = " ".join(f"{a}/{b}" for a, b in rec.move)
        play = pos.play_from_text(text, rec.dice)   # raises for illegal or incomplete
        assert play in plays


@pytest.mark.gnubg
@needs_gnubg
@pytest.mark.parametrize("seat", [1, 0])
def test_seven_point_match(server: BackgroundServer, seat: int, tmp_path: Path) -> None:
    save = tmp_path / "match.sgf"
    res = gnubg_harness.play(str(server.address), match=7, bot_seat=seat, seed=70 + seat,
                             save=save, timeout=300)
    assert res.reloaded          # the checks ran on the saved .sgf, loaded back into gnubg
    check_clean(res)
    assert max(res.bot_points, res.gnubg_points) >= 7
    assert save.exists() and save.stat().st_size > 1000


@pytest.mark.gnubg
@needs_gnubg
@pytest.mark.parametrize("seat", [0, 1])
def test_money_games_with_the_cube(server: BackgroundServer, seat: int) -> None:
    res = gnubg_harness.play(str(server.address), games=25, bot_seat=seat, seed=500 + seat,
                             cube=True, beavers=3, timeout=400)
    check_clean(res)
    assert res.games == 25


class CubeHappy(Engine):
    """Doubles whenever it may and beavers whenever it may: drives every cube path."""

    def cube_action(self, pos: Position, state: MatchState) -> str:  # type: ignore[override]
        st = self.rules_state(state)
        return "double" if st.may_double(st.player_to_act) and st.cube_value < 8 else "roll"

    def respond_double(self, pos: Position, state: MatchState) -> str:  # type: ignore[override]
        return "beaver" if self.may_beaver(self.rules_state(state)) else "take"


@pytest.mark.gnubg
@needs_gnubg
@pytest.mark.parametrize("seat", [0, 1])
def test_every_cube_path(seat: int) -> None:
    """Doubles, redoubles, beavers both ways, match and money. gnubg 1.07 pauses after a
    beaver was taken; the harness asks it to go on and counts those pauses apart."""
    with BackgroundServer(CubeHappy(rules=Rules(beavers=True))) as srv:
        money = gnubg_harness.play(str(srv.address), games=6, bot_seat=seat, seed=7 + seat,
                                   beavers=3, timeout=300)
        check_clean(money)
        assert any(r.action == "double" and r.player == money.bot_key for r in money.records)
        match = gnubg_harness.play(str(srv.address), match=5, bot_seat=seat, seed=9 + seat,
                                   timeout=300)
        check_clean(match)


class Resigner(Engine):
    """Offers to resign a single game at every question."""

    def may_resign(self, pos: Position) -> bool:
        return True

    def resign_offer(self, pos: Position, state: MatchState) -> int:
        return 1


@pytest.mark.gnubg
@needs_gnubg
def test_resignations_reach_gnubg() -> None:
    with BackgroundServer(Resigner()) as srv:
        res = gnubg_harness.play(str(srv.address), match=3, bot_seat=1, seed=3, timeout=300)
    assert res.complete and not res.protocol_errors and res.stalls == 0
    assert res.gnubg_points >= 3
    assert any(r.action == "resign" and r.player == res.bot_key for r in res.records)


@pytest.mark.gnubg
@needs_gnubg
def test_unix_socket_match(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "gbot.sock"
    with BackgroundServer(engine, Address(path=str(path))) as srv:
        res = gnubg_harness.play(str(srv.address), match=3, bot_seat=1, seed=31, timeout=300)
    check_clean(res)


@pytest.mark.gnubg
@pytest.mark.slow
@needs_gnubg
@pytest.mark.parametrize("seat", [0, 1])
def test_many_money_games_and_matches(server: BackgroundServer, seat: int,
                                      full_size: None) -> None:
    res = gnubg_harness.play(str(server.address), games=250, bot_seat=seat, seed=900 + seat,
                             timeout=1800)
    check_clean(res)
    for k in range(3):
        check_clean(gnubg_harness.play(str(server.address), match=9, bot_seat=seat,
                                       seed=950 + 10 * seat + k, timeout=900))
