"""The ASGI application (Starlette): routes, limits, the thread pool and the error replies.

:func:`create_app` builds it around a :class:`~gbot.adapters.web.service.Service`. The engine
runs in worker threads (its numba kernels release the GIL), never on the event loop: at most
``threads`` requests compute at once. Heavy work (look-ahead requests, ply 1 or more, and every
rollout) holds at most half of those threads, at a lower CPU priority; the others are kept for
0-ply requests, so heavy work never holds them up. A computation holds its thread until it
really ends; one whose request ran past its time bound or whose client went away is asked to
stop (rollouts stop within :data:`~gbot.adapters.web.service.ROLLOUT_STEP` trials).

Each request is bounded: its body by ``max_body`` bytes (413) and by ``body_timeout`` seconds
to arrive (408), its wait for a thread and its computation together by ``timeout`` seconds
(503 with ``Retry-After``). :func:`server_config` adds the bounds of the connection: a request
head must arrive within :data:`DEFAULT_HEADER_TIMEOUT` seconds, idle keep-alive connections
close after :data:`KEEP_ALIVE` seconds, and an answer the client does not read is dropped.
Every error is a JSON object ``{"message": "..."}`` with one line of text, as wildbg's are.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import math
import os
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gbot.adapters.web.openapi import openapi_document
from gbot.adapters.web.service import Cancelled, RequestError, Service, cancellable

__all__ = ["DEFAULT_BODY_TIMEOUT", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_BODY",
           "DEFAULT_THREADS", "DEFAULT_TIMEOUT", "HEAVY_NICE", "KEEP_ALIVE", "MAX_HEAD",
           "MAX_JSON_DEPTH", "SEND_TIMEOUT", "create_app", "server_config"]

DEFAULT_MAX_BODY = 16 * 1024
"""Largest request body accepted (bytes); a position request is well under 1 KiB."""
DEFAULT_TIMEOUT = 20.0
"""Seconds a request may wait for a worker thread and compute before it is answered 503."""
DEFAULT_THREADS = 4
DEFAULT_BODY_TIMEOUT = 10.0
"""Seconds a request body may take to arrive once the head is in (408 beyond)."""
DEFAULT_HEADER_TIMEOUT = 10.0
"""Seconds a client has to send a whole request head, from connecting or from the end of the
previous answer; then the connection is closed (with a 408 when part of a head came)."""
KEEP_ALIVE = 5
"""Seconds an idle keep-alive connection stays open (uvicorn's ``timeout_keep_alive``)."""
SEND_TIMEOUT = 10.0
"""Seconds an answer may take to be read by the client, past the other bounds of its request;
then the connection is dropped."""
MAX_HEAD = 16 * 1024
"""Largest request head (request line and headers) in bytes; a longer one gets a 400, or a
431 when it arrived whole."""
HEAVY_NICE = 10
"""Niceness of the threads that run heavy work (Linux), so that the 0-ply requests and the
event loop get the CPU first."""
MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects a request body may have (a request needs 3)."""

log = logging.getLogger("gbot.adapters.web")


def static_dir() -> Path:
    """Where the page's files are (inside the installed package)."""
    return Path(str(resources.files("gbot.adapters.web") / "static"))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"message": " ".join(message.split())}, status_code=status)


class _Busy(Exception):
    """As many requests as may wait for a worker thread already wait."""


class _Late(Exception):
    """No worker thread came free within the time bound."""


class _Overtime(Exception):
    """The computation ran past the time bound (it is asked to stop)."""


class _Gone(Exception):
    """The client went away (the computation is asked to stop)."""


class _Waiter:
    """A request waiting for a worker thread."""

    __slots__ = ("future", "granted", "heavy", "loop")

    def __init__(self, heavy: bool, loop: asyncio.AbstractEventLoop) -> None:
        self.heavy = heavy
        self.loop = loop
        self.future: asyncio.Future[None] = loop.create_future()
        self.granted = False


