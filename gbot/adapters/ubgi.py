"""UBGI, the Universal Backgammon Interface: a UCI-like line protocol on stdin/stdout.

:class:`UbgiSession` holds the context a controller (a GUI or a duel runner such as bgci) sets
up and answers one line at a time with :meth:`UbgiSession.handle`, which does no I/O;
:func:`run_session` reads lines and writes the replies, flushing after each. Decisions come
from the one decision engine (:class:`gbot.engine.engine.Engine`).

The commands of UBGI v0.1 (bungogood/bgci ``docs/ubgi-v0.1-spec.md``):

* ``ubgi`` -> ``id name``, ``id author``, ``option ...`` lines, ``ubgiok``; ``isready`` ->
  ``readyok``; ``quit``; ``stop`` (nothing runs in the background, so nothing to stop).
* ``setoption name <Name> value <Value>``: ``Threads``, ``Seed``, ``Deterministic``,
  ``EvalMode`` (cubeless/cubeful checker play), ``Ply`` (gnubg's numbering, 0-2),
  ``Variant`` (the start position of ``newgame``), ``BestMoveId`` (also answer
  ``bestmoveid``).
* ``newgame``; ``newsession type <money|match> [length N] [jacoby on|off] [crawford on|off]``;
  ``setscore <p0> <p1>``; ``setcube value <N> owner <center|p0|p1>``; ``setturn <p0|p1>``.
* ``position gnubgid <PID>`` (the side on roll is the turn's player), ``position xgid <XGID>``
  (score, cube, turn and dice too); ``dice <d1> <d2>``.
* ``go [role chequer|cube|turn|take] [movetime ms] [depth n] [nodes n] [trials n]`` ->
  ``bestmove <from/to ...>`` (``pass`` when no play is legal), ``bestcube double|nodouble``,
  ``bestturn cube=<double|nodouble> [moveid=<PID>]``; ``role take`` (a gbot extension) ->
  ``besttake take|drop|beaver``. An ``info`` line with the figures precedes each answer.
  ``depth n`` is root-inclusive as UBGI v0.2 defines it (``depth 1`` = gnubg 0-ply).

And UBGI v0.2's: ``set <key> <value>``, ``get <key>`` -> ``value <key> <value>``, ``keys`` ->
``key ...`` lines, ``go chequer|cube|turn``, bare ``go`` (chequer with dice, else cube).
Errors are ``error <code> <message>`` with v0.1's codes (``unknown_command``,
``bad_argument``, ``missing_context``, ``unsupported_feature``); the session goes on.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TextIO

from gbot.engine.engine import PLAY_PLY, Engine
from gbot.errors import FieldError, GbotError
from gbot.eval.evaluator import Evaluator
from gbot.game.fields import parse_choice, parse_int
from gbot.game.match import CENTRE, MatchState, Rules
from gbot.game.match import MAX_MATCH_LENGTH as MAX_LENGTH
from gbot.game.notations.xgid import parse_xgid
from gbot.game.position import Play, Position
from gbot.game.variations import start_board
from gbot.version import __version__

__all__ = ["UbgiError", "UbgiSession", "move_payload", "run_session"]

MAX_LINE = 1024
VARIANTS = ("backgammon", "nackgammon", "hypergammon")


class UbgiError(GbotError, ValueError):
    """A UBGI command that cannot be carried out; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def move_payload(play: Play | None) -> str:
    """A play as UBGI's space-separated ``from/to`` tokens, one per die (``bar``, ``off``),
    higher points first (an order they can be played in); ``pass`` when no checker moves."""
    if play is None or not play.steps:
        return "pass"

    def pt(p: int) -> str:
        return "bar" if p == 25 else "off" if p <= 0 else str(p)

    steps = sorted(play.steps, key=lambda s: (-s[0], -s[1]))   # a valid order: higher first
    return " ".join(f"{pt(a)}/{pt(b)}" for a, b in steps)


