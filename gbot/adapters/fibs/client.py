"""The FIBS bot: a CLIP client state machine (:class:`FibsBot`) and its socket loop.

The state machine lives in :mod:`gbot.adapters.fibs.bot` (its names are importable from here
too); this module owns the socket loop.

:class:`FibsBot` does no I/O. It takes server lines (:meth:`FibsBot.handle_line`) and clock
ticks (:meth:`FibsBot.tick`) and answers with :class:`Send` commands; every game decision
comes from :class:`gbot.engine.engine.Engine`, the same engine the gnubg external-player server
uses. :func:`run_bot` connects, frames lines with :class:`gbot.adapters.fibs.clip.LineSplitter`,
paces the replies, masks the password in every log record, keeps the saved matches in a
:class:`SavedStore` file when given one, and reconnects with backoff after a dropped
connection (the server saves the match; the bot invites the opponent again to resume it).
:func:`fibs_move` writes a :class:`gbot.Play` in FIBS's absolute point numbering.

How the bot avoids acting twice: prompt lines (``It's your turn. Please roll or double.``,
``You roll ...``, ``Please move ...``, ``... doubles ...``) set what the server waits for;
``board:`` lines carry the state. The bot acts when a board that arrived after its last action
agrees with the pending request, and then clears the request. A server that puts the bot on
turn with a board and no prompt (BaldLies in the Crawford game sends no prompt and does not
roll) is answered from the board alone once ``settle`` seconds pass without a newer one
(``crawford_settle`` for a roll in the Crawford game, where no prompt is due; that ``roll``
is dropped if a newer board comes before it is sent), and a watchdog asks for the board
(``board``) when a match has been quiet for ``stall`` seconds.

Saved matches: the bot remembers those it saw saved (with their scores), asks the server
(``show saved``) after every login, and invites a saved-match opponent (or one named by
``invites``) when both are free, again on a timer with growing waits while the invitation is
not taken up.

Servers that break the rules: boards that do are played as sent (see
:data:`gbot.adapters.fibs.clip.REPAIRS`), numbers from the server are capped, repeated
warnings go through a :class:`~gbot.adapters.fibs.bot_types.LogThrottle`, and a match whose
boards stay unreadable is left (``docs/fibs.md``).
"""

from __future__ import annotations

import json
import logging
import os
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.bot import MAX_RESYNCS as MAX_RESYNCS
from gbot.adapters.fibs.bot import (
    MAX_SAVED,
    BotConfig,
    Decision,
    ExitReason,
    FibsBot,
    MatchResult,
    Need,
    Send,
    fibs_move,
    fibs_point,
    fibs_steps,
)
from gbot.adapters.fibs.bot import MAX_WHO as MAX_WHO
from gbot.adapters.fibs.bot import NUDGES as NUDGES
from gbot.adapters.fibs.bot_types import MAX_SCORE

log = logging.getLogger("gbot.fibs")


# =========================================================================== the socket loop


