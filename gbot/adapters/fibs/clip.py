"""CLIP, the FIBS client protocol: server lines as typed events, both ways, and the byte framing.

This module owns the text of FIBS. :func:`parse_line` turns one server line into an event
(a frozen dataclass); every event's :meth:`~Event.line` writes the line back in the shape FIBS
sends, so the bot (:mod:`gbot.adapters.fibs.client`) and the test server
(:mod:`gbot.testing.fibs_server`) share one definition. :class:`LineSplitter` frames the byte
stream: CR LF or LF endings, telnet IAC sequences removed, the ``login:`` prompt recognised
before any newline, and over-long lines cut off.

Parsing never raises: a line that matches no known shape is :class:`Unknown`, and a
``board:`` line that does not decode is a :class:`BoardLine` with ``board`` None and the
reason in ``problem``. A board line that breaks one of the rules real servers are known to
break (:data:`REPAIRS`) is read all the same, the broken rule named in ``repaired``. Numbers
are read as sent; the bot decides which to believe. ``protocols/fibs-clip.md`` describes
the protocol as we implement it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from gbot.core.boardline import (
    F_CUBE,
    F_DOUBLED,
    F_LENGTH,
    F_MAY_DOUBLE,
    F_POST_CRAWFORD,
    F_SCORE,
    MAX_MATCH_LENGTH,
    N_NUMBERS,
)
from gbot.errors import FibsBoardError
from gbot.game.notations.fibs_board import FibsBoard, parse_fibs_board

MAX_LINE = 4096
"""Longest line kept (characters); the rest of a longer line is dropped."""

CLIP_VERSION = 1008
"""The CLIP version every client sends at login."""

NAME = r"[A-Za-z0-9_<>]+"

OWN_INFO_FIELDS = (
    "allowpip", "autoboard", "autodouble", "automove", "away", "bell", "crawford", "double",
    "experience", "greedy", "moreboards", "moves", "notify", "rating", "ratings", "ready",
    "redoubles", "report", "silent", "timezone",
)
"""The 20 values after the name in a CLIP 2 (own info) line, in order."""

TOGGLES = (
    "allowpip", "autoboard", "autodouble", "automove", "bell", "crawford", "double", "greedy",
    "moreboards", "moves", "notify", "ratings", "ready", "report", "silent", "telnet", "wrap",
)
"""The switches of FIBS's ``toggle`` command."""


def _pts(n: int) -> str:
    return "point" if n == 1 else "points"


def _you(name: str | None) -> str:
    return "You" if name is None else name


# =========================================================================== events


@dataclass(frozen=True)
class Event:
    """A server line decoded; :meth:`line` gives it back as FIBS writes it."""

    def line(self) -> str:
        """The line as FIBS sends it (no line ending)."""
        raise NotImplementedError


# --- numbered CLIP messages -------------------------------------------------------------


@dataclass(frozen=True)
class Welcome(Event):
    """CLIP 1: the first line after a good login."""

    name: str
    last_login: int
    host: str

    def line(self) -> str:
        return f"1 {self.name} {self.last_login} {self.host}"


@dataclass(frozen=True)
class OwnInfo(Event):
    """CLIP 2: my own settings; ``values`` are the 20 fields of :data:`OWN_INFO_FIELDS`."""

    name: str
    values: tuple[str, ...]

    def get(self, key: str) -> str:
        """The raw value of setting ``key`` (one of :data:`OWN_INFO_FIELDS`)."""
        return self.values[OWN_INFO_FIELDS.index(key)]

    def flag(self, key: str) -> bool:
        """A 0/1 setting as a bool."""
        return self.get(key) == "1"

    def line(self) -> str:
        return " ".join(["2", self.name, *self.values])


@dataclass(frozen=True)
class MotdBegin(Event):
    """CLIP 3: the message of the day follows."""

    def line(self) -> str:
        return "3"


@dataclass(frozen=True)
class MotdEnd(Event):
    """CLIP 4: end of the message of the day."""

    def line(self) -> str:
        return "4"


@dataclass(frozen=True)
class WhoInfo(Event):
    """CLIP 5: one user's state. ``opponent``, ``watching``, ``client`` and ``email`` are
    None where FIBS writes ``-``."""

    name: str
    opponent: str | None
    watching: str | None
    ready: bool
    away: bool
    rating: float
    experience: int
    idle: int
    login: int
    host: str
    client: str | None
    email: str | None

    def line(self) -> str:
        def dash(v: str | None) -> str:
            return v if v else "-"

        return (f"5 {self.name} {dash(self.opponent)} {dash(self.watching)} {int(self.ready)} "
                f"{int(self.away)} {self.rating:.2f} {self.experience} {self.idle} {self.login} "
                f"{self.host} {dash(self.client)} {dash(self.email)}")


@dataclass(frozen=True)
class WhoEnd(Event):
    """CLIP 6: end of a batch of CLIP 5 lines."""

    def line(self) -> str:
        return "6"


@dataclass(frozen=True)
class UserLogin(Event):
    """CLIP 7: someone logged in."""

    name: str
    text: str

    def line(self) -> str:
        return f"7 {self.name} {self.text}"


@dataclass(frozen=True)
class UserLogout(Event):
    """CLIP 8: someone logged out or dropped."""

    name: str
    text: str

    def line(self) -> str:
        return f"8 {self.name} {self.text}"


@dataclass(frozen=True)
class Message(Event):
    """CLIP 9: a stored message delivered to me."""

    sender: str
    time: int
    text: str

    def line(self) -> str:
        return f"9 {self.sender} {self.time} {self.text}"


