"""A small FIBS-compatible server for tests and local play (``python -m gbot.testing.fibs_server``).

It speaks CLIP the way FIBS does (the line shapes come from :mod:`gbot.adapters.fibs.clip`, the
``board:`` lines from :mod:`gbot.game.notations.fibs_board`) and referees with the pure transitions
of :mod:`gbot.game.referee`: opening rolls, automatic rolls when the player may not double, move
validation with FIBS's error wording, the cube with Crawford, resignations, game and match
end, matches saved on ``leave`` or a dropped connection and resumed by a new invitation.

For tests: accounts are seeded, the dice are seeded (or scripted with :meth:`FibsServer.
script_dice`), games can start from a given position (:meth:`FibsServer.queue_setup`),
:meth:`FibsServer.drop` cuts a player's connection, and :attr:`FibsServer.history` records
every cube action, resignation and result. It binds to 127.0.0.1 only.

The parts: :mod:`gbot.testing.fibs_registry` (accounts, connections, the shared state and the
test hooks), :mod:`gbot.testing.fibs_chat` (settings and chat commands),
:mod:`gbot.testing.fibs_referee` (invitations, the refereed game flow, saved matches),
:mod:`gbot.testing.fibs_moves` (reading and checking ``move`` words); this module serves the
sockets, logs users in and out and dispatches each command word. Every name it had before the
split is still importable from here.

Not implemented: watching, ratings, the telnet registration dialogue, ``automove`` and
``greedy`` (the toggles exist but do nothing), beavers, and boardstyles other than 3 (every
board is sent as a ``board:`` line).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence

from gbot.adapters.fibs import clip
from gbot.testing.fibs_chat import ChatCommands
from gbot.testing.fibs_moves import apply_steps, max_steps, parse_fibs_steps
from gbot.testing.fibs_referee import MatchCommands
from gbot.testing.fibs_registry import (
    BYE_WORDS,
    MAX_FAILED_LOGINS,
    MAX_LINE,
    MOTD,
    Account,
    Connection,
    GameSetup,
    MatchOutcome,
    ServerMatch,
)
from gbot.testing.fibs_registry import DEFAULT_TOGGLES as DEFAULT_TOGGLES
from gbot.testing.fibs_registry import TOGGLE_TEXT as TOGGLE_TEXT

log = logging.getLogger("gbot.fibs_server")


class FibsServer(MatchCommands, ChatCommands):
    """A threaded FIBS look-alike on 127.0.0.1 (see the module docstring).

    ``accounts`` maps names to passwords; ``ready`` names start with the ready flag on.
    ``seed`` seeds the dice and the colour draw. ``idle_timeout`` (seconds) drops silent
    sessions with ``Connection timed out.``.
    """

    def __init__(self, accounts: dict[str, str] | None = None, *, seed: int | None = 0,
                 host: str = "127.0.0.1", port: int = 0, ready: Iterable[str] = (),
                 idle_timeout: float | None = None, name: str = "gbot-fibs") -> None:
        """Create the server (not yet listening; see :meth:`start`)."""
        super().__init__(accounts, seed=seed, ready=ready)
        self.host = host
        self.server_name = name
        self.idle_timeout = idle_timeout
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> FibsServer:
        """Listen and serve in background threads."""
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self._thread = threading.Thread(target=self._accept_loop, name="fibs-server",
                                        daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Listen and serve in this thread until interrupted."""
        self.start()
        try:
            while not self._stopped.wait(1.0):
                pass
        finally:
            self.stop()

    def stop(self) -> None:
        """Close every connection and stop listening."""
        self._stopped.set()
        try:
            self._sock.close()
        except OSError:
            pass
        with self._lock:
            conns = list(self._all)
        for c in conns:
            c.close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FibsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        while not self._stopped.is_set():
            try:
                sock, addr = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with contextlib.suppress(OSError):     # small lines go out at once, as FIBS sends
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(sock, addr[0])
            with self._lock:
                self._all.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True,
                             name=f"fibs-conn-{addr[1]}").start()

    def _serve(self, conn: Connection) -> None:
        conn.send_bytes(f"\r\nWelcome to {self.server_name}.\r\n\r\nlogin: ".encode())
        conn.sock.settimeout(self.idle_timeout)
        buf = b""
        reason = "drops connection"
        try:
            while conn.alive:
                try:
                    data = conn.sock.recv(4096)
                except TimeoutError:
                    conn.send(clip.TimedOut().line())
                    break
                except OSError:
                    break
                if not data:
                    break
                buf += data
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    if len(raw) > MAX_LINE:
                        continue
                    text = raw.decode("latin-1").strip("\r\x00 \t")
                    with self._changed:
                        try:
                            done = self._command(conn, text)
                        except Exception:
                            log.exception("error on %r from %s", text, conn.name)
                            done = False
                        self._changed.notify_all()
                    if done:
                        reason = "logs out"
                        raise _Closed
                if len(buf) > MAX_LINE:
                    buf = b""
        except _Closed:
            pass
        finally:
            conn.close()
            with self._changed:
                self._gone(conn, reason)
                self._all.discard(conn)
                self._changed.notify_all()

    # --- sessions and command dispatch ---------------------------------------------------
    def _command(self, conn: Connection, text: str) -> bool:
        """Handle one line; True when the client logged out."""
        if conn.account is None:
            self._login(conn, text)
            return False
        if not text:
            return False
        word, _, rest = text.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in BYE_WORDS:
            conn.send(clip.Goodbye().line())
            return True
        handler = _COMMANDS.get(word)
        if handler is None:
            conn.send(f"** Unknown command: '{word}'")
            return False
        handler(self, conn, rest)
        return False

    def _login(self, conn: Connection, text: str) -> None:
        toks = text.split()
        acc = None
        if len(toks) == 5 and toks[0] == "login":
            cand = self.accounts.get(toks[3])
            if cand is not None and cand.password == toks[4]:
                acc = cand
        if acc is None:
            conn.failures += 1
            if conn.failures >= MAX_FAILED_LOGINS:
                conn.close()
                return
            conn.send_bytes(bytes([clip.IAC, 0xFC, 0x01]) + b"login: ")
            return
        old = self._conns.get(acc.name)
        if old is not None:
            conn.send(clip.AlreadyLoggedIn().line())
            old.close()
            self._gone(old, "drops connection")
        conn.account = acc
        conn.transcript = self.transcripts.setdefault(acc.name, deque(maxlen=50000))
        conn.client = toks[1]
        conn.login_time = int(time.time())
        self._conns[acc.name] = conn
        conn.send(clip.Welcome(acc.name, acc.last_login, acc.last_host).line())
        acc.last_login, acc.last_host = conn.login_time, conn.addr
        conn.send(self._own_info(acc).line(), clip.MotdBegin().line(), *MOTD,
                  clip.MotdEnd().line())
        for sender, when, msg in acc.messages:
            conn.send(clip.Message(sender, when, msg).line())
        acc.messages.clear()
        conn.send(*[self._who(c).line() for c in self._conns.values()], clip.WhoEnd().line())
        for other in self._conns.values():
            if other is conn:
                continue
            if other.account and other.account.toggles["notify"]:
                other.send(clip.UserLogin(acc.name, f"{acc.name} logs in.").line())
        self._broadcast_who(acc.name, skip=conn)
        log.info("%s logged in", acc.name)

    def _gone(self, conn: Connection, how: str) -> None:
        """``conn`` closed: save its match, tell the others."""
        acc = conn.account
        if acc is None or self._conns.get(acc.name) is not conn:
            return
        del self._conns[acc.name]
        self._invites.pop(acc.name, None)
        for inv in self._invites.values():
            inv.pop(acc.name, None)
        m = self.matches.get(acc.name)
        if m is not None:
            opp = m.other(acc.name)
            self._save(m)
            oc = self._conns.get(opp)
            if oc is not None:
                oc.send(clip.MatchSaved(acc.name, how).line())
            self._broadcast_who(opp)
        for other in self._conns.values():
            if other.account and other.account.toggles["notify"]:
                other.send(clip.UserLogout(acc.name, f"{acc.name} {how}.").line())
        log.info("%s %s", acc.name, how)

    def _cmd_help(self, conn: Connection, rest: str) -> None:
        conn.send("Commands: " + " ".join(sorted(_COMMANDS)))


