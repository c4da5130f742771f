"""Jellyfish ``.mat`` match files (the text format gnubg and XG import and export).

Layout, as gnubg 1.07 writes it::

     5 point match                          (0 point match = money session)

     Game 1
     alice : 0                      bob : 0
      1) 21: 13/11 24/23             41: 6/2* 2/1*
      2)  Doubles => 2                Takes
      ...
          Wins 2 points

Each numbered line holds one entry of player 0 (left column, from column 5) and one of
player 1 (right column, from column 33); the entries alternate strictly between the players,
and an empty left column on the first line means player 1 opened. A move entry is the roll
(larger die first) and single-die steps ``from/to`` in the mover's numbering (25 = bar,
0 = off, ``*`` = hit). Cube entries are ``Doubles => N``, ``Takes``, ``Drops`` and gnubg's
``Beavers => N`` (a take that answers a beaver or raccoon is left out, as gnubg writes it;
gnubg 1.07's own importer misreads some beaver sequences, so prefer :mod:`gbot.records.sgf` for
sessions with beavers). Resignations are not written: the winner's ``Wins N points`` line ends the
game (a drawn game, under the draw-on-last-roll switch, has none). The format has no rule
switches: comment lines at the top of the file name the rules played and warn where gnubg's
import will read the file otherwise (its own Jacoby setting, backgammons counted triple).

:func:`dumps` writes a :class:`~gbot.game.referee.MatchRecord`; :func:`loads` reads one back,
replaying every game through the referee so that each move is checked for legality.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gbot.core.limits import MAX_CUBE
from gbot.errors import FieldError, IllegalMoveError, MatchFileError, MatchRuleError, MoveParseError
from gbot.game.fields import parse_int, quote, read_bounded
from gbot.game.match import MAX_MATCH_LENGTH, GameState, Rules
from gbot.game.notations.move_text import hits_along
from gbot.game.position import Position
from gbot.game.referee import Action, GameRecord, MatchRecord, Referee, game_points, legal_results
from gbot.records.notes import gnubg_warnings, rules_text

_LEFT = 5
_WIDTH = 28
_SPLIT = 20  # an entry starting left of this column is player 0's


# --------------------------------------------------------------------------- writing


def _move_text(a: Action) -> str:
    d1, d2 = max(a.dice), min(a.dice)
    board = np.array(a.board, dtype=np.int8) if a.board else np.zeros(26, dtype=np.int8)
    hits = hits_along(board, a.steps) if a.board else [False] * len(a.steps)
    parts = [f"{src}/{dst}{'*' if hit else ''}" for (src, dst), hit in zip(a.steps, hits,
                                                                             strict=True)]
    return f"{d1}{d2}: " + "".join(p + " " for p in parts)


def _entries(game: GameRecord) -> list[tuple[int, str]]:
    """``(player, text)`` of each column entry of ``game`` (without the Wins line)."""
    out: list[tuple[int, str]] = []
    rolled: Action | None = None
    doubler = -1
    beavered = False
    for a in game.actions:
        if a.kind == "roll":
            rolled = a
        elif a.kind == "win" and rolled is not None:
            # rolled, then a resignation ended the game before the play: the bare roll
            out.append((rolled.player, f"{max(rolled.dice)}{min(rolled.dice)}: "))
            rolled = None
        if a.kind == "move":
            rolled = None
            out.append((a.player, _move_text(a)))
        elif a.kind == "double":
            doubler = a.player
            out.append((a.player, f" Doubles => {a.value}"))
        elif a.kind == "beaver":
            beavered = True
            out.append((a.player, f" Beavers => {a.value}"))
        elif a.kind == "take":
            # as gnubg writes them: a take that answers a beaver or raccoon is left out (an
            # empty entry keeps the columns alternating when the beaverer takes a raccoon)
            if not beavered:
                out.append((a.player, " Takes"))
            elif a.player != doubler:
                out.append((a.player, ""))
            beavered = False
        elif a.kind == "drop":
            beavered = False
            out.append((a.player, " Drops"))
    return out


def _game_lines(game: GameRecord, names: tuple[str, str]) -> list[str]:
    lines = [f" Game {game.number + 1}",
             f" {names[0]} : {game.score[0]}".ljust(_LEFT + _WIDTH - 1)
             + f"{names[1]} : {game.score[1]}"]
    entries = _entries(game)
    row: list[str] = []
    number = 0
    expect = 0 if not entries else entries[0][0]
    if expect == 1:
        row.append("")
    for player, text in entries:
        if player != len(row):
            raise MatchFileError(f"game {game.number + 1}: entries do not alternate at {text!r}")
        row.append(text)
        if len(row) == 2:
            number += 1
            lines.append(f"{number:3d}) " + row[0].ljust(_WIDTH) + row[1])
            row = []
    wins = ""
    if game.winner >= 0 and game.how != GameState.PLAYING:
        wins = f" Wins {game.points} {'point' if game.points == 1 else 'points'}"
    if row:
        number += 1
        if wins and game.winner == 1:
            # gnubg's importer wants the winner's line beside a lone left entry
            lines.append(f"{number:3d}) " + row[0].ljust(_WIDTH) + wins)
            return lines
        lines.append(f"{number:3d}) " + row[0])
    if wins:
        lines.append(" " * (_LEFT + (_WIDTH if game.winner == 1 else 0)) + wins)
    return lines


def _notes(record: MatchRecord) -> list[str]:
    """Comment lines: the rules played, and where gnubg's import will read them otherwise."""

    out = [f"; gbot: {rules_text(record.rules, record.match_length)}"]
    out += [f"; gnubg: {w}" for w in gnubg_warnings(record.rules, record.match_length)]
    return out


