"""Positions from play, labelled by gnubg-nn 0-ply: every candidate of every roll.

A game starts at the opening position (first roll re-rolled until not a double). At each turn
every legal result is seen from the next player's side (about to roll) and labelled with
gnubg-nn's 0-ply probabilities; the mover then picks by ``policy``:

* ``gnubg``: the candidate with gnubg-nn's best 0-ply equity (gnubg's own 0-ply play);
* ``gbot``: the candidate with the best equity by gbot's networks;
* ``versus``: gbot's networks against gnubg-nn 0-ply, gbot moving first in even-numbered
  games: the positions of the head-to-head that the benchmark measures;

and with probability ``eps`` a uniformly random candidate instead. With ``disagreements`` only
the rolls where gbot's networks and gnubg-nn 0-ply pick different plays are written: the
decisions a head-to-head between the two turns on, where a deeper label says who was right.
All candidates are kept (``played`` marks the one chosen), so the set teaches both the main
lines and the plays that good play avoids. Game ``n`` draws everything from
``numpy.random.default_rng([seed, n])``.

With ``starts`` (boards, side to move about to roll) game ``n`` starts from
``starts[n % len(starts)]`` with any first roll instead of the opening: for example races
taken from earlier games, to teach the race network on many more race positions.

Output: ``chunk-NNNNN.npz`` files (``boards``, ``probs``, ``played``, ``game``, ``turn``: the
candidates of one roll share a game and turn number) written atomically, in parallel on a
backend of :mod:`gbot.analysis.backends` (local worker processes or Ray); a rerun plays the
chunks that are missing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.analysis.backends import as_finished, make_backend
from gbot.core.board import START
from gbot.core.movegen import legal_boards
from gbot.eval.evaluator import equities
from gbot.eval.net import Networks
from gbot.train.oracle import gnubg, to_gnubg_lists

POLICIES = ("gnubg", "gbot", "versus")


def play_game(seed: int, game: int, policy: str, eps: float, nets: Any,
              legal_boards: Callable[..., npt.NDArray[np.int8]],
              start: npt.NDArray[np.int8] | None = None, disagreements: bool = False
              ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.bool_],
                         npt.NDArray[np.int32]]:
    """One game: ``(boards, gnubg 0-ply probabilities, played flags, turn numbers)`` of every
    candidate (with ``disagreements``, of the rolls where the two picks differ)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (choose from {', '.join(POLICIES)})")
    if (policy != "gnubg" or disagreements) and nets is None:
        raise ValueError("this policy needs gbot's networks")
    g = gnubg()
    rng = np.random.default_rng([seed, game])
    board = START.copy() if start is None else np.array(start, dtype=np.int8)
    while True:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        if d1 != d2 or start is not None:
            break
    boards: list[npt.NDArray[np.int8]] = []
    probs: list[npt.NDArray[np.float32]] = []
    played: list[npt.NDArray[np.bool_]] = []
    turns: list[npt.NDArray[np.int32]] = []
    for turn in range(1000):
        cands = legal_boards(board, d1, d2)
        if cands.shape[0] == 0:
            board = (-board[::-1]).astype(np.int8)
        else:
            nxt = np.ascontiguousarray(-cands[:, ::-1], dtype=np.int8)
            over = (nxt[:, 0] == 0) & ~(nxt[:, 1:25] < 0).any(axis=1)
            lists = to_gnubg_lists(nxt)
            p = np.zeros((nxt.shape[0], 5), dtype=np.float32)
            for i, gb in enumerate(lists):
                if not over[i]:
                    p[i] = g.probabilities(gb, 0)
            live = ~over
            pick_g = _pick(p.astype(np.float64), over)
            pick_b = pick_g if nets is None else _pick(nets.evaluate(nxt).astype(np.float64), over)
            gbot_moves = policy == "gbot" or (policy == "versus" and turn % 2 == game % 2)
            if rng.random() < eps:
                k = int(rng.integers(nxt.shape[0]))
            else:
                k = pick_b if gbot_moves else pick_g
            if not disagreements or pick_b != pick_g:
                flags = np.zeros(nxt.shape[0], dtype=np.bool_)
                flags[k] = True
                boards.append(nxt[live])
                probs.append(p[live])
                played.append(flags[live])
                turns.append(np.full(int(live.sum()), turn, dtype=np.int32))
            if over[k]:
                break
            board = nxt[k]
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
    if not boards:
        return (np.zeros((0, 26), dtype=np.int8), np.zeros((0, 5), dtype=np.float32),
                np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.int32))
    return (np.concatenate(boards), np.concatenate(probs), np.concatenate(played),
            np.concatenate(turns))


def _pick(probs: npt.NDArray[np.float64], over: npt.NDArray[np.bool_]) -> int:
    """The candidate best for the mover: a finished game, else the least equity for the
    opponent on roll (``probs`` from its side)."""
    mover_eq = -equities(probs)
    mover_eq[over] = np.inf
    return int(np.argmax(mover_eq))


