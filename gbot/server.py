"""The gnubg external-player server: sockets, line framing and per-connection sessions.

:class:`Server` listens on TCP (``HOST:PORT``) or on a Unix-domain socket (a path, which gnubg
1.07 accepts as an external address), gives every connection its own
:class:`~gbot.protocols.gnubg_external.Session` and answers each request line with
:func:`~gbot.protocols.gnubg_external.handle_line`. All engine work runs on one worker thread,
so the event loop keeps accepting and reading while a decision is computed, and connections
never share mutable state. A connection that sends an over-long line gets one ``Error:`` reply
for it; one that sends garbage or vanishes mid-line is closed alone.

:func:`serve` runs a server until SIGINT or SIGTERM; :class:`BackgroundServer` runs one on a
thread (tests, benchmarks, ``scripts/run``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from gbot.engine import Engine
from gbot.errors import ProtocolError
from gbot.protocols.gnubg_external import MAX_LINE, Session, handle_line

__all__ = ["MAX_FRAME", "Address", "BackgroundServer", "Server", "parse_address", "serve"]

log = logging.getLogger("gbot.server")

MAX_FRAME = 4 * MAX_LINE
"""Bytes buffered while waiting for a newline; a longer line is dropped with one error reply."""


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


class Server:
    """An asyncio server answering gnubg's external-player protocol with ``engine``.

    ``engine_factory`` gives each connection its engine (default: share ``engine``; the engine
    holds no per-game state). Call :meth:`start` then :meth:`wait_closed`, or use :func:`serve`.
    """

    def __init__(self, address: Address, engine: Engine,
                 engine_factory: Callable[[], Engine] | None = None) -> None:
        self.address = address
        self.engine = engine
        self._factory = engine_factory or (lambda: engine)
        self._server: asyncio.AbstractServer | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gbot-engine")
        self._writers: set[asyncio.StreamWriter] = set()
        self._conn_ids = 0
        self.bound: Address | None = None
        self.stats = {"connections": 0, "requests": 0, "errors": 0}

    async def start(self) -> Address:
        """Bind and listen; returns the bound address (the real port when 0 was asked)."""
        addr = self.address
        if addr.path is not None:
            with contextlib.suppress(FileNotFoundError):
                if os.path.exists(addr.path) and _is_socket(addr.path):
                    os.unlink(addr.path)
            self._server = await asyncio.start_unix_server(self._client, path=addr.path,
                                                           limit=MAX_FRAME)
            self.bound = addr
        else:
            self._server = await asyncio.start_server(self._client, host=addr.host,
                                                      port=addr.port, limit=MAX_FRAME,
                                                      reuse_address=True)
            port = self._server.sockets[0].getsockname()[1]
            self.bound = Address(host=addr.host, port=int(port))
        log.info("listening on %s (engine %s, ply %d)", self.bound, self.engine.backend,
                 self.engine.ply)
        return self.bound

    async def close(self) -> None:
        """Stop listening, close every connection, stop the worker."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        for w in list(self._writers):
            with contextlib.suppress(Exception):
                w.close()
        self._worker.shutdown(wait=False, cancel_futures=True)
        if self.address.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.address.path)
        log.info("stopped after %d connections, %d requests, %d error replies",
                 self.stats["connections"], self.stats["requests"], self.stats["errors"])

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._conn_ids += 1
        cid = self._conn_ids
        self.stats["connections"] += 1
        self._writers.add(writer)
        peer = writer.get_extra_info("peername") or "unix"
        log.info("#%d connected from %s", cid, peer)
        session = Session(self._factory())
        loop = asyncio.get_running_loop()
        buf = bytearray()
        dropping = False
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                buf += data
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        if len(buf) > MAX_FRAME:
                            dropping = True
                            del buf[:]
                        break
                    raw = bytes(buf[:nl])
                    del buf[:nl + 1]
                    if dropping:
                        dropping = False
                        reply: str | None = f"Error: request longer than {MAX_FRAME} bytes"
                        end = False
                        self.stats["errors"] += 1
                    else:
                        t0 = time.perf_counter()
                        reply, end = await loop.run_in_executor(self._worker, handle_line,
                                                                session, raw)
                        log.debug("#%d %r -> %r (%.1f ms)", cid, raw[:300], reply,
                                  1000 * (time.perf_counter() - t0))
                        if reply is not None and reply.startswith("Error"):
                            self.stats["errors"] += 1
                    self.stats["requests"] += 1
                    if reply is not None:
                        writer.write(reply.encode("utf-8", "replace") + b"\n")
                        await writer.drain()
                    if end:
                        return
        except (ConnectionError, OSError) as exc:
            log.info("#%d connection lost: %s", cid, exc)
        except asyncio.CancelledError:
            pass
        except Exception:  # never let one client take the server down
            log.exception("#%d unexpected failure", cid)
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()
            log.info("#%d closed after %d requests", cid, session.requests)


def _is_socket(path: str) -> bool:
    import stat

    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def _warm(engine: Engine) -> None:
    """Load the compiled kernels before the first question arrives."""
    from gbot.core import movegen
    from gbot.position import Position

    movegen.warm()
    engine.choose_play(Position.initial(), (3, 1))
    engine.probabilities(Position.initial())


def serve(address: Address, engine: Engine, *,
          on_ready: Callable[[Address], None] | None = None) -> int:
    """Run a server until SIGINT or SIGTERM; returns 0 after a clean stop."""
    _warm(engine)

    async def main() -> None:
        server = Server(address, engine)
        bound = await server.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if on_ready is not None:
            on_ready(bound)
        await stop.wait()
        log.info("signal received, stopping")
        await server.close()

    asyncio.run(main())
    return 0


class BackgroundServer:
    """A :class:`Server` on its own thread and event loop, as a context manager.

    ``with BackgroundServer(Engine()) as srv: ... srv.address`` (TCP on an ephemeral port of
    127.0.0.1 unless ``address`` is given).
    """

    def __init__(self, engine: Engine, address: Address | None = None) -> None:
        self.engine = engine
        self.requested = address or Address("127.0.0.1", 0)
        self.address: Address = self.requested
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: Server | None = None
        self._stop: asyncio.Event | None = None

    def __enter__(self) -> BackgroundServer:
        _warm(self.engine)
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            async def main() -> None:
                self._server = Server(self.requested, self.engine)
                self._stop = asyncio.Event()
                try:
                    self.address = await self._server.start()
                except BaseException as exc:
                    failure.append(exc)
                    ready.set()
                    return
                self._loop = asyncio.get_running_loop()
                ready.set()
                await self._stop.wait()
                await self._server.close()

            asyncio.run(main())

        self._thread = threading.Thread(target=run, name="gbot-server", daemon=True)
        self._thread.start()
        ready.wait(30)
        if failure:
            raise failure[0]
        return self

    @property
    def stats(self) -> dict[str, int]:
        """Connections, requests and error replies so far."""
        return dict(self._server.stats) if self._server else {}

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)


def connect(address: Address, timeout: float = 10.0) -> socket.socket:
    """A client socket to ``address`` (helper for tests and tools)."""
    if address.path is not None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(address.path)
        return s
    return socket.create_connection((address.host, address.port), timeout=timeout)