def dumps(record: MatchRecord) -> str:
    """The ``.mat`` text of ``record`` (names must not contain ``:`` or line breaks).

    Comment lines (``;``) at the top give the rules the match was played under and warn
    where gnubg's import reads them otherwise (:mod:`gbot.records.notes`)."""
    for name in record.names:
        if ":" in name or "\n" in name or not name.strip():
            raise MatchFileError(f"player name cannot be written to a .mat file: {name!r}")
    out = [*_notes(record), "", f" {record.match_length} point match", ""]
    for game in record.games:
        out.extend(_game_lines(game, record.names))
        out.append("")
    return "\n".join(out) + "\n"


def write(record: MatchRecord, path: str | Path) -> None:
    """Write ``record`` to ``path`` as a ``.mat`` file."""
    Path(path).write_text(dumps(record), encoding="utf-8")


# --------------------------------------------------------------------------- reading

MAX_BYTES = 16 * 1024 * 1024
"""Larger match files are refused before they are read (a long money session of a thousand
games is about a megabyte)."""
MAX_LINE = 1000
"""Longest line read, comments aside (a move line is under 80 characters)."""
MAX_POINTS = 10**9
"""Bound of the scores and game numbers a file may state."""

# re.ASCII: \d is 0-9 only (other scripts' digits are no number here)
_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE | re.ASCII)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE | re.ASCII)
_SCORE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$", re.ASCII)
_LINE = re.compile(r"^\s*(\d+)\)(.*)$", re.ASCII)
_STEP = re.compile(r"^(\d+|bar|off)(/(\d+|bar|off)\*?)+(\(\d\))?$", re.IGNORECASE | re.ASCII)
_TOKEN = re.compile(r"(\d\d:)|(Doubles\s*=>\s*\d+)|(Beavers\s*=>\s*\d+)|(Raccoons\s*=>\s*\d+)"
                    r"|(Takes)|(Drops)|(Wins\s+\d+\s+points?(?:\s+and\s+the\s+match)?)"
                    r"|(\S+)", re.IGNORECASE | re.ASCII)


