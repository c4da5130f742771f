"""The FIBS bot's settings, commands and records: :class:`BotConfig`, :class:`Send`,
:class:`ExitReason`, :class:`Need`, :class:`MatchResult`, :class:`Decision`, the bounded log
:class:`LogThrottle`, and the limits of what it remembers and believes (shared by
:mod:`gbot.adapters.fibs.bot` and its parts)."""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field

from gbot.core.limits import MAX_MATCH_LENGTH

TOO_LONG = MAX_MATCH_LENGTH + 1
"""The length remembered for a saved match the server called longer than
:data:`~gbot.core.limits.MAX_MATCH_LENGTH` points (never resumed)."""
MAX_SCORE = 99_999
"""Highest score believed from the server (an unlimited session's points included)."""
MAX_RATING = 9_999.99
"""Highest rating believed from a who line."""
MAX_EXPERIENCE = 10_000_000
"""Highest experience believed from a who line."""
MAX_WHO = 5000
"""Most users remembered from CLIP 5 lines."""
MAX_SAVED = 200
"""Most saved matches remembered."""
MAX_RESYNCS = 12
"""Most ``board`` requests after server errors in one game (then the bot waits)."""
NUDGES = frozenset({"move", "roll", "join", "board", "resend", "wake up", "hello?"})
"""Opponent chat that makes the bot ask for the board again (ParlorBot convention)."""


class ExitReason(enum.IntEnum):
    """Why :func:`run_bot` stopped; the value is the process exit status."""

    FINISHED = 0
    """Logged out as asked (``--max-matches`` reached, or :meth:`FibsBot.request_stop`)."""
    ERROR = 1
    """An internal error."""
    LOGIN_FAILED = 2
    """The server refused the name or password."""
    CONNECTION_LOST = 3
    """The connection could not be (re-)established within the retry budget."""
    TIMED_OUT = 4
    """The server closed the session for inactivity and reconnecting was off."""
    INTERRUPTED = 5
    """Stopped by a signal (SIGINT/SIGTERM), after a clean logout."""


class Need(enum.Enum):
    """What the server is waiting for from the bot."""

    CUBE = "roll or double"
    MOVE = "move"
    TAKE = "accept or reject a double"
    ROLL = "roll (no double possible)"


@dataclass(frozen=True)
class Send:
    """One command for the server, to be sent ``delay`` seconds after the previous one;
    ``answers`` is the serial number of the board it answers when a newer board makes it
    void (0: it never is)."""

    text: str
    delay: float = 0.0
    answers: int = 0


@dataclass
class BotConfig:
    """What the bot accepts and how it behaves (everything but the password)."""

    user: str
    client_name: str = "gbot"
    max_length: int = 7
    """Longest match accepted; 0 = any length."""
    unlimited: bool = False
    """Accept invitations to unlimited (money) sessions."""
    allow: frozenset[str] = frozenset()
    """When not empty, only these players may invite the bot."""
    deny: frozenset[str] = frozenset()
    """Players whose invitations are ignored."""
    greeting: str = ""
    """Kibitzed at the start of every match, when set."""
    delay: float = 1.0
    """Seconds between the server's prompt and the bot's game reply."""
    invites: tuple[tuple[str, int], ...] = ()
    """``(name, length)``: invite these players when they are online and free (0 = unlimited)."""
    max_matches: int = 0
    """Log out after this many finished matches; 0 = never."""
    keepalive: float = 600.0
    """Send a harmless command after this many idle seconds (FIBS drops idle sessions)."""
    stall: float = 90.0
    """Ask for the board again after this many quiet seconds in a match (0 = never)."""
    settle: float = 5.0
    """Act on a board that puts me on turn when no prompt or newer board followed it for
    this many seconds (a server that neither prompts nor rolls for me); 0 = never."""
    crawford_settle: float = 0.25
    """The same wait on a board of the Crawford game that puts me on roll: nobody may
    double there, so no prompt is due; this short grace (which ``delay`` counts towards: the
    ``roll`` is dropped when the server's roll comes first) lets a server that rolls for me
    there (FIBS) do so first. A server found rolling for me after it (``You did already
    roll the dice``) gets ``settle`` there instead."""
    dead_match: float = 300.0
    """Leave a match (the server saves it) whose boards have been unreadable for this many
    seconds; 0 = never."""
    warn_first: int = 5
    """Log lines of one kind (a malformed board, a server error...) logged in full in each
    ``warn_interval``; the rest are counted in one line at its end."""
    warn_interval: float = 60.0
    """Seconds of the window in which ``warn_first`` lines of a kind are logged."""
    resume_cooldown: float = 300.0
    """Do not ask to resume for this long after an opponent used ``leave``."""
    invite_interval: float = 30.0
    """Seconds before a second invitation to the same player; each further one waits twice
    as long as the one before, up to ``invite_backoff_max``."""
    invite_backoff_max: float = 600.0
    """Longest wait between two invitations to the same player."""
    resume_defer: float = 5.0
    """Seconds to wait before inviting a saved-match opponent whose name sorts before mine
    (that side invites first when it is a bot too)."""
    resign: bool = True
    """Offer resignations when the engine says the game is lost."""
    record_dir: str = ""
    """Write each match played (from its start at 0-0) as ``.mat`` and ``.sgf`` into this
    folder when it ends or is saved; empty = no records."""


