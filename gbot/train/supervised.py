"""Supervised stage: fit the contact, crashed and race networks on labelled positions.

Routing of training positions (classes of :mod:`gbot.core.classify`):

* ``contact``: contact and crashed positions (crashed ones help the contact net generalise);
* ``crashed``: starts from the freshly fitted contact network and is fine-tuned on crashed
  positions;
* ``race``: race and bear-off positions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.core import classify as C
from gbot.core.encode import encode
from gbot.eval.net import Networks
from gbot.train.fit import FitConfig, evaluate_arrays, fit, metrics

ROUTES: dict[str, tuple[int, ...]] = {
    "contact": (C.CONTACT, C.CRASHED),
    "crashed": (C.CRASHED,),
    "race": (C.RACE, C.BEAROFF),
}


def _select(classes: npt.NDArray[np.int8], wanted: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    return np.isin(classes, np.array(wanted, dtype=np.int8))


def train_networks(boards: npt.NDArray[np.int8], probs: npt.NDArray[np.float32],
                   val_boards: npt.NDArray[np.int8], val_probs: npt.NDArray[np.float32],
                   configs: dict[str, FitConfig], workdir: Path,
                   init: Networks | None = None, finetune: bool = False,
                   log: Callable[[str], None] = print,
                   only: tuple[str, ...] = (),
                   groups: npt.NDArray[np.int64] | None = None,
                   race_bearoff: bool = True,
                   sample_weight: npt.NDArray[np.float32] | None = None
                   ) -> tuple[Networks, dict[str, Any]]:
    """Fit the three networks; checkpoints go to ``workdir``. ``init`` (for example the TD
    bootstrap) gives the starting weights of the contact and race networks, and with
    ``finetune`` of the crashed network too. With ``only`` just those networks are fitted and
    the others are ``init``'s, unchanged. Returns the networks and a report (sample counts and
    validation metrics per network). ``groups`` (a decision number per board) feeds the
    rank term of configs with a ``rank_weight``. Without ``race_bearoff`` the race network
    is fitted and validated on race positions alone (the exact tables value bear-offs).
    ``sample_weight`` (one per board) weighs each board in the value loss (0: only the rank
    term learns from it)."""
    if only and (init is None or any(n not in ROUTES for n in only)
                 or any(n not in init.nets for n in ROUTES if n not in only)):
        raise ValueError("fitting only some networks needs init weights for the others")
    workdir.mkdir(parents=True, exist_ok=True)
    classes = C.classify_many(boards)
    val_classes = C.classify_many(val_boards)
    nets: dict[str, dict[str, npt.NDArray[np.float32]]] = {}
    report: dict[str, Any] = {}
    for name in ("contact", "crashed", "race"):
        if only and name not in only:
            assert init is not None
            nets[name] = init.nets[name]
            log(f"[{name}] kept from the init weights")
            continue
        route = ROUTES[name] if race_bearoff or name != "race" else (C.RACE,)
        sel = _select(classes, route)
        vsel = _select(val_classes, route[:1] if name == "contact" else route)
        cfg = replace(configs[name], extra={**configs[name].extra, "net": name,
                                             "n_train": int(sel.sum())})
        start = None
        if finetune and init is not None and name in init.nets:
            start = init.nets[name]
        elif name == "crashed":
            start = nets["contact"]
        elif init is not None and name in init.nets:
            start = init.nets[name]
        log(f"[{name}] {int(sel.sum())} training positions, {int(vsel.sum())} validation; "
            f"hidden {cfg.hidden} {cfg.activation}, {cfg.epochs} epochs")
        def tagged(msg: str, tag: str = name) -> None:
            log(f"[{tag}] {msg}")

        params = fit(boards[sel], probs[sel], cfg, val_boards[vsel], val_probs[vsel],
                     checkpoint=workdir / f"{name}.ckpt", init=start, log=tagged,
                     groups=None if groups is None else groups[sel],
                     sample_weight=None if sample_weight is None else sample_weight[sel])
        nets[name] = params
        m = metrics(evaluate_arrays(params, cfg.activation, encode(val_boards[vsel])),
                    val_probs[vsel])
        report[name] = {"train": int(sel.sum()), "val": int(vsel.sum()), **m}
    activation = configs["contact"].activation
    return Networks(nets, activation), report


def default_configs(hidden: int = 128, epochs: int = 60, seed: int = 1,
                    activation: str = "sigmoid", lr: float = 2e-3,
                    lr_final: float = 5e-5, rank_weight: float = 0.0,
                    equity_weight: float = FitConfig.equity_weight,
                    raw_inputs: bool = False) -> dict[str, FitConfig]:
    """The shipped recipe: contact at full length, crashed fine-tuned, race shorter."""
    base = FitConfig(hidden=hidden, activation=activation, epochs=epochs, seed=seed, lr=lr,
                     lr_final=lr_final, rank_weight=rank_weight, equity_weight=equity_weight,
                     raw_inputs=raw_inputs)
    return {
        "contact": base,
        "crashed": replace(base, epochs=max(1, epochs // 3), lr=base.lr / 4),
        "race": base,
    }
