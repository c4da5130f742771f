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

:func:`loads` also reads what other writers put in: a record that starts in mid-match (the
first game's score line), ``Cannot Move`` for a roll without a play (Backgammon Studio), the
loser's ``Losses N point`` (Backgammon Galaxy), ratings after the names (FIBS clients,
``charlie11,1566``), a result its play does not give (a forfeit: the recorded points are kept),
a score line that disagrees with the play before (the file's score is kept), and a game without
a result. Lines and text that are no entry are skipped, and a move that cannot be read
(``????``, ``Illegal play (...)``) ends the replay of its game unless its roll has at most one
play (the recorded result is kept). Each is reported as a :class:`MatchFileWarning` that names
its line; illegal play, numbers out of range and a file with no ``N point match`` line or no
game are refused with a one-line :class:`~gbot.errors.MatchFileError`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gbot.core.board import checkers, flip_py
from gbot.core.limits import MAX_CUBE
from gbot.errors import FieldError, IllegalMoveError, MatchFileError, MatchRuleError, MoveParseError
from gbot.game.fields import parse_int, quote, read_bounded
from gbot.game.match import MAX_MATCH_LENGTH, GameState, Rules
from gbot.game.notations.move_text import hits_along
from gbot.game.position import Position
from gbot.game.referee import (
    OVER_STATES,
    Action,
    GameRecord,
    MatchRecord,
    Referee,
    game_points,
    legal_results,
    resign,
)
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
MAX_WARNINGS = 100
"""Most warnings one file gives; one more then says how many were left out."""

# re.ASCII: \d is 0-9 only (other scripts' digits are no number here)
_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE | re.ASCII)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE | re.ASCII)
_SCORE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$", re.ASCII)
_LINE = re.compile(r"^\s*(\d+)\)(.*)$", re.ASCII)
_RESULT_LINE = re.compile(r"^\s*(Wins|Losses|Loses)\s", re.IGNORECASE | re.ASCII)
_STEP = re.compile(r"^(\d+|bar|off)(/(\d+|bar|off)\*?)+(\(\d\))?$", re.IGNORECASE | re.ASCII)
_POINTS = r"\s+\d+\s+points?(?:\s+and\s+the\s+match)?"
# one alternative per kind of token; the group number tells the kind (see _parse_line)
_TOKEN = re.compile(r"(\d\d:)|(\?\?:)|(Doubles\s*=>\s*\d+)|(Beavers\s*=>\s*\d+)"
                    r"|(Raccoons\s*=>\s*\d+)|(Takes)(?!\S)|(Drops)(?!\S)"
                    rf"|(Wins{_POINTS})|((?:Losses|Loses){_POINTS})|(Cannot\s+Move)(?!\S)"
                    r"|(\?\?+)(?!\S)|(\S+)", re.IGNORECASE | re.ASCII)
_RATING = re.compile(r"^(.*?\S)\s*,\s*\d{1,5}(?:\.\d+)?$", re.ASCII)


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


def player_name(text: str) -> str:
    """A player's name as a match file states it, less the FIBS rating some writers append
    (``charlie11,1566`` -> ``charlie11``)."""
    m = _RATING.match(text)
    return m.group(1) if m else text


class MatchFileWarning(UserWarning):
    """Something in a match file that the reader skipped, or read otherwise than it is
    written, and how it read on. ``line`` is the file's line (1-based; 0 where none applies),
    ``text`` the message (one line)."""

    def __init__(self, text: str, line: int = 0) -> None:
        super().__init__(text)
        self.text = text
        self.line = line


class FileWarnings:
    """Where the readers report what they skip: each report is a :class:`MatchFileWarning`
    issued through :mod:`warnings` as coming from ``source`` (the file's name) at its line.
    After :data:`MAX_WARNINGS` reports the rest are only counted; :meth:`close` reports
    how many."""

    def __init__(self, source: str | None = None) -> None:
        self.source = source or "<match file>"
        self.count = 0

    def __call__(self, line: int, text: str) -> None:
        """Report ``text`` about ``line``."""
        self.count += 1
        if self.count <= MAX_WARNINGS:
            self._issue(line, text)

    def close(self) -> None:
        """Report how many reports were left out, if any."""
        if self.count > MAX_WARNINGS:
            self._issue(0, f"{self.count - MAX_WARNINGS:,} more warnings about this file are "
                           f"not shown")

    def _issue(self, line: int, text: str) -> None:
        warnings.warn_explicit(MatchFileWarning(text, line), MatchFileWarning, self.source,
                               line)


