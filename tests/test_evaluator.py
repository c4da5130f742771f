"""Evaluator: orientation, exact ended games, dances, hint order, and the n-ply search checked
against a naive re-implementation (Position API, one roll at a time) and against gnubg-nn.

Most tests use :class:`TinyNet`, a fixed random stand-in for the networks, so they check the
search, not the weights. Tests with the shipped networks skip until they exist.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from gbot import Position
from gbot.core import expand
from gbot.core.board import flip_py
from gbot.errors import EvaluatorError, WeightsError
from gbot.eval.bearoff import bearoff_probabilities, is_bearoff
from gbot.eval.evaluator import PRUNE_WINDOW, Evaluator, MoveFilter

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "data" / "gnubg2ply"

# a few positions of each class, taken from the gnubg2ply set
CONTACT = ["3toBKAL7/AAAEA", "4POFCwDDzuABIQ", "uD3IAwQ2m8EgGA", "27pFABDcbQcAYA", "4HPwATDgc/ABMA"]
CRASHED = ["f2cDAEBsmwFoDA"]
RACE = ["BwAAsN12AgAAAA", "u/YqAAClXkMjAA"]
BEAROFF = ["NwAAwB0AAAAAAA", "1X0DAIDtGQAAAA"]
ALL = CONTACT + CRASHED + RACE + BEAROFF
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


class TinyNet:
    """Stand-in networks: a fixed random two-layer net on checker counts (float64, so batch
    composition cannot change a result). Refuses boards whose game has ended."""

    def __init__(self, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self.w1 = rng.normal(0.0, 0.4, (52, 16))
        self.w2 = rng.normal(0.0, 0.6, (16, 5))
        self.calls = 0

    def evaluate(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        self.calls += 1
        b = boards.astype(np.float64)
        mine = np.clip(b[:, 1:26], 0, None)
        theirs = np.clip(-b[:, ::-1], 0, None)[:, 1:26]
        assert (mine.sum(1) > 0).all() and (theirs.sum(1) > 0).all(), "ended game sent to net"
        x = np.concatenate([mine, theirs, 15 - mine.sum(1, keepdims=True),
                            15 - theirs.sum(1, keepdims=True)], axis=1) / 15.0
        z = 1.0 / (1.0 + np.exp(-(np.tanh(x @ self.w1) @ self.w2)))
        out = np.empty_like(z)
        out[:, 0] = z[:, 0]
        out[:, 1] = z[:, 0] * z[:, 1] * 0.5
        out[:, 2] = out[:, 1] * z[:, 2] * 0.2
        out[:, 3] = (1 - z[:, 0]) * z[:, 3] * 0.5
        out[:, 4] = out[:, 3] * z[:, 4] * 0.2
        return out


# --- a naive reference: one position and one roll at a time, through the Position API -------

def _equity(p: npt.NDArray[np.float64]) -> float:
    return float(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])


def _invert(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.array([1 - p[0], p[3], p[4], p[1], p[2]])


def _exact(b: npt.NDArray[np.int8]) -> npt.NDArray[np.float64] | None:
    """Written out separately from the kernel: the result of an ended game, else None."""
    mine = int(b[25]) + sum(int(v) for v in b[1:25] if v > 0)
    theirs = -int(b[0]) - sum(int(v) for v in b[1:25] if v < 0)
    if mine and theirs:
        return None
    if mine == 0:
        back = b[0] < 0 or any(b[p] < 0 for p in range(1, 7))
        return np.array([1.0, theirs == 15, theirs == 15 and back, 0, 0], dtype=np.float64)
    back = b[25] > 0 or any(b[p] > 0 for p in range(19, 25))
    return np.array([0.0, 0, 0, mine == 15, mine == 15 and back], dtype=np.float64)


def naive(net: TinyNet, pos: Position, ply: int, prune: TinyNet | None = None,
          keep: int = 4, window: float = PRUNE_WINDOW) -> npt.NDArray[np.float64]:
    """n-ply probabilities, one roll at a time; with ``prune``, each reply choice first keeps
    the ``keep`` replies ``prune`` likes best (earlier first on ties) that it values within
    ``window`` of its best."""
    exact = _exact(pos.board)
    if exact is not None:
        return exact
    if ply == 0:
        if is_bearoff(pos.board):
            return bearoff_probabilities(pos.board)[0].astype(np.float64)
        return np.asarray(net.evaluate(np.array([pos.board]))[0], dtype=np.float64)
    total = np.zeros(5)
    for d1, d2 in ROLLS:
        plays = pos.legal_plays((d1, d2))
        if plays:
            after = [p.position.swapped() for p in plays]
            cand = list(range(len(after)))
            if prune is not None:
                rough = [_equity(naive(prune, a, 0)) for a in after]
                ranked = sorted(cand, key=lambda i: (rough[i], i))[:keep]
                cand = sorted(i for i in ranked if rough[i] <= rough[ranked[0]] + window)
            scores = [-_equity(naive(net, after[i], 0)) for i in cand]
            nxt = after[cand[int(np.argmax(scores))]]
        else:
            nxt = pos.swapped()
        total += (1 if d1 == d2 else 2) / 36 * _invert(naive(net, nxt, ply - 1, prune, keep,
                                                                window))
    return total


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return Evaluator(networks=TinyNet())


def _board(points: dict[int, int], my_bar: int = 0, opp_bar: int = 0) -> Position:
    b = np.zeros(26, dtype=np.int8)
    for p, n in points.items():
        b[p] = n
    b[25] = my_bar
    b[0] = -opp_bar
    return Position(b)


# --- kernels and constants --------------------------------------------------------------------

def test_rolls_and_weights() -> None:
    assert len(expand.ROLLS) == 21 and len({tuple(r) for r in expand.ROLLS}) == 21
    assert expand.ROLL_WEIGHTS.sum() == pytest.approx(1.0)
    assert sum(1 if a == b else 2 for a, b in expand.ROLLS) == 36
    assert all(w == (1 if a == b else 2) / 36
               for (a, b), w in zip(expand.ROLLS, expand.ROLL_WEIGHTS, strict=True))


@pytest.mark.parametrize("pid", ALL)
def test_not_over(pid: str) -> None:
    out = np.full(5, 9.0)
    assert not expand.over_probabilities(Position.from_id(pid).board.copy(), out)
    assert (out == 9.0).all()


# --- ended games are exact -----------------------------------------------------------------

@pytest.mark.parametrize(("opp", "opp_bar", "want"), [
    ({20: -10}, 0, (1, 0, 0, 0, 0)),               # opponent has 5 off: single game
    ({13: -15}, 0, (1, 1, 0, 0, 0)),               # none off, none in my home: gammon
    ({13: -14, 3: -1}, 0, (1, 1, 1, 0, 0)),        # one in my home board: backgammon
    ({13: -14}, 1, (1, 1, 1, 0, 0)),               # one on the bar: backgammon
    ({7: -15}, 0, (1, 1, 0, 0, 0)),                # my 7-point is outside my home
])
def test_bearing_off_the_last_checker_scores_exactly(ev: Evaluator, opp: dict[int, int],
                                                     opp_bar: int,
                                                     want: tuple[int, ...]) -> None:
    pos = _board({1: 1, **opp}, opp_bar=opp_bar)
    hints = ev.hint(pos, (2, 1), ply=0, n=None)
    assert len(hints) == 1 and hints[0].play.notation == "1/off"
    assert hints[0].probabilities == tuple(float(x) for x in want)
    assert hints[0].equity == 2 * want[0] - 1 + want[1] + want[2]
    for ply in (1, 2):
        assert ev.hint(pos, (2, 1), ply=ply)[0].probabilities == hints[0].probabilities
    # the position after the play, opponent to move, is an exact loss for them
    after = hints[0].play.position.swapped()
    assert ev.probabilities(after) == (0.0, 0.0, 0.0, float(want[1]), float(want[2]))
    assert ev.equity(after, ply=2) == -hints[0].equity


@pytest.mark.parametrize("pid", BEAROFF)
def test_bearoff_positions_use_the_exact_tables(pid: str) -> None:
    net = TinyNet()
    pos = Position.from_id(pid)
    assert is_bearoff(pos.board)
    got = Evaluator(networks=net).probabilities(pos)
    assert net.calls == 0
    assert got == tuple(float(x) for x in bearoff_probabilities(pos.board)[0])
    plain = Evaluator(networks=net, exact_bearoff=False).probabilities(pos)
    assert net.calls == 1
    assert plain == tuple(float(x) for x in net.evaluate(np.array([pos.board]))[0])


def test_over_positions_are_never_sent_to_the_net(ev: Evaluator) -> None:
    # the mover can win on several rolls; all of them reach the net-free path
    pos = _board({1: 1, 2: 1, 19: -3, 13: -12})
    assert ev.probabilities(pos, ply=1)[0] > 0.5
    for dice in ROLLS:
        ev.hint(pos, dice, ply=1, n=None)


# --- dances, hints, best plays -------------------------------------------------------------

def test_dance_has_no_play(ev: Evaluator) -> None:
    closed = {p: -2 for p in range(19, 25)}
    pos = _board({**closed, 12: -3, 6: 5, 8: 3, 13: 5}, my_bar=2)
    assert ev.best_play(pos, (6, 5)) is None
    assert ev.best_play(pos, (1, 1), ply=2) is None
    assert ev.hint(pos, (3, 4), ply=1) == []


@pytest.mark.parametrize("pid", ALL)
@pytest.mark.parametrize("ply", [0, 1])
def test_hint_is_sorted_and_leads_with_best_play(ev: Evaluator, pid: str, ply: int) -> None:
    pos = Position.from_id(pid)
    for dice in [(6, 5), (2, 1), (4, 4)]:
        hints = ev.hint(pos, dice, ply=ply, n=None)
        best = ev.best_play(pos, dice, ply=ply)
        if not hints:
            assert best is None
            continue
        assert best == hints[0].play
        keys = [(h.ply, h.equity) for h in hints]
        assert keys == sorted(keys, reverse=True)
        assert hints[0].ply == ply or len(hints) == 1
        plays = pos.legal_plays(dice)
        assert {h.play for h in hints} == set(plays)
        assert [h.play for h in ev.hint(pos, dice, ply=ply, n=3)] == [h.play for h in hints[:3]]
        for h in hints:
            assert h.play.start == pos and h.play.dice == dice
            assert h.equity == pytest.approx(_equity(np.array(h.probabilities)), abs=1e-12)


def test_hint_two_ply_keeps_filtered_plays(ev: Evaluator) -> None:
    pos = Position.from_id(CONTACT[0])
    hints = ev.hint(pos, (3, 1), ply=2, n=None)
    assert hints[0].ply == 2
    n_two = sum(h.ply == 2 for h in hints)
    assert 1 <= n_two <= ev.filters[1].keep
    assert sum(h.ply >= 1 for h in hints) <= ev.filters[0].keep
    assert ev.best_play(pos, (3, 1), ply=2) == hints[0].play


def test_zero_ply_orientation(ev: Evaluator) -> None:
    """A play's 0-ply figures are the opponent's view of the result, inverted."""
    for pid in ALL:
        pos = Position.from_id(pid)
        for h in ev.hint(pos, (5, 2), n=None):
            theirs = ev.probabilities(h.play.position.swapped())
            assert h.probabilities == pytest.approx(tuple(_invert(np.array(theirs))), abs=1e-12)
            assert h.equity == pytest.approx(-ev.equity(h.play.position.swapped()), abs=1e-12)


def test_start_position_is_symmetric_for_the_net() -> None:
    """The starting position is its own flip, so evaluating it either way gives one answer."""
    ev = Evaluator(networks=TinyNet())
    pos = Position.initial()
    assert pos.swapped() == pos
    assert ev.probabilities(pos) == ev.probabilities(pos.swapped())


# --- n-ply against the naive reference ---------------------------------------------------------

@pytest.mark.parametrize("pid", ALL)
def test_one_ply_equals_naive_average(pid: str) -> None:
    net = TinyNet()
    ev = Evaluator(networks=net)
    pos = Position.from_id(pid)
    got = np.array(ev.probabilities(pos, ply=1))
    np.testing.assert_allclose(got, naive(net, pos, 1), atol=1e-12)
    assert ev.equity(pos, ply=1) == pytest.approx(_equity(got), abs=1e-12)


def test_one_ply_of_a_play_equals_naive() -> None:
    net = TinyNet()
    ev = Evaluator(networks=net, filters=[MoveFilter(100, 10.0)])
    pos = Position.from_id(CONTACT[1])
    for h in ev.hint(pos, (6, 4), ply=1, n=None):
        want = _invert(naive(net, h.play.position.swapped(), 1))
        np.testing.assert_allclose(h.probabilities, want, atol=1e-12)


@pytest.mark.parametrize("pid", [CONTACT[2], RACE[0]])
def test_two_ply_equals_naive(pid: str) -> None:
    net = TinyNet()
    ev = Evaluator(networks=net)
    pos = Position.from_id(pid)
    np.testing.assert_allclose(ev.probabilities(pos, ply=2), naive(net, pos, 2), atol=1e-12)


class PrunedNet(TinyNet):
    """Networks that carry their own pruner, as the shipped ones may."""

    def __init__(self) -> None:
        super().__init__(7)
        self.prune = TinyNet(8)


@pytest.mark.parametrize("pid", [CONTACT[0], CONTACT[3], CRASHED[0], RACE[1]])
def test_pruned_one_ply_equals_naive(pid: str) -> None:
    net = PrunedNet()
    pos = Position.from_id(pid)
    got = Evaluator(networks=net).probabilities(pos, ply=1)
    np.testing.assert_allclose(got, naive(net, pos, 1, net.prune, 4), atol=1e-12)
    got = Evaluator(networks=net, prune_keep=2).probabilities(pos, ply=1)
    np.testing.assert_allclose(got, naive(net, pos, 1, net.prune, 2), atol=1e-12)
    # the window: only replies the pruner values near its best reach the full networks
    for window in (0.0, 0.03, 1e9):
        got = Evaluator(networks=net, prune_window=window).probabilities(pos, ply=1)
        np.testing.assert_allclose(got, naive(net, pos, 1, net.prune, 4, window), atol=1e-12)
    # prune=False and an explicit pruner override the networks' own
    plain = Evaluator(networks=net, prune=False).probabilities(pos, ply=1)
    np.testing.assert_allclose(plain, naive(net, pos, 1), atol=1e-12)
    other = TinyNet(9)
    got = Evaluator(networks=net, prune=other, prune_keep=3).probabilities(pos, ply=1)
    np.testing.assert_allclose(got, naive(net, pos, 1, other, 3), atol=1e-12)


def test_pruned_two_ply_equals_naive() -> None:
    net = PrunedNet()
    pos = Position.from_id(CONTACT[2])
    got = Evaluator(networks=net).probabilities(pos, ply=2)
    np.testing.assert_allclose(got, naive(net, pos, 2, net.prune, 4), atol=1e-12)


@pytest.mark.parametrize("pid", ["RwAAYLZ9AQEAAA", "OwAAwLMBAAAAAA", RACE[0]])
def test_pruning_that_keeps_every_reply_changes_nothing(pid: str) -> None:
    """A pruner that keeps every play leaves the search as it was, also where replies are
    bear-offs valued by the exact tables (once left unfilled: garbage figures)."""
    full = _shipped().networks
    pos = Position.from_id(pid)
    plain = Evaluator(networks=full, prune=False)
    everything = Evaluator(networks=full, prune=TinyNet(9), prune_keep=200,
                           prune_window=float("inf"))
    for ply in (1, 2):
        np.testing.assert_allclose(everything.probabilities(pos, ply),
                                   plain.probabilities(pos, ply), atol=1e-12)


@pytest.mark.parametrize("pruned", [False, True])
def test_two_ply_hint_figures_are_each_results_two_ply_value(pruned: bool) -> None:
    """The 2-ply stage reuses the replies the 1-ply stage picked for the same candidates: each
    play searched to 2-ply still carries exactly its result's own 2-ply value (one board at a
    time, nothing shared), and the 1-ply survivors the 2-ply filter dropped their 1-ply one."""
    net = PrunedNet() if pruned else TinyNet()
    ev = Evaluator(networks=net, filters=[MoveFilter(8, 0.3), MoveFilter(3, 0.3)])
    seen = set()
    for pid, dice in [(CONTACT[0], (3, 1)), (CONTACT[3], (4, 2))]:
        pos = Position.from_id(pid)
        hints = ev.hint(pos, dice, ply=2, n=None)
        seen.add(sum(h.ply == 2 for h in hints))
        for h in hints:
            if h.ply == 0:
                continue
            single = Evaluator(networks=net).probabilities(h.play.position.swapped(), ply=h.ply)
            want = np.array(single)[[0, 3, 4, 1, 2]]
            want[0] = 1.0 - single[0]
            np.testing.assert_allclose(h.probabilities, want, atol=1e-12)
        assert ev.best_play(pos, dice, ply=2) == hints[0].play
    assert max(seen) >= 2     # the reuse was exercised: several plays went to 2-ply


def test_pruning_never_touches_root_plays() -> None:
    net = PrunedNet()
    pos = Position.from_id(CONTACT[4])
    pruned = Evaluator(networks=net).hint(pos, (4, 2), ply=0, n=None)
    plain = Evaluator(networks=TinyNet(7)).hint(pos, (4, 2), ply=0, n=None)
    assert [(h.play, h.equity) for h in pruned] == [(h.play, h.equity) for h in plain]


def test_batched_evaluate_matches_single(ev: Evaluator) -> None:
    boards = np.array([Position.from_id(p).board for p in ALL])
    for ply in (0, 1):
        batch = ev.evaluate(boards, ply=ply)
        for b, row in zip(boards, batch, strict=True):
            np.testing.assert_allclose(row, ev.probabilities(Position(b), ply), atol=1e-12)


# --- rules, arguments, threads -------------------------------------------------------------

def test_caucasian_plays_follow_the_rule() -> None:
    net = TinyNet()
    plain = Evaluator(networks=net)
    cauc = Evaluator(networks=net, caucasian=True)
    for pid in ALL:
        pos = Position.from_id(pid)
        for dice in ROLLS:
            got = {h.play.position for h in cauc.hint(pos, dice, n=None)}
            assert got == {p.position for p in pos.legal_plays(dice, caucasian=True)}
    # 8/5*/3: the checker that hit in the home board may not go on to a point of its own
    pos = _board({8: 1, 3: 2, 13: 12, 5: -1, 20: -14})
    hit_on = pos.play_from_text("8/5*/3", (3, 2)).position
    assert hit_on in {h.play.position for h in plain.hint(pos, (3, 2), n=None)}
    assert hit_on not in {h.play.position for h in cauc.hint(pos, (3, 2), n=None)}
    assert len(cauc.hint(pos, (3, 2), n=None)) == len(pos.legal_plays((3, 2), caucasian=True))


def test_bad_arguments(ev: Evaluator) -> None:
    pos = Position.initial()
    with pytest.raises(EvaluatorError, match="-1"):
        ev.probabilities(pos, ply=-1)
    with pytest.raises(EvaluatorError):
        ev.best_play(pos, (3, 1), ply=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="7"):
        ev.best_play(pos, (7, 1))
    with pytest.raises(EvaluatorError):
        MoveFilter(0, 0.1)
    with pytest.raises(EvaluatorError):
        Evaluator("x.npz", networks=TinyNet())
    with pytest.raises(EvaluatorError):
        Evaluator(networks=TinyNet(), prune_keep=0)
    with pytest.raises(EvaluatorError):
        Evaluator(networks=TinyNet(), prune_window=-0.1)
    with pytest.raises(EvaluatorError):
        Evaluator(networks=TinyNet(), prune=True)


def test_threads_agree_with_serial() -> None:
    ev = Evaluator(networks=TinyNet())
    jobs = [(Position.from_id(pid), dice) for pid in ALL for dice in [(6, 1), (3, 3), (5, 4)]]
    want = [ev.best_play(p, d, ply=1) for p, d in jobs]
    got: list[object] = [None] * len(jobs)

    def work(k: int) -> None:
        for i in range(k, len(jobs), 4):
            got[i] = ev.best_play(jobs[i][0], jobs[i][1], ply=1)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want


def test_searches_split_between_threads_give_the_serial_figures() -> None:
    """A 2-ply hint and a 2-ply cube look-ahead split over 2 or 3 threads give bit for bit what
    one thread gives (each board's values do not depend on the batch it is in)."""
    from gbot.cube.cubeful import CubeContext
    from gbot.cube.lookahead import lookahead_cubeful

    nets = _shipped().networks
    serial, split2, split3 = (Evaluator(networks=nets, threads=n) for n in (1, 2, 3))
    for pid in CONTACT[:3] + CRASHED:
        pos = Position.from_id(pid)
        want = serial.hint(pos, (4, 2), ply=2)
        assert split2.hint(pos, (4, 2), ply=2) == want
        assert split3.hint(pos, (4, 2), ply=2) == want
        board = np.asarray(pos.board, dtype=np.int8)
        want_cube = lookahead_cubeful(board, CubeContext(), serial, 2)
        assert lookahead_cubeful(board, CubeContext(), split3, 2) == want_cube


def test_default_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from gbot.eval.evaluator import MAX_THREADS, default_threads

    monkeypatch.setenv("GBOT_THREADS", "3")
    assert default_threads() == 3 and Evaluator(networks=TinyNet()).threads == 3
    monkeypatch.delenv("GBOT_THREADS")
    assert 1 <= default_threads() <= MAX_THREADS
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("GBOT_THREADS", bad)
        with pytest.raises(EvaluatorError, match="GBOT_THREADS"):
            default_threads()
    with pytest.raises(EvaluatorError, match="threads"):
        Evaluator(networks=TinyNet(), threads=0)


def _child_default_threads(q: multiprocessing.queues.Queue[int]) -> None:
    from gbot.eval.evaluator import default_threads
    q.put(default_threads())


def _child_search(ev: Evaluator, q: multiprocessing.queues.Queue[object]) -> None:
    q.put(ev.probabilities(Position.from_id(CONTACT[1]), ply=2))


def test_worker_processes_search_on_one_thread_and_a_fork_gets_fresh_helpers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes of batch jobs default to one thread; an evaluator whose helper threads
    were started before a fork still searches in the child (threads do not survive a fork)."""
    monkeypatch.delenv("GBOT_THREADS", raising=False)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_default_threads, args=(q,))
    p.start()
    assert q.get(timeout=60) == 1
    p.join(60)
    ev = Evaluator(networks=TinyNet(), threads=2)
    want = ev.probabilities(Position.from_id(CONTACT[1]), ply=2)   # helpers started
    p = ctx.Process(target=_child_search, args=(ev, q))
    p.start()
    try:
        assert q.get(timeout=60) == want
        p.join(60)
        assert p.exitcode == 0
    finally:
        p.kill()


# --- against gnubg-nn: its net plugged into our search -------------------------------------

class GnubgNet:
    """gnubg-nn's 0-ply evaluation (nets and bear-off databases) as a :class:`BoardEvaluator`."""

    def __init__(self) -> None:
        self.g = pytest.importorskip("gnubg_nn")

    def evaluate(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        from gbot.core.board import to_gnubg
        out = np.empty((len(boards), 5))
        for i, b in enumerate(boards):
            me, opp = to_gnubg(b)
            out[i] = self.g.probabilities([opp, me], 0)
        return out


@pytest.mark.oracle
@pytest.mark.parametrize(("pid", "ply"), [(p, 1) for p in ALL] + [(CONTACT[1], 2), (RACE[0], 2)])
def test_n_ply_with_gnubg_net_matches_gnubg(pid: str, ply: int) -> None:
    """Our search over gnubg's own 0-ply evaluations reproduces gnubg-nn's n-ply evaluation
    (same rolls, weights, 0-ply reply choice and orientation) to float32 precision."""
    net = GnubgNet()
    ev = Evaluator(networks=net, exact_bearoff=False)
    pos = Position.from_id(pid)
    me, opp = pos.to_gnubg()
    want = net.g.probabilities([opp, me], ply)
    np.testing.assert_allclose(ev.probabilities(pos, ply=ply), want, atol=2e-6)
    assert ev.probabilities(pos, ply=0) == pytest.approx(net.g.probabilities([opp, me], 0),
                                                         abs=1e-7)


@pytest.mark.oracle
def test_zero_ply_best_play_with_gnubg_net_matches_gnubg() -> None:
    net = GnubgNet()
    ev = Evaluator(networks=net, exact_bearoff=False)
    agree = total = 0
    for pid in ALL:
        pos = Position.from_id(pid)
        me, opp = pos.to_gnubg()
        for dice in [(6, 5), (3, 1), (2, 2), (6, 2)]:
            play = ev.best_play(pos, dice)
            if play is None:
                assert net.g.moves([opp, me], *dice) == ()
                continue
            steps, key = net.g.best_move([opp, me], dice[0], dice[1], 0, b=1)
            theirs = Position.from_gnubg(*net.g.boardfromkey(key)[::-1])
            total += 1
            agree += theirs == play.position.swapped()
    assert total > 30 and agree >= total - 1


# --- the shipped networks ------------------------------------------------------------------

def _shipped() -> Evaluator:
    net = pytest.importorskip("gbot.eval.net")
    try:
        return Evaluator(networks=net.Networks.default())
    except (OSError, WeightsError) as exc:  # weights not trained yet
        pytest.skip(f"shipped weights unavailable: {exc}")


def _labelled(n: int) -> list[tuple[str, npt.NDArray[np.float64]]]:
    import gzip

    path = DATA / "part-000.csv.gz"
    if not path.exists():
        pytest.skip("shared gnubg2ply data absent")
    rows = []
    with gzip.open(path, "rt") as fh:
        next(fh)
        for k, line in enumerate(fh):
            if k % 97 == 0:
                f = line.split(",")
                rows.append((f[0], np.array([float(x) for x in f[1:6]])))
            if len(rows) >= n:
                break
    return rows


def test_shipped_net_orientation_against_gnubg_labels() -> None:
    """With the real nets, our side-to-move probabilities track gnubg's 2-ply labels for the
    position and, inverted, for the same position with the other side to move."""
    ev = _shipped()
    rows = _labelled(150)
    boards = np.array([Position.from_id(pid).board for pid, _ in rows])
    want = np.array([p for _, p in rows])
    got = ev.evaluate(boards)
    err = np.abs(got[:, 0] - want[:, 0]).mean()
    assert err < 0.03, err  # the wrong orientation gives about 0.5
    swapped = ev.evaluate(np.array([flip_py(b) for b in boards]))
    # being on roll is worth something, but far less than a wrong orientation would cost
    assert np.corrcoef(1 - swapped[:, 0], want[:, 0])[0, 1] > 0.8


def test_shipped_net_two_ply_is_closer_to_gnubg_two_ply() -> None:
    """Searching deeper with the real nets moves the estimates towards gnubg's 2-ply labels."""
    ev = _shipped()
    rows = _labelled(12)
    boards = np.array([Position.from_id(pid).board for pid, _ in rows])
    want = np.array([p for _, p in rows])
    err0 = np.abs(ev.evaluate(boards)[:, 0] - want[:, 0]).mean()
    err2 = np.abs(ev.evaluate(boards, ply=2)[:, 0] - want[:, 0]).mean()
    assert err2 < err0, (err0, err2)


@pytest.mark.parametrize(("cls", "least"), [("contact", 0.94), ("crashed", 0.92),
                                             ("race", 0.95)])
def test_shipped_pruning_networks_pick_what_the_full_networks_pick(cls: str,
                                                                  least: float) -> None:
    """The shipped pruner's top 4 hold the full networks' own reply choice in nearly every
    roll of held-out positions of each class (measured on these, the first 150 of each:
    contact 96.3 %, crashed 94.1 %, race 98.2 %; bench_prune.py), and so do those of them
    within the search's window of the pruner's best (96.3 %, 94.0 %, 98.2 %) with fewer
    replies for the full networks (contact 2.65 a roll against 3.32)."""
    from tests.conftest import load_script

    full = _shipped().networks
    prune = getattr(full, "prune", None)
    assert prune is not None, "the shipped networks come with their pruning networks"
    bench = load_script("bench_prune")
    rows = [line.split(",") for line in
            (Path(__file__).parent / "data" / "heldout_positions.csv").read_text().splitlines()[1:]]
    ids = [r[0] for r in rows if r[6] == cls][:150]
    boards = np.array([Position.from_id(p).board for p in ids], dtype=np.int8)
    top4 = bench.reply_agreement(full, prune, boards, 4, float("inf"))
    got = bench.reply_agreement(full, prune, boards, 4, PRUNE_WINDOW)
    assert got["rolls"] > 1200
    assert got["same_pick"] >= least, got
    assert got["same_pick"] >= top4["same_pick"] - 0.005, (got, top4)
    assert got["full_per_roll"] < top4["full_per_roll"]
    # a pruner that keeps one reply is the pruner's own pick: far worse
    one = bench.reply_agreement(full, prune, boards, 1, float("inf"))
    assert one["same_pick"] < got["same_pick"]
