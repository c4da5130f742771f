"""The shipped networks: forward pass against a dense reference, invariants, exact results,
file round trips, and the error on the committed held-out set of gnubg 2-ply labels."""

from __future__ import annotations

import csv
import threading
from pathlib import Path

import numpy as np
import pytest

from gbot.core import classify as C
from gbot.core.board import START, flip_py
from gbot.errors import WeightsError
from gbot.eval.net import Networks
from gbot.game.notations import position_id
from tests.handboards import board_of
from tests.padded import padded_crashed

HELDOUT = Path(__file__).resolve().parent / "data" / "heldout_positions.csv"
EQ = np.array([2.0, 1.0, 1.0, -1.0, -1.0])

# Mean absolute money-equity error against gnubg 2-ply on the held-out set, per class. The
# shipped weights measure about 10 % below these (see gbot/weights/README.md); gnubg 0-ply
# measures 0.028 contact, 0.027 crashed, 0.004 race on the same rows.
HELDOUT_BOUNDS = {"all": 0.046, "contact": 0.048, "crashed": 0.056, "race": 0.026}


@pytest.fixture(scope="module")
def nets() -> Networks:
    return Networks.default()


@pytest.fixture(scope="module")
def heldout() -> tuple[np.ndarray, np.ndarray]:
    with open(HELDOUT, encoding="ascii") as fh:
        rows = list(csv.DictReader(fh))
    boards = np.stack([position_id.decode(r["position_id"]) for r in rows])
    probs = np.array([[float(r[k]) for k in ("win", "win_g", "win_bg", "lose_g", "lose_bg")]
                      for r in rows])
    return boards, probs



def test_default_loads(nets: Networks) -> None:
    assert set(nets.nets) == {"contact", "crashed", "race"}
    assert nets.class_net["bearoff"] == "race"
    assert Networks.default() is nets
    assert nets.hidden % 8 == 0


def test_shapes(nets: Networks) -> None:
    out = nets.evaluate(np.stack([START, START]))
    assert out.shape == (2, 5) and out.dtype == np.float32
    assert nets.evaluate(START).shape == (1, 5)
    assert nets.evaluate(np.zeros((0, 26), np.int8)).shape == (0, 5)


def test_opening_position(nets: Networks) -> None:
    """gnubg 0-ply gives about 0.52 / 0.15 / 0.008 / 0.13 / 0.007 for the side on roll."""
    p = nets.evaluate(START)[0]
    assert p[0] == pytest.approx(0.52, abs=0.03)
    assert p[1] == pytest.approx(0.15, abs=0.03)
    assert p[3] == pytest.approx(0.13, abs=0.03)
    assert p[2] < 0.02 and p[4] < 0.02


def test_fast_forward_matches_dense_reference(nets: Networks, heldout: tuple) -> None:
    """The table-driven kernel equals explicit inputs times weights (win is never adjusted;
    the other outputs are only ever lowered by the consistency rules)."""
    boards, _ = heldout
    fast = nets.evaluate(boards)
    dense = nets.evaluate_dense(boards)
    assert np.abs(fast[:, 0] - dense[:, 0]).max() < 1e-5
    assert (fast[:, 1:] <= dense[:, 1:] + 1e-4).all()
    untouched = (dense[:, 1] <= dense[:, 0]) & (dense[:, 2] <= dense[:, 1])
    in_play = (np.abs(boards[:, 1:25].astype(int)).sum(axis=1) + boards[:, 25]
               - boards[:, 0]) == 30
    live = untouched & in_play & (C.classify_many(boards) >= C.CRASHED)
    assert live.sum() > 1000
    assert np.abs(fast[live, 1] - dense[live, 1]).max() < 1e-4


def test_forward_same_whatever_the_batch(nets: Networks, heldout: tuple) -> None:
    """The first layer's sums are carried from board to board but exact: each board gets the
    same figures alone, in a batch, and in a batch of another order."""
    boards, _ = heldout
    batch = nets.evaluate(boards)
    assert np.array_equal(nets.evaluate(boards[::-1].copy())[::-1], batch)
    alone = np.concatenate([nets.evaluate(b) for b in boards[:600]])
    assert np.array_equal(alone, batch[:600])


