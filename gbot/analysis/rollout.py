"""Rollouts: positions played out many times with 0-, 1- or 2-ply checker play, gnubg-style.

The games are played by the kernel of :mod:`gbot.core.rollout` (see there for the dice,
quasi-random openings and variance reduction). This module owns the settings, spreads the
trials over worker processes or a Ray cluster, checkpoints them, and turns trials into
results:

* :func:`rollout_boards`: many boards (``int8[n, 26]``, side to move about to roll), a few
  trials each, cubeless; the five probabilities and their standard errors. This is the
  label stage of ``gbot train rollout``.
* :class:`Rollout`: one position (:meth:`Rollout.position`), every play of a roll
  (:meth:`Rollout.plays`) or a cube decision (:meth:`Rollout.cube`), cubeless and cubeful,
  money or match.

Cubeful values: each trial's game (cubeless checker play) is replayed with the cube, every
cube decision on the way taken by the cube model at ``cube_ply`` (:func:`gbot.cube.decide`);
a double that is passed ends the game, a game that stops early is valued by the cube model.
A cube decision's three branches (no double, double/take, double/pass) share the same games.
Variance reduction applies to the cubeless figures and, through each roll's luck times the
cube it was rolled under, to the cubeful ones (:mod:`gbot.analysis.rollout_cube`).

Dice: with ``quasi_random`` the first two rolls are stratified over the trials that fill whole
blocks of 36 (every opening roll once a block, every pair of opening and reply once in a
whole block of 1,296; :mod:`gbot.core.rollout`); the trials beyond the last whole block of 36
take independent dice. Each whole block and each independent trial estimates the mean without
bias, so every trial count gives an unbiased estimate. A trial's dice depend on the seed, the
position's number, the trial's number and the planned number of trials alone, so a rollout
gives the same figures whatever the number of workers, and a resumed rollout the same as an
uninterrupted one. Standard errors are those of independent trials (the stratified blocks
make them, if anything, too large).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.analysis.backends import BACKENDS, Backend, as_finished, make_backend, map_ordered
from gbot.analysis.rollout_cube import match_chance, opponent_state, replay
from gbot.core import movegen
from gbot.core import rollout as kernel
from gbot.core.bearoff import BINOM
from gbot.core.board import checkers
from gbot.cube import context_from_state
from gbot.cube.cubeful import CubefulEquities
from gbot.cube.decision import decide_from_equities
from gbot.errors import BackendError, GbotError
from gbot.eval.bearoff import tables
from gbot.eval.evaluator import DEFAULT_FILTERS, Evaluator
from gbot.eval.net import Networks

__all__ = ["BLOCK", "CubeRollout", "PlayRollout", "Recorded", "Rollout", "RolloutError",
           "RolloutResult", "RolloutSettings", "TrialTask", "TrialsDone", "decide_branches",
           "kernel_args", "rollout_boards", "run_task", "stratified_trials"]

Probabilities = tuple[float, float, float, float, float]
Progress = Callable[[int, int], None]
"""``progress(trials done, trials planned)``."""

_EQ = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
ROLLOUT_PLIES = (0, 1, 2)
"""The plies :class:`RolloutSettings` takes for checker play and cube decisions."""
_PATH_LEN = 400
"""Boards recorded per trial for the cubeful replay (a longer game is valued at 0-ply there)."""
BLOCK = 36
"""Trials per block of stratified opening rolls (:func:`stratified_trials`)."""
_CKPT_FORMAT = 2
"""The checkpoints' format (2: stratified dice only over whole blocks, luck kept apart)."""


class RolloutError(GbotError, ValueError):
    """Bad rollout settings or input."""


