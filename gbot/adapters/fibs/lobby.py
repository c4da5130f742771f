"""The FIBS bot's lobby: the who list, the saved matches it knows of, and its invitation
policy (whom to invite and when, which invitations to accept)."""

from __future__ import annotations

import logging

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.bot_types import MAX_SAVED, MAX_WHO, BotConfig, MatchInPlay, Send

log = logging.getLogger("gbot.fibs")


class Lobby:
    """The who, saved-match and invitation handlers of :class:`gbot.adapters.fibs.bot.FibsBot`
    (the state they use is the bot's, set up by its constructor and
    :meth:`~gbot.adapters.fibs.bot.FibsBot.connected`)."""

    config: BotConfig
    saved: dict[str, int]
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

    def restore_saved(self, saved: dict[str, int]) -> None:
        """Remember the saved matches ``{opponent: length}`` (from a state file)."""
        for name, length in saved.items():
            self._remember_saved(name, length)

    def _on_who(self, ev: clip.WhoInfo) -> list[Send]:
        if ev.name == self.config.user:
            return []
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
        self.saved.clear()
        return []

    def _on_no_saved(self, _ev: clip.NoSavedGames) -> list[Send]:
        self.saved.clear()
        return []

    def _on_saved_row(self, ev: clip.SavedMatchRow) -> list[Send]:
        if self.match is not None and self.match.opponent == ev.name:
            return []
        self._remember_saved(ev.name, ev.length)
        log.info("saved match with %s: %s, %d-%d", ev.name,
                 f"{ev.length} points" if ev.length else "unlimited", ev.my_points,
                 ev.their_points)
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
        else:
            for n, ln in self.config.invites:
                if n == name and who.ready:
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

    def _remember_saved(self, name: str, length: int) -> None:
        if name not in self.saved and len(self.saved) >= MAX_SAVED:
            self.saved.pop(next(iter(self.saved)))
        self.saved[name] = length

    def accepts(self, name: str, length: int, resume: bool) -> str | None:
        """Why an invitation from ``name`` is declined, or None to accept it."""
        cfg = self.config
        if self.match is not None:
            return "busy"
        if self._stopping:
            return "logging out"
        if name in cfg.deny or (cfg.allow and name not in cfg.allow):
            return "not on the list"
        if resume:
            return None
        if length == 0 and not cfg.unlimited:
            return "no unlimited matches"
        if length and cfg.max_length and length > cfg.max_length:
            return f"matches up to {cfg.max_length} points only"
        return None

    def _on_invitation(self, ev: clip.Invitation) -> list[Send]:
        why = self.accepts(ev.name, ev.length, ev.resume or ev.name in self.saved)
        what = "a saved match" if ev.resume else (f"a {ev.length} point match" if ev.length
                                                  else "an unlimited match")
        if why is not None:
            log.info("declined %s from %s: %s", what, ev.name, why)
            return []
        log.info("accepting %s from %s", what, ev.name)
        return [Send(f"join {ev.name}", self.config.delay)]


__all__ = ["Lobby"]
