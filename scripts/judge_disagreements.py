#!/usr/bin/env python3
"""Who is right where gbot and gnubg-nn differ: the rolls of a head-to-head where gbot's 0-ply
and gnubg-nn's 0-ply pick different plays, judged by a deeper evaluation or by rollouts.

The rolls come from a ``gbot train selfplay --policy versus --disagreements`` folder (every
candidate of each such roll, labelled with gnubg-nn 0-ply). gnubg's pick is the candidate its
0-ply labels rank best, gbot's the one ``--weights``' networks rank best. A judge (gnubg-nn,
bgsage or gbot at some depth; bgsage is a network family of its own, so its verdict is not
gnubg's own bias) values both results; a roll's figure is the mover's equity after gbot's pick
minus after gnubg's (cubeless money, positive: gbot's pick is better). Where the two agree
they lose nothing to each other, so the mean per game of these figures is what the
disagreements are worth by that judge.

The ``rollout`` judge is gbot's own rolled-out benchmark: both results of a roll are rolled out
by gbot (``--trials`` cubeless games each, checker play at ``--plies``, variance reduction) on
the same dice, so a roll's figure and its standard error come from the per-game differences.
It is the slow judge (seconds a roll on one core): ``--cache`` keeps every judged roll, so an
interrupted or extended run goes on where it stopped, and ``--class`` picks one position class.

Examples:

  gbot train selfplay --out runs/vs2 --games 1000 --seed 9101 --policy versus --eps 0 \\
      --disagreements
  python3 scripts/judge_disagreements.py --src runs/vs2 --judge bgsage --plies 2
  python3 scripts/judge_disagreements.py --src runs/vs2 --judge gnubg-nn --plies 2 --limit 3000
  python3 scripts/judge_disagreements.py --src runs/vs2 --judge rollout --plies 0 --trials 144 \\
      --class crashed --limit 300 --cache runs/vs2-rollout.jsonl
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import benchlib  # noqa: F401  (first: one thread per process)
import click
import numpy as np
import numpy.typing as npt
from benchlib import JUDGES, judge_boards, mover_equity, rollout_pairs

from gbot.core.classify import NAMES, classify_many


def disagreements(folder: Path, weights: Path | None = None
                  ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """``(gnubg's picks, gbot's picks, game numbers)``: the results of each roll of ``folder``
    where the two pick different plays."""
    from gbot.eval.net import Networks

    chunks = sorted(folder.glob("chunk-*.npz"))
    if not chunks:
        raise click.ClickException(f"{folder} holds no self-play chunks (chunk-*.npz)")
    nets = Networks.load(weights) if weights else Networks.default()
    picks_g: list[npt.NDArray[np.int8]] = []
    picks_b: list[npt.NDArray[np.int8]] = []
    games: list[int] = []
    for path in chunks:
        with np.load(path) as z:
            boards, probs = z["boards"], z["probs"]
            key = z["game"].astype(np.int64) * 100_000 + z["turn"].astype(np.int64)
        ours = nets.evaluate(boards)
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        for s, e in zip(starts, np.r_[starts[1:], key.shape[0]], strict=True):
            ig = s + int(np.argmax(mover_equity(probs[s:e])))
            ib = s + int(np.argmax(mover_equity(ours[s:e])))
            if ig != ib:
                picks_g.append(boards[ig])
                picks_b.append(boards[ib])
                games.append(int(key[s] // 100_000))
    if not games:
        return (np.zeros((0, 26), np.int8), np.zeros((0, 26), np.int8), np.zeros(0, np.int64))
    return np.stack(picks_g), np.stack(picks_b), np.array(games, dtype=np.int64)


def report(gnubg_picks: npt.NDArray[np.int8], diff: npt.NDArray[np.float64],
           games: float) -> dict[str, Any]:
    """The verdict: per roll and per game, overall and by the class of gnubg's pick."""
    def part(d: npt.NDArray[np.float64]) -> dict[str, Any]:
        n = int(d.shape[0])
        se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        return {"rolls": n, "gbot_better": float(np.mean(d > 0)) if n else 0.0,
                "equal": float(np.mean(d == 0)) if n else 0.0,
                "mean_per_roll": float(d.mean()) if n else 0.0, "se_per_roll": se,
                "per_game": float(d.sum() / games) if games else 0.0}
    classes = classify_many(gnubg_picks) if gnubg_picks.shape[0] else np.zeros(0, np.int8)
    return {"games": games, **part(diff),
            "by_class": {NAMES[c]: part(diff[classes == c])
                         for c in sorted(set(classes.tolist()))}}