@dataclass
class Entry:
    """One recorded action of a game, as a match file states it: ``kind`` move, double,
    beaver, take, drop, wins, resign, accept, reject or setup (``value``: the cube offered,
    the points won, the points a resignation offers, 0 for a single game); ``player`` 0 or 1
    (for ``wins``, the winner).
    The readers of :mod:`gbot.records.matfile` and :mod:`gbot.records.sgf_read` produce
    these and :func:`replay` checks them."""

    player: int
    kind: str
    value: int = 0
    dice: tuple[int, int] = (0, 0)
    """The roll of a move; ``(0, 0)`` when the file does not tell it."""
    steps: list[str] = field(default_factory=list)
    """The move's step tokens as written (``13/11``, ``6/2*``, ``24/18/13``, ``bar/20``)."""
    line: int = 0
    """The file's line it was read from (0: none)."""
    where: str = ""
    """Where it was read, for messages (``line 12``, ``node 3``)."""
    text: str = ""
    """The entry as written, for messages (for ``setup``: why its play cannot be followed)."""
    unread: str = ""
    """Text of a move that is no step (``????``, ``Illegal play (...)``); the move is then
    its steps before that text where they make a legal play, else unknown."""
    after: tuple[tuple[int, ...], ...] = ()
    """Boards (mover's view) the file says the move reaches (XG records state the position
    after each move). Where given, a move whose steps are no legal play is read as the legal
    play that reaches one of them, with a warning; where none does, the rest of its game is
    skipped (with a warning) instead of refusing the file. A legal move that reaches none of
    them is kept, with a warning."""


@dataclass
class RawGame:
    """One game as read: its number, the players' names and the score before it (``None``
    when the file states none readable: the game is skipped), its entries, and the line
    where it starts."""

    number: int
    line: int
    names: tuple[str, str] = ("", "")
    score: tuple[int, int] | None = None
    entries: list[Entry] = field(default_factory=list)
    skipped: bool = False
    """The game has no readable score line: its lines are skipped."""


def _parse_line(line: str, start: int, lineno: int, warn: FileWarnings) -> list[Entry]:
    """Entries of ``line`` from column ``start``: the first is player 0's when it starts left
    of column 20, else player 1's, and the others alternate. Text that is no entry is skipped
    with a warning, save where an entry would start (the line's first, or past the left
    column): there it is a move gbot cannot read; within a move it is the move's
    :attr:`Entry.unread` text."""
    where = f"line {lineno}"
    out: list[Entry] = []
    move: Entry | None = None
    move_from = 0
    column = -1                                 # whose column the last entry was in
    junk: list[str] = []
    for m in _TOKEN.finditer(line, start):
        tok, kind = m.group(0), m.lastindex
        if kind == 12 and len(tok) > 2 and tok[2] == ":" and tok[:2].isdigit():
            # digits of another script where a roll is written: never read as dice
            raise MatchFileError(f"{where}: unexpected {quote(tok)}: a roll is two digits 1-6")
        # text that is no step, set apart in the right column after player 0's entry: the
        # start of player 1's ('????' included)
        right = (column == 0 and m.start() >= _LEFT + _WIDTH - 1 and not _STEP.match(tok)
                 and line[m.start() - 2:m.start()] == "  ")
        if kind in (10, 11, 12) and move is not None and not right:
            if kind == 10 and not move.steps and not move.unread:
                pass                            # 'Cannot Move': no play
            elif kind == 12 and not move.unread and _STEP.match(tok):
                move.steps.append(tok)
            else:
                move.unread = f"{move.unread} {tok}".strip()
            move.text = line[move_from:m.end()]
            continue
        if kind in (10, 12) and column >= 0 and not right:
            junk.append(tok)
            continue
        column = (0 if m.start() < _SPLIT else 1) if column < 0 else 1 - column
        e = Entry(column, "move", line=lineno, where=where, text=tok)
        move = None
        if kind == 1:
            d1, d2 = int(tok[0]), int(tok[1])
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise MatchFileError(f"{where}: bad dice {tok!r}")
            e.dice = (d1, d2)
        elif kind in (2, 10, 11, 12):           # a move of unknown roll ('??:', '????', ...)
            e.unread = tok
        elif kind in (3, 4, 5):
            e.kind = "double" if kind == 3 else "beaver"
            e.value = _number(tok.split("=>")[1].strip(), "cube value", 2, MAX_CUBE, where)
        elif kind in (6, 7):
            e.kind = "take" if kind == 6 else "drop"
        else:                                   # 'Wins N points', or the loser's 'Losses'
            e.kind = "wins"
            e.value = _number(tok.split()[1], "points won", 1, 3 * MAX_CUBE, where)
            if kind == 9:
                e.player = 1 - column
        out.append(e)
        if e.kind == "move":
            move, move_from = e, m.start()
    if junk:
        warn(lineno, f"skipped {quote(' '.join(junk), 80)}: no move, cube action or result")
    return out


