#!/usr/bin/env python3
"""Head-to-head strength: gbot against gnubg-nn, bgsage or PubEval; cubeless money, duplicate dice.

Game pairs share one seeded dice stream: in the first game of a pair gbot takes the opening
roll, in the second the opponent does, with the same rolls, so luck largely cancels. A game
scores 1, 2 or 3 points (single, gammon, backgammon). The report is gbot's points per game
with its standard error (from the pair means), plus gammon/backgammon rates.

Examples:

  python3 scripts/bench_strength.py --games 2000                  # gbot 0-ply vs gnubg 0-ply
  python3 scripts/bench_strength.py --games 20000 --workers 2
  python3 scripts/bench_strength.py --opponent pubeval --games 2000
  python3 scripts/bench_strength.py --ply 1 --opp-ply 1 --games 1000
  python3 scripts/bench_strength.py --opponent bgsage --games 2000     # bgsage's raw net
  python3 scripts/bench_strength.py --opponent bgsage --opp-ply 2      # bgsage 2-ply (its naming)

gnubg-nn and bgsage are used here only as opponents; gbot itself never needs them. bgsage
plays its own cubeless checker play (``gbot.train.bgsage_bridge.Bgsage.choose``); every choice
is checked against gbot's legal results, and one that is not among them is counted
(``bgsage_illegal``) and replaced by bgsage's best among gbot's legal results.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import time
from pathlib import Path
from typing import Any, cast

import benchlib  # noqa: F401  (first: one thread per worker)
import click
import numpy as np

from gbot.core.board import START, Board, flip_py, from_gnubg, to_gnubg

_STATE: dict[str, Any] = {}


def _init(weights: str | None, ply: int, opponent: str, opp_ply: int, chooser: str,
          prune: bool = True, starts: Board | None = None) -> None:
    """Per-worker set-up: gbot's evaluator and the opponent."""
    import gnubg_nn

    _STATE["starts"] = starts
    _STATE["gnubg"] = gnubg_nn
    _STATE["ply"] = ply
    _STATE["opponent"] = opponent
    _STATE["opp_ply"] = opp_ply
    _STATE["chooser"] = chooser
    _STATE["illegal"] = 0
    _STATE["opp_moves"] = 0
    if opponent == "bgsage":
        from gbot.train.bgsage_bridge import Bgsage
        _STATE["bgsage"] = Bgsage(opp_ply, threads=1)
    if chooser == "evaluator":
        from gbot.eval.evaluator import Evaluator
        ev = Evaluator(weights, prune=None if prune else False)
        ev.warm()
        _STATE["ev"] = ev
    else:
        from gbot.core import movegen
        from gbot.eval.net import Networks
        nets = Networks.load(weights) if weights else Networks.default()
        nets.warm()
        movegen.warm()
        _STATE["nets"] = nets
        _STATE["movegen"] = movegen


_EQ = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def _gbot_move(board: Board, d1: int, d2: int) -> Board | None:
    """gbot's result (mover's view) or None when the roll cannot be played."""
    if _STATE["chooser"] == "evaluator":
        from gbot.game.position import Position
        play = _STATE["ev"].best_play(Position(board), (d1, d2), _STATE["ply"])
        return None if play is None else np.asarray(play.position.board, dtype=np.int8)
    cands = _STATE["movegen"].legal_boards(board, d1, d2)
    if cands.shape[0] == 0:
        return None
    opp = -cands[:, ::-1]
    probs = _STATE["nets"].evaluate(np.ascontiguousarray(opp, dtype=np.int8))
    eq = probs.astype(np.float64) @ _EQ
    return np.asarray(cands[int(np.argmin(eq))], dtype=np.int8)


def _apply_steps(board: Board, steps: list[tuple[int, int]]) -> Board:
    """Apply (from, to) steps in the mover's numbering (25 = bar, 0 = off)."""
    b = board.astype(np.int8).copy()
    for src, dst in steps:
        b[src] -= 1
        if dst > 0:
            if b[dst] == -1:
                b[dst] = 0
                b[0] -= 1
            b[dst] += 1
    return b