@dataclass(frozen=True)
class MessageDelivered(Event):
    """CLIP 10: my message to ``name`` was delivered at once."""

    name: str

    def line(self) -> str:
        return f"10 {self.name}"


@dataclass(frozen=True)
class MessageSaved(Event):
    """CLIP 11: ``name`` is offline; my message was stored."""

    name: str

    def line(self) -> str:
        return f"11 {self.name}"


@dataclass(frozen=True)
class Chat(Event):
    """CLIP 12-19: chat. ``kind`` is says, shouts, whispers, kibitzes (``name`` spoke) or
    you_say (``name`` is who I told), you_shout, you_whisper, you_kibitz (``name`` empty)."""

    kind: str
    name: str
    text: str

    NUMBERS: ClassVar[dict[str, int]] = {
        "says": 12, "shouts": 13, "whispers": 14, "kibitzes": 15,
        "you_say": 16, "you_shout": 17, "you_whisper": 18, "you_kibitz": 19,
    }

    def line(self) -> str:
        n = self.NUMBERS[self.kind]
        return f"{n} {self.name} {self.text}" if n <= 16 else f"{n} {self.text}"


# --- login and session ---------------------------------------------------------------


@dataclass(frozen=True)
class LoginPrompt(Event):
    """The ``login:`` prompt (sent with no line ending)."""

    def line(self) -> str:
        return "login: "


@dataclass(frozen=True)
class AlreadyLoggedIn(Event):
    """The account was already logged in; the older session is closed."""

    def line(self) -> str:
        return "** Warning: You are already logged in."


@dataclass(frozen=True)
class Goodbye(Event):
    """The logout banner; nothing after it matters."""

    def line(self) -> str:
        return "           Goodbye."


@dataclass(frozen=True)
class TimedOut(Event):
    """The server dropped the session for inactivity."""

    def line(self) -> str:
        return "Connection timed out."


@dataclass(frozen=True)
class BoardStyleSet(Event):
    """Reply to ``set boardstyle N``."""

    style: int

    def line(self) -> str:
        return f"Value of 'boardstyle' set to {self.style}."


@dataclass(frozen=True)
class ToggleState(Event):
    """One line of the ``toggle`` listing: ``name   YES|NO``."""

    name: str
    on: bool

    def line(self) -> str:
        return f"{self.name:<12}{'YES' if self.on else 'NO'}"


# --- the board -----------------------------------------------------------------------


@dataclass(frozen=True)
class BoardLine(Event):
    """A ``board:`` line. ``board`` is None when nobody is to act (turn 0) or when the line
    does not decode; ``problem`` then says why (empty for turn 0). ``repaired`` names the
    rules a line breaks that was read all the same (see :data:`REPAIRS`), ``problem`` then
    being why the strict reading refused it; both are empty for a line that keeps them."""

    raw: str
    board: FibsBoard | None = field(default=None, compare=False)
    problem: str = ""
    repaired: str = field(default="", compare=False)

    def line(self) -> str:
        return self.raw


# --- invitations and match start -----------------------------------------------------


@dataclass(frozen=True)
class Invitation(Event):
    """``name`` invites me; ``length`` 0 = unlimited; ``resume`` = a saved match."""

    name: str
    length: int = 0
    resume: bool = False

    def line(self) -> str:
        if self.resume:
            return f"{self.name} wants to resume a saved match with you."
        if self.length:
            return f"{self.name} wants to play a {self.length} point match with you."
        return f"{self.name} wants to play an unlimited match with you."


@dataclass(frozen=True)
class TypeJoin(Event):
    """``Type 'join NAME' to accept.`` after an invitation."""

    name: str

    def line(self) -> str:
        return f"Type 'join {self.name}' to accept."


@dataclass(frozen=True)
class YouInvited(Event):
    """My invitation went out (``length`` 0 = unlimited, ``resume`` = a saved match)."""

    name: str
    length: int = 0
    resume: bool = False

    def line(self) -> str:
        if self.resume:
            return f"** You invited {self.name} to resume a saved match."
        if self.length:
            return f"** You invited {self.name} to a {self.length} point match."
        return f"** You invited {self.name} to an unlimited match."


@dataclass(frozen=True)
class MatchStart(Event):
    """A new match with ``name`` starts; ``joined`` = I sent the join (else they joined me)."""

    name: str
    length: int
    joined: bool

    def line(self) -> str:
        what = f"a {self.length} point match" if self.length else "an unlimited match"
        if self.joined:
            return f"** You are now playing {what} with {self.name}"
        return f"** Player {self.name} has joined you for {what}."


@dataclass(frozen=True)
class MatchResumed(Event):
    """A saved match with ``name`` was loaded; ``joined`` = I sent the join."""

    name: str
    joined: bool

    def line(self) -> str:
        if self.joined:
            return f"You are now playing with {self.name}. Your running match was loaded."
        return f"{self.name} has joined you. Your running match was loaded."


@dataclass(frozen=True)
class TurnInfo(Event):
    """``turn: NAME.`` in the block that follows a resumed match."""

    name: str

    def line(self) -> str:
        return f"turn: {self.name}."


@dataclass(frozen=True)
class MatchLengthInfo(Event):
    """``match length: N`` (after a resume; 9999 or ``unlimited`` = money)."""

    length: int

    def line(self) -> str:
        return f"match length: {self.length or 'unlimited'}"


@dataclass(frozen=True)
class PointsFor(Event):
    """``points for user NAME: N`` (after a resume)."""

    name: str
    points: int

    def line(self) -> str:
        return f"points for user {self.name}: {self.points}"


@dataclass(frozen=True)
class NewGame(Event):
    """A new game with ``name`` begins."""

    name: str

    def line(self) -> str:
        return f"Starting a new game with {self.name}."


