"""The one helper module of the benchmark and profiling scripts in ``scripts/``.

A script imports it before numpy and gbot (``import benchlib``; ``python scripts/NAME.py`` puts
``scripts/`` on ``sys.path`` and the package ``gbot`` is installed, so no path is edited):
importing it pins numba, OpenMP and the BLAS to one thread, as every speed figure of these
scripts is per core.

The measuring code itself lives in :mod:`gbot.testing.bench`, which ``gbot bench`` (the quick
front door; these scripts are its long forms) uses too, and is re-exported here: the targets
(:data:`TARGETS`, :class:`Target`), the context (:func:`machine_line`,
:func:`networks_summary`), seeded samples (:func:`make_pairs`, :data:`MIX`, :func:`kind`,
:func:`seeded_rolls`, :func:`evaluation_batch`), the figures both print
(:func:`movegen_batch`, :func:`evaluation_rate`), timers (:func:`timed`, :func:`best_of`,
:func:`clock`, :func:`interleaved`) and the gnubg-nn peer (:func:`gnubg_nn`,
:func:`gnubg_board`). What only the scripts need is below: where the repository keeps its data
(:data:`ROOT`, :data:`GNUBG2PLY`, :data:`TRANSCRIPTS`), :func:`contact_positions` from the
shared gnubg2ply set, the captured board lines of gnubg (:func:`captured_boards`), servers in
child processes (:func:`start_gbot_serve`, :func:`free_port`, :func:`cpu_seconds`), latency
summaries, JSON output, root move filters from text, and gnubg's referee harness
(:func:`gnubg_harness`).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import json
import math
import multiprocessing as mp
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ONE_THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                   "MKL_NUM_THREADS")
"""Set to 1 on import, before numpy and numba are imported (they read them once)."""

for _var in ONE_THREAD_VARS:
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from gbot.core.expand import EQUITY_WEIGHTS  # noqa: E402
from gbot.testing.bench import (  # noqa: E402  (after the thread settings)
    MIX,
    TARGETS,
    PeerTiming,
    Target,
    best_of,
    clock,
    evaluation_batch,
    evaluation_rate,
    gnubg_board,
    gnubg_nn,
    gnubg_nn_version,
    interleaved,
    kind,
    load_networks,
    machine,
    machine_line,
    make_pairs,
    movegen_batch,
    networks_summary,
    seeded_rolls,
    timed,
)
from gbot.testing.bench import contact_positions as _contact_positions  # noqa: E402

__all__ = [
    "BLOCK", "GNUBG2PLY", "JUDGES", "MIX", "ONE_THREAD_VARS", "ROOT", "TARGETS",
    "TRANSCRIPTS", "PeerTiming", "Target", "best_of", "captured_boards", "clock",
    "contact_positions", "cpu_seconds", "equity", "eta_line", "evaluation_batch", "evaluation_rate",
    "free_port", "gnubg_board", "gnubg_harness", "gnubg_nn", "gnubg_nn_version", "header",
    "interleaved", "judge_boards", "kind", "latency_summary", "load_networks", "machine",
    "machine_line", "make_pairs", "mapped", "mover_equity", "movegen_batch", "networks_summary",
    "parse_filters", "seeded_rolls", "start_gbot_serve", "timed", "write_json",
]

ROOT = Path(__file__).resolve().parents[1]
"""The repository."""
GNUBG2PLY = ROOT.parent / "shared" / "data" / "gnubg2ply"
"""The shared gnubg2ply position set (``part-*.csv.gz``), when present."""
TRANSCRIPTS = ROOT / "protocols" / "transcripts"
"""gnubg 1.07's captured sessions (``scripts/capture_transcripts.py``)."""


def header() -> None:
    """Print the machine line (cores, CPU, load, versions) that every figure depends on."""
    print(f"machine: {machine_line()}", flush=True)


