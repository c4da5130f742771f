"""The FIBS bot's lobby: the who list, the saved matches it knows of, and its invitation
policy (whom to invite and when, which invitations to accept, which match lengths to believe
and to play)."""

from __future__ import annotations

import logging
from dataclasses import replace

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.bot_types import (
    MAX_EXPERIENCE,
    MAX_RATING,
    MAX_SAVED,
    MAX_SCORE,
    MAX_WHO,
    TOO_LONG,
    BotConfig,
    LogThrottle,
    MatchInPlay,
    Send,
)
from gbot.core.limits import MAX_MATCH_LENGTH

log = logging.getLogger("gbot.fibs")


class Lobby:
    """The who, saved-match and invitation handlers of :class:`gbot.adapters.fibs.bot.FibsBot`
    (the state they use is the bot's, set up by its constructor and
    :meth:`~gbot.adapters.fibs.bot.FibsBot.connected`)."""

    config: BotConfig
    saved: dict[str, int]
    saved_scores: dict[str, tuple[int, int]]
    throttle: LogThrottle
    match: MatchInPlay | None
    logged_in: bool
    _stopping: bool
    _now: float
    _who: dict[str, clip.WhoInfo]
    _who_ready: bool
    _left_at: dict[str, float]
    _invited_at: dict[str, float]
    _invite_wait: dict[str, float]
    _defer_until: dict[str, float]
    _listed_before: dict[str, tuple[int, int]]

    def _note(self, level: int, kind: str, msg: str, *args: object) -> None:
        """Log through the bot's :class:`LogThrottle` (at most a few lines of a kind a
        minute)."""
        self.throttle.log(self._now, level, kind, msg, *args)

    def restore_saved(self, saved: dict[str, int],
                      scores: dict[str, tuple[int, int]] | None = None) -> None:
        """Remember the saved matches ``{opponent: length}`` and their scores (mine first;
        from a state file)."""
        for name, length in saved.items():
            self._remember_saved(name, length, (scores or {}).get(name))

    def _on_who(self, ev: clip.WhoInfo) -> list[Send]:
        if ev.name == self.config.user:
            return []
        r = ev.rating
        rating = min(MAX_RATING, max(0.0, r)) if r == r else 0.0      # NaN: 0
        experience = min(MAX_EXPERIENCE, max(0, ev.experience))
        if (rating, experience) != (ev.rating, ev.experience):
            self._note(logging.WARNING, "who numbers", "the who line of %s gives rating %s and "
                       "experience %s; believing %.2f and %d", ev.name, str(ev.rating)[:20],
                       str(ev.experience)[:20], rating, experience)
            ev = replace(ev, rating=rating, experience=experience)
        if ev.name in self._who or len(self._who) < MAX_WHO:
            self._who[ev.name] = ev
        return self._maybe_invite(ev.name) if self._who_ready else []

    def _on_who_end(self, _ev: clip.WhoEnd) -> list[Send]:
        if self._who_ready:
            return []
        self._who_ready = True
        out: list[Send] = [Send("show saved")]
        for name in list(self._who):
            out += self._maybe_invite(name)
        return out

    def _on_saved_header(self, _ev: clip.SavedHeader) -> list[Send]:
        # the server's list follows: it, not my memory, says which matches are saved
        self._listed_before = dict(self.saved_scores)
        self.saved.clear()
        self.saved_scores.clear()
        return []

    def _on_no_saved(self, _ev: clip.NoSavedGames) -> list[Send]:
        self.saved.clear()
        self.saved_scores.clear()
        return []

    def _on_saved_row(self, ev: clip.SavedMatchRow) -> list[Send]:
        if self.match is not None and self.match.opponent == ev.name:
            return []
        score = (min(MAX_SCORE, ev.my_points), min(MAX_SCORE, ev.their_points))
        before = self._listed_before.pop(ev.name, None)
        if before is not None and before != score:
            self._note(logging.WARNING, "saved score", "the server lists the saved match with "
                       "%s at %d-%d, but it was %d-%d when saved; following the server",
                       ev.name, *score, *before)
        self._remember_saved(ev.name, ev.length, score)
        length = self.saved[ev.name]
        self._note(logging.INFO, "saved match", "saved match with %s: %s, %d-%d", ev.name,
                   length_text(length), *score)
        return self._maybe_invite(ev.name) if self._who_ready else []

    def _invite_someone(self) -> list[Send]:
        """Invite the first saved-match opponent or listed player who is free and due."""
        for name in [*self.saved, *(n for n, _ in self.config.invites)]:
            out = self._maybe_invite(name)
            if out:
                return out
        return []

    def _on_logout(self, ev: clip.UserLogout) -> list[Send]:
        self._who.pop(ev.name, None)
        return []

    def _maybe_invite(self, name: str) -> list[Send]:
        """Invite ``name`` to resume a saved match, or as configured, when both are free."""
        if self.match is not None or self._stopping or not self.logged_in:
            return []
        who = self._who.get(name)
        if who is None or who.opponent is not None:
            return []
        length: int | None = None
        if name in self.saved:
            left = self._left_at.get(name)
            if left is not None and self._now - left < self.config.resume_cooldown:
                return []
            length = self.saved[name]
            if self.length_refusal(length, resume=True) is not None:
                return []      # any invitation would resume that match: none at all
        else:
            for n, ln in self.config.invites:
                if n == name and who.ready and 0 <= ln <= MAX_MATCH_LENGTH:
                    length = ln
        if length is None:
            return []
        last = self._invited_at.get(name)
        wait = self._invite_wait.get(name, self.config.invite_interval)
        if last is None and name in self.saved and self.config.user > name:
            # both sides may be bots that resume: the name that sorts first invites at
            # once, the other a little later (so that the two invitations do not cross)
            until = self._defer_until.setdefault(name, self._now + self.config.resume_defer)
            if self._now < until:
                return []
        if last is not None:
            if self._now - last < wait:
                return []
            self._invite_wait[name] = min(self.config.invite_backoff_max, wait * 2)
        self._invited_at[name] = self._now
        log.info("inviting %s (%s)", name,
                 "saved match" if name in self.saved else f"{length or 'unlimited'} points")
        return [Send(f"invite {name} {length}" if length else f"invite {name} unlimited")]

    def _remember_saved(self, name: str, length: int,
                        score: tuple[int, int] | None = None) -> None:
        """Remember a saved match; a length beyond any gbot plays is kept as
        :data:`TOO_LONG` (so the match is never resumed)."""
        if name not in self.saved and len(self.saved) >= MAX_SAVED:
            old = next(iter(self.saved))
            self.saved.pop(old)
            self.saved_scores.pop(old, None)
        self.saved[name] = length if 0 <= length <= MAX_MATCH_LENGTH else TOO_LONG
        why = self.length_refusal(self.saved[name], resume=True)
        if why is not None:
            self._note(logging.WARNING, "not resuming", "the saved match with %s will not be "
                       "resumed: %s", name, why)
        if score is not None:
            self.saved_scores[name] = (min(MAX_SCORE, max(0, score[0])),
                                       min(MAX_SCORE, max(0, score[1])))

    def length_refusal(self, length: int, resume: bool) -> str | None:
        """Why a match of ``length`` points (0 = unlimited) is not played, or None: lengths
        beyond :data:`~gbot.core.limits.MAX_MATCH_LENGTH`, beyond ``max_length`` (new
        matches and resumed ones alike), and new unlimited sessions without ``unlimited``."""
        cfg = self.config
        if not 0 <= length <= MAX_MATCH_LENGTH:
            return f"{length_text(length)} is beyond the {MAX_MATCH_LENGTH} points gbot plays"
        if length == 0:
            return None if resume or cfg.unlimited else "no unlimited matches"
        if cfg.max_length and length > cfg.max_length:
            return f"matches up to {cfg.max_length} points only"
        return None

    def accepts(self, name: str, length: int, resume: bool) -> str | None:
        """Why an invitation from ``name`` is declined, or None to accept it (a resumed
        match of unknown length is accepted; its length is checked once the server says
        it)."""
        cfg = self.config
        if self.match is not None:
            return "busy"
        if self._stopping:
            return "logging out"
        if name in cfg.deny or (cfg.allow and name not in cfg.allow):
            return "not on the list"
        if resume:
            known = self.saved.get(name)
            why = None if known is None else self.length_refusal(known, resume=True)
            return None if why is None else f"the saved match: {why}"
        return self.length_refusal(length, resume=False)

    def _on_invitation(self, ev: clip.Invitation) -> list[Send]:
        why = self.accepts(ev.name, ev.length, ev.resume or ev.name in self.saved)
        what = "a saved match" if ev.resume else (
            f"a {length_text(ev.length)} match" if ev.length else "an unlimited match")
        if why is not None:
            self._note(logging.INFO, "declined", "declined %s from %s: %s", what, ev.name, why)
            return []
        log.info("accepting %s from %s", what, ev.name)
        return [Send(f"join {ev.name}", self.config.delay)]


def length_text(length: int) -> str:
    """``N points``, ``unlimited``, or a bounded text for an absurd length."""
    if length == 0:
        return "unlimited"
    if length == TOO_LONG:
        return f"longer than {MAX_MATCH_LENGTH} points"
    text = str(length)
    return f"{text if len(text) <= 12 else text[:12] + '...'} points"


__all__ = ["Lobby", "length_text"]