@dataclass(frozen=True)
class OpeningRoll(Event):
    """The opening roll: my die, the opponent's name and die."""

    mine: int
    name: str
    theirs: int

    def line(self) -> str:
        return f"You rolled {self.mine}, {self.name} rolled {self.theirs}."


@dataclass(frozen=True)
class YourTurnToMove(Event):
    """I won the opening roll: play its dice now."""

    def line(self) -> str:
        return "It's your turn to move."


@dataclass(frozen=True)
class FirstMove(Event):
    """The opponent won the opening roll."""

    name: str

    def line(self) -> str:
        return f"{self.name} makes the first move."


# --- turn flow -----------------------------------------------------------------------


@dataclass(frozen=True)
class RollOrDouble(Event):
    """I may double: send ``double`` or ``roll``."""

    def line(self) -> str:
        return "It's your turn. Please roll or double."


@dataclass(frozen=True)
class Rolled(Event):
    """Dice rolled: ``name`` None = mine (``You roll A and B.``)."""

    name: str | None
    dice: tuple[int, int]

    def line(self) -> str:
        if self.name is None:
            return f"You roll {self.dice[0]} and {self.dice[1]}."
        return f"{self.name} rolls {self.dice[0]} and {self.dice[1]}."


@dataclass(frozen=True)
class PleaseMove(Event):
    """Send a move with ``count`` steps."""

    count: int

    def line(self) -> str:
        return f"Please move {self.count} {'piece' if self.count == 1 else 'pieces'}."


@dataclass(frozen=True)
class OnlyMove(Event):
    """``The only possible move is ...`` (``text`` as written)."""

    text: str

    def line(self) -> str:
        return f"The only possible move is {self.text}"


@dataclass(frozen=True)
class CantMove(Event):
    """No legal play; ``name`` None = me. The turn passes."""

    name: str | None

    def line(self) -> str:
        return f"{_you(self.name)} can't move."


@dataclass(frozen=True)
class Moves(Event):
    """The opponent's move echo; ``steps`` are ``(from, to)`` words as written
    (``bar``, ``off`` or ``home``, or point numbers)."""

    name: str
    steps: tuple[tuple[str, str], ...]

    def line(self) -> str:
        return f"{self.name} moves " + "".join(f"{a}-{b} " for a, b in self.steps) + "."


# --- cube ----------------------------------------------------------------------------


@dataclass(frozen=True)
class YouDouble(Event):
    """My double was registered."""

    name: str

    def line(self) -> str:
        return f"You double. Please wait for {self.name} to accept or reject."


@dataclass(frozen=True)
class Doubles(Event):
    """``name`` doubles; ``must_answer`` when the line asks me to accept or reject."""

    name: str
    must_answer: bool = True

    def line(self) -> str:
        if self.must_answer:
            return f"{self.name} doubles. Type 'accept' or 'reject'."
        return f"{self.name} doubles."


@dataclass(frozen=True)
class DoubleAccepted(Event):
    """A take; ``name`` None = I took. ``cube`` is the new cube value."""

    name: str | None
    cube: int

    def line(self) -> str:
        who = "You accept" if self.name is None else f"{self.name} accepts"
        return f"{who} the double. The cube shows {self.cube}."


@dataclass(frozen=True)
class GiveUp(Event):
    """A dropped double ends the game; ``loser``/``winner`` None = me."""

    loser: str | None
    winner: str | None
    points: int

    def line(self) -> str:
        pts = f"{self.points} {_pts(self.points)}"
        if self.loser is None:
            return f"You give up. {self.winner} wins {pts}."
        if self.winner is None:
            return f"{self.loser} gives up. You win {pts}."
        return f"{self.loser} gives up. {self.winner} wins {pts}."


# --- resignation ---------------------------------------------------------------------


@dataclass(frozen=True)
class YouResign(Event):
    """My resignation offer was registered; ``name`` would win ``points``."""

    name: str
    points: int

    def line(self) -> str:
        return f"You want to resign. {self.name} will win {self.points} {_pts(self.points)}."


@dataclass(frozen=True)
class ResignOffer(Event):
    """``name`` offers to resign; I would win ``points`` (cube and gammons included)."""

    name: str
    points: int

    def line(self) -> str:
        return (f"{self.name} wants to resign. You will win {self.points} {_pts(self.points)}. "
                "Type 'accept' or 'reject'.")


@dataclass(frozen=True)
class ResignAccepted(Event):
    """A resignation was accepted; ``name`` None = I accepted (and win)."""

    name: str | None
    points: int

    def line(self) -> str:
        if self.name is None:
            return f"You accept and win {self.points} {_pts(self.points)}."
        return f"{self.name} accepts and wins {self.points} {_pts(self.points)}."


@dataclass(frozen=True)
class ResignRejected(Event):
    """A resignation was rejected; ``name`` None = I rejected."""

    name: str | None

    def line(self) -> str:
        if self.name is None:
            return "You reject. The game continues."
        return f"{self.name} rejects. The game continues."


# --- game and match end --------------------------------------------------------------


@dataclass(frozen=True)
class GameWon(Event):
    """A game was won by bearing off; ``name`` None = me."""

    name: str | None
    points: int

    def line(self) -> str:
        if self.name is None:
            return f"You win the game and get {self.points} {_pts(self.points)}. Congratulations!"
        return f"{self.name} wins the game and gets {self.points} {_pts(self.points)}. Sorry."


@dataclass(frozen=True)
class Score(Event):
    """The score after a game (``length`` 0 = unlimited); my name comes first."""

    length: int
    me: str
    my_score: int
    name: str
    their_score: int

    def line(self) -> str:
        what = f"{self.length} point match" if self.length else "unlimited match"
        return (f"score in {what}: {self.me}-{self.my_score} "
                f"{self.name}-{self.their_score}")


