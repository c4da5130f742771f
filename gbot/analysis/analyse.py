"""Match analysis: every checker play and cube decision of a match record, evaluated.

:func:`analyse` walks a :class:`gbot.game.referee.MatchRecord` (from
:func:`gbot.records.matfile.read` or :func:`gbot.records.sgf_read.read`) and, for each decision,
compares what was played with the best choice at the chosen ply:

* Checker plays: every legal play is valued at 0-ply; the plays the move filter keeps
  (:data:`ANALYSIS_FILTER`: up to 8 within 0.16 of the best; the best 5 at least) and the
  played one are all valued at the analysis ply, and the best of those is named best: no
  candidate is worth more at that ply than the named best, and the played move's error is
  measured against it at the same ply. Every value is cubeful, as gnubg's cubeful analysis
  values plays: the mover's value after the play with the opponent on roll taking its right
  cube action. At 0-ply that action comes from the cube model on the 0-ply probabilities; at
  n-ply from the opponent's n-ply cube decision (:func:`gbot.cube_decision`: the cubeful
  look-ahead, where both sides' later cube actions are inside the tree, gnubg's n-ply
  cubeful evaluation). Money: equity per unit of the cube (EMG); match: the mover's match
  winning chance, as MWC and as normalised equity (EMG).
* Cube decisions of the side on roll (when it may double and the decision is close or
  actual: it doubled, erred, or doubling came within :data:`CLOSE_CUBE`) and the
  opponent's take, pass or beaver, from :func:`gbot.cube_decision` at the ply.
* Luck of each roll, as gnubg 1.07 measures it: the value of the best play of the roll the
  mover got less the average of the same over the 21 rolls (1/36 for a double, 2/36
  otherwise). Each value is the mover's cubeful equity at 0-ply (gnubg's luck evaluation,
  whatever the analysis ply) after the play that is best by that equity (the position
  unchanged when no play is legal). A game's first roll (the starting position, never a
  double) is measured against the 30 opening rolls, 15 of them the opponent's. EMG, and in a
  match MWC through the stakes of the cube.

Errors (>= 0, EMG per unit of the cube) get gnubg 1.07's default marks (its ``show
analysis``): doubtful from 0.03, bad from 0.06, very bad from 0.12; checker plays and cube
decisions are counted apart, as gnubg does. Per player: error totals and rates in mEMG per
decision (and MWC in a match), the performance rating (PR, as eXtreme Gammon reports it: 500
times the mean error in EMG over the unforced checker plays and the counted cube decisions),
gnubg's rating words for the rate, the luck, and a luck-adjusted result. Games are numbered
from 1 in what is shown (text, JSON, HTML), as in the files and gnubg; ``Decision.game`` is the
index in ``record.games``. Games are independent given their starting score, so they can be
analysed in worker processes.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from gbot.analysis.rollout_cube import opponent_state
from gbot.core import cubemath as _core
from gbot.core.board import flip_py
from gbot.cube import context_from_state, cube_decision
from gbot.cube.cubeful import (
    cube_lives,
    cube_mwcs,
    cube_values_raw,
    janowski_applies,
    money_values,
)
from gbot.cube.met import default_table, equity_to_mwc
from gbot.engine.hints import action_words
from gbot.errors import CubeError, GbotError
from gbot.eval.evaluator import DEFAULT_FILTERS, Evaluator, MoveFilter, invert
from gbot.game.match import GameState, MatchState
from gbot.game.position import Position
from gbot.game.referee import Action, GameRecord, MatchRecord
from gbot.game.variations import start_board
from gbot.records import matfile, sgf_read, xg

__all__ = ["Analysis", "Candidate", "CubeFigures", "Decision", "GameAnalysis", "PlayerStats",
           "analyse", "clean_name", "mark", "play_values", "rating"]

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
CUBE_MISTAKES = ("missed double", "wrong double", "wrong take", "wrong pass")
"""The kinds of cube error counted per player (gnubg's cube statistics, without its split of
doubles by the cash and too-good points)."""

ANALYSIS_FILTER: MoveFilter = DEFAULT_FILTERS[0]
"""The plays valued at the analysis ply, by their 0-ply values: at most 8, each within 0.16
of the best (the played one besides), the first stage of gbot's move filters and gnubg's
"normal" filter. gnubg 1.07's analysis default is wider (16 within 0.32, ``show analysis``);
on 274 unforced 2-ply plays of three real files that named no other best and found no other
error, at 1.6 to 1.9 times the time."""

MIN_CANDIDATES = 5
"""Plays valued at the analysis ply besides the filter's when it keeps fewer (the next best
by 0-ply value), so that a report can list the best five with their figures."""

ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
"""The 21 rolls, larger die first."""
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS])
"""Each roll's chance in 36ths."""
OPENING_ROLLS = tuple((a, b) for a, b in ROLLS if a != b)
"""The 15 rolls a game can start with."""

