"""The server's limits (issue 15): listen backlog, connection limit, idle timeout, no request
holding the others up, and ``--variation``; idle connections making room for new ones.

Before the fix the backlog was 16 (a burst of reconnecting clients was refused with
``Resource temporarily unavailable``), any number of clients could hold a thread for ever, and
one lock serialised every request, so one slow request stalled every other client.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

import gbot.adapters.gnubg_server as server_mod
from gbot.adapters.gnubg_server import BACKLOG, Address, BackgroundServer, Server, connect
from gbot.engine.engine import Engine

START = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
MOVE = f"board:gnubg:you:3:0:0:{START}:-1:5:2:5:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
HYPER2 = ("board:gnubg:you:0:0:0:" + ":".join(["0", "-1", "-1", *["0"] * 20, "1", "1", "0"])
          + ":1:3:1:3:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
"""gnubg's 2-chequer Hypergammon start, 3-1 to play."""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def ask(sock: socket.socket, text: str, timeout: float = 10.0) -> str:
    sock.settimeout(timeout)
    sock.sendall(text.encode() + b"\n")
    buf = b""
    while b"\n" not in buf:
        data = sock.recv(4096)
        if not data:
            raise EOFError("closed")
        buf += data
    return buf.split(b"\n", 1)[0].decode()


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the server closes ``sock`` within ``seconds`` (EOF or reset)."""
    sock.settimeout(seconds)
    try:
        while True:
            if not sock.recv(4096):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_a_burst_of_connections_waits_in_the_backlog(engine: Engine, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # nothing is accepted while the burst arrives: only the listen queue holds the clients
    hold = threading.Event()
    monkeypatch.setattr(Server, "_accept_loop", lambda self: hold.wait(30))
    srv = Server(Address(path=str(tmp_path / "s")), engine)
    srv.start()
    socks = []
    try:
        assert srv.backlog == BACKLOG >= 512
        for _ in range(200):                      # a Unix socket refuses at once when full
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect(str(tmp_path / "s"))        # raised BlockingIOError at 17 before
            socks.append(s)
    finally:
        hold.set()
        for s in socks:
            s.close()
        srv.close()


def test_connections_over_the_limit_get_one_error_line_when_all_are_busy(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    real = server_mod.handle_line
    release = threading.Event()

    def held(session, raw):  # type: ignore[no-untyped-def]
        if b"hold" in raw:
            release.wait(10)
            return "held", False
        return real(session, raw)

    monkeypatch.setattr(server_mod, "handle_line", held)
    with BackgroundServer(engine, max_clients=2) as srv:
        a, b = connect(srv.address), connect(srv.address)
        assert ask(a, "version").startswith("Interface")
        a.sendall(b"hold\n")
        b.sendall(b"hold\n")                     # both have a request being answered
        time.sleep(0.3)
        c = connect(srv.address)
        c.settimeout(5)
        reply = c.recv(4096).decode()
        assert reply.startswith("Error: server busy") and reply.endswith("\n")
        assert closed_within(c, 5)
        c.close()
        release.set()
        for s in (a, b):                         # the two served clients go on
            s.settimeout(5)
            assert s.recv(4096).startswith(b"held")
            assert ask(s, MOVE)
        a.sendall(b"exit\n")
        assert closed_within(a, 5)
        a.close()
        time.sleep(0.3)
        d = connect(srv.address)                 # a freed place is served again
        assert ask(d, "version").startswith("Interface")
        assert srv.stats["refused"] == 1 and srv.stats["evicted"] == 0
        b.close()
        d.close()


def test_64_idle_connections_do_not_lock_out_a_new_client(engine: Engine) -> None:
    """With every place taken by idle connections (the default limit, an hour's idle
    timeout), a new client closes the one idle longest and is served at once."""
    with BackgroundServer(engine) as srv:
        assert srv._server is not None and srv._server.max_clients == 64
        idle = [connect(srv.address) for _ in range(64)]
        deadline = time.monotonic() + 10
        while srv.stats["connections"] < 64 and time.monotonic() < deadline:
            time.sleep(0.01)                     # all accepted
        time.sleep(0.1)
        for s in idle[:32]:                      # these asked something after all connected
            assert ask(s, "version").startswith("Interface")
        idle[40].sendall(b"versi")               # a line still arriving counts as idle
        time.sleep(0.2)
        t0 = time.monotonic()
        new = connect(srv.address)
        assert ask(new, "version").startswith("Interface")
        took = time.monotonic() - t0
        assert took < 1.0, took                  # waited up to --idle-timeout (3,600 s) before
        assert closed_within(idle[32], 5)        # connected before the askers asked: idlest
        assert srv.stats["evicted"] == 1 and srv.stats["refused"] == 0
        for k in (0, 31, 33, 63):                # the others are still served
            assert ask(idle[k], "version").startswith("Interface"), k
        t0 = time.monotonic()
        again = [connect(srv.address) for _ in range(3)]   # each closes the next idlest
        assert all(ask(s, "version").startswith("Interface") for s in again)
        assert time.monotonic() - t0 < 3.0
        assert srv.stats["evicted"] == 4
        assert closed_within(idle[34], 5) and closed_within(idle[35], 5)
        assert closed_within(idle[36], 5)
        for s in idle + again + [new]:
            s.close()


def test_a_connection_with_a_request_being_answered_is_never_evicted(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    real = server_mod.handle_line
    release = threading.Event()

    def held(session, raw):  # type: ignore[no-untyped-def]
        if b"hold" in raw:
            release.wait(10)
            return "held", False
        return real(session, raw)

    monkeypatch.setattr(server_mod, "handle_line", held)
    with BackgroundServer(engine, max_clients=2) as srv:
        busy = connect(srv.address)              # connected first: the oldest
        idle = connect(srv.address)
        assert ask(idle, "version").startswith("Interface")
        busy.sendall(b"hold\n")
        time.sleep(0.3)
        new = connect(srv.address)
        assert ask(new, "version").startswith("Interface")
        assert closed_within(idle, 5)            # the idle one made room, not the busy one
        release.set()
        busy.settimeout(5)
        assert busy.recv(4096).startswith(b"held")
        assert srv.stats["evicted"] == 1
        for s in (busy, idle, new):
            s.close()


def test_idle_and_slow_clients_are_closed_and_active_ones_kept(engine: Engine) -> None:
    with BackgroundServer(engine, idle_timeout=0.6) as srv:
        idle = connect(srv.address)
        slow = connect(srv.address)
        active = connect(srv.address)
        t0 = time.monotonic()
        stop = threading.Event()

        def dribble() -> None:                   # a byte every 0.2 s, never a line end
            while not stop.is_set():
                try:
                    slow.sendall(b"v")
                except OSError:
                    return
                time.sleep(0.2)

        t = threading.Thread(target=dribble, daemon=True)
        t.start()
        for _ in range(6):                       # 1.8 s of regular questions
            assert ask(active, "version").startswith("Interface")
            time.sleep(0.3)
        assert closed_within(idle, 3)
        assert closed_within(slow, 3)
        stop.set()
        assert time.monotonic() - t0 < 6
        assert ask(active, MOVE)
        assert srv.stats["timeouts"] >= 2
        for s in (idle, slow, active):
            s.close()


def test_one_slow_request_does_not_hold_up_the_others(engine: Engine,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    real = server_mod.handle_line

    def slow_for_some(session, raw):  # type: ignore[no-untyped-def]
        if b"slowly" in raw:
            time.sleep(2.0)
            return "done", False
        return real(session, raw)

    monkeypatch.setattr(server_mod, "handle_line", slow_for_some)
    with BackgroundServer(engine, workers=2) as srv:
        a, b = connect(srv.address), connect(srv.address)
        a.sendall(b"slowly\n")
        time.sleep(0.2)                          # a's request is being worked on
        t0 = time.monotonic()
        assert ask(b, "version").startswith("Interface")
        assert time.monotonic() - t0 < 1.0       # waited 2 s behind a's before
        a.settimeout(5)
        assert a.recv(4096).startswith(b"done")
        a.close()
        b.close()


def test_concurrent_clients_get_the_replies_of_one_client(engine: Engine) -> None:
    from gbot.adapters.gnubg_external import Session, handle_line
    from gbot.game.match import GameState
    from gbot.game.referee import Referee, legal_results
    from gbot.tournament.players import board_line

    lines = []
    ref = Referee(length=5, seed=3)
    import random

    pick = random.Random(3)
    while len(lines) < 60 and not ref.state.match_over:
        s = ref.state
        if s.game_state in (GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
            ref.next_game()
            continue
        if s.game_state == GameState.NONE or s.dice == (0, 0):
            ref.roll()
            continue
        lines.append(board_line(s, s.player_to_act, ("a", "b"), "move"))
        results = legal_results(s)
        ref.play(results[pick.randrange(len(results))] if len(results) else None)
    want = [handle_line(Session(engine), ln)[0] for ln in lines]
    got: dict[int, list[str]] = {}
    with BackgroundServer(engine, workers=4) as srv:
        def client(k: int) -> None:
            sock = connect(srv.address)
            got[k] = [ask(sock, ln) for ln in lines]
            sock.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert all(got[k] == want for k in range(4))


def test_variation_refuses_lines_of_other_checker_counts(engine: Engine) -> None:
    with BackgroundServer(engine, checkers=15) as srv:
        s = connect(srv.address)
        reply = ask(s, HYPER2)
        assert reply.startswith("Error: this server plays 15 checkers") and "has 2" in reply
        assert ask(s, MOVE) and not ask(s, MOVE).startswith("Error")
        s.close()
    with BackgroundServer(engine, checkers=2) as srv:
        s = connect(srv.address)
        assert not ask(s, HYPER2).startswith("Error")
        assert ask(s, MOVE).startswith("Error: this server plays 2 checkers")
        s.close()
    with BackgroundServer(engine) as srv:         # the default reads any variation
        s = connect(srv.address)
        assert not ask(s, HYPER2).startswith("Error")
        assert not ask(s, MOVE).startswith("Error")
        s.close()


def test_bad_limits_are_refused(engine: Engine) -> None:
    for kw in ({"max_clients": -1}, {"backlog": 0}, {"workers": 0}, {"idle_timeout": -1.0},
               {"checkers": 16}):
        with pytest.raises(ValueError):
            Server(Address(), engine, **kw)  # type: ignore[arg-type]


def test_connection_sockets_block_with_the_kernels_timeouts() -> None:
    """A served connection is a blocking socket (one system call per read or write) whose
    reads and writes give up after the idle timeout, through SO_RCVTIMEO/SO_SNDTIMEO."""
    a, b = socket.socketpair()
    try:
        server_mod.set_timeouts(a, 0.3)
        assert a.gettimeout() is None
        t0 = time.monotonic()
        with pytest.raises((BlockingIOError, TimeoutError)):
            a.recv(10)
        assert 0.25 < time.monotonic() - t0 < 3
        b.sendall(b"x\n")
        assert a.recv(10) == b"x\n"            # data still reads at once
    finally:
        a.close()
        b.close()