@click.command()
@click.option("--src", type=click.Path(path_type=Path, exists=True, file_okay=False),
              required=True, help="a `selfplay --policy versus --disagreements` folder")
@click.option("--judge", type=click.Choice(JUDGES), default="bgsage", show_default=True)
@click.option("--plies", type=click.IntRange(0, 3), default=2, show_default=True,
              help="the judge's depth (bgsage's own naming: 2 = gnubg's 1-ply, 3 = 2-ply)")
@click.option("--weights", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="the networks gbot played with (default: the shipped ones)")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="judge a random sample of this many rolls")
@click.option("--class", "only", type=click.Choice(NAMES), default=None,
              help="judge only the rolls whose gnubg pick is of this position class")
@click.option("--trials", type=click.IntRange(2), default=144, show_default=True,
              help="the rollout judge's games per result")
@click.option("--cache", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="the rollout judge's results, kept and reused (JSON lines)")
@click.option("--seed", default=1, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option("--json-out", type=click.Path(path_type=Path), default=None)
def main(src: Path, judge: str, plies: int, weights: Path | None, limit: int | None,
         only: str | None, trials: int, cache: Path | None, seed: int, workers: int,
         json_out: Path | None) -> None:
    """Judge the rolls where gbot's and gnubg-nn's 0-ply picks differ."""
    picks_g, picks_b, game_of = disagreements(src, weights)
    games = int(np.unique(game_of).shape[0]) if game_of.shape[0] else 0
    rolls = picks_g.shape[0]
    if only is not None and rolls:
        mine = classify_many(picks_g) == NAMES.index(only)
        picks_g, picks_b, rolls = picks_g[mine], picks_b[mine], int(mine.sum())
    if limit is not None and limit < rolls:
        keep = np.sort(np.random.default_rng(seed).permutation(rolls)[:limit])
        picks_g, picks_b = picks_g[keep], picks_b[keep]
    n = picks_g.shape[0]
    share = n / rolls if rolls else 1.0          # the judged share of the rolls of `games`
    if judge == "rollout" and plies > 2:
        raise click.BadParameter("the rollout judge plays at 0, 1 or 2 plies", param_hint="--plies")
    what = f"rollouts of {trials} games at {plies}-ply" if judge == "rollout" else f"{plies} plies"
    click.echo(f"{n} disagreement rolls{f' ({only})' if only else ''}; judge {judge}, {what}")
    def log(message: str) -> None:
        click.echo(message, err=True)

    extra: dict[str, Any] = {}
    if judge == "rollout":
        diff, pair_se = rollout_pairs(picks_g, picks_b, trials, plies, seed, workers, cache, log)
        extra = {"trials": trials, "class": only,
                 "mean_roll_se": float(pair_se.mean()) if n else float("nan")}
    else:
        eq = mover_equity(judge_boards(np.concatenate([picks_g, picks_b]), judge, plies,
                                       workers, log=log))
        diff = eq[n:] - eq[:n]
    result = {"src": str(src), "judge": judge, "plies": plies,
              "weights": str(weights) if weights else None, **extra,
              **report(picks_g, diff, games * share)}
    click.echo(f"RESULT: {result['rolls']} rolls over {games * share:.0f} games: gbot's pick "
               f"better in {100 * result['gbot_better']:.1f} %, equal in "
               f"{100 * result['equal']:.1f} %, {result['mean_per_roll']:+.5f} "
               f"(SE {result['se_per_roll']:.5f}) a roll, {result['per_game']:+.4f} a game")
    if "mean_roll_se" in extra:
        click.echo(f"  rollout SE of a roll's difference, mean: {extra['mean_roll_se']:.4f}")
    for name, r in result["by_class"].items():
        click.echo(f"  {name:8s} {r['rolls']:6d} rolls  {r['mean_per_roll']:+.5f} a roll  "
                   f"{r['per_game']:+.4f} a game  gbot better {100 * r['gbot_better']:.1f} %")
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
