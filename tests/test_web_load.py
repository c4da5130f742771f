"""``gbot web`` against hostile clients over real sockets: the bounds of a connection (request
heads, bodies, answers not read, idle connections, huge and malformed requests) and, scaled
down from ``scripts/load_web.py``'s 200 hostile clients and 8 rollouts, the latency of normal
0-ply requests while 40 hostile clients and 4 rollout clients load the server.

Before these bounds a slowloris client held its connection for ever, and 4 rollouts of 648
trials took every worker thread: a 0-ply ``GET /move`` waited up to the time bound, then the
rollouts, abandoned but still running, had every request answered 503 "busy".
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("pydantic")
uvicorn = pytest.importorskip("uvicorn")

import gbot.adapters.web.app as app_mod  # noqa: E402
from gbot.adapters.web.app import create_app, server_config  # noqa: E402
from gbot.adapters.web.service import Service  # noqa: E402
from gbot.game.match import Rules  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
START_QUERY = "p24=2&p13=5&p8=3&p6=5&p1=-2&p12=-5&p17=-3&p19=-5"
MOVE = f"GET /move?ply=0&die1=3&die2=1&{START_QUERY} HTTP/1.1\r\nHost: t\r\n\r\n".encode()


@pytest.fixture(scope="module")
def service() -> Service:
    svc = Service(rules=Rules(jacoby=True, beavers=True))
    svc.warm()
    return svc


_servers: dict[tuple[str, int], Any] = {}


@pytest.fixture()
def server(service: Service, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """``gbot web``'s app and server settings on a loopback port, with short bounds: request
    heads 0.5 s, bodies 0.5 s, computations 2 s, answers 0.5 s to be read."""
    monkeypatch.setattr(app_mod, "SEND_TIMEOUT", 0.5)
    app = create_app(service, timeout=2.0, body_timeout=0.5, header_timeout=0.5)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    srv = uvicorn.Server(server_config(app, "127.0.0.1", port))
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.started
    _servers[("127.0.0.1", port)] = srv
    yield "127.0.0.1", port
    srv.should_exit = True
    t.join(10)
    del _servers[("127.0.0.1", port)]


def _connect(addr: tuple[str, int], rcvbuf: int | None = None) -> socket.socket:
    s = socket.socket()
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(10)
    s.connect(addr)
    return s


def _read_all(s: socket.socket, seconds: float) -> tuple[bytes, float, bool]:
    """What the server sends until it closes ``s`` (or ``seconds`` pass): the bytes, the
    seconds it took and whether it closed."""
    t0 = time.monotonic()
    data = b""
    s.settimeout(seconds)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data, time.monotonic() - t0, True
            data += chunk
    except (ConnectionResetError, BrokenPipeError):
        return data, time.monotonic() - t0, True
    except TimeoutError:
        return data, time.monotonic() - t0, False


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def test_a_normal_request_is_answered(server: tuple[str, int]) -> None:
    s = _connect(server)
    s.sendall(MOVE)
    reply = b""
    deadline = time.monotonic() + 30
    while b'"moves"' not in reply and time.monotonic() < deadline:   # head and body may
        s.settimeout(max(0.1, deadline - time.monotonic()))             # come apart
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
    assert _status(reply) == 200 and b'"moves"' in reply
    s.close()


def test_a_request_head_sent_slowly_gets_a_408_and_is_closed(server: tuple[str, int]) -> None:
    s = _connect(server)
    t0 = time.monotonic()
    for b in MOVE[:30]:                         # a byte every 0.05 s, never the whole head
        try:
            s.sendall(bytes([b]))
        except OSError:
            break
        time.sleep(0.05)
    reply, _, closed = _read_all(s, 5)
    assert closed and time.monotonic() - t0 < 4
    assert _status(reply) == 408 and b"connection: close" in reply.lower()
    s.close()


def test_an_idle_connection_is_closed(server: tuple[str, int]) -> None:
    s = _connect(server)
    reply, took, closed = _read_all(s, 5)
    assert closed and reply == b"" and took < 3
    s.close()
    s = _connect(server)                        # after an answer: the same bound to the next
    s.sendall(MOVE)
    assert _status(s.recv(65536)) == 200
    s.sendall(MOVE[:10])
    reply, took, closed = _read_all(s, 5)
    assert closed and took < 3 and _status(reply) == 408
    s.close()


def test_a_body_sent_slowly_gets_a_408(server: tuple[str, int]) -> None:
    s = _connect(server)
    s.sendall(b"POST /hint HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              b"Content-Length: 400\r\n\r\n{\"posi")
    reply, took, closed = _read_all(s, 5)
    assert closed and took < 3
    assert _status(reply) == 408 and b"took longer than 0.5 s" in reply
    s.close()


@pytest.mark.parametrize("chunked", [False, True])
def test_a_huge_body_gets_a_413_and_the_connection_closes(server: tuple[str, int],
                                                         chunked: bool) -> None:
    s = _connect(server)
    if chunked:
        s.sendall(b"POST /hint HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        block = b"10000\r\n" + b"[" * 65536 + b"\r\n"
    else:
        s.sendall(b"POST /hint HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n")
        block = b"[" * 65536
    stop = threading.Event()

    def push() -> None:
        while not stop.is_set():
            try:
                s.sendall(block)
            except OSError:
                return

    t = threading.Thread(target=push, daemon=True)
    t.start()
    reply, took, closed = _read_all(s, 10)
    stop.set()
    assert closed and took < 5 and _status(reply) == 413
    s.close()


def test_malformed_requests_get_a_4xx_never_a_5xx(server: tuple[str, int]) -> None:
    bad = [b"GARBAGE\r\n\r\n", b"GET /move HTTP/9.9\r\n\r\n",
           b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n",
           b"POST /hint HTTP/1.1\r\nHost: t\r\nContent-Length: -5\r\n\r\n",
           b"POST /hint HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
           b"POST /hint HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\n\xff\xfe[[[]"]
    for raw in bad:
        s = _connect(server)
        s.sendall(raw)
        reply, _, _ = _read_all(s, 5)
        assert 400 <= _status(reply) < 500, (raw[:40], reply[:80])
        s.close()


def test_an_answer_that_is_not_read_is_dropped(server: tuple[str, int]) -> None:
    connections = _servers[server].server_state.connections
    s = _connect(server, rcvbuf=4096)
    ask = b"GET /openapi.json HTTP/1.1\r\nHost: t\r\n\r\n"
    s.sendall(ask * 200)                        # 200 answers of 28 KB, not read
    t0 = time.monotonic()
    assert _until(lambda: len(connections) == 1, 5)
    assert _until(lambda: not connections, 15)  # dropped: the bounds add up to 3 s
    assert time.monotonic() - t0 < 10
    got, _, closed = _read_all(s, 10)           # what was sent before: cut short
    assert closed and got.count(b"HTTP/1.1 200") < 200
    s.close()
    c = _connect(server)                        # the server goes on
    c.sendall(MOVE)
    assert _status(c.recv(65536)) == 200
    c.close()


def _until(cond: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(cond())


def test_normal_requests_stay_fast_under_hostile_clients_and_rollouts(tmp_path: Path) -> None:
    """``scripts/load_web.py`` scaled down: 40 hostile clients and 4 rollout clients (648
    trials, past the 5 s time bound: stopped) for 10 s. Every normal 0-ply ``GET /move`` is
    answered 200 within 1 s (p99; before: 503s, or waits of up to the time bound), and no
    request gets a 500."""
    out = tmp_path / "load.json"
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "load_web.py"), "--launch",
                          "app", "--hostile", "40", "--rollouts", "4", "--duration", "10",
                          "--calm", "0", "--ramp", "2", "--timeout", "5", "--json", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=150)
    assert res.returncode == 0, res.stdout + res.stderr
    fig: dict[str, Any] = json.loads(out.read_text())
    normal = fig["normal"]
    assert normal["requests"] >= 100 and normal["statuses"] == {"200": normal["requests"]}, \
        res.stdout
    assert normal["p99_ms"] < 1000.0, res.stdout
    assert fig["server_500s"] == 0 and fig["server_tracebacks"] == 0, res.stdout
    assert fig["server_alive"]
    assert set(fig["fivexx"]) <= {"rollout 503", "malformed 503"}, fig["fivexx"]