@dataclass(frozen=True)
class JoinPrompt(Event):
    """Send ``join`` for the next game of the match."""

    def line(self) -> str:
        return "Type 'join' if you want to play the next game, type 'leave' if you don't."


@dataclass(frozen=True)
class WaitJoin(Event):
    """I joined; the opponent has not yet."""

    name: str

    def line(self) -> str:
        return f"** Please wait for {self.name} to join too."


@dataclass(frozen=True)
class MatchWon(Event):
    """The match is over; ``name`` None = I won. ``score`` is the winner's first."""

    name: str | None
    length: int
    score: tuple[int, int]

    def line(self) -> str:
        who = "You win" if self.name is None else f"{self.name} wins"
        return f"{who} the {self.length} point match {self.score[0]}-{self.score[1]} ."


# --- leaving -------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchSaved(Event):
    """The opponent logged out or dropped; the match was saved. ``how`` is the verb phrase
    (``logs out`` or ``drops connection``)."""

    name: str
    how: str

    def line(self) -> str:
        return f"{self.name} {self.how}. The game was saved."


@dataclass(frozen=True)
class OpponentLeft(Event):
    """The opponent typed ``leave``; the match was saved."""

    name: str

    def line(self) -> str:
        return f"** Player {self.name} has left the game. The game was saved."


@dataclass(frozen=True)
class YouLeft(Event):
    """I typed ``leave``; the match was saved."""

    def line(self) -> str:
        return "** You terminated the game. The game was saved."


# --- show saved -----------------------------------------------------------------------


@dataclass(frozen=True)
class SavedHeader(Event):
    """The header of the ``show saved`` list (one :class:`SavedMatchRow` per match follows)."""

    def line(self) -> str:
        return " opponent          matchlength   score (your points first)"


@dataclass(frozen=True)
class SavedMatchRow(Event):
    """One row of ``show saved``: the opponent, the match length (0 = unlimited, written
    ``unlimited`` or 9999) and the score, my points first. FIBS may mark the opponent with
    ``*`` or ``**`` (logged in); the marks are read and not kept."""

    name: str
    length: int
    my_points: int
    their_points: int

    def line(self) -> str:
        length = str(self.length) if self.length else "unlimited"
        return f" {self.name:<17} {length:>9}  {self.my_points:>8} - {self.their_points:>2}"


@dataclass(frozen=True)
class NoSavedGames(Event):
    """``show saved`` when there are none."""

    def line(self) -> str:
        return "no saved games."


# --- errors and other replies -------------------------------------------------------


@dataclass(frozen=True)
class ServerError(Event):
    """A ``** ...`` reply. ``kind``: not_your_turn, already_rolled, cant_double, illegal_move,
    refusing, no_such_user, already_playing, not_playing, didnt_invite, unknown_command,
    toggle or other; ``name`` where the line names a player."""

    text: str
    kind: str = "other"
    name: str | None = None

    def line(self) -> str:
        return self.text


@dataclass(frozen=True)
class Unknown(Event):
    """A line of no known shape (MOTD text, reports, replies we do not use)."""

    text: str

    def line(self) -> str:
        return self.text


# =========================================================================== parsing


def _chat(n: int, rest: str) -> Event | None:
    kind = {v: k for k, v in Chat.NUMBERS.items()}[n]
    if n <= 16:
        m = re.fullmatch(rf"({NAME}) (.*)", rest)
        if not m:
            return None
        return Chat(kind, m.group(1), m.group(2))
    return Chat(kind, "", rest)


def _dash(v: str) -> str | None:
    return None if v == "-" else v


def _numbered(text: str) -> Event | None:
    m = re.fullmatch(r"(1[0-9]|[1-9])(?: (.*))?", text)
    if not m:
        return None
    n, rest = int(m.group(1)), m.group(2)
    if rest is None:
        return {3: MotdBegin(), 4: MotdEnd(), 6: WhoEnd()}.get(n)
    toks = rest.split(" ")
    if n == 1 and len(toks) == 3 and re.fullmatch(NAME, toks[0]) and toks[1].isdigit():
        return Welcome(toks[0], int(toks[1]), toks[2])
    if n == 2 and len(toks) == 1 + len(OWN_INFO_FIELDS) and re.fullmatch(NAME, toks[0]):
        return OwnInfo(toks[0], tuple(toks[1:]))
    if n == 5 and len(toks) == 12 and re.fullmatch(NAME, toks[0]):
        if toks[3] not in ("0", "1") or toks[4] not in ("0", "1"):
            return None
        return WhoInfo(toks[0], _dash(toks[1]), _dash(toks[2]), toks[3] == "1",
                       toks[4] == "1", float(toks[5]), int(toks[6]), int(toks[7]),
                       int(toks[8]), toks[9], _dash(toks[10]), _dash(toks[11]))
    if n in (7, 8):
        mm = re.fullmatch(rf"({NAME}) (.+)", rest)
        if mm:
            return (UserLogin if n == 7 else UserLogout)(mm.group(1), mm.group(2))
        return None
    if n == 9:
        mm = re.fullmatch(rf"({NAME}) ([0-9]+) (.*)", rest)
        return Message(mm.group(1), int(mm.group(2)), mm.group(3)) if mm else None
    if n in (10, 11) and re.fullmatch(NAME, rest):
        return (MessageDelivered if n == 10 else MessageSaved)(rest)
    if 12 <= n <= 19:
        return _chat(n, rest)
    return None


