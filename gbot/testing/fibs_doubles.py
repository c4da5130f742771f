"""Test doubles of FIBS-compatible servers that behave unlike FIBS in ways real servers do.

Each is a :class:`gbot.testing.fibs_server.FibsServer` with one behaviour changed:

* :class:`CrawfordStallServer` behaves as BaldLies does in the Crawford game: the player on
  roll gets a ``board:`` line and nothing else (no ``Please roll or double`` prompt, no
  automatic roll); the game goes on only when that player sends ``roll``. Matches can start
  at a set score (``first_score``) so that the first game is the Crawford game.
* :class:`NoSavedListServer` keeps saved matches but cannot list them: ``show`` is an
  unknown command. A client restarted with an empty memory learns of its saved matches
  only from its own state file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gbot.game.match import GameState
from gbot.testing.fibs_server import Connection, FibsServer, ServerMatch

__all__ = ["CrawfordStallServer", "NoSavedListServer"]


class CrawfordStallServer(FibsServer):
    """In the Crawford game nobody is prompted or rolled for: the player on roll must send
    ``roll`` on seeing the board. ``first_score`` (inviter's points first) sets the score of
    every new match, marked as the Crawford game when a side is one point from winning."""

    def __init__(self, *args: Any, first_score: tuple[int, int] | None = None,
                 **kwargs: Any) -> None:
        """As :class:`FibsServer`, plus the score new matches start at."""
        super().__init__(*args, **kwargs)
        self.first_score = first_score
        self.silent_turns = 0
        """Turns that began with a board and no prompt or roll."""

    def _start_game(self, m: ServerMatch) -> None:
        s = m.state
        if self.first_score is not None and s.game_number == 0 and s.score == (0, 0) \
                and s.match_length > 0:
            crawford = s.match_length - 1 in self.first_score and \
                max(self.first_score) < s.match_length
            m.state = replace(s, score=self.first_score, crawford=crawford,
                              crawford_done=crawford)
        super()._start_game(m)

    def _begin_turn(self, m: ServerMatch) -> None:
        s = m.state
        if s.game_state == GameState.PLAYING and s.match_length > 0 and s.crawford and \
                s.dice == (0, 0) and not s.double_offered:
            self.silent_turns += 1
            return                  # BaldLies: the board was sent; wait for "roll"
        super()._begin_turn(m)


class NoSavedListServer(FibsServer):
    """A server without ``show``: saved matches exist but cannot be listed."""

    def _command(self, conn: Connection, text: str) -> bool:
        if conn.account is not None and text.split(" ", 1)[0].lower() == "show":
            conn.send("** Unknown command: 'show'")
            return False
        return super()._command(conn, text)
