"""Test doubles of FIBS-compatible servers that behave unlike FIBS in ways real servers do.

Each is a :class:`gbot.testing.fibs_server.FibsServer` with one behaviour changed:

* :class:`CrawfordStallServer` behaves as BaldLies does in the Crawford game: the player on
  roll gets a ``board:`` line and nothing else (no ``Please roll or double`` prompt, no
  automatic roll); the game goes on only when that player sends ``roll``. Matches can start
  at a set score (``first_score``) so that the first game is the Crawford game.
* :class:`CrawfordCubeServer` lets the cube into the Crawford game, as BaldLies did: a
  ``double`` there is accepted, and the players named in ``strict_view`` still get boards
  that mark the game as the Crawford game (field 51 = 0) with the cube in play, boards the
  rules call impossible (two sessions that disagree on the Crawford state).
* :class:`NoSavedListServer` keeps saved matches but cannot list them: ``show`` is an
  unknown command. A client restarted with an empty memory learns of its saved matches
  only from its own state file.
* :class:`FloodServer` sends ``flood`` malformed copies before every board line it sends to
  the players in ``flood_to``.
* :class:`StrayLoginServer` sends a ``login:`` prompt to the players in ``stray_to`` after
  they have logged in, at the start of every game.
* :class:`LyingLengthServer` gives absurd match lengths: in the ``match length:`` line of a
  resumed match and in the ``show saved`` rows.
* :class:`ResetScoreServer` resumes a saved match at 0-0, as BaldLies reloads one.

Every double keeps :attr:`GameClock.game_times` (how long each game took) and
:attr:`GameClock.commands` (every command line received, with its sender).
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, replace
from typing import Any

from gbot.adapters.fibs import clip
from gbot.game.match import GameState
from gbot.testing.fibs_server import Connection, FibsServer, ServerMatch

__all__ = ["CrawfordCubeServer", "CrawfordStallServer", "FloodServer", "GameClock",
           "GameTime", "LyingLengthServer", "NoSavedListServer", "ResetScoreServer",
           "StrayLoginServer"]

_POST_CRAWFORD = 51
"""Index of the post-Crawford field in a ``board:`` line split on ``:``."""


@dataclass(frozen=True)
class GameTime:
    """One finished game: whether it was the Crawford game, turns played, seconds taken."""

    crawford: bool
    turns: int
    seconds: float


class GameClock(FibsServer):
    """A :class:`FibsServer` that keeps how long each game took and every command it got;
    ``first_score`` (inviter's points first) sets the score every new match starts at,
    marked as the Crawford game when a side is one point from winning. With ``nodelay`` its
    sockets send each line at once (no Nagle wait for the client's delayed ACK, which
    otherwise costs about 40 ms a turn on the loopback)."""

    def __init__(self, *args: Any, first_score: tuple[int, int] | None = None,
                 nodelay: bool = True, **kwargs: Any) -> None:
        """As :class:`FibsServer`, plus the score new matches start at and the socket
        option."""
        super().__init__(*args, **kwargs)
        self.first_score = first_score
        self.nodelay = nodelay
        self.game_times: list[GameTime] = []
        """Every finished game, in order."""
        self.commands: list[tuple[str, str]] = []
        """``(sender, line)`` of every command received after login."""
        self._started: dict[int, tuple[bool, float]] = {}

    def _serve(self, conn: Connection) -> None:
        if self.nodelay:
            try:
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        super()._serve(conn)

    def _command(self, conn: Connection, text: str) -> bool:
        if conn.account is not None and len(self.commands) < 100_000:
            self.commands.append((conn.name, text))
        return super()._command(conn, text)

    def _start_game(self, m: ServerMatch) -> None:
        s = m.state
        if self.first_score is not None and s.game_number == 0 and s.score == (0, 0) \
                and s.match_length > 0:
            crawford = s.match_length - 1 in self.first_score and \
                max(self.first_score) < s.match_length
            m.state = replace(s, score=self.first_score, crawford=crawford,
                              crawford_done=crawford)
        self._started[id(m)] = (m.state.crawford, time.monotonic())
        super()._start_game(m)

    def _end_game(self, m: ServerMatch, how: str) -> None:
        crawford, start = self._started.pop(id(m), (False, time.monotonic()))
        self.game_times.append(GameTime(crawford, m.state.turn, time.monotonic() - start))
        super()._end_game(m, how)


class CrawfordStallServer(GameClock):
    """In the Crawford game nobody is prompted or rolled for: the player on roll must send
    ``roll`` on seeing the board."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """As :class:`GameClock`."""
        super().__init__(*args, **kwargs)
        self.silent_turns = 0
        """Turns that began with a board and no prompt or roll."""

    def _begin_turn(self, m: ServerMatch) -> None:
        s = m.state
        if s.game_state == GameState.PLAYING and s.match_length > 0 and s.crawford and \
                s.dice == (0, 0) and not s.double_offered:
            self.silent_turns += 1
            return                  # BaldLies: the board was sent; wait for "roll"
        super()._begin_turn(m)


class CrawfordCubeServer(GameClock):
    """The Crawford game is played with the cube on (a ``double`` is accepted there); the
    players in ``strict_view`` get boards that still mark it as the Crawford game."""

    def __init__(self, *args: Any, strict_view: frozenset[str] = frozenset(),
                 **kwargs: Any) -> None:
        """As :class:`GameClock`, plus the players whose boards keep the Crawford mark."""
        super().__init__(*args, **kwargs)
        self.strict_view = strict_view
        self.crawford_doubles = 0
        """Doubles accepted in the Crawford game."""
        self._lax: set[int] = set()

    def _start_game(self, m: ServerMatch) -> None:
        self._lax.discard(id(m))
        s = m.state
        crawford = s.crawford or (self.first_score is not None and s.game_number == 0 and
                                  s.score == (0, 0) and s.match_length - 1 in self.first_score)
        if crawford:
            self._lax.add(id(m))
        super()._start_game(m)

    def _begin_turn(self, m: ServerMatch) -> None:
        if id(m) in self._lax and m.state.crawford:
            # the server's own referee plays this Crawford game with the cube on
            m.state = replace(m.state, crawford=False, crawford_done=True)
        super()._begin_turn(m)

    def _command(self, conn: Connection, text: str) -> bool:
        m = self.matches.get(conn.name) if conn.account is not None else None
        before = len(self.history)
        done = super()._command(conn, text)
        if m is not None and id(m) in self._lax and \
                any(h[0] == "double" for h in self.history[before:]):
            self.crawford_doubles += 1
        return done

    def _board_line(self, m: ServerMatch, viewer: int) -> str | None:
        line = super()._board_line(m, viewer)
        if line is None or id(m) not in self._lax or m.names[viewer] not in self.strict_view:
            return line
        f = line.split(":")
        f[_POST_CRAWFORD] = "0"      # "not a post-Crawford game": the Crawford game itself
        return ":".join(f)


class NoSavedListServer(FibsServer):
    """A server without ``show``: saved matches exist but cannot be listed."""

    def _command(self, conn: Connection, text: str) -> bool:
        if conn.account is not None and text.split(" ", 1)[0].lower() == "show":
            conn.send("** Unknown command: 'show'")
            return False
        return super()._command(conn, text)


class FloodServer(GameClock):
    """Every board line sent to a player in ``flood_to`` comes after ``flood`` malformed
    copies of it (a checker count no game has)."""

    def __init__(self, *args: Any, flood: int = 100, flood_to: frozenset[str] = frozenset(),
                 **kwargs: Any) -> None:
        """As :class:`GameClock`, plus how many malformed lines precede each board, and to
        whom."""
        super().__init__(*args, **kwargs)
        self.flood = flood
        self.flood_to = flood_to
        self.flooded = 0
        """Malformed board lines sent."""

    def _send_board(self, m: ServerMatch, *who: int, when: str = "autoboard") -> None:
        for p in who or (0, 1):
            name = m.names[p]
            line = self._board_line(m, p) if name in self.flood_to else None
            if line is not None:
                f = line.split(":")
                f[10] = "99"             # 99 checkers on one point
                self._to(name, *[":".join(f)] * self.flood)
                self.flooded += self.flood
        super()._send_board(m, *who, when=when)


class StrayLoginServer(GameClock):
    """Sends ``login:`` (no line ending, as a real prompt) to the players in ``stray_to`` at
    the start of every game, long after they logged in."""

    def __init__(self, *args: Any, stray_to: frozenset[str] = frozenset(),
                 **kwargs: Any) -> None:
        """As :class:`GameClock`, plus who gets the stray prompts."""
        super().__init__(*args, **kwargs)
        self.stray_to = stray_to
        self.strays = 0
        """Stray prompts sent."""

    def _start_game(self, m: ServerMatch) -> None:
        for name in m.names:
            conn = self._conns.get(name)
            if name in self.stray_to and conn is not None:
                conn.send_bytes(clip.LoginPrompt().line().encode())
                self.strays += 1
        super()._start_game(m)


class LyingLengthServer(GameClock):
    """Gives the length of a resumed match as ``resume_length`` in its ``match length:``
    line, and every saved match's as ``listed_length`` in ``show saved``."""

    def __init__(self, *args: Any, resume_length: str = "99999999999",
                 listed_length: str = "9998", **kwargs: Any) -> None:
        """As :class:`GameClock`, plus the lengths the server lies with (as written)."""
        super().__init__(*args, **kwargs)
        self.resume_length = resume_length
        self.listed_length = listed_length

    def _to(self, name: str, *lines: str) -> None:
        super()._to(name, *(f"match length: {self.resume_length}"
                            if ln.startswith("match length: ") else ln for ln in lines))

    def _saved_row(self, opp: str, m: ServerMatch, me: int) -> str:
        s = m.state.score
        return f" {opp:<17} {self.listed_length:>9}  {s[me]:>8} - {s[1 - me]:>2}"


class ResetScoreServer(GameClock):
    """A resumed match restarts at 0-0 (the game in play goes on)."""

    def _resume(self, m: ServerMatch, inviter: str, joiner: str) -> None:
        m.state = replace(m.state, score=(0, 0), crawford=False, crawford_done=False)
        super()._resume(m, inviter, joiner)