Probs5 = tuple[float, float, float, float, float]


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


_RATING_SUFFIX = re.compile(r",\s*\d+(\.\d+)?$")


def clean_name(name: str) -> str:
    """A player's name without the FIBS rating some files append (``charlie11,1566``)."""
    stripped = _RATING_SUFFIX.sub("", name.strip())
    return stripped or name


def _probs5(p: Any) -> Probs5:
    return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))


@dataclass
class Candidate:
    """One play valued at the analysis ply: its text, its value for the mover (``equity``,
    EMG; ``mwc`` in a match), the mover's cubeless probabilities after it (win, win gammon,
    win backgammon, lose gammon, lose backgammon) and whether it was the play made."""

    play: str
    equity: float
    probabilities: Probs5
    mwc: float | None = None
    played: bool = False


@dataclass
class CubeFigures:
    """A cube decision's figures, for the side on roll (the doubler): its cubeless
    probabilities, the cubeful values of no double, double/take and double/pass (EMG per unit
    of the cube; ``mwc`` the same in a match), the proper action and answer, in gnubg's words
    (``words``)."""

    probabilities: Probs5
    no_double: float
    double_take: float
    double_pass: float
    action: str
    response: str
    words: str
    mwc: tuple[float, float, float] | None = None


@dataclass
class Decision:
    """One analysed decision. ``game``: the index of its game in ``record.games`` (shown
    from 1); ``index``: the action's index in the game. ``kind``: ``move``, ``cube`` (the side
    on roll's double or not) or ``take`` (the answer to a double). ``played``/``best``: move
    text or action words. ``error``: EMG lost against the best (>= 0); ``error_mwc`` in a
    match. ``equity``: the value of the best choice for ``player`` (EMG; ``equity_mwc`` in a
    match); ``luck``: the roll's luck (moves only; ``luck_mwc`` in a match). The board is
    ``position_id`` seen by ``on_roll``; ``match_id`` gives score, cube and dice as gnubg
    writes them. ``candidates``: the plays valued at the analysis ply, best first (moves);
    ``cube``: the cube figures (cube and take decisions)."""

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
    match_id: str = ""
    on_roll: int = 0
    cube_value: int = 1
    cube_owner: int = -1
    equity_mwc: float | None = None
    legal_plays: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    cube: CubeFigures | None = None

    @property
    def game_number(self) -> int:
        """The game's number as files and gnubg count (from 1)."""
        return self.game + 1