def contact_positions(n: int, seed: int) -> tuple[list[Any], str]:
    """``n`` distinct contact positions (side on roll), seeded: from :data:`GNUBG2PLY` where
    it exists, else from seeded random self-play; and where they come from."""
    return _contact_positions(n, seed, GNUBG2PLY)


def equity(p: Sequence[float]) -> float:
    """Cubeless money equity of five probabilities (win, gammon, backgammon, lose gammon, lose
    backgammon) for the side they belong to."""
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


# --- gnubg's captured questions and servers in child processes ------------------------------
def captured_boards(limit: int | None = None) -> list[str]:
    """The first ``limit`` (None: all) distinct board lines gnubg sent in the referee
    transcripts; exits when there are fewer than ``limit``."""
    seen: dict[str, None] = {}
    for path in sorted(TRANSCRIPTS.glob("referee-*.txt")):
        for raw in path.read_text().splitlines():
            if not raw.startswith("C "):
                continue
            data = ast.literal_eval(raw[2:]).decode().strip("\x00\n")
            if data.startswith("board:"):
                seen.setdefault(data, None)
    boards = list(seen)
    if limit is None:
        return boards
    if len(boards) < limit:
        raise SystemExit(f"only {len(boards)} captured boards; run scripts/capture_transcripts.py")
    return boards[:limit]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A loopback TCP port free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gbot_serve(ply: int, cube_ply: int | None = None
                     ) -> tuple[subprocess.Popen[str], int]:
    """``gbot serve --ply ply`` (and ``--cube-ply``) on an ephemeral loopback port, returned
    once it says it is listening: the process and the port (exits when it does not start)."""
    extra = [] if cube_ply is None else ["--cube-ply", str(cube_ply)]
    proc = subprocess.Popen([sys.executable, "-m", "gbot.cli", "serve", "--listen", "127.0.0.1:0",
                             "--ply", str(ply), *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    ready = proc.stdout.readline()
    if "listening on 127.0.0.1:" not in ready:
        proc.kill()
        proc.wait(30)
        raise SystemExit(f"gbot serve --ply {ply} did not start: {ready!r}")
    return proc, int(ready.split("listening on 127.0.0.1:")[1].split()[0])


def withholding_engine(ply: int, rules: Any, offers: list[int], cube_ply: int | None = None,
                       weights: Path | None = None) -> Any:
    """gbot's server engine (on ``weights``, default the shipped networks) whose resignation
    offers are recorded in ``offers`` and withheld: against gnubg, whose answer to a
    resignation is not gbot's strength."""
    from gbot import Evaluator
    from gbot.engine.engine import Engine

    evaluator = Evaluator(str(weights)) if weights is not None else None
    engine = Engine(evaluator, ply=ply, rules=rules, cube_ply=cube_ply)
    offer = engine.resign_offer

    def withheld(pos: Any, state: Any) -> int:
        level = offer(pos, state)
        if level:
            offers.append(level)
        return 0

    engine.resign_offer = withheld  # type: ignore[method-assign]
    return engine


def latency_summary(times: Sequence[float]) -> dict[str, float]:
    """``median_ms``, ``p99_ms``, ``mean_ms`` and ``max_ms`` of ``times`` (seconds)."""
    ms = sorted(t * 1000.0 for t in times)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return {"median_ms": statistics.median(ms), "p99_ms": p99, "mean_ms": statistics.fmean(ms),
            "max_ms": ms[-1]}


def write_json(path: str | Path, figures: Any) -> None:
    """``figures`` as indented JSON in ``path``."""
    Path(path).write_text(json.dumps(figures, indent=1))


def parse_filters(text: str) -> tuple[Any, ...]:
    """``KEEP:WINDOW,...`` as root move filters (:class:`gbot.eval.evaluator.MoveFilter`)."""
    from gbot.eval.evaluator import MoveFilter

    out = []
    for part in text.split(","):
        keep, window = part.split(":")
        out.append(MoveFilter(int(keep), float(window)))
    return tuple(out)


def gnubg_harness() -> ModuleType:
    """``tests/gnubg_harness.py`` (gnubg 1.07 as referee or as server; standard library only),
    loaded from its file as the module ``gnubg_harness``: it lives with the tests, which import
    it by that name."""
    name = "gnubg_harness"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "gnubg_harness.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod      # its dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


# Judges: an engine's cubeless probabilities of many boards, for the scripts that score plays.

JUDGES = ("gnubg-nn", "bgsage", "gbot", "rollout")
BLOCK = 250

_JUDGE: dict[str, Any] = {}


def mover_equity(probs: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
    """The mover's cubeless equity after a play, from the probabilities of the side on roll
    next (rows of five)."""
    eq: npt.NDArray[np.float64] = -(np.asarray(probs, np.float64) @ EQUITY_WEIGHTS)
    return eq


def _init(judge: str, plies: int, weights: str | None = None) -> None:
    _JUDGE["name"], _JUDGE["plies"] = judge, plies
    if judge == "bgsage":
        from gbot.train.bgsage_bridge import Bgsage
        _JUDGE["bgsage"] = Bgsage(plies, threads=1)
    elif judge == "gbot":
        from gbot.eval.evaluator import Evaluator
        _JUDGE["gbot"] = Evaluator(weights)


def _judge(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
    """Cubeless probabilities of the side on roll, by the worker's judge."""
    name, plies = _JUDGE["name"], _JUDGE["plies"]
    if name == "gnubg-nn":
        from gbot.train.oracle import probabilities
        return probabilities(boards, plies)
    if name == "bgsage":
        out: npt.NDArray[np.float32] = _JUDGE["bgsage"].probabilities(boards)
        return out
    ev = _JUDGE["gbot"]
    return np.asarray(ev.evaluate(boards, ply=plies), dtype=np.float32)


def judge_boards(boards: npt.NDArray[np.int8], judge: str, plies: int, workers: int,
                 log: Any = print, weights: str | None = None) -> npt.NDArray[np.float32]:
    """The judge's probabilities of every board (side on roll), in blocks over ``workers``
    processes, with progress; gbot judges with ``weights`` (default: the shipped networks)."""
    blocks = [boards[i:i + BLOCK] for i in range(0, boards.shape[0], BLOCK)]
    out: list[npt.NDArray[np.float32]] = []
    start = time.time()
    with mapped(_judge, blocks, workers, _init, (judge, plies, weights)) as results:
        for i, probs in enumerate(results, 1):
            out.append(probs)
            if i % 8 == 0 or i == len(blocks):
                log(eta_line(i, len(blocks), start, "blocks"))
    return np.concatenate(out) if out else np.zeros((0, 5), np.float32)


@contextlib.contextmanager
def mapped(func: Callable[[Any], Any], jobs: Sequence[Any], workers: int,
           initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = (),
           ordered: bool = True) -> Iterator[Iterator[Any]]:
    """``func`` over ``jobs``: in this process when ``workers`` <= 1, else in a pool of
    ``workers`` spawned processes (each set up by ``initializer(*initargs)``) that ends with
    the block; results in order unless ``ordered`` is False."""
    if workers <= 1:
        if initializer is not None:
            initializer(*initargs)
        yield map(func, jobs)
        return
    pool = mp.get_context("spawn").Pool(workers, initializer=initializer, initargs=initargs)
    try:
        yield (pool.imap if ordered else pool.imap_unordered)(func, jobs)
    finally:
        pool.terminate()


def eta_line(done: int, total: int, start: float, unit: str) -> str:
    """``progress: done/total unit, ETA ...s`` from the rate since ``start`` (``time.time()``)."""
    rate = done / max(time.time() - start, 1e-9)
    return f"progress: {done}/{total} {unit}, ETA {(total - done) / rate:.0f}s"


# The rollout judge: two results of one roll rolled out by gbot on the same dice.


def pair_key(first: npt.NDArray[np.int8], second: npt.NDArray[np.int8]) -> str:
    """A pair's name in the rollout cache: a digest of both results, in order."""
    raw = np.ascontiguousarray(first, np.int8).tobytes() + np.ascontiguousarray(
        second, np.int8).tobytes()
    return hashlib.sha1(raw).hexdigest()[:16]


def dice_number(boards: npt.NDArray[np.int8]) -> int:
    """The position number a pair's rollouts take their dice from: a digest of its two
    results whichever comes first (so a pair judged the other way round has the same dice)."""
    a, b = sorted(np.ascontiguousarray(x, np.int8).tobytes() for x in boards)
    return int(hashlib.sha1(a + b).hexdigest()[:8], 16)


def _roll_out_pair(job: tuple[str, npt.NDArray[np.int8], int, int, int]
                   ) -> tuple[str, float, float]:
    """``(key, the second result minus the first, its SE)`` for one pair: both results
    rolled out on the same dice (position number from the key), mover's cubeless equity."""
    from gbot.analysis.rollout import RolloutSettings, TrialTask, run_task

    key, boards, trials, plies, seed = job
    number = dice_number(boards)
    settings = RolloutSettings(trials=trials, seed=seed, checker_ply=plies)
    task = TrialTask(boards, np.array([number, number], dtype=np.int64), 0, trials, settings,
                     None, False)
    out = run_task(task)[1]                          # [2, trials, 5], luck subtracted
    eq = mover_equity(out.reshape(-1, 5)).reshape(2, trials)
    d = eq[1] - eq[0]
    se = float(d.std(ddof=1) / math.sqrt(trials)) if trials > 1 else float("nan")
    return key, float(d.mean()), se


def rollout_pairs(firsts: npt.NDArray[np.int8], seconds: npt.NDArray[np.int8],
                  trials: int, plies: int, seed: int, workers: int, cache: Path | None = None,
                  log: Any = print) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per pair of results (two plays of one roll: ``firsts[i]`` and ``seconds[i]``, the
    opponent on roll), the second minus the first by gbot's rollouts of both on the same dice
    (``trials`` games each at ``plies``, variance reduction, ``seed``; the mover's cubeless
    equity), and the standard error of that difference. Pairs already in ``cache`` (JSON
    lines, for the same trials, plies and seed) are not rolled out again; new ones are
    appended as they finish, so an interrupted run resumes where it stopped."""
    keys = [pair_key(g, b) for g, b in zip(firsts, seconds, strict=True)]
    done: dict[str, tuple[float, float]] = {}
    setting = {"trials": trials, "plies": plies, "seed": seed}
    if cache is not None and cache.exists():
        for line in cache.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue                             # a line cut short by an interruption
            if all(row.get(k) == v for k, v in setting.items()):
                done[row["pair"]] = (float(row["diff"]), float(row["se"]))
    todo: dict[str, npt.NDArray[np.int8]] = {}      # each pair once, in order
    for k, g, b in zip(keys, firsts, seconds, strict=True):
        if k not in done and k not in todo:
            todo[k] = np.stack([g, b])
    jobs = [(k, boards, trials, plies, seed) for k, boards in todo.items()]
    log(f"rollout judge: {len(keys) - len(jobs)} pairs from the cache, {len(jobs)} to roll out")
    start = time.time()
    sink = cache.open("a") if cache is not None else None
    try:
        with mapped(_roll_out_pair, jobs, workers if len(jobs) > 1 else 1,
                    ordered=False) as results:
            for i, (key, d, se) in enumerate(results, 1):
                done[key] = (d, se)
                if sink is not None:
                    sink.write(json.dumps({"pair": key, "diff": d, "se": se, **setting}) + "\n")
                    sink.flush()
                if i % 10 == 0 or i == len(jobs):
                    log(eta_line(i, len(jobs), start, "pairs"))
    finally:
        if sink is not None:
            sink.close()
    diff = np.array([done[k][0] for k in keys], dtype=np.float64)
    se = np.array([done[k][1] for k in keys], dtype=np.float64)
    return diff, se