def _opp_move(board: Board, d1: int, d2: int) -> Board | None:
    """The opponent's result (mover's view) or None when the roll cannot be played."""
    if _STATE["opponent"] == "bgsage":
        return _bgsage_move(board, d1, d2)
    g = _STATE["gnubg"]
    me, opp = to_gnubg(board)
    gb = [opp, me]
    if not g.moves(gb, d1, d2):
        return None
    if _STATE["opponent"] == "pubeval":
        flat = list(g.pub_best_move(gb, d1, d2))
        steps = [(flat[i] + 1, flat[i + 1] + 1) for i in range(0, len(flat) - 1, 2)
                 if flat[i] >= 0 or flat[i + 1] >= 0]
        return _apply_steps(board, steps)
    _, key = g.best_move(gb, d1, d2, _STATE["opp_ply"], b=1)
    nb = g.boardfromkey(key)  # already swapped: the next player is nb[1]
    nxt = from_gnubg(list(nb[1]), list(nb[0]))
    return flip_py(nxt)


def _bgsage_move(board: Board, d1: int, d2: int) -> Board | None:
    """bgsage's choice, checked against gbot's rules (counted and replaced if not legal)."""
    from gbot.core.movegen import legal_boards
    bgs = _STATE["bgsage"]
    legal = legal_boards(board, d1, d2)
    choice = bgs.choose(board, d1, d2)
    _STATE["opp_moves"] += 1
    if choice is None and legal.shape[0] == 0:
        return None
    if choice is None or not (legal == choice).all(axis=1).any():
        _STATE["illegal"] += 1
        return cast(Board | None, bgs.choose(board, d1, d2, legal))
    return cast(Board, choice)


def _score(b: Board) -> int:
    """Points won by the mover who has just borne off the last checker (``b`` mover's view)."""
    loser = -int(b[0]) + int(-b[1:25][b[1:25] < 0].sum())
    if loser < 15:
        return 1
    if b[0] < 0 or (b[1:7] < 0).any():
        return 3
    return 2


def _dice_stream(seed: int, pair: int) -> np.random.Generator:
    return np.random.default_rng([seed, pair])


def _play_game(rng: np.random.Generator, gbot_first: bool,
               start: Board | None = None) -> tuple[int, int]:
    """One game from the opening, or from ``start`` (the first mover on roll, any first roll);
    returns (gbot's points, number of moves)."""
    board = START.copy() if start is None else start.copy()
    while True:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        if d1 != d2 or start is not None:
            break
    gbot_to_move = gbot_first
    moves = 0
    while True:
        moves += 1
        res = _gbot_move(board, d1, d2) if gbot_to_move else _opp_move(board, d1, d2)
        if res is None:
            res = board
        elif int(res[1:26][res[1:26] > 0].sum()) == 0:
            pts = _score(res)
            return (pts if gbot_to_move else -pts), moves
        board = flip_py(res)
        gbot_to_move = not gbot_to_move
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        if moves > 2000:
            raise RuntimeError("game did not end")


def _play_pair(args: tuple[int, int]) -> tuple[int, int, int, int, int]:
    """Both games of a pair: (pair, gbot's points in each, the opponent's moves, of them
    bgsage choices that gbot's rules do not allow)."""
    seed, pair = args
    _STATE["illegal"] = _STATE["opp_moves"] = 0
    starts = _STATE.get("starts")
    start = None if starts is None else starts[pair % starts.shape[0]]
    a, _ = _play_game(_dice_stream(seed, pair), True, start)
    b, _ = _play_game(_dice_stream(seed, pair), False, start)
    return pair, a, b, _STATE["opp_moves"], _STATE["illegal"]


def _start_boards(path: str, cls: str, seed: int) -> Board:
    """The ``--starts`` boards of class ``cls`` (live games only), in a seeded order."""
    from gbot.core.classify import NAMES, classify_many
    with np.load(path) as z:
        boards = np.asarray(z["boards"], dtype=np.int8)
    kinds = classify_many(boards)
    live = kinds != NAMES.index("over")
    keep = live if cls == "any" else kinds == NAMES.index(cls)
    boards = boards[keep]
    if boards.shape[0] == 0:
        raise click.ClickException(f"no {cls} boards in {path}")
    return np.ascontiguousarray(boards[np.random.default_rng(seed).permutation(boards.shape[0])])


@click.command()
@click.option("--games", default=2000, show_default=True, help="games (rounded up to pairs)")
@click.option("--ply", default=0, show_default=True, help="gbot's search depth")
@click.option("--opponent", type=click.Choice(["gnubg", "bgsage", "pubeval"]), default="gnubg",
              show_default=True)
@click.option("--opp-ply", default=None, type=int,
              help="the opponent's depth: gnubg-nn's plies (default 0), or bgsage's own "
                   "naming (1 = raw net, the default; 2 = gnubg's 1-ply; 3 = gnubg's 2-ply)")
@click.option("--weights", type=click.Path(exists=True), default=None,
              help="gbot weights (.npz); default: the shipped ones")
