"""Match analysis: every checker play and cube decision of a match record, evaluated.

:func:`analyse` walks a :class:`gbot.game.referee.MatchRecord` (from
:func:`gbot.records.matfile.read` or :func:`gbot.records.sgf_read.read`) and, for each decision,
compares what was played with the best choice at the chosen ply:

* Checker plays: every play of the roll ranked by :meth:`gbot.Evaluator.hint` (the played one
  evaluated at the full ply too). Money: cubeless equity. Match: the mover's cubeful match
  winning chance after each candidate (the cube model on the opponent's probabilities),
  as MWC and as normalised equity (EMG).
* Cube decisions of the side on roll (when it may double and the decision is close or
  actual: it doubled, erred, or doubling came within :data:`CLOSE_CUBE`) and the
  opponent's take, pass or beaver, from :func:`gbot.cube_decision` at the ply.
* Luck of each roll: the mover's 0-ply equity after its best play with the roll it got, less
  the average over the 21 rolls (cubeless, in EMG; MWC in a match through the cube's stakes).

Errors (>= 0, EMG per unit of the cube) get gnubg 1.07's default marks (its ``show
analysis``): doubtful from 0.03, bad from 0.06, very bad from 0.12. Per player: error totals
and rates in mEMG per decision (and MWC in a match), gnubg's rating words for the rate, the
luck, and a luck-adjusted result. Games are
independent given their starting score, so they can be analysed in worker processes.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from gbot.analysis.rollout_cube import opponent_state
from gbot.core.board import flip_py
from gbot.cube import context_from_state, cube_decision
from gbot.cube.cubeful import cubeful_mwc
from gbot.cube.decision import board_cube_life
from gbot.cube.met import default_table
from gbot.errors import GbotError
from gbot.eval.evaluator import Evaluator, equities, invert
from gbot.game.match import GameState, MatchState
from gbot.game.position import Position
from gbot.game.referee import Action, GameRecord, MatchRecord
from gbot.records import matfile, sgf_read

__all__ = ["Analysis", "Decision", "GameAnalysis", "PlayerStats", "analyse", "mark", "play_values",
           "rating"]

DOUBTFUL = 0.03
BAD = 0.06
VERY_BAD = 0.12
RATINGS = ((2.0, "Supernatural"), (5.0, "World class"), (8.0, "Expert"), (12.0, "Advanced"),
           (18.0, "Intermediate"), (26.0, "Casual player"), (35.0, "Beginner"),
           (math.inf, "Awful!"))
"""gnubg's rating words by error rate (mEMG per decision), upper bounds."""
CLOSE_CUBE = 0.16
"""A cube decision counts when the player doubled, erred, or doubling was within this of not
doubling (gnubg's "close or actual" decisions)."""
CUBE_FROM = 0.40
"""Money cube decisions are analysed from this winning chance of the side on roll (or when the
player did double); below it doubling is never close in money play. Match play has no such
screen: a nearly lost match position's double can be close in EMG (little is at stake either
way), and gnubg counts those."""


def mark(error: float) -> str:
    """gnubg's mark of an error in EMG: '', 'doubtful', 'bad' or 'very bad'."""
    if error >= VERY_BAD:
        return "very bad"
    if error >= BAD:
        return "bad"
    if error >= DOUBTFUL:
        return "doubtful"
    return ""


def rating(rate_memg: float) -> str:
    """gnubg's rating word for an error rate in mEMG per decision."""
    for bound, word in RATINGS:
        if rate_memg < bound:
            return word
    return RATINGS[-1][1]


@dataclass
class Decision:
    """One analysed decision. ``kind``: ``move``, ``cube`` (the side on roll's double or not)
    or ``take`` (the answer to a double). ``played``/``best``: move text or action words.
    ``error``: EMG lost against the best (>= 0); ``error_mwc`` in a match. ``equity``: the
    value of the best choice for ``player`` (EMG); ``luck``: the roll's luck (moves only)."""

    game: int
    index: int
    player: int
    kind: str
    position_id: str
    dice: tuple[int, int]
    played: str
    best: str
    error: float
    error_mwc: float | None
    mark: str
    equity: float
    luck: float | None = None
    luck_mwc: float | None = None
    forced: bool = False


