"""The FIBS test server's accounts, connections and the state its parts share.

:class:`ServerState` holds what every part of :class:`gbot.testing.fibs_server.FibsServer`
reads and changes under one lock: the accounts, who is online on which :class:`Connection`,
invitations, matches (running and saved), the dice and the records tests look at
(:attr:`ServerState.history`, :attr:`ServerState.results`, the transcripts). It also gives
the test hooks that need no socket, the who lines and the ways of sending to users.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gbot.adapters.fibs import clip
from gbot.game.match import MatchState

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


class ServerState:
    """Accounts, sessions, invitations, matches and records of one FIBS test server, and the
    test hooks and sending helpers over them (every change under :attr:`_lock`)."""

    def __init__(self, accounts: dict[str, str] | None = None, *, seed: int | None = 0,
                 ready: Iterable[str] = ()) -> None:
        """Empty state with ``accounts`` (names to passwords; ``ready`` names start with the
        ready flag on) and the dice seeded with ``seed``."""
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

    # --- who lines and sending ------------------------------------------------------------
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

    def _report(self, text: str, *skip: str) -> None:
        for n, c in self._conns.items():
            if n not in skip and c.account and c.account.toggles["report"]:
                c.send(text)


__all__ = ["BYE_WORDS", "DEFAULT_TOGGLES", "MAX_FAILED_LOGINS", "MAX_LINE", "MOTD", "TOGGLE_TEXT",
           "Account", "Connection", "GameSetup", "MatchOutcome", "ServerMatch", "ServerState"]