def loads(text: str, rules: Rules | None = None,
          names: tuple[str, str] | None = None, *, max_games: int | None = None,
          max_entries: int | None = None, source: str | None = None) -> MatchRecord:
    """Read ``.mat`` text into a :class:`MatchRecord`, replaying it through the referee.

    The file carries no rule switches; ``rules`` (default :class:`Rules`) must be those the
    match was played under. Raises :class:`MatchFileError` on illegal play, on text with no
    ``N point match`` line or no game, on text over :data:`MAX_BYTES` characters, a line over
    :data:`MAX_LINE`, a number out of its range, a match longer than
    :data:`gbot.game.match.MAX_MATCH_LENGTH` points, and (when given) more than ``max_games``
    games or ``max_entries`` moves and cube actions, each refused before any play is replayed.

    What the writers of match files put in besides gnubg's layout is read as they mean it:
    the first game's score (a record that starts in mid-match), ``Cannot Move``, the loser's
    ``Losses N points``, ratings after the names (``charlie11,1566``), results that the play
    does not give (a forfeit: the recorded points are kept). Lines and text that are no entry
    are skipped, and a move that cannot be read (``????``) ends the replay of its game (its
    recorded result is kept), each with a :class:`MatchFileWarning` naming the line;
    ``source`` names the file in them.
    """
    if len(text) > MAX_BYTES:
        raise MatchFileError(f"the match text is {len(text):,} characters long, more than the "
                             f"{MAX_BYTES:,} a match file may have")
    warn = FileWarnings(source)
    length: int | None = None
    before: list[tuple[int, str]] = []      # lines before the 'N point match' line
    uncounted = 0                           # ... past the first MAX_WARNINGS of them
    stray: tuple[int, str] | None = None    # the first text before the first game
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
                if len(before) < MAX_WARNINGS:
                    before.append((lineno, line))
                else:
                    uncounted += 1
                continue
            length = _number(m.group(1), "match length", 0, MAX_MATCH_LENGTH, where)
            for n, skipped in before:
                warn(n, f"skipped {quote(skipped, 80)} before the 'N point match' line")
            warn.count += uncounted
            continue
        m = _GAME.match(line)
        if m is not None:
            if max_games is not None and len(games) >= max_games:
                raise MatchFileError(f"{where}: more than {max_games:,} games in the file, "
                                     f"the limit for one file")
            games.append(RawGame(_number(m.group(1), "game number", 0, MAX_POINTS, where),
                                 lineno))
            continue
        if not games:
            stray = stray or (lineno, line)
            warn(lineno, f"skipped {quote(line, 80)}: text before the first game")
            continue
        game = games[-1]
        if game.score is None:
            if game.skipped:
                continue
            m = _SCORE.match(line)
            if m is None:
                warn(lineno, f"game {game.number} has no score line (got {quote(line, 80)}); "
                             f"the game is skipped")
                game.skipped = True
                continue
            game.names = (player_name(m.group(1)), player_name(m.group(3)))
            game.score = (_number(m.group(2), "score", 0, MAX_POINTS, where),
                          _number(m.group(4), "score", 0, MAX_POINTS, where))
            continue
        m = _LINE.match(line)
        if m is None and _RESULT_LINE.match(line) is None:
            warn(lineno, f"skipped {quote(line.strip(), 80)}: no move line")
            continue
        start = m.end(1) + 1 if m is not None else 0
        parsed = _parse_line(line, start, lineno, warn)
        count += len(parsed)
        if max_entries is not None and count > max_entries:
            raise MatchFileError(f"{where}: more than {max_entries:,} moves and cube actions in "
                                 f"the file, the limit for one file")
        game.entries.extend(parsed)
    if length is None:
        raise MatchFileError(f"no 'N point match' header in {quote(text[:80], 80)}")
    if stray is not None and not games:
        raise MatchFileError(f"no 'Game' line in the match file; line {stray[0]}: text before "
                             f"the first game: {quote(stray[1], 80)}")
    if names is None:
        names = next((g.names for g in games if g.score is not None), ("player0", "player1"))
    record = replay(length, rules or Rules(), names, games, warn)
    warn.close()
    return record