@dataclass(frozen=True)
class RolloutSettings:
    """What a gnubg user sets for a rollout.

    ``trials``: games per position (at most; see ``min_se``). ``truncate``: plies after which
    a game stops and is valued at 0-ply (0: play to the end). ``bearoff_stop``: stop, exactly,
    at a bear-off in the two-sided table. ``variance_reduction``: luck cancellation against
    the 21 rolls' 0-ply average (cubeless and cubeful figures). ``quasi_random``: stratified
    first and second rolls over the trials that fill whole blocks of 36
    (:func:`stratified_trials`).
    ``min_se``: stop a position once the standard error of its (cubeless) equity is below this,
    checked every ``batch`` trials (only where the trials done fill whole blocks of 36, or
    once past the stratified ones). ``stop_at``: a :func:`time.monotonic` time after which no
    more trials start once a position has whole blocks of 36 (at least one; 0: no time bound);
    ``finish_by``: a :func:`time.monotonic` time by which the rollout is to be done: no further
    block starts that the pace so far says would end after it (0: no bound); with either
    bound each result's ``trials`` says how many were played. ``checker_ply``: the ply of the plays
    inside the rollout (0, or 1 or 2: the evaluator's choice at that ply among the candidates
    its move filters keep, :data:`gbot.eval.evaluator.DEFAULT_FILTERS`); ``cube_ply``: the ply
    of the probabilities the cube model decides on in the cubeful replay (0, 1 or 2, as
    ``Evaluator.evaluate``). ``workers``: processes (1: this process); ``backend``
    one of :data:`gbot.analysis.backends.BACKENDS` (``ray_address`` for a Ray cluster).
    ``chunk``: trials per task.
    """

    trials: int = 1296
    truncate: int = 0
    bearoff_stop: bool = True
    variance_reduction: bool = True
    quasi_random: bool = True
    seed: int = 1
    min_se: float = 0.0
    batch: int = 144
    workers: int = 1
    backend: str = "process"
    ray_address: str | None = None
    chunk: int = 36
    checker_ply: int = 0
    cube_ply: int = 0
    stop_at: float = 0.0
    finish_by: float = 0.0

    def __post_init__(self) -> None:
        """Reject settings that cannot run."""
        ints = {"trials": self.trials, "truncate": self.truncate, "seed": self.seed,
                "batch": self.batch, "workers": self.workers, "chunk": self.chunk,
                "checker_ply": self.checker_ply, "cube_ply": self.cube_ply}
        for name, v in ints.items():
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise RolloutError(f"{name} must be an integer, got {v!r}")
        if self.trials < 1 or self.truncate < 0 or self.batch < 1 or self.chunk < 1:
            raise RolloutError(f"trials, batch and chunk must be >= 1 and truncate >= 0: "
                               f"{self!r}")
        if self.workers < 1 or not 0 <= self.seed < 2**32:
            raise RolloutError(f"workers must be >= 1 and seed within 0..2**32-1: {self!r}")
        if not (self.min_se >= 0.0 and math.isfinite(self.min_se)):
            raise RolloutError(f"min_se must be a number >= 0, got {self.min_se!r}")
        for name, t in (("stop_at", self.stop_at), ("finish_by", self.finish_by)):
            if not (t >= 0.0 and math.isfinite(t)):
                raise RolloutError(f"{name} must be a number >= 0, got {t!r}")
        if self.checker_ply not in ROLLOUT_PLIES or self.cube_ply not in ROLLOUT_PLIES:
            raise RolloutError(f"checker_ply and cube_ply must be 0, 1 or 2, got "
                               f"{self.checker_ply!r} and {self.cube_ply!r}")
        if self.backend not in BACKENDS:
            raise RolloutError(f"backend must be one of {', '.join(BACKENDS)}, "
                               f"got {self.backend!r}")


@dataclass(frozen=True)
class RolloutResult:
    """A rolled-out position: the mean of the trials and its standard errors.

    ``probabilities`` and ``std_errors``: the five cubeless probabilities of the side the
    result is for; ``equity``/``equity_se``: cubeless money equity. ``cubeful``/
    ``cubeful_se``: cubeful money equity per unit of the cube, or in a match normalised
    match equity (EMG), None when not asked for; ``mwc``/``mwc_se``: match winning chance
    (match play only). ``trials``: games played.
    """

    probabilities: Probabilities
    std_errors: Probabilities
    equity: float
    equity_se: float
    trials: int
    cubeful: float | None = None
    cubeful_se: float | None = None
    mwc: float | None = None
    mwc_se: float | None = None


@dataclass(frozen=True)
class PlayRollout:
    """One play of a roll and the rollout of its result, seen by the mover."""

    play: Any
    result: RolloutResult


@dataclass(frozen=True)
class CubeRollout:
    """A rolled-out cube decision for the side on roll.

    ``no_double``/``double_take``: rollouts of the two branches (cubeful figures from the
    side on roll; per unit of the current cube in money, normalised match equity in a match);
    ``double_pass``: the value of a pass. ``action`` and ``response`` follow the same rules
    as :func:`gbot.cube.decide`.
    """

    no_double: RolloutResult
    double_take: RolloutResult
    double_pass: float
    action: str
    response: str
    can_double: bool = True


