"""Ensembles of weight sets as one network each: the members' hidden units side by side, their
output logits averaged.

A network ``N_INPUTS -> hidden -> 5`` with sigmoid outputs is a sum of its hidden units'
contributions to each output logit. Putting the hidden units of ``k`` networks side by side
and dividing every second-layer weight and output bias by ``k`` gives one network of
``k x hidden`` units whose output logits are the mean of the members' logits (before the
output sigmoid). The forward pass needs no change, and an ensemble file is an ordinary weights
file. Networks not combined keep the first member's weights, padded with zero units (a zero
unit adds nothing to any logit), because every network of a set has one hidden size.

:func:`widen` grows one network with fresh hidden units whose output weights are zero, so the
widened network starts out computing exactly what the narrower one did and a fine-tune
(``gbot train supervised --finetune --hidden``) can put the new capacity to use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gbot.eval.net import NET_NAMES, Networks

F32 = npt.NDArray[np.float32]


def average_logits(members: Sequence[dict[str, F32]]) -> dict[str, F32]:
    """One network whose output logits are the mean of ``members``' (dicts of ``w1``, ``b1``,
    ``w2``, ``b2``)."""
    if not members:
        raise ValueError("an ensemble needs at least one network")
    k = len(members)
    w2 = np.concatenate([m["w2"] for m in members], axis=0) / k
    b2 = np.sum([m["b2"] for m in members], axis=0) / k
    return {"w1": np.concatenate([m["w1"] for m in members], axis=1),
            "b1": np.concatenate([m["b1"] for m in members]),
            "w2": w2.astype(np.float32), "b2": np.asarray(b2, dtype=np.float32)}


def pad_units(net: dict[str, F32], hidden: int) -> dict[str, F32]:
    """``net`` with zero hidden units appended up to ``hidden`` (the same outputs)."""
    extra = hidden - net["b1"].shape[0]
    if extra < 0:
        raise ValueError(f"cannot pad {net['b1'].shape[0]} hidden units down to {hidden}")
    return {"w1": np.pad(net["w1"], ((0, 0), (0, extra))),
            "b1": np.pad(net["b1"], (0, extra)),
            "w2": np.pad(net["w2"], ((0, extra), (0, 0))),
            "b2": net["b2"].copy()}


def new_units(net: dict[str, F32], hidden: int, seed: int) -> dict[str, F32]:
    """``net`` with fresh hidden units appended up to ``hidden``: first-layer weights and
    biases drawn uniformly from +-1/sqrt(inputs) (seeded), output weights zero, so its outputs
    are unchanged. Trailing all-zero units (the padding of a narrower network stored at the
    common width) count as room and get fresh weights too: zero units all learn alike."""
    n_in, width = net["w1"].shape
    if hidden < width:
        raise ValueError(f"cannot widen {width} hidden units down to {hidden}")
    live = np.flatnonzero(np.any(net["w1"] != 0, axis=0) | (net["b1"] != 0)
                          | np.any(net["w2"] != 0, axis=1))
    have = int(live[-1]) + 1 if live.size else 0
    grown = pad_units(net, hidden)
    rng = np.random.default_rng(seed)
    root = np.sqrt(n_in)
    grown["w1"][:, have:] = rng.uniform(-1.0, 1.0, (n_in, hidden - have)).astype(np.float32) / root
    grown["b1"][have:] = rng.uniform(-1.0, 1.0, hidden - have).astype(np.float32) / root
    return grown


def widen(nets: Networks, hidden: int, seed: int,
          names: Sequence[str] = ("contact",)) -> Networks:
    """``nets`` with the networks in ``names`` grown to ``hidden`` units by :func:`new_units`
    and the others zero-padded: the same outputs, room to learn more."""
    unknown = sorted(set(names) - set(nets.nets))
    if unknown:
        raise ValueError(f"no network named {', '.join(unknown)}")
    grown = {n: new_units(p, hidden, seed + k) if n in names else pad_units(p, hidden)
             for k, (n, p) in enumerate(nets.nets.items())}
    return Networks(grown, nets.activation, nets.class_net,
                    {"widened": list(names), "hidden": hidden, "seed": seed})


def combine(sets: Sequence[Networks], names: Sequence[str] = NET_NAMES) -> Networks:
    """The ensemble of ``sets``: the networks in ``names`` logit-averaged over every set, the
    others the first set's (zero-padded to the common hidden size)."""
    if not sets:
        raise ValueError("an ensemble needs at least one weights set")
    unknown = sorted(set(names) - set(sets[0].nets))
    if unknown:
        raise ValueError(f"no network named {', '.join(unknown)}")
    nets = {n: average_logits([s.nets[n] for s in sets]) if n in names else sets[0].nets[n]
            for n in sets[0].nets}
    hidden = max(p["b1"].shape[0] for p in nets.values())
    return Networks({n: pad_units(p, hidden) for n, p in nets.items()}, sets[0].activation,
                    sets[0].class_net, {"ensemble_of": list(names), "members": len(sets)})