_D = "([1-6])"
_N = "([0-9]+)"
_P = f"({NAME})"
_PTS = r"points?"

Builder = Callable[[re.Match[str]], "Event | None"]

# (pattern, builder) pairs tried in order; each builder takes the match
_TEXT: list[tuple[re.Pattern[str], Builder]] = []


def _rule(pattern: str) -> Callable[[Builder], Builder]:
    def wrap(fn: Builder) -> Builder:
        _TEXT.append((re.compile(pattern), fn))
        return fn
    return wrap


@_rule(r"login:.*")
def _r_login(_m: re.Match[str]) -> Event:
    return LoginPrompt()


@_rule(r"\*\* Warning: You are already logged in\.?")
def _r_already(_m: re.Match[str]) -> Event:
    return AlreadyLoggedIn()


@_rule(r"\s*Goodbye\.")
def _r_bye(_m: re.Match[str]) -> Event:
    return Goodbye()


@_rule(r"Connection timed out\.")
def _r_timeout(_m: re.Match[str]) -> Event:
    return TimedOut()


@_rule(r"Value of 'boardstyle' set to ([0-9]+)\.")
def _r_style(m: re.Match[str]) -> Event:
    return BoardStyleSet(int(m.group(1)))


@_rule(rf"{_P} wants to play an? (?:([0-9]+) point|unlimi?ted) match with you\.")
def _r_invite(m: re.Match[str]) -> Event:
    return Invitation(m.group(1), int(m.group(2) or 0))


@_rule(rf"{_P} wants to resume a saved match with you\.")
def _r_resume_invite(m: re.Match[str]) -> Event:
    return Invitation(m.group(1), 0, resume=True)


@_rule(rf"Type 'join {_P}' to accept\.")
def _r_typejoin(m: re.Match[str]) -> Event:
    return TypeJoin(m.group(1))


@_rule(rf"\*\* You invited {_P} to (?:a ([0-9]+) point match|an unlimited match"
       r"|(resume) a saved match)\.")
def _r_invited(m: re.Match[str]) -> Event:
    return YouInvited(m.group(1), int(m.group(2) or 0), resume=m.group(3) is not None)


@_rule(rf"\*\* You are now playing (?:a ([0-9]+) point|an unlimited) match with {_P}\.?")
def _r_now_playing(m: re.Match[str]) -> Event:
    return MatchStart(m.group(2), int(m.group(1) or 0), joined=True)


@_rule(rf"\*\* Player {_P} has joined you for (?:a ([0-9]+) point|an unlimited) match\.")
def _r_joined_you(m: re.Match[str]) -> Event:
    return MatchStart(m.group(1), int(m.group(2) or 0), joined=False)


@_rule(rf"You are now playing with {_P}\. Your running match was loaded\.")
def _r_resumed_j(m: re.Match[str]) -> Event:
    return MatchResumed(m.group(1), joined=True)


@_rule(rf"{_P} has joined you\. Your running match was loaded\.")
def _r_resumed_i(m: re.Match[str]) -> Event:
    return MatchResumed(m.group(1), joined=False)


@_rule(rf"turn: {_P}\.?")
def _r_turn(m: re.Match[str]) -> Event:
    return TurnInfo(m.group(1))


@_rule(r"match length: ([0-9]+|unlimited)")
def _r_mlen(m: re.Match[str]) -> Event:
    v = m.group(1)
    return MatchLengthInfo(0 if v == "unlimited" or v == "9999" else int(v))


@_rule(rf"points for (?:user )?{_P}: {_N}")
def _r_points(m: re.Match[str]) -> Event:
    return PointsFor(m.group(1), int(m.group(2)))


@_rule(rf"Starting a new game with {_P}\.")
def _r_newgame(m: re.Match[str]) -> Event:
    return NewGame(m.group(1))


@_rule(rf"You rolled {_D}, {_P} rolled {_D}\.?")
def _r_opening(m: re.Match[str]) -> Event:
    return OpeningRoll(int(m.group(1)), m.group(2), int(m.group(3)))


@_rule(rf"{_P} rolled {_D}, You rolled {_D}\.?")
def _r_opening2(m: re.Match[str]) -> Event:
    return OpeningRoll(int(m.group(3)), m.group(1), int(m.group(2)))


@_rule(r"It's your turn to move\.")
def _r_turn_move(_m: re.Match[str]) -> Event:
    return YourTurnToMove()


@_rule(rf"{_P} makes the first move\.")
def _r_first(m: re.Match[str]) -> Event:
    return FirstMove(m.group(1))


@_rule(r"It's your turn(?:\. Please| to) roll or double\.?")
def _r_rod(_m: re.Match[str]) -> Event:
    return RollOrDouble()


@_rule(rf"You roll {_D} and {_D}\.")
def _r_youroll(m: re.Match[str]) -> Event:
    return Rolled(None, (int(m.group(1)), int(m.group(2))))


@_rule(rf"{_P} rolls {_D} and {_D}\.")
def _r_rolls(m: re.Match[str]) -> Event:
    return Rolled(m.group(1), (int(m.group(2)), int(m.group(3))))


@_rule(r"Please move ([1-4]) pieces?\.")
def _r_pmove(m: re.Match[str]) -> Event:
    return PleaseMove(int(m.group(1)))


@_rule(r"The only possible move is (.*)")
def _r_only(m: re.Match[str]) -> Event:
    return OnlyMove(m.group(1))


@_rule(r"You can't move\.")
def _r_youcant(_m: re.Match[str]) -> Event:
    return CantMove(None)


@_rule(rf"{_P} can't move\.")
def _r_cant(m: re.Match[str]) -> Event:
    return CantMove(m.group(1))