@click.option("--chooser", type=click.Choice(["evaluator", "net"]), default="evaluator",
              show_default=True, help="gbot.Evaluator.best_play, or a bare 0-ply net chooser")
@click.option("--prune/--no-prune", default=True, show_default=True,
              help="prune inner reply choices with the networks' pruning networks (the shipped "
                   "ones have them; other weights files have none)")
@click.option("--starts", type=click.Path(exists=True, dir_okay=False), default=None,
              help="play pair k from board k (mod their number) of this .npz (`boards`, side "
                   "to move about to roll) instead of the opening")
@click.option("--starts-class", type=click.Choice(["any", "contact", "crashed", "race"]),
              default="any", show_default=True, help="keep only --starts boards of this class")
@click.option("--seed", default=2026, show_default=True)
@click.option("--workers", default=2, show_default=True)
@click.option("--json-out", type=click.Path(), default=None, help="also write the result here")
def main(games: int, ply: int, opponent: str, opp_ply: int | None, weights: str | None,
         chooser: str, prune: bool, starts: str | None, starts_class: str, seed: int,
         workers: int, json_out: str | None) -> None:
    """Play gbot against gnubg-nn, bgsage or PubEval and print gbot's points per game."""
    pairs = (games + 1) // 2
    if opp_ply is None:
        opp_ply = 1 if opponent == "bgsage" else 0
    if opponent == "bgsage" and opp_ply not in (1, 2, 3):
        raise click.ClickException("--opp-ply for bgsage is 1, 2 or 3 (its own naming)")
    if chooser == "net" and ply != 0:
        raise click.ClickException("the bare net chooser plays 0-ply only")
    t0 = time.time()
    results = np.zeros((pairs, 2), dtype=np.int64)
    checked = np.zeros(2, dtype=np.int64)      # opponent moves, bgsage choices not legal
    start_boards = None if starts is None else _start_boards(starts, starts_class, seed)
    init = (weights, ply, opponent, opp_ply, chooser, prune, start_boards)
    tasks = [(seed, k) for k in range(pairs)]
    done = 0
    step = max(1, pairs // 20)

    def report(final: bool) -> dict[str, Any]:
        r = results[:done]
        per_pair = r.mean(axis=1)
        ppg = float(per_pair.mean()) if done else 0.0
        se = float(per_pair.std(ddof=1) / math.sqrt(done)) if done > 1 else float("nan")
        absr = np.abs(r)
        out = {"games": 2 * done, "ppg": ppg, "se": se, "opponent": opponent,
               "ply": ply, "opp_ply": opp_ply, "chooser": chooser, "seed": seed,
               "weights": weights or "shipped", "prune": prune,
               "starts": starts and f"{starts} ({starts_class})",
               "win_rate": float((r > 0).mean()) if done else 0.0,
               "gammon_rate": float((absr >= 2).mean()) if done else 0.0,
               "backgammon_rate": float((absr >= 3).mean()) if done else 0.0,
               "seconds": round(time.time() - t0, 1)}
        if opponent == "bgsage":
            out["opp_moves"] = int(checked[0])
            out["bgsage_illegal"] = int(checked[1])
        tag = "RESULT" if final else "progress"
        opp = {"pubeval": "pubeval", "gnubg": f"gnubg-nn {opp_ply}-ply",
               "bgsage": f"bgsage {opp_ply}-ply (its naming)"}[opponent]
        click.echo(f"{tag}: gbot {ply}-ply vs {opp}: {ppg:+.4f} ppg (SE {se:.4f}) over "
                   f"{2 * done} games, {out['seconds']}s", err=not final)
        if opponent == "bgsage" and final:
            click.echo(f"bgsage choices not legal in gbot's rules: {checked[1]} of "
                       f"{checked[0]} moves (replaced by its best legal one)")
        return out

    if workers <= 1:
        _init(*init)
        for t in tasks:
            _, a, b, m, bad = _play_pair(t)
            results[done] = (a, b)
            checked += (m, bad)
            done += 1
            if done % step == 0:
                report(False)
    else:
        ctx = mp.get_context("fork")
        with ctx.Pool(workers, initializer=_init, initargs=init) as pool:
            for _k, a, b, m, bad in pool.imap(_play_pair, tasks, chunksize=16):
                results[done] = (a, b)
                checked += (m, bad)
                done += 1
                if done % step == 0:
                    report(False)
    out = report(True)
    out["pairs"] = results[:done].tolist()    # gbot's points in each pair's two games
    if json_out:
        Path(json_out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
