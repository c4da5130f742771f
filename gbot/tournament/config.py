"""What a tournament is and what a run of it did: :class:`TournamentConfig` (everything that
decides the games, saved as ``tournament.json``), :func:`load_config`, and :class:`RunSummary`
(the report's input). :mod:`gbot.tournament.runner` plays a configuration;
:mod:`gbot.tournament.report` tabulates a summary."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from gbot.errors import GbotError, TournamentError
from gbot.game.match import MatchState, Rules
from gbot.tournament.game import GameTask
from gbot.tournament.players import PlayerSpec, default_label, parse_player
from gbot.tournament.records import Record

__all__ = ["CONFIG_VERSION", "SCHEMES", "RunSummary", "TournamentConfig", "derive_seed",
           "load_config"]

SCHEMES = ("head-to-head", "round-robin", "gauntlet")
CONFIG_VERSION = 1


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from ``parts`` (the same on every machine and Python run)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides the games of a tournament (see the module docstring).

    ``games`` is the number of games (money) or matches per pairing; with duplicate dice it is
    rounded up to an even number (``games / 2`` dice sequences, each played both ways).
    """

    players: tuple[str, ...]
    scheme: str = "head-to-head"
    length: int = 0
    games: int = 100
    duplicate: bool = True
    seed: int = 1
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        specs = [parse_player(p) for p in self.players]   # raises on a bad spec
        object.__setattr__(self, "players", tuple(s.text() for s in specs))
        if self.scheme not in SCHEMES:
            raise TournamentError(f"scheme must be one of {SCHEMES}, got {self.scheme!r}")
        if len(specs) < 2:
            raise TournamentError(f"a tournament needs two players or more, got {self.players!r}")
        if self.scheme == "head-to-head" and len(specs) != 2:
            raise TournamentError(f"head-to-head takes exactly two players, got "
                                  f"{len(specs)}: {self.players!r}")
        if not isinstance(self.length, int) or self.length < 0:
            raise TournamentError(f"match length must be 0 (money) or more, got {self.length!r}")
        if not isinstance(self.games, int) or self.games < 1:
            raise TournamentError(f"games per pairing must be 1 or more, got {self.games!r}")

    # --- players and pairings ----------------------------------------------------------------
    def specs(self) -> list[PlayerSpec]:
        """The players, each with a label unique in this tournament."""
        out: list[PlayerSpec] = []
        seen: dict[str, int] = {}
        for text in self.players:
            spec = parse_player(text)
            label = spec.label or default_label(spec)
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                if spec.label:
                    raise TournamentError(f"two players are named {label!r}")
                label = f"{label}-{seen[label]}"
            out.append(replace(spec, label=label))
        return out

    @property
    def labels(self) -> list[str]:
        """The players' labels, in order."""
        return [s.label for s in self.specs()]

    def pairings(self) -> list[tuple[int, int]]:
        """Player index pairs ``(A, B)`` that meet."""
        n = len(self.players)
        if self.scheme == "gauntlet":
            return [(0, j) for j in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    @property
    def units(self) -> int:
        """Units (money games or matches) per pairing: dice sequences with duplicate dice."""
        return (self.games + 1) // 2 if self.duplicate else self.games

    def mirrors(self, unit: int) -> tuple[int, ...]:
        """The seatings unit ``unit`` is played in (0: A in seat 0, 1: B in seat 0)."""
        return (0, 1) if self.duplicate else (unit % 2,)

    def keys(self) -> Iterator[tuple[int, int, int]]:
        """Every ``(pairing, unit, mirror)``: units outermost, so that mirrored pairs and all
        pairings advance together."""
        for u in range(self.units):
            for p in range(len(self.pairings())):
                for m in self.mirrors(u):
                    yield p, u, m

    @property
    def total_units(self) -> int:
        """Money games or matches in the whole tournament."""
        return sum(1 for _ in self.keys())

    def dice_seed(self, unit: int, game: int) -> int:
        """The dice stream of game ``game`` of unit ``unit`` (shared by mirrors and pairings)."""
        return derive_seed(self.seed, "dice", unit, game)

    def task(self, key: tuple[int, int, int], start: MatchState) -> GameTask:
        """The task that plays the next game of ``key`` from ``start``."""
        p, u, m = key
        specs = self.specs()
        a, b = self.pairings()[p]
        seats = (specs[a], specs[b]) if m == 0 else (specs[b], specs[a])
        g = start.game_number
        return GameTask(key, g, seats, (seats[0].label, seats[1].label), start,
                        self.dice_seed(u, g),
                        (derive_seed(self.seed, "player", p, u, m, g, 0),
                         derive_seed(self.seed, "player", p, u, m, g, 1)))

    # --- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``from_json`` reads it back)."""
        d = asdict(self)
        d["players"] = list(self.players)
        d["version"] = CONFIG_VERSION
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TournamentConfig:
        """The configuration a ``to_json`` dict describes."""
        if d.get("version") != CONFIG_VERSION:
            raise TournamentError(f"tournament file version {d.get('version')!r}, "
                                  f"expected {CONFIG_VERSION}")
        try:
            names = {f.name for f in fields(Rules)}
            rules = Rules(**{k: v for k, v in d["rules"].items() if k in names})
            return cls(tuple(d["players"]), d["scheme"], int(d["length"]), int(d["games"]),
                       bool(d["duplicate"]), int(d["seed"]), rules)
        except (KeyError, TypeError, GbotError) as exc:
            raise TournamentError(f"unreadable tournament configuration: {exc}") from None


@dataclass
class RunSummary:
    """What :func:`run` did: the folder, the records, games played now, whether it finished."""

    folder: Path
    config: TournamentConfig
    records: list[Record]
    new_games: int
    complete: bool
    elapsed: float
    engines: dict[str, str]



def load_config(folder: str | Path) -> TournamentConfig:
    """The configuration saved in a tournament folder."""
    path = Path(folder) / "tournament.json"
    if not path.exists():
        raise TournamentError(f"no tournament in {str(folder)!r} (no tournament.json)")
    return TournamentConfig.from_json(json.loads(path.read_text()))