@dataclass
class PlayerStats:
    """One player's figures over the match."""

    name: str
    moves: int = 0
    move_error: float = 0.0
    cube_decisions: int = 0
    cube_error: float = 0.0
    error_mwc: float = 0.0
    marks: dict[str, int] = field(default_factory=lambda: {"doubtful": 0, "bad": 0,
                                                             "very bad": 0})
    luck: float = 0.0
    luck_mwc: float = 0.0

    @property
    def error_rate(self) -> float:
        """Total error per decision (moves and cube decisions), mEMG."""
        n = self.moves + self.cube_decisions
        return 1000.0 * (self.move_error + self.cube_error) / n if n else 0.0

    @property
    def move_rate(self) -> float:
        """Checker-play error per unforced move, mEMG."""
        return 1000.0 * self.move_error / self.moves if self.moves else 0.0

    @property
    def cube_rate(self) -> float:
        """Cube error per analysed cube decision, mEMG."""
        return 1000.0 * self.cube_error / self.cube_decisions if self.cube_decisions else 0.0

    @property
    def rating(self) -> str:
        """gnubg's word for :attr:`error_rate`."""
        return rating(self.error_rate)


@dataclass
class Analysis:
    """The analysed match: decisions in order, both players' figures and the result."""

    match_length: int
    names: tuple[str, str]
    ply: int
    decisions: list[Decision]
    players: tuple[PlayerStats, PlayerStats]
    final_score: tuple[int, int]
    points: tuple[int, int]
    games: int

    def luck_adjusted(self) -> float:
        """Player 0's result with both players' luck taken out, as gnubg reports it: money,
        points per game; match, the match winning chance: the actual result (1 or 0, or for an
        unfinished match the winning chance at its last score) less player 0's luck and plus
        player 1's, both in MWC."""
        p0, p1 = self.players
        if self.match_length == 0:
            g = max(self.games, 1)
            return (self.points[0] - self.points[1] - (p0.luck - p1.luck)) / g
        n = self.match_length
        result = default_table().mwc(n - self.final_score[0], n - self.final_score[1])
        return result - (p0.luck_mwc - p1.luck_mwc)

    def to_json(self) -> dict[str, Any]:
        """Everything as plain data."""
        d = asdict(self)
        for i, p in enumerate(self.players):
            d["players"][i].update(error_rate=p.error_rate, move_rate=p.move_rate,
                                   cube_rate=p.cube_rate, rating=p.rating)
        d["luck_adjusted"] = self.luck_adjusted()
        return d


# --- one game ------------------------------------------------------------------------------


def _after(board: tuple[int, ...], steps: tuple[tuple[int, int], ...]) -> np.ndarray[Any, Any]:
    """The mover's board after its single-die ``steps`` (mover's view)."""
    b = np.array(board, dtype=np.int8)
    for src, dst in steps:
        b[src] -= 1
        if dst >= 1:
            if b[dst] == -1:
                b[dst] = 0
                b[0] -= 1
            b[dst] += 1
    return b