_STEP = re.compile(r"(bar|off|home|[0-9]{1,2})-(bar|off|home|[0-9]{1,2})")


@_rule(rf"{_P} moves ((?:\S+ )*)\.")
def _r_moves(m: re.Match[str]) -> Event | None:
    steps = []
    for tok in m.group(2).split():
        sm = _STEP.fullmatch(tok)
        if not sm:
            return None
        steps.append((sm.group(1), sm.group(2)))
    if len(steps) > 4:
        return None
    return Moves(m.group(1), tuple(steps))


@_rule(rf"You double\. Please wait for {_P} to accept or reject\.")
def _r_youdouble(m: re.Match[str]) -> Event:
    return YouDouble(m.group(1))


@_rule(rf"{_P} doubles\. Type 'accept' or 'reject'\.")
def _r_doubles(m: re.Match[str]) -> Event:
    return Doubles(m.group(1), True)


@_rule(rf"{_P} doubles\.")
def _r_doubles_w(m: re.Match[str]) -> Event:
    return Doubles(m.group(1), False)


@_rule(rf"You accept the double\. The cube shows {_N}\.")
def _r_youtake(m: re.Match[str]) -> Event:
    return DoubleAccepted(None, int(m.group(1)))


@_rule(rf"{_P} accepts the double\. The cube shows {_N}\.")
def _r_take(m: re.Match[str]) -> Event:
    return DoubleAccepted(m.group(1), int(m.group(2)))


@_rule(rf"You give up\. {_P} wins {_N} {_PTS}\.")
def _r_yougiveup(m: re.Match[str]) -> Event:
    return GiveUp(None, m.group(1), int(m.group(2)))


@_rule(rf"{_P} gives up\. You win {_N} {_PTS}\.")
def _r_giveup(m: re.Match[str]) -> Event:
    return GiveUp(m.group(1), None, int(m.group(2)))


@_rule(rf"{_P} gives up\. {_P} wins {_N} {_PTS}\.")
def _r_giveup_w(m: re.Match[str]) -> Event:
    return GiveUp(m.group(1), m.group(2), int(m.group(3)))


@_rule(rf"You want to resign\. {_P} will win {_N} {_PTS}\.")
def _r_youresign(m: re.Match[str]) -> Event:
    return YouResign(m.group(1), int(m.group(2)))


@_rule(rf"{_P} wants to resign\. You will win {_N} {_PTS}\. Type 'accept' or 'reject'\.")
def _r_resign(m: re.Match[str]) -> Event:
    return ResignOffer(m.group(1), int(m.group(2)))


@_rule(rf"You accept and win {_N} {_PTS}\.")
def _r_youacc(m: re.Match[str]) -> Event:
    return ResignAccepted(None, int(m.group(1)))


@_rule(rf"{_P} accepts and wins {_N} {_PTS}\.")
def _r_acc(m: re.Match[str]) -> Event:
    return ResignAccepted(m.group(1), int(m.group(2)))


@_rule(r"You reject\. The game continues\.")
def _r_yourej(_m: re.Match[str]) -> Event:
    return ResignRejected(None)


@_rule(rf"{_P} rejects\. The game continues\.")
def _r_rej(m: re.Match[str]) -> Event:
    return ResignRejected(m.group(1))


@_rule(rf"You win the game and get {_N} {_PTS}\. Congratulations?!?")
def _r_youwin(m: re.Match[str]) -> Event:
    return GameWon(None, int(m.group(1)))


@_rule(rf"{_P} wins the game and gets {_N} {_PTS}\. Sorry\.")
def _r_win(m: re.Match[str]) -> Event:
    return GameWon(m.group(1), int(m.group(2)))


@_rule(rf"score in (?:([0-9]+) point|unlimited) match: {_P}-{_N} {_P}-{_N}")
def _r_score(m: re.Match[str]) -> Event:
    return Score(int(m.group(1) or 0), m.group(2), int(m.group(3)), m.group(4),
                 int(m.group(5)))


@_rule(r"Type 'join' if you want to play the next game, type 'leave' if you don't\.")
def _r_joinprompt(_m: re.Match[str]) -> Event:
    return JoinPrompt()


@_rule(rf"\*\* Please wait for {_P} to join too\.")
def _r_waitjoin(m: re.Match[str]) -> Event:
    return WaitJoin(m.group(1))


@_rule(rf"You win the {_N} point match {_N}-{_N} \.")
def _r_youmatch(m: re.Match[str]) -> Event:
    return MatchWon(None, int(m.group(1)), (int(m.group(2)), int(m.group(3))))


@_rule(rf"{_P} wins the {_N} point match {_N}-{_N} \.")
def _r_match(m: re.Match[str]) -> Event:
    return MatchWon(m.group(1), int(m.group(2)), (int(m.group(3)), int(m.group(4))))


@_rule(rf"{_P} (logs out|drops connection)\. The game was saved\.")
def _r_saved(m: re.Match[str]) -> Event:
    return MatchSaved(m.group(1), m.group(2))


@_rule(rf"\*\* Player {_P} has left the game\. The game was saved\.")
def _r_left(m: re.Match[str]) -> Event:
    return OpponentLeft(m.group(1))


@_rule(r"\*\* You terminated the game\. The game was saved\.")
def _r_youleft(_m: re.Match[str]) -> Event:
    return YouLeft()


@_rule(r"([a-z]+) +(YES|NO)")
def _r_toggle_state(m: re.Match[str]) -> Event | None:
    if m.group(1) not in TOGGLES:
        return None
    return ToggleState(m.group(1), m.group(2) == "YES")


@_rule(r" *opponent +matchlength +score \(your points first\) *")
def _r_saved_header(_m: re.Match[str]) -> Event:
    return SavedHeader()