def stratified_trials(settings: RolloutSettings) -> int:
    """How many of a position's trials (from trial 0) have stratified first two rolls: the
    whole blocks of :data:`BLOCK` in ``settings.trials`` with ``quasi_random``, else 0."""
    return BLOCK * (settings.trials // BLOCK) if settings.quasi_random else 0


def _tuple(a: npt.NDArray[np.float64]) -> Probabilities:
    return (float(a[0]), float(a[1]), float(a[2]), float(a[3]), float(a[4]))


# --- the workers ---------------------------------------------------------------------------

_cache_lock = threading.Lock()
_args_cache: dict[str | None, tuple[Any, ...]] = {}


def kernel_args(weights: str | None = None) -> tuple[Any, ...]:
    """The networks' and bear-off tables' arrays the kernel takes (loaded once per
    process): ``weights`` is a networks file, None for the shipped networks."""
    with _cache_lock:
        hit = _args_cache.get(weights)
        if hit is not None:
            return hit
        nets = Networks.default() if weights is None else Networks.load(weights)
        t = tables()
        args = (*nets.kernel_args(), t.rolls, t.gammon, t.two_sided, BINOM)
        _args_cache[weights] = args
        return args


@dataclass(frozen=True)
class TrialTask:
    """``n`` trials, from trial number ``t0``, of each of ``boards`` (their position numbers
    ``keys``), under ``settings`` with the networks file ``weights``; ``paths``: record every
    game's boards (for the cubeful replay)."""

    boards: npt.NDArray[np.int8]
    keys: npt.NDArray[np.int64]
    t0: int
    n: int
    settings: RolloutSettings
    weights: str | None
    paths: bool


@dataclass(frozen=True)
class Recorded:
    """A recorded task's games for the cubeful replay: the boards at every ply
    (``[m * n, L, 26]``, as :func:`gbot.core.rollout.rollout_many` records them), the
    results as played (``[m, n, 5]``, no luck subtracted) and the luck of the roll at every
    ply (``[m * n, L]``, cubeless equity for the root; zeros without variance reduction)."""

    paths: npt.NDArray[np.int8]
    played: npt.NDArray[np.float64]
    lucks: npt.NDArray[np.float64]


TrialsDone = tuple[TrialTask, npt.NDArray[np.float64], npt.NDArray[np.int32],
                   npt.NDArray[np.int8], Recorded | None]


def _play(task: TrialTask, t0: int, n: int, quasi: bool
          ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int32],
                     npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.float64]]:
    """Trials ``t0 .. t0 + n - 1`` of the task's boards, stratified with ``quasi``: the
    results as played, the lucks, plies, ends, and the recorded boards and lucks per ply (no
    rows unless ``task.paths``)."""
    s = task.settings
    m = task.boards.shape[0]
    played = np.empty((m, n, 5), dtype=np.float64)
    lucks = np.empty((m, n, 5), dtype=np.float64)
    plies = np.empty((m, n), dtype=np.int32)
    ends = np.empty((m, n), dtype=np.int8)
    length = (s.truncate or _PATH_LEN) + 1 if task.paths else 0
    paths = np.zeros((m * n if task.paths else 0, length, 26), dtype=np.int8)
    ply_lucks = np.zeros(paths.shape[:2], dtype=np.float64)
    f, f2 = DEFAULT_FILTERS[0], DEFAULT_FILTERS[min(1, len(DEFAULT_FILTERS) - 1)]
    code = kernel.rollout_many(task.boards, n, t0, s.seed, task.keys, s.truncate, quasi,
                               s.variance_reduction, s.bearoff_stop, False,
                               s.checker_ply or None,
                               f.keep, f.window, f2.keep, f2.window, *kernel_args(task.weights),
                               movegen.HASH_KEYS, played, plies, ends, paths, lucks,
                               ply_lucks)  # type: ignore[call-arg]
    if code != kernel.OK:
        raise RolloutError("a position in the rollout has too many plays for the kernel")
    return played, lucks, plies, ends, paths, ply_lucks


