"""The gnubg external-player server: sockets, line framing and per-connection sessions.

:class:`Server` listens on TCP (``HOST:PORT``) or on a Unix-domain socket (a path, which gnubg
1.07 accepts as an external address), gives every connection its own
:class:`~gbot.adapters.gnubg_external.Session` and answers each request line with
:func:`~gbot.adapters.gnubg_external.handle_line`. Each connection has its own thread (plain
blocking sockets, ``TCP_NODELAY``: the shortest round trip); up to ``workers`` of them do
engine work at once (the evaluator and the move generator keep their scratch space per
thread), and every request's work is bounded (match lengths up to 64, evaluations up to
2 plies), so no request holds the others up for long. A connection that sends an over-long
line gets one ``Error:`` reply for it; one that sends garbage or vanishes mid-line is closed
alone.

Limits: a listen backlog of :data:`BACKLOG`; at most ``max_clients`` connections: one more
closes the connection that has been idle longest (no request being answered; a line still
arriving counts as idle) to make room, and only when every connection has a request being
answered is it answered with one ``Error: ...`` line and closed; a connection idle for
``idle_timeout`` seconds, or that takes that long to finish a line or to read a reply, is
closed.

:func:`serve` runs a server until SIGINT or SIGTERM; :class:`BackgroundServer` runs one in the
background (tests, benchmarks, ``scripts/run``).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import queue
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gbot.adapters.gnubg_external import MAX_LINE, Session, handle_line, warm
from gbot.core import movegen
from gbot.engine.engine import Engine
from gbot.engine.warmup import warm_engine
from gbot.errors import ProtocolError
from gbot.game.notations.fibs_board import line_checkers
from gbot.game.position import Position

__all__ = ["BACKLOG", "DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_CLIENTS", "MAX_FRAME", "Address",
           "BackgroundServer", "Server", "parse_address", "serve", "set_timeouts"]

log = logging.getLogger("gbot.adapters.gnubg_server")

MAX_FRAME = 4 * MAX_LINE
"""Bytes buffered while waiting for a newline; a longer line is dropped with one error reply."""
BACKLOG = 1024
"""Connections the kernel queues before :meth:`Server.start`'s accept loop takes them (a burst
of reconnecting clients; Linux caps it at ``net.core.somaxconn``)."""
DEFAULT_MAX_CLIENTS = 64
"""Connections served at once unless told; one more takes the place of the connection idle
longest, or is refused with an ``Error:`` line when every one has a request being answered."""
DEFAULT_IDLE_TIMEOUT = 3600.0
"""Seconds a connection may stay silent (or take to send one line) before it is closed; gnubg
asks about every move, so only a dead or stalled client is this quiet for an hour."""


@dataclass(frozen=True)
class Address:
    """Where to listen: TCP ``(host, port)`` or a Unix socket ``path``."""

    host: str = "127.0.0.1"
    port: int = 0
    path: str | None = None

    def __str__(self) -> str:
        return self.path if self.path is not None else f"{self.host}:{self.port}"


def parse_address(text: str) -> Address:
    """``HOST:PORT`` (TCP) or a socket path (contains ``/`` or no ``:``), as gnubg 1.07 reads it."""
    host, sep, port = text.rpartition(":")
    if "/" in text or not sep:
        if not text:
            raise ProtocolError("empty listen address")
        return Address(path=text)
    if not port.isdigit() or int(port) > 65535:
        raise ProtocolError(f"bad port in listen address {text!r}")
    return Address(host=host or "127.0.0.1", port=int(port))


class _Slots:
    """At most ``n`` holders at once, as a context manager: a semaphore over a C-level queue
    of tokens (``threading``'s semaphore runs a Python condition on every request)."""

    __slots__ = ("_get", "_put")

    def __init__(self, n: int) -> None:
        tokens: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(n):
            tokens.put(None)
        self._get = tokens.get
        self._put = tokens.put

    def __enter__(self) -> None:
        self._get()

    def __exit__(self, *exc: object) -> None:
        self._put(None)


class _Conn:
    """A served connection: its socket, when its last request was answered (or it connected),
    whether a request is being answered now, and whether it was closed to make room."""

    __slots__ = ("busy", "evicted", "since", "sock")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.since = time.monotonic()
        self.busy = False
        self.evicted = False


class Server:
    """A threaded server answering gnubg's external-player protocol with ``engine``.

    One thread accepts, one thread per connection reads, frames and answers; at most
    ``workers`` connections do engine work at once (default: one per CPU).
    ``engine_factory`` gives each connection its engine (default: share ``engine``; it holds
    no per-game state). ``max_clients`` connections are served at once (0: no limit; a new
    one closes the connection idle longest, see the module's note),
    ``idle_timeout`` seconds of silence close one (0 or None: never), ``backlog`` is the
    listen queue. ``checkers`` (1..15) makes board lines of any other checker count an
    error (``gbot serve --variation``); None accepts every variation gnubg plays.
    :meth:`start` binds and returns at once; :meth:`close` stops everything.
    """

    def __init__(self, address: Address, engine: Engine,
                 engine_factory: Callable[[], Engine] | None = None, *,
                 max_clients: int = DEFAULT_MAX_CLIENTS,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                 backlog: int = BACKLOG, workers: int | None = None,
                 checkers: int | None = None) -> None:
        if max_clients < 0 or backlog < 1 or (workers is not None and workers < 1):
            raise ValueError(f"max_clients >= 0, backlog >= 1 and workers >= 1, got "
                             f"{max_clients!r}, {backlog!r}, {workers!r}")
        if idle_timeout is not None and idle_timeout < 0:
            raise ValueError(f"idle_timeout must be 0 or more seconds, got {idle_timeout!r}")
        if checkers is not None and not 1 <= checkers <= 15:
            raise ValueError(f"checkers must be 1 to 15, got {checkers!r}")
        self.address = address
        self.engine = engine
        self._factory = engine_factory or (lambda: engine)
        self.max_clients = max_clients
        self.idle_timeout = idle_timeout or None
        self.backlog = backlog
        self.checkers = checkers
        self.workers = workers or os.cpu_count() or 1
        self._sock: socket.socket | None = None
        self._lock = _Slots(self.workers)   # engine work at once
        self._conns: dict[int, _Conn] = {}
        self._conns_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._conn_ids = 0
        self.bound: Address | None = None
        self.stats = {"connections": 0, "requests": 0, "errors": 0, "refused": 0,
                      "timeouts": 0, "evicted": 0}

    def start(self) -> Address:
        """Bind, listen and start accepting; returns the bound address (the real port when 0
        was asked)."""
        addr = self.address
        if addr.path is not None:
            if os.path.exists(addr.path) and _is_socket(addr.path):
                os.unlink(addr.path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(addr.path)
            self.bound = addr
        else:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((addr.host, addr.port))
            except OSError:
                sock.close()
                raise
            self.bound = Address(host=addr.host, port=int(sock.getsockname()[1]))
        sock.listen(self.backlog)
        sock.settimeout(0.2)
        self._sock = sock
        t = threading.Thread(target=self._accept_loop, name="gbot-accept", daemon=True)
        t.start()
        self._threads.append(t)
        log.info("listening on %s (engine %s, ply %d)", self.bound, self.engine.backend,
                 self.engine.ply)
        return self.bound

    def close(self) -> None:
        """Stop listening, close every connection, wait for the threads."""
        self._stop.set()
        with self._conns_lock:
            conns = list(self._conns.values())
        for c in conns:
            with contextlib.suppress(OSError):
                c.sock.shutdown(socket.SHUT_RDWR)
        for t in list(self._threads):
            t.join(5)
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        if self.address.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.address.path)
        log.info("stopped after %d connections, %d requests, %d error replies",
                 self.stats["connections"], self.stats["requests"], self.stats["errors"])

    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, peer = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    break
                time.sleep(0.05)
                continue
            try:
                set_timeouts(conn, self.idle_timeout)
                if conn.family == socket.AF_INET:
                    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:          # reset before we got to it
                conn.close()
                continue
            state = _Conn(conn)
            victim: tuple[int, _Conn] | None = None
            with self._conns_lock:
                served = len(self._conns)
                full = bool(self.max_clients) and served >= self.max_clients
                if full:                        # room made by closing the idlest connection
                    victim = self._idlest()
                    if victim is not None:
                        victim[1].evicted = True
                        del self._conns[victim[0]]
                if not full or victim is not None:
                    self._conn_ids += 1
                    cid = self._conn_ids
                    self._conns[cid] = state
            if victim is not None:
                self._evict(*victim)
            elif full:
                self._refuse(conn, served)
                continue
            self.stats["connections"] += 1
            t = threading.Thread(target=self._client, args=(cid, state, peer or "unix"),
                                 name=f"gbot-conn-{cid}", daemon=True)
            self._threads = [x for x in self._threads if x.is_alive()]
            self._threads.append(t)
            t.start()

    def _idlest(self) -> tuple[int, _Conn] | None:
        """The served connection idle longest with no request being answered (None: every
        one has a request being answered). Called with the connections' lock held."""
        idle = [(c.since, cid, c) for cid, c in self._conns.items() if not c.busy]
        if not idle:
            return None
        _, cid, c = min(idle, key=lambda x: (x[0], x[1]))
        return cid, c

    def _evict(self, cid: int, conn: _Conn) -> None:
        """Close connection ``cid`` to make room for a new one (its thread then ends)."""
        self.stats["evicted"] += 1
        log.info("#%d closed to make room for a new client: idle for %.1fs, --max-clients %d "
                 "reached", cid, time.monotonic() - conn.since, self.max_clients)
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_RDWR)

    def _refuse(self, conn: socket.socket, busy: int) -> None:
        """Answer a connection over the limit with one ``Error:`` line and close it."""
        self.stats["refused"] += 1
        log.warning("refused a connection: %d clients connected, each with a request being "
                    "answered (--max-clients %d)", busy, self.max_clients)
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(f"Error: server busy: {busy} clients connected, each with a request "
                         "being answered; try again later\n".encode())
        with contextlib.suppress(OSError):
            conn.close()

    def _answer(self, session: Session, raw: bytes) -> tuple[str | None, bool]:
        """The reply to one request line (engine work under the workers' semaphore)."""
        if self.checkers is not None and b"board:" in raw.lower():
            n = line_checkers(raw.decode("utf-8", "replace"))
            if n is not None and n != self.checkers:
                session.requests += 1
                session.errors += 1
                return (f"Error: this server plays {self.checkers} checkers a side "
                        f"(--variation), the board line has {n}"), False
        with self._lock:
            return handle_line(session, raw)

    def _begin(self, state: _Conn) -> bool:
        """Mark a request of ``state`` as being answered; False when the connection was
        closed to make room."""
        with self._conns_lock:
            if state.evicted:
                return False
            state.busy = True
            return True

    @staticmethod
    def _end(state: _Conn) -> None:
        """The requests of ``state`` are answered: it is idle from now."""
        state.since = time.monotonic()
        state.busy = False

    def _client(self, cid: int, state: _Conn, peer: object) -> None:
        log.info("#%d connected from %s", cid, peer)
        conn = state.sock
        session = Session(self._factory())
        buf = bytearray()
        dropping = False
        stats = self.stats
        lock = self._lock
        idle = self.idle_timeout
        started = 0.0              # when the line now in the buffer began
        plain = self.checkers is None
        reply: str | None
        try:
            while not self._stop.is_set():
                try:
                    data = conn.recv(8192)
                except (TimeoutError, BlockingIOError):     # (SO_RCVTIMEO: EAGAIN)
                    stats["timeouts"] += 1
                    log.info("#%d silent for %gs, closed (--idle-timeout)", cid, idle)
                    break
                if not data:
                    break
                if not buf and not dropping and data.find(b"\n") == len(data) - 1:
                    # the usual case: exactly one whole request, nothing buffered
                    if plain and not log.isEnabledFor(logging.DEBUG):
                        if not self._begin(state):
                            break
                        with lock:
                            reply, end = handle_line(session, data[:-1])
                        stats["requests"] += 1
                        if reply is not None:
                            if reply.startswith("Error"):
                                stats["errors"] += 1
                            conn.sendall(reply.encode("utf-8", "replace") + b"\n")
                        self._end(state)
                        if end:
                            break
                        continue
                if not buf:
                    started = time.monotonic()
                buf += data
                out: list[bytes] = []
                end = False
                if b"\n" in data and not self._begin(state):
                    break
                while not end:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        if len(buf) > MAX_FRAME:
                            dropping = True
                            del buf[:]
                        break
                    raw = bytes(buf[:nl])
                    del buf[:nl + 1]
                    started = time.monotonic()
                    if dropping:
                        dropping = False
                        reply = f"Error: request longer than {MAX_FRAME} bytes"
                    else:
                        t0 = time.perf_counter()
                        reply, end = self._answer(session, raw)
                        if log.isEnabledFor(logging.DEBUG):
                            log.debug("#%d %r -> %r (%.2f ms)", cid, raw[:300], reply,
                                      1000 * (time.perf_counter() - t0))
                    self.stats["requests"] += 1
                    if reply is not None:
                        if reply.startswith("Error"):
                            self.stats["errors"] += 1
                        out.append(reply.encode("utf-8", "replace") + b"\n")
                if out:
                    conn.sendall(b"".join(out))
                if state.busy:
                    self._end(state)
                if end:
                    break
                if (buf or dropping) and idle and time.monotonic() - started > idle:
                    stats["timeouts"] += 1
                    log.info("#%d took over %gs to send one line, closed (--idle-timeout)",
                             cid, idle)
                    break
        except (TimeoutError, BlockingIOError):             # (SO_SNDTIMEO: EAGAIN)
            stats["timeouts"] += 1
            log.info("#%d read no reply for %gs, closed (--idle-timeout)", cid, idle)
        except OSError as exc:
            log.info("#%d connection lost: %s", cid, exc)
        except Exception:  # never let one client take the server down
            log.exception("#%d unexpected failure", cid)
        finally:
            with self._conns_lock:
                self._conns.pop(cid, None)
            with contextlib.suppress(OSError):
                conn.close()
            log.info("#%d closed after %d requests", cid, session.requests)