@dataclass
class PlayerStats:
    """One player's figures over the match. ``marks``: checker plays only; ``cube_marks``
    and ``cube_mistakes``: cube decisions (see :data:`CUBE_MISTAKES`). ``luck``: EMG;
    ``luck_mwc`` (match) and ``luck_points`` (money, EMG times the cube) beside it."""

    name: str
    moves: int = 0
    move_error: float = 0.0
    cube_decisions: int = 0
    cube_error: float = 0.0
    error_mwc: float = 0.0
    marks: dict[str, int] = field(default_factory=lambda: {"doubtful": 0, "bad": 0,
                                                             "very bad": 0})
    cube_marks: dict[str, int] = field(default_factory=lambda: {"doubtful": 0, "bad": 0,
                                                                  "very bad": 0})
    cube_mistakes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CUBE_MISTAKES,
                                                                                 0))
    luck: float = 0.0
    luck_mwc: float = 0.0
    luck_points: float = 0.0
    rolls: int = 0

    @property
    def error_rate(self) -> float:
        """Total error per decision (moves and cube decisions), mEMG."""
        n = self.moves + self.cube_decisions
        return 1000.0 * (self.move_error + self.cube_error) / n if n else 0.0

    @property
    def pr(self) -> float:
        """Performance rating as eXtreme Gammon reports it: 500 x the mean error (EMG) over
        the unforced checker plays and the counted cube decisions."""
        return self.error_rate / 2.0

    @property
    def move_rate(self) -> float:
        """Checker-play error per unforced move, mEMG."""
        return 1000.0 * self.move_error / self.moves if self.moves else 0.0

    @property
    def cube_rate(self) -> float:
        """Cube error per analysed cube decision, mEMG."""
        return 1000.0 * self.cube_error / self.cube_decisions if self.cube_decisions else 0.0

    @property
    def luck_rate(self) -> float:
        """Luck per roll, mEMG."""
        return 1000.0 * self.luck / self.rolls if self.rolls else 0.0

    @property
    def rating(self) -> str:
        """gnubg's word for :attr:`error_rate`."""
        return rating(self.error_rate)


@dataclass
class Analysis:
    """The analysed match: decisions in order, both players' figures and the result.
    ``checkers``: checkers a side (the variation's), for drawing the boards."""

    match_length: int
    names: tuple[str, str]
    ply: int
    decisions: list[Decision]
    players: tuple[PlayerStats, PlayerStats]
    final_score: tuple[int, int]
    points: tuple[int, int]
    games: int
    checkers: int = 15

    def luck_adjusted(self) -> float:
        """Player 0's result with both players' luck taken out, as gnubg reports it: money,
        points per game (luck in points: EMG times the cube); match, the match winning chance:
        the actual result (1 or 0, or for an unfinished match the winning chance at its last
        score) less player 0's luck and plus player 1's, both in MWC."""
        p0, p1 = self.players
        if self.match_length == 0:
            g = max(self.games, 1)
            return (self.points[0] - self.points[1] - (p0.luck_points - p1.luck_points)) / g
        n = self.match_length
        result = default_table().mwc(n - self.final_score[0], n - self.final_score[1])
        return result - (p0.luck_mwc - p1.luck_mwc)

    def to_json(self) -> dict[str, Any]:
        """Everything as plain data; games numbered from 1 (``game``), as in the files."""
        d = asdict(self)
        for i, p in enumerate(self.players):
            d["players"][i].update(error_rate=p.error_rate, move_rate=p.move_rate,
                                   cube_rate=p.cube_rate, pr=p.pr, luck_rate=p.luck_rate,
                                   rating=p.rating)
        for row in d["decisions"]:
            row["game"] += 1
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


