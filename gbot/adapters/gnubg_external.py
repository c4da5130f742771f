"""GNU Backgammon's external-player protocol: one request line in, one reply line out.

:func:`handle_line` is the whole protocol and does no I/O; :mod:`gbot.adapters.gnubg_server`
owns the sockets. It answers both sides of the protocol (``protocols/gnubg-external.md``):

* gnubg as referee (``set player N external ADDR``) sends ``board:`` lines; the reply is a
  move in gnubg's notation (mover's own numbering; an empty line when no move exists),
  ``roll``/``double``, ``take``/``drop``/``beaver``, or ``resign [gammon|backgammon]``.
* a client of gnubg's own server (``external ADDR``) may also send ``version``, ``help``,
  ``set debug|interface ...``, ``evaluation fibsboard board:... [options]``,
  ``board:... resignation N`` (reply ``accept``/``reject``), ``exit`` or ``quit``.

Anything that cannot be read gets one ``Error: ...`` line and the session continues. Every
reply is one line shorter than 256 bytes; the exceptions are ``version`` (four lines, as gnubg)
and debug mode (``DBG:`` lines before a board answer, as gnubg).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gbot.errors import GbotError, ProtocolError
from gbot.game.match import MatchState, Rules
from gbot.game.notations.fibs_board import FibsBoard, parse_gnubg_question
from gbot.game.position import Position
from gbot.version import __version__

if TYPE_CHECKING:
    from gbot.engine.engine import Engine

__all__ = ["FAST_PATH", "MAX_LINE", "MAX_REPLY", "Session", "fast_reply", "handle_line", "warm"]

MAX_REPLY = 255
"""Longest reply line in bytes, newline excluded (gnubg reads replies into 256 bytes)."""
MAX_LINE = 1024
"""Longest request accepted (gnubg's own limit is 255; options make ours a little longer)."""

_BLANK = " \t\r\n\x0b\x0c\x00"
"""Stripped from both ends of a request: blanks, line ends, and gnubg's NUL byte."""
_TRUE = ("on", "yes", "true")
_FALSE = ("off", "no", "false")
_RESIGN_WORDS = {1: "resign", 2: "resign gammon", 3: "resign backgammon"}


@dataclass
class Session:
    """Per-connection state: the engine, the ``set`` switches and the last resignation."""

    engine: Engine
    debug: bool = False
    new_interface: bool = False
    requests: int = 0
    errors: int = 0
    pending_resign: tuple[tuple[int, int], int] | None = field(default=None, repr=False)
    """``(score, level)`` of the resignation I offered in my last reply. If the next question
    comes at the same score, gnubg declined it (a game always changes the score)."""
    declined: int = 0
    """The highest resignation level declined in the current game. gnubg 1.07 refuses to hear
    an offer at or below it again in that game (and stops play), so I never repeat one."""
    game_score: tuple[int, int] | None = field(default=None, repr=False)


@dataclass
class _Options:
    """Options after a board: rule switches, the offered resignation, evaluation settings."""

    jacoby: bool | None = None
    beavers: bool | None = None
    crawford: bool | None = None
    resignation: int = 0
    plies: int | None = None
    cubeful: bool = True


def handle_line(session: Session, line: str | bytes) -> tuple[str | None, bool]:
    """Answer one request: ``(reply, end_session)``.

    ``reply`` has no trailing newline (the caller adds one) and is None when nothing must be
    sent (``exit``/``quit``). gnubg's NUL byte, surrounding blanks and ``\\r`` are ignored.
    """
    session.requests += 1
    try:
        fast = fast_reply(session, line) if FAST_PATH else None
        if fast is not None:
            return fast, False
        reply, end = _dispatch(session, _clean(line))
    except (GbotError, ValueError) as exc:
        session.errors += 1
        reply, end = _error(str(exc)), False
    except Exception as exc:  # an engine bug must not cost the connection
        session.errors += 1
        reply, end = _error(f"internal error: {type(exc).__name__}: {exc}"), False
    return reply, end


FAST_PATH = True
"""Answer the common questions through :mod:`gbot.core.answer` (tests turn it off to compare
with the general path)."""
_BLANK_BYTES = _BLANK.encode()


def fast_reply(session: Session, line: str | bytes) -> str | None:
    """The engine's one-call reply to a bare ``board:`` line (:meth:`Engine.fast_reply`), or
    None when the general path must answer (the same reply either way)."""
    if session.debug:
        return None
    if type(line) is not bytes and isinstance(line, str):
        if not line.isascii():
            return None
        line = line.encode()
    raw = line.strip(_BLANK_BYTES)
    if raw[:6] != b"board:" or len(raw) > MAX_LINE or len(raw.split(None, 1)) != 1:
        return None
    fast = session.engine.fast_reply(raw)
    if fast is None:
        return None
    text, score, resign = fast
    _track_score(session, score)
    if resign:
        offer = _offer(session, score, resign)
        if offer is not None:
            return offer
    return text


def warm(engine: Engine) -> None:
    """Answer moves, cube questions (double and take) and a bear-off, in money and match play,
    with ``engine`` (a throwaway session): every kernel of the common questions loaded, and the
    bear-off tables, before play. The short bear-off's double and take load the cube look-ahead's
    kernels whatever the engine's cube look-ahead (:meth:`Engine.cube_decision_ply`); a certain
    gammon loss (``AQAAAPj/AwAAAA``) the resignation's, on the one-call answers and on the
    engine's own path."""

    for pid, dice, length, pending in (
            ("AQAAAPj/AwAAAA", (0, 0), 0, False), ("AQAAAPj/AwAAAA", (2, 1), 5, False),
            ("4HPwATDgc/ABMA", (3, 1), 0, False), ("4HPwATDgc/ABMA", (0, 0), 0, False),
            ("NwAAwB0AAAAAAA", (3, 1), 0, False), ("NwAAwB0AAAAAAA", (0, 0), 0, False),
            ("NwAAwB0AAAAAAA", (0, 0), 0, True), ("4HPwATDgc/ABMA", (6, 4), 5, False),
            ("4HPwATDgc/ABMA", (0, 0), 5, False), ("sHPwATDgc/ABMA", (0, 0), 5, False),
            ("4HPwATDgc/ABMA", (0, 0), 0, True), ("4HPwATDgc/ABMA", (0, 0), 5, True)):
        points = tuple(int(v) for v in Position.from_id(pid).board)
        fb = FibsBoard(points=points, dice=dice, cube_value=1, cube_owner="centre",
                       may_double=(True, True), double_pending=pending, score=(0, 0),
                       match_length=length, crawford_game=False, post_crawford=False,
                       names=("gbot", "warm"))
        handle_line(Session(engine), fb.line())
    # the general path's resignation rule (lines the one-call answers leave to the engine)
    loss = Position.from_id("AQAAAPj/AwAAAA")
    for length in (0, 5):
        state = MatchState(match_length=length)
        engine.resign_offer(loss, state)
        engine.accept_resignation(loss.swapped(), state, 1)


def _clean(line: str | bytes) -> str:
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    text = line.strip(_BLANK)
    size = len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
    if size > MAX_LINE:
        raise ProtocolError(f"request longer than {MAX_LINE} bytes: {text[:40]!r}...")
    if "\x00" in text or "\n" in text or "\r" in text:
        raise ProtocolError(f"control characters inside the request: {text[:60]!r}")
    return text


def _error(message: str) -> str:
    """An ``Error: ...`` reply, cut to fit in gnubg's reply buffer."""
    text = "Error: " + message.replace("\n", " ").replace("\r", " ")
    raw = text.encode("utf-8", "replace")
    if len(raw) > MAX_REPLY:
        text = raw[:MAX_REPLY - 3].decode("utf-8", "ignore") + "..."
    return text


def _dispatch(session: Session, text: str) -> tuple[str | None, bool]:
    if not text:
        raise ProtocolError("no command given")
    head, _, rest = text.partition(" ")
    word = head.lower()
    if word.startswith("board:"):
        return _board(session, text, evaluation=False), False
    if word == "fibsboard":
        return _board(session, rest.strip(), evaluation=False), False
    if word == "evaluation":
        body = rest.strip()
        first, _, after = body.partition(" ")
        if first.lower() != "fibsboard" or not after.strip():
            raise ProtocolError(f"expected 'evaluation fibsboard board:...', got {text!r}")
        return _board(session, after.strip(), evaluation=True), False
    if word in ("exit", "quit"):
        return None, True
    if word == "version":
        return _version(), False
    if word == "help":
        return ("\tcommands: board:..., fibsboard board:..., evaluation fibsboard board:..., "
                "version, set debug on|off, set interface new|old, help, exit"), False
    if word == "set":
        return _set(session, rest.strip()), False
    raise ProtocolError(f"unknown command {head!r}")


def _version() -> str:
    return "\n".join(("Interface: 2", "RFBF: 0", f"Engine: gbot {__version__}",
                      f"Software: gbot {__version__}"))


def _set(session: Session, args: str) -> str:
    name, _, value = args.partition(" ")
    key, val = name.lower(), value.strip().lower()
    if key == "debug":
        session.debug = _flag(val, f"set debug {value!r}")
        return "Debug output ON" if session.debug else "Debug output OFF"
    if key == "interface":
        if val not in ("new", "old"):
            raise ProtocolError(f"set interface takes new or old, got {value!r}")
        session.new_interface = val == "new"
        return "New interface ON" if session.new_interface else "New interface OFF"
    raise ProtocolError(f"set option {name!r} not supported")


def _flag(word: str, what: str) -> bool:
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ProtocolError(f"expected on or off in {what}")


_BOARD_PREFIX = re.compile(r"board:", re.IGNORECASE)
_BOARD_AND_OPTIONS = re.compile(r"(board:[^:]*:[^:]*(?::-?\d+){50})(?:\s+(.*))?\Z",
                                re.IGNORECASE)
MAX_EVAL_PLIES = 4
"""Deepest ``evaluation ... plies N`` answered (as ``gbot serve --ply``; a 4-ply evaluation
takes tens of seconds, and the session waits for it)."""


def _board(session: Session, text: str, evaluation: bool) -> str:
    if len(text.split(None, 1)) == 1:       # the usual request: a bare board line
        line, opts_text = text, ""
    else:
        whole = _BOARD_AND_OPTIONS.match(text)
        if whole is not None:       # names may hold blanks: the 50 numbers end the board
            line, opts_text = whole.group(1), whole.group(2) or ""
        else:
            line, _, opts_text = text.partition(" ")
    if not _BOARD_PREFIX.match(line):
        raise ProtocolError(f"expected a board:... line, got {text[:60]!r}")
    if not line.startswith("board:"):
        line = "board:" + line[6:]
    opts = _options(opts_text, evaluation)
    fb, beavered = parse_gnubg_question(line)
    engine = session.engine
    rules = _rules(engine.rules, opts, fb)
    if rules is not engine.rules and rules != engine.rules:
        engine = engine.with_rules(rules)
    pos = fb.position
    if evaluation:
        answer = _evaluation(engine, pos, _state(fb, rules, opts), opts)
    elif opts.resignation:
        accept = engine.accept_resignation(pos, _state(fb, rules, opts), opts.resignation)
        answer = "accept" if accept else "reject"
    elif beavered:
        answer = "take"    # the opponent beavered my double: accept the cube (no raccoons)
    else:
        answer = _decide(session, engine, fb, pos, rules, opts)
    if session.debug:
        return "\n".join(_debug_lines(fb, pos, _state(fb, rules, opts), rules, opts) + [answer])
    return answer


def _state(fb: FibsBoard, rules: Rules, opts: _Options) -> MatchState:
    """The line's match state under the session's rules and the request's options."""
    return fb.match_state(rules, False if opts.crawford is False else None)


def _options(text: str, evaluation: bool) -> _Options:
    opts = _Options()
    words = text.split()
    i = 0

    def value(kind: str) -> str:
        nonlocal i
        if i + 1 >= len(words):
            raise ProtocolError(f"option {kind!r} needs a value in {text!r}")
        i += 1
        return words[i].lower()

    while i < len(words):
        w = words[i].lower()
        if w in ("jacobyrule", "jacoby"):
            opts.jacoby = _flag(value(w), f"{w} in {text!r}")
        elif w == "beavers":
            opts.beavers = _flag(value(w), f"{w} in {text!r}")
        elif w in ("crawfordrule", "crawford"):
            opts.crawford = _flag(value(w), f"{w} in {text!r}")
        elif w == "resignation":
            v = value(w)
            if v not in ("0", "1", "2", "3"):
                raise ProtocolError(f"resignation takes 1, 2 or 3, got {v!r}")
            opts.resignation = int(v)
        elif evaluation and w in ("plies", "ply"):
            v = value(w)
            if not v.isdigit() or int(v) > MAX_EVAL_PLIES:
                raise ProtocolError(f"plies takes 0..{MAX_EVAL_PLIES}, got {v!r}")
            opts.plies = int(v)
        elif evaluation and w in ("cubeful", "cubeless"):
            opts.cubeful = w == "cubeful"
        elif evaluation and w in ("cube", "prune", "deterministic"):
            if i + 1 < len(words) and words[i + 1].lower() in _TRUE + _FALSE:
                on = _flag(value(w), w)
                if w == "cube":
                    opts.cubeful = on
        elif evaluation and w == "noise":
            v = value(w)
            try:
                float(v)
            except ValueError:
                raise ProtocolError(f"noise takes a number, got {v!r}") from None
        else:
            raise ProtocolError(f"unknown option {words[i]!r}")
        i += 1
    return opts


def _rules(base: Rules, opts: _Options, fb: FibsBoard) -> Rules:
    rules = base
    if opts.jacoby is not None and opts.jacoby != rules.jacoby:
        rules = replace(rules, jacoby=opts.jacoby)
    if opts.beavers is not None and opts.beavers != rules.beavers:
        rules = replace(rules, beavers=opts.beavers)
    return rules


def _decide(session: Session, engine: Engine, fb: FibsBoard, pos: Position, rules: Rules,
            opts: _Options) -> str:
    question = fb.question
    _track_game(session, fb)
    if question == "take_or_drop":
        state = _state(fb, rules, opts)
        answer = engine.respond_double(pos, state)
        if answer == "beaver" and not state.beaver_allowed:
            return "take"
        return answer if answer in ("take", "drop", "beaver") else "take"
    if question == "move" and not engine.may_resign(pos):
        return _play(engine, fb, pos, rules, opts)      # the common case
    state = _state(fb, rules, opts)
    offer = _offer(session, (int(fb.score[0]), int(fb.score[1])),
                   engine.resign_offer(pos, state))
    if offer is not None:
        return offer
    if question == "double_or_roll":
        action = engine.cube_action(pos, state)
        return "double" if action == "double" and state.may_double(state.player_to_act) else "roll"
    return _play(engine, fb, pos, rules, opts, state)


def _offer(session: Session, score: tuple[int, int], level: int) -> str | None:
    """The reply offering the resignation ``level`` (0: none) at ``score`` (me, opponent),
    remembered as pending; None when there is none to offer or gnubg declined one at least as
    high in this game (it would refuse to hear it again)."""
    if level > session.declined:
        session.pending_resign = (score, level)
        return _RESIGN_WORDS[level]
    return None


def _play(engine: Engine, fb: FibsBoard, pos: Position, rules: Rules, opts: _Options,
          state: MatchState | None = None) -> str:
    """The move reply. The match state goes to the engine only where the play can depend on
    it (a match's score, a money end mode other than backgammons: Engine.plays_by_state)."""
    if fb.match_length or rules.end_mode != "backgammons":
        st = state if state is not None else _state(fb, rules, opts)
        if engine.plays_by_state(st):
            play = engine.choose_play(pos, fb.dice, st)
            return "" if play is None else play.notation
    play = engine.choose_play(pos, fb.dice)
    return "" if play is None else play.notation


def _track_game(session: Session, fb: FibsBoard) -> None:
    """Learn whether my last resignation was declined; forget declines when a game ends."""
    _track_score(session, (int(fb.score[0]), int(fb.score[1])))


def _track_score(session: Session, score: tuple[int, int]) -> None:
    """:func:`_track_game` from the line's score ``(me, opponent)``."""
    if session.pending_resign is None and session.game_score == score:
        return                              # the common line: nothing to track
    if session.pending_resign is not None:
        offered_at, level = session.pending_resign
        session.pending_resign = None
        if offered_at == score:
            session.declined = max(session.declined, level)
    if session.game_score != score:
        session.game_score = score
        session.declined = 0


def _evaluation(engine: Engine, pos: Position, state: MatchState, opts: _Options) -> str:
    ply = engine.ply if opts.plies is None else opts.plies
    p = engine.probabilities(pos, ply)
    eq = engine.equity(pos, state, ply, cubeful=opts.cubeful)
    return " ".join(f"{x:f}" for x in (*p, eq))


def _debug_lines(fb: FibsBoard, pos: Position, state: MatchState, rules: Rules,
                 opts: _Options) -> list[str]:
    try:
        mid = state.match_id()
    except (GbotError, ValueError):
        mid = "-"
    lines = [
        f"DBG: question {fb.question}, dialect {fb.dialect}, names {fb.names!r}",
        f"DBG: Position ID {pos.id()}, Match ID {mid}",
        f"DBG: score {fb.score[0]}-{fb.score[1]}/{fb.match_length}, cube {fb.cube_value} "
        f"({fb.cube_owner}), dice {fb.dice[0]}{fb.dice[1]}, crawford {int(fb.crawford_game)}",
        f"DBG: jacoby {int(rules.jacoby)}, beavers {int(rules.beavers)}, "
        f"resignation {opts.resignation}",
    ]
    return [ln[:MAX_REPLY] for ln in lines]