class _Closed(Exception):
    """The client logged out."""


_Command = Callable[[FibsServer, Connection, str], None]
_COMMANDS: dict[str, _Command] = {
    "set": FibsServer._cmd_set, "toggle": FibsServer._cmd_toggle,
    "rawwho": FibsServer._cmd_rawwho, "who": FibsServer._cmd_who,
    "tell": FibsServer._cmd_tell, "say": FibsServer._cmd_say,
    "kibitz": FibsServer._cmd_kibitz, "whisper": FibsServer._cmd_whisper,
    "shout": FibsServer._cmd_shout, "message": FibsServer._cmd_message,
    "away": FibsServer._cmd_away, "back": FibsServer._cmd_back,
    "address": FibsServer._cmd_address, "time": FibsServer._cmd_time,
    "show": FibsServer._cmd_show, "invite": FibsServer._cmd_invite,
    "join": FibsServer._cmd_join, "roll": FibsServer._cmd_roll,
    "move": FibsServer._cmd_move, "m": FibsServer._cmd_move,
    "double": FibsServer._cmd_double, "accept": FibsServer._cmd_accept,
    "reject": FibsServer._cmd_reject, "resign": FibsServer._cmd_resign,
    "leave": FibsServer._cmd_leave, "board": FibsServer._cmd_board,
    "help": FibsServer._cmd_help,
}