def _on_off(text: str, name: str) -> bool:
    t = text.lower()
    if t in ("on", "true", "1", "yes"):
        return True
    if t in ("off", "false", "0", "no"):
        return False
    raise UbgiError("bad_argument", f"{name} must be on or off, got {text!r}")


def _integer(text: str, name: str, lo: int, hi: int) -> int:
    """:func:`gbot.game.fields.parse_int`, refused as the protocol's ``bad_argument``."""
    try:
        return parse_int(text, name, lo, hi)
    except FieldError as exc:
        raise UbgiError("bad_argument", str(exc)) from None


def _player(text: str) -> int:
    return ("p0", "p1").index(parse_choice(text, "a player", ("p0", "p1")))


@dataclass(frozen=True)
class _Option:
    """One setting: its v0.1 name, v0.2 key, type text for both listings, and a parser."""

    name: str
    key: str
    kind: str          # spin, check, combo
    default: str
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()
    minor: bool = False
    help: str = ""

    def parse(self, text: str, label: str | None = None) -> Any:
        """The value of ``text``; errors name ``label`` (default: the v0.1 name)."""
        name = label or self.name
        if self.kind == "spin":
            return _integer(text, name, self.lo, self.hi)
        if self.kind == "check":
            return _on_off(text, name)
        return parse_choice(text, name, self.choices)

    def option_line(self) -> str:
        line = f"option name {self.name} type {self.kind} default {self.default}"
        if self.kind == "spin":
            line += f" min {self.lo} max {self.hi}"
        for c in self.choices:
            line += f" var {c}"
        return line

    def key_line(self, shift: int = 0) -> str:
        if self.kind == "spin":
            t = f"int {self.lo + shift}..{self.hi + shift} {int(self.default) + shift}"
        elif self.kind == "check":
            t = f"bool {self.default}"
        else:
            t = f"enum {'|'.join(self.choices)} {self.default}"
        return f"key {self.key} {t}{' !' if self.minor else ''} {self.help}".rstrip()


OPTIONS = (
    _Option("Ply", "engine.gnubg_ply", "spin", str(PLAY_PLY), 0, 2,
            help="look-ahead in gnubg's numbering (0-ply = static evaluation)"),
    _Option("EvalMode", "engine.evalmode", "combo", "cubeful", choices=("cubeless", "cubeful"),
            help="checker play by cubeless equity, or by the score and cube"),
    _Option("Variant", "game.variant", "combo", "backgammon", choices=VARIANTS,
            help="start position of newgame"),
    _Option("Threads", "engine.threads", "spin", "1", 1, 64, minor=True,
            help="accepted; gbot searches on one thread"),
    _Option("Seed", "engine.seed", "spin", "0", 0, 2**31 - 1, minor=True,
            help="accepted; gbot's decisions use no randomness"),
    _Option("Deterministic", "engine.deterministic", "check", "true", minor=True,
            help="always true"),
    _Option("BestMoveId", "engine.bestmoveid", "check", "false", minor=True,
            help="also answer bestmoveid <PID>"),
)
_BY_NAME = {o.name.lower(): o for o in OPTIONS}
_BY_KEY = {o.key: o for o in OPTIONS}
PLY_KEY = "engine.ply"
"""UBGI v0.2's root-inclusive depth: engine.ply N is gnubg's (N - 1)-ply."""


