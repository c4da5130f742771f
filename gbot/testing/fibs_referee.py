"""The FIBS test server's matches: invitations, the game flow refereed by :mod:`gbot.game.referee`
(opening and automatic rolls, moves, the cube, resignations, game and match end, the
``board:`` lines of :mod:`gbot.game.notations.fibs_board`), and matches saved and resumed."""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from gbot.adapters.fibs import clip
from gbot.core.board import flip_py
from gbot.game.match import CENTRE, GameState
from gbot.game.notations.fibs_board import FibsBoard, format_fibs_board
from gbot.game.referee import (
    OVER_STATES,
    accept_resign,
    can_double,
    double,
    drop,
    game_points,
    legal_results,
    new_match,
    next_game,
    play,
    reject_resign,
    resign,
    roll,
    take,
)
from gbot.testing.fibs_moves import apply_steps, max_steps, parse_fibs_steps
from gbot.testing.fibs_registry import Connection, GameSetup, MatchOutcome, ServerMatch, ServerState

log = logging.getLogger("gbot.fibs_server")


class MatchCommands(ServerState):
    """The handlers of the match commands (``invite``, ``join``, ``roll``, ``move``,
    ``double``, ``accept``, ``reject``, ``resign``, ``leave``, ``board``) and the game flow
    they drive (overridable per step, as :mod:`gbot.testing.fibs_doubles` does)."""

    def _cmd_invite(self, conn: Connection, rest: str) -> None:
        toks = rest.split()
        me = conn.name
        if not toks:
            conn.send("** invite who?")
            return
        name = toks[0]
        if name == me:
            conn.send("** You can't invite yourself.")
            return
        if me in self.matches:
            conn.send("** You are already playing.")
            return
        other = self._conns.get(name)
        if other is None or other.account is None:
            conn.send(f"** There is no one called {name}.")
            return
        if name in self.matches:
            conn.send(f"** {name} is already playing with {self.matches[name].other(name)}.")
            return
        resume = frozenset((me, name)) in self.saved
        if not resume and not other.account.toggles["ready"]:
            conn.send(f"** {name} is refusing games.")
            return
        length = 0
        if not resume and len(toks) > 1 and toks[1].lower() != "unlimited":
            if not toks[1].isdigit() or not 1 <= int(toks[1]) <= 99:
                conn.send(f"** The match length must be a number 1..99, not '{toks[1]}'.")
                return
            length = int(toks[1])
        self._invites.setdefault(name, {})[me] = (length, resume)
        inv = clip.Invitation(me, length, resume)
        other.send(inv.line())
        if resume:
            other.send("WARNING: Don't accept if you want to continue another saved match!")
        other.send(clip.TypeJoin(me).line())
        conn.send(clip.YouInvited(name, length, resume).line())

    def _cmd_join(self, conn: Connection, rest: str) -> None:
        me = conn.name
        name = rest.split()[0] if rest else ""
        if not name:
            self._join_next(conn)
            return
        if me in self.matches:
            conn.send("** You are already playing.")
            return
        offer = self._invites.get(me, {}).get(name)
        if offer is None:
            conn.send(f"** {name} didn't invite you.")
            return
        if name not in self._conns:
            conn.send(f"** There is no one called {name}.")
            return
        if name in self.matches:
            conn.send(f"** {name} is already playing with {self.matches[name].other(name)}.")
            return
        self._invites[me].pop(name, None)
        self._invites.get(name, {}).pop(me, None)
        saved = self.saved.pop(frozenset((me, name)), None)
        if saved is not None:
            self._resume(saved, inviter=name, joiner=me)
            return
        length = offer[0]
        m = ServerMatch((name, me), new_match(length), [1, -1])
        if self._rng.random() < 0.5:
            m.colour = [-1, 1]
        self.matches[name] = self.matches[me] = m
        what = f"{length} point" if length else "unlimited"
        conn.send(clip.MatchStart(name, length, joined=True).line())
        self._to(name, clip.MatchStart(me, length, joined=False).line())
        self.history.append(("start", name, me, length))
        self._report(f"{name} and {me} start {'a ' + what if length else 'an unlimited'}"
                     " match.", name, me)
        self._broadcast_who(name, me)
        self._start_game(m)

    def _dice(self) -> tuple[int, int]:
        a = self._script.popleft() if self._script else self._rng.randint(1, 6)
        b = self._script.popleft() if self._script else self._rng.randint(1, 6)
        return a, b

    def _board_line(self, m: ServerMatch, viewer: int) -> str | None:
        """The ``board:`` line of ``m`` for player ``viewer`` (None between games)."""
        s = m.state
        if s.game_state != GameState.PLAYING:
            return None
        actor = s.player_on_roll if s.resign_offered else s.player_to_act
        other = 1 - actor
        b = s.board_array()
        view = b if actor == s.player_on_roll else flip_py(b)
        dice = s.dice if actor == s.player_on_roll else (0, 0)
        if s.cube_owner == CENTRE:
            owner = "centre"
        else:
            owner = "me" if s.cube_owner == actor else "opponent"
        may = (False, False) if s.double_offered else (owner != "opponent", owner != "me")
        names = (m.names[actor], m.names[other])
        names = ("You", names[1]) if actor == viewer else (names[0], "You")
        fb = FibsBoard(
            points=tuple(int(x) for x in view), dice=dice, cube_value=s.cube_value,
            cube_owner=owner,  # type: ignore[arg-type]
            may_double=may, double_pending=s.double_offered,
            score=(s.score[actor], s.score[other]), match_length=s.match_length,
            crawford_game=s.crawford and s.match_length > 0, post_crawford=s.post_crawford,
            names=names, dialect="fibs", colour=m.colour[actor], me_player1=actor == viewer,
            can_move=max_steps(s) if actor == s.player_on_roll else 0,
        )
        try:
            return format_fibs_board(fb, "fibs")
        except Exception:
            log.exception("cannot format a board for %r", fb)
            return None

    def _send_board(self, m: ServerMatch, *who: int, when: str = "autoboard") -> None:
        for p in who or (0, 1):
            acc = self.accounts[m.names[p]]
            if when != "always" and not acc.toggles[when]:
                continue
            line = self._board_line(m, p)
            if line is not None:
                self._to(m.names[p], line)

    def _start_game(self, m: ServerMatch) -> None:
        a, b = m.names
        self._to(a, clip.NewGame(b).line())
        self._to(b, clip.NewGame(a).line())
        setup = self._take_setup(m)
        if setup is not None:
            p = m.index(setup.on_roll)
            owner = CENTRE if setup.cube_owner is None else m.index(setup.cube_owner)
            m.state = replace(m.state, board=tuple(int(x) for x in setup.board),
                              game_state=GameState.PLAYING, player_on_roll=p,
                              player_to_act=p, game_opener=p, dice=(0, 0),
                              cube_value=setup.cube_value, cube_owner=owner)
            self._send_board(m, when="always")
            self._begin_turn(m)
            return
        for _ in range(1000):
            d = self._dice()
            self._to(a, clip.OpeningRoll(d[0], b, d[1]).line())
            self._to(b, clip.OpeningRoll(d[1], a, d[0]).line())
            m.state = roll(m.state, d)
            if m.state.game_state == GameState.PLAYING:
                break
        opener = m.names[m.state.player_on_roll]
        self._to(opener, clip.YourTurnToMove().line())
        self._to(m.other(opener), clip.FirstMove(opener).line())
        self._send_board(m, when="always")

    def _take_setup(self, m: ServerMatch) -> GameSetup | None:
        for s in list(self._setups):
            if s.on_roll in m.names:
                self._setups.remove(s)
                return s
        return None

    def _begin_turn(self, m: ServerMatch) -> None:
        """The player on roll starts a turn: prompt for roll/double, or roll automatically."""
        for _ in range(10000):
            s = m.state
            if s.game_state != GameState.PLAYING:
                return
            p = m.names[s.player_on_roll]
            if can_double(s) and self.accounts[p].toggles["double"]:
                self._to(p, clip.RollOrDouble().line())
                return
            if self._roll(m):
                return

    def _roll(self, m: ServerMatch) -> bool:
        """Roll for the player on roll; True when they must now move, False when the turn
        passed (no legal play)."""
        s = m.state
        pi = s.player_on_roll
        p, o = m.names[pi], m.names[1 - pi]
        m.state = roll(s, self._dice())
        d = m.state.dice
        self._to(p, clip.Rolled(None, d).line())
        self._to(o, clip.Rolled(p, d).line())
        self._send_board(m, when="moreboards")
        n = max_steps(m.state)
        if n == 0:
            self._to(p, clip.CantMove(None).line())
            self._to(o, clip.CantMove(p).line())
            m.state = play(m.state, None)
            self._send_board(m)
            return False
        self._to(p, clip.PleaseMove(n).line())
        return True

    def _match_of(self, conn: Connection, quiet: bool = False) -> ServerMatch | None:
        m = self.matches.get(conn.name)
        if m is None and not quiet:
            conn.send("** You're not playing.")
        return m

    def _on_turn(self, conn: Connection, what: str) -> ServerMatch | None:
        """``conn``'s match when they are on roll and to act, else None once refused (not
        playing, or not their turn to ``what``)."""
        m = self._match_of(conn)
        if m is None:
            return None
        s = m.state
        i = m.index(conn.name)
        if s.game_state != GameState.PLAYING or s.player_on_roll != i or \
                s.player_to_act != i:
            conn.send(f"** It's not your turn to {what}.")
            return None
        return m

    def _cmd_roll(self, conn: Connection, rest: str) -> None:
        m = self._on_turn(conn, "roll the dice")
        if m is None:
            return
        s = m.state
        if s.dice != (0, 0):
            conn.send("** You did already roll the dice.")
            return
        if not self._roll(m):
            self._begin_turn(m)

    def _cmd_move(self, conn: Connection, rest: str) -> None:
        m = self._on_turn(conn, "move")
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        if s.dice == (0, 0):
            conn.send("** You have to roll the dice before moving.")
            return
        args = rest.split()
        steps = parse_fibs_steps(args, m.colour[i])
        if steps is None:
            conn.send("** first move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'.")
            return
        need = max_steps(s)
        if len(steps) < need:
            conn.send(f"** You must give {need} moves.")
            return
        if len(steps) > need:
            conn.send(f"** Please don't give more than {need} moves.")
            return
        after, problem = apply_steps(s.board_array(), steps, s.dice, m.colour[i])
        if problem is not None:
            conn.send(problem)
            return
        legal = legal_results(s)
        result = after.astype(np.int8)
        if not (legal == result).all(axis=1).any():
            conn.send("** Illegal move: the dice must be used as fully as the rules demand.")
            return
        m.state = play(s, result)
        words = [w.lower().replace("home", "off") for w in args]
        self._to(m.other(conn.name), clip.Moves(conn.name, tuple(
            tuple(w.split("-", 1)) for w in words)).line())  # type: ignore[misc]
        if m.state.game_state in OVER_STATES:
            self._end_game(m, "bearoff")
            return
        self._send_board(m)
        self._begin_turn(m)

    def _cmd_double(self, conn: Connection, rest: str) -> None:
        m = self._on_turn(conn, "double")
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        if s.dice != (0, 0):
            conn.send("** You can't double after rolling the dice.")
            return
        if not can_double(s):
            why = "during the Crawford game" if s.crawford else "now"
            conn.send(f"** You can't double {why}.")
            return
        m.state = double(s, i)
        opp = m.other(conn.name)
        self.history.append(("double", conn.name, s.cube_value * 2))
        conn.send(clip.YouDouble(opp).line())
        self._to(opp, clip.Doubles(conn.name).line())
        self._send_board(m, 1 - i, when="always")

    def _cmd_accept(self, conn: Connection, rest: str) -> None:
        self._answer(conn, True)

    def _cmd_reject(self, conn: Connection, rest: str) -> None:
        self._answer(conn, False)

    def _answer(self, conn: Connection, yes: bool) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        s = m.state
        i = m.index(conn.name)
        opp = m.other(conn.name)
        if s.game_state != GameState.PLAYING or s.player_to_act != i or not (
                s.double_offered or s.resign_offered):
            conn.send("** There's nothing to accept or reject." if yes else
                      "** There's nothing to reject.")
            return
        if s.double_offered:
            if yes:
                m.state = take(s, i)
                cube = m.state.cube_value
                self.history.append(("take", conn.name, cube))
                conn.send(clip.DoubleAccepted(None, cube).line())
                self._to(opp, clip.DoubleAccepted(conn.name, cube).line())
                self._send_board(m)
                self._begin_turn(m)
            else:
                m.state = drop(s, i)
                pts = m.state.game_points
                self.history.append(("drop", conn.name, pts))
                conn.send(clip.GiveUp(None, opp, pts).line())
                self._to(opp, clip.GiveUp(conn.name, None, pts).line())
                self._end_game(m, "drop")
            return
        kind = s.resign_offered
        if yes:
            m.state = accept_resign(s, i)
            pts = m.state.game_points
            self.history.append(("accept_resign", conn.name, kind, pts))
            conn.send(clip.ResignAccepted(None, pts).line())
            self._to(opp, clip.ResignAccepted(conn.name, pts).line())
            self._end_game(m, "resign")
        else:
            m.state = reject_resign(s, i)
            self.history.append(("reject_resign", conn.name, kind))
            conn.send(clip.ResignRejected(None).line())
            self._to(opp, clip.ResignRejected(conn.name).line())

    def _cmd_resign(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        word = rest.split()[0].lower() if rest else ""
        kinds = {"n": 1, "normal": 1, "1": 1, "g": 2, "gammon": 2, "2": 2, "b": 3,
                 "backgammon": 3, "3": 3}
        if word not in kinds:
            conn.send("** Type 'resign n', 'resign g' or 'resign b'.")
            return
        s = m.state
        if s.game_state != GameState.PLAYING or s.double_offered or s.resign_offered:
            conn.send("** You can't resign now.")
            return
        i = m.index(conn.name)
        kind = kinds[word]
        m.state = resign(s, kind, i)
        pts = game_points(m.state, kind)
        opp = m.other(conn.name)
        self.history.append(("resign", conn.name, kind, pts))
        conn.send(clip.YouResign(opp, pts).line())
        self._to(opp, clip.ResignOffer(conn.name, pts).line())

    def _end_game(self, m: ServerMatch, how: str) -> None:
        s = m.state
        w = m.names[s.winner] if s.winner >= 0 else None
        pts = s.game_points
        self.history.append(("game", w, pts, how, s.score))
        if how == "bearoff" and w is not None:
            loser = m.other(w)
            self._to(w, clip.GameWon(None, pts).line())
            self._to(loser, clip.GameWon(w, pts).line())
        a, b = m.names
        length = s.match_length
        if s.match_over:
            wi = 0 if s.score[0] >= length else 1
            win, lose = m.names[wi], m.names[1 - wi]
            score = (s.score[wi], s.score[1 - wi])
            # recorded before it is announced: whoever reads the announcement finds the record
            self.results.append(MatchOutcome(win, lose, length, score))
            self.history.append(("match", win, lose, length, score))
            self._to(win, clip.MatchWon(None, length, score).line())
            self._to(lose, clip.MatchWon(win, length, score).line())
            self._report(f"{win} wins a {length} point match against {lose}  "
                         f"{score[0]}-{score[1]} .", win, lose)
            for n in m.names:
                if self.matches.get(n) is m:
                    del self.matches[n]
            self._broadcast_who(a, b)
            return
        self._to(a, clip.Score(length, a, s.score[0], b, s.score[1]).line())
        self._to(b, clip.Score(length, b, s.score[1], a, s.score[0]).line())
        m.joins = set()
        self._to(a, clip.JoinPrompt().line())
        self._to(b, clip.JoinPrompt().line())

    def _join_next(self, conn: Connection) -> None:
        m = self.matches.get(conn.name)
        if m is None or m.state.game_state not in OVER_STATES:
            conn.send("** Error: No one to join.")
            return
        m.joins.add(conn.name)
        opp = m.other(conn.name)
        if opp not in m.joins:
            conn.send(clip.WaitJoin(opp).line())
            return
        m.joins = set()
        m.state = next_game(m.state)
        m.colour = [-c for c in m.colour]
        self._start_game(m)

    def _save(self, m: ServerMatch) -> None:
        s = m.state
        if s.game_state == GameState.PLAYING and s.resign_offered:
            m.state = reject_resign(s)
        m.joins = set()
        for n in m.names:
            if self.matches.get(n) is m:
                del self.matches[n]
        self.saved[frozenset(m.names)] = m
        self.history.append(("saved", *m.names, m.state.score))

    def _cmd_leave(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        opp = m.other(conn.name)
        self._save(m)
        conn.send(clip.YouLeft().line())
        self._to(opp, clip.OpponentLeft(conn.name).line())
        self._broadcast_who(conn.name, opp)

    def _resume(self, m: ServerMatch, inviter: str, joiner: str) -> None:
        for n in m.names:
            self.matches[n] = m
        self._to(joiner, clip.MatchResumed(inviter, joined=True).line())
        self._to(inviter, clip.MatchResumed(joiner, joined=False).line())
        self.history.append(("resume", inviter, joiner, m.state.score))
        s = m.state
        turn = m.names[s.player_to_act]
        info = [clip.TurnInfo(turn).line(), clip.MatchLengthInfo(s.match_length).line(),
                clip.PointsFor(m.names[0], s.score[0]).line(),
                clip.PointsFor(m.names[1], s.score[1]).line()]
        for n in m.names:
            self._to(n, *info)
        self._send_board(m, when="always")
        self._broadcast_who(inviter, joiner)
        if s.game_state in OVER_STATES:
            for n in m.names:
                self._to(n, clip.JoinPrompt().line())
        elif s.double_offered:
            doubler = m.names[s.player_on_roll]
            self._to(m.other(doubler), clip.Doubles(doubler).line())
        elif s.dice == (0, 0):
            self._begin_turn(m)
        else:
            self._to(m.names[s.player_on_roll], clip.PleaseMove(max_steps(s)).line())

    def _cmd_board(self, conn: Connection, rest: str) -> None:
        m = self._match_of(conn)
        if m is None:
            return
        line = self._board_line(m, m.index(conn.name))
        if line is not None:
            conn.send(line)


__all__ = ["MatchCommands"]
