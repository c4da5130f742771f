"""The FIBS bot's settings, commands and records: :class:`BotConfig`, :class:`Send`,
:class:`ExitReason`, :class:`Need`, :class:`MatchResult`, :class:`Decision` and the limits of
what it remembers (shared by :mod:`gbot.adapters.fibs.bot` and its parts)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

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
    """One command for the server, to be sent ``delay`` seconds after the previous one."""

    text: str
    delay: float = 0.0


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
    this many seconds (a server that neither prompts nor rolls for me)."""
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


__all__ = ["MAX_RESYNCS", "MAX_SAVED", "MAX_WHO", "NUDGES", "BotConfig", "Decision",
           "ExitReason", "MatchInPlay", "MatchResult", "Need", "Send"]
