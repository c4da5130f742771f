"""Reading GNU Backgammon's ``.sgf`` match files (gnubg's and those :mod:`gbot.records.sgf`
writes).

:func:`loads` parses the SGF collection (one game tree per game; the main line of each tree,
variations ignored), reads the match length, score, names and result from each root, and
replays every move and cube action through the referee (:func:`gbot.records.matfile.replay`,
as :func:`gbot.records.matfile.loads` does), so an illegal move or a score that does not follow
is refused with the game and node named.
Properties that carry no play (comments, analysis, times) are skipped. The point letters and
colours are those described in :mod:`gbot.records.sgf` (``W`` = player 0, ``a`` = player 0's
point 1, ``y`` bar, ``z`` off).
"""

from __future__ import annotations

import re
from pathlib import Path

from gbot.errors import MatchFileError
from gbot.game.match import Rules
from gbot.game.referee import MatchRecord
from gbot.records.matfile import Entry, replay

__all__ = ["loads", "parse", "read"]

Node = dict[str, list[str]]

_IDENT = re.compile(r"[A-Za-z]+")
MAX_BYTES = 16 * 1024 * 1024
"""Larger files are refused (a match file is a few hundred kilobytes at most)."""


def parse(text: str) -> list[list[Node]]:
    """The main line of each game tree: a list of nodes, each ``{property: [values]}``."""
    if len(text) > MAX_BYTES:
        raise MatchFileError(f"SGF text too long ({len(text)} characters)")
    trees: list[list[Node]] = []
    i, n = 0, len(text)
    depth = 0
    current: list[Node] | None = None
    skip_from = -1          # depth at which a variation (not the main line) started
    seen_child: dict[int, bool] = {}
    while i < n:
        c = text[i]
        if c == "(":
            depth += 1
            if depth == 1:
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
            if skip_from < 0:
                current.append(node)
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
                    j = i + 1
                    buf: list[str] = []
                    while j < n and text[j] != "]":
                        if text[j] == "\\" and j + 1 < n:
                            j += 1
                        buf.append(text[j])
                        j += 1
                    if j >= n:
                        raise MatchFileError(f"unterminated value of {ident} at character {i}")
                    values.append("".join(buf))
                    i = j + 1
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


def _point(ch: str, player: int) -> str:
    if ch == "y":
        return "bar"
    if ch == "z":
        return "off"
    if not "a" <= ch <= "x":
        raise MatchFileError(f"bad point letter {ch!r}")
    p = ord(ch) - ord("a") + 1
    return str(p if player == 0 else 25 - p)


def _mi(root: Node) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in root.get("MI", []):
        key, _, val = v.partition(":")
        if val.strip().lstrip("-").isdigit():
            out[key.strip().lower()] = int(val)
    return out


def loads(text: str, rules: Rules | None = None) -> MatchRecord:
    """The match in SGF ``text``, every move checked by the referee."""

    trees = parse(text)
    if not trees:
        raise MatchFileError("no game tree in the SGF text")
    games = []
    length: int | None = None
    names = ("player0", "player1")
    jacoby = False
    for gi, nodes in enumerate(trees):
        root = nodes[0] if nodes else {}
        if root.get("GM", ["6"])[0].strip() != "6":
            raise MatchFileError(f"game tree {gi + 1} is not backgammon (GM[6])")
        mi = _mi(root)
        if length is None:
            length = mi.get("length", 0)
            names = (root.get("PW", ["player0"])[0], root.get("PB", ["player1"])[0])
            jacoby = any("jacoby" in r.lower() for r in root.get("RU", []))
        score = (mi.get("ws", 0), mi.get("bs", 0))
        number = mi.get("game", gi) + 1
        entries = []
        cube, offered, pending = 1, 0, -1      # pending: who doubled, still unanswered
        for k, node in enumerate(nodes[1:], 1):
            where = f"node {k}"
            for colour, player in (("W", 0), ("B", 1)):
                for v in node.get(colour, []):
                    v = v.strip().lower()
                    if v in ("double", "beaver"):
                        if pending >= 0 and pending != player:   # a redouble at once
                            offered = 4 * cube
                            entries.append((where, Entry(player, "beaver", offered)))
                        else:
                            offered = 2 * cube
                            entries.append((where, Entry(player, "double", offered)))
                        pending = player
                        continue
                    if v in ("take", "drop"):
                        cube, pending = offered, -1
                        entries.append((where, Entry(player, v)))
                        continue
                    if pending >= 0:      # a beaver's take is left out, as in .mat files
                        cube, pending = offered, -1
                    if len(v) < 2 or not v[:2].isdigit() or len(v) % 2:
                        raise MatchFileError(f"game {number}, {where}: cannot read move "
                                             f"{v!r}")
                    d = (int(v[0]), int(v[1]))
                    if not all(1 <= x <= 6 for x in d):
                        raise MatchFileError(f"game {number}, {where}: bad dice {v[:2]!r}")
                    try:
                        steps = [f"{_point(v[j], player)}/{_point(v[j + 1], player)}"
                                 for j in range(2, len(v), 2)]
                    except MatchFileError as exc:
                        raise MatchFileError(f"game {number}, {where}: {exc}") from None
                    entries.append((where, Entry(player, "move", dice=d, steps=steps)))
        if "DI" in nodes[-1] if nodes else False:
            pl = nodes[-1].get("PL", ["W"])[0].strip().upper()
            di = nodes[-1]["DI"][0].strip()
            if len(di) == 2 and di.isdigit():
                entries.append(("last node", Entry(0 if pl == "W" else 1, "move",
                                                    dice=(int(di[0]), int(di[1])))))
        re_ = root.get("RE", [""])[0].strip().upper()
        m = re.match(r"^([WB])\+(\d+)", re_)
        if m:
            entries.append(("result", Entry(0 if m.group(1) == "W" else 1, "wins",
                                             int(m.group(2)))))
        games.append((number, names, score, entries))
    base = rules or Rules(jacoby=jacoby)
    return replay(length or 0, base, names, games)


def read(path: str | Path, rules: Rules | None = None) -> MatchRecord:
    """:func:`loads` of the file at ``path``."""
    p = Path(path)
    if p.stat().st_size > MAX_BYTES:
        raise MatchFileError(f"{p} is too large for a match file")
    return loads(p.read_text(encoding="utf-8", errors="replace"), rules)