def run_task(task: TrialTask) -> TrialsDone:
    """Play one task's trials (in a worker or here): the task, the final probabilities
    ``[m, n, 5]`` (luck subtracted with variance reduction), plies played ``[m, n]``, how
    each game ended ``[m, n]`` and, where ``task.paths``, the recorded games (else None).

    The trials below :func:`stratified_trials` have stratified first two rolls, the others
    independent dice."""
    strata = stratified_trials(task.settings)
    cut = min(max(strata - task.t0, 0), task.n)      # trials t0 .. t0 + cut - 1 stratified
    parts = [_play(task, t0, n, quasi)
             for t0, n, quasi in ((task.t0, cut, True), (task.t0 + cut, task.n - cut, False))
             if n > 0]
    m = task.boards.shape[0]
    played, lucks, plies, ends = (np.concatenate([p[i] for p in parts], axis=1)
                                  for i in range(4))
    out = played - lucks
    if not task.paths:
        return task, out, plies, ends, None
    paths, ply_lucks = (np.concatenate([p[i].reshape(m, -1, *p[i].shape[1:]) for p in parts],
                                       axis=1).reshape(m * task.n, *parts[0][i].shape[1:])
                        for i in (4, 5))
    return task, out, plies, ends, Recorded(paths, played, ply_lucks)


def _backend(settings: RolloutSettings) -> Backend[TrialTask, TrialsDone]:
    """Where the settings' trials run (:mod:`gbot.analysis.backends`)."""
    try:
        return make_backend(settings.backend, run_task, settings.workers, settings.ray_address)
    except BackendError as exc:
        raise RolloutError(str(exc)) from None


def _as_boards(boards: npt.ArrayLike) -> npt.NDArray[np.int8]:
    arr = np.asarray(boards)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[1] != 26:
        raise RolloutError(f"boards must be int8[n, 26], got shape {arr.shape!r}")
    out = np.ascontiguousarray(arr, dtype=np.int8)
    if not np.array_equal(out, arr):
        raise RolloutError("boards must hold small integers (checker counts)")
    for i, b in enumerate(out):
        me, opp = checkers(b)
        if (me > 15 or opp > 15 or b[25] < 0 or b[0] > 0):
            raise RolloutError(f"board {i} is not a backgammon position: {b.tolist()!r}")
    return out


def _mean_se(x: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64],
                                                   npt.NDArray[np.float64]]:
    """Mean and standard error along axis 0."""
    n = x.shape[0]
    mean = x.mean(axis=0)
    if n < 2:
        return mean, np.full_like(mean, np.nan)
    return mean, x.std(axis=0, ddof=1) / math.sqrt(n)