def _lower_priority() -> None:
    """Run this thread at :data:`HEAVY_NICE` (Linux: niceness is per thread)."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HEAVY_NICE)


def _resolve(future: asyncio.Future[Any], source: Future[Any] | None) -> None:
    """Settle ``future`` as ``source`` ended (None: with no value), unless it is settled."""
    if future.done():
        return
    if source is None:
        future.set_result(None)
    elif source.cancelled():
        future.cancel()
    elif source.exception() is not None:
        future.set_exception(source.exception())       # type: ignore[arg-type]
    else:
        future.set_result(source.result())


class _Limits:
    """The worker threads and the per-request bounds.

    At most ``threads`` computations run at once; heavy ones (look-ahead requests and
    rollouts) hold at most :attr:`heavy` of those threads, and the others are kept for 0-ply
    requests. A computation holds its thread until it really ends, also after its request was
    answered. Requests wait for a thread in turn; beyond :attr:`max_waiting` waiting requests
    (:attr:`max_waiting_heavy` heavy ones) a request is answered 503 at once.
    """

    def __init__(self, threads: int, timeout: float, max_body: int,
                 body_timeout: float = DEFAULT_BODY_TIMEOUT,
                 header_timeout: float = DEFAULT_HEADER_TIMEOUT) -> None:
        if threads < 1 or timeout <= 0 or max_body < 256 or body_timeout <= 0 \
                or header_timeout <= 0:
            raise ValueError(f"threads >= 1, timeout > 0, max_body >= 256 and body and header "
                             f"timeouts > 0 are needed, got {threads!r}, {timeout!r}, "
                             f"{max_body!r}, {body_timeout!r}, {header_timeout!r}")
        self.threads = threads
        self.heavy = max(1, threads // 2)
        """Threads heavy work may hold (with one thread in all, no thread is kept apart)."""
        self.timeout = timeout
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.header_timeout = header_timeout
        self.max_waiting = 8 * threads
        self.max_waiting_heavy = self.heavy
        self.running = 0
        """Computations in worker threads, those of answered requests included."""
        self.heavy_running = 0
        self.stats = {"busy": 0, "late": 0, "overtime": 0, "gone": 0}
        self._queue: deque[_Waiter] = deque()
        self._lock = threading.Lock()
        self._light_pool = ThreadPoolExecutor(threads, "gbot-web")
        self._heavy_pool = ThreadPoolExecutor(self.heavy, "gbot-web-heavy",
                                              initializer=_lower_priority)

    def retry_after(self, heavy: bool) -> int:
        """Seconds a refused request should wait before it asks again."""
        return max(1, math.ceil(self.timeout / 4)) if heavy else 1

    def waiting(self) -> int:
        """Requests waiting for a worker thread."""
        return len(self._queue)

    def _grant(self) -> None:
        """Give free threads to the waiting requests, in turn (a heavy request waiting for a
        heavy thread lets 0-ply requests behind it go first). Holds the lock."""
        for w in list(self._queue):
            if self.running >= self.threads:
                return
            if w.heavy and self.heavy_running >= self.heavy:
                continue
            self._queue.remove(w)
            w.granted = True                # before its wait can end
            self.running += 1
            self.heavy_running += w.heavy
            try:
                w.loop.call_soon_threadsafe(_resolve, w.future, None)
            except RuntimeError:            # its event loop is closed: nobody waits
                w.granted = False
                self.running -= 1
                self.heavy_running -= w.heavy

    def _release(self, heavy: bool) -> None:
        with self._lock:
            self.running -= 1
            self.heavy_running -= heavy
            self._grant()

    def _leave(self, w: _Waiter) -> None:
        """``w`` gives up its thread, or its place in the queue."""
        with self._lock:
            if w.granted:
                self.running -= 1
                self.heavy_running -= w.heavy
                self._grant()
            elif w in self._queue:
                self._queue.remove(w)
            w.future.cancel()

    async def _acquire(self, heavy: bool, deadline: float, gone: asyncio.Future[None]) -> None:
        """A worker thread of the class of the request, by ``deadline`` (loop time)."""
        loop = asyncio.get_running_loop()
        w = _Waiter(heavy, loop)
        with self._lock:
            if len(self._queue) >= self.max_waiting or (
                    heavy and sum(x.heavy for x in self._queue) >= self.max_waiting_heavy):
                self.stats["busy"] += 1
                raise _Busy
            self._queue.append(w)
            self._grant()
        try:
            await asyncio.wait({w.future, gone}, timeout=max(deadline - loop.time(), 0.0),
                               return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            self._leave(w)
            raise
        if gone.done() or not w.granted or loop.time() >= deadline:
            self._leave(w)
            if gone.done():
                raise _Gone
            self.stats["late"] += 1
            raise _Late

    async def call(self, fn: Callable[[], Any], heavy: bool, gone: asyncio.Future[None]) -> Any:
        """``fn()`` in a worker thread of its class within the time bound, while the client
        stays (``gone`` not done). Raises :class:`_Busy`, :class:`_Late`, :class:`_Overtime`
        or :class:`_Gone`; in the last two cases the computation is asked to stop."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        await self._acquire(heavy, deadline, gone)
        stop = threading.Event()
        done: asyncio.Future[Any] = loop.create_future()
        stop_by = time.monotonic() + max(deadline - loop.time(), 0.0)

        def run() -> Any:
            with cancellable(stop, stop_by):
                return fn()

        def finished(source: Future[Any]) -> None:       # in the worker thread
            self._release(heavy)
            with contextlib.suppress(RuntimeError):        # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_resolve, done, source)

        try:
            source = (self._heavy_pool if heavy else self._light_pool).submit(run)
        except RuntimeError:                               # shut down
            self._release(heavy)
            raise
        source.add_done_callback(finished)
        try:
            await asyncio.wait({done, gone}, timeout=max(deadline - loop.time(), 0.0),
                               return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            stop.set()
            raise
        if done.done():
            return done.result()
        stop.set()
        done.cancel()
        if gone.done():
            self.stats["gone"] += 1
            raise _Gone
        self.stats["overtime"] += 1
        raise _Overtime


def _busy(limits: _Limits, heavy: bool, message: str) -> JSONResponse:
    after = limits.retry_after(heavy)
    response = _error(503, f"{message}; retry after {after} s")
    response.headers["Retry-After"] = str(after)
    return response


async def _watch(request: Request, gone: asyncio.Future[None]) -> None:
    """Settle ``gone`` when the client goes away."""
    with contextlib.suppress(Exception):
        while (await request.receive())["type"] != "http.disconnect":
            pass
        if not gone.done():
            gone.set_result(None)


async def _run(limits: _Limits, request: Request, heavy: bool,
               fn: Callable[[], Any]) -> Response:
    """``fn()`` in a worker thread within the time bound, as a JSON response; ``heavy``: it
    looks ahead or rolls out."""
    gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    watcher = asyncio.ensure_future(_watch(request, gone))
    try:
        result = await limits.call(fn, heavy, gone)
    except _Busy:
        kind = "look-ahead requests and rollouts" if heavy else "requests"
        return _busy(limits, heavy, f"the server is busy: as many {kind} as may wait for a "
                                    f"worker thread wait already")
    except _Late:
        return _busy(limits, heavy, f"the server is busy: no worker thread came free within "
                                    f"{limits.timeout:g} s, the time bound per request")
    except _Overtime:
        return _busy(limits, heavy, f"the request took longer than {limits.timeout:g} s, the "
                                    f"time bound per request, and was stopped; ask for a lower "
                                    f"ply or fewer trials")
    except (_Gone, Cancelled):
        return Response(status_code=503)                    # nobody reads it
    except RequestError as exc:
        return _error(400, str(exc))
    except NotImplementedError as exc:
        return _error(501, str(exc))
    except Exception as exc:   # noqa: BLE001 - one line to the client, the trace to the log
        log.exception("request failed")
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")
    finally:
        watcher.cancel()
    return JSONResponse(result)


async def _read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes (413 beyond)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise HTTPException(413, f"the body is {int(length)} bytes, at most {limit}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"the body is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, limit: int, seconds: float) -> Mapping[str, Any]:
    """The request's JSON object, read up to ``limit`` bytes within ``seconds`` (RequestError,
    413 beyond the size, 408 beyond the time, :class:`_Gone` when the client goes away)."""
    try:
        raw = await asyncio.wait_for(_read_body(request, limit), seconds)
    except asyncio.TimeoutError:
        raise HTTPException(408, f"the body took longer than {seconds:g} s to arrive") from None
    except ClientDisconnect:
        raise _Gone from None
    if not raw.strip():
        raise RequestError("the body is empty; send a JSON object such as "
                           "{\"position\": \"4HPwATDgc/ABMA\"}")
    depth = _nesting(raw)
    if depth > MAX_JSON_DEPTH:
        raise RequestError(f"the body nests arrays and objects {depth} deep, at most "
                           f"{MAX_JSON_DEPTH}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RequestError(f"the body is not UTF-8: {exc}") from None
    try:
        body = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RequestError(f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise RequestError("the body must be a JSON object")
    return body


_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_OTHER_BYTES = bytes(b for b in range(256) if b not in b'[]{}"')


def _nesting(raw: bytes) -> int:
    """How deep the arrays and objects of the JSON text ``raw`` nest (brackets inside strings
    not counted); malformed text gets some number, and ``json`` refuses it afterwards."""
    depth = deepest = 0
    in_string = False
    for b in _ESCAPE.sub(b"", raw).translate(None, _OTHER_BYTES):   # brackets and quotes
        if b == 0x22:
            in_string = not in_string
        elif in_string:
            continue
        elif b in (0x5B, 0x7B):          # [ {
            depth += 1
            deepest = max(deepest, depth)
        else:                            # ] }
            depth -= 1
    return deepest


def _deep(body: Mapping[str, Any], default: int) -> bool:
    """Whether a request asks for look-ahead: any ``ply`` but 0 (a number, or text that reads
    0) counts, bad values included (they are refused at once)."""
    p = body.get("ply", default)
    return not (p == 0 or (isinstance(p, str) and p.strip() == "0"))


class _HeadLimit:
    """Refuses requests whose head (target and headers) is over :data:`MAX_HEAD` bytes (431),
    whichever way the HTTP parser let it in."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            size = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) + sum(
                len(k) + len(v) + 4 for k, v in scope.get("headers", ()))
            if size > MAX_HEAD:
                response = _error(431, f"the request head is {size} bytes, at most {MAX_HEAD}")
                response.headers["Connection"] = "close"
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(service: Service | None = None, *, threads: int = DEFAULT_THREADS,
               timeout: float = DEFAULT_TIMEOUT, max_body: int = DEFAULT_MAX_BODY,
               body_timeout: float = DEFAULT_BODY_TIMEOUT,
               header_timeout: float = DEFAULT_HEADER_TIMEOUT, warm: bool = False) -> Starlette:
    """The ASGI app: wildbg's ``GET /move`` and ``GET /eval``, gbot's ``POST /hint``,
    ``/eval``, ``/cube``, ``/rollout``, ``/openapi.json``, ``/docs`` and the page at ``/``.

    ``warm`` loads the networks and compiles the kernels once at start-up. ``header_timeout``
    is for :func:`server_config`."""
    svc = service if service is not None else Service()
    limits = _Limits(threads, timeout, max_body, body_timeout, header_timeout)
    static = static_dir()

    def query(request: Request) -> dict[str, str]:
        if len(request.url.query) > 2048:
            raise RequestError("the query string is too long")
        return dict(request.query_params)

    async def move(request: Request) -> Response:
        try:
            params = query(request)
        except RequestError as exc:
            return _error(400, str(exc))
        ply = params.get("ply")
        deep = svc.ply > 0 if ply in (None, "") else ply.strip() != "0"
        return await _run(limits, request, deep, lambda: svc.wildbg_move(params))

    async def evaluate(request: Request) -> Response:
        if request.method == "GET":
            try:
                params = query(request)
            except RequestError as exc:
                return _error(400, str(exc))
            return await _run(limits, request, svc.ply > 0, lambda: svc.wildbg_eval(params))
        return await native(request, svc.evaluate)

    async def native(request: Request, fn: Callable[[Mapping[str, Any]], Any],
                     heavy: bool = False) -> Response:
        try:
            body = await _json_body(request, limits.max_body, limits.body_timeout)
        except RequestError as exc:
            return _error(400, str(exc))
        except _Gone:
            return Response(status_code=503)                # nobody reads it
        return await _run(limits, request, heavy or _deep(body, svc.ply), lambda: fn(body))

    async def hint(request: Request) -> Response:
        return await native(request, svc.hint)

    async def cube(request: Request) -> Response:
        return await native(request, svc.cube)

    async def rollout(request: Request) -> Response:
        return await native(request, svc.rollout, heavy=True)

    openapi_json = JSONResponse(openapi_document()).body     # made once: a constant

    async def openapi(request: Request) -> Response:
        return Response(openapi_json, media_type="application/json")

    async def index(request: Request) -> Response:
        return FileResponse(static / "index.html", media_type="text/html")

    async def docs(request: Request) -> Response:
        return FileResponse(static / "docs.html", media_type="text/html")

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "ply": svc.ply, "timeout": limits.timeout,
                             "threads": limits.threads, "heavy_threads": limits.heavy,
                             "running": limits.running, "waiting": limits.waiting()})

    async def http_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            msg = exc.detail if exc.status_code in (408, 413) else {
                404: f"no such route: {request.method} {request.url.path}",
                405: f"{request.method} is not allowed on {request.url.path}",
            }.get(exc.status_code, str(exc.detail))
            response = _error(exc.status_code, msg)
            if exc.status_code in (408, 413):     # the rest of the body is not read
                response.headers["Connection"] = "close"
            return response
        return _error(500, "internal error")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if warm:
            await anyio.to_thread.run_sync(svc.warm)
        gc.collect()
        gc.freeze()     # what start-up loaded is never scanned again: no long collector pauses
        yield

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/move", move, methods=["GET"]),
        Route("/eval", evaluate, methods=["GET", "POST"]),
        Route("/hint", hint, methods=["POST"]),
        Route("/cube", cube, methods=["POST"]),
        Route("/rollout", rollout, methods=["POST"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=static), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error},
                    middleware=[Middleware(_HeadLimit)], lifespan=lifespan)
    app.state.service = svc
    app.state.limits = limits
    return app


# --- the connection's bounds (uvicorn) ---------------------------------------------------------


def _timeout_reply() -> bytes:
    body = json.dumps({"message": "the request head took too long to arrive"}).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
            + body)


class _Deadlines(asyncio.Protocol):
    """Deadlines for uvicorn's HTTP protocol (mixed in before it): a request head must arrive
    within ``head_seconds`` of the connection or of the previous answer, and a request must be
    answered and its answer read within ``request_seconds`` of its head."""

    head_seconds = DEFAULT_HEADER_TIMEOUT
    request_seconds = DEFAULT_BODY_TIMEOUT + DEFAULT_TIMEOUT + SEND_TIMEOUT
    transport: asyncio.Transport
    cycle: Any
    _timer: asyncio.TimerHandle | None = None
    _timed: Any = None               # the request the timer is for (None: waiting for a head)
    _bytes = False                   # bytes came since the timer was armed

    def _arm(self, seconds: float, request: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timed = request
        self._bytes = False
        self._timer = asyncio.get_running_loop().call_later(seconds, self._expired)

    def _check(self) -> None:
        """Arm the request's deadline when a new request began, else keep the head's."""
        cycle = getattr(self, "cycle", None)
        if cycle is not None and cycle is not self._timed and not cycle.response_complete:
            self._arm(self.request_seconds, cycle)

    def _expired(self) -> None:
        self._timer = None
        transport = self.transport
        if transport.is_closing():
            return
        cycle = getattr(self, "cycle", None)
        if (cycle is not None and not cycle.response_complete) or \
                transport.get_write_buffer_size():
            self._drop()                      # not answered, or the answer is not read
        elif self._bytes:
            transport.write(_timeout_reply())  # part of a head came
            transport.close()
        else:
            transport.close()                 # idle

    def _drop(self) -> None:
        """Close the connection at once, what it has not sent discarded (a reset)."""
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._arm(self.head_seconds, None)

    def data_received(self, data: bytes) -> None:
        self._bytes = True
        super().data_received(data)
        self._check()

    def on_response_complete(self) -> None:
        parent: Any = super()
        parent.on_response_complete()
        cycle = getattr(self, "cycle", None)
        if self.transport.is_closing():
            return
        if cycle is not None and not cycle.response_complete:
            self._arm(self.request_seconds, cycle)       # a pipelined request is under way
        else:
            self._arm(self.head_seconds, cycle)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)


def _protocol(limits: _Limits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools' when installed, else h11's) with the deadlines."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    return type("GbotHTTPProtocol", (_Deadlines, AutoHTTPProtocol), {
        "head_seconds": limits.header_timeout,
        "request_seconds": limits.body_timeout + limits.timeout + SEND_TIMEOUT,
    })


def server_config(app: Starlette, host: str, port: int, *, log_level: str = "warning",
                  access_log: bool = False) -> Any:
    """The ``uvicorn.Config`` that serves ``app`` (made by :func:`create_app`) on ``host``
    and ``port`` with the bounds of a connection: request heads within the app's
    ``header_timeout``, at most :data:`MAX_HEAD` bytes, idle keep-alive connections closed
    after :data:`KEEP_ALIVE` seconds, and answers not read dropped."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level,
                          access_log=access_log, http=_protocol(app.state.limits),
                          timeout_keep_alive=KEEP_ALIVE, h11_max_incomplete_event_size=MAX_HEAD,
                          backlog=2048, timeout_graceful_shutdown=5)
