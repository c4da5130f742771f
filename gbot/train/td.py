"""TD(lambda) bootstrap stage: self-play learning with checkpoints, resume and progress.

The kernel is :func:`gbot.core.td.td_games`. Weights start from small seeded random values;
after every block of games the weights, the number of games done and the settings go to
``checkpoint`` (an ``.npz``), so a rerun continues where it stopped. The result exports as a
:class:`~gbot.eval.net.Networks` with the one TD network in every class slot, which the
supervised stage can start from (``scripts/train.py supervised --init``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gbot.core.encode import N_INPUTS, escape_table
from gbot.core.td import td_games
from gbot.eval.net import NET_NAMES, Networks


def init_weights(hidden: int, seed: int) -> dict[str, np.ndarray]:
    """Small random weights (float64, as the kernel trains them)."""
    rng = np.random.default_rng(seed)
    return {"w1": rng.normal(0.0, 0.1, size=(N_INPUTS, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0.0, 0.1, size=(hidden, 5)),
            "b2": np.zeros(5)}


def run(checkpoint: Path, games: int, hidden: int = 128, seed: int = 11, alpha: float = 0.1,
        lam: float = 0.7, eps: float = 0.02, block: int = 200,
        log: Callable[[str], None] = print) -> Networks:
    """Train until ``games`` games are done; returns the networks."""
    settings = {"hidden": hidden, "seed": seed, "alpha": alpha, "lam": lam, "eps": eps}
    done = 0
    if checkpoint.exists():
        with np.load(checkpoint) as z:
            saved = json.loads(str(z["settings"]))
            if saved != settings:
                raise ValueError(f"checkpoint {str(checkpoint)!r} has settings {saved!r}, "
                                 f"not {settings!r}")
            w = {k: z[k].copy() for k in ("w1", "b1", "w2", "b2")}
            done = int(z["games"])
        log(f"resumed at game {done}")
    else:
        w = init_weights(hidden, seed)
    from gbot.analysis.progress import around_bars, terminal_bar

    esc = escape_table()
    t0 = time.time()
    start = done
    bar = terminal_bar(games, "td", "game", initial=min(done, games))
    log = around_bars(log)
    while done < games:
        n = min(block, games - done)
        stats = np.zeros(3)
        td_games(n, seed * 1_000_003 + done, w["w1"], w["b1"], w["w2"], w["b2"], alpha,
                 lam, eps, esc, stats)
        done += n
        bar.update(n)
        rate = (done - start) / max(time.time() - t0, 1e-9)
        log(f"td games {done}/{games}: {stats[1] / n:.1f} positions/game, "
            f"TD error {stats[2]:.5f}, {rate:.1f} games/s")
        tmp = checkpoint.with_name(checkpoint.name + ".tmp.npz")
        np.savez(tmp, games=done, settings=np.array(json.dumps(settings)), **w)
        tmp.replace(checkpoint)
    bar.close()
    params = {k: v.astype(np.float32) for k, v in w.items()}
    return Networks({name: params for name in NET_NAMES}, "sigmoid",
                    meta={"td": {**settings, "games": done}})
