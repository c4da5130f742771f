#!/usr/bin/env python3
"""Public-API speed, one Python call per decision, gbot beside gnubg-nn in the same run.

Rows (each figure the mean per call; gbot and gnubg-nn take turns call by call, so both see the
same machine load):

* ``Position.legal_plays`` against gnubg-nn's ``moves(board, d1, d2)`` on seeded random-play
  positions (both return one entry per distinct result), and the move-generation kernel alone
  (the compiled ``gbot.core.movegen.generate`` into a reused workspace, numba's dispatcher
  skipped as ``legal_plays`` skips it; the figures below up to the paragraph on the bare
  kernels timed it through the dispatcher, whose type resolution of the twelve arguments
  was much of them).
* 0-ply best play (``Evaluator.best_play``) against ``best_move(board, d1, d2, 0)`` on distinct
  contact positions, each timed once: gnubg-nn keeps an evaluation cache, so a position it has
  seen is answered from it. The same positions are then timed a second time, which is what a
  benchmark that repeats positions measures (gnubg-nn's cache hit), reported apart.
* 0-ply ``Evaluator.hint(n=None)`` (every play with its figures) against ``best_move(...,
  list=1)`` (gnubg-nn's candidate list with probabilities and equities), on distinct contact
  positions of its own, each once.
* 1- and 2-ply best play on distinct contact positions of their own, each once.

    python3 scripts/bench_api.py                  # 3000 / 1500 / 150 / 30 cases
    python3 scripts/bench_api.py --moves 1000 --n0 500 --n1 50 --n2 10
    python3 scripts/bench_api.py --clock cpu      # this thread's CPU time (a busy machine)

``--clock cpu`` times with the calling thread's CPU time instead of the wall clock: on a
shared, overloaded machine the wall clock mostly measures waiting for a core.

Measured on the shared 2-core machine (``--clock cpu``, load average about 2.5, default
sizes), before and after commit f984309 back to back (each figure: gbot, gnubg-nn, ratio):

* ``Position.legal_plays``: 14.13 / 6.18 us (0.44x) before, 12.30 / 6.12 us (0.50x) after;
  the kernel alone 5.6 / 5.8 us (1.04x). The rest is the ~19 ``Play`` objects per call
  (about 0.35 us each to create and free here: two slot stores each), so 1x needs the
  generator itself faster than gnubg-nn's whole call, or no per-play objects.
* 0-ply best play (1,500 distinct cases): 53.3 / 100.8 us (1.89x) before, 43.0 / 100.9 us
  (2.35x) after; about 1.5 us per candidate goes to the forward pass (features 0.45 us).
* 1-ply: 4.63x before, 4.88x after (2.1 ms); 2-ply: 4.36x before, 4.61x after (16.2 ms per
  decision against the < 10 ms target; the forward pass is ~70 % of it).

Later (commits 3046e1b, 3c96404, cf2b492: the 2-ply stage reuses the 1-ply stage's reply picks,
the second move filter's window 0.06 -> 0.04, faster duplicate removal), same machine but far
busier (load average 9.5, ``--clock cpu``, default sizes): legal_plays 0.40x (kernel 0.91x),
0-ply 1.73x (82.9 / 143.7 us), 1-ply 4.28x (3.7 ms), 2-ply 5.68x (21.2 / 120.4 ms). The old
and new evaluator timed case by case on 60 distinct contact positions in one run, twice: 2-ply
25.2 -> 18.0 ms (4.67x -> 6.53x gnubg-nn) and 20.9 -> 14.4 ms (5.08x -> 7.38x). Where a 2-ply
decision's time goes: ``scripts/profile_search.py`` (forward pass ~72-74 %, move expansion
~15 %, duplicate removal 5 %); the forward pass itself is about half feature counting
(``gbot.core.encode.feature_counts``).

``Position.legal_plays`` returning a lazy ``Plays`` and the 0-ply ``hint`` from the one-call
kernel (commits a98247f, 0379dfd), before and after back to back, twice each, ``--clock cpu
--n1 0 --n2 0``, load average 3.7-5.2 (the training job and other test runs): legal_plays
15.68 / 23.10 us (0.47x / 0.41x) before, 14.09 / 10.35 us (0.74x / 0.83x) after, the kernel
alone 0.84x-0.95x in the same runs (an earlier pair: 0.40x / 0.39x -> 0.86x / 0.80x, kernel
0.80x-0.95x): a call now costs about the kernel, and 1x needs the generator itself faster.
0-ply hint of every play 244.2 / 230.1 us (0.68x / 0.68x) -> 261.5 / 171.1 us (0.80x / 0.90x);
0-ply best play 1.65x / 1.59x -> 1.66x / 1.81x (no change beyond the noise). Where a 0-ply
best play goes (400 distinct contact positions, thread CPU time, the variants timed in
rotation case by case): best_play 64-77 us, the kernel's compiled entry point alone 52-62 us,
within it the children's values (feature encoding and forward pass) 49-58 us and the move
generator 12-14 us when each is timed on its own: 4x gnubg-nn needs the forward pass faster.

The move generator's per-step helpers inlined at numba's level and no board allocation per
call (commit 186ec78), after only, twice, ``--clock cpu --n0 0 --nh 0 --n1 0 --n2 0``, load
average 5-6: legal_plays 9.23 / 8.32 us (0.90x) and 13.32 / 10.22 us (0.77x), the kernel
alone 1.02x / 0.86x: within the earlier range, the 1x target still missed. Each figure here
holds one thread-CPU clock pair per call (about 1 us on this machine). Timed in bulk instead
(the old kernel of 186ec78^ beside the new, rounds of the 3,000 cases alternating
old / new / gnubg-nn, best of 8 and of 6): 4.93 -> 4.17 us and 5.36 -> 3.73 us per call
against gnubg-nn 5.51 / 5.38 us (1.12x -> 1.32x, 1.00x -> 1.44x).

The bare move-generation kernels (branch mg: legal sources as bit sets, no numba reference
counting, a 4 KiB first hash table), before (main's tree) and after back to back, three times
each, ``--clock cpu --n0 0 --nh 0 --n1 0 --n2 0``, load average 2-3.7, medians:
legal_plays 11.64 / 9.56 us (0.85x) before, 5.99 / 8.67 us (1.45x; runs 1.41x-1.63x) after;
the kernel alone, now timed through its compiled version, 4.47 / 8.95 us (2.00x; 1.92x-2.21x)
after (through the dispatcher before: 0.88x). The old and new compiled kernels timed call by
call in one process, each followed by a gnubg-nn call: 8.9-9.9 us -> 4.0-4.5 us against
gnubg-nn 6.4-6.9 us (three runs).

The int32 first layer, the branch-free board-to-board update and the shot table (branch
h-forward), before (e38516f) and after in turn, three rounds each, ``--clock cpu --n0 1000
--nh 300 --n1 100 --n2 20``, load average 2-3: 0-ply best play 31.4 / 32.1 / 30.9 us
(2.03x-2.07x) -> 25.8 / 25.3 / 23.2 us (2.71x-2.87x); 0-ply hint 1.45x-1.50x -> 1.61x-1.83x;
1-ply 3.60x-3.70x -> 4.74x-5.00x; 2-ply 3.60x-3.64x -> 5.04x-5.16x (11.0-11.6 ms).

Feature counts from bit sets in one pass over the board and the results of a roll flipped and
sorted without reference counting (commits 2b19442, ce031f6), before (d02fa6e) and after in
turn, three rounds each, same options, load average 1.7-2: 0-ply best play 23.3 / 22.7 /
25.9 us (2.68x-2.74x) -> 16.6 / 17.6 / 16.4 us (3.60x-3.82x); 0-ply hint 1.63x-1.72x ->
1.92x-2.17x; 1-ply 4.69x-4.99x -> 6.67x-7.52x; 2-ply 4.99x-5.07x -> 7.10x-7.75x (6.9-8.3
ms). ``Networks.evaluate`` 1.27-1.31 -> 1.78-1.90 million positions/s. Where a 0-ply best
play goes now (kernel timed alone, 2,000 contact positions, ~18 plays each): move generation
0.5 us, flipping and sorting the results 0.5 us, the forward pass ~10.5 us (feature counts
about 0.18 us of the ~0.55 us per board), the Python call around the kernel ~3.7 us.
"""