class GameAnalysis:
    """Analyses one game (in a worker or here): its decisions, and the values of given plays
    or probabilities at a state of it."""

    def __init__(self, record: MatchRecord, game: GameRecord, ply: int,
                 weights: str | None) -> None:
        self.record = record
        self.game = game
        self.ply = ply
        self.ev = Evaluator(weights)
        self.money = record.match_length == 0

    def match_state(self, player: int, cube: int, owner: int,
                    dice: tuple[int, int] = (0, 0), offered: bool = False) -> Any:
        """The match state of this game with ``player`` on roll (to act, unless a double
        is ``offered``), the cube at ``cube`` owned by ``owner``, ``dice`` showing."""
        g = self.game
        return MatchState(match_length=self.record.match_length, score=g.score,
                          cube_value=cube, cube_owner=owner, player_on_roll=player,
                          player_to_act=(1 - player) if offered else player, dice=dice,
                          crawford=g.crawford, game_state=GameState.PLAYING,
                          double_offered=offered, rules=self.record.rules)

    def _stakes(self, st: Any) -> float:
        """(MWC after winning the cube) - (after losing it), for the player on roll; 2 in
        money (so that EMG * stakes / 2 is the MWC-like figure)."""
        win, lose = self._cube_mwcs(st)
        return win - lose

    def _cube_mwcs(self, st: Any) -> tuple[float, float]:
        """The player on roll's MWC after winning and after losing the game at the present
        cube value; ``(1, -1)`` in money (so that the EMG scale is the identity)."""
        if self.money:
            return 1.0, -1.0
        ctx = context_from_state(st)
        pc = ctx.crawford or ctx.post_crawford
        c = st.cube_value
        win = ctx.table.mwc(ctx.away - c, ctx.opp_away, post_crawford=pc)
        lose = ctx.table.mwc(ctx.away, ctx.opp_away - c, post_crawford=pc)
        return float(win), float(lose)

    def _play_values(self, pos: Any, dice: tuple[int, int], st: Any,
                     played: np.ndarray[Any, Any]) -> tuple[str, float, str, float, int, bool]:
        """``(best text, best value, played text, played value, count, forced)`` in EMG."""

        hints = self.ev.hint(pos, dice, ply=self.ply, n=None)
        if len(hints) <= 1:
            txt = hints[0].play.notation if hints else ""
            return txt, 0.0, txt, 0.0, len(hints), True
        full = [h for h in hints if h.ply == hints[0].ply][:8]
        idx = next((i for i, h in enumerate(hints)
                    if np.array_equal(h.play.position.board, played)), None)
        if idx is None:
            raise GbotError(f"the played move is not legal in {pos.id()} with {dice}")
        cands = list(full)
        if hints[idx] not in cands:
            cands.append(hints[idx])
        vals = self.values(np.array([h.play.position.board for h in cands], dtype=np.int8), st)
        best = int(np.argmax(vals))
        pi = cands.index(hints[idx])
        return (cands[best].play.notation, float(vals[best]), hints[idx].play.notation,
                float(vals[pi]), len(hints), False)

    def values(self, after: np.ndarray[Any, Any], st: Any) -> np.ndarray[Any, Any]:
        """The mover's values (EMG) of the boards ``after`` its play (mover's view, one row
        each) at the analysis ply: cubeless equity in money play; in a match the cubeful
        match winning chance as EMG (normalised to the present cube, as gnubg shows it)."""
        boards = np.array([flip_py(b) for b in np.asarray(after, dtype=np.int8).reshape(-1, 26)],
                          dtype=np.int8)
        return self.values_of(invert(self.ev.evaluate(boards, self.ply)), boards, st)

    def values_of(self, probs: np.ndarray[Any, Any], boards: np.ndarray[Any, Any],
                  st: Any) -> np.ndarray[Any, Any]:
        """:meth:`values` from the mover's probabilities ``probs`` (win, win g, win bg,
        lose g, lose bg; one row per play) of the ``boards`` the opponent then faces."""
        if self.money:
            return np.asarray(equities(probs), dtype=np.float64)
        opp = opponent_state(st)
        vals = np.empty(len(boards))
        for i, p in enumerate(probs):
            ctx = context_from_state(opp, board_cube_life(boards[i]))
            c = [min(max(float(x), 0.0), 1.0) for x in (1.0 - p[0], p[3], p[4], p[1], p[2])]
            vals[i] = 1.0 - cubeful_mwc((c[0], c[1], c[2], c[3], c[4]), ctx)
        win, lose = self._cube_mwcs(st)
        return (2.0 * vals - (win + lose)) / (win - lose)     # MWC -> EMG

    def cube_before(self, index: int) -> tuple[int, int]:
        """``(cube value, owner)`` (owner -1: centred) before action ``index`` of the game."""
        cube, owner = 1, -1
        for a in self.game.actions[:index]:
            if a.kind in ("take", "beaver"):
                cube *= 4 if a.kind == "beaver" else 2
                owner = a.player
        return cube, owner

    def _luck(self, pos: Any, dice: tuple[int, int]) -> float:
        """The roll's luck for the mover, cubeless EMG at 0-ply."""

        vals = np.empty(21)
        weights = np.empty(21)
        got = 0.0
        k = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                play = self.ev.best_play(pos, (d1, d2), ply=0)
                after = play.position if play is not None else pos
                probs = invert(self.ev.evaluate(after.swapped().board.reshape(1, 26), 0))
                vals[k] = float(equities(probs)[0])
                weights[k] = 1.0 if d1 == d2 else 2.0
                if (d1, d2) == (max(dice), min(dice)):
                    got = vals[k]
                k += 1
        return got - float(vals @ weights) / 36.0

    def run(self) -> list[Decision]:
        """The game's decisions in order."""

        g = self.game
        out: list[Decision] = []
        cube, owner = 1, -1
        cur: np.ndarray[Any, Any] | None = None     # the board of the player to move next
        pending: Any = None
        for i, a in enumerate(g.actions):
            if a.kind in ("roll", "double") and cur is not None:
                st = self.match_state(a.player, cube, owner)
                pos = Position(cur)
                if st.may_double(a.player):
                    d = self._cube(pos, st, a.kind == "double", i)
                    if d is not None:
                        out.append(d)
                if a.kind == "double":
                    pending = (pos, st)
            elif a.kind in ("take", "drop", "beaver") and pending is not None:
                pos, st = pending
                out.append(self._take(pos, st, a, i))
                cube *= 4 if a.kind == "beaver" else 2
                owner = a.player
                pending = None
            elif a.kind == "move" and a.board:
                dice = (max(a.dice), min(a.dice))
                pos = Position(np.array(a.board, dtype=np.int8))
                st = self.match_state(a.player, cube, owner, dice)
                after = _after(a.board, a.steps)
                cur = (-after[::-1]).astype(np.int8)
                best_t, best_v, played_t, played_v, n, forced = self._play_values(
                    pos, dice, st, after)
                err = max(0.0, best_v - played_v)
                luck = self._luck(pos, dice)
                stakes = self._stakes(st)
                out.append(Decision(
                    g.number, i, a.player, "move", pos.id(), dice, played_t or "(no move)",
                    best_t or "(no move)", err, None if self.money else err * stakes / 2.0,
                    "" if forced else mark(err), best_v, luck,
                    None if self.money else luck * stakes / 2.0, forced))
        return out

    def _cube(self, pos: Any, st: Any, doubled: bool, i: int) -> Decision | None:
        if not doubled and cube_is_dead(st, st.player_on_roll):
            return None               # no cube decision there (as gnubg)
        if not doubled and self.money:
            p0 = self.ev.probabilities(pos, 0)
            if p0[0] < CUBE_FROM:
                return None
        d = cube_decision(pos, st, ply=self.ply, evaluator=self.ev)
        if not d.can_double:
            return None
        nd, dt, dp = d.equities
        dbl = 2.0 * dt if d.response == "beaver" else min(dt, dp)
        best_v = max(nd, dbl)
        got = dbl if doubled else nd
        err = max(0.0, best_v - got)
        if not doubled and err == 0.0 and dbl < nd - CLOSE_CUBE:
            return None               # neither actual nor close: not counted (as gnubg)
        best = "double" if dbl > nd else "no double"
        stakes = self._stakes(st)
        return Decision(self.game.number, i, st.player_on_roll, "cube", pos.id(), (0, 0),
                        "double" if doubled else "no double", best, err,
                        None if self.money else err * stakes / 2.0, mark(err), best_v)

    def _take(self, pos: Any, st: Any, a: Action, i: int) -> Decision:
        d = cube_decision(pos, st, ply=self.ply, evaluator=self.ev)
        nd, dt, dp = d.equities
        take_v, pass_v = -dt, -dp
        beaver_v = -2.0 * dt
        options = {"take": take_v, "pass": pass_v}
        if self.money and self.record.rules.beavers:
            options["beaver"] = beaver_v
        best = max(options, key=lambda k: options[k])
        chosen = {"take": "take", "drop": "pass", "beaver": "beaver"}[a.kind]
        err = max(0.0, options[best] - options.get(chosen, take_v))
        stakes = self._stakes(st)
        return Decision(self.game.number, i, a.player, "take", pos.id(), (0, 0), chosen, best,
                        err, None if self.money else err * stakes / 2.0, mark(err),
                        options[best])


