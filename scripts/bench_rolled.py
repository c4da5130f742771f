#!/usr/bin/env python3
"""gbot's own rolled-out benchmark: checker play scored by the rollout equity each player gives
up, decision by decision, on a folder of rolled-out candidates.

The folder is a ``gbot train rollout`` output chosen from a self-play folder's close candidates
(``--src SELFPLAY --margin --class``): every close candidate of each chosen roll, grouped by
decision, each rolled out by gbot (cubeless, luck cancelled). A player values every candidate
of a decision (gbot or gnubg-nn at some ply, all candidates at that ply, no move filters) and
picks the best; its loss at that decision is the rollout equity of the rollout's best candidate
minus that of its pick (0 when it picks the rollout's best). This is the rule of gnubg's own
benchmark sets (the rolled-out equity lost by the chosen play), with gbot's rollouts as the
judge: a judge outside gnubg's family, as a check on gnubg-judged figures.

``--cross`` also takes 1-ply apart: a 1-ply value is the mean over the opponent's 21 rolls of
the reply it picks by 0-ply, valued at 0-ply, so each of gbot (``--cross-weights``, default the
shipped networks, unpruned) and gnubg-nn picks the replies and each values them, four players
in all. Where "picks A, values B" scores like "picks B, values B", the reply choices do not
matter and the values of the replied positions are what a 1-ply search gains or lacks.

Each player's mean loss a decision, the share of decisions where it picks the rollout's best,
and its difference from the first player over the same decisions, with the standard error of
that paired difference (from the spread over decisions, so the rollouts' own noise is in it).
The candidates of a decision are those within ``--margin`` of the best by the self-play
folder's labels, so a player's pick outside that set is never scored; the figures compare
players on the decisions where the choice is close.

    gbot train rollout --src $R/selfplay/crashed6 --class crashed --margin 0.08 --limit 30000 \\
        --out $R/rl_crashed_g --trials 36 --seed 23
    python scripts/bench_rolled.py --src $R/rl_crashed_g --player gnubg:0 --player gbot:0 \\
        --player gbot:1 --player gnubg:1 --json-out $R/bench_rolled_crashed.json
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import benchlib  # noqa: F401  (first: one thread per process)
import click
import numpy as np
import numpy.typing as npt
from benchlib import judge_boards, mover_equity

from gbot.core import expand as ex
from gbot.eval.evaluator import Evaluator
from gbot.train.rollout_label import load_with_groups


@dataclass(frozen=True)
class Player:
    """A player of the benchmark: ``engine`` (gbot or gnubg-nn) at ``ply``, gbot with its
    shipped networks or ``weights``."""

    engine: str
    ply: int
    weights: str | None = None

    @property
    def name(self) -> str:
        w = f" ({Path(self.weights).name})" if self.weights else ""
        return f"{self.engine} {self.ply}-ply{w}"


def parse_player(text: str) -> Player:
    """``gbot:PLY[:WEIGHTS]`` or ``gnubg:PLY`` (gnubg-nn)."""
    parts = text.split(":", 2)
    engines = {"gbot": "gbot", "gnubg": "gnubg-nn", "gnubg-nn": "gnubg-nn"}
    if len(parts) < 2 or parts[0] not in engines or not parts[1].isdigit():
        raise click.BadParameter(f"{text!r}: give gbot:PLY[:WEIGHTS] or gnubg:PLY")
    engine = engines[parts[0]]
    if len(parts) == 3 and engine != "gbot":
        raise click.BadParameter(f"{text!r}: only gbot takes a weights file")
    ply = int(parts[1])
    if ply > 3:
        raise click.BadParameter(f"{text!r}: ply 0 to 3")
    return Player(engine, ply, parts[2] if len(parts) == 3 else None)


@dataclass(frozen=True)
class Decisions:
    """The benchmark's decisions: rows sorted so that each decision's candidates are
    consecutive, ``starts[k]`` the first row of decision ``k``; ``rolled`` the mover's rollout
    equity after each candidate."""

    boards: npt.NDArray[np.int8]
    rolled: npt.NDArray[np.float64]
    starts: npt.NDArray[np.int64]

    @property
    def count(self) -> int:
        return int(self.starts.shape[0])


def decisions(folder: Path, limit: int | None = None, seed: int = 1) -> Decisions:
    """The decisions of a rolled-out folder with two or more candidates (``limit`` of them,
    drawn with ``seed``, if given)."""
    try:
        boards, probs, groups = load_with_groups(folder)
    except FileNotFoundError as e:
        raise click.ClickException(str(e)) from None
    if groups is None:
        raise click.ClickException(f"{folder} has no decision groups: make it with gbot train "
                                   "rollout --src SELFPLAY (close candidates of whole rolls)")
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    first = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    size = np.diff(np.r_[first, g.shape[0]])
    keep = np.flatnonzero(size >= 2)
    if limit is not None and limit < keep.shape[0]:
        keep = np.sort(np.random.default_rng(seed).choice(keep, limit, replace=False))
    rows = np.concatenate([order[first[k]:first[k] + size[k]] for k in keep]) if keep.size \
        else np.zeros(0, np.int64)
    starts = np.r_[0, np.cumsum(size[keep])[:-1]].astype(np.int64) if keep.size \
        else np.zeros(0, np.int64)
    return Decisions(boards[rows], mover_equity(probs[rows]), starts)


@dataclass(frozen=True)
class Score:
    """One player's figures over the decisions."""

    player: str
    decisions: int
    loss: float
    best_share: float
    minus_first: float
    minus_first_se: float
    differ: int