def _score_text(score: tuple[int, int]) -> str:
    return f"{score[0]}-{score[1]}"


def replay(length: int, rules: Rules, names: tuple[str, str], games: list[RawGame],
           warn: FileWarnings | None = None) -> MatchRecord:
    """The match of ``games`` (a ``length``-point match, 0 for money, under ``rules``),
    every entry replayed through the referee.

    Raises :class:`MatchFileError` where the play is illegal, and for a match longer than
    :data:`gbot.game.match.MAX_MATCH_LENGTH` (before anything is built for it). Where the
    file's statements and the play disagree, the file's scores and recorded results are kept
    and ``warn`` (default: a :class:`FileWarnings` of no file name) reports it, as it reports a
    move that cannot be followed (the game's play is then skipped up to its result).
    """
    if not 0 <= length <= MAX_MATCH_LENGTH:
        raise MatchFileError(f"match length {length} is outside 0 to {MAX_MATCH_LENGTH}, the "
                             f"lengths gnubg plays")
    warn = warn if warn is not None else FileWarnings()
    ref = Referee(length, rules, seed=0, names=names)
    prev: RawGame | None = None
    for gi, game in enumerate(games):
        if game.score is None:
            continue
        done = False
        if prev is not None:
            s = ref.state
            done = s.crawford_done
            if s.game_state not in OVER_STATES:
                last = max([prev.line] + [e.line for e in prev.entries])
                warn(last, f"game {prev.number} ends without a result")
                ref.forfeit(-1, 0)
            if ref.state.match_over:
                rest = sum(1 for g in games[gi:] if g.score is not None)
                warn(game.line, f"the match is over at {_score_text(ref.state.score)} after "
                                f"game {prev.number}; {rest} more game(s) from game "
                                f"{game.number} on are skipped")
                break
            ref.next_game()
        if ref.state.score != game.score:
            if prev is not None:
                warn(game.line, f"game {game.number}: the file says score "
                                f"{_score_text(game.score)}, the play before gives "
                                f"{_score_text(ref.state.score)}; the file's score is kept")
            # one away from the match: a game with a double is past the Crawford game
            doubled = any(e.kind in ("double", "beaver") for e in game.entries)
            try:
                ref.set_score(game.score, done or doubled)
            except MatchRuleError as exc:
                raise MatchFileError(f"game {game.number}, line {game.line}: {exc}") from None
        _play_game(ref, game, warn)
        prev = game
    return ref.record


class _Lost(Exception):
    """The play of a game cannot be followed from here; the message says why."""


