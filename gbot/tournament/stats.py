"""Statistics of tournament records: per-pairing scores with honest errors, and Elo ratings.

Standard errors treat each unit (a dice sequence: both mirrored games or matches of it, or a
single game without duplicate dice) as one cluster, because the two mirrors of a unit are
played with the same rolls and are far from independent (that is the point of duplicate dice:
their luck cancels). For a mean of ``N`` values in ``C`` clusters::

    SE^2 = C / (C - 1) * sum_c (sum_{i in c} (x_i - mean))^2 / N^2

which is the ordinary ``s / sqrt(N)`` when every cluster holds one value. The 95% interval is
``mean +- 1.96 SE`` (normal approximation; it needs a few dozen units to mean much); a share
(the match-win rate) gets Wilson's score interval, which stays within 0..1.

Ratings are Bradley-Terry strengths fitted by the minorise-maximise iteration over every
pairing's wins (games for money, matches for match play; a draw counts half), shown on the Elo
scale (``400 log10``). Each pairing gets one virtual drawn game so that a clean sweep gives a
large finite gap rather than an infinite one. Ratings are relative: the first player of a
gauntlet is 0, otherwise their mean is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["PairingStats", "clustered_mean", "elo_ratings", "pairing_stats", "rate_interval",
           "running_score"]

Z95 = 1.959963984540054


def clustered_mean(values: Sequence[float], clusters: Sequence[object]
                   ) -> tuple[float, float]:
    """``(mean, standard error)`` of ``values`` grouped in ``clusters`` (nan SE below 2)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(values) / n
    sums: dict[object, float] = {}
    for x, c in zip(values, clusters, strict=True):
        sums[c] = sums.get(c, 0.0) + (x - mean)
    k = len(sums)
    if k < 2:
        return mean, math.nan
    var = k / (k - 1) * math.fsum(s * s for s in sums.values()) / (n * n)
    return mean, math.sqrt(var)


@dataclass
class PairingStats:
    """One pairing's results from A's side (A is the pairing's first player)."""

    a: str
    b: str
    games: int
    units: int
    points: float
    """A's net points over all games."""
    ppg: float
    se: float
    ci: tuple[float, float]
    wins: int
    losses: int
    draws: int
    gammons: tuple[int, int]
    """Gammons (backgammons included) won by A and by B."""
    backgammons: tuple[int, int]
    drops: tuple[int, int]
    """Games A and B won because the other side dropped a double."""
    matches: int = 0
    match_wins: int = 0
    match_rate: float = math.nan
    match_se: float = math.nan
    match_ci: tuple[float, float] = (math.nan, math.nan)
    seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        """A's share of the games won (draws count half)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def rate(self, count: int) -> float:
        """``count`` per game."""
        return count / self.games if self.games else math.nan

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (nan becomes None)."""
        d = asdict(self)
        d["win_rate"] = self.win_rate
        out: dict[str, Any] = _clean(d)
        return out


def _clean(x: Any) -> Any:
    if isinstance(x, float):
        return None if math.isnan(x) or math.isinf(x) else x
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def _ci(mean: float, se: float) -> tuple[float, float]:
    if math.isnan(se):
        return math.nan, math.nan
    return mean - Z95 * se, mean + Z95 * se


def rate_interval(rate: float, se: float, n: int) -> tuple[float, float]:
    """95 % interval of a share (Wilson's score interval, within 0..1) from ``n`` outcomes
    whose clustered standard error is ``se`` (the effective count ``rate (1 - rate) / se**2``
    carries the clustering)."""
    if n == 0 or math.isnan(rate):
        return math.nan, math.nan
    var = rate * (1.0 - rate)
    m = var / se**2 if se > 0.0 and var > 0.0 else float(n)
    z2 = Z95 * Z95
    centre = (rate + z2 / (2.0 * m)) / (1.0 + z2 / m)
    half = Z95 * math.sqrt(var / m + z2 / (4.0 * m * m)) / (1.0 + z2 / m)
    return max(0.0, centre - half), min(1.0, centre + half)