def losses(d: Decisions, valued: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per decision the rollout equity given up by picking the candidate ``valued`` (the
    player's mover equities) rates highest (the first of equals)."""
    out = np.empty(d.count, dtype=np.float64)
    ends = np.r_[d.starts[1:], d.rolled.shape[0]]
    for k, (a, b) in enumerate(zip(d.starts, ends, strict=True)):
        pick = a + int(np.argmax(valued[a:b]))
        out[k] = d.rolled[a:b].max() - d.rolled[pick]
    return out


def score(name: str, loss: npt.NDArray[np.float64], first: npt.NDArray[np.float64]) -> Score:
    """The figures of a player's per-decision ``loss`` beside the first player's ``first``."""
    n = loss.shape[0]
    diff = loss - first
    se = float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return Score(name, n, float(loss.mean()), float((loss == 0.0).mean()), float(diff.mean()),
                 se, int((diff != 0.0).sum()))


def reply_values(d: Decisions, pickers: dict[str, npt.NDArray[np.float64]],
                 offsets: npt.NDArray[np.int64]) -> dict[tuple[str, str], npt.NDArray[np.float64]]:
    """Per candidate, the mover's 1-ply equity with the opponent's reply of each roll picked by
    one engine and valued by another: ``pickers`` holds each engine's mover equity of every
    reply (rows of group ``21 * i + r`` from ``offsets``, as :meth:`Evaluator.children`
    orders them); the opponent picks the reply lowest for the mover (the first of equals)."""
    n = d.boards.shape[0]
    starts, ends = offsets[:-1], offsets[1:]
    out = {}
    for pk, pe in pickers.items():
        chosen = np.array([a + int(np.argmin(pe[a:b])) for a, b in zip(starts, ends,
                                                                        strict=True)])
        for vk, ve in pickers.items():
            out[pk, vk] = (ve[chosen].reshape(n, ex.N_ROLLS) @ ex.ROLL_WEIGHTS)
    return out


def cross_scores(d: Decisions, weights: str | None, workers: int, first: npt.NDArray[np.float64],
                 log: Any) -> list[Score]:
    """The four players of ``--cross`` (module docstring), scored beside ``first``."""
    children, offsets, probs, kinds, _ = Evaluator(weights, prune=False).children(d.boards)
    over = kinds == ex.OVER
    pickers = {}
    for name, engine in (("gbot", "gbot"), ("gnubg-nn", "gnubg-nn")):
        log(f"valuing {children.shape[0]} replies with {name} 0-ply")
        p = judge_boards(children, engine, 0, workers, weights=weights, log=log)
        p = np.where(over[:, None], probs, p)           # ended games: their exact result
        pickers[name] = np.asarray(p, np.float64) @ ex.EQUITY_WEIGHTS   # the mover on roll
    values = reply_values(d, pickers, offsets)
    return [score(f"1-ply: picks {pk}, values {vk}", losses(d, v), first)
            for (pk, vk), v in values.items()]


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--src", type=click.Path(exists=True, file_okay=False, path_type=Path),
              required=True, help="a gbot train rollout folder with decision groups")
@click.option("--player", "players", multiple=True, callback=lambda c, p, v: [
    parse_player(x) for x in v], help="gbot:PLY[:WEIGHTS] or gnubg:PLY (repeatable; the "
              "first is the reference of the differences)  [default: gnubg:0, gbot:0]")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="score this many decisions, drawn at random with --seed")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--cross", is_flag=True, help="also 1-ply taken apart: gbot's and gnubg-nn's "
              "reply picks, each valued by each (see the module docstring)")
@click.option("--cross-weights", type=click.Path(exists=True, dir_okay=False), default=None,
              help="gbot's weights for --cross (default: the shipped networks)")
@click.option("--json-out", type=click.Path(dir_okay=False, path_type=Path), default=None)
def main(src: Path, players: list[Player], limit: int | None, seed: int, workers: int,
         cross: bool, cross_weights: str | None, json_out: Path | None) -> None:
    if not players:
        players = [Player("gnubg-nn", 0), Player("gbot", 0)]
    d = decisions(src, limit, seed)
    if d.count == 0:
        raise click.ClickException(f"{src} holds no decision with two or more candidates")
    click.echo(f"{d.count} decisions, {d.rolled.shape[0]} candidates, from {src}", err=True)
    scores: list[Score] = []
    first: npt.NDArray[np.float64] | None = None
    for p in players:
        click.echo(f"valuing with {p.name}", err=True)
        probs = judge_boards(d.boards, p.engine, p.ply, workers, weights=p.weights,
                             log=lambda m: click.echo(m, err=True))
        loss = losses(d, mover_equity(probs))
        first = loss if first is None else first
        scores.append(score(p.name, loss, first))
    if cross and first is not None:
        scores += cross_scores(d, cross_weights, workers, first,
                               log=lambda m: click.echo(m, err=True))
    click.echo(f"{'player':<40} {'decisions':>9} {'loss a decision':>16} {'best picked':>12} "
               f"{'minus the first':>22}")
    for s in scores:
        click.echo(f"{s.player:<40} {s.decisions:>9} {s.loss:>16.5f} {s.best_share:>12.3f} "
                   f"{s.minus_first:>+12.5f} ± {s.minus_first_se:.5f}")
    if json_out is not None:
        json_out.write_text(json.dumps({"src": str(src), "decisions": d.count,
                                        "candidates": int(d.rolled.shape[0]),
                                        "scores": [asdict(s) for s in scores]}, indent=1))


if __name__ == "__main__":
    main()
