"""Who can sit at a tournament table: player specs, and the players they build.

A :class:`PlayerSpec` is the text a user types (``gbot,ply=1``, ``gnubg,skill=expert``,
``127.0.0.1:4000``, ``gnubgnn``, ``random``), parsed once and small enough to send to worker
processes; :meth:`PlayerSpec.build` makes the :class:`Player` inside the worker.

Every player answers the same four questions, always from its own side ("me"), with the
referee's :class:`~gbot.game.match.MatchState` (``state.player_to_act`` is me):

* :meth:`Player.before_roll` ``(pos, state, may_double, may_resign)``: I am on roll and have
  not rolled: ``"roll"``, ``"double"`` or a :class:`Resign`.
* :meth:`Player.play` ``(pos, dice, state)``: a :class:`~gbot.game.position.Play` of ``dice``, None
  when no play is legal, or a :class:`Resign`.
* :meth:`Player.respond_double` ``(pos, state)``: ``"take"``, ``"drop"`` or ``"beaver"``; ``pos``
  is my position as if I were on roll.
* :meth:`Player.accept_resignation` ``(pos, state, level)``: the opponent offers ``level``.

The kinds of player:

* ``gbot`` (:class:`EnginePlayer`): :class:`gbot.engine.engine.Engine` in-process, at ``ply=N``
  (default: :data:`DEFAULT_PLY`, the engine's own default, as ``gbot serve`` plays),
  optionally with ``weights=PATH``; ``eval=heuristic`` plays the engine's built-in heuristic
  (otherwise networks that cannot be loaded are an error, never a silent fallback).
* ``gnubg`` (:class:`GnubgPlayer`): GNU Backgammon started as ``gnubg -t`` and told
  ``external 127.0.0.1:PORT``, so that it answers as an external-player server; ``ply=N`` or a
  ``skill=`` level (default: 2-ply, gnubg's own default "World class" player), ``noise=X``,
  ``binary=PATH``. The player starts and stops the process.
  Resignations offered to it are decided from gnubg's own ``evaluation`` of the position
  (gnubg 1.07's server would accept every one).
* ``external:HOST:PORT`` or ``HOST:PORT`` (:class:`ExternalPlayer`): any program serving
  gnubg's external-player protocol (another gbot, another engine). The questions go out as
  ``board:`` lines written by :func:`gbot.game.notations.fibs_board.format_fibs_board` in the
  ``gnubg_external`` dialect; move replies are read with
  :meth:`gbot.game.position.Position.play_from_text`.
* ``gnubgnn`` (:class:`GnubgNNEvaluator` inside an :class:`EnginePlayer`): gnubg-nn's networks
  in-process, when the ``gnubg_nn`` package is installed; checker play by its own search,
  cube decisions by gbot's cube module over its probabilities.
* ``random``: uniformly random legal plays; never doubles or resigns, always takes, accepts
  every resignation.

Every spec takes ``name=LABEL`` for the tables and match files.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from gbot.analysis.workers import die_with_parent
from gbot.core.board import flip_py
from gbot.cube.decision import board_cube_life, context_from_state
from gbot.cube.resign import should_accept
from gbot.engine.engine import PLAY_PLY, Engine
from gbot.errors import IllegalMoveError, MoveParseError, PlayerError, TournamentError
from gbot.eval.evaluator import Evaluator
from gbot.game.match import MatchState, Rules
from gbot.game.notations.fibs_board import gnubg_line
from gbot.game.position import Play, Position

__all__ = [
    "GNUBG_SKILLS",
    "KINDS",
    "EnginePlayer",
    "ExternalPlayer",
    "GnubgNNEvaluator",
    "GnubgPlayer",
    "Player",
    "PlayerSpec",
    "RandomPlayer",
    "Resign",
    "board_line",
    "parse_player",
]

CubeAnswer = Literal["roll", "double"]
TakeAnswer = Literal["take", "drop", "beaver"]

KINDS = ("gbot", "gnubg", "external", "gnubgnn", "random")

GNUBG_SKILLS: dict[str, tuple[int, float]] = {
    "beginner": (0, 0.060),
    "casual": (0, 0.050),
    "intermediate": (0, 0.040),
    "advanced": (0, 0.015),
    "expert": (0, 0.0),
    "worldclass": (2, 0.0),
    "grandmaster": (3, 0.0),
}
"""gnubg's named playing levels as ``(plies, noise)``: its published settings for checker play
and cube decisions (gnubg's own move filters stay at their defaults)."""

DEFAULT_PLY = {"gbot": PLAY_PLY, "gnubg": GNUBG_SKILLS["worldclass"][0]}
"""The look-ahead of a seat that names none: each engine's own default player (gbot's
:data:`~gbot.engine.engine.PLAY_PLY`, gnubg's "World class"); 0 for the others."""

_OPTIONS = {
    "gbot": ("ply", "weights", "eval"),
    "gnubg": ("ply", "skill", "noise", "binary"),
    "external": ("timeout",),
    "gnubgnn": ("ply",),
    "random": (),
}


@dataclass(frozen=True)
class Resign:
    """A resignation offer: ``level`` 1 single, 2 gammon, 3 backgammon."""

    level: int = 1


class Player(Protocol):
    """What the game driver asks a seat; see the module docstring."""

    label: str

    def describe(self) -> str:
        """One line on what plays (engine, ply, weights, backend in use)."""
        ...

    def new_game(self, seed: int, opponent: str) -> None:
        """A game against ``opponent`` (a label) starts; ``seed`` feeds any randomness."""
        ...

    def before_roll(self, pos: Position, state: MatchState, may_double: bool,
                    may_resign: bool) -> CubeAnswer | Resign:
        """On roll, before rolling: roll, double (only when ``may_double``) or resign."""
        ...

    def play(self, pos: Position, dice: tuple[int, int], state: MatchState
             ) -> Play | None | Resign:
        """The play of ``dice`` (None when nothing is legal), or a resignation."""
        ...

    def respond_double(self, pos: Position, state: MatchState) -> TakeAnswer:
        """Take, drop or beaver the double pending in ``state``."""
        ...

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """Whether to accept the opponent's offer to lose ``level``."""
        ...

    def close(self) -> None:
        """Release processes and connections."""
        ...


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player description: ``kind``, ``options`` (sorted ``(key, value)`` pairs),
    ``address`` (external players) and the ``label`` shown in tables and match files."""

    kind: str
    options: tuple[tuple[str, str], ...] = ()
    address: str = ""
    label: str = ""

    def option(self, key: str, default: str | None = None) -> str | None:
        """The value of option ``key`` (``default`` when absent)."""
        for k, v in self.options:
            if k == key:
                return v
        return default

    @property
    def ply(self) -> int:
        """The look-ahead the spec asks for (gnubg: from its skill level too)."""
        if self.kind == "gnubg" and self.option("skill"):
            return GNUBG_SKILLS[str(self.option("skill"))][0]
        given = self.option("ply")
        return int(given) if given else DEFAULT_PLY.get(self.kind, 0)

    def text(self) -> str:
        """The canonical spec text (parses back to an equal spec)."""
        head = f"external:{self.address}" if self.kind == "external" else self.kind
        parts = [head, *(f"{k}={v}" for k, v in self.options)]
        if self.label:
            parts.append(f"name={self.label}")
        return ",".join(parts)

    def __str__(self) -> str:
        return self.text()

    def build(self, rules: Rules) -> Player:
        """The player this spec describes, playing under ``rules``."""
        label = self.label or default_label(self)
        if self.kind == "gbot":
            return EnginePlayer.gbot(label, self.ply, self.option("weights"), rules,
                                     heuristic=self.option("eval") == "heuristic")
        if self.kind == "gnubgnn":
            return EnginePlayer.gnubgnn(label, self.ply, rules)
        if self.kind == "random":
            return RandomPlayer(label, rules)
        if self.kind == "external":
            timeout = float(self.option("timeout", "300") or 300)
            return ExternalPlayer(label, self.address, rules, timeout=timeout)
        if self.kind == "gnubg":
            skill = self.option("skill")
            plies, noise = GNUBG_SKILLS[skill] if skill else (self.ply, 0.0)
            if self.option("noise") is not None:
                noise = float(str(self.option("noise")))
            return GnubgPlayer(label, rules, plies=plies, noise=noise,
                               binary=self.option("binary"))
        raise TournamentError(f"unknown player kind {self.kind!r}")


_LABEL = re.compile(r"[A-Za-z0-9_.+\-]{1,40}\Z")


def parse_player(text: str) -> PlayerSpec:
    """Read a player spec: ``KIND[,key=value...]``, ``external:HOST:PORT[,...]`` or
    ``HOST:PORT[,...]``; every kind takes ``name=LABEL`` (letters, digits, ``_.+-``)."""
    if not isinstance(text, str) or not text.strip():
        raise TournamentError(f"empty player spec: {text!r}")
    head, *rest = [p.strip() for p in text.strip().split(",")]
    address = ""
    kind = head.lower()
    if kind.startswith("external:"):
        kind, address = "external", head[len("external:"):]
    elif kind.replace("-", "") == "gnubgnn":
        kind = "gnubgnn"
    elif ":" in head:
        kind, address = "external", head
    if kind not in KINDS:
        raise TournamentError(f"unknown player kind {head!r} in {text!r} (one of {KINDS})")
    if kind == "external":
        _check_address(address, text)
    opts: dict[str, str] = {}
    label = ""
    for part in rest:
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        value = value.strip()
        if not sep or not key or not value:
            raise TournamentError(f"expected key=value, got {part!r} in {text!r}")
        if key == "name":
            if not _LABEL.match(value):
                raise TournamentError(f"a name is 1-40 letters, digits or _.+- : {value!r}")
            label = value
            continue
        if key not in _OPTIONS[kind]:
            raise TournamentError(f"{kind} takes no option {key!r} in {text!r} "
                                  f"(options: {', '.join(_OPTIONS[kind] + ('name',))})")
        opts[key] = value
    _check_options(kind, opts, text)
    return PlayerSpec(kind, tuple(sorted(opts.items())), address, label)


def _check_address(address: str, text: str) -> None:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise TournamentError(f"an external player needs HOST:PORT, got {text!r}")


def _check_options(kind: str, opts: dict[str, str], text: str) -> None:
    if "ply" in opts and (not opts["ply"].isdigit() or int(opts["ply"]) > 4):
        raise TournamentError(f"ply must be 0..4, got {opts['ply']!r} in {text!r}")
    if "skill" in opts:
        if opts["skill"] not in GNUBG_SKILLS:
            raise TournamentError(f"unknown gnubg skill {opts['skill']!r} "
                                  f"(one of {', '.join(GNUBG_SKILLS)})")
        if "ply" in opts:
            raise TournamentError(f"give gnubg a ply or a skill, not both: {text!r}")
    if opts.get("eval", "nets") not in ("nets", "heuristic"):
        raise TournamentError(f"eval is nets or heuristic, got {opts['eval']!r} in {text!r}")
    if opts.get("eval") == "heuristic" and "weights" in opts:
        raise TournamentError(f"the heuristic takes no weights: {text!r}")
    for key in ("noise", "timeout"):
        if key in opts:
            try:
                ok = float(opts[key]) >= 0
            except ValueError:
                ok = False
            if not ok:
                raise TournamentError(f"{key} must be a number >= 0, got {opts[key]!r}")


def default_label(spec: PlayerSpec) -> str:
    """A short label for ``spec``: ``gbot-1ply``, ``gnubg-expert``, ``ext-127.0.0.1-4000``."""
    if spec.kind == "random":
        return "random"
    if spec.kind == "external":
        return "ext-" + spec.address.replace(":", "-")
    if spec.kind == "gnubg" and spec.option("skill"):
        base = f"gnubg-{spec.option('skill')}"
    elif spec.option("eval") == "heuristic":
        base = f"gbot-heuristic-{spec.ply}ply"
    else:
        base = f"{spec.kind}-{spec.ply}ply"
    if spec.option("noise") is not None:
        base += f"-n{spec.option('noise')}"
    weights = spec.option("weights")
    if weights:
        stem = os.path.splitext(os.path.basename(weights))[0]
        base += "-" + re.sub(r"[^A-Za-z0-9_.+\-]", "_", stem)[:20]
    return base


# --------------------------------------------------------------------------- views


def my_view(state: MatchState, me: int) -> Position:
    """``me``'s position in ``state`` (the referee's board is seen by the player on roll)."""
    board = state.board_array()
    if state.player_on_roll != me:
        board = flip_py(board)
    return Position(board, max_checkers=state.rules.checkers)


# --------------------------------------------------------------------------- in-process


class EnginePlayer:
    """A seat played by :class:`gbot.engine.engine.Engine` (gbot's own, or over gnubg-nn's nets)."""

    def __init__(self, label: str, engine: Any, what: str) -> None:
        self.label = label
        self.engine = engine
        self._what = what

    @classmethod
    def gbot(cls, label: str, ply: int, weights: str | None, rules: Rules,
             heuristic: bool = False) -> EnginePlayer:
        """gbot's engine at ``ply`` with the shipped networks, those in ``weights``, or (only
        when asked) the built-in heuristic. Networks that cannot be loaded are an error: a
        tournament never measures the fallback by accident."""

        if heuristic:
            engine = Engine(evaluator=_NO_NETWORKS, ply=ply, rules=rules)
            engine.evaluator = None
        else:
            try:
                evaluator = (Evaluator(weights, caucasian=rules.caucasian) if weights
                             else Evaluator(caucasian=rules.caucasian))
                evaluator.probabilities(Position.initial(), 0)
            except Exception as exc:
                raise PlayerError(
                    f"gbot's networks ({weights or 'shipped'}) cannot be loaded: {exc}; "
                    "'gbot,eval=heuristic' plays the built-in heuristic instead") from None
            engine = Engine(evaluator=evaluator, ply=ply, rules=rules)
        _warm(engine)
        what = f"gbot {ply}-ply ({engine.backend}{', ' + weights if weights else ''})"
        return cls(label, engine, what)

    @classmethod
    def gnubgnn(cls, label: str, ply: int, rules: Rules) -> EnginePlayer:
        """gnubg-nn's networks and search at ``ply``, gbot's cube decisions on top."""

        engine = Engine(evaluator=GnubgNNEvaluator(), ply=ply, rules=rules)
        _warm(engine)
        return cls(label, engine, f"gnubg-nn {ply}-ply ({engine.backend})")

    def describe(self) -> str:
        """Engine, ply and backend."""
        return self._what

    def new_game(self, seed: int, opponent: str) -> None:
        """Nothing to reset: the engine is deterministic."""

    def before_roll(self, pos: Position, state: MatchState, may_double: bool,
                    may_resign: bool) -> CubeAnswer | Resign:
        """Resign when the engine gives the game up, else its cube action."""
        if may_resign:
            level = int(self.engine.resign_offer(pos, state))
            if level:
                return Resign(level)
        if may_double and self.engine.cube_action(pos, state) == "double":
            return "double"
        return "roll"

    def play(self, pos: Position, dice: tuple[int, int], state: MatchState
             ) -> Play | None | Resign:
        """The engine's best play."""
        chosen: Play | None = self.engine.choose_play(pos, dice, state)
        return chosen

    def respond_double(self, pos: Position, state: MatchState) -> TakeAnswer:
        """The engine's answer to the double."""
        answer: TakeAnswer = self.engine.respond_double(pos, state)
        return answer

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """The engine's answer to the resignation."""
        return bool(self.engine.accept_resignation(pos, state, level))

    def close(self) -> None:
        """Nothing to release."""