def set_timeouts(conn: socket.socket, seconds: float | None) -> None:
    """Make ``conn`` a blocking socket whose reads and writes fail after ``seconds`` (None:
    never) through the kernel's own timeouts (``SO_RCVTIMEO``, ``SO_SNDTIMEO``): one system
    call per read or write, where Python's timeout mode polls before each. Python's timeout
    mode where the platform has no such options."""
    conn.settimeout(None)
    if seconds is None:
        return
    whole = int(seconds)
    micro = max(int(round((seconds - whole) * 1e6)), 0 if whole else 1)
    try:
        tv = struct.pack("ll", whole, min(micro, 999_999))
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    except (OSError, AttributeError, struct.error):
        conn.settimeout(seconds)


def _is_socket(path: str) -> bool:
    import stat

    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def _warm(engine: Engine) -> None:
    """Load the compiled kernels before the first question arrives (questions at 1 ply at
    most, :mod:`gbot.engine.warmup`; logged when they compile on a first run)."""

    def questions(e: Engine) -> None:
        movegen.warm()
        e.choose_play(Position.initial(), (3, 1))
        e.probabilities(Position.initial())
        warm(e)

    warm_engine(engine, questions, log.info)


def serve(address: Address, engine: Engine, *,
          on_ready: Callable[[Address], None] | None = None,
          max_clients: int = DEFAULT_MAX_CLIENTS,
          idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
          checkers: int | None = None) -> int:
    """Run a server until SIGINT or SIGTERM; returns 0 after a clean stop (the limits as
    :class:`Server`'s)."""
    _warm(engine)
    gc.collect()
    gc.freeze()      # what start-up loaded is never scanned again: no long collector pauses
    server = Server(address, engine, max_clients=max_clients, idle_timeout=idle_timeout,
                    checkers=checkers)
    bound = server.start()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if on_ready is not None:
            on_ready(bound)
        while not stop.wait(0.5):
            pass
        log.info("signal received, stopping")
    finally:
        server.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


class BackgroundServer:
    """A :class:`Server` started in the background, as a context manager.

    ``with BackgroundServer(Engine()) as srv: ... srv.address`` (TCP on an ephemeral port of
    127.0.0.1 unless ``address`` is given; ``limits`` go to :class:`Server`).
    """

    def __init__(self, engine: Engine, address: Address | None = None, **limits: Any) -> None:
        self.engine = engine
        self.requested = address or Address("127.0.0.1", 0)
        self.address: Address = self.requested
        self._limits = limits
        self._server: Server | None = None

    def __enter__(self) -> BackgroundServer:
        _warm(self.engine)
        self._server = Server(self.requested, self.engine, **self._limits)
        self.address = self._server.start()
        return self

    @property
    def stats(self) -> dict[str, int]:
        """Connections, requests and error replies so far."""
        return dict(self._server.stats) if self._server else {}

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()


def connect(address: Address, timeout: float = 10.0) -> socket.socket:
    """A client socket to ``address`` (helper for tests and tools)."""
    if address.path is not None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(address.path)
        return s
    return socket.create_connection((address.host, address.port), timeout=timeout)