def pairing_stats(records: Sequence[dict[str, Any]], a: str, b: str,
                  match_length: int = 0) -> PairingStats:
    """Statistics of ``records`` (one pairing's game records) for A = ``a`` against ``b``."""
    pts = [float(r["a_points"]) for r in records]
    units = [int(r["key"][1]) for r in records]
    ppg, se = clustered_mean(pts, units)
    a_seat = [0 if r["seats"][0] == a else 1 for r in records]
    wins = sum(1 for r, s in zip(records, a_seat, strict=True) if r["winner"] == s)
    draws = sum(1 for r in records if r["winner"] < 0)
    losses = len(records) - wins - draws

    def count(side: int, kinds: tuple[int, ...], how: str | None = None) -> int:
        n = 0
        for r, s in zip(records, a_seat, strict=True):
            seat = s if side == 0 else 1 - s
            if r["winner"] == seat and (r["kind"] in kinds if how is None else r["how"] == how):
                n += 1
        return n

    st = PairingStats(
        a, b, len(records), len(set(units)), math.fsum(pts), ppg, se, _ci(ppg, se), wins,
        losses, draws, (count(0, (2, 3)), count(1, (2, 3))), (count(0, (3,)), count(1, (3,))),
        (count(0, (), "DROPPED"), count(1, (), "DROPPED")),
        seconds=math.fsum(float(r.get("seconds", 0.0)) for r in records))
    if match_length:
        finals = [r for r in records if r["match_over"]]
        won = [1.0 if r["match_winner"] == s else 0.0 for r, s in
               zip(finals, [0 if r["seats"][0] == a else 1 for r in finals], strict=True)]
        rate, mse = clustered_mean(won, [int(r["key"][1]) for r in finals])
        st.matches = len(finals)
        st.match_wins = int(sum(won))
        st.match_rate, st.match_se = rate, mse
        st.match_ci = rate_interval(rate, mse, len(finals))
    return st


def elo_ratings(players: Sequence[str], results: Sequence[tuple[str, str, float, float]],
                anchor: str | None = None, iterations: int = 10_000) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings from ``(A, B, A's score, encounters)`` results.

    ``A's score`` counts wins as 1 and draws as 1/2. ``anchor`` is rated 0; without it the
    mean rating is 0. Players without results are left out.
    """
    idx = {p: i for i, p in enumerate(players)}
    n = len(players)
    wins = [0.0] * n
    meet: dict[tuple[int, int], float] = {}
    for a, b, score, count in results:
        if count <= 0:
            continue
        i, j = idx[a], idx[b]
        # one virtual drawn encounter per pairing keeps clean sweeps finite
        wins[i] += score + 0.5
        wins[j] += count - score + 0.5
        key = (min(i, j), max(i, j))
        meet[key] = meet.get(key, 0.0) + count + 1.0
    active = sorted({i for k in meet for i in k})
    if not active:
        return {}
    gamma = [1.0] * n
    for _ in range(iterations):
        new = list(gamma)
        for i in active:
            denom = 0.0
            for (x, y), m in meet.items():
                if i in (x, y):
                    j = y if i == x else x
                    denom += m / (gamma[i] + gamma[j])
            new[i] = wins[i] / denom
        logmean = sum(math.log(new[i]) for i in active) / len(active)
        new = [g / math.exp(logmean) for g in new]
        change = max(abs(math.log(new[i] / gamma[i])) for i in active)
        gamma = new
        if change < 1e-12:
            break
    elo = {players[i]: 400.0 * math.log10(gamma[i]) for i in active}
    if anchor is not None and anchor in elo:
        base = elo[anchor]
        elo = {p: r - base for p, r in elo.items()}
    return elo


def running_score(records: Sequence[dict[str, Any]]) -> list[float]:
    """A's cumulative net points over the pairing's games, in (unit, mirror, game) order."""
    ordered = sorted(records, key=lambda r: (int(r["key"][1]), int(r["key"][2]),
                                             int(r["game"])))
    total = 0.0
    out = []
    for r in ordered:
        total += float(r["a_points"])
        out.append(total)
    return out
