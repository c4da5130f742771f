"""The ASGI application (Starlette): routes, limits, the thread pool and the error replies.

:func:`create_app` builds it around a :class:`~gbot.adapters.web.service.Service`. The engine
runs in worker threads (its numba kernels release the GIL), never on the event loop: at most
``threads`` requests compute at once, and look-ahead requests (ply 1 or more) take at most half
of them, so a slow request never holds up the 0-ply ones. Each request is bounded: its body by
``max_body`` bytes (413), its computation by ``timeout`` seconds (503). Every error is a JSON
object ``{"message": "..."}`` with one line of text, as wildbg's are.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gbot.adapters.web.openapi import openapi_document
from gbot.adapters.web.service import RequestError, Service

__all__ = ["DEFAULT_MAX_BODY", "DEFAULT_THREADS", "DEFAULT_TIMEOUT", "MAX_JSON_DEPTH",
           "create_app"]

DEFAULT_MAX_BODY = 16 * 1024
"""Largest request body accepted (bytes); a position request is well under 1 KiB."""
DEFAULT_TIMEOUT = 20.0
"""Seconds a request may compute before it is answered 503."""
DEFAULT_THREADS = 4
MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects a request body may have (a request needs 3)."""

log = logging.getLogger("gbot.adapters.web")


def static_dir() -> Path:
    """Where the page's files are (inside the installed package)."""
    return Path(str(resources.files("gbot.adapters.web") / "static"))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"message": " ".join(message.split())}, status_code=status)


class _Limits:
    """The worker threads and the per-request bounds."""

    def __init__(self, threads: int, timeout: float, max_body: int) -> None:
        if threads < 1 or timeout <= 0 or max_body < 256:
            raise ValueError(f"threads >= 1, timeout > 0 and max_body >= 256 are needed, got "
                             f"{threads!r}, {timeout!r}, {max_body!r}")
        self.threads = threads
        self.timeout = timeout
        self.max_body = max_body
        self._all: anyio.CapacityLimiter | None = None
        self._deep: anyio.CapacityLimiter | None = None
        self.running = 0
        """Computations in worker threads, those abandoned at the time bound included."""
        self.max_running = 2 * threads
        self._lock = threading.Lock()

    def tracked(self, fn: Callable[[], Any]) -> Callable[[], Any] | None:
        """``fn`` counted in :attr:`running` while it runs, or None when as many
        computations as :attr:`max_running` still run (timed-out ones finish in the
        background, since a thread cannot be stopped)."""
        with self._lock:
            if self.running >= self.max_running:
                return None
            self.running += 1

        def run() -> Any:
            try:
                return fn()
            finally:
                with self._lock:
                    self.running -= 1

        return run

    def limiters(self) -> tuple[anyio.CapacityLimiter, anyio.CapacityLimiter]:
        """(every request's threads, the look-ahead requests' share), made in the loop."""
        if self._all is None or self._deep is None:
            self._all = anyio.CapacityLimiter(self.threads)
            self._deep = anyio.CapacityLimiter(max(1, self.threads // 2))
        return self._all, self._deep


async def _run(limits: _Limits, deep: bool, fn: Callable[[], Any]) -> Response:
    """``fn()`` in a worker thread within the time bound, as a JSON response."""
    try:
        with anyio.fail_after(limits.timeout):
            every, deep_only = limits.limiters()
            if deep:
                async with deep_only:
                    result = await _in_thread(limits, fn, every)
            else:
                result = await _in_thread(limits, fn, every)
    except _Busy:
        return _error(503, "the server is busy with slower requests; try again shortly")
    except TimeoutError:
        return _error(503, f"the request took longer than {limits.timeout:g} s; "
                           f"ask for a lower ply")
    except RequestError as exc:
        return _error(400, str(exc))
    except NotImplementedError as exc:
        return _error(501, str(exc))
    except Exception as exc:   # noqa: BLE001 - one line to the client, the trace to the log
        log.exception("request failed")
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")
    return JSONResponse(result)


class _Busy(Exception):
    """Too many computations still run."""


async def _in_thread(limits: _Limits, fn: Callable[[], Any],
                     limiter: anyio.CapacityLimiter) -> Any:
    async with limiter:          # wait for a thread here, then count the computation
        run = limits.tracked(fn)
        if run is None:
            raise _Busy
        return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)


async def _json_body(request: Request, limit: int) -> Mapping[str, Any]:
    """The request's JSON object, read up to ``limit`` bytes (RequestError / 413 beyond)."""
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
    raw = b"".join(chunks)
    if not raw.strip():
        raise RequestError("the body is empty; send a JSON object such as "
                           "{\"position\": \"4HPwATDgc/ABMA\"}")
    depth = _nesting(raw)
    if depth > MAX_JSON_DEPTH:
        raise RequestError(f"the body nests arrays and objects {depth} deep, at most "
                           f"{MAX_JSON_DEPTH}")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
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
    p = body.get("ply", default)
    return isinstance(p, int) and not isinstance(p, bool) and p > 0


def create_app(service: Service | None = None, *, threads: int = DEFAULT_THREADS,
               timeout: float = DEFAULT_TIMEOUT, max_body: int = DEFAULT_MAX_BODY,
               warm: bool = False) -> Starlette:
    """The ASGI app: wildbg's ``GET /move`` and ``GET /eval``, gbot's ``POST /hint``,
    ``/eval``, ``/cube``, ``/rollout``, ``/openapi.json``, ``/docs`` and the page at ``/``.

    ``warm`` loads the networks and compiles the kernels once at start-up."""
    svc = service if service is not None else Service()
    limits = _Limits(threads, timeout, max_body)
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
        deep = svc.ply > 0 if ply in (None, "") else ply != "0"
        return await _run(limits, deep, lambda: svc.wildbg_move(params))

    async def evaluate(request: Request) -> Response:
        if request.method == "GET":
            try:
                params = query(request)
            except RequestError as exc:
                return _error(400, str(exc))
            return await _run(limits, svc.ply > 0, lambda: svc.wildbg_eval(params))
        return await native(request, svc.evaluate)

    async def native(request: Request, fn: Callable[[Mapping[str, Any]], Any]) -> Response:
        try:
            body = await _json_body(request, limits.max_body)
        except RequestError as exc:
            return _error(400, str(exc))
        return await _run(limits, _deep(body, svc.ply), lambda: fn(body))

    async def hint(request: Request) -> Response:
        return await native(request, svc.hint)

    async def cube(request: Request) -> Response:
        return await native(request, svc.cube)

    async def rollout(request: Request) -> Response:
        return await native(request, svc.rollout)

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_document())

    async def index(request: Request) -> Response:
        return FileResponse(static / "index.html", media_type="text/html")

    async def docs(request: Request) -> Response:
        return FileResponse(static / "docs.html", media_type="text/html")

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "ply": svc.ply})

    async def http_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            msg = exc.detail if exc.status_code in (413,) else {
                404: f"no such route: {request.method} {request.url.path}",
                405: f"{request.method} is not allowed on {request.url.path}",
            }.get(exc.status_code, str(exc.detail))
            return _error(exc.status_code, msg)
        return _error(500, "internal error")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if warm:
            await anyio.to_thread.run_sync(svc.warm)
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
                    lifespan=lifespan)
    app.state.service = svc
    app.state.limits = limits
    return app
