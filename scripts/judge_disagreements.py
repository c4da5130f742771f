#!/usr/bin/env python3
"""Who is right where gbot and gnubg-nn differ: the rolls of a head-to-head where gbot's 0-ply
and gnubg-nn's 0-ply pick different plays, judged by a deeper evaluation.

The rolls come from a ``gbot train selfplay --policy versus --disagreements`` folder (every
candidate of each such roll, labelled with gnubg-nn 0-ply). gnubg's pick is the candidate its
0-ply labels rank best, gbot's the one ``--weights``' networks rank best. A judge (gnubg-nn,
bgsage or gbot at some depth; bgsage is a network family of its own, so its verdict is not
gnubg's own bias) values both results; a roll's figure is the mover's equity after gbot's pick
minus after gnubg's (cubeless money, positive: gbot's pick is better). Where the two agree
they lose nothing to each other, so the mean per game of these figures is what the
disagreements are worth by that judge.

Examples:

  gbot train selfplay --out runs/vs2 --games 1000 --seed 9101 --policy versus --eps 0 \\
      --disagreements
  python3 scripts/judge_disagreements.py --src runs/vs2 --judge bgsage --plies 2
  python3 scripts/judge_disagreements.py --src runs/vs2 --judge gnubg-nn --plies 2 --limit 3000
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import time
from pathlib import Path
from typing import Any

import click
import numpy as np
import numpy.typing as npt

from gbot.core.classify import NAMES, classify_many

EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
JUDGES = ("gnubg-nn", "bgsage", "gbot")
BLOCK = 250

_JUDGE: dict[str, Any] = {}


def mover_equity(probs: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
    """The mover's cubeless equity after a play, from the probabilities of the side on roll
    next (rows of five)."""
    eq: npt.NDArray[np.float64] = -(np.asarray(probs, np.float64) @ EQUITY)
    return eq


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


def _init(judge: str, plies: int) -> None:
    _JUDGE["name"], _JUDGE["plies"] = judge, plies
    if judge == "bgsage":
        from gbot.train.bgsage_bridge import Bgsage
        _JUDGE["bgsage"] = Bgsage(plies, threads=1)
    elif judge == "gbot":
        from gbot.eval.evaluator import Evaluator
        _JUDGE["gbot"] = Evaluator()


def _judge(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
    """Cubeless probabilities of the side on roll, by the worker's judge."""
    name, plies = _JUDGE["name"], _JUDGE["plies"]
    if name == "gnubg-nn":
        from gbot.train.oracle import probabilities
        return probabilities(boards, plies)
    if name == "bgsage":
        out: npt.NDArray[np.float32] = _JUDGE["bgsage"].probabilities(boards)
        return out
    ev = _JUDGE["gbot"]
    return np.array([ev.evaluate(b, ply=plies) for b in boards], dtype=np.float32)


def judge_boards(boards: npt.NDArray[np.int8], judge: str, plies: int, workers: int,
                 log: Any = print) -> npt.NDArray[np.float32]:
    """The judge's probabilities of every board (side on roll), in blocks over ``workers``
    processes, with progress."""
    blocks = [boards[i:i + BLOCK] for i in range(0, boards.shape[0], BLOCK)]
    out: list[npt.NDArray[np.float32]] = []
    start = time.time()
    if workers <= 1:
        _init(judge, plies)
        results: Any = map(_judge, blocks)
        pool = None
    else:
        pool = mp.get_context("spawn").Pool(workers, initializer=_init, initargs=(judge, plies))
        results = pool.imap(_judge, blocks)
    try:
        for i, probs in enumerate(results, 1):
            out.append(probs)
            if i % 8 == 0 or i == len(blocks):
                rate = i / max(time.time() - start, 1e-9)
                log(f"progress: {i}/{len(blocks)} blocks, ETA {(len(blocks) - i) / rate:.0f}s")
    finally:
        if pool is not None:
            pool.terminate()
    return np.concatenate(out) if out else np.zeros((0, 5), np.float32)


def report(gnubg_picks: npt.NDArray[np.int8], diff: npt.NDArray[np.float64],
           games: int) -> dict[str, Any]:
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
@click.option("--seed", default=1, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option("--json-out", type=click.Path(path_type=Path), default=None)
def main(src: Path, judge: str, plies: int, weights: Path | None, limit: int | None, seed: int,
         workers: int, json_out: Path | None) -> None:
    """Judge the rolls where gbot's and gnubg-nn's 0-ply picks differ."""
    picks_g, picks_b, game_of = disagreements(src, weights)
    games = int(np.unique(game_of).shape[0]) if game_of.shape[0] else 0
    if limit is not None and limit < picks_g.shape[0]:
        keep = np.sort(np.random.default_rng(seed).permutation(picks_g.shape[0])[:limit])
        picks_g, picks_b = picks_g[keep], picks_b[keep]
        games = int(round(games * limit / game_of.shape[0]))
    n = picks_g.shape[0]
    click.echo(f"{n} disagreement rolls; judge {judge} at {plies} plies")
    probs = judge_boards(np.concatenate([picks_g, picks_b]), judge, plies, workers,
                         log=lambda m: click.echo(m, err=True))
    eq = mover_equity(probs)
    result = {"src": str(src), "judge": judge, "plies": plies,
              "weights": str(weights) if weights else None,
              **report(picks_g, eq[n:] - eq[:n], games)}
    click.echo(f"RESULT: {result['rolls']} rolls over {games} games: gbot's pick better in "
               f"{100 * result['gbot_better']:.1f} %, equal in {100 * result['equal']:.1f} %, "
               f"{result['mean_per_roll']:+.5f} (SE {result['se_per_roll']:.5f}) a roll, "
               f"{result['per_game']:+.4f} a game")
    for name, r in result["by_class"].items():
        click.echo(f"  {name:8s} {r['rolls']:6d} rolls  {r['mean_per_roll']:+.5f} a roll  "
                   f"{r['per_game']:+.4f} a game  gbot better {100 * r['gbot_better']:.1f} %")
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
