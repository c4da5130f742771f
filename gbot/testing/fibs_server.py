"""A small FIBS-compatible server for tests and local play (``python -m gbot.testing.fibs_server``).

It speaks CLIP the way FIBS does (the line shapes come from :mod:`gbot.protocols.clip`, the
``board:`` lines from :mod:`gbot.protocols.fibs_board`) and referees with the pure transitions
of :mod:`gbot.referee`: opening rolls, automatic rolls when the player may not double, move
validation with FIBS's error wording, the cube with Crawford, resignations, game and match
end, matches saved on ``leave`` or a dropped connection and resumed by a new invitation.

For tests: accounts are seeded, the dice are seeded (or scripted with :meth:`FibsServer.
script_dice`), games can start from a given position (:meth:`FibsServer.queue_setup`),
:meth:`FibsServer.drop` cuts a player's connection, and :attr:`FibsServer.history` records
every cube action, resignation and result. It binds to 127.0.0.1 only.

Not implemented: watching, ratings, the telnet registration dialogue, ``automove`` and
``greedy`` (the toggles exist but do nothing), beavers, and boardstyles other than 3 (every
board is sent as a ``board:`` line).
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from gbot.core.board import flip_py
from gbot.core.movegen import can_step, legal_plays_raw, play_step
from gbot.match import CENTRE, GameState, MatchState
from gbot.protocols import clip
from gbot.protocols.fibs_board import FibsBoard, format_fibs_board
from gbot.referee import (
    OVER_STATES,
    accept_resign,
    can_double,
    double,
    drop,
    game_points,
    legal_results,
    new_match,
    next_game,
    play,
    reject_resign,
    resign,
    roll,
    take,
)

log = logging.getLogger("gbot.fibs_server")

MAX_LINE = 2048
"""Longest command line accepted from a client (longer ones are dropped)."""
MAX_FAILED_LOGINS = 3

DEFAULT_TOGGLES = {
    "allowpip": True, "autoboard": True, "autodouble": False, "automove": False,
    "bell": False, "crawford": True, "double": True, "greedy": False, "moreboards": False,
    "moves": False, "notify": True, "ratings": False, "ready": False, "report": True,
    "silent": False, "telnet": True, "wrap": False,
}

TOGGLE_TEXT = {
    "allowpip": ("You allow the use the server's 'pip' command.",
                 "You don't allow the use of the server's 'pip' command."),
    "autoboard": ("The board will be refreshed after every move.",
                  "The board won't be refreshed after every move."),
    "autodouble": ("You agree that doublets during opening double the cube.",
                   "You don't agree that doublets during opening double the cube."),
    "automove": ("Forced moves will be done automatically.",
                 "Forced moves won't be done automatically."),
    "bell": ("Your terminal will ring the bell if someone talks to you or invites you",
             "Your terminal won't ring the bell if someone talks to you or invites you"),
    "crawford": ("You insist on playing with the Crawford rule.",
                 "You would like to play without using the Crawford rule."),
    "double": ("You will be asked if you want to double.",
               "You won't be asked if you want to double."),
    "greedy": ("Will use automatic greedy bearoffs.", "Won't use automatic greedy bearoffs."),
    "moreboards": ("Will send rawboards after rolling.", "Won't send rawboards after rolling."),
    "moves": ("You want a list of moves after this game.",
              "You won't see a list of moves after this game."),
    "notify": ("You'll be notified when new users log in.",
               "You won't be notified when new users log in."),
    "ratings": ("You'll see how the rating changes are calculated.",
                "You won't see how the rating changes are calculated."),
    "ready": ("You're now ready to invite or join someone.",
              "You're now refusing to play with someone."),
    "report": ("You will be informed about starting and ending matches.",
               "You won't be informed about starting and ending matches."),
    "silent": ("You won't hear what other players shout.",
               "You will hear what other players shout."),
    "telnet": ("You use telnet and don't need extra 'newlines'.",
               "You use a client program and will receive extra 'newlines'."),
    "wrap": ("Your terminal knows how to wrap long lines.", "The server will wrap long lines."),
}

MOTD = (
    "+--------------------------------------------------------------+",
    "|  gbot test server: a local FIBS look-alike for bots.         |",
    "+--------------------------------------------------------------+",
)

BYE_WORDS = frozenset({"bye", "adios", "ciao", "end", "exit", "logout", "quit"})
ORDINALS = ("first", "second", "third", "fourth")


# =========================================================================== data


@dataclass
class Account:
    """A registered user: password, settings and what the who list shows."""

    name: str
    password: str
    rating: float = 1500.0
    experience: int = 0
    toggles: dict[str, bool] = field(default_factory=lambda: dict(DEFAULT_TOGGLES))
    last_login: int = 0
    last_host: str = "-"
    email: str | None = None
    away: bool = False
    messages: list[tuple[str, int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class GameSetup:
    """A position to start the next game from, instead of the opening roll.

    ``board`` is 26 ints (layout of :mod:`gbot.core.board`) seen by ``on_roll``, who then
    rolls or doubles. ``cube_owner`` is a player name or None for a centred cube.
    """

    board: tuple[int, ...]
    on_roll: str
    cube_value: int = 1
    cube_owner: str | None = None


@dataclass
class ServerMatch:
    """A match between two players: names (inviter first), referee state and colours."""

    names: tuple[str, str]
    state: MatchState
    colour: list[int]
    joins: set[str] = field(default_factory=set)

    def index(self, name: str) -> int:
        """The referee player number of ``name``."""
        return self.names.index(name)

    def other(self, name: str) -> str:
        """The opponent of ``name``."""
        return self.names[1 - self.index(name)]


@dataclass(frozen=True)
class MatchOutcome:
    """A finished match: winner, loser, length and the final score (winner first)."""

    winner: str
    loser: str
    length: int
    score: tuple[int, int]


class Connection:
    """One client connection (what a :class:`FibsServer` subclass's command handlers get)."""

    def __init__(self, sock: socket.socket, addr: str) -> None:
        self.sock = sock
        self.addr = addr
        self.account: Account | None = None
        self.client = "-"
        self.boardstyle = 0
        self.failures = 0
        self.alive = True
        self.login_time = 0
        self.sent: deque[str] = deque(maxlen=4000)
        self.transcript: deque[str] | None = None
        self._send_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.account.name if self.account else "?"

    def send_bytes(self, data: bytes) -> None:
        with self._send_lock:
            if not self.alive:
                return
            try:
                self.sock.sendall(data)
            except OSError:
                self.alive = False

    def send(self, *lines: str) -> None:
        for ln in lines:
            self.sent.append(ln)
            if self.transcript is not None:
                self.transcript.append(ln)
        self.send_bytes("".join(ln + "\r\n" for ln in lines).encode("latin-1", "replace"))

    def close(self) -> None:
        with self._send_lock:
            self.alive = False
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                self.sock.close()
            except OSError:
                pass


# =========================================================================== moves


def parse_fibs_steps(args: Sequence[str], colour: int) -> list[tuple[int, int]] | None:
    """``a-b`` words of a ``move`` command as steps in the mover's numbering (25 = bar,
    0 = off); ``colour`` is the mover's sign on the board line. None if a word is bad."""
    steps = []
    for word in args:
        if "-" not in word:
            return None
        a, b = word.lower().split("-", 1)
        pts = []
        for tok, source in ((a, True), (b, False)):
            if tok in ("bar", "b") and source:
                pts.append(25)
            elif tok in ("off", "home", "o", "h") and not source:
                pts.append(0)
            elif tok.isdigit() and 1 <= int(tok) <= 24:
                pts.append(int(tok) if colour > 0 else 25 - int(tok))
            else:
                return None
        steps.append((pts[0], pts[1]))
    return steps


def apply_steps(board: np.ndarray, steps: Sequence[tuple[int, int]], dice: tuple[int, int],
                colour: int = 1) -> tuple[np.ndarray, str | None]:
    """Play ``steps`` one by one on ``board`` (mover's view) with ``dice``; returns the board
    and None, or the board so far and FIBS's complaint about the first bad step (points named
    in FIBS numbering for a mover of ``colour``)."""
    def name(p: int) -> int:
        return p if colour > 0 else 25 - p


    b = np.array(board, dtype=np.int8)
    pool = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    for k, (src, dst) in enumerate(steps):
        nth = ORDINALS[k] if k < 4 else f"{k + 1}th"
        if src != 25 and b[25] > 0:
            return b, "** You have to remove pieces from the bar in your first move."
        if not 1 <= src <= 25 or b[src] <= 0:
            return b, f"** You can't move from {name(src)} in your {nth} move."
        if dst == 0:   # bearing off: the exact die, else the smallest die above the point
            die = src if src in pool else min((d for d in pool if d > src), default=0)
            if die == 0 or not can_step(b, src, die):
                return b, "** You can't remove this piece."
        else:
            die = src - dst
            if die not in pool or not can_step(b, src, die):
                return b, f"** You can't move to {name(dst)} in your {nth} move."
        pool.remove(die)
        play_step(b, src, die)
    return b, None


def max_steps(state: MatchState) -> int:
    """How many checker steps the rolled dice allow (FIBS's can-move field)."""

    if state.game_state != GameState.PLAYING or state.dice == (0, 0):
        return 0
    boards, steps = legal_plays_raw(state.board_array(), state.dice[0], state.dice[1],
                                    state.rules.caucasian)
    best = 0
    for row in steps:
        best = max(best, sum(1 for k in range(4) if row[2 * k] > 0))
    return best


# =========================================================================== the server


class FibsServer:
    """A threaded FIBS look-alike on 127.0.0.1 (see the module docstring).

    ``accounts`` maps names to passwords; ``ready`` names start with the ready flag on.
    ``seed`` seeds the dice and the colour draw. ``idle_timeout`` (seconds) drops silent
    sessions with ``Connection timed out.``.
    """

    def __init__(self, accounts: dict[str, str] | None = None, *, seed: int | None = 0,
                 host: str = "127.0.0.1", port: int = 0, ready: Iterable[str] = (),
                 idle_timeout: float | None = None, name: str = "gbot-fibs") -> None:
        """Create the server (not yet listening; see :meth:`start`)."""
        self.host = host
        self.server_name = name
        self.idle_timeout = idle_timeout
        self._lock = threading.RLock()
        self.accounts: dict[str, Account] = {}
        for n, pw in (accounts or {}).items():
            self.add_account(n, pw, ready=n in set(ready))
        self._rng = random.Random(seed)
        self._script: deque[int] = deque()
        self._setups: deque[GameSetup] = deque()
        self._changed = threading.Condition(self._lock)
        self._conns: dict[str, Connection] = {}
        self._all: set[Connection] = set()
        self._invites: dict[str, dict[str, tuple[int, bool]]] = {}
        self.matches: dict[str, ServerMatch] = {}
        self.saved: dict[frozenset[str], ServerMatch] = {}
        self.history: list[tuple[object, ...]] = []
        self.results: list[MatchOutcome] = []
        self.transcripts: dict[str, deque[str]] = {}
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    # --- test hooks ---------------------------------------------------------------------
    def add_account(self, name: str, password: str, ready: bool = False) -> Account:
        """Register ``name`` (letters, digits and ``_``)."""
        acc = Account(name, password)
        acc.toggles["ready"] = ready
        with self._lock:
            self.accounts[name] = acc
        return acc

    def script_dice(self, dice: Iterable[int]) -> None:
        """Dice (single numbers 1..6) to use before the seeded stream, in order."""
        with self._lock:
            self._script.extend(int(d) for d in dice)

    def queue_setup(self, setup: GameSetup) -> None:
        """Start the next game that begins (in any match) from ``setup``."""
        with self._lock:
            self._setups.append(setup)

    def drop(self, name: str) -> bool:
        """Cut ``name``'s connection as a network failure would; False if not online."""
        with self._lock:
            conn = self._conns.get(name)
        if conn is None:
            return False
        conn.close()
        return True

    def online(self) -> list[str]:
        """Names of the users logged in now."""
        with self._lock:
            return sorted(self._conns)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` (checked under the server lock) holds, or time out."""
        end = time.monotonic() + timeout
        with self._changed:
            while not predicate():
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.2))
            return True

    def sent_to(self, name: str) -> list[str]:
        """The lines sent to ``name`` since its first login (all its connections)."""
        with self._lock:
            return list(self.transcripts.get(name, ()))

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

    # --- sessions -------------------------------------------------------------------------
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

    def _own_info(self, acc: Account) -> clip.OwnInfo:
        t = acc.toggles
        vals = {
            **{k: str(int(v)) for k, v in t.items() if k in clip.OWN_INFO_FIELDS},
            "away": str(int(acc.away)), "experience": str(acc.experience),
            "rating": f"{acc.rating:.2f}", "redoubles": "0", "timezone": "UTC",
        }
        return clip.OwnInfo(acc.name, tuple(vals[k] for k in clip.OWN_INFO_FIELDS))

    def _who(self, conn: Connection) -> clip.WhoInfo:
        acc = conn.account
        assert acc is not None
        m = self.matches.get(acc.name)
        return clip.WhoInfo(acc.name, m.other(acc.name) if m else None, None,
                            acc.toggles["ready"], acc.away, acc.rating, acc.experience, 0,
                            conn.login_time, conn.addr, conn.client, acc.email)

    def _broadcast_who(self, *names: str, skip: Connection | None = None) -> None:
        lines = [self._who(self._conns[n]).line() for n in names if n in self._conns]
        if not lines:
            return
        for c in self._conns.values():
            if c is not skip:
                c.send(*lines, clip.WhoEnd().line())

    def _to(self, name: str, *lines: str) -> None:
        c = self._conns.get(name)
        if c is not None:
            c.send(*lines)

    # --- settings and chat ----------------------------------------------------------------
    def _cmd_set(self, conn: Connection, rest: str) -> None:
        toks = rest.split()
        if len(toks) != 2:
            conn.send("** usage: set <variable> <value>")
            return
        if toks[0] == "boardstyle" and toks[1] in ("1", "2", "3"):
            conn.boardstyle = int(toks[1])
            conn.send(clip.BoardStyleSet(conn.boardstyle).line())
            return
        conn.send(f"Value of '{toks[0]}' set to {toks[1]}.")

    def _cmd_toggle(self, conn: Connection, rest: str) -> None:
        acc = conn.account
        assert acc is not None
        key = rest.lower()
        if not key:
            conn.send("The current settings are:",
                      *[clip.ToggleState(k, acc.toggles[k]).line() for k in clip.TOGGLES])
            return
        if key not in acc.toggles:
            conn.send(f"** Don't know how to toggle {key}.")
            return
        acc.toggles[key] = not acc.toggles[key]
        on, off = TOGGLE_TEXT[key]
        conn.send("** " + (on if acc.toggles[key] else off))
        if key == "ready":
            self._broadcast_who(acc.name)

    def _cmd_rawwho(self, conn: Connection, rest: str) -> None:
        conn.send(*[self._who(c).line() for c in self._conns.values()], clip.WhoEnd().line())

    def _cmd_who(self, conn: Connection, rest: str) -> None:
        for c in self._conns.values():
            w = self._who(c)
            state = "P" if w.opponent else ("R" if w.ready else "-")
            conn.send(f"{state} {w.name:<20} {w.rating:8.2f} {w.experience:6d}")

    def _cmd_tell(self, conn: Connection, rest: str) -> None:
        name, _, text = rest.partition(" ")
        if not text:
            conn.send("** You can't say nothing.")
            return
        if name not in self._conns:
            conn.send(f"** There is no one called {name}.")
            return
        self._to(name, clip.Chat("says", conn.name, text).line())
        conn.send(clip.Chat("you_say", name, text).line())

    def _cmd_say(self, conn: Connection, rest: str) -> None:
        m = self.matches.get(conn.name)
        if m is None:
            conn.send("** You're not playing, so you can't say something.")
            return
        if not rest:
            conn.send("** You can't say nothing.")
            return
        opp = m.other(conn.name)
        self._to(opp, clip.Chat("says", conn.name, rest).line())
        conn.send(clip.Chat("you_say", opp, rest).line())

    def _cmd_kibitz(self, conn: Connection, rest: str) -> None:
        m = self.matches.get(conn.name)
        if m is None:
            conn.send("** You're not watching or playing.")
            return
        self._to(m.other(conn.name), clip.Chat("kibitzes", conn.name, rest).line())
        conn.send(clip.Chat("you_kibitz", "", rest).line())

    def _cmd_whisper(self, conn: Connection, rest: str) -> None:
        conn.send(clip.Chat("you_whisper", "", rest).line())

    def _cmd_shout(self, conn: Connection, rest: str) -> None:
        for c in self._conns.values():
            if c is not conn and c.account and not c.account.toggles["silent"]:
                c.send(clip.Chat("shouts", conn.name, rest).line())
        conn.send(clip.Chat("you_shout", "", rest).line())

    def _cmd_message(self, conn: Connection, rest: str) -> None:
        name, _, text = rest.partition(" ")
        acc = self.accounts.get(name)
        if acc is None or not text:
            conn.send("** usage: message <user> <text>")
            return
        now = int(time.time())
        if name in self._conns:
            self._to(name, clip.Message(conn.name, now, text).line())
            conn.send(clip.MessageDelivered(name).line())
        else:
            acc.messages.append((conn.name, now, text))
            conn.send(clip.MessageSaved(name).line())

    def _cmd_away(self, conn: Connection, rest: str) -> None:
        assert conn.account is not None
        conn.account.away = True
        conn.send("You're away. Please type 'back'")
        self._broadcast_who(conn.name)

    def _cmd_back(self, conn: Connection, rest: str) -> None:
        assert conn.account is not None
        conn.account.away = False
        conn.send("Welcome back.")
        self._broadcast_who(conn.name)

    def _cmd_address(self, conn: Connection, rest: str) -> None:
        assert conn.account is not None
        conn.account.email = rest.split()[0] if rest else None
        conn.send(f"Your email address is '{rest}'.")

    def _cmd_time(self, conn: Connection, rest: str) -> None:
        conn.send(time.strftime("%A, %B %d %H:%M:%S UTC", time.gmtime()))

    def _cmd_show(self, conn: Connection, rest: str) -> None:
        what = rest.split()[0].lower() if rest else ""
        mine = [(m.other(conn.name), m) for k, m in self.saved.items() if conn.name in k]
        if what == "saved":
            if not mine:
                conn.send(clip.NoSavedGames().line())
                return
            conn.send(clip.SavedHeader().line())
            for opp, m in mine:
                i = m.index(conn.name)
                s = m.state.score
                conn.send(clip.SavedMatchRow(opp, m.state.match_length, s[i], s[1 - i]).line())
        elif what == "savedcount":
            n = len(mine)
            conn.send(f"{conn.name} has {n} saved game{'s' if n != 1 else ''}." if n
                      else f"{conn.name} has no saved games.")
        else:
            conn.send(f"** Don't know how to show {what}")

    # --- invitations ----------------------------------------------------------------------
    def _cmd_invite(self, conn: Connection, rest: str) -> None:
        toks = rest.split()
        me = conn.name
        if not toks:
            conn.send("** invite who?")
            return
        name = toks[0]
        if name == me:
            conn.send("** You can't invite yourself.")
            return
        if me in self.matches:
            conn.send("** You are already playing.")
            return
        other = self._conns.get(name)
        if other is None or other.account is None:
            conn.send(f"** There is no one called {name}.")
            return
        if name in self.matches:
            conn.send(f"** {name} is already playing with {self.matches[name].other(name)}.")
            return
        resume = frozenset((me, name)) in self.saved
        if not resume and not other.account.toggles["ready"]:
            conn.send(f"** {name} is refusing games.")
            return
        length = 0
        if not resume and len(toks) > 1 and toks[1].lower() != "unlimited":
            if not toks[1].isdigit() or not 1 <= int(toks[1]) <= 99:
                conn.send(f"** The match length must be a number 1..99, not '{toks[1]}'.")
                return
            length = int(toks[1])
        self._invites.setdefault(name, {})[me] = (length, resume)
        inv = clip.Invitation(me, length, resume)
        other.send(inv.line())
        if resume:
            other.send("WARNING: Don't accept if you want to continue another saved match!")
        other.send(clip.TypeJoin(me).line())
        conn.send(clip.YouInvited(name, length, resume).line())

    def _cmd_join(self, conn: Connection, rest: str) -> None:
        me = conn.name
        name = rest.split()[0] if rest else ""
        if not name:
            self._join_next(conn)
            return
        if me in self.matches:
            conn.send("** You are already playing.")
            return
        offer = self._invites.get(me, {}).get(name)
        if offer is None:
            conn.send(f"** {name} didn't invite you.")
            return
        if name not in self._conns:
            conn.send(f"** There is no one called {name}.")
            return
        if name in self.matches:
            conn.send(f"** {name} is already playing with {self.matches[name].other(name)}.")
            return
        self._invites[me].pop(name, None)
        self._invites.get(name, {}).pop(me, None)
        saved = self.saved.pop(frozenset((me, name)), None)
        if saved is not None:
            self._resume(saved, inviter=name, joiner=me)
            return
        length = offer[0]
        m = ServerMatch((name, me), new_match(length), [1, -1])
        if self._rng.random() < 0.5:
            m.colour = [-1, 1]
        self.matches[name] = self.matches[me] = m
        what = f"{length} point" if length else "unlimited"
        conn.send(clip.MatchStart(name, length, joined=True).line())
        self._to(name, clip.MatchStart(me, length, joined=False).line())
        self.history.append(("start", name, me, length))
        self._report(f"{name} and {me} start {'a ' + what if length else 'an unlimited'}"
                     " match.", name, me)
        self._broadcast_who(name, me)
        self._start_game(m)

    def _report(self, text: str, *skip: str) -> None:
        for n, c in self._conns.items():
            if n not in skip and c.account and c.account.toggles["report"]:
                c.send(text)

    # --- game flow ------------------------------------------------------------------------
    def _dice(self) -> tuple[int, int]:
        a = self._script.popleft() if self._script else self._rng.randint(1, 6)
        b = self._script.popleft() if self._script else self._rng.randint(1, 6)
        return a, b

    def _board_line(self, m: ServerMatch, viewer: int) -> str | None:
        """The ``board:`` line of ``m`` for player ``viewer`` (None between games)."""
        s = m.state
        if s.game_state != GameState.PLAYING:
            return None
        actor = s.player_on_roll if s.resign_offered else s.player_to_act
        other = 1 - actor
        b = s.board_array()
        view = b if actor == s.player_on_roll else flip_py(b)
        dice = s.dice if actor == s.player_on_roll else (0, 0)
        if s.cube_owner == CENTRE:
            owner = "centre"
        else:
            owner = "me" if s.cube_owner == actor else "opponent"
        may = (False, False) if s.double_offered else (owner != "opponent", owner != "me")
        names = (m.names[actor], m.names[other])
        names = ("You", names[1]) if actor == viewer else (names[0], "You")
        fb = FibsBoard(
            points=tuple(int(x) for x in view), dice=dice, cube_value=s.cube_value,
            cube_owner=owner,  # type: ignore[arg-type]
            may_double=may, double_pending=s.double_offered,
            score=(s.score[actor], s.score[other]), match_length=s.match_length,
            crawford_game=s.crawford and s.match_length > 0, post_crawford=s.post_crawford,
            names=names, dialect="fibs", colour=m.colour[actor], me_player1=actor == viewer,
            can_move=max_steps(s) if actor == s.player_on_roll else 0,
        )
        try:
            return format_fibs_board(fb, "fibs")
        except Exception:
            log.exception("cannot format a board for %r", fb)
            return None

    def _send_board(self, m: ServerMatch, *who: int, when: str = "autoboard") -> None:
        for p in who or (0, 1):
            acc = self.accounts[m.names[p]]
            if when != "always" and not acc.toggles[when]:
                continue
            line = self._board_line(m, p)
            if line is not None:
                self._to(m.names[p], line)

    def _start_game(self, m: ServerMatch) -> None:
        a, b = m.names
        self._to(a, clip.NewGame(b).line())
        self._to(b, clip.NewGame(a).line())
        setup = self._take_setup(m)
        if setup is not None:
            p = m.index(setup.on_roll)
            owner = CENTRE if setup.cube_owner is None else m.index(setup.cube_owner)
            m.state = replace(m.state, board=tuple(int(x) for x in setup.board),
                              game_state=GameState.PLAYING, player_on_roll=p,
                              player_to_act=p, game_opener=p, dice=(0, 0),
                              cube_value=setup.cube_value, cube_owner=owner)
            self._send_board(m, when="always")
            self._begin_turn(m)
            return
        for _ in range(1000):
            d = self._dice()
            self._to(a, clip.OpeningRoll(d[0], b, d[1]).line())
            self._to(b, clip.OpeningRoll(d[1], a, d[0]).line())
            m.state = roll(m.state, d)
            if m.state.game_state == GameState.PLAYING:
                break
        opener = m.names[m.state.player_on_roll]
        self._to(opener, clip.YourTurnToMove().line())
        self._to(m.other(opener), clip.FirstMove(opener).line())
        self._send_board(m, when="always")

    def _take_setup(self, m: ServerMatch) -> GameSetup | None:
        for s in list(self._setups):
            if s.on_roll in m.names:
                self._setups.remove(s)
                return s
        return None

    def _begin_turn(self, m: ServerMatch) -> None:
        """The player on roll starts a turn: prompt for roll/double, or roll automatically."""
        for _ in range(10000):
            s = m.state
            if s.game_state != GameState.PLAYING:
                return
            p = m.names[s.player_on_roll]
            if can_double(s) and self.accounts[p].toggles["double"]:
                self._to(p, clip.RollOrDouble().line())
                return
            if self._roll(m):
                return

    def _roll(self, m: ServerMatch) -> bool:
        """Roll for the player on roll; True when they must now move, False when the turn
        passed (no legal play)."""
        s = m.state
        pi = s.player_on_roll
        p, o = m.names[pi], m.names[1 - pi]
        m.state = roll(s, self._dice())
        d = m.state.dice
        self._to(p, clip.Rolled(None, d).line())
        self._to(o, clip.Rolled(p, d).line())
        self._send_board(m, when="moreboards")
        n = max_steps(m.state)
        if n == 0:
            self._to(p, clip.CantMove(None).line())
            self._to(o, clip.CantMove(p).line())
            m.state = play(m.state, None)
            self._send_board(m)
            return False
        self._to(p, clip.PleaseMove(n).line())
        return True

    def _match_of(self, conn: Connection, quiet: bool = False) -> ServerMatch | None:
        m = self.matches.get(conn.name)
        if m is None and not quiet:
            conn.send("** You're not playing.")
        return m

    def _cmd_roll(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        if s.game_state != GameState.PLAYING or s.player_on_roll != i or \
                s.player_to_act != i:
            conn.send("** It's not your turn to roll the dice.")
            return
        if s.dice != (0, 0):
            conn.send("** You did already roll the dice.")
            return
        if not self._roll(m):
            self._begin_turn(m)

    def _cmd_move(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        if s.game_state != GameState.PLAYING or s.player_on_roll != i or \
                s.player_to_act != i:
            conn.send("** It's not your turn to move.")
            return
        if s.dice == (0, 0):
            conn.send("** You have to roll the dice before moving.")
            return
        args = rest.split()
        steps = parse_fibs_steps(args, m.colour[i])
        if steps is None:
            conn.send("** first move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'.")
            return
        need = max_steps(s)
        if len(steps) < need:
            conn.send(f"** You must give {need} moves.")
            return
        if len(steps) > need:
            conn.send(f"** Please don't give more than {need} moves.")
            return
        after, problem = apply_steps(s.board_array(), steps, s.dice, m.colour[i])
        if problem is not None:
            conn.send(problem)
            return
        legal = legal_results(s)
        result = after.astype(np.int8)
        if not (legal == result).all(axis=1).any():
            conn.send("** Illegal move: the dice must be used as fully as the rules demand.")
            return
        m.state = play(s, result)
        words = [w.lower().replace("home", "off") for w in args]
        self._to(m.other(conn.name), clip.Moves(conn.name, tuple(
            tuple(w.split("-", 1)) for w in words)).line())  # type: ignore[misc]
        if m.state.game_state in OVER_STATES:
            self._end_game(m, "bearoff")
            return
        self._send_board(m)
        self._begin_turn(m)

    def _cmd_double(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        if s.game_state != GameState.PLAYING or s.player_on_roll != i or \
                s.player_to_act != i:
            conn.send("** It's not your turn to double.")
            return
        if s.dice != (0, 0):
            conn.send("** You can't double after rolling the dice.")
            return
        if not can_double(s):
            why = "during the Crawford game" if s.crawford else "now"
            conn.send(f"** You can't double {why}.")
            return
        m.state = double(s, i)
        opp = m.other(conn.name)
        self.history.append(("double", conn.name, s.cube_value * 2))
        conn.send(clip.YouDouble(opp).line())
        self._to(opp, clip.Doubles(conn.name).line())
        self._send_board(m, 1 - i, when="always")

    def _cmd_accept(self, conn: Connection, rest: str) -> None:
        self._answer(conn, True)

    def _cmd_reject(self, conn: Connection, rest: str) -> None:
        self._answer(conn, False)

    def _answer(self, conn: Connection, yes: bool) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        opp = m.other(conn.name)
        if s.game_state != GameState.PLAYING or s.player_to_act != i or not (
                s.double_offered or s.resign_offered):
            conn.send("** There's nothing to accept or reject." if yes else
                      "** There's nothing to reject.")
            return
        if s.double_offered:
            if yes:
                m.state = take(s, i)
                cube = m.state.cube_value
                self.history.append(("take", conn.name, cube))
                conn.send(clip.DoubleAccepted(None, cube).line())
                self._to(opp, clip.DoubleAccepted(conn.name, cube).line())
                self._send_board(m)
                self._begin_turn(m)
            else:
                m.state = drop(s, i)
                pts = m.state.game_points
                self.history.append(("drop", conn.name, pts))
                conn.send(clip.GiveUp(None, opp, pts).line())
                self._to(opp, clip.GiveUp(conn.name, None, pts).line())
                self._end_game(m, "drop")
            return
        kind = s.resign_offered
        if yes:
            m.state = accept_resign(s, i)
            pts = m.state.game_points
            self.history.append(("accept_resign", conn.name, kind, pts))
            conn.send(clip.ResignAccepted(None, pts).line())
            self._to(opp, clip.ResignAccepted(conn.name, pts).line())
            self._end_game(m, "resign")
        else:
            m.state = reject_resign(s, i)
            self.history.append(("reject_resign", conn.name, kind))
            conn.send(clip.ResignRejected(None).line())
            self._to(opp, clip.ResignRejected(conn.name).line())

    def _cmd_resign(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        word = rest.split()[0].lower() if rest else ""
        kinds = {"n": 1, "normal": 1, "1": 1, "g": 2, "gammon": 2, "2": 2, "b": 3,
                 "backgammon": 3, "3": 3}
        if word not in kinds:
            conn.send("** Type 'resign n', 'resign g' or 'resign b'.")
            return
        s = m.state
        if s.game_state != GameState.PLAYING or s.double_offered or s.resign_offered:
            conn.send("** You can't resign now.")
            return
        i = m.index(conn.name)
        kind = kinds[word]
        m.state = resign(s, kind, i)
        pts = game_points(m.state, kind)
        opp = m.other(conn.name)
        self.history.append(("resign", conn.name, kind, pts))
        conn.send(clip.YouResign(opp, pts).line())
        self._to(opp, clip.ResignOffer(conn.name, pts).line())

    def _end_game(self, m: ServerMatch, how: str) -> None:
        s = m.state
        w = m.names[s.winner] if s.winner >= 0 else None
        pts = s.game_points
        self.history.append(("game", w, pts, how, s.score))
        if how == "bearoff" and w is not None:
            loser = m.other(w)
            self._to(w, clip.GameWon(None, pts).line())
            self._to(loser, clip.GameWon(w, pts).line())
        a, b = m.names
        length = s.match_length
        if s.match_over:
            wi = 0 if s.score[0] >= length else 1
            win, lose = m.names[wi], m.names[1 - wi]
            score = (s.score[wi], s.score[1 - wi])
            self._to(win, clip.MatchWon(None, length, score).line())
            self._to(lose, clip.MatchWon(win, length, score).line())
            self.results.append(MatchOutcome(win, lose, length, score))
            self.history.append(("match", win, lose, length, score))
            self._report(f"{win} wins a {length} point match against {lose}  "
                         f"{score[0]}-{score[1]} .", win, lose)
            for n in m.names:
                if self.matches.get(n) is m:
                    del self.matches[n]
            self._broadcast_who(a, b)
            return
        self._to(a, clip.Score(length, a, s.score[0], b, s.score[1]).line())
        self._to(b, clip.Score(length, b, s.score[1], a, s.score[0]).line())
        m.joins = set()
        self._to(a, clip.JoinPrompt().line())
        self._to(b, clip.JoinPrompt().line())

    def _join_next(self, conn: Connection) -> None:
        m = self.matches.get(conn.name)
        if m is None or m.state.game_state not in OVER_STATES:
            conn.send("** Error: No one to join.")
            return
        m.joins.add(conn.name)
        opp = m.other(conn.name)
        if opp not in m.joins:
            conn.send(clip.WaitJoin(opp).line())
            return
        m.joins = set()
        m.state = next_game(m.state)
        m.colour = [-c for c in m.colour]
        self._start_game(m)

    # --- leaving and resuming -------------------------------------------------------------
    def _save(self, m: ServerMatch) -> None:
        s = m.state
        if s.game_state == GameState.PLAYING and s.resign_offered:
            m.state = reject_resign(s)
        m.joins = set()
        for n in m.names:
            if self.matches.get(n) is m:
                del self.matches[n]
        self.saved[frozenset(m.names)] = m
        self.history.append(("saved", *m.names, m.state.score))

    def _cmd_leave(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        opp = m.other(conn.name)
        self._save(m)
        conn.send(clip.YouLeft().line())
        self._to(opp, clip.OpponentLeft(conn.name).line())
        self._broadcast_who(conn.name, opp)

    def _resume(self, m: ServerMatch, inviter: str, joiner: str) -> None:
        for n in m.names:
            self.matches[n] = m
        self._to(joiner, clip.MatchResumed(inviter, joined=True).line())
        self._to(inviter, clip.MatchResumed(joiner, joined=False).line())
        self.history.append(("resume", inviter, joiner, m.state.score))
        s = m.state
        turn = m.names[s.player_to_act]
        info = [clip.TurnInfo(turn).line(), clip.MatchLengthInfo(s.match_length).line(),
                clip.PointsFor(m.names[0], s.score[0]).line(),
                clip.PointsFor(m.names[1], s.score[1]).line()]
        for n in m.names:
            self._to(n, *info)
        self._send_board(m, when="always")
        self._broadcast_who(inviter, joiner)
        if s.game_state in OVER_STATES:
            for n in m.names:
                self._to(n, clip.JoinPrompt().line())
        elif s.double_offered:
            doubler = m.names[s.player_on_roll]
            self._to(m.other(doubler), clip.Doubles(doubler).line())
        elif s.dice == (0, 0):
            self._begin_turn(m)
        else:
            self._to(m.names[s.player_on_roll], clip.PleaseMove(max_steps(s)).line())

    def _cmd_board(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        line = self._board_line(m, m.index(conn.name))
        if line is not None:
            conn.send(line)

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