def cube_is_dead(state: Any, player: int) -> bool:
    """In match play: winning this game at the present cube already gives ``player`` the
    match, so doubling cannot gain; such turns are not cube decisions."""
    return bool(state.match_length > 0
                and state.cube_value >= state.match_length - state.score[player])


def _analyse_game(args: tuple[MatchRecord, int, int, str | None]) -> list[Decision]:
    record, gi, ply, weights = args
    return GameAnalysis(record, record.games[gi], ply, weights).run()


def play_values(record: MatchRecord, game_index: int, action_index: int,
                plays: list[str], ply: int = 2, *, weights: str | None = None,
                evaluator: Evaluator | None = None) -> list[float]:
    """The values (EMG, the mover's view, as :func:`analyse` ranks plays) of ``plays`` (move
    text) for the checker play logged as action ``action_index`` of game ``game_index``."""
    game = record.games[game_index]
    a = game.actions[action_index]
    if a.kind != "move" or not a.board:
        raise GbotError(f"action {action_index} of game {game_index + 1} is not a checker play")
    g = GameAnalysis(record, game, ply, weights)
    if evaluator is not None:
        g.ev = evaluator
    dice = (max(a.dice), min(a.dice))
    cube, owner = g.cube_before(action_index)
    st = g.match_state(a.player, cube, owner, dice)
    pos = Position(np.array(a.board, dtype=np.int8))
    after = np.array([pos.play_from_text(t, dice).position.board for t in plays], dtype=np.int8)
    return [float(v) for v in g.values(after, st)]


