"""The FIBS bot's protocol state machine (:class:`FibsBot`): CLIP lines in, commands out, no I/O.

:class:`FibsBot` takes server lines (:meth:`FibsBot.handle_line`) and clock ticks
(:meth:`FibsBot.tick`) and answers with :class:`Send` commands; every game decision comes from
:class:`gbot.engine.engine.Engine`, the same engine the gnubg external-player server uses.
:func:`fibs_move` writes a :class:`gbot.Play` in FIBS's absolute point numbering. The socket
loop that drives a bot is :func:`gbot.adapters.fibs.client.run_bot` (see that module for how
the bot avoids acting twice and handles saved matches).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.bot_types import (
    MAX_RESYNCS,
    MAX_SAVED,
    MAX_SCORE,
    MAX_WHO,
    NUDGES,
    TOO_LONG,
    BotConfig,
    Decision,
    ExitReason,
    LogThrottle,
    MatchInPlay,
    MatchResult,
    Need,
    Send,
)
from gbot.adapters.fibs.lobby import Lobby, length_text
from gbot.adapters.fibs.record import MatchRecorder
from gbot.core.boardline import FIBS_MONEY
from gbot.core.limits import MAX_MATCH_LENGTH
from gbot.game.notations.fibs_board import FibsBoard

if TYPE_CHECKING:
    from gbot.engine.engine import Engine
    from gbot.game.match import MatchState
    from gbot.game.position import Play, Position

log = logging.getLogger("gbot.fibs")


# =========================================================================== FIBS moves


def fibs_point(p: int, colour: int, source: bool) -> str:
    """One point of a step in FIBS numbering: ``p`` is in the mover's numbering (25 = bar,
    0 = off), ``colour`` the mover's sign on the board line (+1 = O, -1 = X)."""
    if p == 25 and source:
        return "bar"
    if p == 0 and not source:
        return "off"
    if not 1 <= p <= 24:
        raise ValueError(f"no such point in a step: {p!r}")
    return str(p if colour > 0 else 25 - p)


def fibs_steps(steps: Sequence[tuple[int, int]], colour: int) -> str:
    """Single-die steps ``(from, to)`` (mover's numbering) as FIBS ``move`` arguments."""
    return " ".join(f"{fibs_point(a, colour, True)}-{fibs_point(b, colour, False)}"
                    for a, b in steps)


def fibs_move(play: Play, colour: int) -> str:
    """The FIBS ``move`` command for ``play``; ``colour`` as in :func:`fibs_point`.

    Each checker hop is one step (``24-18 18-13``), entering is ``bar-N`` and bearing off
    ``N-off``; for X the points are ``25 - p``.
    """
    return "move " + fibs_steps(play.steps, colour)


# =========================================================================== the bot


