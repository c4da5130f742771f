"""Reading GNU Backgammon's ``.sgf`` match files (gnubg's and those :mod:`gbot.records.sgf`
writes).

:func:`loads` parses the SGF collection (one game tree per game; the main line of each tree,
variations ignored), reads the match length, score, names and result from each root, and
replays every move and cube action through the referee (:func:`gbot.records.matfile.replay`,
as :func:`gbot.records.matfile.loads` does), so an illegal move is refused with the game and
node named. Resignation nodes (``B[resign:2]``, ``W[accept]``, ``W[reject]``, as FIBS clients
write them), a first game in mid-match, and results or scores the play does not give are read
as :func:`gbot.records.matfile.loads` reads them; a set-up position is not kept (the rest of its
game is skipped). Each is reported as a :class:`~gbot.records.matfile.MatchFileWarning`.
Properties that carry no play (comments, analysis, times) are skipped. The point letters and
colours are those described in :mod:`gbot.records.sgf` (``W`` = player 0, ``a`` = player 0's
point 1, ``y`` bar, ``z`` off).
"""

from __future__ import annotations

import re
from pathlib import Path

from gbot.core.limits import MAX_CUBE
from gbot.errors import FieldError, MatchFileError
from gbot.game.fields import parse_int, quote, read_bounded
from gbot.game.match import MAX_MATCH_LENGTH, Rules
from gbot.game.referee import MatchRecord
from gbot.records import matfile
from gbot.records.matfile import Entry, FileWarnings, RawGame, player_name, replay

__all__ = ["loads", "parse", "read"]

Node = dict[str, list[str]]

_IDENT = re.compile(r"[A-Za-z]+")
MAX_BYTES = matfile.MAX_BYTES
"""Larger files are refused (a match file is a few hundred kilobytes at most)."""
MAX_DEPTH = 1000
"""Deepest nesting of variations read (gnubg writes two levels)."""
_RESULT = re.compile(r"^([WB])\+(\d+)", re.ASCII)
_MI_RANGES = {"length": (0, MAX_MATCH_LENGTH), "game": (0, matfile.MAX_POINTS),
              "ws": (0, matfile.MAX_POINTS), "bs": (0, matfile.MAX_POINTS)}
"""The match information (``MI``) numbers read, and their ranges."""


def parse(text: str, *, max_games: int | None = None,
          max_nodes: int | None = None) -> list[list[Node]]:
    """The main line of each game tree: a list of nodes, each ``{property: [values]}``.

    Text over :data:`MAX_BYTES` characters, and (when given) more than ``max_games`` game
    trees or ``max_nodes`` nodes, are refused as they are met."""
    return [[node for _, node in tree] for tree in _parse(text, max_games, max_nodes)]


def _parse(text: str, max_games: int | None,
           max_nodes: int | None) -> list[list[tuple[int, Node]]]:
    """:func:`parse`, each node with the line it starts on."""
    if len(text) > MAX_BYTES:
        raise MatchFileError(f"the SGF text is {len(text):,} characters long, more than the "
                             f"{MAX_BYTES:,} a match file may have")
    trees: list[list[tuple[int, Node]]] = []
    nodes = 0
    i, n = 0, len(text)
    line, counted = 1, 0                # the line of character ``counted``
    depth = 0
    current: list[tuple[int, Node]] | None = None
    skip_from = -1          # depth at which a variation (not the main line) started
    seen_child: dict[int, bool] = {}
    while i < n:
        c = text[i]
        if c == "(":
            depth += 1
            if depth > MAX_DEPTH:
                raise MatchFileError(f"game trees nest more than {MAX_DEPTH} deep at character "
                                     f"{i}")
            if depth == 1:
                if max_games is not None and len(trees) >= max_games:
                    raise MatchFileError(f"more than {max_games:,} game trees in the SGF text, "
                                         f"the limit for one file")
                current = []
                trees.append(current)
                seen_child.clear()
            elif skip_from < 0 and seen_child.get(depth, False):
                skip_from = depth
            seen_child[depth] = True
            seen_child[depth + 1] = False
            i += 1
        elif c == ")":
            if depth == 0:
                raise MatchFileError(f"unbalanced ')' at character {i}")
            if skip_from == depth:
                skip_from = -1
            depth -= 1
            i += 1
        elif c == ";":
            if current is None:
                raise MatchFileError(f"a node outside a game tree at character {i}")
            node: Node = {}
            nodes += 1
            if max_nodes is not None and nodes > max_nodes:
                raise MatchFileError(f"more than {max_nodes:,} nodes in the SGF text, the limit "
                                     f"for one file")
            if skip_from < 0:
                line += text.count("\n", counted, i)
                counted = i
                current.append((line, node))
            i += 1
            while True:
                while i < n and text[i].isspace():
                    i += 1
                m = _IDENT.match(text, i)
                if m is None:
                    break
                ident = m.group(0).upper()
                i = m.end()
                values: list[str] = []
                while True:
                    while i < n and text[i].isspace():
                        i += 1
                    if i >= n or text[i] != "[":
                        break
                    value, i = _value(text, i + 1, ident)
                    values.append(value)
                if not values:
                    raise MatchFileError(f"property {ident} without a value at character {i}")
                node.setdefault(ident, []).extend(values)
        elif c.isspace():
            i += 1
        else:
            raise MatchFileError(f"unexpected {c!r} at character {i} of the SGF text")
    if depth != 0:
        raise MatchFileError("unbalanced '(' in the SGF text")
    return trees


