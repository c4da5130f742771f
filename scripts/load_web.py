#!/usr/bin/env python3
"""``gbot web`` under hostile load: the latency of a normal 0-ply ``GET /move`` while rollouts
run and many clients misbehave, beside the 100 ms target, and the count of 5xx answers.

The script starts ``gbot web`` on a free loopback port (``--ply 0``), warms it up with one
``/move`` and one small rollout, and then, for ``--duration`` seconds:

* ``--rollouts`` clients each post 648-trial rollouts (``POST /rollout``, no dice: the position
  and the cube), one after the other;
* ``--hostile`` clients misbehave, in equal shares: slowloris (a request head sent one byte a
  second), slow bodies (a declared body sent a few bytes a second), huge bodies (megabytes
  with and without a Content-Length), malformed requests (bad request lines, bad headers,
  oversized heads, deeply nested and non-JSON bodies), slow readers (pipelined requests whose
  answers are read 64 bytes a second through a 4 KiB receive buffer) and idle connections;
* ``--normal`` clients each ask ``GET /move?ply=0`` over a keep-alive connection, together
  ``--rate`` requests a second, and time each answer.

The misbehaving and rollout clients run in a child process at niceness ``--load-nice`` (10),
so that their work, which remote clients would not put on the server's CPU, disturbs the
server and the timing of the normal clients less. Before the load, the normal requests are
timed alone for ``--calm`` seconds: how busy the machine is anyway. The report gives the
median and p99 of the normal requests beside the target, their statuses, and every 5xx answer
any client got (a 503 of a rollout that ran past the time bound is expected; a 500 never
is). ``--json`` writes the figures. ``--launch app`` starts the same app and server settings
from :mod:`gbot.adapters.web.app` instead of the ``gbot web`` command.

    python3 scripts/load_web.py [--hostile 200] [--rollouts 8] [--duration 30] [--json f]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from typing import Any

import benchlib
from benchlib import ROOT, free_port, latency_summary, write_json

TARGET_MS = 100.0
"""The p99 of a normal 0-ply ``GET /move`` under the full load (200 hostile clients, 8
rollouts) the server is meant to keep."""
START = "p24=2&p13=5&p8=3&p6=5&p1=-2&p12=-5&p17=-3&p19=-5"
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
HOSTILE_KINDS = ("slowloris", "slow_body", "huge_body", "malformed", "slow_reader", "idle")
HOST = "127.0.0.1"
ERRORS: list[str] = []
"""The first answers other than 200 to normal requests."""


# --- a minimal HTTP/1.1 client -----------------------------------------------------------------


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """One response: status, headers (lower-case names), body (by Content-Length, else to
    the end of the connection)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    else:
        body = await reader.read(1 << 20)
    return status, headers, body


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()