def _flip_rows(boards: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Boards ``[n, 26]`` seen by the other side."""
    return np.ascontiguousarray(-boards[:, ::-1]).astype(np.int8)


def _clip_rows(p: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Probability rows clipped as the cube model takes them (each in 0..1, gammons within
    the wins, backgammons within the gammons)."""
    out = np.clip(np.asarray(p, dtype=np.float64).reshape(-1, 5), 0.0, 1.0)
    out[:, 1] = np.minimum(out[:, 1], out[:, 0])
    out[:, 2] = np.minimum(out[:, 2], out[:, 1])
    out[:, 3] = np.minimum(out[:, 3], 1.0 - out[:, 0])
    out[:, 4] = np.minimum(out[:, 4], out[:, 3])
    return out


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
        self.start = start_board(record.rules.variation)
        self.move_filter = ANALYSIS_FILTER

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

    def _mwc(self, value: float, st: Any) -> float | None:
        """A value in EMG as the mover's MWC (None in money)."""
        if self.money:
            return None
        win, lose = self._cube_mwcs(st)
        return float(equity_to_mwc(value, win, lose))

    def candidates(self, pos: Position, dice: tuple[int, int], st: Any,
                   played: np.ndarray[Any, Any]) -> tuple[list[Candidate], int]:
        """The candidates of ``dice`` in ``pos`` valued at the analysis ply, best first, and
        the number of legal plays. The candidates are the plays :data:`ANALYSIS_FILTER`
        keeps by their 0-ply values (at least :data:`MIN_CANDIDATES`) and the ``played`` one
        (the mover's board after it); a lone legal play (or none: the position stays) is
        valued at the ply too."""
        hints = self.ev.hint(pos, dice, ply=0, n=None)
        n = len(hints)
        if n == 0:
            after = np.array(pos.board, dtype=np.int8).reshape(1, 26)
            texts = [""]
            idx = 0
        else:
            after = np.array([h.play.position.board for h in hints], dtype=np.int8)
            texts = [h.play.notation for h in hints]
            found = [i for i in range(n) if np.array_equal(after[i], played)]
            if not found:
                raise GbotError(f"the played move is not legal in {pos.id()} with {dice}")
            idx = found[0]
        opp = _flip_rows(after)
        if n <= 1:
            keep = [0]
        else:
            probs0 = np.array([h.probabilities for h in hints], dtype=np.float64)
            v0 = self.values_of(probs0, opp, st)
            f = self.move_filter
            order = np.argsort(-v0, kind="stable")
            top = float(v0[order[0]])
            keep = [int(i) for i in order[:f.keep] if v0[i] >= top - f.window]
            keep += [int(i) for i in order[len(keep):MIN_CANDIDATES]]
            if idx not in keep:
                keep.append(idx)
            if self.ply == 0:
                return self._ranked(texts, keep, probs0[keep], v0[keep], idx, st), n
        probs, vals = self._deep_values(opp[keep], st)
        return self._ranked(texts, keep, probs, vals, idx, st), n

    def _ranked(self, texts: list[str], keep: list[int], probs: np.ndarray[Any, Any],
                vals: np.ndarray[Any, Any], played: int, st: Any) -> list[Candidate]:
        """:class:`Candidate` rows of the plays ``keep`` (values ``vals``), best first (the
        played one first among equals)."""
        rows = [Candidate(texts[k] or "(no move)", float(v), _probs5(p), self._mwc(float(v), st),
                          k == played) for k, p, v in zip(keep, probs, vals, strict=True)]
        rows.sort(key=lambda c: (-c.equity, not c.played))
        return rows

    def values(self, after: np.ndarray[Any, Any], st: Any) -> np.ndarray[Any, Any]:
        """The mover's cubeful values (EMG) of the boards ``after`` its play (mover's view,
        one row each) at the analysis ply, as the candidates are valued (see the module's
        docstring); in a match the match winning chance as EMG (normalised to the present
        cube, as gnubg shows it)."""
        boards = np.array([flip_py(b) for b in np.asarray(after, dtype=np.int8).reshape(-1, 26)],
                          dtype=np.int8)
        if self.ply == 0:
            return self.values_of(invert(self.ev.evaluate(boards, 0)), boards, st)
        return self._deep_values(boards, st)[1]

    def _deep_values(self, boards: np.ndarray[Any, Any], st: Any
                     ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The mover's cubeless probabilities and cubeful values (EMG) at the analysis ply
        (1 or more) of the ``boards`` the opponent faces after the mover's plays (its view):
        the opponent's cube decision at that ply, its right action taken; a finished game
        exactly."""
        n = boards.shape[0]
        probs = np.empty((n, 5), dtype=np.float64)
        vals = np.empty(n, dtype=np.float64)
        opp_st = opponent_state(st)
        for i in range(n):
            pos = Position(boards[i])
            if pos.is_over():               # the mover has borne off its last checker
                probs[i] = invert(self.ev.evaluate(boards[i:i + 1], 0))[0]
                vals[i] = self.values_of(probs[i:i + 1], boards[i:i + 1], st)[0]
                continue
            d = cube_decision(pos, opp_st, ply=self.ply, evaluator=self.ev)
            probs[i] = invert(np.array([d.probabilities], dtype=np.float64))[0]
            opp = d.match_winning_chance
            vals[i] = -d.equity if opp is None else float(self._mover_emg(opp, st))
        return probs, vals

    def _mover_emg(self, opp_mwc: Any, st: Any) -> Any:
        """The mover's EMG (normalised to the present cube) in a match where the opponent's
        match winning chance is ``opp_mwc`` (a number or an array of them)."""
        win, lose = self._cube_mwcs(st)
        return (2.0 * (1.0 - opp_mwc) - (win + lose)) / (win - lose)

    def values_of(self, probs: np.ndarray[Any, Any], boards: np.ndarray[Any, Any],
                  st: Any) -> np.ndarray[Any, Any]:
        """The mover's cubeful values at 0-ply (EMG) from its probabilities ``probs`` (win,
        win g, win bg, lose g, lose bg; one row per play) of the ``boards`` the opponent
        then faces: the opponent's right cube action by the cube model (money: EMG per unit
        of the cube; match: the match winning chance as EMG)."""
        probs = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
        opp = self._opponent_values(probs, np.asarray(boards, dtype=np.int8).reshape(-1, 26),
                                    opponent_state(st))
        if self.money:
            return -opp
        return np.asarray(self._mover_emg(opp, st), dtype=np.float64)

    def _opponent_values(self, probs: np.ndarray[Any, Any], boards: np.ndarray[Any, Any],
                         opp_state: Any) -> np.ndarray[Any, Any]:
        """The opponent's cubeful values (money: EMG per unit of the cube; match: MWC) on
        roll in ``boards`` (its view) with the right cube action, from the mover's
        probabilities ``probs``."""
        rows = _clip_rows(invert(probs))
        lives = cube_lives(boards)
        ctx = context_from_state(opp_state)
        if janowski_applies(ctx):
            return np.asarray(money_values(rows, lives, ctx), dtype=np.float64)
        raw = cube_values_raw(rows, lives, ctx)
        money = ctx.is_money
        if not ctx.can_double():              # only the no-double column is filled
            return np.array(raw[:, 0] / ctx.cube if money else raw[:, 0], dtype=np.float64)
        if money:
            eq = raw / ctx.cube
        else:
            win, lose = cube_mwcs(ctx)
            if win == lose:
                raise CubeError(f"cube {ctx.cube} decides nothing in {ctx!r}")
            eq = (2.0 * raw - (win + lose)) / (win - lose)
        base = eq if money else raw
        beavers = bool(money and ctx.beavers)
        out = np.empty(rows.shape[0], dtype=np.float64)
        for i in range(rows.shape[0]):
            nd, dt, dp = float(eq[i, 0]), float(eq[i, 1]), float(eq[i, 2])
            action = _core.action_of(nd, dt, dp, float(rows[i, 1]), beavers)
            out[i] = _core.pick(action, _core.response_of(dt, dp, beavers), float(base[i, 0]),
                                float(base[i, 1]), float(base[i, 2]))
        return out

    def cube_before(self, index: int) -> tuple[int, int]:
        """``(cube value, owner)`` (owner -1: centred) before action ``index`` of the game."""
        cube, owner = 1, -1
        for a in self.game.actions[:index]:
            if a.kind in ("take", "beaver"):
                cube *= 4 if a.kind == "beaver" else 2
                owner = a.player
        return cube, owner

    def _best_values(self, pos: Position, st: Any,
                     rolls: tuple[tuple[int, int], ...]) -> np.ndarray[Any, Any]:
        """For each of ``rolls``: the value (EMG, cubeful at 0-ply) for ``st``'s player on
        roll in ``pos`` of its best play by that value."""
        opp_boards: list[np.ndarray[Any, Any]] = []
        probs: list[Any] = []
        bounds = [0]
        for d in rolls:
            hints = self.ev.hint(pos, d, ply=0, n=None)
            if hints:
                opp_boards.append(_flip_rows(np.array([h.play.position.board for h in hints],
                                                      dtype=np.int8)))
                probs.append(np.array([h.probabilities for h in hints], dtype=np.float64))
            else:
                stay = _flip_rows(np.array(pos.board, dtype=np.int8).reshape(1, 26))
                opp_boards.append(stay)
                probs.append(invert(self.ev.evaluate(stay, 0)))
            bounds.append(bounds[-1] + opp_boards[-1].shape[0])
        vals = self.values_of(np.concatenate(probs), np.concatenate(opp_boards), st)
        return np.array([vals[bounds[k]:bounds[k + 1]].max() for k in range(len(rolls))])

    def luck(self, pos: Position, st: Any, dice: tuple[int, int]) -> float:
        """The luck (EMG) of ``dice`` for the player on roll of ``st`` in ``pos``, gnubg's
        way (see the module's docstring)."""
        d = (max(dice), min(dice))
        if d[0] != d[1] and np.array_equal(np.asarray(pos.board), self.start):
            own = self._best_values(pos, st, OPENING_ROLLS)
            theirs = self._best_values(Position(self.start.copy()), opponent_state(st),
                                       OPENING_ROLLS)
            return float(own[OPENING_ROLLS.index(d)] - (own.sum() - theirs.sum()) / 30.0)
        own = self._best_values(pos, st, ROLLS)
        return float(own[ROLLS.index(d)] - float(own @ ROLL_WEIGHTS) / 36.0)

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
                out.append(self._move(a, i, cube, owner, cur is None))
                after = _after(a.board, a.steps)
                cur = (-after[::-1]).astype(np.int8)
        return out

    def _move(self, a: Action, i: int, cube: int, owner: int, opening: bool) -> Decision:
        """The checker play ``a`` (action ``i``) with the cube at ``cube`` owned by ``owner``;
        ``opening``: the game's first play (its Match ID then says, as gnubg writes it, that
        the game has not started)."""
        dice = (max(a.dice), min(a.dice))
        pos = Position(np.array(a.board, dtype=np.int8))
        st = self.match_state(a.player, cube, owner, dice)
        cands, n = self.candidates(pos, dice, st, _after(a.board, a.steps))
        forced = n <= 1
        best = cands[0]
        played = next(c for c in cands if c.played)
        err = 0.0 if forced else max(0.0, best.equity - played.equity)
        luck = self.luck(pos, st, dice)
        stakes = self._stakes(st)
        return Decision(
            self.game.number, i, a.player, "move", pos.id(), dice, played.play, best.play,
            err, None if self.money else err * stakes / 2.0, "" if forced else mark(err),
            best.equity, luck, None if self.money else luck * stakes / 2.0, forced,
            match_id=(replace(st, game_state=GameState.NONE) if opening else st).match_id(),
            on_roll=a.player, cube_value=cube, cube_owner=owner,
            equity_mwc=best.mwc, legal_plays=n, candidates=cands)

    def _figures(self, d: Any) -> CubeFigures:
        nd, dt, dp = (float(x) for x in d.equities)
        mwc = None if d.mwc is None else (float(d.mwc[0]), float(d.mwc[1]), float(d.mwc[2]))
        return CubeFigures(_probs5(d.probabilities), nd, dt, dp, d.action, d.response,
                           action_words(d.action, d.response), mwc)

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
                        None if self.money else err * stakes / 2.0, mark(err), best_v,
                        match_id=st.match_id(), on_roll=st.player_on_roll,
                        cube_value=st.cube_value, cube_owner=st.cube_owner,
                        equity_mwc=self._mwc(best_v, st), cube=self._figures(d))

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
        offered = replace(st, double_offered=True, player_to_act=a.player)
        return Decision(self.game.number, i, a.player, "take", pos.id(), (0, 0), chosen, best,
                        err, None if self.money else err * stakes / 2.0, mark(err),
                        options[best], match_id=offered.match_id(),
                        on_roll=st.player_on_roll, cube_value=st.cube_value,
                        cube_owner=st.cube_owner, cube=self._figures(d))


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