def _value(text: str, start: int, ident: str) -> tuple[str, int]:
    """The value of a property that opens (``[``) just before ``start``, with ``\\`` escapes
    read, and where the text goes on after its ``]``."""
    parts: list[str] = []
    j = start
    while True:
        close = text.find("]", j)
        if close < 0:
            raise MatchFileError(f"unterminated value of {ident} at character {start - 1}")
        esc = text.find("\\", j, close)
        if esc < 0:
            parts.append(text[j:close])
            return "".join(parts), close + 1
        parts.append(text[j:esc])
        parts.append(text[esc + 1])        # the escaped character, ']' and '\\' included
        j = esc + 2


def _point(ch: str, player: int) -> str:
    if ch == "y":
        return "bar"
    if ch == "z":
        return "off"
    if not "a" <= ch <= "x":
        raise MatchFileError(f"bad point letter {ch!r}")
    p = ord(ch) - ord("a") + 1
    return str(p if player == 0 else 25 - p)


def _mi(root: Node, where: str) -> dict[str, int]:
    """The numbers of the match information (``MI[key:value]``) that :func:`loads` reads, each
    within its range; other keys are skipped."""
    out: dict[str, int] = {}
    for v in root.get("MI", []):
        key, _, val = v.partition(":")
        key = key.strip().lower()
        if key in _MI_RANGES:
            lo, hi = _MI_RANGES[key]
            try:
                out[key] = parse_int(val.strip(), f"MI {key}", lo, hi)
            except FieldError as exc:
                raise MatchFileError(f"{where}: {exc}") from None
    return out


def loads(text: str, rules: Rules | None = None, *, max_games: int | None = None,
          max_entries: int | None = None, source: str | None = None) -> MatchRecord:
    """The match in SGF ``text``, every move checked by the referee.

    Raises :class:`MatchFileError` on unreadable text or illegal play, on a match longer than
    :data:`gbot.game.match.MAX_MATCH_LENGTH` points, and (when given) on more than
    ``max_games`` games or ``max_entries`` nodes, each refused before any play is replayed.

    Read as the writers mean them: the first game's ``MI`` score (a record that starts in
    mid-match), resignations as nodes (``B[resign:2]`` offers the 2 points of a resignation,
    ``W[accept]`` or ``W[reject]`` answers), ratings after the names, and results the play
    does not give (the recorded points are kept). A set-up position (``AE``, ``AW``, ``AB``,
    ``CV``, ``CP``) is not kept: the rest of its game is skipped, its recorded result kept.
    What is kept otherwise than written is reported as a
    :class:`~gbot.records.matfile.MatchFileWarning` naming the node's line; ``source`` names
    the file in them."""

    trees = _parse(text, max_games, max_entries)
    if not trees:
        raise MatchFileError("no game tree in the SGF text")
    warn = FileWarnings(source)
    games: list[RawGame] = []
    length: int | None = None
    names = ("player0", "player1")
    jacoby = False
    for gi, tree in enumerate(trees):
        root_line, root = tree[0] if tree else (1, {})
        if root.get("GM", ["6"])[0].strip() != "6":
            raise MatchFileError(f"game tree {gi + 1} is not backgammon (GM[6])")
        mi = _mi(root, f"game tree {gi + 1}")
        if length is None:
            length = mi.get("length", 0)
            names = (player_name(root.get("PW", ["player0"])[0]),
                     player_name(root.get("PB", ["player1"])[0]))
            jacoby = any("jacoby" in r.lower() for r in root.get("RU", []))
        number = mi.get("game", gi) + 1
        game = RawGame(number, root_line, names, (mi.get("ws", 0), mi.get("bs", 0)))
        _entries(tree, game)
        re_ = root.get("RE", [""])[0].strip()
        m = _RESULT.match(re_.upper())
        if m:
            try:
                points = parse_int(m.group(2), "points won", 1, 3 * MAX_CUBE)
            except FieldError as exc:
                raise MatchFileError(f"game {number}, result: {exc}") from None
            game.entries.append(Entry(0 if m.group(1) == "W" else 1, "wins", points,
                                      line=root_line, where="result", text=f"RE[{re_}]"))
        games.append(game)
    base = rules or Rules(jacoby=jacoby)
    record = replay(length or 0, base, names, games, warn)
    warn.close()
    return record