def post(path: str, body: bytes, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n").encode() + body


async def close(writer: asyncio.StreamWriter | None) -> None:
    if writer is None:
        return
    writer.close()
    try:
        await asyncio.wait_for(writer.wait_closed(), 1.0)
    except (OSError, asyncio.TimeoutError):
        pass


# --- the hostile and rollout load (child process) ----------------------------------------------


class Load:
    """The misbehaving and rollout clients, and what they got back."""

    def __init__(self, port: int, end: float, trials: int, timeout: float) -> None:
        self.port = port
        self.end = end
        self.trials = trials
        self.timeout = timeout
        self.statuses: Counter[str] = Counter()    # "kind status" -> count
        self.rollout_ms: list[float] = []
        self.connects = 0
        self.errors: Counter[str] = Counter()

    def left(self) -> float:
        return self.end - time.monotonic()

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        self.connects += 1
        return await asyncio.wait_for(asyncio.open_connection(HOST, self.port), 10)

    async def until_end(self, kind: str, one: Any) -> None:
        """Run ``one()`` (one connection's misbehaviour) again and again until the end."""
        while self.left() > 0:
            try:
                await asyncio.wait_for(one(), max(self.left(), 0.01))
            except asyncio.TimeoutError:
                return
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                    ValueError, IndexError) as exc:
                self.errors[f"{kind} {type(exc).__name__}"] += 1
            await asyncio.sleep(0.2 + random.random() * 0.2)

    async def answered(self, kind: str, reader: asyncio.StreamReader) -> int:
        status, _, _ = await asyncio.wait_for(read_response(reader), 60)
        self.statuses[f"{kind} {status}"] += 1
        return status

    async def slowloris(self) -> None:
        reader, writer = await self.connect()
        try:
            for b in f"GET /move?die1=3&die2=1&{START} HTTP/1.1\r\nHost: x\r\n".encode():
                writer.write(bytes([b]))
                await writer.drain()
                await asyncio.sleep(1.0)
            while True:                          # never ends the head
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                await asyncio.sleep(1.0)
        finally:
            await close(writer)

    async def slow_body(self) -> None:
        reader, writer = await self.connect()
        try:
            writer.write(b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 4000\r\n\r\n")
            await writer.drain()
            for _ in range(4000 // 4):
                writer.write(b"    ")
                await writer.drain()
                await asyncio.sleep(1.0)
        finally:
            await close(writer)

    async def huge_body(self) -> None:
        reader, writer = await self.connect()
        chunk = b"[" * 65536
        try:
            if random.random() < 0.5:
                writer.write(b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                             b"\r\nContent-Length: 100000000\r\n\r\n")
            else:
                writer.write(b"POST /rollout HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                             b"\r\n\r\n")
                chunk = b"10000\r\n" + chunk + b"\r\n"
            sent = 0
            reply = asyncio.ensure_future(self.answered("huge_body", reader))
            try:
                while sent < 50_000_000 and not reply.done():
                    writer.write(chunk)
                    await writer.drain()
                    sent += len(chunk)
                    await asyncio.sleep(0.01)
            except OSError:
                pass                                 # closed by the server: the reply is in
            finally:
                if not reply.done():                 # the end of the run: no reply awaited
                    reply.add_done_callback(lambda f: f.cancelled() or f.exception())
            await reply
        finally:
            await close(writer)

    async def malformed(self) -> None:
        bad = [
            b"GARBAGE\r\n\r\n",
            b"GET /move HTTP/9.9\r\n\r\n",
            b"GET /move?" + b"p1=1&" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * 100_000 + b"\r\n\r\n",
            post("/hint", b"[" * 20_000),
            post("/hint", b"{\"position\": 12, \"dice\": {}}"),
            post("/hint", b"\xff\xfe not json"),
            post("/cube", b"{\"position\": \"" + b"A" * 10_000 + b"\"}"),
            post("/rollout", b"{\"position\": \"4HPwATDgc/ABMA\", \"trials\": 99999999}"),
            b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n",
            get("/move?die1=7&die2=0&p0=99"),
            get("/nowhere"),
        ]
        for _ in range(20):
            reader, writer = await self.connect()
            try:
                writer.write(random.choice(bad))
                await writer.drain()
                await self.answered("malformed", reader)
            finally:
                await close(writer)
            await asyncio.sleep(0.5)

    async def slow_reader(self) -> None:
        """A few pipelined requests with big answers, read 64 bytes a second through a small
        receive buffer."""
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (HOST, self.port)),
                               10)
        self.connects += 1
        reader, writer = await asyncio.open_connection(sock=sock, limit=4096)
        try:
            writer.write(get("/openapi.json") * 8)
            await writer.drain()
            while await reader.read(64):
                await asyncio.sleep(1.0)
        finally:
            await close(writer)

    async def idle(self) -> None:
        reader, writer = await self.connect()
        try:
            await reader.read(1)                     # until the server closes it
        finally:
            await close(writer)

    async def rollout(self, k: int) -> None:
        seed = k
        while self.left() > 0:
            reader = writer = None
            seed += 100
            body = json.dumps({"position": "4HPwATDgc/ABMA", "trials": self.trials,
                               "seed": seed}).encode()
            t0 = time.perf_counter()
            try:
                reader, writer = await self.connect()
                writer.write(post("/rollout", body))
                await writer.drain()
                status, _, _ = await asyncio.wait_for(read_response(reader),
                                                      max(self.left(), 0.01))
                self.statuses[f"rollout {status}"] += 1
                self.rollout_ms.append(1000 * (time.perf_counter() - t0))
            except asyncio.TimeoutError:
                return                               # the end: the client goes away
            except (OSError, asyncio.IncompleteReadError) as exc:
                self.errors[f"rollout {type(exc).__name__}"] += 1
            finally:
                await close(writer)
            await asyncio.sleep(0.2)

    async def run(self, hostile: int, rollouts: int, kinds: tuple[str, ...]) -> None:
        tasks = [asyncio.ensure_future(self.rollout(k)) for k in range(rollouts)]
        for i in range(hostile):
            kind = kinds[i % len(kinds)]
            tasks.append(asyncio.ensure_future(self.until_end(kind, getattr(self, kind))))
        await asyncio.wait(tasks, timeout=max(self.left(), 0) + 5)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def load_process(port: int, end_in: float, hostile: int, rollouts: int, trials: int,
                 timeout: float, kinds: tuple[str, ...], nice: int, out: Any) -> None:
    """The child process (at niceness ``nice``): the load until ``end_in`` seconds from now;
    figures to ``out``."""
    os.nice(nice)
    load = Load(port, time.monotonic() + end_in, trials, timeout)
    asyncio.run(load.run(hostile, rollouts, kinds))
    out.send({"statuses": dict(load.statuses), "rollout_ms": load.rollout_ms,
              "connects": load.connects, "errors": dict(load.errors),
              "cpu_s": time.process_time()})


# --- the normal clients (this process) --------------------------------------------------------


async def normal_client(port: int, k: int, end: float, interval: float,
                        out: list[tuple[float, int, float]]) -> None:
    """Keep-alive ``GET /move?ply=0`` every ``interval`` seconds until ``end``; (seconds,
    status, seconds left) of each into ``out`` (status 0: no answer within 30 s or the
    connection failed)."""
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    i = k
    await asyncio.sleep(interval * random.random())
    while time.monotonic() < end:
        d1, d2 = ROLLS[i % len(ROLLS)]
        i += 7
        t0 = time.perf_counter()
        status = 0
        try:
            if writer is None or writer.is_closing():
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 30)
            assert reader is not None
            writer.write(get(f"/move?ply=0&die1={d1}&die2={d2}&{START}"))
            await writer.drain()
            status, headers, body = await asyncio.wait_for(read_response(reader), 30)
            if status != 200 and len(ERRORS) < 10:
                ERRORS.append(f"{status} {body[:200].decode('utf-8', 'replace')}")
            if headers.get("connection", "").lower() == "close":
                await close(writer)
                writer = None
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
            await close(writer)
            writer = None
        took = time.perf_counter() - t0
        out.append((took, status, end - time.monotonic()))
        await asyncio.sleep(max(interval - took, 0.0))
    await close(writer)