def rollout_boards(boards: npt.ArrayLike, trials: int = 36, *, truncate: int = 0,
                   variance_reduction: bool = True, seed: int = 1, workers: int = 1,
                   backend: str = "process", weights: str | os.PathLike[str] | None = None,
                   bearoff_stop: bool = True, progress: Progress | None = None,
                   checker_ply: int = 0, ray_address: str | None = None,
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Cubeless rollouts of many boards (``checker_ply`` as in :class:`RolloutSettings`):
    ``(probabilities, std_errors)``, both ``float64[n, 5]`` for the side to move of each
    board (about to roll).

    Every board gets ``trials`` games (quasi-random openings, luck cancelled when
    ``variance_reduction``); board ``i``'s dice depend on ``seed`` and ``i`` only, so the
    figures do not depend on ``workers``. Positions are spread over the workers in tasks
    of up to 64 boards."""
    arr = _as_boards(boards)
    s = RolloutSettings(trials=trials, truncate=truncate, seed=seed, workers=workers,
                        backend=backend, ray_address=ray_address,
                        variance_reduction=variance_reduction,
                        bearoff_stop=bearoff_stop, checker_ply=checker_ply)
    w = os.fspath(weights) if weights is not None else None
    n = arr.shape[0]
    step = 64
    tasks = [TrialTask(arr[i:i + step], np.arange(i, min(n, i + step), dtype=np.int64), 0,
                       trials, s, w, False) for i in range(0, n, step)]
    probs = np.empty((n, 5), dtype=np.float64)
    ses = np.empty((n, 5), dtype=np.float64)
    pool = _backend(s)
    cancel = True
    try:
        done = 0
        for task, (_, out, _, _, _) in as_finished(pool, tasks):
            k0 = int(task.keys[0])
            for j in range(out.shape[0]):
                probs[k0 + j], ses[k0 + j] = _mean_se(out[j])
            done += out.shape[0] * trials
            if progress is not None:
                progress(done, n * trials)
        cancel = False
    finally:
        pool.close(cancel=cancel)
    return probs, ses


# --- one position --------------------------------------------------------------------------


@dataclass
class _Trials:
    """Trials of one position so far (kept in trial order): ``out`` the results less the luck
    (the cubeless figures); for recorded games ``paths`` and ``played`` (the results as
    played) and ``lucks`` (each ply's luck, :class:`Recorded`)."""

    out: list[npt.NDArray[np.float64]] = field(default_factory=list)
    paths: list[npt.NDArray[np.int8]] = field(default_factory=list)
    ends: list[npt.NDArray[np.int8]] = field(default_factory=list)
    plies: list[npt.NDArray[np.int32]] = field(default_factory=list)
    played: list[npt.NDArray[np.float64]] = field(default_factory=list)
    lucks: list[npt.NDArray[np.float64]] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(o.shape[0] for o in self.out)

    def as_played(self) -> _Trials:
        """The recorded games with their results as played, for
        :func:`gbot.analysis.rollout_cube.replay`."""
        return _Trials(out=self.played, paths=self.paths, ends=self.ends, plies=self.plies,
                       lucks=self.lucks)


class Rollout:
    """Rollouts of positions, plays and cube decisions under one :class:`RolloutSettings`.

    ``weights``: a networks file (default: the shipped networks). ``checkpoint``: a folder
    where finished trials are kept; a rollout started again with the same settings and
    position resumes from there. ``progress`` is called after every batch.
    """

    def __init__(self, settings: RolloutSettings | None = None, *,
                 weights: str | os.PathLike[str] | None = None,
                 checkpoint: str | os.PathLike[str] | None = None,
                 progress: Progress | None = None) -> None:
        self.settings = settings or RolloutSettings()
        self.weights = os.fspath(weights) if weights is not None else None
        self.checkpoint = Path(checkpoint) if checkpoint is not None else None
        self.progress = progress

    # -- the trial loop ----------------------------------------------------------------------
    def _ckpt_file(self, boards: npt.NDArray[np.int8], cubeful: bool) -> Path | None:
        if self.checkpoint is None:
            return None
        import hashlib

        s = replace(self.settings, workers=1, backend="process", ray_address=None, stop_at=0.0,
                    finish_by=0.0)
        key = hashlib.sha1(boards.tobytes()
                           + repr((s, cubeful, self.weights, _CKPT_FORMAT)).encode())
        return self.checkpoint / f"rollout-{key.hexdigest()[:16]}.npz"

    def _trials(self, boards: npt.NDArray[np.int8], cubeful: bool) -> list[_Trials]:
        """Play the trials of every board (to ``trials`` or the ``min_se`` stop)."""
        s = self.settings
        m = boards.shape[0]
        got = [_Trials() for _ in range(m)]
        ckpt = self._ckpt_file(boards, cubeful)
        if ckpt is not None and ckpt.exists():
            with np.load(ckpt) as z:
                for k in range(m):
                    if f"out{k}" in z:
                        got[k].out.append(z[f"out{k}"])
                        got[k].ends.append(z[f"ends{k}"])
                        got[k].plies.append(z[f"plies{k}"])
                        if cubeful:
                            got[k].paths.append(z[f"paths{k}"])
                            got[k].played.append(z[f"played{k}"])
                            got[k].lucks.append(z[f"lucks{k}"])
        pool = _backend(s)
        cancel = True
        began, played = time.monotonic(), 0
        try:
            while True:
                tasks = []
                # seconds the next block of every position would take at the pace so far
                ahead = (time.monotonic() - began) / played * BLOCK * m if played else 0.0
                for k in range(m):
                    done = got[k].count
                    if (done >= s.trials or self._precise(got[k], done)
                            or self._late(done, ahead)):
                        continue
                    end = min(s.trials, (done // s.batch + 1) * s.batch)
                    for t0 in range(done, end, s.chunk):
                        tasks.append(TrialTask(boards[k:k + 1],
                                               np.array([k], dtype=np.int64), t0,
                                               min(s.chunk, end - t0), s, self.weights,
                                               cubeful))
                if not tasks:
                    break
                for task, out, plies, ends, rec in map_ordered(pool, tasks):
                    k = int(task.keys[0])
                    played += task.n
                    got[k].out.append(out[0])
                    got[k].plies.append(plies[0])
                    got[k].ends.append(ends[0])
                    if rec is not None:
                        got[k].paths.append(rec.paths)
                        got[k].played.append(rec.played[0])
                        got[k].lucks.append(rec.lucks)
                self._save(ckpt, got, cubeful)
                if self.progress is not None:
                    self.progress(sum(g.count for g in got), m * s.trials)
            cancel = False
        finally:
            pool.close(cancel=cancel)
        return got

    def _precise(self, t: _Trials, done: int) -> bool:
        """Whether the ``min_se`` stop applies after ``done`` trials: never inside a block of
        stratified trials (a part block would bias the estimate)."""
        if self.settings.min_se <= 0.0 or done < 2:
            return False
        if done < stratified_trials(self.settings) and done % BLOCK:
            return False
        eq = np.concatenate(t.out) @ _EQ - 1.0
        return bool(eq.std(ddof=1) / math.sqrt(done) < self.settings.min_se)

    def _late(self, done: int, ahead: float) -> bool:
        """Whether a time bound stops a position after ``done`` trials: past ``stop_at``, or
        where the next block (``ahead`` seconds) would end past ``finish_by``; only with at
        least one whole block and never inside a block of stratified trials."""
        s = self.settings
        if (s.stop_at <= 0.0 and s.finish_by <= 0.0) or done < BLOCK:
            return False
        if done < stratified_trials(s) and done % BLOCK:
            return False
        now = time.monotonic()
        return (0.0 < s.stop_at <= now) or (0.0 < s.finish_by < now + ahead)

    @staticmethod
    def _save(ckpt: Path | None, got: list[_Trials], cubeful: bool) -> None:
        if ckpt is None:
            return
        ckpt.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {}
        for k, g in enumerate(got):
            if g.out:
                arrays[f"out{k}"] = np.concatenate(g.out)
                arrays[f"ends{k}"] = np.concatenate(g.ends)
                arrays[f"plies{k}"] = np.concatenate(g.plies)
                if cubeful:
                    arrays[f"paths{k}"] = np.concatenate(g.paths)
                    arrays[f"played{k}"] = np.concatenate(g.played)
                    arrays[f"lucks{k}"] = np.concatenate(g.lucks)
        tmp = ckpt.with_suffix(".tmp.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, ckpt)

    @staticmethod
    def _cubeless(t: _Trials, invert: bool) -> RolloutResult:
        out = np.concatenate(t.out)
        if invert:
            out = out[:, [0, 3, 4, 1, 2]] * np.array([-1.0, 1, 1, 1, 1]) + np.array(
                [1.0, 0, 0, 0, 0])
        mean, se = _mean_se(out)
        eq = out @ _EQ - 1.0
        e, e_se = _mean_se(eq.reshape(-1, 1))
        return RolloutResult(_tuple(mean), _tuple(se), float(e[0]), float(e_se[0]),
                             out.shape[0])

    # -- public entry points -----------------------------------------------------------------
    def boards(self, boards: npt.ArrayLike) -> list[RolloutResult]:
        """Cubeless rollouts of boards (side to move about to roll)."""
        arr = _as_boards(boards)
        return [self._cubeless(t, False) for t in self._trials(arr, False)]

    def position(self, pos: Any, state: Any = None) -> RolloutResult:
        """Rollout of ``pos`` (a :class:`gbot.Position`, side on roll before rolling); with a
        :class:`gbot.MatchState` ``state`` the cubeful figures too (no cube action at the
        root is forced: the side on roll may double at once)."""
        arr = _as_boards(np.asarray(pos.board))
        if state is None:
            return self.boards(arr)[0]
        t = self._trials(arr, True)[0]
        return self._position_of(t, self._cubeless(t, False), state)

    def position_and_cube(self, pos: Any, state: Any) -> tuple[RolloutResult, CubeRollout]:
        """:meth:`position` and :meth:`cube` of ``pos`` in ``state`` from one set of trials:
        the same figures as the two calls, for the time of one."""
        t = self._trials(_as_boards(np.asarray(pos.board)), True)[0]
        res = self._cubeless(t, False)
        return self._position_of(t, res, state), self._cube_of(t, res, state)

    def _position_of(self, t: _Trials, res: RolloutResult, state: Any) -> RolloutResult:
        """The cubeless figures ``res`` of a position's trials ``t`` with the cubeful ones."""
        vals, mwc = replay(t.as_played(), state, "free", cube_ply=self.settings.cube_ply,
                           weights=self.weights)
        return with_cubeful(res, vals, mwc)

    def _cube_of(self, t: _Trials, res: RolloutResult, state: Any) -> CubeRollout:
        """The cube decision of the side on roll from a position's trials ``t`` (their cubeless
        figures ``res``)."""
        return decide_branches(res, t.as_played(), state,
                               cube_ply=self.settings.cube_ply, weights=self.weights)

    def plays(self, pos: Any, dice: Sequence[int], state: Any = None,
              candidates: int | None = None, ply: int = 0) -> list[PlayRollout]:
        """Every play of ``dice`` (or the ``candidates`` best at ``ply``), rolled out and
        ranked best first (by cubeful value with ``state``, else cubeless equity)."""
        ev = Evaluator(self.weights)
        hints = ev.hint(pos, dice, ply=ply, n=candidates)
        if not hints:
            return []
        boards = np.array([h.play.position.swapped().board for h in hints], dtype=np.int8)
        cubeful = state is not None
        trials = self._trials(boards, cubeful)
        rows = []
        for h, t in zip(hints, trials, strict=True):
            res = self._cubeless(t, True)
            if cubeful:
                vals, mwc = replay(t.as_played(), opponent_state(state), "free",
                                   cube_ply=self.settings.cube_ply, weights=self.weights)
                res = with_cubeful(res, -vals, None if mwc is None else 1.0 - mwc,
                                   match_state=state)
            rows.append(PlayRollout(h.play, res))
        def value(r: PlayRollout) -> float:
            v = r.result.cubeful if cubeful else r.result.equity
            return -float(v if v is not None else 0.0)

        rows.sort(key=value)
        return rows

    def cube(self, pos: Any, state: Any) -> CubeRollout:
        """The cube decision of the side on roll of ``pos`` in ``state``, rolled out."""
        t = self._trials(_as_boards(np.asarray(pos.board)), True)[0]
        return self._cube_of(t, self._cubeless(t, False), state)


def with_cubeful(res: RolloutResult, vals: npt.NDArray[np.float64],
                 mwc: npt.NDArray[np.float64] | None, match_state: Any = None
                 ) -> RolloutResult:
    """``res`` with the cubeful figures (mean and standard error) of the per-trial values
    ``vals`` and, in a match, winning chances ``mwc``
    (:func:`gbot.analysis.rollout_cube.replay`)."""
    e, e_se = _mean_se(vals.reshape(-1, 1))
    if mwc is None:
        return replace(res, cubeful=float(e[0]), cubeful_se=float(e_se[0]))
    w, w_se = _mean_se(mwc.reshape(-1, 1))
    return replace(res, cubeful=float(e[0]), cubeful_se=float(e_se[0]), mwc=float(w[0]),
                   mwc_se=float(w_se[0]))


def decide_branches(cubeless: RolloutResult, trials: Any, state: Any, *, cube_ply: int = 0,
                    weights: str | None = None) -> CubeRollout:
    """The rolled-out cube decision of the root of ``trials`` (recorded games with their
    results as played, as :func:`gbot.analysis.rollout_cube.replay` reads them) in
    ``state``: the no-double and double/take branches replayed with the cube
    (:func:`gbot.analysis.rollout_cube.replay`, ``cube_ply`` and ``weights`` as there) on top of the
    cubeless figures ``cubeless``, decided by :func:`gbot.cube.decision.decide_from_equities`."""
    base = context_from_state(state, 0.68)
    nd_v, nd_m = replay(trials, state, "nd", cube_ply=cube_ply, weights=weights)
    nd = with_cubeful(cubeless, nd_v, nd_m)
    if not base.can_double():
        return CubeRollout(nd, nd, float("nan"), "no_double", "take", can_double=False)
    dt_v, dt_m = replay(trials, state, "dt", cube_ply=cube_ply, weights=weights)
    dt = with_cubeful(cubeless, dt_v, dt_m)
    dp_mwc = float("nan") if base.is_money else match_chance(base, base.cube)
    assert nd.cubeful is not None and dt.cubeful is not None
    e = CubefulEquities(nd=nd.cubeful, dt=dt.cubeful, dp=1.0,
                        nd_mwc=nd.mwc if nd.mwc is not None else math.nan,
                        dt_mwc=dt.mwc if dt.mwc is not None else math.nan, dp_mwc=dp_mwc,
                        can_double=True)
    d = decide_from_equities(e, base, cubeless.probabilities)
    return CubeRollout(nd, dt, 1.0, d.action, d.response)
