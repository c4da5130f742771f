#!/usr/bin/env python3
"""Speed of wildbg's ``GET /move`` at 0-ply through ``gbot web``, beside the same call in process.

The questions are the move questions among the board lines gnubg 1.07 sent as referee
(``protocols/transcripts/referee-*.txt``, read by ``benchlib.captured_boards``), turned into
wildbg's query (``die1``, ``die2``, ``p0`` .. ``p25``, ``x_away``/``o_away`` in match play).
Three figures per question, after a warm-up:

* in process: :meth:`gbot.adapters.web.service.Service.wildbg_move` (parsing, the engine's
  choice, every legal play ranked, the reply dict), plus ``json.dumps`` of the reply;
* over HTTP, one keep-alive client: the round trip to ``gbot web`` (uvicorn, loopback);
* over HTTP, ``--clients`` clients at once: requests per second.

The difference between the first two is what the HTTP layer adds. Because wall-clock figures
depend on the load of the machine, the CPU time per request is printed too: the in-process
call's thread time, and the server process's CPU time over the one-client run.

    python3 scripts/bench_web.py [--boards 500] [--clients 4] [--threads 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

import benchlib
import httpx
from benchlib import ROOT, captured_boards, cpu_seconds, free_port, latency_summary, write_json

import gbot
from gbot.adapters.web.service import Service


def move_queries(limit: int) -> list[dict[str, str]]:
    """wildbg queries of the captured move questions (at most ``limit``)."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for line in captured_boards():
        fb = gbot.parse_fibs_board(line)
        if fb.question != "move":
            continue
        q = {f"p{i}": str(int(v)) for i, v in enumerate(fb.points) if v}
        q["die1"], q["die2"] = str(fb.dice[0]), str(fb.dice[1])
        if fb.match_length:
            q["x_away"] = str(fb.match_length - fb.score[0])
            q["o_away"] = str(fb.match_length - fb.score[1])
            if fb.crawford_game:
                q["crawford"] = "true"
        key = json.dumps(q, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(q)
        if len(out) >= limit:
            break
    return out


def start_web(port: int, threads: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "gbot.cli", "web", "--listen",
                             f"127.0.0.1:{port}", "--threads", str(threads)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("gbot web exited at start-up")
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("gbot web did not start")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    benchlib.header()
    queries = move_queries(args.boards)
    if not queries:
        raise SystemExit("no captured move questions")

    svc = Service()
    svc.warm()
    for q in queries[:args.warmup]:
        svc.wildbg_move(q)
    t_proc: list[float] = []
    replies: list[Any] = []
    c0 = time.thread_time()
    for q in queries:
        t0 = time.perf_counter()
        reply = svc.wildbg_move(q)
        json.dumps(reply)
        t_proc.append(time.perf_counter() - t0)
        replies.append(reply)
    cpu_proc = (time.thread_time() - c0) / len(queries)

    port = free_port()
    proc = start_web(port, args.threads)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            for q in queries[:args.warmup]:
                c.get("/move", params=q)
            t_http: list[float] = []
            c0 = cpu_seconds(proc.pid)
            for q, want in zip(queries, replies, strict=True):
                t0 = time.perf_counter()
                r = c.get("/move", params=q)
                t_http.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    raise SystemExit(f"HTTP {r.status_code} for {q}: {r.text}")
                if r.json()["moves"][0]["play"] != want["moves"][0]["play"]:
                    raise SystemExit(f"HTTP and in-process answers differ for {q}")
            cpu_http = (cpu_seconds(proc.pid) - c0) / len(queries)

        errors: list[str] = []
        done = [0] * args.clients

        def client(k: int) -> None:
            with httpx.Client(base_url=base, timeout=30) as cc:
                for q in queries[k::args.clients]:
                    r = cc.get("/move", params=q)
                    if r.status_code != 200:
                        errors.append(r.text)
                    done[k] += 1

        ths = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
        t0 = time.perf_counter()
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        wall = time.perf_counter() - t0
        if errors:
            raise SystemExit(f"{len(errors)} failed requests: {errors[0]}")
    finally:
        proc.terminate()
        proc.wait(10)

    fig: dict[str, Any] = {
        "questions": len(queries), "ply": 0,
        "in_process": latency_summary(t_proc), "http_one_client": latency_summary(t_http),
        "http_one_client_rps": len(t_http) / sum(t_http),
        "in_process_rps": len(t_proc) / sum(t_proc),
        "http_clients": args.clients, "server_threads": args.threads,
        "http_concurrent_rps": sum(done) / wall,
    }
    fig["http_overhead_median_ms"] = (fig["http_one_client"]["median_ms"]
                                      - fig["in_process"]["median_ms"])
    fig["cpu_ms_in_process"] = cpu_proc * 1000
    fig["cpu_ms_server_per_request"] = cpu_http * 1000
    fig["load_average"] = os.getloadavg()[0]
    print(f"{len(queries)} captured move questions, GET /move at 0-ply (ms)")
    print(f"{'':22} {'median':>8} {'p99':>8} {'mean':>8} {'req/s':>8}")
    for name, key, rps in (("in process", "in_process", "in_process_rps"),
                           ("HTTP, 1 client", "http_one_client", "http_one_client_rps")):
        f = fig[key]
        print(f"{name:22} {f['median_ms']:8.3f} {f['p99_ms']:8.3f} {f['mean_ms']:8.3f} "
              f"{fig[rps]:8.0f}")
    print(f"HTTP, {args.clients} clients ({args.threads} server threads): "
          f"{fig['http_concurrent_rps']:.0f} req/s")
    print(f"HTTP layer adds {fig['http_overhead_median_ms']:.3f} ms at the median")
    print(f"CPU per request: in process {fig['cpu_ms_in_process']:.3f} ms, server process "
          f"{fig['cpu_ms_server_per_request']:.3f} ms (so HTTP costs "
          f"{fig['cpu_ms_server_per_request'] - fig['cpu_ms_in_process']:.3f} ms of CPU)")
    print(f"load average {fig['load_average']:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        write_json(args.json, fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