def _warm(engine: Any) -> None:
    """Compile (or load from the numba cache) what the engine uses, before the first game."""
    pos = Position.initial()
    engine.choose_play(pos, (3, 1))
    engine.probabilities(pos.swapped())


_NO_NETWORKS = object()
"""A stand-in evaluator that keeps :class:`~gbot.engine.engine.Engine` from loading the networks."""


class GnubgNNEvaluator:
    """gnubg-nn (PyPI ``gnubg_nn``) as an evaluator for :class:`gbot.engine.engine.Engine`:
    cubeless probabilities and best plays at any ply, standard (non-Caucasian) moves."""

    caucasian = False

    def __init__(self) -> None:
        try:
            import gnubg_nn
        except ImportError:
            raise PlayerError("the gnubgnn player needs the gnubg_nn package "
                              "(pip install gnubg-nn)") from None
        self._nn: Any = gnubg_nn

    @staticmethod
    def _pair(pos: Position) -> list[list[int]]:
        on_roll, opponent = pos.to_gnubg()
        return [list(opponent), list(on_roll)]

    def probabilities(self, pos: Position, ply: int = 0) -> tuple[float, ...]:
        """``(win, win_g, win_bg, lose_g, lose_bg)`` for the side on roll."""
        return tuple(float(x) for x in self._nn.probabilities(self._pair(pos), int(ply)))

    def best_play(self, pos: Position, dice: Sequence[int], ply: int = 0) -> Play | None:
        """gnubg-nn's play of ``dice`` at ``ply`` (None when nothing is legal)."""
        d1, d2 = (int(d) for d in dice)
        steps, key = self._nn.best_move(self._pair(pos), d1, d2, int(ply), b=1)
        if not steps:
            return None
        after = self._nn.board_from_position_key(key)   # already turned: next side on roll
        target = Position.from_gnubg(list(after[1]), list(after[0])).swapped()
        for play in pos.legal_plays((d1, d2)):
            if play.position == target:
                return play
        raise PlayerError(f"gnubg-nn chose a play that is not legal: {steps!r} "
                          f"in {pos.id()!r} with {(d1, d2)!r}")