def analyse(record: MatchRecord, ply: int = 2, *, workers: int = 1,
            weights: str | None = None,
            progress: Callable[[int, int], None] | None = None) -> Analysis:
    """Analyse every decision of ``record`` at ``ply`` (games spread over ``workers``
    processes); ``progress(games done, games)`` after each game."""
    if ply < 0 or ply > 3:
        raise GbotError(f"analysis ply must be 0..3, got {ply!r}")
    n = len(record.games)
    tasks = [(record, gi, ply, weights) for gi in range(n)]
    results: list[list[Decision]] = [[] for _ in range(n)]
    if workers <= 1 or n <= 1:
        for gi, t in enumerate(tasks):
            results[gi] = _analyse_game(t)
            if progress:
                progress(gi + 1, n)
    else:
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(min(workers, n), mp_context=ctx) as pool:
            futs = {pool.submit(_analyse_game, t): gi for gi, t in enumerate(tasks)}
            done = 0
            for f in cf.as_completed(futs):
                results[futs[f]] = f.result()
                done += 1
                if progress:
                    progress(done, n)
    decisions = [d for r in results for d in r]
    stats = (PlayerStats(record.names[0]), PlayerStats(record.names[1]))
    for d in decisions:
        s = stats[d.player]
        if d.kind == "move":
            s.luck += d.luck or 0.0
            s.luck_mwc += d.luck_mwc or 0.0
            if d.forced:
                continue
            s.moves += 1
            s.move_error += d.error
        else:
            s.cube_decisions += 1
            s.cube_error += d.error
        s.error_mwc += d.error_mwc or 0.0
        if d.mark:
            s.marks[d.mark] += 1
    points = [0, 0]
    for g in record.games:
        if g.winner in (0, 1):
            points[g.winner] += g.points
    return Analysis(record.match_length, record.names, ply, decisions, stats,
                    record.final_score, (points[0], points[1]), n)


MAX_GAMES = 1000
"""Most games :func:`read_match` takes from one file (a long money session; split longer ones)."""
MAX_ENTRIES = 100_000
"""Most moves and cube actions (SGF: nodes) :func:`read_match` takes from one file, about a
thousand long games."""


def read_match(path: str) -> MatchRecord:
    """A ``.mat`` or ``.sgf`` file's record (by its extension, else by its content).

    Refused with a :class:`~gbot.errors.MatchFileError` before any play is replayed: a file
    over :data:`gbot.records.matfile.MAX_BYTES` bytes (no more than that is read), a match
    longer than :data:`gbot.game.match.MAX_MATCH_LENGTH`, more than :data:`MAX_GAMES` games
    or :data:`MAX_ENTRIES` moves and cube actions."""
    from pathlib import Path

    from gbot.errors import MatchFileError
    from gbot.game.fields import read_bounded

    p = Path(path)
    data = read_bounded(p, matfile.MAX_BYTES, "match file", MatchFileError)
    text = data.decode("utf-8", errors="replace")
    suffix = p.suffix.lower()
    sgf = suffix == ".sgf" or (suffix != ".mat" and text[:200].lstrip().startswith("("))
    if sgf:
        return sgf_read.loads(text, max_games=MAX_GAMES, max_entries=MAX_ENTRIES)
    return matfile.loads(text, max_games=MAX_GAMES, max_entries=MAX_ENTRIES)