class UbgiSession:
    """One controller's session: options, match context, position and dice.

    ``make_engine(rules, ply)`` gives the decision engine (tests pass their own);
    by default :class:`gbot.engine.engine.Engine` over one shared :class:`gbot.Evaluator`.
    """

    def __init__(self, make_engine: Callable[[Rules, int], Any] | None = None,
                 ply: int = PLAY_PLY, name: str = f"gbot {__version__}") -> None:
        self._make = make_engine if make_engine is not None else _default_factory()
        self._engines: dict[tuple[Rules, int], Any] = {}
        self._warm = make_engine is not None
        self.name = name
        self.values: dict[str, Any] = {o.name: o.parse(o.default) for o in OPTIONS}
        self.values["Ply"] = OPTIONS[0].parse(str(ply))
        self.length = 0
        self.jacoby = True
        self.crawford_rule = True
        self.score = (0, 0)
        self.cube = 1
        self.owner = CENTRE
        self.turn = 0
        self.crawford = False
        self.position: Position | None = None
        self.dice: tuple[int, int] | None = None

    # --- dispatch ------------------------------------------------------------------------
    def handle(self, line: str) -> tuple[list[str], bool]:
        """The reply lines to ``line`` and whether the session ends."""
        if len(line) > MAX_LINE:
            return [f"error bad_argument line longer than {MAX_LINE} characters"], False
        words = line.split()
        if not words:
            return [], False
        cmd, args = words[0], words[1:]
        if cmd == "quit":
            return [], True
        handler = _COMMANDS.get(cmd)
        if handler is None:
            return [f"error unknown_command {cmd}"], False
        try:
            return handler(self, args), False
        except UbgiError as exc:
            return [f"error {exc.code} {_one_line(str(exc))}"], False
        except GbotError as exc:
            return [f"error bad_argument {_one_line(str(exc))}"], False

    # --- handshake and options ---------------------------------------------------------------
    def _ubgi(self, args: list[str]) -> list[str]:
        return ([f"id name {self.name}", "id author the gbot authors"]
                + [o.option_line() for o in OPTIONS] + ["ubgiok"])

    def _isready(self, args: list[str]) -> list[str]:
        """``readyok`` once the networks are loaded and the kernels compiled."""
        if not self._warm:
            ev: Any = getattr(self._engine(int(self.values["Ply"])), "evaluator", None)
            if hasattr(ev, "warm"):
                ev.warm()
            self._warm = True
        return ["readyok"]

    def _stop(self, args: list[str]) -> list[str]:
        return []

    def _setoption(self, args: list[str]) -> list[str]:
        if len(args) < 4 or args[0] != "name" or "value" not in args[2:]:
            raise UbgiError("bad_argument", "expected: setoption name <Name> value <Value>")
        v = args.index("value", 2)
        name, value = " ".join(args[1:v]), " ".join(args[v + 1:])
        opt = _BY_NAME.get(name.lower())
        if opt is None:
            raise UbgiError("unsupported_feature", f"no option {name!r}")
        self.values[opt.name] = opt.parse(value)
        return []

    def _set(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise UbgiError("bad_argument", "expected: set <key> <value>")
        key, value = args
        if key == PLY_KEY:
            self.values["Ply"] = _integer(value, key, 1, 3) - 1
            return []
        opt = _BY_KEY.get(key)
        if opt is None:
            raise UbgiError("unsupported_feature", f"no key {key!r}")
        self.values[opt.name] = opt.parse(value, key)
        return []

    def _get(self, args: list[str]) -> list[str]:
        if len(args) != 1:
            raise UbgiError("bad_argument", "expected: get <key>")
        key = args[0]
        if key == PLY_KEY:
            return [f"value {key} {self.values['Ply'] + 1}"]
        opt = _BY_KEY.get(key)
        if opt is None:
            raise UbgiError("unsupported_feature", f"no key {key!r}")
        v = self.values[opt.name]
        return [f"value {key} {str(v).lower() if isinstance(v, bool) else v}"]

    def _keys(self, args: list[str]) -> list[str]:
        ply = OPTIONS[0]
        return ([f"key {PLY_KEY} int 1..3 {int(ply.default) + 1} root-inclusive decision depth "
                 f"(1 = gnubg 0-ply)"] + [o.key_line() for o in OPTIONS])

    # --- context -------------------------------------------------------------------------
    def _newgame(self, args: list[str]) -> list[str]:
        variant = {"backgammon": "standard", "nackgammon": "nackgammon",
                   "hypergammon": "hyper3"}[self.values["Variant"]]
        self.position = Position(start_board(variant))
        self.dice = None
        self.cube, self.owner = 1, CENTRE
        return []

    def _newsession(self, args: list[str]) -> list[str]:
        opts = dict(zip(args[::2], args[1::2], strict=False))
        if len(args) % 2 or "type" not in opts or not set(opts) <= {"type", "length", "jacoby",
                                                                   "crawford"}:
            raise UbgiError("bad_argument", "expected: newsession type <money|match> "
                                            "[length N] [jacoby on|off] [crawford on|off]")
        kind = opts["type"]
        if kind == "money":
            length = 0
        elif kind == "match":
            if "length" not in opts:
                raise UbgiError("bad_argument", "a match needs a length")
            length = _integer(opts["length"], "length", 1, MAX_LENGTH)
        else:
            raise UbgiError("bad_argument", f"type is money or match, got {kind!r}")
        self.length = length
        self.jacoby = _on_off(opts.get("jacoby", "on"), "jacoby")
        self.crawford_rule = _on_off(opts.get("crawford", "on"), "crawford")
        self.score = (0, 0)
        self.crawford = False
        self.cube, self.owner = 1, CENTRE
        return []

    def _setscore(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise UbgiError("bad_argument", "expected: setscore <p0> <p1>")
        hi = max(self.length - 1, 0) if self.length else 10**6
        s = (_integer(args[0], "score", 0, hi), _integer(args[1], "score", 0, hi))
        self.score = s
        # the first game at match point is the Crawford game; a controller that knows
        # better sends an XGID, which carries the flag
        self.crawford = bool(self.length and self.crawford_rule and self.length - 1 in s
                             and s != (self.length - 1, self.length - 1))
        return []

    def _setcube(self, args: list[str]) -> list[str]:
        opts = dict(zip(args[::2], args[1::2], strict=False))
        if len(args) != 4 or set(opts) != {"value", "owner"}:
            raise UbgiError("bad_argument", "expected: setcube value <N> owner <center|p0|p1>")
        value = _integer(opts["value"], "cube value", 1, 2**15)
        if value & (value - 1):
            raise UbgiError("bad_argument", f"the cube is a power of 2, got {value}")
        owner = opts["owner"]
        if owner in ("center", "centre"):
            if value != 1:
                raise UbgiError("bad_argument", "a centred cube has value 1")
            self.owner = CENTRE
        else:
            self.owner = _player(owner)
        self.cube = value
        return []

    def _setturn(self, args: list[str]) -> list[str]:
        if len(args) != 1:
            raise UbgiError("bad_argument", "expected: setturn <p0|p1>")
        self.turn = _player(args[0])
        return []

    def _position(self, args: list[str]) -> list[str]:
        if len(args) != 2 or args[0] not in ("gnubgid", "xgid"):
            raise UbgiError("bad_argument", "expected: position gnubgid <PID> | position xgid "
                                            "<XGID>")
        if args[0] == "gnubgid":
            self.position = Position.from_id(args[1])
            self.dice = None
            return []
        pos, st = parse_xgid(args[1])
        if st.match_length > MAX_LENGTH:
            raise UbgiError("bad_argument", f"match length {st.match_length} is above "
                                            f"{MAX_LENGTH}")
        self.position, self.length, self.score = pos, st.match_length, st.score
        self.cube, self.owner, self.turn = st.cube_value, st.cube_owner, st.player_on_roll
        self.crawford = bool(st.crawford)
        self.jacoby = st.rules.jacoby if not st.match_length else self.jacoby
        self.dice = st.dice if st.dice[0] else None
        return []

    def _dice(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise UbgiError("bad_argument", "expected: dice <d1> <d2>")
        self.dice = (_integer(args[0], "die", 1, 6), _integer(args[1], "die", 1, 6))
        return []

    # --- decisions -------------------------------------------------------------------------
    def _state(self) -> MatchState:
        return MatchState(match_length=self.length, score=self.score, cube_value=self.cube,
                          cube_owner=self.owner, player_on_roll=self.turn,
                          player_to_act=self.turn, crawford=self.crawford,
                          crawford_done=self.crawford or bool(
                              self.length and self.length - 1 in self.score),
                          rules=self._rules())

    def _rules(self) -> Rules:
        return Rules(jacoby=self.jacoby and self.length == 0, beavers=False)

    def _engine(self, ply: int) -> Any:
        key = (self._rules(), ply)
        eng = self._engines.get(key)
        if eng is None:
            eng = self._engines[key] = self._make(*key)
        return eng

    def _go(self, args: list[str]) -> list[str]:
        role = None
        ply = int(self.values["Ply"])
        rest = list(args)
        if rest and rest[0] in ("chequer", "checker", "cube", "turn", "take"):
            role = rest.pop(0)
        while rest:
            word = rest.pop(0)
            if not rest:
                raise UbgiError("bad_argument", f"go: {word} needs a value")
            value = rest.pop(0)
            if word == "role":
                role = value
            elif word == "depth":
                ply = _integer(value, "depth", 1, 3) - 1
            elif word in ("movetime", "nodes", "trials"):
                _integer(value, word, 0, 10**12)     # accepted; gbot's search is fixed-size
            else:
                raise UbgiError("bad_argument", f"go: unknown argument {word!r}")
        if self.position is None:
            raise UbgiError("missing_context", "no position (send position gnubgid <PID>)")
        if self.position.is_over():
            raise UbgiError("bad_argument", "the game is over in this position")
        if role is None:
            role = "chequer" if self.dice is not None else "cube"
        if role == "checker":
            role = "chequer"
        eng = self._engine(ply)
        t0 = time.perf_counter()
        if role == "chequer":
            return self._chequer(eng, t0)
        if role == "cube":
            return self._cube(eng, t0)
        if role == "turn":
            return self._turn(eng, t0)
        if role == "take":
            return self._take(eng, t0)
        raise UbgiError("bad_argument", f"role is chequer, cube, turn or take, got {role!r}")

    def _play(self, eng: Any) -> Play | None:
        if self.dice is None:
            raise UbgiError("missing_context", "no dice (send dice <d1> <d2>)")
        assert self.position is not None
        state = self._state()
        if self.values["EvalMode"] == "cubeful" and eng.plays_by_state(state):
            return eng.choose_play(self.position, self.dice, state)   # type: ignore[no-any-return]
        return eng.choose_play(self.position, self.dice)   # type: ignore[no-any-return]

    def _info(self, eng: Any, role: str, t0: float, pos: Position) -> str:
        p = eng.probabilities(pos)
        eq = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
        ms = (time.perf_counter() - t0) * 1000
        return (f"info role {role} depth {eng.ply + 1} time_ms {ms:.0f} eq {eq:.4f} "
                f"pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg {p[2]:.4f}")

    def _chequer(self, eng: Any, t0: float) -> list[str]:
        play = self._play(eng)
        assert self.position is not None
        after = play.position.swapped() if play is not None else self.position.swapped()
        p = eng.probabilities(after)
        eq = -(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])
        ms = (time.perf_counter() - t0) * 1000
        out = [f"info role chequer depth {eng.ply + 1} time_ms {ms:.0f} eq {eq:.4f} "
               f"pwin {1 - p[0]:.4f} "
               f"pgammon {p[3]:.4f} pbg {p[4]:.4f}", f"bestmove {move_payload(play)}"]
        if self.values["BestMoveId"]:
            out.append(f"bestmoveid {(play.position if play else self.position).id()}")
        return out

    def _cube_word(self, eng: Any) -> str:
        assert self.position is not None
        return "double" if eng.cube_action(self.position, self._state()) == "double" \
            else "nodouble"

    def _cube(self, eng: Any, t0: float) -> list[str]:
        assert self.position is not None
        word = self._cube_word(eng)
        return [self._info(eng, "cube", t0, self.position), f"bestcube {word}"]

    def _turn(self, eng: Any, t0: float) -> list[str]:
        assert self.position is not None
        word = self._cube_word(eng)
        info = self._info(eng, "turn", t0, self.position)
        if word == "double" or self.dice is None:
            return [info, f"bestturn cube={word}"]
        play = self._play(eng)
        moved = play.position if play is not None else self.position
        return [info, f"bestturn cube=nodouble moveid={moved.id()}"]

    def _take(self, eng: Any, t0: float) -> list[str]:
        """The answer to a double by the opponent: the position is seen by the taker."""
        assert self.position is not None
        st = self._state()
        doubled = replace(st, player_on_roll=1 - self.turn, double_offered=True)
        if not doubled.rules.cube_enabled or self.owner == 1 - self.turn or (
                self.length and self.crawford):
            raise UbgiError("bad_argument", "the opponent may not double here")
        word = eng.respond_double(self.position, doubled)
        p = eng.probabilities(self.position.swapped())      # the doubler on roll
        eq = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
        ms = (time.perf_counter() - t0) * 1000
        return [f"info role take depth {eng.ply + 1} time_ms {ms:.0f} eq {-eq:.4f} "
                f"pwin {1 - p[0]:.4f} "
                f"pgammon {p[3]:.4f} pbg {p[4]:.4f}", f"besttake {word}"]

    # --- gbot extension ----------------------------------------------------------------------
    def _eval(self, args: list[str]) -> list[str]:
        if self.position is None:
            raise UbgiError("missing_context", "no position (send position gnubgid <PID>)")
        eng = self._engine(int(self.values["Ply"]))
        p = eng.probabilities(self.position)
        eq = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
        out = f"eval depth {eng.ply + 1} eq {eq:.4f}"
        if self.length:
            out += f" mwc {eng.equity(self.position, self._state(), cubeful=True):.4f}"
        return [out + f" pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg {p[2]:.4f}"]


_COMMANDS: dict[str, Callable[[UbgiSession, list[str]], list[str]]] = {
    "ubgi": UbgiSession._ubgi,
    "isready": UbgiSession._isready,
    "stop": UbgiSession._stop,
    "setoption": UbgiSession._setoption,
    "set": UbgiSession._set,
    "get": UbgiSession._get,
    "keys": UbgiSession._keys,
    "newgame": UbgiSession._newgame,
    "newsession": UbgiSession._newsession,
    "setscore": UbgiSession._setscore,
    "setcube": UbgiSession._setcube,
    "setturn": UbgiSession._setturn,
    "position": UbgiSession._position,
    "dice": UbgiSession._dice,
    "go": UbgiSession._go,
    "eval": UbgiSession._eval,
}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _default_factory() -> Callable[[Rules, int], Any]:
    shared: dict[str, Any] = {}

    def make(rules: Rules, ply: int) -> Any:
        if "ev" not in shared:
            shared["ev"] = Evaluator()
        return Engine(evaluator=shared["ev"], ply=ply, rules=rules)

    return make


def run_session(lines: Iterable[str], out: TextIO, session: UbgiSession | None = None) -> int:
    """Answer ``lines`` until ``quit`` or their end, writing replies to ``out``; 0."""
    s = session if session is not None else UbgiSession()
    for raw in lines:
        replies, done = s.handle(raw.strip())
        for r in replies:
            out.write(r + "\n")
        out.flush()
        if done:
            break
    return 0


def main(stdin: TextIO | None = None, stdout: TextIO | None = None,
         ply: int = PLAY_PLY) -> int:
    """``gbot ubgi``: a session on stdin/stdout."""
    return run_session(stdin if stdin is not None else sys.stdin,
                       stdout if stdout is not None else sys.stdout, UbgiSession(ply=ply))
