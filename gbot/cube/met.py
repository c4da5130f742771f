"""Match equity tables: the shipped Kazaross-XG2 table, lookups, conversions and a generator.

A table gives the match winning chance (MWC) of a player ``a`` points away from winning against
an opponent ``b`` away. The pre-Crawford part is indexed by both aways (its 1-away row is the
Crawford game); the post-Crawford part gives the trailer's chance against a 1-away leader once
the Crawford game has been played. :meth:`MatchEquityTable.mwc` hides the distinction.

:func:`default_table` loads the shipped table (``gbot/data/met_kazaross_xg2.json``, converted
once from GNU Backgammon's data file by ``scripts/make_met.py``). 
:func:`gbot.cube.metgen.generate` computes a table from gammon rates with gbot's own cube model,
so users can build one for their own assumptions.

Scores beyond the table (matches longer than its length) are extended with a normal
approximation fitted to the table's last rows (see :meth:`MatchEquityTable.mwc`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from gbot.errors import MatchEquityError

Array = npt.NDArray[np.float64]

DEFAULT_NAME = "met_kazaross_xg2.json"


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A match equity table (winning chances, 0..1).

    ``pre[i, j]``: chance of the player ``i + 1`` away against ``j + 1`` away before the Crawford
    game has been played (row or column 0: the Crawford game). ``post[j]``: chance of the trailer
    ``j + 1`` away against a 1-away leader after the Crawford game (``post[0]`` is 1-away both).
    """

    name: str
    source: str
    pre: Array
    post: Array

    def __post_init__(self) -> None:
        """Check the shape and the basic identities of a table."""
        n = self.pre.shape[0]
        if self.pre.shape != (n, n) or self.post.shape != (n,) or n < 2:
            raise MatchEquityError(
                f"table {self.name!r} has shapes {self.pre.shape!r} and {self.post.shape!r}")
        if not (np.all(self.pre >= 0) and np.all(self.pre <= 1) and np.all(self.post >= 0)
                and np.all(self.post <= 1)):
            raise MatchEquityError(f"table {self.name!r} has values outside 0..1")
        if np.max(np.abs(self.pre + self.pre.T - 1.0)) > 1e-6:
            raise MatchEquityError(f"table {self.name!r} is not antisymmetric")

    @property
    def length(self) -> int:
        """The longest match the table covers."""
        return int(self.pre.shape[0])

    # -- lookups -------------------------------------------------------------------------------

    def mwc(self, away: int, opp_away: int, *, post_crawford: bool = False) -> float:
        """Winning chance of the player ``away`` points from victory against ``opp_away``.

        A score at or below 0 has won (1.0) or lost (0.0) the match. ``post_crawford`` says the
        Crawford game has been played, which matters only when someone is 1 away. Both at or
        below 0 is an error.
        """
        if away <= 0 and opp_away <= 0:
            raise MatchEquityError(f"both players have won: away {away!r}, {opp_away!r}")
        if away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        if post_crawford and (away == 1 or opp_away == 1):
            if away == 1:
                return 1.0 - self._post(opp_away)
            return self._post(away)
        n = self.length
        if away <= n and opp_away <= n:
            return float(self.pre[away - 1, opp_away - 1])
        return self._extended(away, opp_away)

    def _post(self, trailer_away: int) -> float:
        if trailer_away <= self.length:
            return float(self.post[trailer_away - 1])
        # The trailer needs about trailer_away / 2 doubled games in a row.
        return float(self.post[-1]) * math.pow(0.5, (trailer_away - self.length) / 2.0)

    def _extended(self, away: int, opp_away: int) -> float:
        """A normal approximation for scores beyond the table, fitted to its last column."""
        k = self._fit_k()
        return float(_phi(k * (opp_away - away) / math.sqrt(away + opp_away)))

    @lru_cache(maxsize=1)  # noqa: B019 - one table object lives as long as the program
    def _fit_k(self) -> float:
        n = self.length
        ks = []
        for a in range(max(2, n - 6), n):
            v = float(self.pre[a - 1, n - 1])
            if 0.0 < v < 1.0 and a != n:
                ks.append(_phi_inv(v) * math.sqrt(a + n) / (n - a))
        return float(np.mean(ks)) if ks else 0.35

    # -- formats -------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, text: str) -> MatchEquityTable:
        """A table from gbot's JSON format (see ``scripts/make_met.py``)."""
        try:
            d = json.loads(text)
            pre = np.asarray(d["pre_crawford"], dtype=np.float64)
            post = np.asarray(d["post_crawford"], dtype=np.float64)
            name = str(d.get("name", "")).strip()
            source = str(d.get("source", "")).strip()
        except (ValueError, KeyError, TypeError) as exc:
            raise MatchEquityError(f"not a gbot match equity table: {text[:60]!r}") from exc
        return cls(name=name, source=source, pre=pre, post=post)

    def to_json(self) -> str:
        """gbot's JSON format."""
        return json.dumps({
            "format": "gbot-met-1", "name": self.name, "source": self.source,
            "length": self.length, "pre_crawford": self.pre.tolist(),
            "post_crawford": self.post.tolist()})

    @classmethod
    def load(cls, path: str | Path) -> MatchEquityTable:
        """Read a table written by :meth:`to_json` or ``scripts/make_met.py``."""
        return cls.from_json(Path(path).read_text())


@lru_cache(maxsize=1)
def default_table() -> MatchEquityTable:
    """The shipped Kazaross-XG2 table (the one GNU Backgammon 1.07 uses by default)."""
    text = resources.files("gbot").joinpath("data", DEFAULT_NAME).read_text()
    return MatchEquityTable.from_json(text)


# -- equity conversions ------------------------------------------------------------------------


_Chance = TypeVar("_Chance", float, npt.NDArray[np.float64])


def mwc_to_equity(mwc: _Chance, win_mwc: float, lose_mwc: float) -> _Chance:
    """Normalised match equity of a winning chance (or of each of an array of them): +1 =
    ``win_mwc``, -1 = ``lose_mwc``.

    ``win_mwc`` and ``lose_mwc`` are the chances after winning and after losing the current cube
    value (a single game). gnubg calls the result EMG (equivalent to money game).
    """
    if win_mwc == lose_mwc:
        raise MatchEquityError(f"the cube is worth nothing here: {win_mwc!r} both ways")
    return (2.0 * mwc - win_mwc - lose_mwc) / (win_mwc - lose_mwc)


def equity_to_mwc(equity: float, win_mwc: float, lose_mwc: float) -> float:
    """Inverse of :func:`mwc_to_equity`."""
    return 0.5 * (equity * (win_mwc - lose_mwc) + win_mwc + lose_mwc)


def _phi(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _phi_inv(p: float) -> float:
    lo, hi = -10.0, 10.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if _phi(mid) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


__all__ = ["MatchEquityTable", "default_table", "mwc_to_equity", "equity_to_mwc"]