def _play_game(ref: Referee, game: RawGame, warn: FileWarnings) -> None:
    """Replay the entries of ``game``; from a move that cannot be followed, only its
    recorded result."""
    lost = False
    after_end: set[int] = set()
    for i, e in enumerate(game.entries):
        where = f"game {game.number}, {e.where}"
        said = where if not e.where.startswith("line ") else f"game {game.number}"
        over = ref.state.game_state in OVER_STATES
        if lost:
            if e.kind == "wins" and not over:
                ref.forfeit(e.player, e.value)
            continue
        if over and e.kind != "wins":
            if e.line not in after_end:
                after_end.add(e.line)
                warn(e.line, f"{said}: skipped {quote(e.text or e.kind, 60)}: the game is "
                             f"over")
            continue
        try:
            note = _apply(ref, e, where)
        except _Lost as why:
            rest = game.entries[i:]
            last = max(x.line for x in rest)
            span = f"line {e.line}" if last == e.line else f"lines {e.line}-{last}"
            kept = ("its recorded result is kept" if any(x.kind == "wins" for x in rest)
                    else "it has no recorded result")
            warn(e.line, f"{said}: {why}; the rest of the game ({span}) is skipped, "
                         f"{kept}")
            lost = True
            continue
        except MatchRuleError as exc:
            raise MatchFileError(f"{where}: {e.kind} by player {e.player}: {exc}") from None
        if note:
            warn(e.line, f"{said}: {note}")


def _apply(ref: Referee, e: Entry, where: str) -> str | None:
    """Replay ``e``; returns what to warn of, if anything. Raises :class:`_Lost` where the
    play cannot be followed, :class:`MatchFileError` or :class:`MatchRuleError` where it is
    illegal."""
    s = ref.state
    if e.kind == "wins":
        return _result(ref, e)
    if e.kind == "setup":
        raise _Lost(e.text)
    if e.kind == "move" and s.double_offered and s.beavers and s.player_on_roll == e.player:
        ref.take()  # gnubg's export leaves out the take that answers a beaver or raccoon
        s = ref.state
    if (s.game_state == GameState.PLAYING and s.player_to_act != e.player
            and e.kind != "resign"):
        raise MatchFileError(f"{where}: player {e.player} acts out of turn ({e.kind})")
    if e.kind == "move":
        return _move(ref, e, where)
    if e.kind in ("double", "beaver"):
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
    elif e.kind == "resign":
        if s.rules.resignation == "position":
            ref.resign(None, player=e.player)
            return None
        # 'value' is the points offered (0: a single game)
        kinds = [k for k in (1, 2, 3) if game_points(s, k) == e.value] if e.value else [1]
        if not kinds:
            raise _Lost(f"{quote(e.text, 60)} offers {e.value} points, which no resignation "
                        f"scores here (cube at {s.cube_value})")
        ref.resign(kinds[0], player=e.player)
    elif e.kind == "accept":
        ref.accept_resign()
    elif e.kind == "reject":
        ref.reject_resign()
    return None


def _move(ref: Referee, e: Entry, where: str) -> str | None:
    """Roll and play a move entry (see :func:`_apply`)."""
    s = ref.state
    if e.dice == (0, 0):
        raise _Lost(f"{quote(e.text, 60)} is a move of unknown roll")
    hi, lo = max(e.dice), min(e.dice)
    if s.game_state == GameState.NONE:
        if hi == lo:
            raise MatchFileError(f"{where}: an opening roll cannot be a double: {e.dice!r}")
        ref.roll((hi, lo) if e.player == 0 else (lo, hi))
    else:
        ref.roll((hi, lo))
    st = ref.state
    if e.steps and not e.unread:
        try:
            chosen = Position(st.board_array(), max_checkers=st.rules.checkers).play_from_text(
                " ".join(e.steps), st.dice, caucasian=st.rules.caucasian)
        except (MoveParseError, IllegalMoveError) as exc:
            if e.after:
                return _play_after(ref, e, str(exc))
            raise MatchFileError(f"{where}: {exc}") from None
        ref.play(chosen.position.board, steps=chosen.steps)
        if e.after and tuple(int(x) for x in chosen.position.board) not in e.after:
            return (f"{quote(e.text, 60)} reaches another position than the one the file "
                    f"gives after it; the move is kept")
        return None
    legal = legal_results(st)
    if not e.unread:
        if len(legal) == 0:
            ref.play(None)
        elif e.after:
            return _play_after(ref, e, f"{quote(e.text, 60)} plays nothing, but {hi}{lo} has "
                                       f"{len(legal)} legal play(s)")
        return None  # with a play: rolled, then resigned before moving (gnubg's bare roll)
    if e.steps:
        try:
            chosen = Position(st.board_array(), max_checkers=st.rules.checkers).play_from_text(
                " ".join(e.steps), st.dice, caucasian=st.rules.caucasian)
        except (MoveParseError, IllegalMoveError):
            pass
        else:
            ref.play(chosen.position.board, steps=chosen.steps)
            return f"skipped {quote(e.unread, 60)} after the move {' '.join(e.steps)}"
    if len(legal) <= 1:
        ref.play(legal[0] if len(legal) else None)
        return (f"read {quote(e.text, 60)} as the only legal play of {hi}{lo}" if len(legal)
                else f"read {quote(e.text, 60)} as no move: {hi}{lo} has no legal play")
    raise _Lost(f"{quote(e.text, 60)} is no move gbot can read, and {hi}{lo} has {len(legal)} "
                f"legal plays")