def test_networks_without_feature_weights_skip_the_features(nets: Networks,
                                                             heldout: tuple) -> None:
    """A network whose feature weights are all zero (a raw-input pruner) gets the figures of
    its explicit inputs times weights without the features being computed, also in one
    batch beside a network that reads them (contact here, race and crashed raw)."""
    from gbot.core import forward as fw
    from gbot.core.encode import FEATURES_AT

    boards, _ = heldout
    raw = {}
    for name, p in nets.nets.items():
        raw[name] = {k: v.copy() for k, v in p.items()}
        if name != "contact":
            raw[name]["w1"][FEATURES_AT:] = 0.0
    mixed = Networks(raw, activation=nets.activation, class_net=nets.class_net)
    w1m = mixed.kernel_args()[2]
    reads = [fw.reads_features(w1m[k].view(np.int32)) for k in range(w1m.shape[0])]
    assert sorted(reads) == [False, False, True]
    cls = C.classify_many(boards)
    assert {C.CONTACT, C.CRASHED, C.RACE} <= set(cls[:300].tolist())
    fast = mixed.evaluate(boards)
    dense = mixed.evaluate_dense(boards)
    assert np.abs(fast[:, 0] - dense[:, 0]).max() < 1e-5
    assert np.array_equal(fast[cls == C.CONTACT], nets.evaluate(boards)[cls == C.CONTACT])
    alone = np.concatenate([mixed.evaluate(b) for b in boards[:300]])
    assert np.array_equal(alone, fast[:300])


@pytest.mark.parametrize("scale", [1e-4, 1.0, 300.0])
def test_integer_first_layer_any_scale(heldout: tuple, scale: float) -> None:
    """Weights of very different sizes (one hidden unit each, one unit all zero) keep their
    precision in the integer first layer: each unit read alone through the win output."""
    from gbot.core.encode import N_INPUTS

    boards, _ = heldout
    rng = np.random.default_rng(7)
    hidden = 8
    cols = scale * np.logspace(-2, 2, hidden) * (np.arange(hidden) > 0)
    w1 = (rng.normal(0, 1, (N_INPUTS, hidden)) * cols).astype(np.float32)
    for u in range(1, hidden):
        w2 = np.zeros((hidden, 5), dtype=np.float32)
        w2[u, 0] = 1.0 / (40.0 * cols[u])   # keeps the win output's logit about -1..1
        p = {"w1": w1, "b1": np.zeros(hidden, np.float32), "w2": w2,
             "b2": np.zeros(5, np.float32)}
        net = Networks({"all": p}, activation="relu",
                       class_net={c: "all" for c in ("bearoff", "race", "crashed", "contact")})
        fast = net.evaluate(boards)[:, 0]
        dense = net.evaluate_dense(boards)[:, 0]
        assert np.abs(fast - dense).max() < 1e-5


def test_probabilities_consistent(nets: Networks, heldout: tuple) -> None:
    boards, _ = heldout
    p = nets.evaluate(boards).astype(np.float64)
    assert ((p >= 0) & (p <= 1)).all()
    assert (p[:, 1] <= p[:, 0]).all() and (p[:, 2] <= p[:, 1]).all()
    assert (p[:, 3] <= 1 - p[:, 0] + 1e-6).all() and (p[:, 4] <= p[:, 3]).all()
    me_off = np.array([15 - (b[25] + b[1:25][b[1:25] > 0].sum()) for b in boards])
    opp_off = np.array([15 + (b[0] + b[1:25][b[1:25] < 0].sum()) for b in boards])
    assert (p[me_off > 0, 3] == 0).all() and (p[opp_off > 0, 1] == 0).all()


def test_no_backgammon_without_stragglers(nets: Networks) -> None:
    # race, opponent has nothing in my home board: I cannot win a backgammon
    b = board_of({6: 5, 5: 5, 4: 5}, {7: 5, 12: 5, 20: 5})
    assert C.classify(b) == C.RACE
    assert nets.evaluate(b)[0, 2] == 0.0


@pytest.mark.parametrize(("board", "expected"), [
    (board_of({}, {20: 5}), (1, 0, 0, 0, 0)),                 # I have borne off; they have too
    (board_of({}, {20: 15}), (1, 1, 0, 0, 0)),                # gammon
    (board_of({}, {20: 14, 3: 1}), (1, 1, 1, 0, 0)),          # backgammon: straggler in my home
    (board_of({}, {0: 1, 20: 14}), (1, 1, 1, 0, 0)),          # backgammon: on the bar
    (board_of({5: 2}, {}), (0, 0, 0, 0, 0)),                  # the opponent has borne off
    (board_of({5: 15}, {}), (0, 0, 0, 1, 0)),
    (board_of({20: 14, 25: 1}, {}), (0, 0, 0, 1, 1)),
])
def test_finished_games_exact(nets: Networks, board: np.ndarray, expected: tuple) -> None:
    assert tuple(nets.evaluate(board)[0]) == expected