@_rule(rf"[ *]+{_P} +([0-9]{{1,4}}|unlimited) +{_N} *- *{_N} *")
def _r_saved_row(m: re.Match[str]) -> Event:
    length = 0 if m.group(2) in ("unlimited", "9999") else int(m.group(2))
    return SavedMatchRow(m.group(1), length, int(m.group(3)), int(m.group(4)))


@_rule(r"[Nn]o saved games\.")
def _r_no_saved(_m: re.Match[str]) -> Event:
    return NoSavedGames()


def is_name(text: str) -> bool:
    """Whether ``text`` is a FIBS user name."""
    return _NAME_RE.fullmatch(text) is not None


_NAME_RE = re.compile(NAME)

_ERRORS: tuple[tuple[str, str], ...] = (
    (r"\*\* It's not your turn to (?:roll the dice|move|double)\.", "not_your_turn"),
    (r"\*\* You did already roll the dice\.", "already_rolled"),
    (r"\*\* You can't double after rolling the dice\.", "already_rolled"),
    (r"\*\* You can't double.*", "cant_double"),
    (r"\*\* You have to roll the dice before moving\.", "not_your_turn"),
    (r"\*\* (?:You must give [1-4] moves|Please don't give more than [1-4] moves"
     r"|You have to remove pieces from the bar in your first move|You can't move"
     r"|You can't remove this piece|Illegal move|first move: legal words).*", "illegal_move"),
    (rf"\*\* {_P} is refusing games\.", "refusing"),
    (rf"\*\* There is no one called {_P}\.?", "no_such_user"),
    (rf"\*\* {_P} is already playing with .*", "already_playing"),
    (r"\*\* You are already playing\.", "already_playing"),
    (r"\*\* You're not playing\.?.*", "not_playing"),
    (rf"\*\* {_P} didn't invite you\.", "didnt_invite"),
    (r"\*\* Unknown command: .*", "unknown_command"),
    (r"\*\* You can't invite yourself\.", "other"),
    (r"\*\* (?:You're now|You will|You won't|You'll|Will|Won't|The board|Forced moves|"
     r"You insist|You would like|You agree|You don't agree|Your terminal|You allow|"
     r"You don't allow|You use|The server will).*", "toggle"),
)
_ERRORS_RE = tuple((re.compile(p), k) for p, k in _ERRORS)


def _server_error(text: str) -> Event:
    for rx, kind in _ERRORS_RE:
        m = rx.fullmatch(text)
        if m:
            name = m.group(1) if rx.groups else None
            return ServerError(text, kind, name)
    return ServerError(text, "other")


REPAIRS: dict[str, str] = {
    "score": "a score at or beyond the match length (read as one point short of it)",
    "crawford": "a cube in the Crawford game, or a Crawford game at match point all "
                "(read as post-Crawford)",
    "flags": "may-double flags that contradict the cube (read from the cube)",
}
"""The rule-breaking board lines that are read all the same, as real servers send them
(BaldLies lets a double into the Crawford game; two sessions may disagree on the score):
the key and what was changed to read the line."""

_F = 3
"""Index of the match length in a board line split on ``:`` (the fields then follow the
numbering of :mod:`gbot.core.boardline`)."""


def _repaired(parts: list[str]) -> tuple[str, list[str]] | None:
    """The fields of a board line that :func:`parse_fibs_board` refused, as read despite the
    rules it breaks, with the :data:`REPAIRS` keys of those rules (comma-separated; empty
    when the line breaks none: the Crawford game's may-double flags); None when no repair
    applies."""
    try:
        nums = [int(p) for p in parts[_F:]]
    except ValueError:
        return None
    length, s1, s2 = nums[F_LENGTH], nums[F_SCORE], nums[F_SCORE + 1]
    if not 1 <= length <= MAX_MATCH_LENGTH or s1 < 0 or s2 < 0:
        return None
    steps: list[tuple[str, int, int]] = []   # (key, number index, new value)
    if max(s1, s2) >= length:
        steps += [("score", F_SCORE, min(s1, length - 1)),
                  ("score", F_SCORE + 1, min(s2, length - 1))]
        s1, s2 = min(s1, length - 1), min(s2, length - 1)
    if length - 1 in (s1, s2) and nums[F_POST_CRAWFORD] == 0 and (
            nums[F_CUBE] != 1 or nums[F_DOUBLED] or s1 == s2):
        steps.append(("crawford", F_POST_CRAWFORD, 1))
    may = (nums[F_MAY_DOUBLE], nums[F_MAY_DOUBLE + 1])
    if nums[F_DOUBLED] == 1 and may != (0, 0):
        steps += [("flags", F_MAY_DOUBLE, 0), ("flags", F_MAY_DOUBLE + 1, 0)]
    elif nums[F_DOUBLED] == 0 and may == (0, 0) and nums[F_CUBE] == 1:
        # nobody may double: right in the Crawford game (no rule broken), else a slip
        crawford = length - 1 in (s1, s2) and not any(k == "crawford" for k, *_ in steps) \
            and nums[F_POST_CRAWFORD] == 0
        key = "" if crawford else "flags"
        steps += [(key, F_MAY_DOUBLE, 1), (key, F_MAY_DOUBLE + 1, 1)]
    if not steps:
        return None
    out = list(parts)
    for _key, i, v in steps:
        out[_F + i] = str(v)
    keys = [k for k in dict.fromkeys(k for k, _i, _v in steps) if k]
    return ",".join(keys), out