def _play_after(ref: Referee, e: Entry, why: str) -> str:
    """Play the legal play that reaches one of ``e.after`` (a move whose steps, ``why``, are
    no legal play); raises :class:`_Lost` where none does."""
    for board in legal_results(ref.state):
        if tuple(int(x) for x in board) in e.after:
            ref.play(board)
            return f"{why}; read as the legal play that reaches the position the file gives"
    raise _Lost(f"{why}, and no legal play reaches the position the file gives after it")


def _result(ref: Referee, e: Entry) -> str | None:
    """A recorded result (``Wins``, the loser's ``Losses``, an SGF ``RE``): check a finished
    game; end one in play as the resignation, drop or acceptance that scores it, else (a
    forfeit) at the recorded points, with a warning."""
    s = ref.state
    winner, points = e.player, e.value
    said = quote(e.text, 60) if e.text else f"player {winner} wins {points}"
    if s.game_state in OVER_STATES:
        if (s.winner, s.game_points) != (winner, points):
            return (f"{said}: the play gives player {s.winner} {s.game_points} point(s), which "
                    f"is kept")
        return None
    loser = 1 - winner
    why = "the game has no play"
    if s.game_state == GameState.PLAYING:
        if s.double_offered:
            if winner == s.player_on_roll and points == s.cube_value:
                ref.drop()          # the drop is not written
                return None
            why = f"a double to {s.cube_value * 2} is pending"
        elif s.resign_offered:
            if winner == s.player_to_act and points == game_points(s, s.resign_offered):
                ref.accept_resign()
                return None
            why = f"a resignation worth {game_points(s, s.resign_offered)} is pending"
        elif s.rules.resignation == "position":
            if resign(s, None, loser).game_points == points:
                ref.resign(None, player=loser)
                return None
            why = f"the position scores {resign(s, None, loser).game_points}"
        else:
            view = s.board_array() if loser == s.player_on_roll else flip_py(s.board_array())
            worst = 1 if checkers(view)[0] < s.rules.checkers else 3
            kinds = [k for k in (1, 2, 3) if k <= worst and game_points(s, k) == points]
            if kinds:
                ref.resign(kinds[0], player=loser)
                ref.accept_resign()
                return None
            scores = sorted({game_points(s, k) for k in range(1, worst + 1)})
            why = (f"cube at {s.cube_value}, a resignation scores "
                   + " or ".join(str(x) for x in scores)
                   + (f" as player {loser} has borne off" if worst == 1 else ""))
    ref.forfeit(winner, points)
    return f"{said}: {points} point(s) is no result the play gives ({why}); the recorded " \
           f"result is kept"


def read(path: str | Path, rules: Rules | None = None, *, max_games: int | None = None,
         max_entries: int | None = None) -> MatchRecord:
    """Read the ``.mat`` file at ``path`` (see :func:`loads`; its warnings name ``path``); a
    file over :data:`MAX_BYTES` bytes is refused without reading more than that."""
    data = read_bounded(path, MAX_BYTES, "match file", MatchFileError)
    return loads(data.decode("utf-8", errors="replace"), rules, max_games=max_games,
                 max_entries=max_entries, source=str(path))