# =========================================================================== a raw client


class LineClient:
    """A bare CLIP client for tests and experiments: send lines, wait for lines.

    Every line received is kept in :attr:`lines` (IAC bytes stripped, the ``login:`` prompt
    as its own line); :meth:`expect` waits for the next line matching a regular expression.
    """

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 10.0) -> None:
        """Connect to ``host:port``."""
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.timeout = timeout
        self.lines: list[str] = []
        self._pos = 0
        self._split = clip.LineSplitter()
        self.raw = bytearray()

    def send(self, line: str) -> None:
        """Send one command line."""
        self.sock.sendall(line.encode("latin-1") + b"\r\n")

    def _read(self, deadline: float) -> bool:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(65536)
        except (TimeoutError, OSError):
            return False
        if not data:
            raise ConnectionError("the server closed the connection")
        self.raw += data
        self.lines.extend(self._split.feed(data))
        return True

    def next_line(self, timeout: float | None = None) -> str:
        """The next unread line (waits up to ``timeout`` seconds)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while self._pos >= len(self.lines):
            if not self._read(deadline):
                raise TimeoutError(f"no line within the timeout; last: {self.lines[-5:]!r}")
        self._pos += 1
        return self.lines[self._pos - 1]

    def expect(self, pattern: str, timeout: float | None = None) -> re.Match[str]:
        """Skip lines until one fully matches ``pattern``; returns the match."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            line = self.next_line(max(0.0, deadline - time.monotonic()))
            m = rx.fullmatch(line)
            if m:
                return m

    def drain(self, quiet: float = 0.2) -> list[str]:
        """Read until the server is quiet for ``quiet`` seconds; returns the unread lines."""
        while self._read(time.monotonic() + quiet):
            pass
        out = self.lines[self._pos:]
        self._pos = len(self.lines)
        return out

    def login(self, user: str, password: str, client: str = "test_client") -> list[str]:
        """CLIP login; returns the lines up to and including the first who batch's end."""
        self.expect("login: ")
        self.send(clip.format_login(client, user, password))
        start = self._pos
        self.expect("6")
        return self.lines[start:self._pos]

    def close(self) -> None:
        """Close the socket."""
        try:
            self.sock.close()
        except OSError:
            pass


# =========================================================================== command line


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m gbot.testing.fibs_server --port 4321 --account alice:secret ...``"""
    ap = argparse.ArgumentParser(prog="python -m gbot.testing.fibs_server",
                                 description="A local FIBS-compatible server for testing bots.")
    ap.add_argument("--port", type=int, default=4321)
    ap.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    ap.add_argument("--account", action="append", default=[], metavar="NAME:PASSWORD",
                    help="an account (repeatable); add ':ready' to start it ready")
    ap.add_argument("--idle-timeout", type=float, default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(message)s")
    server = FibsServer(seed=args.seed, port=args.port, idle_timeout=args.idle_timeout)
    for spec in args.account or ["alice:alice", "bob:bob"]:
        parts = spec.split(":")
        if len(parts) < 2:
            ap.error(f"an account is NAME:PASSWORD, got {spec!r}")
        server.add_account(parts[0], parts[1], ready=parts[2:3] == ["ready"])
    log.info("listening on %s:%d (accounts: %s)", server.host, server.port,
             ", ".join(server.accounts))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["Account", "Connection", "FibsServer", "GameSetup", "LineClient", "MatchOutcome",
           "ServerMatch", "apply_steps", "main", "max_steps", "parse_fibs_steps"]