def _board(text: str) -> BoardLine:
    parts = text.split(":")
    if len(parts) > 33 and parts[32] == "0":
        return BoardLine(text)   # nobody to act: between games, or the game is over
    try:
        return BoardLine(text, parse_fibs_board(text, "fibs"))
    except FibsBoardError as exc:
        problem = str(exc)
    repair = _repaired(parts) if len(parts) == _F + N_NUMBERS else None
    if repair is not None:
        keys, fixed = repair
        try:
            fb = parse_fibs_board(":".join(fixed), "fibs")
        except FibsBoardError:
            return BoardLine(text, None, problem)
        # the server's own line stays the raw text; only the reading is repaired
        if not keys:
            return BoardLine(text, fb)
        return BoardLine(text, fb, problem, "; ".join(REPAIRS[k] for k in keys.split(",")))
    return BoardLine(text, None, problem)


def clean(line: str) -> str:
    """``line`` without its line ending, a trailing CR, or surrounding NUL bytes."""
    return line.rstrip("\r\n").rstrip("\r").strip("\x00")


def parse_line(line: str) -> Event:
    """Decode one server line (any line ending already removed or not). Never raises."""
    try:
        return _parse(clean(line)[:MAX_LINE])
    except Exception:  # a parser bug must never take the bot down
        return Unknown(line)


def _parse(text: str) -> Event:
    if text.startswith("board:"):
        return _board(text)
    if text[:1].isdigit():
        ev = _numbered(text)
        if ev is not None:
            return ev
        return Unknown(text)
    for rx, fn in _TEXT:
        m = rx.fullmatch(text)
        if m:
            ev = fn(m)
            if ev is not None:
                return ev
    if text.startswith("**"):
        return _server_error(text)
    return Unknown(text)


# =========================================================================== framing

IAC = 0xFF
_IAC_3 = {0xFB, 0xFC, 0xFD, 0xFE}          # WILL WONT DO DONT + option byte


class LineSplitter:
    """Bytes from the server in, complete lines out (decoded as latin-1, no line endings).

    Telnet IAC sequences are removed, CR LF and bare LF both end a line, the ``login:``
    prompt is returned as soon as it arrives (it has no line ending), and a line longer than
    ``max_line`` characters is cut to that length (:attr:`truncated` counts them).
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        """An empty splitter keeping lines up to ``max_line`` characters."""
        self.max_line = max_line
        self.truncated = 0
        self._buf = bytearray()
        self._iac = b""
        self._skipping = False

    def _strip_iac(self, data: bytes) -> bytes:
        out = bytearray()
        data = self._iac + data
        self._iac = b""
        i = 0
        while i < len(data):
            c = data[i]
            if c != IAC:
                out.append(c)
                i += 1
                continue
            if i + 1 >= len(data):
                self._iac = data[i:]
                break
            cmd = data[i + 1]
            if cmd == IAC:
                out.append(IAC)
                i += 2
            elif cmd in _IAC_3:
                if i + 2 >= len(data):
                    self._iac = data[i:]
                    break
                i += 3
            else:
                i += 2
        return bytes(out)

    def feed(self, data: bytes) -> list[str]:
        """Add received bytes; return the lines they complete."""
        lines: list[str] = []
        for c in self._strip_iac(data):
            if c == 0x0A:
                if not self._skipping:
                    lines.append(self._take())
                self._buf.clear()
                self._skipping = False
                continue
            if self._skipping:
                continue
            self._buf.append(c)
            if c == 0x20 and len(self._buf) <= 9 and \
                    bytes(self._buf).lstrip(b"\r\x00") == b"login: ":
                lines.append("login: ")      # the prompt comes without a line ending
                self._buf.clear()
                continue
            if len(self._buf) > self.max_line:
                self.truncated += 1
                lines.append(self._take()[: self.max_line])
                self._buf.clear()
                self._skipping = True
        return lines

    def _take(self) -> str:
        return bytes(self._buf).decode("latin-1").rstrip("\r")


def format_login(client: str, user: str, password: str, version: int = CLIP_VERSION) -> str:
    """The CLIP login command (``login CLIENT VERSION USER PASSWORD``)."""
    for what, val in (("client name", client), ("user", user), ("password", password)):
        if not val or any(ch.isspace() for ch in val):
            raise ValueError(f"the {what} must be one word without spaces, got a bad value")
    return f"login {client} {version} {user} {password}"


__all__ = [
    "AlreadyLoggedIn", "BoardLine", "BoardStyleSet", "CLIP_VERSION", "CantMove", "Chat",
    "DoubleAccepted", "Doubles", "Event", "FirstMove", "GameWon", "GiveUp", "Goodbye",
    "Invitation", "JoinPrompt", "LineSplitter", "LoginPrompt", "MAX_LINE", "MatchLengthInfo",
    "MatchResumed", "MatchSaved", "MatchStart", "MatchWon", "Message", "MessageDelivered",
    "MessageSaved", "MotdBegin", "MotdEnd", "Moves", "NewGame", "NoSavedGames",
    "OWN_INFO_FIELDS", "OnlyMove",
    "OpeningRoll", "OpponentLeft", "OwnInfo", "PleaseMove", "PointsFor", "REPAIRS",
    "ResignAccepted",
    "ResignOffer", "ResignRejected", "RollOrDouble", "Rolled", "SavedHeader",
    "SavedMatchRow", "Score", "ServerError",
    "TOGGLES", "TimedOut", "ToggleState", "TurnInfo", "TypeJoin", "Unknown", "UserLogin",
    "UserLogout", "WaitJoin", "Welcome", "WhoEnd", "WhoInfo", "YouDouble", "YouInvited",
    "YouLeft", "YouResign", "YourTurnToMove", "clean", "format_login", "is_name", "parse_line",
]