@pytest.mark.parametrize("cls_name", ["all", "contact", "crashed", "race"])
def test_heldout_error_bound(nets: Networks, heldout: tuple, cls_name: str) -> None:
    """The committed held-out rows (gnubg2ply part 019, never trained on)."""
    boards, probs = heldout
    classes = C.classify_many(boards)
    sel = {"all": classes > C.OVER, "contact": classes == C.CONTACT,
           "crashed": classes == C.CRASHED, "race": classes == C.RACE}[cls_name]
    err = np.abs((nets.evaluate(boards[sel]).astype(np.float64) - probs[sel]) @ EQ).mean()
    assert err < HELDOUT_BOUNDS[cls_name]


def test_better_side_scores_better(nets: Networks) -> None:
    """A far-ahead race is a near-certain win; the same position seen by the loser is not."""
    b = board_of({1: 3, 2: 2}, {24: 5, 13: 5, 12: 5})
    assert nets.evaluate(b)[0, 0] > 0.99
    assert nets.evaluate(flip_py(b))[0, 0] < 0.01


def test_save_load_round_trip(nets: Networks, tmp_path: Path, heldout: tuple) -> None:
    boards, _ = heldout
    path = tmp_path / "copy.npz"
    nets.save(path, note="round trip")
    again = Networks.load(path)
    assert again.meta["note"] == "round trip"
    assert np.array_equal(again.evaluate(boards), nets.evaluate(boards))


def test_bad_weights_rejected(nets: Networks, tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="missing.npz"):
        Networks.load(tmp_path / "missing.npz")
    broken = {k: dict(v) for k, v in nets.nets.items()}
    broken["race"]["w1"] = broken["race"]["w1"][:-1]
    with pytest.raises(WeightsError, match="'race'"):
        Networks(broken)
    with pytest.raises(WeightsError, match="'tanh'"):
        Networks(nets.nets, activation="tanh")
    partial = {"contact": nets.nets["contact"]}
    with pytest.raises(WeightsError, match="class"):
        Networks(partial)
    bad = tmp_path / "bad.npz"
    np.savez(bad, meta=np.array('{"format": 99}'))
    with pytest.raises(WeightsError, match="format 99"):
        Networks.load(bad)


def test_threads_agree(nets: Networks, heldout: tuple) -> None:
    boards, _ = heldout
    want = nets.evaluate(boards)
    got: list[np.ndarray] = []

    def work() -> None:
        got.append(nets.evaluate(boards))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(g, want) for g in got)