def _entries(tree: list[tuple[int, Node]], game: RawGame) -> None:
    """The moves, cube actions, resignations and set-ups of ``tree`` (its root aside), as
    entries of ``game``."""
    number = game.number
    cube, offered, pending = 1, 0, -1      # pending: who doubled, still unanswered
    played = False
    for k, (line, node) in enumerate(tree):
        where = f"node {k}"
        if _setup(node, not played):
            game.entries.append(Entry(0, "setup", line=line, where=where, text=(
                "a set-up position (AE, AW, AB, CV or CP) is not kept: gbot's records start "
                "every game from the opening position")))
        if k == 0:
            continue
        for colour, player in (("W", 0), ("B", 1)):
            for raw in node.get(colour, []):
                v = raw.strip().lower()
                e = Entry(player, v, line=line, where=where, text=f"{colour}[{raw.strip()}]")
                played = True
                if v in ("double", "beaver"):
                    if pending >= 0 and pending != player:   # a redouble at once
                        offered = 4 * cube
                        e.kind = "beaver"
                    else:
                        offered = 2 * cube
                        e.kind = "double"
                    e.value = offered
                    pending = player
                elif v in ("take", "drop"):
                    cube, pending = offered, -1
                elif v in ("accept", "reject"):
                    pass
                elif _RESIGN.match(v):
                    e.kind = "resign"
                    offer = _RESIGN.match(v).group(1)  # type: ignore[union-attr]
                    try:
                        e.value = (parse_int(offer.strip(), "points resigned", 1, 3 * MAX_CUBE)
                                   if offer else 0)
                    except FieldError as exc:
                        raise MatchFileError(f"game {number}, {where}: {exc}") from None
                else:
                    if pending >= 0:      # a beaver's take is left out, as in .mat files
                        cube, pending = offered, -1
                    _move(v, e, number)
                game.entries.append(e)
    last_line, last = tree[-1] if tree else (0, {})
    if "DI" in last:
        pl = last.get("PL", ["W"])[0].strip().upper()
        di = last["DI"][0].strip()
        if len(di) == 2 and _digits(di):
            game.entries.append(Entry(0 if pl == "W" else 1, "move", dice=(int(di[0]), int(di[1])),
                                      line=last_line, where="last node", text=f"DI[{di}]"))


def _move(v: str, e: Entry, number: int) -> None:
    """Read the move value ``v`` (``52mhhf``: the roll, then from/to letter pairs) into
    ``e``."""
    if len(v) < 2 or not _digits(v[:2]) or len(v) % 2:
        raise MatchFileError(f"game {number}, {e.where}: cannot read move {quote(v)}")
    d = (int(v[0]), int(v[1]))
    if not all(1 <= x <= 6 for x in d):
        raise MatchFileError(f"game {number}, {e.where}: bad dice {v[:2]!r}")
    try:
        e.steps = [f"{_point(v[j], e.player)}/{_point(v[j + 1], e.player)}"
                   for j in range(2, len(v), 2)]
    except MatchFileError as exc:
        raise MatchFileError(f"game {number}, {e.where}: {exc}") from None
    e.kind, e.dice = "move", d


_SETUP = ("AE", "AW", "AB", "CV", "CP")


def _setup(node: Node, fresh: bool) -> bool:
    """Whether ``node`` sets up a position other than the opening one (any set-up where
    ``fresh`` is false: after play)."""
    if not any(p in node for p in _SETUP):
        return False
    if not fresh:
        return True
    if node.get("CV", ["1"])[0].strip() != "1" or node.get("CP", ["c"])[0].strip().lower() != "c":
        return True
    board = {0: dict(_START), 1: {25 - p: n for p, n in _START.items()}}
    for ident, sides in (("AE", (0, 1)), ("AW", (0,)), ("AB", (1,))):
        for value in node.get(ident, []):
            first, _, last = value.strip().lower().partition(":")
            last = last or first
            if not ("a" <= first <= "z" and "a" <= last <= "z" and len(first) == len(last) == 1):
                return True
            for letter in range(ord(first), ord(last) + 1):
                point = letter - ord("a") + 1
                for side in sides:
                    if ident == "AE":
                        board[side].pop(point, None)
                    else:
                        board[side][point] = board[side].get(point, 0) + 1
    return board != {0: dict(_START), 1: {25 - p: n for p, n in _START.items()}}


_START = {6: 5, 8: 3, 13: 5, 24: 2}
"""The opening position of player 0 (``W``), by point letter (``a`` = 1)."""
_RESIGN = re.compile(r"^resign(?::(.*))?$")


def _digits(text: str) -> bool:
    """Whether ``text`` is ASCII digits only (other scripts' digits are no dice here)."""
    return text.isascii() and text.isdigit()


def read(path: str | Path, rules: Rules | None = None, *, max_games: int | None = None,
         max_entries: int | None = None) -> MatchRecord:
    """:func:`loads` of the file at ``path`` (its warnings name ``path``); a file over
    :data:`MAX_BYTES` bytes is refused without reading more than that."""
    data = read_bounded(path, MAX_BYTES, "match file", MatchFileError)
    return loads(data.decode("utf-8", errors="replace"), rules, max_games=max_games,
                 max_entries=max_entries, source=str(path))