@dataclass(frozen=True)
class ChunkTask:
    """The games ``first .. last - 1`` of a run, written as chunk ``chunk``; ``starts`` holds
    each game's start board (None: the opening)."""

    chunk: int
    first: int
    last: int
    seed: int
    policy: str
    eps: float
    weights: str | None
    starts: npt.NDArray[np.int8] | None
    disagreements: bool


Chunk = tuple[npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.bool_],
              npt.NDArray[np.int32], npt.NDArray[np.int32]]

_NETS: dict[str | None, Networks] = {}


def play_chunk(task: ChunkTask) -> Chunk:
    """``(boards, probs, played, game, turn)`` of the task's games (each process loads the
    networks once and keeps them for the tasks that follow)."""
    nets = None
    if task.policy != "gnubg" or task.disagreements:
        if task.weights not in _NETS:
            _NETS[task.weights] = (Networks.load(task.weights) if task.weights
                                   else Networks.default())
        nets = _NETS[task.weights]
    parts = []
    for gi in range(task.first, task.last):
        start = None if task.starts is None else task.starts[gi - task.first]
        b, p, f, t = play_game(task.seed, gi, task.policy, task.eps, nets, legal_boards,
                               start, task.disagreements)
        parts.append((b, p, f, np.full(b.shape[0], gi, dtype=np.int32), t))
    return (np.concatenate([x[0] for x in parts]), np.concatenate([x[1] for x in parts]),
            np.concatenate([x[2] for x in parts]), np.concatenate([x[3] for x in parts]),
            np.concatenate([x[4] for x in parts]))


def run(out: Path, games: int, seed: int, policy: str = "gnubg", eps: float = 0.1,
        chunk_games: int = 200, weights: Path | None = None,
        log: Callable[[str], None] = print,
        starts: npt.NDArray[np.int8] | None = None, disagreements: bool = False,
        workers: int = 1, backend: str = "process", address: str | None = None) -> None:
    """Play ``games`` games into ``out`` (the chunks not there yet), from the opening or,
    given ``starts``, from those boards in turn; on ``backend`` (:mod:`gbot.analysis.backends`:
    ``process`` with ``workers`` processes, ``serial`` or ``ray``, at ``address`` for a
    cluster). The chunks are the same whatever the backend."""
    from gbot.analysis.progress import around_bars, terminal_bar

    out.mkdir(parents=True, exist_ok=True)
    n_chunks = (games + chunk_games - 1) // chunk_games
    todo = [c for c in range(n_chunks) if not (out / f"chunk-{c:05d}.npz").exists()]
    w = str(weights) if weights else None
    if (policy != "gnubg" or disagreements) and w not in _NETS:
        # bad weights are refused here, before any worker starts
        _NETS[w] = Networks.load(weights) if weights else Networks.default()

    def task(c: int) -> ChunkTask:
        first, last = c * chunk_games, min(games, (c + 1) * chunk_games)
        s = None if starts is None else starts[np.arange(first, last) % starts.shape[0]]
        return ChunkTask(c, first, last, seed, policy, eps, w, s, disagreements)

    t0 = time.time()
    n_rows = 0
    had = set(range(n_chunks)) - set(todo)
    bar = terminal_bar(games, "selfplay", "game",
                       initial=sum(min(games, (c + 1) * chunk_games) - c * chunk_games
                                   for c in had))
    log = around_bars(log)
    pool = make_backend(backend, play_chunk, workers, address)
    cancel = True
    try:
        for k, (t, (b, p, f, gidx, tidx)) in enumerate(as_finished(pool, map(task, todo)), 1):
            path = out / f"chunk-{t.chunk:05d}.npz"
            tmp = out / f"chunk-{t.chunk:05d}.tmp.npz"
            np.savez_compressed(tmp, boards=b, probs=p, played=f, game=gidx, turn=tidx)
            tmp.replace(path)
            n_rows += b.shape[0]
            bar.update(t.last - t.first)
            elapsed = max(time.time() - t0, 1e-9)
            eta = elapsed / k * (len(todo) - k)
            log(f"chunk {t.chunk + 1}/{n_chunks}: games {t.first}..{t.last - 1}, "
                f"{b.shape[0]} positions ({n_rows / elapsed:.0f}/s, ETA {eta / 60:.1f} min)")
        cancel = False
    finally:
        pool.close(cancel=cancel)
        bar.close()


def load(folder: Path, played_only: bool = False
         ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """All chunks of a folder as ``(boards, probs)``."""
    bs, ps = [], []
    for path in sorted(folder.glob("chunk-*.npz")):
        if ".tmp" in path.name:
            continue
        with np.load(path) as z:
            sel = z["played"] if played_only else slice(None)
            bs.append(z["boards"][sel])
            ps.append(z["probs"][sel])
    return np.concatenate(bs).astype(np.int8), np.concatenate(ps).astype(np.float32)