from __future__ import annotations

import argparse
import time

import benchlib
import numpy as np
from benchlib import (
    TARGETS,
    clock,
    contact_positions,
    gnubg_board,
    gnubg_nn,
    interleaved,
    load_networks,
    make_pairs,
    networks_summary,
    seeded_rolls,
)

from gbot.core import movegen
from gbot.core.fastcall import entry_point
from gbot.eval.evaluator import Evaluator
from gbot.eval.net import Networks
from gbot.game.position import Position


def row(name: str, ours: float, theirs: float | None, target: str | None, note: str = ""
        ) -> None:
    """One line: gbot, the peer, the ratio (peer time / gbot time) beside the target
    (a key of :data:`benchlib.TARGETS`)."""
    line = f"{name:44s} gbot {ours * 1e6:9.2f} us"
    if theirs is not None:
        ratio = theirs / ours
        goal = f"  ({TARGETS[target].verdict(ratio)})" if target is not None else ""
        line += f"   gnubg-nn {theirs * 1e6:9.2f} us   ratio {ratio:5.2f}x{goal}"
    print(line + (f"  {note}" if note else ""), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=3000, help="cases for legal_plays")
    ap.add_argument("--n0", type=int, default=1500, help="contact positions, 0-ply")
    ap.add_argument("--nh", type=int, default=1500,
                    help="contact positions, 0-ply hint of every play")
    ap.add_argument("--n1", type=int, default=150, help="contact positions, 1-ply")
    ap.add_argument("--n2", type=int, default=30, help="contact positions, 2-ply")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--weights", help="time this weights file instead of the shipped networks "
                    "(with the shipped pruning networks where it has none), e.g. a contact "
                    "network twice the size, as the speed targets name")
    args = ap.parse_args()
    clk = clock(args.clock)
    benchlib.header()
    print(f"clock: {'this thread CPU time' if args.clock == 'cpu' else 'wall clock'}")

    g = gnubg_nn()
    if g is None:
        print("gnubg-nn not installed: gbot figures only")

    t0 = time.perf_counter()
    movegen.warm()
    networks, what = load_networks(args.seed)
    if args.weights:
        pruner = networks.prune
        networks = Networks.load(args.weights)
        if networks.prune is None:
            networks.prune = pruner
        what = f"{args.weights}" + (" with the shipped pruning networks" if pruner else "")
    ev = Evaluator(networks=networks)
    ev.warm()
    print(f"networks: {what}; {networks_summary(networks)}; "
          f"warm-up {time.perf_counter() - t0:.2f} s")

    # --- legal plays ------------------------------------------------------------------------
    boards, dice = make_pairs(args.moves, args.seed)
    positions = [Position(b) for b in boards]
    rolls = [(int(a), int(b)) for a, b in dice]
    cases = list(zip(zip(positions, rolls, strict=True),
                     [(gnubg_board(p), d) for p, d in zip(positions, rolls, strict=True)],
                     strict=True))
    for (p, d), _ in cases[:20]:
        p.legal_plays(d)
    counts = [len(p.legal_plays(d)) for (p, d), _ in cases]
    moves = None if g is None else (lambda b: g.moves(b[0], b[1][0], b[1][1]))
    t = interleaved(cases, lambda a: a[0].legal_plays(a[1]), moves, clk)
    row(f"Position.legal_plays ({len(cases):,} cases, {np.mean(counts):.1f} plays)", t.ours,
        t.theirs, "legal_plays")
    ws = movegen.Workspace()
    tail = (ws.out, ws.steps, ws.table, ws.hashes, ws.state, ws.path, ws.marks,
            movegen.HASH_KEYS)
    # the compiled version itself: through the dispatcher, the type resolution of the twelve
    # arguments (several us) would be most of what is timed
    first = (cases[0][0][0].board, 3, 1, False, *tail)
    movegen.generate(*first)
    gen = entry_point(movegen.generate, first) or movegen.generate

    def kernel(a: tuple[Position, tuple[int, int]]) -> object:
        return gen(a[0].board, a[1][0], a[1][1], False, *tail)

    t = interleaved(cases, kernel, moves, clk)
    row("  move-generation kernel alone", t.ours, t.theirs, None)

    # --- best plays -------------------------------------------------------------------------
    n_all = args.n0 + args.nh + args.n1 + args.n2 + 10
    contact, source = contact_positions(n_all, args.seed)
    croll = seeded_rolls(len(contact), args.seed + 1)
    print(f"best-play positions: {source}, one seeded roll each, distinct sets per ply")
    warm = list(zip(contact[-10:], croll[-10:], strict=True))
    start = 0
    for ply, n in ((0, args.n0), (1, args.n1), (2, args.n2)):
        if n <= 0:
            continue
        sel = list(zip(contact[start:start + n], croll[start:start + n], strict=True))
        start += n
        for p, d in warm[:3]:
            ev.best_play(p, d, ply)
            if g is not None:
                g.best_move(gnubg_board(p), d[0], d[1], ply)
        pairs = [((p, d), (gnubg_board(p), d)) for p, d in sel]

        def ours_fn(a: tuple[Position, tuple[int, int]], ply: int = ply) -> object:
            return ev.best_play(a[0], a[1], ply)

        def theirs_fn(b: tuple[list[list[int]], tuple[int, int]], ply: int = ply) -> object:
            return g.best_move(b[0], b[1][0], b[1][1], ply)

        t = interleaved(pairs, ours_fn, theirs_fn if g else None, clk)
        row(f"{ply}-ply best play, {n:,} distinct contact cases, each once", t.ours,
            t.theirs, f"best{ply}",
            f"({TARGETS['best2_ms'].verdict(t.ours * 1e3)})" if ply == 2 else "")
        if ply == 0:
            t = interleaved(pairs, ours_fn, theirs_fn if g else None, clk)
            row("  same cases again (gnubg-nn's cache hit)", t.ours, t.theirs,
                None, "(no target: times gnubg-nn's cache)")
            # every play ranked with its figures, on positions of its own (each once)
            sel = list(zip(contact[start:start + args.nh], croll[start:start + args.nh],
                           strict=True))
            start += args.nh
            hpairs = [((p, d), (gnubg_board(p), d)) for p, d in sel]
            if hpairs:
                t = interleaved(
                    hpairs, lambda a: ev.hint(a[0], a[1], 0, n=None),
                    (lambda b: g.best_move(b[0], b[1][0], b[1][1], 0, list=1)) if g else None,
                    clk)
                row(f"0-ply hint, every play, {len(hpairs):,} distinct cases", t.ours,
                    t.theirs, "hint0", "(gnubg-nn: best_move list=1)")


if __name__ == "__main__":
    main()