class RandomPlayer:
    """Uniformly random legal plays from a per-game seed; never doubles or resigns, always
    takes, accepts every resignation (a floor for the other players' results)."""

    def __init__(self, label: str, rules: Rules) -> None:
        self.label = label
        self.rules = rules
        self._rng = random.Random(0)

    def describe(self) -> str:
        """What this player does."""
        return "uniformly random legal plays, never doubles, always takes"

    def new_game(self, seed: int, opponent: str) -> None:
        """Reseed from ``seed``."""
        self._rng = random.Random(seed)

    def before_roll(self, pos: Position, state: MatchState, may_double: bool,
                    may_resign: bool) -> CubeAnswer | Resign:
        """Always roll."""
        return "roll"

    def play(self, pos: Position, dice: tuple[int, int], state: MatchState
             ) -> Play | None | Resign:
        """One legal play, uniformly at random."""
        plays = pos.legal_plays(dice, caucasian=self.rules.caucasian)
        if not plays:
            return None
        return plays[self._rng.randrange(len(plays))]

    def respond_double(self, pos: Position, state: MatchState) -> TakeAnswer:
        """Always take."""
        return "take"

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """Always accept."""
        return True

    def close(self) -> None:
        """Nothing to release."""


# --------------------------------------------------------------------------- external


