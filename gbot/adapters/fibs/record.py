"""The record of a match the FIBS bot plays, rebuilt from the server's ``board:`` lines.

:class:`MatchRecorder` keeps a :class:`gbot.game.referee.Referee` in step with the boards it is
shown: a board with dice is that player's roll, a board whose position differs is the play
(among :func:`gbot.game.referee.legal_results`) that gives it, a pending double is a double, a
doubled cube a take. No move text is read, so servers that word their messages differently
are recorded alike. The end of a game comes from the game-end messages (winner and points):
the winner's last bear-off, a drop or an accepted resignation. A board that no legal step
explains stops the record (what came before it is kept). :meth:`MatchRecorder.write` saves
the record as ``.mat`` and ``.sgf`` files that gnubg imports.

Only matches that start at 0-0 while the bot watches are recorded (a resumed saved match
starts mid-way, which the referee cannot follow).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gbot.errors import GbotError
from gbot.game.match import GameState, MatchState
from gbot.game.referee import Referee, game_points, legal_results
from gbot.records import matfile, sgf

if TYPE_CHECKING:
    from gbot.game.notations.fibs_board import FibsBoard
    from gbot.game.referee import MatchRecord

log = logging.getLogger("gbot.fibs")

__all__ = ["MatchRecorder", "file_stem"]

_OVER = (GameState.OVER, GameState.RESIGNED, GameState.DROPPED)
MAX_BOARDS = 500_000
"""Most boards followed in one match (an endless money session stops there)."""
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _seat1(board: tuple[int, ...], on_roll: int) -> tuple[int, ...]:
    """``board`` (seen by ``on_roll``) as player 1 sees it."""
    return board if on_roll == 1 else tuple(-v for v in reversed(board))


def _view(s: MatchState) -> tuple[int, ...]:
    return _seat1(tuple(int(v) for v in s.board), s.player_on_roll)


def file_stem(started: float, names: tuple[str, str], length: int) -> str:
    """``YYYY-MM-DD_HHMMSS_NAME0-NAME1_Np`` (UTC; ``money`` for an unlimited session)."""
    when = time.strftime("%Y-%m-%d_%H%M%S", time.gmtime(started))
    who = "-".join(_SAFE.sub("_", n)[:40] or "player" for n in names)
    return f"{when}_{who}_{f'{length}p' if length else 'money'}"


class MatchRecorder:
    """Follows one match from its boards and game-end messages; ``me`` is the bot's name
    (board lines call it ``You``)."""

    def __init__(self, me: str, started: float | None = None) -> None:
        """A recorder for a match that is about to start (``started``: epoch seconds)."""
        self.me = me
        self.started = time.time() if started is None else started
        self.ref: Referee | None = None
        self.boards = 0
        self.broken = ""
        """Why the record stopped following the match (empty while it follows)."""

    @property
    def record(self) -> MatchRecord | None:
        """What was recorded so far (None before the first board)."""
        return None if self.ref is None else self.ref.record

    def _stop(self, why: str) -> None:
        if not self.broken:
            self.broken = why
            log.warning("match record stops: %s", why)

    # --- input ---------------------------------------------------------------------------
    def board(self, fb: FibsBoard) -> None:
        """A ``board:`` line of the match: advance the record to it."""
        if self.broken:
            return
        self.boards += 1
        if self.boards > MAX_BOARDS:
            self._stop(f"more than {MAX_BOARDS} boards in one match")
            return
        actor, other = (self.me if n == "You" else n for n in fb.names)
        if self.ref is None:
            if fb.score != (0, 0):
                self._stop("the match did not start at 0-0")
                return
            a, b = sorted((actor, other))
            self.ref = Referee(fb.match_length, names=(a, b))
        names = self.ref.record.names
        if actor not in names or other not in names or actor == other:
            self._stop(f"a board of other players: {fb.names!r}")
            return
        # players are numbered by name (the line's own numbering is by colour)
        seat = names.index(actor)
        st = replace(fb.state, player_to_act=seat,
                     player_on_roll=1 - seat if fb.double_pending else seat,
                     score=fb.score if seat == 0 else (fb.score[1], fb.score[0]))
        try:
            for _ in range(6):
                if self._in_step(st) or not self._advance(st):
                    return
        except GbotError as exc:
            self._stop(f"a board the rules do not allow: {exc}")

    def _in_step(self, st: MatchState) -> bool:
        assert self.ref is not None
        rs = self.ref.state
        return (rs.game_state == GameState.PLAYING and rs.score == st.score
                and rs.player_on_roll == st.player_on_roll
                and sorted(rs.dice) == sorted(st.dice) and rs.cube_value == st.cube_value
                and rs.double_offered == st.double_offered and _view(rs) == _view(st))

    def _advance(self, st: MatchState) -> bool:
        """Apply the one step that brings the record nearer ``st``; False when none does."""
        assert self.ref is not None
        ref = self.ref
        rs = ref.state
        if rs.game_state in _OVER:
            if st.score == rs.score and not rs.match_over:
                ref.next_game()
                return True
            return False
        if rs.score != st.score:
            return False
        if rs.game_state == GameState.NONE:
            hi, lo = max(st.dice), min(st.dice)
            if hi == lo or _view(rs) != _view(st):
                return False
            ref.roll((hi, lo) if st.player_on_roll == 0 else (lo, hi))
            return True
        same = _view(rs) == _view(st)
        if rs.double_offered:
            if not st.double_offered and st.cube_value == 2 * rs.cube_value and same:
                ref.take()
                return True
            return False
        if rs.dice == (0, 0):
            if st.player_on_roll != rs.player_on_roll and not same and \
                    st.cube_value == rs.cube_value:
                return self._unseen_roll(st)
            if st.player_on_roll != rs.player_on_roll or not same:
                return False
            if st.double_offered and st.cube_value == rs.cube_value or \
                    not st.double_offered and st.cube_value == 2 * rs.cube_value:
                ref.double()           # (the doubler may see only the board after the take)
                return True
            if st.dice != (0, 0):
                ref.roll((st.dice[0], st.dice[1]))
                return True
            return False
        mover = rs.player_on_roll
        target = _view(st) if mover == 1 else tuple(-v for v in reversed(_view(st)))
        legal = legal_results(rs)
        if len(legal) == 0:
            if st.player_on_roll != mover or same:
                ref.play(None)
                return True
            return False
        for r in legal:
            if tuple(int(v) for v in r) == target:
                ref.play(r)
                return True
        if not same:
            self._stop(f"no legal play for {rs.dice} gives the board shown")
        return False

    def _unseen_roll(self, st: MatchState) -> bool:
        """The player on roll moved without a board of the roll (a server that sends no
        board after rolling): roll the one pair of dice whose play gives ``st``'s board."""
        assert self.ref is not None
        rs = self.ref.state
        target = _view(st) if rs.player_on_roll == 1 else \
            tuple(-v for v in reversed(_view(st)))
        fits = [(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)
                if any(tuple(int(v) for v in r) == target
                       for r in legal_results(replace(rs, dice=(hi, lo))))]
        if len(fits) != 1:
            self._stop("a play whose roll was not shown" + (
                f" fits {len(fits)} rolls" if fits else " that no roll gives"))
            return False
        self.ref.roll(fits[0])
        return True

    def game_over(self, winner: str, points: int, how: str) -> None:
        """The game ended: ``winner`` (a name; ``You`` or the bot's name for the bot) scores
        ``points``, ``how`` = ``bearoff``, ``drop`` or ``resign``."""
        ref = self.ref
        if self.broken or ref is None:
            return
        w = ref.record.names.index(self.me if winner == "You" else winner) \
            if (self.me if winner == "You" else winner) in ref.record.names else -1
        if w < 0:
            self._stop(f"the game's winner {winner!r} is not a player")
            return
        try:
            rs = ref.state
            if rs.game_state == GameState.PLAYING:
                if how == "drop":
                    if not rs.double_offered and rs.player_on_roll == w:
                        ref.double()   # the doubler sees no board of its own double
                    ref.drop()
                elif how == "bearoff":
                    if rs.dice == (0, 0) or rs.player_on_roll != w or not self._bear_off(rs):
                        self._stop("the winner's last roll was not seen")
                        return
                else:
                    kinds = [k for k in (1, 2, 3) if game_points(rs, k) == points]
                    if not kinds:
                        self._stop(f"{points} points is no possible resignation")
                        return
                    ref.resign(kinds[0], player=1 - w)
                    if ref.state.game_state == GameState.PLAYING:
                        ref.accept_resign()
        except GbotError as exc:
            self._stop(f"the game's end does not follow the rules: {exc}")
            return
        s = ref.state
        if s.game_state not in _OVER or (s.winner, s.game_points) != (w, points):
            self._stop(f"the record's game end (player {s.winner}, {s.game_points} points) "
                       f"is not the server's ({winner}, {points})")

    def _bear_off(self, rs: MatchState) -> bool:
        """Play the winner's last roll: the legal play that bears off the last checker."""
        assert self.ref is not None
        for r in legal_results(rs):
            if not any(int(v) > 0 for v in r):
                self.ref.play(r)
                return True
        return False

    # --- output --------------------------------------------------------------------------
    def write(self, folder: str | Path) -> list[Path]:
        """Write the record to ``folder`` as ``.mat`` and ``.sgf``; returns the paths
        (none when nothing was recorded). A failure is logged, not raised."""

        rec = self.record
        if rec is None or not rec.games or not any(g.actions for g in rec.games):
            return []
        stem = file_stem(self.started, rec.names, rec.match_length)
        out: list[Path] = []
        try:
            d = Path(folder)
            d.mkdir(parents=True, exist_ok=True)
            for ext, writer in ((".mat", matfile.write), (".sgf", sgf.write)):
                p = d / (stem + ext)
                writer(rec, p)
                out.append(p)
        except (OSError, GbotError) as exc:
            log.warning("cannot write the match record to %s: %s", folder, exc)
        for p in out:
            log.info("wrote the match record %s", p)
        return out