@dataclass
class Reconnect:
    """Reconnection policy: waits grow from ``first`` by ``factor`` up to ``longest``
    seconds; give up after ``tries`` failed attempts in a row (0 = never reconnect)."""

    tries: int = 10
    first: float = 1.0
    factor: float = 2.0
    longest: float = 120.0

    def wait(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        return float(min(self.longest, self.first * self.factor ** max(0, attempt - 1)))


@dataclass
class _Outbox:
    queue: deque[tuple[float, Send]] = field(default_factory=deque)
    last_due: float = 0.0

    def add(self, now: float, sends: list[Send]) -> None:
        for s in sends:
            due = max(now + s.delay, self.last_due)
            self.last_due = due
            self.queue.append((due, s))

    def due(self, now: float) -> list[Send]:
        out = []
        while self.queue and self.queue[0][0] <= now:
            out.append(self.queue.popleft()[1])
        return out


def _masked(bot: FibsBot, text: str) -> str:
    return bot.login_text() if text.startswith("login ") else bot.mask(text)


class _Masking(logging.Filter):
    """Replaces the bot's password in every record of the logger it is attached to."""

    def __init__(self, bot: FibsBot) -> None:
        super().__init__()
        self._bot = bot

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        masked = self._bot.mask(msg)
        if masked != msg:
            record.msg, record.args = masked, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._bot.mask(record.exc_text)
        return True


class SavedStore:
    """The bot's saved matches in a JSON file (``{"saved": {"NAME": LENGTH}, "scores":
    {"NAME": [MINE, THEIRS]}}``), so that a restarted bot still knows whom to invite when the
    server cannot list them, and at what score each match was saved."""

    def __init__(self, path: str | Path) -> None:
        """A store at ``path`` (created on the first save)."""
        self.path = Path(path)

    def load(self) -> dict[str, int]:
        """The saved matches in the file; an absent or unreadable file holds none."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("cannot read saved matches from %s: %s", self.path, exc)
            return {}
        saved = data.get("saved") if isinstance(data, dict) else None
        if not isinstance(saved, dict):
            log.warning("%s holds no saved matches ({\"saved\": {...}} expected)", self.path)
            return {}
        out: dict[str, int] = {}
        for name, length in list(saved.items())[:MAX_SAVED]:
            if isinstance(name, str) and clip.is_name(name) and _is_int(length) \
                    and 0 <= length <= 9999:
                out[name] = length
        return out

    def load_scores(self) -> dict[str, tuple[int, int]]:
        """The score of each saved match in the file (mine first); none when unreadable."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        scores = data.get("scores") if isinstance(data, dict) else None
        out: dict[str, tuple[int, int]] = {}
        for name, pair in list(scores.items())[:MAX_SAVED] if isinstance(scores, dict) else ():
            if isinstance(name, str) and clip.is_name(name) and isinstance(pair, list) and \
                    len(pair) == 2 and all(_is_int(v) and 0 <= v <= MAX_SCORE for v in pair):
                out[name] = (pair[0], pair[1])
        return out

    def save(self, saved: dict[str, int],
             scores: dict[str, tuple[int, int]] | None = None) -> None:
        """Write ``saved`` (and the ``scores`` of those matches) atomically; a failure is
        logged, not raised."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        data: dict[str, object] = {"saved": dict(saved)}
        if scores:
            data["scores"] = {n: list(v) for n, v in scores.items() if n in saved}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("cannot write saved matches to %s: %s", self.path, exc)


class _Saver:
    """Writes the bot's saved matches to a :class:`SavedStore` whenever they change."""

    def __init__(self, bot: FibsBot, store: SavedStore | None) -> None:
        self.bot, self.store = bot, store
        self.last = (dict(bot.saved), dict(bot.saved_scores))

    def check(self) -> None:
        now = (self.bot.saved, self.bot.saved_scores)
        if self.store is not None and now != self.last:
            self.last = (dict(now[0]), dict(now[1]))
            self.store.save(*self.last)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _readable(sock: socket.socket) -> bool:
    """Whether input is waiting on ``sock`` (False on a socket error: the read reports it)."""
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def _session(bot: FibsBot, sock: socket.socket, stop: threading.Event,
             clock: Callable[[], float], saver: _Saver | None = None) -> None:
    """Serve one connection until it closes (or the bot has logged out)."""
    splitter = clip.LineSplitter()
    out = _Outbox()
    sock.setblocking(False)
    stop_sent = False
    bye_at: float | None = None
    last_tick = -1e9
    while True:
        now = clock()
        if stop.is_set() and not stop_sent:
            stop_sent = True
            out.add(now, bot.request_stop(ExitReason.INTERRUPTED))
        if bot.stopping and bye_at is None:
            bye_at = now
        if bye_at is not None and now - bye_at > 5.0:
            return                                  # the server did not close: we do
        # timers run on a drained socket: a late process must not act on a board that
        # lines already waiting (a roll, a prompt) have made stale
        if now - last_tick > 2.0 or not _readable(sock):
            last_tick = now
            out.add(now, bot.tick(now))
        if saver is not None:
            saver.check()
        for send in out.due(now):
            if bot.stale(send):
                continue
            text = send.text
            log.debug("> %s", _masked(bot, text))
            try:
                sock.sendall(text.encode("latin-1", "replace") + b"\r\n")
            except OSError:
                return
        if bot.stop_reason is ExitReason.LOGIN_FAILED:
            return
        wait = 0.2
        if out.queue:
            wait = max(0.0, min(wait, out.queue[0][0] - now))
        due = bot.wake_at()
        if due is not None and due > now:
            wait = min(wait, due - now + 0.001)
        try:
            ready, _, _ = select.select([sock], [], [], wait)
        except (OSError, ValueError):
            return
        if not ready:
            continue
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            continue
        except OSError:
            return
        if not data:
            return
        before = splitter.truncated
        for line in splitter.feed(data):
            log.debug("< %s", bot.mask(line)[:500])
            out.add(clock(), bot.handle_line(line, clock()))
        if splitter.truncated != before:
            bot.throttle.log(clock(), logging.WARNING, "long line",
                             "cut %d over-long server line(s)", splitter.truncated - before)


def run_bot(bot: FibsBot, host: str, port: int, *, reconnect: Reconnect | None = None,
            stop: threading.Event | None = None, clock: Callable[[], float] = time.monotonic,
            connect_timeout: float = 10.0, store: SavedStore | None = None) -> ExitReason:
    """Run ``bot`` against the server at ``host:port`` until it stops; returns why.

    A dropped connection is retried with ``reconnect``'s backoff (a successful login resets
    the count); ``stop`` asks for a clean logout from another thread. ``store`` keeps the
    saved matches across restarts (read once here, written whenever they change). While it
    runs, the password is masked in every record of the ``gbot.fibs`` logger.
    """
    masking = _Masking(bot)
    log.addFilter(masking)
    try:
        if store is not None:
            bot.restore_saved(store.load(), store.load_scores())
        return _run(bot, host, port, reconnect, stop, clock, connect_timeout,
                    _Saver(bot, store))
    finally:
        log.removeFilter(masking)


def _run(bot: FibsBot, host: str, port: int, reconnect: Reconnect | None,
         stop: threading.Event | None, clock: Callable[[], float], connect_timeout: float,
         saver: _Saver) -> ExitReason:
    policy = reconnect or Reconnect()
    stop = stop or threading.Event()
    failures = 0
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=connect_timeout)
            try:        # one short command at a time: never wait to fill a segment
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        except OSError as exc:
            failures += 1
            log.warning("cannot connect to %s:%d (%s)", host, port, exc)
        else:
            bot.connected(clock())
            log.info("connected to %s:%d", host, port)
            logins_before = bot.logins
            try:
                _session(bot, sock, stop, clock, saver)
            except Exception:
                log.exception("internal error in the session")
                bot.stop_reason = bot.stop_reason or ExitReason.ERROR
            finally:
                try:
                    sock.close()
                except OSError:
                    pass
            bot.disconnected()
            saver.check()
            if bot.stop_reason is not None:
                log.info("stopped: %s", bot.stop_reason.name.lower().replace("_", " "))
                return bot.stop_reason
            if stop.is_set():
                return ExitReason.INTERRUPTED
            log.warning("connection to %s:%d closed", host, port)
            if policy.tries == 0:
                return ExitReason.TIMED_OUT if bot.timed_out else ExitReason.CONNECTION_LOST
            failures = 0 if bot.logins > logins_before else failures + 1
        if policy.tries == 0 or failures >= policy.tries:
            log.error("giving up after %d failed connection attempts", failures)
            return ExitReason.CONNECTION_LOST
        pause = policy.wait(max(1, failures))
        if stop.wait(pause):
            return ExitReason.INTERRUPTED


__all__ = [
    "BotConfig", "Decision", "ExitReason", "FibsBot", "MatchResult", "Need", "Reconnect",
    "SavedStore", "Send", "fibs_move", "fibs_point", "fibs_steps", "run_bot",
]