_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
"""The line breaks of :meth:`str.splitlines`."""


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` as :meth:`str.splitlines` gives them, one at a time (a file of
    millions of short lines is never held as a list)."""
    start = 0
    for m in _BREAK.finditer(text):
        yield text[start:m.start()]
        start = m.end()
    if start < len(text):
        yield text[start:]


def _number(text: str, field: str, lo: int, hi: int, where: str) -> int:
    """:func:`gbot.game.fields.parse_int` of a number the file states, refused as a
    :class:`MatchFileError` that names ``where``."""
    try:
        return parse_int(text, field, lo, hi)
    except FieldError as exc:
        raise MatchFileError(f"{where}: {exc}") from None


@dataclass
class Entry:
    """One recorded action of a game, as a match file states it: ``kind`` move, double,
    beaver, take, drop or wins (``value``: the cube offered, or the points won); ``player``
    0 or 1. The readers of :mod:`gbot.records.matfile` and :mod:`gbot.records.sgf_read` produce
    these and :func:`replay` checks them."""

    player: int
    kind: str
    value: int = 0
    dice: tuple[int, int] = (0, 0)
    steps: list[str] = field(default_factory=list)
    """The move's step tokens as written (``13/11``, ``6/2*``, ``24/18/13``, ``bar/20``)."""


def _parse_line(line: str, start: int, where: str) -> list[Entry]:
    """Entries of ``line`` from column ``start``; an entry's column tells its player."""
    out: list[Entry] = []
    for m in _TOKEN.finditer(line, start):
        tok = m.group(0)
        player = 0 if m.start() < _SPLIT else 1
        if m.group(1):
            d1, d2 = int(tok[0]), int(tok[1])
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise MatchFileError(f"{where}: bad dice {tok!r}")
            out.append(Entry(player, "move", dice=(d1, d2)))
        elif m.group(2) or m.group(3) or m.group(4):
            kind = "double" if m.group(2) else "beaver"
            out.append(Entry(player, kind, _number(tok.split("=>")[1].strip(), "cube value",
                                                   2, MAX_CUBE, where)))
        elif m.group(5):
            out.append(Entry(player, "take"))
        elif m.group(6):
            out.append(Entry(player, "drop"))
        elif m.group(7):
            out.append(Entry(player, "wins", _number(tok.split()[1], "points won", 1,
                                                     3 * MAX_CUBE, where)))
        else:
            sm = _STEP.match(tok)
            if sm is None or not out or out[-1].kind != "move":
                raise MatchFileError(f"{where}: unexpected {tok!r}")
            out[-1].steps.append(tok)
    return out


RawGame = tuple[int, tuple[str, str], tuple[int, int], list[tuple[str, Entry]]]
"""One game as read: its number, the players' names, the score before it, and its entries,
each with where it was read (for error messages)."""


def loads(text: str, rules: Rules | None = None,
          names: tuple[str, str] | None = None, *, max_games: int | None = None,
          max_entries: int | None = None) -> MatchRecord:
    """Read ``.mat`` text into a :class:`MatchRecord`, replaying it through the referee.

    The file carries no rule switches; ``rules`` (default :class:`Rules`) must be those the
    match was played under. Raises :class:`MatchFileError` on unreadable text or illegal play,
    on text over :data:`MAX_BYTES` characters, a line over :data:`MAX_LINE`, a match longer than
    :data:`gbot.game.match.MAX_MATCH_LENGTH` points, and (when given) more than ``max_games``
    games or ``max_entries`` moves and cube actions, each refused before any play is replayed.
    """
    if len(text) > MAX_BYTES:
        raise MatchFileError(f"the match text is {len(text):,} characters long, more than the "
                             f"{MAX_BYTES:,} a match file may have")
    length: int | None = None
    games: list[RawGame] = []
    count = 0
    for lineno, raw in enumerate(_lines(text), 1):
        line = raw.rstrip().expandtabs() if len(raw) <= MAX_LINE else raw
        where = f"line {lineno}"
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        if len(line) > MAX_LINE:
            raise MatchFileError(f"{where} is {len(line):,} characters long, more than the "
                                 f"{MAX_LINE} a match file line may have")
        if length is None:
            m = _LENGTH.match(line)
            if m is None:
                raise MatchFileError(f"{where}: expected 'N point match', got {quote(line, 80)}")
            length = _number(m.group(1), "match length", 0, MAX_MATCH_LENGTH, where)
            continue
        m = _GAME.match(line)
        if m is not None:
            if max_games is not None and len(games) >= max_games:
                raise MatchFileError(f"{where}: more than {max_games:,} games in the file, "
                                     f"the limit for one file")
            games.append((_number(m.group(1), "game number", 0, MAX_POINTS, where), ("", ""),
                          (-1, -1), []))
            continue
        if not games:
            raise MatchFileError(f"{where}: text before the first game: {quote(line, 80)}")
        number, gnames, score, entries = games[-1]
        if score == (-1, -1):
            m = _SCORE.match(line)
            if m is None:
                raise MatchFileError(f"{where}: expected the score line, got {quote(line, 80)}")
            games[-1] = (number, (m.group(1), m.group(3)),
                         (_number(m.group(2), "score", 0, MAX_POINTS, where),
                          _number(m.group(4), "score", 0, MAX_POINTS, where)), entries)
            continue
        m = _LINE.match(line)
        start = m.end(1) + 1 if m is not None else 0
        if m is None and "wins" not in line.lower():
            raise MatchFileError(f"{where}: cannot read {quote(line, 80)}")
        parsed = _parse_line(line, start, where)
        count += len(parsed)
        if max_entries is not None and count > max_entries:
            raise MatchFileError(f"{where}: more than {max_entries:,} moves and cube actions in "
                                 f"the file, the limit for one file")
        entries.extend((where, e) for e in parsed)
    if length is None:
        raise MatchFileError(f"no 'N point match' header in {quote(text[:80], 80)}")
    if names is None:
        names = games[0][1] if games else ("player0", "player1")
    return replay(length, rules or Rules(), names, games)


def replay(length: int, rules: Rules, names: tuple[str, str],
           games: list[RawGame]) -> MatchRecord:
    """The match of ``games`` (a ``length``-point match, 0 for money, under ``rules``),
    every entry replayed through the referee. Raises :class:`MatchFileError` where the play
    is illegal or the scores disagree, and for a match longer than
    :data:`gbot.game.match.MAX_MATCH_LENGTH` (before anything is built for it)."""
    if not 0 <= length <= MAX_MATCH_LENGTH:
        raise MatchFileError(f"match length {length} is outside 0 to {MAX_MATCH_LENGTH}, the "
                             f"lengths gnubg plays")
    ref = Referee(length, rules, seed=0, names=names)
    for gi, (number, _, score, entries) in enumerate(games):
        if gi > 0:
            try:
                ref.next_game()
            except MatchRuleError as exc:
                raise MatchFileError(f"game {number}: {exc}") from None
        if ref.state.score != score:
            raise MatchFileError(f"game {number}: the file says score {score!r}, the play "
                                 f"before gives {ref.state.score!r}")
        for where, e in entries:
            try:
                _apply(ref, e, f"game {number}, {where}")
            except MatchRuleError as exc:
                raise MatchFileError(f"game {number}, {where}: {e.kind} by player {e.player}: "
                                     f"{exc}") from None
    return ref.record


def _apply(ref: Referee, e: Entry, where: str) -> None:
    s = ref.state
    if e.kind == "wins":
        _finish(ref, e.player, e.value, where)
        return
    if e.kind == "move" and s.double_offered and s.beavers and s.player_on_roll == e.player:
        ref.take()  # gnubg's export leaves out the take that answers a beaver or raccoon
        s = ref.state
    if s.game_state == GameState.PLAYING and s.player_to_act != e.player:
        raise MatchFileError(f"{where}: player {e.player} acts out of turn ({e.kind})")
    if e.kind == "move":
        hi, lo = max(e.dice), min(e.dice)
        if s.game_state == GameState.NONE:
            if hi == lo:
                raise MatchFileError(f"{where}: an opening roll cannot be a double: {e.dice!r}")
            ref.roll((hi, lo) if e.player == 0 else (lo, hi))
        else:
            ref.roll((hi, lo))
        if not e.steps and len(legal_results(ref.state)) > 0:
            return  # rolled, then resigned before moving (gnubg writes the bare roll)
        if not e.steps:
            ref.play(None)
            return
        st = ref.state
        try:
            chosen = Position(st.board_array(), max_checkers=st.rules.checkers).play_from_text(
                " ".join(e.steps), st.dice, caucasian=st.rules.caucasian)
        except (MoveParseError, IllegalMoveError) as exc:
            raise MatchFileError(f"{where}: {exc}") from None
        ref.play(chosen.position.board, steps=chosen.steps)
    elif e.kind in ("double", "beaver"):
        offered = s.cube_value * (4 if e.kind == "beaver" else 2)
        if e.value != offered:
            raise MatchFileError(f"{where}: cube offered at {e.value}, expected {offered}")
        if e.kind == "double":
            ref.double()
        else:
            ref.beaver()
    elif e.kind == "take":
        ref.take()
    elif e.kind == "drop":
        ref.drop()


def _finish(ref: Referee, winner: int, points: int, where: str) -> None:
    """A ``Wins`` line: check a finished game, or score a resignation for ``winner``."""
    s = ref.state
    if s.game_state in (GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
        if (s.winner, s.game_points) != (winner, points):
            raise MatchFileError(f"{where}: the file says player {winner} wins {points}, "
                                 f"the play gives player {s.winner} {s.game_points}")
        return
    if s.game_state != GameState.PLAYING or s.double_offered:
        raise MatchFileError(f"{where}: 'Wins' in the middle of a cube action")
    if s.rules.resignation == "position":
        ref.resign(None, player=1 - winner)
    else:
        kinds = [k for k in (1, 2, 3) if game_points(s, k) == points]
        if not kinds:
            raise MatchFileError(f"{where}: {points} points is no possible resignation")
        ref.resign(kinds[0], player=1 - winner)
        ref.accept_resign()
    if ref.state.game_points != points:
        raise MatchFileError(f"{where}: the file says {points} points, the resignation "
                             f"scores {ref.state.game_points}")


def read(path: str | Path, rules: Rules | None = None, *, max_games: int | None = None,
         max_entries: int | None = None) -> MatchRecord:
    """Read the ``.mat`` file at ``path`` (see :func:`loads`); a file over :data:`MAX_BYTES`
    bytes is refused without reading more than that."""
    data = read_bounded(path, MAX_BYTES, "match file", MatchFileError)
    return loads(data.decode("utf-8", errors="replace"), rules, max_games=max_games,
                 max_entries=max_entries)
