"""Ensembles of weight sets (gbot.train.ensemble) and the forward pass's skipping of padded
units: the combined network's logits are the members' mean (dense reference), networks left
out keep their outputs exactly, and ``gbot train ensemble`` writes such a file; widening adds
fresh units that change no output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gbot.core import classify as C
from gbot.core import forward as F
from gbot.eval.net import Networks
from gbot.train.cli import cli
from gbot.train.ensemble import average_logits, combine, new_units, pad_units, widen
from tests.padded import LIVE, padded_crashed
from tests.randomplay import random_positions, random_race_positions


def _logit(p: np.ndarray) -> np.ndarray:
    p = p.astype(np.float64)
    return np.log(p / (1 - p))


def _perturbed(base: Networks, seed: int, scale: float = 0.05) -> Networks:
    """A second, different member: the shipped weights with noise on every layer."""
    rng = np.random.default_rng(seed)
    nets = {n: {k: (v + rng.normal(0, scale, v.shape)).astype(np.float32) for k, v in p.items()}
            for n, p in base.nets.items()}
    return Networks(nets, base.activation, base.class_net)


@pytest.fixture(scope="module")
def members() -> tuple[Networks, Networks]:
    base = Networks.default()
    return _perturbed(base, 1), _perturbed(base, 2)


@pytest.fixture(scope="module")
def boards() -> dict[str, np.ndarray]:
    found = [b for b, _, _ in random_positions(600, 7)] + \
            [b for b, _, _ in random_race_positions(200, 8)]
    arr = np.stack(found).astype(np.int8)
    classes = C.classify_many(arr)
    out = {name: arr[classes == c] for c, name in enumerate(C.NAMES) if c != C.OVER}
    assert all(len(out[k]) >= 20 for k in ("contact", "race")), {k: len(v) for k, v in out.items()}
    return out


def test_combined_logits_are_the_members_mean(members: tuple[Networks, Networks],
                                              boards: dict[str, np.ndarray]) -> None:
    a, b = members
    both = combine([a, b], ("contact",))
    assert both.hidden == a.hidden + b.hidden
    x = boards["contact"]
    want = 1 / (1 + np.exp(-(_logit(a.evaluate_dense(x)) + _logit(b.evaluate_dense(x))) / 2))
    assert np.abs(both.evaluate_dense(x) - want).max() < 1e-5
    # the kernel's forward pass of the wide network against the dense reference
    got = both.evaluate(x)
    assert np.abs(got - both.evaluate_dense(x)).max() < 1e-4


def test_networks_left_out_keep_their_outputs_exactly(members: tuple[Networks, Networks],
                                                      boards: dict[str, np.ndarray]) -> None:
    a, b = members
    both = combine([a, b], ("contact",))
    for name in ("race", "crashed"):
        x = boards.get(name)
        if x is None or not len(x):
            continue
        assert np.array_equal(both.evaluate(x), a.evaluate(x)), name
    # and a contact board through the combined set differs from either member
    x = boards["contact"][:20]
    assert not np.array_equal(both.evaluate(x), a.evaluate(x))


def test_padding_is_skipped_and_changes_nothing(members: tuple[Networks, Networks],
                                                boards: dict[str, np.ndarray]) -> None:
    a = members[0]
    wide = Networks({n: pad_units(p, 3 * a.hidden) for n, p in a.nets.items()}, a.activation,
                    a.class_net)
    x = np.concatenate([boards["contact"], boards["race"]])
    assert np.array_equal(wide.evaluate(x), a.evaluate(x))
    args = wide.kernel_args()
    w1m = args[2]
    assert [F._width.py_func(w1m[k, F.N_INPUTS]) for k in range(w1m.shape[0])] == \
        [a.hidden] * w1m.shape[0]


def test_a_unit_with_only_a_bias_is_not_padding() -> None:
    """A trailing unit with zero first-layer weights but a bias and output weights still adds
    to the logits, so the kernel must keep it."""
    base = Networks.default()
    p = pad_units(base.nets["race"], base.hidden + 8)
    p["b1"][-1] = 2.0
    p["w2"][-1] = 0.5
    nets = Networks({n: p for n in base.nets}, base.activation, base.class_net)
    x = np.stack([b for b, _, _ in random_race_positions(30, 3)]).astype(np.int8)
    win = nets.evaluate(x)[:, 0]   # (the kernel also tidies the gammon columns of races)
    assert np.abs(win - nets.evaluate_dense(x)[:, 0]).max() < 1e-4
    assert np.abs(win - base.evaluate(x)[:, 0]).max() > 1e-2


def test_average_logits_needs_members() -> None:
    with pytest.raises(ValueError):
        average_logits([])
    with pytest.raises(ValueError):
        combine([])
    with pytest.raises(ValueError, match="no network named"):
        combine([Networks.default()], ("bogus",))


def test_train_ensemble_command(tmp_path: Path, members: tuple[Networks, Networks],
                                boards: dict[str, np.ndarray]) -> None:
    a, b = members
    pa, pb, out = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "e.npz"
    a.save(pa)
    b.save(pb)
    r = CliRunner().invoke(cli, ["ensemble", "--out", str(out), str(pa), str(pb)])
    assert r.exit_code == 0, r.output
    assert "256 hidden units" in r.output or f"{2 * a.hidden} hidden units" in r.output
    got = Networks.load(out)
    x = boards["contact"][:50]
    assert np.array_equal(got.evaluate(x), combine([a, b], ("contact",)).evaluate(x))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a weights file")
    r = CliRunner().invoke(cli, ["ensemble", "--out", str(out), str(pa), str(bad)])
    assert r.exit_code != 0 and "member 2" in r.output


def test_widened_networks_compute_what_they_did(boards: dict[str, np.ndarray]) -> None:
    base = Networks.default()
    grown = widen(base, base.hidden + 64, seed=3)
    assert grown.hidden == base.hidden + 64
    for cls, x in boards.items():
        if len(x):
            assert np.array_equal(grown.evaluate(x), base.evaluate(x)), cls
            assert np.abs(grown.evaluate_dense(x) - base.evaluate_dense(x)).max() < 1e-6, cls
    new = grown.nets["contact"]
    h = base.hidden
    bound = 1 / np.sqrt(new["w1"].shape[0])
    assert np.all(new["w2"][h:] == 0)
    assert np.all(np.abs(new["w1"][:, h:]) <= bound)
    # fresh units differ from each other (no symmetry for the fine-tune to keep)
    cols = new["w1"][:, h:].T
    assert len({c.tobytes() for c in cols}) == 64
    assert np.abs(cols).mean() > bound / 4
    # networks not named are zero-padded: no fresh units
    assert not grown.nets["race"]["w1"][:, h:].any()
    # seeded
    again = widen(base, base.hidden + 64, seed=3)
    assert np.array_equal(again.nets["contact"]["w1"], new["w1"])
    assert not np.array_equal(widen(base, base.hidden + 64, seed=4).nets["contact"]["w1"],
                              new["w1"])


def test_widening_a_padded_network_refreshes_its_zero_units(
        boards: dict[str, np.ndarray]) -> None:
    # a network of 128 live units stored zero-padded to the common width (as v8-v13 stored
    # their crashed network): widening it at that width once returned the padding unchanged,
    # units that can only learn alike
    base = padded_crashed()
    live = LIVE
    crashed = base.nets["crashed"]
    assert live < base.hidden and not crashed["w1"][:, live:].any()
    grown = widen(base, base.hidden, seed=5, names=("crashed",))
    new = grown.nets["crashed"]
    assert np.array_equal(new["w1"][:, :live], crashed["w1"][:, :live])
    assert not np.any(new["w2"][live:])
    assert len({c.tobytes() for c in new["w1"][:, live:].T}) == base.hidden - live
    x = boards["crashed"]
    assert len(x) and np.array_equal(grown.evaluate(x), base.evaluate(x))


def test_widen_refuses_to_shrink_or_unknown_networks() -> None:
    base = Networks.default()
    with pytest.raises(ValueError, match="cannot widen"):
        new_units(base.nets["contact"], base.hidden - 8, 1)
    with pytest.raises(ValueError, match="no network named"):
        widen(base, base.hidden + 8, 1, ("bogus",))


def test_train_widen_command(tmp_path: Path, boards: dict[str, np.ndarray]) -> None:
    base = Networks.default()
    out = tmp_path / "w.npz"
    src = tmp_path / "base.npz"
    base.save(src)
    r = CliRunner().invoke(cli, ["widen", str(src), "--out", str(out), "--hidden",
                                 str(base.hidden + 128), "--seed", "9"])
    assert r.exit_code == 0, r.output
    got = Networks.load(out)
    assert got.hidden == base.hidden + 128
    x = boards["contact"][:50]
    assert np.array_equal(got.evaluate(x), base.evaluate(x))
    for hidden in (str(base.hidden - 8), str(base.hidden + 4)):
        r = CliRunner().invoke(cli, ["widen", str(src), "--out", str(out), "--hidden", hidden])
        assert r.exit_code != 0 and r.output.startswith("Error:"), r.output
        assert len(r.output.strip().splitlines()) == 1