# --- the server ------------------------------------------------------------------------------


APP_SERVER = """
import sys
import uvicorn
from gbot.adapters.web.app import create_app, server_config
from gbot.adapters.web.service import Service
port, threads, timeout = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
service = Service(ply=0)
service.warm()
app = create_app(service, threads=threads, timeout=timeout)
uvicorn.Server(server_config(app, "127.0.0.1", port)).run()
"""
"""``--launch app``: what ``gbot web`` runs, from :mod:`gbot.adapters.web.app` directly."""


def start_web(port: int, threads: int, timeout: float, log: Any,
              launch: str = "cli") -> subprocess.Popen[bytes]:
    """``gbot web --ply 0`` (``launch`` "cli"; "app": :data:`APP_SERVER`) on ``port``,
    returned once ``/health`` answers."""
    if launch == "app":
        cmd = [sys.executable, "-c", APP_SERVER, str(port), str(threads), str(timeout)]
    else:
        cmd = [sys.executable, "-m", "gbot.cli", "web", "--listen", f"{HOST}:{port}", "--ply",
               "0", "--threads", str(threads), "--timeout", str(timeout)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=log)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit("gbot web exited at start-up")
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("gbot web did not start within 300 s")


def warm_up(port: int, timeout: float) -> None:
    """One /move and one 36-trial rollout (loads the rollout kernels)."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/move?ply=0&die1=3&die2=1&{START}",
                                timeout=60) as r:
        r.read()
    req = urllib.request.Request(f"http://{HOST}:{port}/rollout", method="POST",
                                 data=b'{"position": "4HPwATDgc/ABMA", "trials": 36}',
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout + 300) as r:
            r.read()
    except OSError:
        pass                               # a 503 past the time bound still loaded them


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The whole measurement; the figures as a dict."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        proc = start_web(port, args.threads, args.timeout, log, args.launch)
        try:
            warm_up(port, args.timeout)
            interval = args.normal / args.rate
            calm: list[tuple[float, int, float]] = []

            async def normals(end: float, out: list[tuple[float, int, float]]) -> None:
                await asyncio.gather(*(normal_client(port, k, end, interval, out)
                                       for k in range(args.normal)))

            if args.calm > 0:                      # the same requests without the load
                asyncio.run(normals(time.monotonic() + args.calm, calm))
            ctx = multiprocessing.get_context("fork")
            here, there = ctx.Pipe(duplex=False)
            child = ctx.Process(target=load_process, daemon=True, args=(
                port, args.ramp + args.duration, args.hostile, args.rollouts, args.trials,
                args.timeout, tuple(args.kinds.split(",")), args.load_nice, there))
            child.start()
            time.sleep(args.ramp)                  # the rollouts start, the hostiles connect
            samples: list[tuple[float, int, float]] = []
            asyncio.run(normals(time.monotonic() + args.duration, samples))
            load = here.recv() if here.poll(60) else {}
            child.join(10)
            if child.is_alive():
                child.kill()
            alive = proc.poll() is None
            server_cpu = benchlib.cpu_seconds(proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.seek(0)
        server_log = log.read().decode("utf-8", "replace")
    if args.server_log:
        with open(args.server_log, "w") as fh:
            fh.write(server_log)
    times = [t for t, _, _ in samples]
    statuses = Counter(s for _, s, _ in samples)
    every = Counter({f"normal {s}": n for s, n in statuses.items()})
    every.update(load.get("statuses", {}))
    fives = {k: n for k, n in every.items() if k.split()[1].startswith("5")}
    return {
        "config": {k: v for k, v in vars(args).items() if k not in ("json", "server_log")},
        "normal": {**latency_summary(times), "requests": len(times),
                   "slowest": sorted(((round(1000 * t, 1), round(args.duration - left, 2))
                                      for t, _, left in samples), reverse=True)[:20],
                   "statuses": {str(k): v for k, v in sorted(statuses.items())},
                   "errors": ERRORS},
        "calm": latency_summary([t for t, _, _ in calm]) if calm else None,
        "target_p99_ms": TARGET_MS,
        "fivexx": fives,
        "server_500s": sum(n for k, n in every.items() if k.endswith(" 500")),
        "server_tracebacks": server_log.count("Traceback"),
        "server_alive": alive,
        "load": load,
        "load_cpu_s": load.get("cpu_s"),
        "server_cpu_s": server_cpu,
    }


def report(fig: dict[str, Any]) -> str:
    n = fig["normal"]
    c = fig["config"]
    ok = (n["p99_ms"] <= fig["target_p99_ms"] and set(n["statuses"]) == {"200"}
          and not fig["server_500s"])
    lines = [
        f"gbot web ({c['launch']}), {c['threads']} threads, --timeout {c['timeout']:g} s; load: "
        f"{c['hostile']} hostile clients, {c['rollouts']} rollout clients ({c['trials']} "
        f"trials), {c['normal']} normal clients at {c['rate']:g} req/s for {c['duration']:g} s",
        f"normal GET /move ply 0: {n['requests']} requests, median {n['median_ms']:.1f} ms, "
        f"p99 {n['p99_ms']:.1f} ms (target {fig['target_p99_ms']:g} ms), max "
        f"{n['max_ms']:.1f} ms; statuses {n['statuses']}",
        *([f"the same without the load ({c['calm']:g} s before it): median "
           f"{fig['calm']['median_ms']:.1f} ms, p99 {fig['calm']['p99_ms']:.1f} ms"]
          if fig["calm"] else []),
        f"5xx answers: {fig['fivexx'] or 'none'}; 500s: {fig['server_500s']}, tracebacks in "
        f"the server log: {fig['server_tracebacks']}",
        f"load: {fig['load'].get('connects', 0)} connections; statuses "
        f"{dict(sorted(fig['load'].get('statuses', {}).items()))}",
        "within target" if ok else "MISSES the target",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hostile", type=int, default=200)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--trials", type=int, default=648)
    ap.add_argument("--normal", type=int, default=4, help="normal clients")
    ap.add_argument("--rate", type=float, default=20.0, help="normal requests a second, all")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    ap.add_argument("--calm", type=float, default=10.0,
                    help="seconds of normal requests measured before the load starts")
    ap.add_argument("--ramp", type=float, default=3.0, help="seconds of load before that")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=20.0, help="gbot web --timeout")
    ap.add_argument("--load-nice", type=int, default=10,
                    help="niceness of the load process (remote clients would not take the "
                         "server's CPU; 0: as much as the server)")
    ap.add_argument("--kinds", default=",".join(HOSTILE_KINDS),
                    help="the hostile clients' kinds, shared out in turn")
    ap.add_argument("--launch", choices=("cli", "app"), default="cli",
                    help="cli: the gbot web command; app: the same app and server settings "
                         "started from gbot.adapters.web.app")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--server-log", help="write the server's output here")
    args = ap.parse_args(argv)
    if min(args.normal, args.rate, args.duration) <= 0 or min(args.hostile, args.rollouts) < 0:
        ap.error("--normal, --rate and --duration must be positive")
    if not set(args.kinds.split(",")) <= set(HOSTILE_KINDS):
        ap.error(f"--kinds are among {', '.join(HOSTILE_KINDS)}")
    print(f"machine: {benchlib.machine_line()}", flush=True)
    fig = run(args)
    fig["machine"] = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
    print(f"load average after the run: {fig['machine']['load_average'][0]:.1f}")
    print(report(fig))
    if args.json:
        write_json(args.json, fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