def board_line(state: MatchState, me: int, names: tuple[str, str],
               question: Literal["move", "double_or_roll", "take", "beavered", "resignation"]
               ) -> str:
    """The ``board:`` line (gnubg-external dialect) that asks ``me`` ``question`` in ``state``:
    :func:`gbot.game.notations.fibs_board.gnubg_line`, the line's owner."""

    return gnubg_line(state, me, names, question)


class ExternalPlayer:
    """A seat played by a program serving gnubg's external-player protocol at ``address``.

    One TCP connection for the player's life; one ``board:`` line out, one reply line back,
    with ``timeout`` seconds per reply. A reply that answers no legal move or cube action
    raises :class:`~gbot.errors.PlayerError` (gnubg's referee would silently forfeit the roll;
    a tournament stops instead of scoring a broken game).
    """

    def __init__(self, label: str, address: str, rules: Rules, *, timeout: float = 300.0,
                 connect_timeout: float = 30.0) -> None:
        self.label = label
        self.address = address
        self.rules = rules
        self.timeout = timeout
        self.requests = 0
        self._sock: socket.socket | None = None
        self._buf = b""
        self._opponent = "opponent"
        host, _, port = address.rpartition(":")
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self._sock = socket.create_connection((host, int(port)), timeout=timeout)
                break
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise PlayerError(f"cannot connect to external player {address!r}: "
                                      f"{exc}") from None
                time.sleep(0.2)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def describe(self) -> str:
        """The address served."""
        return f"external player at {self.address}"

    def new_game(self, seed: int, opponent: str) -> None:
        """Remember the opponent's name for the board lines."""
        self._opponent = opponent

    # --- wire ------------------------------------------------------------------------------
    def ask(self, line: str) -> str:
        """Send one request line, return the reply line (stripped of blanks and ``\\r``)."""
        sock = self._sock
        if sock is None:
            raise PlayerError(f"external player {self.address!r} is closed")
        self.requests += 1
        try:
            sock.sendall(line.encode("utf-8") + b"\n")
            while b"\n" not in self._buf:
                chunk = sock.recv(4096)
                if not chunk:
                    raise PlayerError(f"external player {self.address!r} closed the "
                                      f"connection after {line[:80]!r}")
                self._buf += chunk
                if len(self._buf) > 65536:
                    raise PlayerError(f"external player {self.address!r} sent no line end")
        except OSError as exc:
            raise PlayerError(f"external player {self.address!r}: {exc} "
                              f"(request {line[:80]!r})") from None
        raw, _, self._buf = self._buf.partition(b"\n")
        reply = raw.decode("utf-8", "replace").strip().strip("\x00").strip()
        if reply.lower().startswith("error"):
            raise PlayerError(f"external player {self.address!r} answered {reply!r} "
                              f"to {line!r}")
        return reply

    def _line(self, state: MatchState, question: Any) -> str:
        me = state.player_to_act
        line = board_line(state, me, (self.label, self._opponent), question)
        if state.match_length == 0:
            line += (f" jacobyrule {'on' if self.rules.jacoby else 'off'}"
                     f" beavers {'on' if self.rules.beavers else 'off'}")
        return line

    @staticmethod
    def _resign(reply: str) -> Resign | None:
        words = reply.lower().split()
        if not words or not words[0].startswith("re") or words[0].startswith("red"):
            return None
        if words[0] not in ("resign", "resigns", "resignation"):
            return None
        level = 1
        if len(words) > 1:
            level = {"n": 1, "s": 1, "g": 2, "b": 3}.get(words[1][0], 0)
            if not level:
                raise PlayerError(f"unreadable resignation {reply!r}")
        return Resign(level)

    # --- questions -------------------------------------------------------------------------
    def before_roll(self, pos: Position, state: MatchState, may_double: bool,
                    may_resign: bool) -> CubeAnswer | Resign:
        """Ask the double-or-roll question (only when doubling is possible, as gnubg does)."""
        if not may_double:
            return "roll"
        line = self._line(state, "double_or_roll")
        reply = self.ask(line)
        resign = self._resign(reply)
        if resign is not None:
            return resign if may_resign else "roll"
        word = reply.lower()
        if word.startswith("d"):
            return "double"
        if word.startswith("r"):
            return "roll"
        raise PlayerError(f"{self.label}: {reply!r} answers no double-or-roll question "
                          f"({line!r})")

    def play(self, pos: Position, dice: tuple[int, int], state: MatchState
             ) -> Play | None | Resign:
        """Ask for a move and read it in the mover's numbering."""
        line = self._line(state, "move")
        reply = self.ask(line)
        resign = self._resign(reply)
        if resign is not None:
            return resign
        plays = pos.legal_plays(dice, caucasian=self.rules.caucasian)
        if not plays:
            if reply.strip():
                raise PlayerError(f"{self.label}: {reply!r} for a roll that cannot be played "
                                  f"({line!r})")
            return None
        try:
            return pos.play_from_text(reply, dice, caucasian=self.rules.caucasian)
        except (MoveParseError, IllegalMoveError) as exc:
            raise PlayerError(f"{self.label}: no legal play in {reply!r} ({exc}; "
                              f"{line!r})") from None

    def respond_double(self, pos: Position, state: MatchState) -> TakeAnswer:
        """Ask the take question (or, after a beaver, whether to accept it)."""
        question = "beavered" if state.beavers else "take"
        line = self._line(state, question)
        reply = self.ask(line)
        word = reply.lower()
        if word.startswith(("t", "a")):
            return "take"
        if word.startswith(("d", "p", "rej")):
            return "drop"
        if word.startswith(("b", "red", "rac")):
            return "beaver"
        raise PlayerError(f"{self.label}: {reply!r} answers no take question ({line!r})")

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """Ask ``board:... resignation N``."""
        line = self._line(state, "resignation") + f" resignation {int(level)}"
        reply = self.ask(line).lower()
        if reply.startswith("a"):
            return True
        if reply.startswith("r"):
            return False
        raise PlayerError(f"{self.label}: {reply!r} answers no resignation ({line!r})")

    def close(self) -> None:
        """Say ``exit`` and close the connection."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.sendall(b"exit\n")
            with contextlib.suppress(OSError):
                sock.close()


def _gnubg_probabilities(reply: str, line: str) -> tuple[float, float, float, float, float]:
    """The five probabilities of gnubg's ``evaluation`` reply (six numbers), made consistent
    where its six-decimal rounding is not (a gammon chance above the win chance)."""
    try:
        v = [float(x) for x in reply.split()]
    except ValueError:
        v = []
    if len(v) != 6 or not all(0.0 <= x <= 1.0 for x in v[:5]):
        raise PlayerError(f"gnubg's evaluation {reply!r} is not six numbers ({line!r})")
    win, wg, wbg, lg, lbg = v[:5]
    wg = min(wg, win)
    lg = min(lg, 1.0 - win)
    return win, wg, min(wbg, wg), lg, min(lbg, lg)


def find_gnubg(explicit: str | None = None) -> str | None:
    """The gnubg binary: ``explicit``, ``gnubg`` on PATH or Debian's /usr/games/gnubg."""
    if explicit:
        return explicit if (os.path.exists(explicit) or shutil.which(explicit)) else None
    found = shutil.which("gnubg")
    if found:
        return found
    return "/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None


