"""GNU Backgammon's ``.sgf`` match files: a writer for referee logs (gnubg opens them with
``load match``).

One SGF game tree per game, in the form gnubg 1.07 saves: a root node with ``GM[6]`` (backgammon),
``MI[length:N][game:K][ws:S0][bs:S1]``, the player names (``PW`` = player 0, ``PB`` =
player 1), ``RU`` (``Crawford``, ``Crawford:CrawfordGame`` in the Crawford game, ``Jacoby`` in
money play with Jacoby) and ``RE`` (``W+2``, ``B+1R`` for a resignation), then one node per
action: ``W[52mhhf]`` for a move (the roll, larger die first, then ``from``/``to`` letter pairs),
``B[double]``, ``W[take]``, ``W[drop]``, and ``PL[W]DI[62]`` for a roll its player resigned after.
Points are letters in player 0's numbering (``a`` = point 1 ... ``x`` = 24), ``y`` is the bar and
``z`` is off, for both players. Beavers and raccoons are written as redoubles, which is how
gnubg records them. Only the standard variation is written; drawn games have no ``RE``. The first
game's root has a comment (``C``) naming the rules played and where gnubg reads them otherwise.
"""

from __future__ import annotations

from pathlib import Path

from gbot.errors import MatchFileError
from gbot.game.match import GameState
from gbot.game.referee import Action, GameRecord, MatchRecord
from gbot.records.notes import gnubg_warnings, rules_text
from gbot.version import __version__


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _point(p: int, player: int) -> str:
    if p == 25:
        return "y"
    if p <= 0:
        return "z"
    return chr(ord("a") + (p if player == 0 else 25 - p) - 1)


def _colour(player: int) -> str:
    return "W" if player == 0 else "B"


def _move(a: Action) -> str:
    steps = "".join(_point(s, a.player) + _point(d, a.player) for s, d in a.steps)
    return f";{_colour(a.player)}[{max(a.dice)}{min(a.dice)}{steps}]"


def _nodes(game: GameRecord) -> list[str]:
    out: list[str] = []
    rolled: Action | None = None
    for a in game.actions:
        c = _colour(a.player)
        if a.kind == "roll":
            rolled = a
        elif a.kind == "move":
            rolled = None
            out.append(_move(a))
        elif a.kind in ("double", "beaver"):
            out.append(f";{c}[double]")
        elif a.kind in ("take", "drop"):
            out.append(f";{c}[{a.kind}]")
        elif a.kind == "win" and rolled is not None:
            out.append(f";PL[{_colour(rolled.player)}]DI[{max(rolled.dice)}{min(rolled.dice)}]")
    return out


def _root(record: MatchRecord, game: GameRecord) -> str:
    r = record.rules
    props = [f"FF[4]GM[6]CA[UTF-8]AP[gbot:{__version__}]",
             f"MI[length:{record.match_length}][game:{game.number}]"
             f"[ws:{game.score[0]}][bs:{game.score[1]}]",
             f"PW[{_esc(record.names[0])}]PB[{_esc(record.names[1])}]"]
    if record.match_length > 0:
        props.append("RU[Crawford:CrawfordGame]" if game.crawford else "RU[Crawford]")
    elif r.jacoby:
        props.append("RU[Jacoby]")
    if game.winner >= 0 and game.how != GameState.PLAYING:
        flag = "R" if game.how == GameState.RESIGNED else ""
        props.append(f"RE[{_colour(game.winner)}+{game.points}{flag}]")
    if game is record.games[0]:
        props.append(f"C[{_esc(_note(record))}]")
    return "(;" + "".join(props)


def _note(record: MatchRecord) -> str:
    """The first game's comment: the rules played, and where gnubg reads them otherwise."""

    lines = [f"gbot: {rules_text(record.rules, record.match_length)}"]
    lines += [f"gnubg: {w}" for w in gnubg_warnings(record.rules, record.match_length, sgf=True)]
    return "\n".join(lines)


def dumps(record: MatchRecord) -> str:
    """The ``.sgf`` text of ``record`` (standard variation only)."""
    if record.rules.variation != "standard":
        raise MatchFileError(f"SGF is written for standard backgammon only, not "
                             f"{record.rules.variation!r}")
    trees = []
    for game in record.games:
        trees.append("\n".join([_root(record, game), *_nodes(game)]) + ")")
    return "\n".join(trees) + "\n"


def write(record: MatchRecord, path: str | Path) -> None:
    """Write ``record`` to ``path`` as a gnubg ``.sgf`` file."""
    Path(path).write_text(dumps(record), encoding="utf-8")