def test_close_to_gnubg_zero_ply(nets: Networks, heldout: tuple) -> None:
    """Equities track gnubg-nn 0-ply on the held-out rows."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from gbot.core.board import to_gnubg

    boards, _ = heldout
    sel = boards[C.classify_many(boards) >= C.RACE][:400]
    theirs = np.array([gnubg_nn.probabilities([to_gnubg(b)[1], to_gnubg(b)[0]], 0)
                       for b in sel])
    ours = nets.evaluate(sel).astype(np.float64)
    assert np.abs((ours - theirs) @ EQ).mean() < 0.05


# -- training pipeline (small, fast runs) ---------------------------------------------------

def test_td_kernel_deterministic_and_learning() -> None:
    from gbot.core.encode import escape_table
    from gbot.core.td import td_games
    from gbot.train.td import init_weights

    runs = []
    for _ in range(2):
        w = init_weights(16, seed=5)
        w0 = {k: v.copy() for k, v in w.items()}
        stats = np.zeros(3)
        td_games(3, 99, w["w1"], w["b1"], w["w2"], w["b2"], 0.1, 0.7, 0.0, escape_table(),
                 stats)
        assert stats[0] == 3 and stats[1] > 3 * 20 and np.isfinite(stats[2])
        assert not np.array_equal(w["w1"], w0["w1"])
        runs.append(w)
    for k in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(runs[0][k], runs[1][k])


def test_td_forward_matches_numpy() -> None:
    from gbot.core.encode import encode
    from gbot.core.td import net_outputs
    from gbot.train.fit import evaluate_arrays
    from gbot.train.td import init_weights

    w = init_weights(24, seed=2)
    x = encode(START)[0]
    h = np.zeros(24)
    p = np.zeros(5)
    net_outputs(x, w["w1"], w["b1"], w["w2"], w["b2"], h, p)
    ref = evaluate_arrays({k: v.astype(np.float32) for k, v in w.items()}, "sigmoid", x[None])
    assert np.allclose(p, ref[0], atol=1e-5)


def test_td_stage_resumes(tmp_path: Path) -> None:
    from gbot.train import td as T

    ck = tmp_path / "td.npz"
    T.run(ck, 2, hidden=8, block=1, log=lambda m: None)
    nets = T.run(ck, 3, hidden=8, block=1, log=lambda m: None)
    assert nets.meta["td"]["games"] == 3
    with pytest.raises(ValueError, match="settings"):
        T.run(ck, 4, hidden=16, log=lambda m: None)


def test_selfplay_labels_every_candidate(tmp_path: Path) -> None:
    pytest.importorskip("gnubg_nn")
    from gbot.train import selfplay as S

    S.run(tmp_path, games=2, seed=1, chunk_games=1, log=lambda m: None)
    boards, probs = S.load(tmp_path)
    played, _ = S.load(tmp_path, played_only=True)
    assert boards.shape[0] > 10 * played.shape[0] // 2 and played.shape[0] > 20
    assert ((probs >= 0) & (probs <= 1)).all() and (probs[:, 1] <= probs[:, 0] + 1e-6).all()
    assert (C.classify_many(boards) != C.OVER).all()


def test_selfplay_versus_keeps_the_disagreements(tmp_path: Path) -> None:
    """In ``versus`` play gbot's networks move in turns of the game's parity and gnubg-nn
    0-ply in the others; with ``disagreements`` every roll written is one where the two
    picks differ, and the rolls left out are ones where they agree."""
    pytest.importorskip("gnubg_nn")
    from gbot.core.expand import EQUITY_WEIGHTS as EQUITY
    from gbot.train import selfplay as S

    nets = Networks.default()
    everything = tmp_path / "all"
    S.run(everything, games=2, seed=5, policy="versus", eps=0.0, chunk_games=2,
          log=lambda m: None)
    S.run(tmp_path / "dis", games=2, seed=5, policy="versus", eps=0.0, chunk_games=2,
          log=lambda m: None, disagreements=True)
    with np.load(everything / "chunk-00000.npz") as z:
        b, p, f, game, turn = z["boards"], z["probs"], z["played"], z["game"], z["turn"]
    with np.load(tmp_path / "dis" / "chunk-00000.npz") as z:
        kept = set(zip(z["game"].tolist(), z["turn"].tolist(), strict=True))
        mask = [(g, t) in kept for g, t in zip(game, turn, strict=True)]
        assert np.array_equal(z["boards"], b[mask])
    n_gbot = n_kept = 0
    for key in sorted(set(zip(game.tolist(), turn.tolist(), strict=True))):
        rows = (game == key[0]) & (turn == key[1])
        if rows.sum() < 2 or not f[rows].any():    # one play, or the game ended
            continue
        by_gnubg = int(np.argmin(p[rows].astype(np.float64) @ EQUITY))
        by_gbot = int(np.argmin(nets.evaluate(b[rows]).astype(np.float64) @ EQUITY))
        chosen = int(np.flatnonzero(f[rows])[0])
        if key[1] % 2 == key[0] % 2:
            n_gbot += 1
            assert chosen == by_gbot
        else:
            assert chosen == by_gnubg
        assert (key in kept) == (by_gnubg != by_gbot)
        n_kept += key in kept
    assert n_gbot > 20 and 0 < n_kept < n_gbot


def test_selfplay_from_race_starts(tmp_path: Path, heldout: tuple) -> None:
    """Games from given boards start there (the first candidates are plays from the start
    board) and, from races, stay races."""
    pytest.importorskip("gnubg_nn")
    from gbot.core.movegen import legal_boards
    from gbot.train import selfplay as S

    boards, _ = heldout
    races = boards[C.classify_many(boards) == C.RACE]
    on_board = np.minimum(np.clip(races, 0, None).sum(axis=1), np.clip(-races, 0, None).sum(axis=1))
    starts = races[on_board >= 8][:2]     # neither side about to finish
    S.run(tmp_path, games=2, seed=3, chunk_games=2, log=lambda m: None, starts=starts)
    with np.load(tmp_path / "chunk-00000.npz") as z:
        got, game, turn = z["boards"], z["game"], z["turn"]
    assert set(C.classify_many(got).tolist()) <= {C.RACE, C.BEAROFF}
    for g in (0, 1):
        first = got[(game == g) & (turn == 0)]
        legal = {(-r[::-1]).tobytes() for d1 in range(1, 7) for d2 in range(d1, 7)
                 for r in legal_boards(starts[g], d1, d2)}
        assert first.shape[0] > 0 and all(b.astype(np.int8).tobytes() in legal for b in first)


def test_train_only_one_network_keeps_the_others(tmp_path: Path, heldout: tuple) -> None:
    pytest.importorskip("torch")
    from gbot.train.supervised import default_configs, train_networks

    boards, probs = heldout
    init = Networks.default()
    configs = default_configs(hidden=init.hidden, epochs=1)
    nets, report = train_networks(boards[:400], probs[:400].astype(np.float32), boards[400:600],
                                  probs[400:600].astype(np.float32), configs, tmp_path,
                                  init=init, finetune=True, log=lambda m: None, only=("race",))
    assert set(report) == {"race"}
    for name in ("contact", "crashed"):
        assert all(np.array_equal(nets.nets[name][k], init.nets[name][k]) for k in init.nets[name])
    assert not np.array_equal(nets.nets["race"]["w1"], init.nets["race"]["w1"])
    with pytest.raises(ValueError, match="init"):
        train_networks(boards[:10], probs[:10].astype(np.float32), boards[:10],
                       probs[:10].astype(np.float32), configs, tmp_path, only=("race",))


def test_fine_tuning_a_padded_network_keeps_its_width(tmp_path: Path, heldout: tuple) -> None:
    """A crashed network narrower than the file's width: a fine-tune trains its own units and
    leaves the padding zero (so evaluation still stops at its last unit)."""
    pytest.importorskip("torch")
    from gbot.train.fit import padding_units
    from gbot.train.supervised import default_configs, train_networks

    boards, probs = heldout
    init = padded_crashed()
    pad = padding_units(init.nets["crashed"])
    assert 0 < int(pad.sum()) < init.hidden
    crashed = C.classify_many(boards) == C.CRASHED
    configs = default_configs(hidden=init.hidden, epochs=3)
    nets, _ = train_networks(boards[crashed], probs[crashed].astype(np.float32),
                             boards[crashed], probs[crashed].astype(np.float32), configs,
                             tmp_path, init=init, finetune=True, log=lambda m: None,
                             only=("crashed",))
    got = nets.nets["crashed"]
    assert np.array_equal(padding_units(got), pad)
    assert not np.array_equal(got["w1"][:, ~pad], init.nets["crashed"]["w1"][:, ~pad])


def test_raw_input_fit_keeps_the_feature_weights_zero(tmp_path: Path, heldout: tuple) -> None:
    """``raw_inputs``: the fitted networks have no weight on any feature input (so the forward
    pass skips the features) and still learn from the raw inputs."""
    pytest.importorskip("torch")
    from gbot.core.encode import FEATURES_AT
    from gbot.train.supervised import default_configs, train_networks

    boards, probs = heldout
    configs = default_configs(hidden=8, epochs=2, raw_inputs=True)
    nets, _ = train_networks(boards, probs.astype(np.float32), boards[:200],
                             probs[:200].astype(np.float32), configs, tmp_path,
                             log=lambda m: None)
    for p in nets.nets.values():
        assert not p["w1"][FEATURES_AT:].any()
        assert np.abs(p["w1"][:FEATURES_AT]).sum() > 0


def test_race_network_without_bearoff_rows_counts_race_positions_only(
        tmp_path: Path, heldout: tuple) -> None:
    pytest.importorskip("torch")
    from gbot.train.supervised import default_configs, train_networks

    boards, probs = heldout
    classes = C.classify_many(boards)
    init = Networks.default()
    configs = default_configs(hidden=init.hidden, epochs=1)
    counts = {}
    for with_bearoff in (True, False):
        _, report = train_networks(boards, probs.astype(np.float32), boards,
                                   probs.astype(np.float32), configs, tmp_path / str(with_bearoff),
                                   init=init, finetune=True, log=lambda m: None, only=("race",),
                                   race_bearoff=with_bearoff)
        counts[with_bearoff] = (report["race"]["train"], report["race"]["val"])
    race, bearoff = int((classes == C.RACE).sum()), int((classes == C.BEAROFF).sum())
    assert race > 0 and bearoff > 0
    assert counts[True] == (race + bearoff, race + bearoff)
    assert counts[False] == (race, race)


def test_recipe_carries_the_loss_weights_to_every_network() -> None:
    from gbot.train.fit import FitConfig
    from gbot.train.supervised import default_configs

    configs = default_configs(epochs=9, lr=1e-3, rank_weight=2.0, equity_weight=1.5)
    assert set(configs) == {"contact", "crashed", "race"}
    assert all(c.rank_weight == 2.0 and c.equity_weight == 1.5 for c in configs.values())
    assert configs["crashed"].epochs == 3 and configs["crashed"].lr == pytest.approx(2.5e-4)
    assert default_configs()["contact"].equity_weight == FitConfig().equity_weight


def test_rank_term_sees_only_errors_relative_to_the_decision() -> None:
    torch = pytest.importorskip("torch")
    from gbot.train.fit import EQUITY_W, group_order, rank_loss

    y = torch.rand(6, 5, dtype=torch.float32) * 0.5
    logits = torch.logit(y)
    groups = torch.tensor([4, 4, 4, 9, 9, 2])
    eq_w = torch.from_numpy(EQUITY_W)
    assert float(rank_loss(torch, logits, y, groups, eq_w)) == pytest.approx(0.0, abs=1e-10)
    shared = y.clone()
    shared[:3, 0] += 0.1          # one error shared by the three candidates of group 4
    assert float(rank_loss(torch, logits, shared, groups, eq_w)) == pytest.approx(0, abs=1e-10)
    apart = y.clone()
    apart[0, 0] += 0.1            # only one candidate off: equity error 0.2 against mean 0.2/3
    want = ((0.2 - 0.2 / 3) ** 2 + 2 * (0.2 / 3) ** 2) / 6
    assert float(rank_loss(torch, logits, apart, groups, eq_w)) == pytest.approx(want, rel=1e-4)
    order = group_order(np.array([5, 5, 1, 7, 1, 5, 7]), np.random.default_rng(0))
    seen = np.array([5, 5, 1, 7, 1, 5, 7])[order]
    assert sorted(order.tolist()) == list(range(7))
    assert all(len(set(seen[i:i + n])) == 1 for i, n in
               zip(*np.unique(seen, return_index=True, return_counts=True)[1:], strict=True))


def test_supervised_fit_reduces_error(heldout: tuple) -> None:
    pytest.importorskip("torch")
    from gbot.train.fit import FitConfig, evaluate_arrays, fit, metrics

    boards, probs = heldout
    sel = C.classify_many(boards) == C.CONTACT
    b, p = boards[sel][:600], probs[sel][:600].astype(np.float32)
    from gbot.core.encode import encode

    cfg = FitConfig(hidden=16, epochs=1, batch=32)
    before = metrics(evaluate_arrays(fit(b, p, FitConfig(hidden=16, epochs=0), log=lambda m: None),
                                     "sigmoid", encode(b)), p)
    after = metrics(evaluate_arrays(fit(b, p, cfg, log=lambda m: None), "sigmoid", encode(b)), p)
    assert after["mse"] < before["mse"]


def test_weightless_rows_teach_only_their_groups_differences(heldout: tuple) -> None:
    pytest.importorskip("torch")
    from gbot.train.fit import FitConfig, fit

    boards, probs = heldout
    sel = C.classify_many(boards) == C.CONTACT
    b, p = boards[sel][:256], probs[sel][:256].astype(np.float32)
    groups = np.arange(256, dtype=np.int64) // 4
    weight = np.r_[np.ones(128), np.zeros(128)].astype(np.float32)
    shifted = p.copy()
    shifted[128:, 0] += 0.3       # the same shift for every row of the weightless groups
    cfg = FitConfig(hidden=16, epochs=2, batch=32, rank_weight=5.0, seed=3)

    def fitted(labels: np.ndarray, w: np.ndarray) -> dict:
        return fit(b, labels, cfg, log=lambda m: None, groups=groups, sample_weight=w)

    base, moved = fitted(p, weight), fitted(shifted, weight)
    assert all(np.allclose(base[k], moved[k], atol=2e-5) for k in base)
    ones = np.ones(256, dtype=np.float32)   # weighted rows: the shift is learnt
    assert not all(np.allclose(fitted(p, ones)[k], fitted(shifted, ones)[k], atol=2e-5)
                   for k in base)
    init = fit(b, p, FitConfig(hidden=16, epochs=0), log=lambda m: None)
    still = fit(b, shifted, FitConfig(hidden=16, epochs=1, batch=32), init=init,
                log=lambda m: None, sample_weight=np.zeros(256, dtype=np.float32))
    assert all(np.array_equal(init[k], still[k]) for k in init)   # nothing to learn, no NaN
