#!/usr/bin/env python3
"""Capture the golden transcripts in ``protocols/transcripts/`` from live gnubg 1.07.

Two kinds, both through :mod:`tap` (``scripts/tap.py``):

* ``referee-*.txt``: gnubg as the *client*. One gnubg referees a match or money session
  (``tests/gnubg_harness.py``, ``set player N external``) against a second gnubg serving as the
  bot (``external ADDR``); the tap sits between them. These hold every ``board:`` line gnubg
  sends, NUL bytes included, and gnubg's own answers.
* ``server-probe.txt``: gnubg as the *server*. A probe client sends the requests listed in
  :data:`PROBES` (version, help, set ..., evaluations, resignations, malformed lines, exit) to
  ``external ADDR`` and the tap records gnubg's replies.

Usage: ``python3 scripts/capture_transcripts.py [--out protocols/transcripts]``. Needs Debian's
``gnubg``; takes well under a minute. The conformance test replays the files;
``scripts/bench_server.py`` takes its 1,000 boards from the referee files.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import benchlib
from tap import Tap

ROOT = benchlib.ROOT
gnubg_harness = benchlib.gnubg_harness()

START = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
# Boards from the protocol spec's captured exchanges (gnubg referee output).
MOVE = f"board:gnubg:you:3:0:0:{START}:-1:5:2:5:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
CUBE = f"board:gnubg:you:3:0:0:{START}:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
TAKE = ("board:ext:gnubg:3:1:0:0:0:0:-2:0:3:3:2:2:0:1:0:-2:4:-2:0:0:-1:0:-3:0:-2:0:-2:-1:0"
        ":-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
BEAROFF = ("board:gnubg:ext:3:0:2:0:2:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-2:-5:-2:-1:-2:0"
           ":1:4:1:4:1:1:1:1:0:1:-1:0:25:13:3:0:0:0:0:0:0")
# Player 1 (positive) has 2 on the bar against a closed board: the answer is an empty move.
DANCE = ("board:gnubg:you:0:0:0:0:" + ":".join(["0"] * 12 + ["4", "9"] + ["0"] * 4 + ["-2"] * 6)
         + ":2:1:6:6:6:6:1:1:1:0:1:-1:0:25:0:3:0:0:0:0:0:1")
MONEY = f"board:gnubg:you:0:0:0:{START}:1:3:1:3:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"

PROBES: list[str] = [
    "version",
    "help",
    "set interface new",
    "set interface old",
    "set prompt 'x'",
    "",
    "foo",
    "hello world",
    MOVE,
    "fibsboard " + MOVE,
    CUBE,
    TAKE,
    BEAROFF,
    DANCE,
    MONEY,
    MONEY + " jacobyrule on",
    MONEY + " beavers off",
    "evaluation fibsboard " + CUBE + " plies 0 cubeful",
    "evaluation fibsboard " + CUBE + " plies 0 cubeless",
    "evaluation fibsboard " + MONEY + " plies 0",
    "evaluation fibsboard " + TAKE + " plies 0 cubeful",
    CUBE + " resignation 1",
    CUBE + " resignation 2",
    CUBE + " resignation 3",
    BEAROFF + " resignation 1",
    MOVE + ":7",
    MOVE.replace(":3:0:0:", ":3:3:0:", 1),
    "board:gnubg:you:3:0:0",
    "board:",
    "BOARD:" + MOVE[6:],
    "evaluation",
    "evaluation fibsboard",
    "set debug off",
    "set debug on",
    MOVE,
    "set debug off",
    "quit",
]


def probe(addr: str, lines: list[str], quiet: float = 0.4) -> None:
    """Send each line; wait for a reply (a newline, then ``quiet`` seconds without data)."""
    host, _, port = addr.rpartition(":")
    s = socket.create_connection((host, int(port)))
    for text in lines:
        s.sendall(text.encode() + b"\n")
        got = b""
        deadline = time.monotonic() + 20
        s.settimeout(quiet)
        while time.monotonic() < deadline:
            try:
                data = s.recv(4096)
            except TimeoutError:
                if b"\n" in got:
                    break
                continue
            if not data:
                break
            got += data
        if text in ("exit", "quit"):
            break
    s.close()


def with_tap(out: Path, header: list[str], listen: str, target: str,
             body: object) -> None:
    """Run ``body()`` while a tap relays ``listen`` to ``target``; write the transcript."""
    rows: list[str] = []
    tap = Tap(listen, target, rows.append)
    th = threading.Thread(target=tap.serve, daemon=True)
    th.start()
    try:
        body()  # type: ignore[operator]
        time.sleep(0.5)
    finally:
        tap.stop.set()
        th.join(5)
    out.write_text("".join(f"# {h}\n" for h in header) + "".join(rows))
    print(f"wrote {out} ({sum(1 for r in rows if r[0] in 'CS')} lines)")


def main(argv: list[str] | None = None) -> int:
    """Capture every transcript."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "protocols" / "transcripts"))
    ap.add_argument("--port", type=int, default=31700, help="first of 2 loopback ports used")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    srv, tap_addr = f"127.0.0.1:{args.port}", f"127.0.0.1:{args.port + 1}"
    version = subprocess.run([gnubg_harness.find_gnubg() or "gnubg", "--version"],
                             capture_output=True, text=True).stdout.splitlines()[0]
    sessions = [
        ("referee-match3-seat1.txt", dict(match=3, bot_seat=1, seed=42)),
        ("referee-match5-seat0.txt", dict(match=5, bot_seat=0, seed=7)),
        ("referee-money-seat1.txt", dict(games=4, bot_seat=1, seed=11, jacoby=True)),
        ("referee-money-seat0.txt", dict(games=4, bot_seat=0, seed=23, beavers=0)),
        ("referee-match7-seat1.txt", dict(match=7, bot_seat=1, seed=101)),
        ("referee-match9-seat0.txt", dict(match=9, bot_seat=0, seed=303)),
        ("referee-money10-seat1.txt", dict(games=10, bot_seat=1, seed=202)),
    ]
    with gnubg_harness.GnubgServer(srv, plies=0):
        for name, opts in sessions:
            res: list[gnubg_harness.HarnessResult] = []
            header = [f"role: referee  ({version}; gnubg referee -> tap -> gnubg external "
                      "server at 0-ply)",
                      "options: " + " ".join(f"{k}={v}" for k, v in opts.items()),
                      "C = gnubg referee (set player N external), S = the bot (here gnubg)"]

            def body(opts: dict[str, object] = opts, res: list[object] = res) -> None:
                res.append(gnubg_harness.play(tap_addr, **opts))  # type: ignore[arg-type]

            with_tap(out / name, header, tap_addr, srv, body)
            print("   ", res[0].summary())  # type: ignore[attr-defined]
            time.sleep(0.5)
        header = [f"role: server  ({version}; probe client -> tap -> gnubg 'external ADDR', "
                  "0-ply)", "C = probe client, S = gnubg"]
        with_tap(out / "server-probe.txt", header, tap_addr, srv,
                 lambda: probe(tap_addr, PROBES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