class FibsBot(Lobby):
    """The bot's protocol state machine: server lines in, commands out, no I/O.

    ``engine`` makes every decision. The bot keeps what must survive a reconnection (the
    match in progress, known saved matches, results) and resets the rest in
    :meth:`connected`. The who list, saved matches and invitation policy are its
    :class:`~gbot.adapters.fibs.lobby.Lobby` part.
    """

    def __init__(self, config: BotConfig, engine: Engine, password: str = "") -> None:
        """A bot for ``config``'s account, deciding with ``engine``."""
        self.config = config
        self.engine = engine
        self.__password = password
        self.results: deque[MatchResult] = deque(maxlen=1000)
        self.matches_played = 0
        self.stop_reason: ExitReason | None = None
        self.saved: dict[str, int] = {}
        self.saved_scores: dict[str, tuple[int, int]] = {}
        """The score (mine first) of each saved match when it was saved or listed."""
        self.throttle = LogThrottle(log, config.warn_first, config.warn_interval)
        """The bounded log of lines a server can repeat at will (warnings above all)."""
        self.match: MatchInPlay | None = None
        self.games_played = 0
        self.malformed = 0
        self.logins = 0
        self.decisions: deque[Decision] = deque(maxlen=5000)
        self.recorder: MatchRecorder | None = None
        self.records: list[Path] = []
        """The match files written (see :attr:`BotConfig.record_dir`)."""
        self._left_at: dict[str, float] = {}
        self._invited_at: dict[str, float] = {}
        self._invite_wait: dict[str, float] = {}
        self._defer_until: dict[str, float] = {}
        self._listed_before: dict[str, tuple[int, int]] = {}
        self._match_notes: set[str] = set()
        self._resume_ref: tuple[int, int] | None = None
        self._resume_points: list[int | None] = [None, None]
        self._server_rolls_crawford = False
        self._now = 0.0
        self.connected(0.0)

    # --- connection lifecycle -----------------------------------------------------------
    def connected(self, now: float) -> None:
        """A new connection started: forget everything that belongs to the old one."""
        self._now = now
        self.logged_in = False
        self._login_sent = False
        self._settings_sent = False
        self._stopping = False
        self._who: dict[str, clip.WhoInfo] = {}
        self._who_ready = False
        self.board: FibsBoard | None = None
        self._board_raw = ""
        self._board_asked = False
        self._serial = 0
        self._acted = 0
        self._acted_raw = ""
        self._repeat_ok = False
        self.timed_out = False
        self.need: Need | None = None
        self._resync = False
        self._resyncs = 0
        self._resign_waiting: Need | None = None
        self._resigned_game = -1
        self._board_at = now
        self._game_ended = False
        self._boundary = False
        self._last_roll_alone = False
        self._unreadable_at: float | None = None
        self._leaving: float | None = None
        self._last_rx = now
        self._last_tx = now

    def disconnected(self) -> None:
        """The connection dropped: a match in progress is saved by the server."""
        if self.match is not None:
            self._save_match()
            log.info("connection lost during the match with %s; it is saved",
                     self.match.opponent)
            self.match = None
            self._write_record()
        self.need = None
        self.throttle.flush(self._now, everything=True)

    def _save_match(self) -> None:
        """Remember the match in play as saved, with its length and score."""
        m = self.match
        if m is not None:      # (an unknown length is 0, or the remembered guess)
            self._remember_saved(m.opponent, m.length, m.score if m.score_known else None)

    def request_stop(self, reason: ExitReason = ExitReason.FINISHED) -> list[Send]:
        """Log out cleanly; :attr:`stop_reason` becomes ``reason``."""
        if self.stop_reason is None:
            self.stop_reason = reason
        if self._stopping:
            return []
        self._stopping = True
        return [Send("bye")] if self.logged_in or self._login_sent else []

    @property
    def stopping(self) -> bool:
        """Whether the bot has asked to log out."""
        return self._stopping

    # --- input ------------------------------------------------------------------------
    def handle_line(self, line: str, now: float | None = None) -> list[Send]:
        """React to one server line; returns the commands to send (possibly none)."""
        if now is not None:
            self._now = now
        self._last_rx = self._now
        ev = clip.parse_line(line)
        handler = _HANDLERS.get(type(ev))
        if handler is None:
            if isinstance(ev, clip.Unknown) and ev.text.strip():
                log.debug("ignored line: %s", self.mask(ev.text)[:200])
            return []
        try:
            out = handler(self, ev)
        except Exception:  # a bug in one reaction must not end the session
            self.throttle.log(self._now, logging.ERROR, "error", "error while handling %r",
                              line[:200], exc_info=True)
            return []
        if out:
            self._last_tx = self._now
        return out

    def tick(self, now: float) -> list[Send]:
        """Timers: act on a board no prompt followed, ask for the board when a match is
        quiet, invite again, and keep the session alive while idle."""
        self._now = now
        out: list[Send] = []
        if not self.logged_in or self._stopping:
            return out
        cfg = self.config
        self.throttle.flush(now)
        quiet = now - max(self._last_rx, self._last_tx)
        if self.match is not None:
            if self._leaving is not None and now - self._leaving > max(30.0, cfg.stall):
                self._leaving = None       # the server did not end the match: play on
                out += self._resync_now()
            out += self._act_on_board_alone(now)
            if not out and self._unreadable_at is not None and cfg.dead_match > 0 and \
                    now - self._unreadable_at > cfg.dead_match:
                out += self._leave_match(f"its boards have been unreadable for "
                                         f"{now - self._unreadable_at:.0f} s")
            if not out and cfg.stall > 0 and quiet > cfg.stall:
                log.info("no progress for %.0f s; asking for the board again", cfg.stall)
                out += self._resync_now()
        elif self._who_ready:
            out += self._invite_someone()
        if not out and cfg.keepalive > 0 and quiet > cfg.keepalive:
            out.append(Send("time"))
        if out:
            self._last_tx = now
        return out

    def wake_at(self) -> float | None:
        """When :meth:`tick` may next act on the latest board alone (None: not waiting)."""
        wait = self._board_alone_wait()
        return None if wait is None else self._board_at + wait

    def _board_alone_wait(self) -> float | None:
        """Seconds the latest board waits for a prompt before the bot acts on it alone, or
        None when it is not the bot's to act on."""
        fb = self.board
        cfg = self.config
        if fb is None or not fb.me_player1 or self._serial <= self._acted or \
                self._game_ended or self._resign_waiting is not None or cfg.settle <= 0 or \
                self._leaving is not None or self.match is None:
            return None
        if self._board_raw == self._acted_raw and not self._repeat_ok:
            return None
        if self._crawford_roll(fb):
            # the roll waits ``delay`` in the outbox too, and is void if the server rolls
            return max(0.0, min(cfg.crawford_settle, cfg.settle) - cfg.delay)
        return cfg.settle

    def _crawford_roll(self, fb: FibsBoard) -> bool:
        """Whether ``fb`` asks me to roll in the Crawford game on a server that does not
        roll for me there (as far as the bot knows)."""
        return fb.question == "double_or_roll" and fb.crawford_game and \
            not self._server_rolls_crawford

    def _act_on_board_alone(self, now: float) -> list[Send]:
        """The latest board puts me on turn, nothing has answered it for ``settle`` seconds
        (``crawford_settle`` for a roll in the Crawford game) and no prompt came: do what the
        board asks (roll, double or roll, move, or answer the pending double)."""
        fb = self.board
        wait = self._board_alone_wait()
        if fb is None or wait is None or now - self._board_at < wait:
            return []
        q = fb.question
        st = fb.state
        if q == "take_or_drop":
            need = Need.TAKE
        elif q == "move":
            need = Need.MOVE
        else:
            need = Need.CUBE if st.may_double(st.player_to_act) else Need.ROLL
        # nobody may double in the Crawford game: no prompt is due there, only a roll
        crawford = self._crawford_roll(fb)
        if not crawford:
            log.info("the board puts me on turn (%s) and no prompt came for %.0f s; acting "
                     "on the board", need.value, wait)
        self.need = need
        out = self._act()
        if crawford and any(s.text == "roll" for s in out):
            self._last_roll_alone = True
            out = [replace(s, answers=self._serial) if s.text == "roll" else s for s in out]
        return out

    def stale(self, send: Send) -> bool:
        """Whether ``send`` answers a board that a newer one has replaced (it is then not
        sent, and the newest board may be acted on again)."""
        if not send.answers or send.answers == self._serial:
            return False
        if self._acted < self._serial:
            self._acted_raw = ""
        self._last_roll_alone = False
        log.debug("not sending %r: a newer board came first", send.text)
        return True

    # --- login and settings ------------------------------------------------------------
    def _on_login_prompt(self, _ev: clip.LoginPrompt) -> list[Send]:
        if self.logged_in:
            self._note(logging.WARNING, "stray login", "the server sent a login prompt after "
                       "the login; ignored")
            return []
        if self._login_sent:
            log.error("login refused for %s (bad name or password)", self.config.user)
            self.stop_reason = ExitReason.LOGIN_FAILED
            self._stopping = True
            return []
        self._login_sent = True
        return [Send(clip.format_login(self.config.client_name, self.config.user,
                                       self.__password))]

    def login_text(self) -> str:
        """The login command with the password masked (for logs)."""
        return clip.format_login(self.config.client_name, self.config.user, "****")

    def mask(self, text: str) -> str:
        """``text`` with every occurrence of the password replaced by ``****``."""
        pw = self.__password
        return text.replace(pw, "****") if pw and pw in text else text

    def _on_welcome(self, ev: clip.Welcome) -> list[Send]:
        if self.logged_in:
            self._note(logging.WARNING, "stray login", "the server welcomed %s again after the "
                       "login; ignored", ev.name)
            return []
        self.logged_in = True
        self.logins += 1
        log.info("logged in as %s", ev.name)
        return [Send("set boardstyle 3")]

    def _on_own_info(self, ev: clip.OwnInfo) -> list[Send]:
        if self._settings_sent:
            return []
        self._settings_sent = True
        want = {"ready": True, "notify": False, "report": False, "silent": True,
                "moreboards": True, "double": True, "greedy": False, "automove": False,
                "autoboard": True}
        out = []
        for key, on in want.items():
            try:
                if ev.flag(key) != on:
                    out.append(Send(f"toggle {key}"))
            except (ValueError, IndexError):
                continue
        return out

    # --- match start (invitations: Lobby) -------------------------------------------------
    def _start_match(self, name: str, length: int | None, resumed: bool) -> list[Send]:
        if not resumed and length is not None and not 0 <= length <= MAX_MATCH_LENGTH:
            self._note(logging.WARNING, "match length", "the server gives the match with %s "
                       "as %s; waiting for its boards", name, length_text(length))
            length = None
        # a remembered length the bot does not play is only a guess until the server (its
        # match length line or a board) says the length: that decides whether to play
        known = length is not None and not (
            resumed and self.length_refusal(length, resume=True) is not None)
        self.match = MatchInPlay(name, length or 0, length_known=known, resumed=resumed)
        self._resume_ref = self.saved_scores.get(name) if resumed else None
        self._resume_points = [None, None]
        self._match_notes = set()
        self.saved.pop(name, None)
        self.saved_scores.pop(name, None)
        self._invited_at.pop(name, None)
        self._invite_wait.pop(name, None)
        self._defer_until.pop(name, None)
        self.need = None
        self.board = None
        self._resyncs = 0
        self._game_ended = False
        self._unreadable_at = None
        self._leaving = None
        self.recorder = MatchRecorder(self.config.user) \
            if self.config.record_dir and not resumed else None
        if not known:
            log.info("%s the match with %s", "resumed" if resumed else "started", name)
        else:
            log.info("%s %s with %s", "resumed" if resumed else "started",
                     f"{length} point match" if length else "unlimited match", name)
        if self.config.greeting and not resumed:
            return [Send(f"kibitz {self.config.greeting}")]
        return []

    def _on_match_start(self, ev: clip.MatchStart) -> list[Send]:
        return self._start_match(ev.name, ev.length, resumed=False)

    def _on_match_resumed(self, ev: clip.MatchResumed) -> list[Send]:
        out = self._start_match(ev.name, self.saved.get(ev.name), resumed=True)
        self._resync = True
        return out

    def _on_match_length(self, ev: clip.MatchLengthInfo) -> list[Send]:
        if self.match is None:
            return []
        if not 0 <= ev.length <= MAX_MATCH_LENGTH:
            self._note(logging.WARNING, "match length", "ignoring the server's match length "
                       "of %s for the match with %s", length_text(ev.length),
                       self.match.opponent)
            return []
        return self._learn_length(ev.length, "the server")

    def _learn_length(self, length: int, source: str) -> list[Send]:
        """The match in play is ``length`` points long (0 = unlimited), as ``source`` says:
        it replaces what the bot thought, and a resumed match of a length the bot does not
        play is left."""
        m = self.match
        if m is None or (m.length_known and m.length == length):
            return []
        if m.length_known:
            self._note(logging.WARNING, "length", "%s gives the match with %s as %s, not %s; "
                       "following the server", source, m.opponent, length_text(length),
                       length_text(m.length))
        else:
            log.info("the match with %s is %s", m.opponent,
                     f"{length} points long" if length else "unlimited")
        m.length, m.length_known = length, True
        why = self.length_refusal(length, resume=True) if m.resumed else None
        if why is not None:
            return self._leave_match(f"a resumed {length_text(length)} match: {why}")
        return []

    def _on_points_for(self, ev: clip.PointsFor) -> list[Send]:
        m = self.match
        if m is None or not m.resumed:
            return []
        pts = min(MAX_SCORE, ev.points)
        if ev.name == self.config.user:
            self._resume_points[0] = pts
        elif ev.name == m.opponent:
            self._resume_points[1] = pts
        a, b = self._resume_points
        if a is not None and b is not None:
            self._check_resumed_score((a, b))
            m.score, m.score_known = (a, b), True
        return []

    def _check_resumed_score(self, score: tuple[int, int]) -> None:
        """The first score the server gives a resumed match: warn when it is not the score
        the match was saved at (the server's is followed)."""
        ref, self._resume_ref = self._resume_ref, None
        m = self.match
        if ref is not None and m is not None and score != ref:
            self._note(logging.WARNING, "resumed score", "the server resumed the match with %s "
                       "at %d-%d, but it was %d-%d when saved; following the server's score",
                       m.opponent, *score, *ref)

    def _leave_match(self, why: str) -> list[Send]:
        """Stop the match in play with ``leave`` (the server saves it), once."""
        m = self.match
        if m is None or self._leaving is not None:
            return []
        self._leaving = self._now
        self.need = None
        self._left_at[m.opponent] = self._now       # no resume before resume_cooldown
        self._note(logging.WARNING, "leaving", "leaving the match with %s (the server saves "
                   "it): %s", m.opponent, why)
        return [Send("leave")]

    def _warn_once(self, key: str, msg: str, *args: object) -> None:
        """A warning logged once per match for ``key``."""
        if key in self._match_notes:
            return
        if len(self._match_notes) < 100:
            self._match_notes.add(key)
        self._note(logging.WARNING, key.split(":", 1)[0], msg, *args)

    def _on_new_game(self, _ev: clip.NewGame) -> list[Send]:
        self.need = None
        self._resyncs = 0
        self._resign_waiting = None
        self._game_ended = False
        self._boundary = True
        return []

    # --- turn flow ----------------------------------------------------------------------
    def _set_need(self, need: Need | None) -> list[Send]:
        self.need = need
        self._game_ended = False
        return self._act()

    def _on_your_turn_to_move(self, _ev: clip.YourTurnToMove) -> list[Send]:
        return self._set_need(Need.MOVE)

    def _on_roll_or_double(self, _ev: clip.RollOrDouble) -> list[Send]:
        return self._set_need(Need.CUBE) or self._ask_board("double_or_roll")

    def _on_rolled(self, ev: clip.Rolled) -> list[Send]:
        return self._set_need(Need.MOVE) if ev.name is None else []

    def _on_please_move(self, _ev: clip.PleaseMove) -> list[Send]:
        return self._set_need(Need.MOVE) or self._ask_board("move")

    def _ask_board(self, question: str) -> list[Send]:
        """The server waits for me but my latest board does not show it: ask once."""
        fb = self.board
        if self.need is None or self._board_asked or self.match is None or (
                fb is not None and fb.me_player1 and fb.question == question):
            return []
        self._board_asked = True
        return [Send("board")]

    def _on_cant_move(self, ev: clip.CantMove) -> list[Send]:
        if ev.name is None:
            self.need = None
        return []

    def _on_doubles(self, ev: clip.Doubles) -> list[Send]:
        return self._set_need(Need.TAKE) if ev.must_answer else []

    def _on_board(self, ev: clip.BoardLine) -> list[Send]:
        if ev.board is None:
            if ev.problem:
                self.malformed += 1
                self._note(logging.WARNING, "malformed board", "ignoring a malformed board "
                           "line: %s", ev.problem[:300])
                return self._unreadable(ev.raw)
            return []
        fb = ev.board
        if "You" not in fb.names:
            self._note(logging.WARNING, "other board", "ignoring a board of other players: %s",
                       ev.raw[:120])
            return []
        self._unreadable_at = None
        self.board = fb
        self._board_raw = ev.raw
        self._board_asked = False
        self._board_at = self._now
        self._serial += 1
        mine = fb.names[0] == "You"
        opp = fb.names[1] if mine else fb.names[0]
        score = fb.score if mine else (fb.score[1], fb.score[0])
        out: list[Send] = []
        if self.match is None:
            self.match = MatchInPlay(opp, fb.match_length, score=score, score_known=True)
            self._match_notes = set()
            self.saved.pop(opp, None)
            self.saved_scores.pop(opp, None)
        else:
            out = self._follow_board(fb, opp, score)
        if ev.repaired:
            self._warn_once("rule:" + ev.repaired, "the server's board breaks a rule (%s); "
                            "playing the server's board", ev.repaired)
        if out or self._leaving is not None:
            return out
        if self.recorder is not None and self.match is not None:
            self._recording(lambda r: r.board(fb))
        if self._resync and fb.me_player1:
            self._resync = False
            need: Need | None = {"move": Need.MOVE, "take_or_drop": Need.TAKE,
                                 "double_or_roll": Need.CUBE}[fb.question]
            if need is Need.CUBE and not fb.state.may_double(fb.state.player_to_act):
                need = None            # the server should roll for me (else see settle)
            self._repeat_ok = True
            if need is not None:
                self.need = need
        elif not fb.me_player1:
            self._game_ended = False
            self._acted_raw = ""       # the turn moved on: a later equal board is a new state
            if self.need is not Need.TAKE:
                self.need = None       # the opponent is to act: nothing is asked of me
        return self._act()

    def _follow_board(self, fb: FibsBoard, opp: str, score: tuple[int, int]) -> list[Send]:
        """A board of the match in play (``score`` mine first): where it contradicts what the
        bot has recorded of the match (opponent, length, score), the board replaces it, with
        a warning."""
        m = self.match
        assert m is not None
        if opp != m.opponent:
            self._note(logging.WARNING, "opponent", "the server's board is of a match with %s, "
                       "not %s; following the board", opp, m.opponent)
            m.opponent = opp
        out = self._learn_length(fb.match_length, "the server's board")
        if self._resume_ref is not None:
            self._check_resumed_score(score)
        elif m.score_known and score != m.score and not (
                self._boundary and score[0] >= m.score[0] and score[1] >= m.score[1]):
            # (a score that grew between games is a score line the server did not send)
            self._note(logging.WARNING, "score", "the server's board gives the score %d-%d, "
                       "the bot had %d-%d; following the server", *score, *m.score)
        m.score, m.score_known = score, True
        self._boundary = False
        return out

    def _unreadable(self, raw: str) -> list[Send]:
        """A board line of the match in play that does not decode: leave a match whose
        length the bot does not play at once; others after ``dead_match`` seconds (see
        :meth:`tick`) unless a readable board comes."""
        if self.match is None:
            return []
        if self._unreadable_at is None:
            self._unreadable_at = self._now
        f = raw.split(":")
        length = int(f[3]) if len(f) > 3 and f[3].isdigit() and len(f[3]) < 40 else None
        if length is not None and length != FIBS_MONEY and not 1 <= length <= MAX_MATCH_LENGTH:
            self.match.length, self.match.length_known = TOO_LONG, True   # never resumed
            return self._leave_match(f"its boards give a {length_text(length)} match")
        return []

    def _on_error(self, ev: clip.ServerError) -> list[Send]:
        if ev.kind == "cant_double" and self.match is not None:
            self._note(logging.WARNING, "refused", "server refused my double (%s); rolling",
                       ev.text[:200])
            return [Send("roll")]
        if ev.kind in ("not_your_turn", "already_rolled", "illegal_move"):
            self._note(logging.WARNING, "refused", "server refused my command: %s",
                       ev.text[:200])
            if ev.kind == "already_rolled" and self._last_roll_alone and \
                    not self._server_rolls_crawford:
                self._server_rolls_crawford = True
                log.info("the server rolls for me in the Crawford game; waiting for it there")
            if self.match is not None:
                return self._resync_now()
        elif ev.kind not in ("toggle",):
            self._note(logging.INFO, "server", "server: %s", ev.text[:300])
        return []

    def _resync_now(self) -> list[Send]:
        if self._resyncs >= MAX_RESYNCS:
            return []
        self._resyncs += 1
        self._resync = True
        return [Send("board")]

    def _on_chat(self, ev: clip.Chat) -> list[Send]:
        if ev.kind in ("says", "kibitzes") and self.match is not None and \
                ev.name == self.match.opponent:
            self._note(logging.INFO, "chat", "%s: %s", ev.name, self.mask(ev.text)[:200])
            if ev.text.strip().lower() in NUDGES:
                return self._resync_now()
        return []

    # --- decisions ----------------------------------------------------------------------
    def _act(self) -> list[Send]:
        """Answer the pending request if the latest board is new and agrees with it."""
        need, fb = self.need, self.board
        if need is None or fb is None or self._serial <= self._acted:
            return []
        if self._board_raw == self._acted_raw and not self._repeat_ok:
            return []                  # never act twice on the same board
        if not fb.me_player1:
            if need is Need.TAKE and fb.question == "double_or_roll":
                return self._answer_double(fb, synthesized=True)
            return []
        q = fb.question
        if need is Need.CUBE and not fb.state.may_double(fb.state.player_to_act):
            need = Need.ROLL           # a prompt to double where the board says nobody may
        if need is Need.TAKE and q == "take_or_drop":
            return self._answer_double(fb, synthesized=False)
        if need in (Need.CUBE, Need.ROLL) and q == "double_or_roll" or \
                need is Need.MOVE and q == "move":
            resign = self._maybe_resign(fb)
            if resign:
                return resign
            if need is Need.ROLL:
                self._done()
                return self._decided("cube", "roll")
            return self._cube(fb) if need is Need.CUBE else self._move(fb)
        return []

    def _done(self) -> None:
        self._acted = self._serial
        self._acted_raw = self._board_raw
        self._repeat_ok = False
        self.need = None

    def _maybe_resign(self, fb: FibsBoard) -> list[Send]:
        if not self.config.resign or self._resigned_game == self.games_played:
            return []
        try:
            level = int(self.engine.resign_offer(fb.position, fb.state))
        except Exception:
            log.exception("the engine failed on a resignation question")
            return []
        if level not in (1, 2, 3):
            return []
        self._resigned_game = self.games_played
        self._resign_waiting = self.need
        self._done()
        log.info("offering to resign (%s)", ("single", "gammon", "backgammon")[level - 1])
        return self._decided("resign", f"resign {'ngb'[level - 1]}")

    def _decided(self, kind: str, command: str) -> list[Send]:
        self.decisions.append(Decision(kind, self._board_raw, command))
        if kind == "cube":
            self._last_roll_alone = False
        return [Send(command, self.config.delay)]

    def _cube(self, fb: FibsBoard) -> list[Send]:
        self._done()
        try:
            action = self.engine.cube_action(fb.position, fb.state)
        except Exception:
            log.exception("the engine failed on a cube question; rolling")
            action = "roll"
        if action == "double":
            log.info("doubling (cube %d)", fb.cube_value)
        return self._decided("cube", "double" if action == "double" else "roll")

    def _move(self, fb: FibsBoard) -> list[Send]:
        self._done()
        try:
            play = self.engine.choose_play(fb.position, fb.dice)
        except Exception:
            log.exception("the engine failed to choose a play; using the first legal one")
            plays = fb.position.legal_plays(fb.dice)
            play = plays[0] if plays else None
        if play is None or not play.steps:
            return []          # no legal play: the server passes the turn itself
        return self._decided("move", fibs_move(play, fb.colour))

    def _answer_double(self, fb: FibsBoard, synthesized: bool) -> list[Send]:
        pos: Position
        state: MatchState
        if synthesized:
            # the board before the double: the doubler to act; turn it to my side
            st = fb.state
            pos = fb.position.swapped()
            state = replace(st, double_offered=True, player_to_act=1 - st.player_on_roll)
        else:
            pos, state = fb.position, fb.state
        self._done()
        try:
            answer = self.engine.respond_double(pos, state)
        except Exception:
            log.exception("the engine failed on a take question; taking")
            answer = "take"
        log.info("%s the double to %d", "dropping" if answer == "drop" else "taking",
                 fb.cube_value * 2)
        return self._decided("take", "reject" if answer == "drop" else "accept")

    def _my_view(self) -> tuple[Position, MatchState] | None:
        fb = self.board
        if fb is None:
            return None
        if fb.me_player1:
            return fb.position, fb.state
        st = fb.state
        return fb.position.swapped(), replace(st, player_to_act=1 - st.player_to_act)

    def _on_resign_offer(self, ev: clip.ResignOffer) -> list[Send]:
        view = self._my_view()
        accept = False
        if view is not None:
            pos, state = view
            cube = max(1, state.cube_value)
            level = min(3, max(1, ev.points // cube))
            try:
                accept = bool(self.engine.accept_resignation(pos, state, level))
            except Exception:
                log.exception("the engine failed on a resignation offer; rejecting")
        self._note(logging.INFO, "resignation", "%s the resignation of %s (%d points)",
                   "accepting" if accept else "rejecting", ev.name, min(ev.points, MAX_SCORE))
        return self._decided("accept_resignation", "accept" if accept else "reject")

    def _on_resign_rejected(self, ev: clip.ResignRejected) -> list[Send]:
        if ev.name is not None and self._resign_waiting is not None:
            log.info("%s rejected my resignation; playing on", ev.name)
            self.need = self._resign_waiting
            self._resign_waiting = None
            self._acted = self._serial - 1
            self._repeat_ok = True
            return self._act()
        return []

    # --- game and match end -------------------------------------------------------------
    def _game_over(self, text: str, winner: str, points: int, how: str) -> list[Send]:
        if self.recorder is not None and not self._game_ended:
            self._recording(lambda r: r.game_over(winner, points, how))
        self.need = None
        self._resign_waiting = None
        self._game_ended = True
        self._boundary = True
        self._acted = self._serial
        self.games_played += 1
        if self.match is not None:
            self.match.games += 1
        self._note(logging.INFO, "game over", "game over: %s", text[:200])
        return []

    def _on_game_won(self, ev: clip.GameWon) -> list[Send]:
        return self._game_over(ev.line(), ev.name or "You", ev.points, "bearoff")

    def _on_give_up(self, ev: clip.GiveUp) -> list[Send]:
        return self._game_over(ev.line(), ev.winner or "You", ev.points, "drop")

    def _on_resign_accepted(self, ev: clip.ResignAccepted) -> list[Send]:
        return self._game_over(ev.line(), ev.name or "You", ev.points, "resign")

    def _recording(self, step: Callable[[MatchRecorder], None]) -> None:
        """Feed the match record; a failure there ends the record, never the play."""
        rec = self.recorder
        if rec is None:
            return
        try:
            step(rec)
        except Exception:
            log.exception("the match record failed; no longer recording this match")
            self.recorder = None

    def _write_record(self) -> None:
        """Write the match record, if one is kept, and stop keeping it."""
        rec, self.recorder = self.recorder, None
        if rec is not None:
            self.records += rec.write(self.config.record_dir)

    def _on_score(self, ev: clip.Score) -> list[Send]:
        score = (min(MAX_SCORE, ev.my_score), min(MAX_SCORE, ev.their_score))
        if self.match is not None:
            self.match.score, self.match.score_known = score, True
        self._note(logging.INFO, "score", "%s", ev.line()[:200])
        return []

    def _on_join_prompt(self, _ev: clip.JoinPrompt) -> list[Send]:
        if self.match is None or self._stopping:
            return []
        return [Send("join", self.config.delay)]

    def _on_match_won(self, ev: clip.MatchWon) -> list[Send]:
        m = self.match
        opp = m.opponent if m is not None else (ev.name or "?")
        a, b = (min(MAX_SCORE, v) for v in ev.score)
        score = (a, b) if ev.name is None else (b, a)
        length = ev.length if 0 <= ev.length <= MAX_MATCH_LENGTH else \
            (m.length if m is not None else 0)
        result = MatchResult(opp, length, score)
        self.results.append(result)
        self.matches_played += 1
        self.match = None
        self.need = None
        self._write_record()
        log.info("match over: %s the %d point match against %s %d-%d",
                 "won" if result.won else "lost", length, opp, *score)
        if self.config.max_matches and self.matches_played >= self.config.max_matches:
            log.info("played %d matches; logging out", self.matches_played)
            return self.request_stop(ExitReason.FINISHED)
        return []

    def _on_saved(self, ev: clip.MatchSaved) -> list[Send]:
        return self._opponent_gone(ev.name, ev.line(), left=False)

    def _on_left(self, ev: clip.OpponentLeft) -> list[Send]:
        return self._opponent_gone(ev.name, ev.line(), left=True)

    def _opponent_gone(self, name: str, text: str, left: bool) -> list[Send]:
        if self.match is None or self.match.opponent != name:
            return []
        self._save_match()
        self.match = None
        self.need = None
        self._write_record()
        if left:
            self._left_at[name] = self._now
        log.info("%s", text)
        return []

    def _on_you_left(self, _ev: clip.YouLeft) -> list[Send]:
        if self.match is not None:
            self._save_match()
            self.match = None
            self._write_record()
        return []

    def _on_goodbye(self, _ev: clip.Goodbye) -> list[Send]:
        self.logged_in = False
        return []

    def _on_timed_out(self, _ev: clip.TimedOut) -> list[Send]:
        self.timed_out = True
        self._note(logging.WARNING, "timed out", "the server timed the session out")
        return []

    def _on_already(self, _ev: clip.AlreadyLoggedIn) -> list[Send]:
        self._note(logging.WARNING, "already", "this account was already logged in; the server "
                   "closes the other session")
        return []


_Handler = Callable[[FibsBot, clip.Event], list[Send]]
_HANDLERS: dict[type[clip.Event], _Handler] = {
    clip.LoginPrompt: FibsBot._on_login_prompt,          # type: ignore[dict-item]
    clip.Welcome: FibsBot._on_welcome,                   # type: ignore[dict-item]
    clip.OwnInfo: FibsBot._on_own_info,                  # type: ignore[dict-item]
    clip.WhoInfo: FibsBot._on_who,                       # type: ignore[dict-item]
    clip.WhoEnd: FibsBot._on_who_end,                    # type: ignore[dict-item]
    clip.UserLogout: FibsBot._on_logout,                 # type: ignore[dict-item]
    clip.Invitation: FibsBot._on_invitation,             # type: ignore[dict-item]
    clip.MatchStart: FibsBot._on_match_start,            # type: ignore[dict-item]
    clip.MatchResumed: FibsBot._on_match_resumed,        # type: ignore[dict-item]
    clip.MatchLengthInfo: FibsBot._on_match_length,      # type: ignore[dict-item]
    clip.PointsFor: FibsBot._on_points_for,              # type: ignore[dict-item]
    clip.NewGame: FibsBot._on_new_game,                  # type: ignore[dict-item]
    clip.YourTurnToMove: FibsBot._on_your_turn_to_move,  # type: ignore[dict-item]
    clip.RollOrDouble: FibsBot._on_roll_or_double,       # type: ignore[dict-item]
    clip.Rolled: FibsBot._on_rolled,                     # type: ignore[dict-item]
    clip.PleaseMove: FibsBot._on_please_move,            # type: ignore[dict-item]
    clip.CantMove: FibsBot._on_cant_move,                # type: ignore[dict-item]
    clip.Doubles: FibsBot._on_doubles,                   # type: ignore[dict-item]
    clip.BoardLine: FibsBot._on_board,                   # type: ignore[dict-item]
    clip.ServerError: FibsBot._on_error,                 # type: ignore[dict-item]
    clip.Chat: FibsBot._on_chat,                         # type: ignore[dict-item]
    clip.ResignOffer: FibsBot._on_resign_offer,          # type: ignore[dict-item]
    clip.ResignRejected: FibsBot._on_resign_rejected,    # type: ignore[dict-item]
    clip.GameWon: FibsBot._on_game_won,                  # type: ignore[dict-item]
    clip.GiveUp: FibsBot._on_give_up,                    # type: ignore[dict-item]
    clip.ResignAccepted: FibsBot._on_resign_accepted,    # type: ignore[dict-item]
    clip.Score: FibsBot._on_score,                       # type: ignore[dict-item]
    clip.JoinPrompt: FibsBot._on_join_prompt,            # type: ignore[dict-item]
    clip.MatchWon: FibsBot._on_match_won,                # type: ignore[dict-item]
    clip.MatchSaved: FibsBot._on_saved,                  # type: ignore[dict-item]
    clip.OpponentLeft: FibsBot._on_left,                 # type: ignore[dict-item]
    clip.YouLeft: FibsBot._on_you_left,                  # type: ignore[dict-item]
    clip.Goodbye: FibsBot._on_goodbye,                   # type: ignore[dict-item]
    clip.TimedOut: FibsBot._on_timed_out,                # type: ignore[dict-item]
    clip.AlreadyLoggedIn: FibsBot._on_already,           # type: ignore[dict-item]
    clip.SavedHeader: FibsBot._on_saved_header,          # type: ignore[dict-item]
    clip.SavedMatchRow: FibsBot._on_saved_row,           # type: ignore[dict-item]
    clip.NoSavedGames: FibsBot._on_no_saved,             # type: ignore[dict-item]
}


__all__ = [
    "MAX_RESYNCS", "MAX_SAVED", "MAX_WHO", "NUDGES", "BotConfig", "Decision", "ExitReason",
    "FibsBot", "MatchResult", "Need", "Send", "fibs_move", "fibs_point", "fibs_steps",
]