def _tally(names: tuple[str, str], decisions: list[Decision]) -> tuple[PlayerStats, PlayerStats]:
    """Both players' figures from the decisions."""
    stats = (PlayerStats(names[0]), PlayerStats(names[1]))
    for d in decisions:
        s = stats[d.player]
        if d.kind == "move":
            s.rolls += 1
            s.luck += d.luck or 0.0
            s.luck_mwc += d.luck_mwc or 0.0
            s.luck_points += (d.luck or 0.0) * d.cube_value
            if d.forced:
                continue
            s.moves += 1
            s.move_error += d.error
            if d.mark:
                s.marks[d.mark] += 1
        else:
            s.cube_decisions += 1
            s.cube_error += d.error
            if d.mark:
                s.cube_marks[d.mark] += 1
            if d.error > 0.0:
                if d.kind == "cube":
                    kind = "wrong double" if d.played == "double" else "missed double"
                else:
                    kind = "wrong pass" if d.played == "pass" else "wrong take"
                s.cube_mistakes[kind] += 1
        s.error_mwc += d.error_mwc or 0.0
    return stats


def analyse(record: MatchRecord, ply: int = 2, *, workers: int = 1,
            weights: str | None = None,
            progress: Callable[[int, int], None] | None = None,
            first_here: bool = False) -> Analysis:
    """Analyse every decision of ``record`` at ``ply`` (games spread over ``workers``
    processes); ``progress(games done, games)`` after each game. ``first_here``: analyse the
    first game in this process before the workers start (while the kernels are not compiled
    yet, so that they compile once here and the workers load them)."""
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
        done = 0
        if first_here:
            results[0] = _analyse_game(tasks[0])
            done = 1
            if progress:
                progress(done, n)
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(min(workers, n - done), mp_context=ctx) as pool:
            futs = {pool.submit(_analyse_game, t): gi
                    for gi, t in enumerate(tasks) if gi >= done}
            for f in cf.as_completed(futs):
                results[futs[f]] = f.result()
                done += 1
                if progress:
                    progress(done, n)
    decisions = [d for r in results for d in r]
    names = (clean_name(record.names[0]), clean_name(record.names[1]))
    points = [0, 0]
    for g in record.games:
        if g.winner in (0, 1):
            points[g.winner] += g.points
    return Analysis(record.match_length, names, ply, decisions, _tally(names, decisions),
                    record.final_score, (points[0], points[1]), n, record.rules.checkers)