@dataclass
class _GnubgProcess:
    """A running ``gnubg -t`` answering as an external-player server on ``address``."""

    proc: subprocess.Popen[bytes]
    address: str
    home: str
    console: list[str] = field(default_factory=list)

    def stop(self) -> None:
        """SIGTERM (gnubg leaves its accept loop at once), then SIGKILL; remove its HOME."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        shutil.rmtree(self.home, ignore_errors=True)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gnubg_server(plies: int = 0, noise: float = 0.0, binary: str | None = None,
                       start_timeout: float = 60.0, attempts: int = 5) -> _GnubgProcess:
    """Start ``gnubg -t -q -r`` listening as an external-player server on a free loopback port,
    with its checker play and cube decisions at ``plies`` and ``noise`` (deterministic)."""
    exe = find_gnubg(binary)
    if exe is None:
        raise PlayerError(f"gnubg binary not found ({binary or 'gnubg, /usr/games/gnubg'})")
    last = ""
    for _ in range(attempts):
        port = _free_port()
        address = f"127.0.0.1:{port}"
        home = tempfile.mkdtemp(prefix="gbot_gnubg_")
        commands = [
            "set threads 1",
            f"set evaluation chequerplay evaluation plies {plies}",
            f"set evaluation cubedecision evaluation plies {plies}",
        ]
        if noise > 0:
            for what in ("chequerplay", "cubedecision"):
                commands += [f"set evaluation {what} evaluation noise {noise:.4f}",
                             f"set evaluation {what} evaluation deterministic on"]
        commands.append(f"external {address}")
        proc = subprocess.Popen([exe, "-t", "-q", "-r"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=home,
                                env=dict(os.environ, HOME=home), start_new_session=True,
                                preexec_fn=die_with_parent)
        assert proc.stdin is not None and proc.stdout is not None
        # stdin stays open: at EOF gnubg would quit after leaving the accept loop
        proc.stdin.write(("\n".join(commands) + "\n").encode())
        proc.stdin.flush()
        lines: queue.Queue[str | None] = queue.Queue()
        gp = _GnubgProcess(proc, address, home)

        def pump(stream: Any = proc.stdout, out: queue.Queue[str | None] = lines,
                 keep: list[str] = gp.console) -> None:
            for raw in stream:
                text = raw.decode("utf-8", "replace").rstrip()
                keep.append(text)
                del keep[:-50]
                out.put(text)
            out.put(None)

        threading.Thread(target=pump, name="gnubg-console", daemon=True).start()
        deadline = time.monotonic() + start_timeout
        status = ""
        while time.monotonic() < deadline:
            try:
                text = lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if text is None:
                status = "exited"
                break
            if "Waiting for a connection" in text:
                return gp
            if any(w in text for w in ("Address already in use", "Cannot assign",
                                       "Permission denied")):
                status = text
                break
        gp.stop()
        last = status or "no 'Waiting for a connection' line in time"
    raise PlayerError(f"cannot start gnubg as an external server: {last}")


class GnubgPlayer(ExternalPlayer):
    """GNU Backgammon at ``plies`` (with ``noise``), run as its own external-player server."""

    def __init__(self, label: str, rules: Rules, *, plies: int = 0, noise: float = 0.0,
                 binary: str | None = None, timeout: float = 600.0) -> None:
        self._server = start_gnubg_server(plies, noise, binary)
        self.plies = plies
        self.noise = noise
        try:
            super().__init__(label, self._server.address, rules, timeout=timeout)
        except BaseException:
            self._server.stop()
            raise

    def describe(self) -> str:
        """gnubg's settings."""
        extra = f", noise {self.noise:g}" if self.noise else ""
        return f"gnubg 1.07 external server, {self.plies}-ply{extra}"

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """Decided from gnubg's own evaluation, not its ``resignation N`` answer (gnubg
        1.07's server accepts every resignation it is offered, a single resignation while it
        holds a likely gammon included).

        gnubg evaluates the resigner's position, the resigner on roll (``evaluation
        fibsboard ... plies N``, at this player's plies); the offer is accepted exactly when
        it is worth at least what the resigner can expect by playing on with its best cube
        action under those probabilities (:func:`gbot.cube.resign.should_accept`, the rule
        gbot's own engine uses with its probabilities).
        """

        resigner = 1 - state.player_to_act
        line = board_line(state, resigner, (self._opponent, self.label), "resignation")
        if state.match_length == 0:
            line += (f" jacobyrule {'on' if self.rules.jacoby else 'off'}"
                     f" beavers {'on' if self.rules.beavers else 'off'}")
        reply = self.ask(f"evaluation fibsboard {line} plies {self.plies} cubeful")
        probs = _gnubg_probabilities(reply, line)
        st = replace(state, player_on_roll=resigner, player_to_act=resigner,
                     double_offered=False, resign_offered=0)
        ctx = context_from_state(st, board_cube_life(my_view(state, resigner).board))
        return bool(should_accept(probs, ctx, level))

    def close(self) -> None:
        """Close the connection and stop the gnubg process."""
        super().close()
        self._server.stop()
