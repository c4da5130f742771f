"""The FIBS test server's settings, who and chat commands (``set``, ``toggle``, ``who``,
``tell``, ``say``, ``kibitz``, ``shout``, ``message``, ``away``, ``show`` and the like)."""

from __future__ import annotations

import time

from gbot.adapters.fibs import clip
from gbot.testing.fibs_registry import TOGGLE_TEXT, Connection, ServerMatch, ServerState


class ChatCommands(ServerState):
    """The handlers of the settings and chat commands (one per command word)."""

    def _cmd_set(self, conn: Connection, rest: str) -> None:
        toks = rest.split()
        if len(toks) != 2:
            conn.send("** usage: set <variable> <value>")
            return
        if toks[0] == "boardstyle" and toks[1] in ("1", "2", "3"):
            conn.boardstyle = int(toks[1])
            conn.send(clip.BoardStyleSet(conn.boardstyle).line())
            return
        conn.send(f"Value of '{toks[0]}' set to {toks[1]}.")

    def _cmd_toggle(self, conn: Connection, rest: str) -> None:
        acc = conn.account
        assert acc is not None
        key = rest.lower()
        if not key:
            conn.send("The current settings are:",
                      *[clip.ToggleState(k, acc.toggles[k]).line() for k in clip.TOGGLES])
            return
        if key not in acc.toggles:
            conn.send(f"** Don't know how to toggle {key}.")
            return
        acc.toggles[key] = not acc.toggles[key]
        on, off = TOGGLE_TEXT[key]
        conn.send("** " + (on if acc.toggles[key] else off))
        if key == "ready":
            self._broadcast_who(acc.name)

    def _cmd_rawwho(self, conn: Connection, rest: str) -> None:
        conn.send(*[self._who(c).line() for c in self._conns.values()], clip.WhoEnd().line())

    def _cmd_who(self, conn: Connection, rest: str) -> None:
        for c in self._conns.values():
            w = self._who(c)
            state = "P" if w.opponent else ("R" if w.ready else "-")
            conn.send(f"{state} {w.name:<20} {w.rating:8.2f} {w.experience:6d}")

    def _cmd_tell(self, conn: Connection, rest: str) -> None:
        name, _, text = rest.partition(" ")
        if not text:
            conn.send("** You can't say nothing.")
            return
        if name not in self._conns:
            conn.send(f"** There is no one called {name}.")
            return
        self._to(name, clip.Chat("says", conn.name, text).line())
        conn.send(clip.Chat("you_say", name, text).line())

    def _cmd_say(self, conn: Connection, rest: str) -> None:
        m = self.matches.get(conn.name)
        if m is None:
            conn.send("** You're not playing, so you can't say something.")
            return
        if not rest:
            conn.send("** You can't say nothing.")
            return
        opp = m.other(conn.name)
        self._to(opp, clip.Chat("says", conn.name, rest).line())
        conn.send(clip.Chat("you_say", opp, rest).line())

    def _cmd_kibitz(self, conn: Connection, rest: str) -> None:
        m = self.matches.get(conn.name)
        if m is None:
            conn.send("** You're not watching or playing.")
            return
        self._to(m.other(conn.name), clip.Chat("kibitzes", conn.name, rest).line())
        conn.send(clip.Chat("you_kibitz", "", rest).line())

    def _cmd_whisper(self, conn: Connection, rest: str) -> None:
        conn.send(clip.Chat("you_whisper", "", rest).line())

    def _cmd_shout(self, conn: Connection, rest: str) -> None:
        for c in self._conns.values():
            if c is not conn and c.account and not c.account.toggles["silent"]:
                c.send(clip.Chat("shouts", conn.name, rest).line())
        conn.send(clip.Chat("you_shout", "", rest).line())

    def _cmd_message(self, conn: Connection, rest: str) -> None:
        name, _, text = rest.partition(" ")
        acc = self.accounts.get(name)
        if acc is None or not text:
            conn.send("** usage: message <user> <text>")
            return
        now = int(time.time())
        if name in self._conns:
            self._to(name, clip.Message(conn.name, now, text).line())
            conn.send(clip.MessageDelivered(name).line())
        else:
            acc.messages.append((conn.name, now, text))
            conn.send(clip.MessageSaved(name).line())

    def _cmd_away(self, conn: Connection, rest: str) -> None:
        assert conn.account is not None
        conn.account.away = True
        conn.send("You're away. Please type 'back'")
        self._broadcast_who(conn.name)

    def _cmd_back(self, conn: Connection, rest: str) -> None:
        assert conn.account is not None
        conn.account.away = False
        conn.send("Welcome back.")
        self._broadcast_who(conn.name)

    def _cmd_address(self, conn: Connection, rest: str) -> None:
        assert conn.account is not None
        conn.account.email = rest.split()[0] if rest else None
        conn.send(f"Your email address is '{rest}'.")

    def _cmd_time(self, conn: Connection, rest: str) -> None:
        conn.send(time.strftime("%A, %B %d %H:%M:%S UTC", time.gmtime()))

    def _saved_row(self, opp: str, m: ServerMatch, me: int) -> str:
        """One row of ``show saved``: saved match ``m`` seen by its player ``me``."""
        s = m.state.score
        return clip.SavedMatchRow(opp, m.state.match_length, s[me], s[1 - me]).line()

    def _cmd_show(self, conn: Connection, rest: str) -> None:
        what = rest.split()[0].lower() if rest else ""
        mine = [(m.other(conn.name), m) for k, m in self.saved.items() if conn.name in k]
        if what == "saved":
            if not mine:
                conn.send(clip.NoSavedGames().line())
                return
            conn.send(clip.SavedHeader().line())
            for opp, m in mine:
                conn.send(self._saved_row(opp, m, m.index(conn.name)))
        elif what == "savedcount":
            n = len(mine)
            conn.send(f"{conn.name} has {n} saved game{'s' if n != 1 else ''}." if n
                      else f"{conn.name} has no saved games.")
        else:
            conn.send(f"** Don't know how to show {what}")


__all__ = ["ChatCommands"]
