"""The ``rollout`` label stage: positions labelled by rollouts of our own networks.

Reads boards (``int8[n, 26]``, side to move about to roll) from a ``.npz`` set
(:func:`gbot.train.data.load_npz`) or a labelling folder's ``positions.npz``, rolls each out
with :func:`gbot.analysis.rollout.rollout_boards` (cubeless, checker play at ``checker_ply``, luck
cancellation, quasi-random openings, optional truncation), and writes parts of ``part_size``
positions as they finish (``part-00000.npz`` with ``boards``, ``probs`` and ``se``), so a
stopped run resumes at the first missing part. :func:`load` joins the parts into one labelled
set. A position's dice depend on ``seed``, its part and its place in the part only: the same
figures whatever the number of workers and however often the run was resumed. The settings
that shape the labels are kept in ``settings.json``; a resume with other settings is refused
rather than mixing labels of two kinds in one set.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gbot.analysis.rollout import RolloutError, rollout_boards

__all__ = ["PART_SIZE", "load", "load_with_groups", "prepare", "run"]

PART_SIZE = 2000
"""Positions a part holds (the last may hold fewer)."""
PROGRESS_EVERY = 60.0
"""Seconds between the log's progress lines within a part."""


def prepare(src: Path, out: Path, limit: int, seed: int) -> int:
    """Choose up to ``limit`` positions of ``src`` (shuffled by ``seed``) into
    ``out/positions.npz``; returns how many."""
    src = Path(src)
    path = src / "positions.npz" if src.is_dir() else src
    with np.load(path) as z:
        boards = z["boards"].astype(np.int8)
    rng = np.random.default_rng(seed)
    pick = boards[rng.permutation(boards.shape[0])[:limit]]
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "positions.npz", boards=pick)
    return int(pick.shape[0])


def _check_settings(out: Path, settings: dict[str, int]) -> None:
    """Keep ``settings`` in ``out/settings.json``, or refuse them when the parts already
    labelled were made with others (a folder from before the file existed: 0-ply play)."""
    path = out / "settings.json"
    if path.exists():
        kept = json.loads(path.read_text())
    elif any(out.glob("part-*.npz")):
        kept = {"checker_ply": 0}
    else:
        path.write_text(json.dumps(settings, sort_keys=True) + "\n")
        return
    differ = {k: (kept[k], v) for k, v in settings.items() if k in kept and kept[k] != v}
    if differ:
        said = ", ".join(f"{k} {a!r} (asked {b!r})" for k, (a, b) in sorted(differ.items()))
        raise RolloutError(f"{out} was labelled with {said}; use another --out")


def run(out: Path, trials: int, truncate: int, seed: int, workers: int,
        part_size: int = PART_SIZE,
        log: Callable[[str], None] = print, checker_ply: int = 0, backend: str = "process",
        address: str | None = None) -> None:
    """Label ``out/positions.npz`` part by part (resumable); ``checker_ply`` is the ply of
    the plays inside the rollouts (:class:`gbot.analysis.rollout.RolloutSettings`); the
    trials run on ``backend`` (``process`` with ``workers`` processes, or ``ray``, at
    ``address`` for a cluster). The labels are the same whatever the backend. Progress: a
    bar on a terminal, and a log line with the ETA at least every :data:`PROGRESS_EVERY`
    seconds and after each part."""
    with np.load(out / "positions.npz") as z:
        boards = z["boards"].astype(np.int8)
    _check_settings(out, {"trials": trials, "truncate": truncate, "seed": seed,
                          "checker_ply": checker_ply})
    n = boards.shape[0]
    from gbot.analysis.progress import around_bars, terminal_bar

    had = sum(min(part_size, n - start) for k, start in enumerate(range(0, n, part_size))
              if (out / f"part-{k:05d}.npz").exists())
    bar = terminal_bar(n, "rollout labels", "position", initial=had)
    log = around_bars(log)
    began = time.monotonic()
    counted, logged = had, began    # positions counted on the bar, time of the last log line

    def advance(count: int) -> None:
        """``count`` positions are labelled in all: the bar, and a log line when due."""
        nonlocal counted, logged
        if count <= counted:
            return
        bar.update(count - counted)
        counted = count
        now = time.monotonic()
        if now - logged >= PROGRESS_EVERY:
            logged = now
            eta = (n - count) * (now - began) / (count - had)
            log(f"positions {count} of {n}, ETA {eta / 60:.0f} min")

    for k, start in enumerate(range(0, n, part_size)):
        part = out / f"part-{k:05d}.npz"
        if part.exists():
            continue
        b = boards[start:start + part_size]

        def in_part(done: int, _total: int, at: int = start) -> None:
            advance(at + done // trials)

        probs, se = _label(b, start, trials, truncate, seed, workers, checker_ply, backend,
                           address, in_part)
        tmp = part.with_name(part.name + ".tmp.npz")
        np.savez_compressed(tmp, boards=b, probs=probs.astype(np.float32),
                            se=se.astype(np.float32))
        tmp.replace(part)
        advance(start + b.shape[0])
        log(f"part {k}: positions {start}..{start + b.shape[0] - 1} of {n}, mean equity SE "
            f"{float(np.nanmean(se[:, 0])):.4f}")
    bar.close()


def _label(boards: npt.NDArray[np.int8], start: int, trials: int, truncate: int, seed: int,
           workers: int, checker_ply: int, backend: str, address: str | None,
           progress: Callable[[int, int], None] | None = None
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Rollouts of ``boards``, position numbers counted from ``start`` (the dice hash);
    ``progress(trials done, trials in all)`` as they finish."""

    # rollout_boards numbers its boards from 0; the part's start goes into the seed
    probs, se = rollout_boards(boards, trials, truncate=truncate, seed=(seed + start) % 2**32,
                               workers=workers, checker_ply=checker_ply, backend=backend,
                               ray_address=address, progress=progress)
    return probs, se


def load(out: Path) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """The labelled parts so far, joined: ``(boards, probs)``."""
    boards, probs, _ = load_with_groups(out)
    return boards, probs


def load_with_groups(out: Path) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32],
                                         npt.NDArray[np.int64] | None]:
    """:func:`load` and the decision group of each row, where ``positions.npz`` has them
    (positions chosen from a selfplay folder's close candidates), else None."""
    parts = [p for p in sorted(Path(out).glob("part-*.npz")) if ".tmp" not in p.name]
    if not parts:
        raise FileNotFoundError(f"no labelled parts in {out}")
    bs, ps, gs = [], [], []
    with np.load(Path(out) / "positions.npz") as z:
        chosen = z["boards"]
        groups = z["group"].astype(np.int64) if "group" in z.files else None
    for p in parts:
        with np.load(p) as z:
            b = z["boards"].astype(np.int8)
            bs.append(b)
            ps.append(z["probs"].astype(np.float32))
        lo = int(p.stem.split("-")[1]) * PART_SIZE
        if groups is not None and np.array_equal(chosen[lo:lo + b.shape[0]], b):
            gs.append(groups[lo:lo + b.shape[0]])
        else:
            groups = None
    return (np.concatenate(bs), np.concatenate(ps),
            np.concatenate(gs) if groups is not None else None)