MAX_GAMES = 1000
"""Most games :func:`read_match` takes from one file (a long money session; split longer ones)."""
MAX_ENTRIES = 100_000
"""Most moves and cube actions (SGF: nodes) :func:`read_match` takes from one file, about a
thousand long games."""


def read_match(path: str) -> MatchRecord:
    """A ``.mat``, ``.sgf`` or eXtreme Gammon ``.xg`` file's record (by its extension, else
    by its content). An XG position file (``.xgp``) is refused with a pointer to ``gbot hint``.

    Refused with a :class:`~gbot.errors.MatchFileError` before any play is replayed: a file
    over :data:`gbot.records.matfile.MAX_BYTES` bytes (no more than that is read), a match
    longer than :data:`gbot.game.match.MAX_MATCH_LENGTH`, more than :data:`MAX_GAMES` games
    or :data:`MAX_ENTRIES` moves and cube actions."""
    from pathlib import Path

    from gbot.errors import MatchFileError
    from gbot.game.fields import read_bounded

    p = Path(path)
    data = read_bounded(p, matfile.MAX_BYTES, "match file", MatchFileError)
    suffix = p.suffix.lower()
    if suffix == ".xgp":
        raise MatchFileError(f"{path} is an eXtreme Gammon position file, not a match: "
                             f"ask for its position with 'gbot hint {path}'")
    if suffix == ".xg" or xg.is_xg(data):
        return xg.loads(data, max_games=MAX_GAMES, max_entries=MAX_ENTRIES, source=str(path))
    text = data.decode("utf-8", errors="replace")
    sgf = suffix == ".sgf" or (suffix != ".mat" and text[:200].lstrip().startswith("("))
    if sgf:
        return sgf_read.loads(text, max_games=MAX_GAMES, max_entries=MAX_ENTRIES,
                              source=str(path))
    return matfile.loads(text, max_games=MAX_GAMES, max_entries=MAX_ENTRIES, source=str(path))
