#!/usr/bin/env python3
"""A logging relay for line protocols: writes gbot's transcript format.

``tap.py --listen 127.0.0.1:31101 --target 127.0.0.1:31100 --out talk.txt`` accepts clients on
the listen address, opens one connection to the target per client and passes bytes through
unchanged. Every chunk is written to the transcript, split after each ``\\n`` so that one
protocol line is one transcript line::

    C b'board:gnubg:gbot:3:...:1\\n'
    C b'\\x00'
    S b'roll\\n'

``C`` is what the connecting side sent (gnubg as referee, or a probe client), ``S`` what the
target answered. Payloads are Python bytes literals, so NUL bytes and ``\\r`` stay visible and
``ast.literal_eval`` reads them back. A line ``# ...`` is a comment, ``= EOF C|S`` records a
closed side. Only loopback addresses are meant here. Standard library only.
"""

from __future__ import annotations

import argparse
import select
import signal
import socket
import sys
import threading
from collections.abc import Callable
from typing import TextIO


def split_lines(data: bytes) -> list[bytes]:
    """``data`` cut after every newline; a trailing piece without newline is kept."""
    pieces = []
    start = 0
    while True:
        nl = data.find(b"\n", start)
        if nl < 0:
            break
        pieces.append(data[start:nl + 1])
        start = nl + 1
    if start < len(data):
        pieces.append(data[start:])
    return pieces


def parse_address(text: str) -> tuple[int, object]:
    """``(family, sockaddr)`` for ``HOST:PORT`` (TCP) or a filesystem path (Unix socket)."""
    host, sep, port = text.rpartition(":")
    if "/" in text or not sep:
        return socket.AF_UNIX, text
    return socket.AF_INET, (host or "127.0.0.1", int(port))


class Tap:
    """Relay clients of ``listen`` to ``target``; log each chunk through ``write``."""

    def __init__(self, listen: str, target: str, write: Callable[[str], None]) -> None:
        self.listen = listen
        self.target = target
        self.write = write
        self.lock = threading.Lock()
        self.stop = threading.Event()
        fam, addr = parse_address(listen)
        self.sock = socket.socket(fam, socket.SOCK_STREAM)
        if fam == socket.AF_INET:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(addr)  # type: ignore[arg-type]
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.threads: list[threading.Thread] = []

    def log(self, who: str, data: bytes) -> None:
        """Write ``data`` as transcript lines for side ``who``."""
        with self.lock:
            for piece in split_lines(data):
                self.write(f"{who} {piece!r}\n")

    def note(self, text: str) -> None:
        """Write a comment or marker line."""
        with self.lock:
            self.write(text + "\n")

    def serve(self) -> None:
        """Accept until :attr:`stop` is set."""
        while not self.stop.is_set():
            try:
                client, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            t = threading.Thread(target=self._relay, args=(client,), daemon=True)
            t.start()
            self.threads.append(t)
        self.sock.close()

    def _relay(self, client: socket.socket) -> None:
        fam, addr = parse_address(self.target)
        upstream = socket.socket(fam, socket.SOCK_STREAM)
        try:
            upstream.connect(addr)  # type: ignore[arg-type]
        except OSError as exc:
            self.note(f"# cannot reach {self.target}: {exc}")
            client.close()
            return
        peer = {client: (upstream, "C"), upstream: (client, "S")}
        live = True
        while live and not self.stop.is_set():
            ready, _, _ = select.select(list(peer), [], [], 0.2)
            for s in ready:
                other, who = peer[s]
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.note(f"= EOF {who}")
                    live = False
                    break
                self.log(who, data)
                try:
                    other.sendall(data)
                except OSError:
                    live = False
                    break
        for s in (client, upstream):
            s.close()


def main(argv: list[str] | None = None) -> int:
    """Run a tap until SIGINT/SIGTERM."""
    ap = argparse.ArgumentParser(description="Logging relay that writes gbot transcripts.")
    ap.add_argument("--listen", required=True, help="HOST:PORT or socket path to accept on")
    ap.add_argument("--target", required=True, help="HOST:PORT or socket path to relay to")
    ap.add_argument("--out", default="-", help="transcript file (default: stdout)")
    args = ap.parse_args(argv)
    out: TextIO = sys.stdout if args.out == "-" else open(args.out, "a", buffering=1)

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    tap = Tap(args.listen, args.target, write)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: tap.stop.set())
    tap.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
