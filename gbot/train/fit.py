"""Supervised fitting of the per-class networks with torch (imported lazily; training only).

A network is ``N_INPUTS -> hidden -> 5`` with a hidden activation (``sigmoid`` or ``relu``) and
sigmoid outputs for win, win_g, win_bg, lose_g, lose_bg. The loss is the mean squared error on
the five probabilities plus, with weight ``equity_weight``, the squared error of the cubeless
money equity. With decision groups (the candidates of one roll) and ``rank_weight``, a third
term is the squared equity error *relative to its group's mean error*: what decides a choice
is the order of a roll's candidates, not an error they share. Batches then hold whole groups
(shuffled group by group). Checkpoints (model, optimiser, epoch, RNG state) allow resuming.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.core.encode import FEATURES_AT, N_INPUTS, encode
from gbot.core.expand import EQUITY_WEIGHTS

EQUITY_W = EQUITY_WEIGHTS.astype(np.float32)


@dataclass
class FitConfig:
    """Hyper-parameters of one supervised fit."""

    hidden: int = 128
    activation: str = "sigmoid"
    epochs: int = 20
    batch: int = 256
    lr: float = 2e-3
    lr_final: float = 5e-5
    weight_decay: float = 0.0
    equity_weight: float = 0.25
    rank_weight: float = 0.0
    seed: int = 1
    threads: int = 1
    raw_inputs: bool = False
    """The first layer reads the raw board inputs only: the weights of the hand-made features
    (inputs from ``FEATURES_AT`` on) stay zero, and the forward pass skips computing them
    (pruning networks)."""
    extra: dict[str, Any] = field(default_factory=dict)


def _torch() -> Any:
    import torch

    return torch


def make_model(cfg: FitConfig, init: dict[str, npt.NDArray[np.float32]] | None = None) -> Any:
    """A torch ``Sequential`` for ``cfg`` (optionally initialised from exported arrays)."""
    torch = _torch()
    nn = torch.nn
    act = nn.Sigmoid() if cfg.activation == "sigmoid" else nn.ReLU()
    model = nn.Sequential(nn.Linear(N_INPUTS, cfg.hidden), act, nn.Linear(cfg.hidden, 5))
    if init is not None:
        with torch.no_grad():
            model[0].weight.copy_(torch.from_numpy(init["w1"].T.copy()))
            model[0].bias.copy_(torch.from_numpy(init["b1"]))
            model[2].weight.copy_(torch.from_numpy(init["w2"].T.copy()))
            model[2].bias.copy_(torch.from_numpy(init["b2"]))
    return model


def padding_units(init: dict[str, npt.NDArray[np.float32]] | None) -> npt.NDArray[np.bool_]:
    """The hidden units of ``init`` that are padding (no first-layer weight, bias or output
    weight: a narrower network padded to a file's common width); none without ``init``."""
    if init is None:
        return np.zeros(0, dtype=np.bool_)
    pad: npt.NDArray[np.bool_] = ((init["w1"] == 0).all(axis=0) & (init["b1"] == 0)
                                  & (init["w2"] == 0).all(axis=1))
    return pad


def _keep_padding(torch: Any, model: Any, pad: npt.NDArray[np.bool_]) -> None:
    """Set the padding units' weights back to zero: a fine-tune keeps a padded network its own
    width (trained, such units would all learn alike and widen it at evaluation; ``gbot train
    widen`` gives a network real new units)."""
    if not pad.any():
        return
    idx = torch.from_numpy(np.flatnonzero(pad))
    with torch.no_grad():
        model[0].weight[idx] = 0.0
        model[0].bias[idx] = 0.0
        model[2].weight[:, idx] = 0.0


def _keep_raw(torch: Any, model: Any, raw: bool) -> None:
    """With ``raw`` (:attr:`FitConfig.raw_inputs`), set the feature inputs' weights to zero."""
    if raw:
        with torch.no_grad():
            model[0].weight[:, FEATURES_AT:] = 0.0


def export(model: Any) -> dict[str, npt.NDArray[np.float32]]:
    """The arrays ``w1 [in, hidden]``, ``b1``, ``w2 [hidden, 5]``, ``b2`` of a model."""
    return {
        "w1": model[0].weight.detach().numpy().T.astype(np.float32).copy(),
        "b1": model[0].bias.detach().numpy().astype(np.float32).copy(),
        "w2": model[2].weight.detach().numpy().T.astype(np.float32).copy(),
        "b2": model[2].bias.detach().numpy().astype(np.float32).copy(),
    }


def _loss(torch: Any, logits: Any, y: Any, eq_w: Any, cfg: FitConfig) -> Any:
    p = torch.sigmoid(logits)
    loss = ((p - y) ** 2).mean()
    if cfg.equity_weight:
        loss = loss + cfg.equity_weight * (((p - y) @ eq_w) ** 2).mean() / 10.0
    return loss


def rank_loss(torch: Any, logits: Any, y: Any, groups: Any, eq_w: Any) -> Any:
    """Mean squared equity error relative to the mean error of its group (rows of one group
    in a batch; a group alone in its batch of one row adds nothing)."""
    e = (torch.sigmoid(logits) - y) @ eq_w
    _, inv = torch.unique(groups, return_inverse=True)
    m = int(inv.max()) + 1
    total = torch.zeros(m, dtype=e.dtype).index_add_(0, inv, e)
    count = torch.zeros(m, dtype=e.dtype).index_add_(0, inv, torch.ones_like(e))
    return ((e - (total / count)[inv]) ** 2).mean()


def group_order(groups: npt.NDArray[np.int64], rng: np.random.Generator
                ) -> npt.NDArray[np.int64]:
    """A permutation of the rows that shuffles the groups and keeps each group's rows
    together."""
    _, inv = np.unique(groups, return_inverse=True)
    rank = rng.permutation(int(inv.max()) + 1)
    return np.argsort(rank[inv], kind="stable").astype(np.int64)


def evaluate_arrays(params: dict[str, npt.NDArray[np.float32]], activation: str,
                    x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Probabilities of a network from its exported arrays (plain numpy, for checks)."""
    h = x @ params["w1"] + params["b1"]
    h = 1.0 / (1.0 + np.exp(-h)) if activation == "sigmoid" else np.maximum(h, 0.0)
    z = h @ params["w2"] + params["b2"]
    out: npt.NDArray[np.float32] = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
    return out


def metrics(pred: npt.NDArray[np.float32], y: npt.NDArray[np.float32]) -> dict[str, float]:
    """Mean squared error of the probabilities and mean absolute error of the money equity."""
    eq = (pred - y) @ EQUITY_W
    return {"mse": float(((pred - y) ** 2).mean()), "eq_mae": float(np.abs(eq).mean()),
            "win_mae": float(np.abs(pred[:, 0] - y[:, 0]).mean())}


CHUNK = 1 << 15


def fit(boards: npt.NDArray[np.int8], y: npt.NDArray[np.float32], cfg: FitConfig,
        val_boards: npt.NDArray[np.int8] | None = None,
        y_val: npt.NDArray[np.float32] | None = None,
        checkpoint: Path | None = None, init: dict[str, npt.NDArray[np.float32]] | None = None,
        sample_weight: npt.NDArray[np.float32] | None = None,
        log: Callable[[str], None] = print,
        groups: npt.NDArray[np.int64] | None = None) -> dict[str, npt.NDArray[np.float32]]:
    """Fit one network on boards (encoded chunk by chunk); return its exported arrays.
    ``groups`` (a decision number per row) enables the rank term (``cfg.rank_weight``).
    Resumes from ``checkpoint`` if it exists."""
    ranked = groups is not None and cfg.rank_weight > 0
    if groups is not None and groups.shape[0] != boards.shape[0]:
        raise ValueError("groups must give one decision number per board")
    torch = _torch()
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    model = make_model(cfg, init)
    pad = padding_units(init)
    _keep_raw(torch, model, cfg.raw_inputs)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    start = 0
    if checkpoint is not None and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        if state.get("config") == asdict(cfg):
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            start = int(state["epoch"])
            rng = state["rng"]
            log(f"resumed {checkpoint} at epoch {start}")
        else:
            log(f"checkpoint {checkpoint} has another config; starting afresh")
    x_val = None if val_boards is None else encode(val_boards)
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    y = np.ascontiguousarray(y, dtype=np.float32)
    eq_w = torch.from_numpy(EQUITY_W)
    n = boards.shape[0]
    steps_per_epoch = max(1, n // cfg.batch)
    total = cfg.epochs * steps_per_epoch
    decay = math.log(cfg.lr_final / cfg.lr)
    for epoch in range(start, cfg.epochs):
        t0 = time.time()
        perm = group_order(groups, rng) if ranked and groups is not None else rng.permutation(n)
        model.train()
        run = 0.0
        per_chunk = max(1, CHUNK // cfg.batch)
        for k0 in range(0, steps_per_epoch, per_chunk):
            k1 = min(steps_per_epoch, k0 + per_chunk)
            idx = perm[k0 * cfg.batch:k1 * cfg.batch]
            if not ranked:
                idx = np.sort(idx)
                rng.shuffle(idx)
            xt = torch.from_numpy(encode(boards[idx]))
            gt = torch.from_numpy(groups[idx]) if ranked and groups is not None else None
            yt = torch.from_numpy(y[idx])
            wt = (None if sample_weight is None
                  else torch.from_numpy(sample_weight[idx].astype(np.float32)))
            for k in range(k0, k1):
                step = epoch * steps_per_epoch + k
                for g in opt.param_groups:
                    g["lr"] = cfg.lr * math.exp(decay * step / total)
                sl = slice((k - k0) * cfg.batch, (k - k0 + 1) * cfg.batch)
                logits = model(xt[sl])
                if wt is None:
                    loss = _loss(torch, logits, yt[sl], eq_w, cfg)
                else:
                    p = torch.sigmoid(logits)
                    per = ((p - yt[sl]) ** 2).mean(dim=1)
                    if cfg.equity_weight:
                        per = per + cfg.equity_weight * (((p - yt[sl]) @ eq_w) ** 2) / 10.0
                    # a batch of weightless rows only (rank-term-only sets) adds no value loss
                    loss = (per * wt[sl]).sum() / wt[sl].sum().clamp(min=1e-6)
                if gt is not None:
                    loss = loss + cfg.rank_weight * rank_loss(torch, logits, yt[sl], gt[sl],
                                                              eq_w) / 10.0
                opt.zero_grad()
                loss.backward()
                opt.step()
                _keep_padding(torch, model, pad)
                _keep_raw(torch, model, cfg.raw_inputs)
                run += float(loss.detach())
        msg = f"epoch {epoch + 1}/{cfg.epochs} loss {run / steps_per_epoch:.6f}"
        if x_val is not None and y_val is not None:
            params = export(model)
            m = metrics(evaluate_arrays(params, cfg.activation, x_val), y_val)
            msg += " val " + " ".join(f"{k} {v:.5f}" for k, v in m.items())
        log(msg + f" ({time.time() - t0:.0f}s)")
        if checkpoint is not None:
            tmp = checkpoint.with_name(checkpoint.name + ".tmp")
            torch.save({"config": asdict(cfg), "model": model.state_dict(),
                        "opt": opt.state_dict(), "epoch": epoch + 1, "rng": rng}, tmp)
            tmp.replace(checkpoint)
    return export(model)