@dataclass(frozen=True)
class MatchResult:
    """A finished match: opponent, length and the final score (mine first)."""

    opponent: str
    length: int
    score: tuple[int, int]

    @property
    def won(self) -> bool:
        """Whether the bot won the match."""
        return self.score[0] > self.score[1]


@dataclass(frozen=True)
class Decision:
    """One decision the engine made: ``kind`` (move, cube, take, resign or
    accept_resignation), the ``board:`` line it was made on, and the command sent."""

    kind: str
    board: str
    command: str


@dataclass
class MatchInPlay:
    """The match the bot is playing: opponent, length, games and score so far."""

    opponent: str
    length: int
    games: int = 0
    score: tuple[int, int] = (0, 0)
    length_known: bool = True
    score_known: bool = False
    """Whether :attr:`score` came from the server (a board, a score line) in this match."""
    resumed: bool = False
    """A saved match, resumed."""


class LogThrottle:
    """A bounded log: of each kind of line, the first ``first`` in a window of ``interval``
    seconds are logged and the rest counted; one line at the window's end gives the count
    and the last of them. The clock is the caller's (``now`` arguments)."""

    def __init__(self, logger: logging.Logger, first: int = 5, interval: float = 60.0) -> None:
        """A throttle writing to ``logger``."""
        self.logger = logger
        self.first = max(0, first)
        self.interval = interval
        self.suppressed = 0
        """Lines counted instead of logged, in all."""
        self._windows: dict[str, _Window] = {}

    def log(self, now: float, level: int, kind: str, msg: str, *args: object,
            exc_info: bool = False) -> bool:
        """Log ``msg % args`` at ``level`` (with the exception being handled: ``exc_info``)
        unless ``kind`` has used its lines in this window; True when it was logged."""
        w = self._windows.get(kind)
        if w is not None and now - w.start >= self.interval:
            self._close(kind, w, now)
            w = None
        if w is None:
            w = self._windows[kind] = _Window(now)
        if w.logged < self.first:
            w.logged += 1
            self.logger.log(level, msg, *args, exc_info=exc_info)
            return True
        w.counted += 1
        w.level = max(w.level, level)
        w.last = msg % args if args else msg
        self.suppressed += 1
        return False

    def flush(self, now: float, everything: bool = False) -> None:
        """Write the count of every window that has ended (all of them: ``everything``)."""
        for kind, w in list(self._windows.items()):
            if everything or now - w.start >= self.interval:
                self._close(kind, w, now)

    def _close(self, kind: str, w: _Window, now: float) -> None:
        del self._windows[kind]
        if w.counted:
            self.logger.log(w.level, "... and %d more (%s) in %.0f s; the last: %s", w.counted,
                            kind, max(0.0, now - w.start), w.last[:300])


@dataclass
class _Window:
    """One kind's lines in a :class:`LogThrottle` window."""

    start: float
    logged: int = 0
    counted: int = 0
    level: int = logging.DEBUG
    last: str = field(default="")


__all__ = ["MAX_EXPERIENCE", "MAX_RATING", "MAX_RESYNCS", "MAX_SAVED", "MAX_SCORE", "MAX_WHO",
           "NUDGES", "TOO_LONG", "BotConfig", "Decision", "ExitReason", "LogThrottle",
           "MatchInPlay", "MatchResult", "Need", "Send"]
