#!/usr/bin/env python3
"""Train gbot's networks, reproducibly: every stage is a subcommand with seeds and checkpoints.

Stages (each resumable; large outputs go under ``~/.cache/gbot/runs`` or ``$GBOT_RUNS``):

  prepare     convert the shared gnubg2ply CSV parts into train/val/held-out ``.npz`` sets
  td          TD(lambda) self-play bootstrap in numba (a starting point for the contact net)
  selfplay    positions from our own play with exploration (for labelling)
  label       label positions with gnubg-nn at 0/1/2 ply (training time only; resumable)
  teacher     label the close decisions of self-play with a deeper teacher (gnubg-nn 1/2-ply,
              or gbot's own n-ply search: the iterated target)
  rollout     label positions by gbot's own rollouts

selfplay, label, teacher and rollout run on every core by default (``--workers``), or on Ray
(``--backend ray``, ``--ray-address`` for a cluster).
  replies     every reply to every roll of positions from play, valued by the networks: the
              training set of a pruning network
  blend       mix a labelled folder's values with gnubg-nn 0-ply (0.3 x 0-ply + 0.7 x 1-ply
              is closer to 2-ply than 1-ply alone)
  supervised  fit contact/crashed/race networks on labelled sets, export the ``.npz`` weights
  ensemble    combine weights files into one (hidden units side by side, logits averaged)
  widen       grow networks with fresh hidden units (same outputs) before a fine-tune

Run as ``gbot train STAGE`` or ``python3 scripts/train.py STAGE`` from the repository root
(the shared gnubg2ply data is read from ``../shared``). Typical run (the shipped weights; see
gbot/weights/README.md for the exact commands):

  python3 scripts/train.py prepare
  python3 scripts/train.py supervised --data runs/data/g2_train.npz --out gbot/weights/nets.npz
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import numpy as np

from gbot.analysis.backends import BACKENDS, default_workers
from gbot.analysis.rollout import ROLLOUT_PLIES

if TYPE_CHECKING:
    from gbot.eval.net import Networks

ROOT = Path.cwd()

SHARED = ROOT.parent / "shared" / "data" / "gnubg2ply"
RUNS = Path(os.environ.get("GBOT_RUNS", Path.home() / ".cache" / "gbot" / "runs"))
CLASSES = ("any", "contact", "crashed", "race")
"""Position classes a stage can keep (``any``, or the classes one network evaluates)."""


def _require_torch(stage: str) -> None:
    """Stop with a one-line error when torch is missing (it comes with the train extra)."""
    import importlib.util

    try:
        found = importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise click.ClickException(
            f"gbot train {stage} needs torch, which is not installed: "
            "pip install 'gbot[train]' (the train extra)")


def _check_npz(path: Path, option: str, keys: tuple[str, ...] = ("boards", "probs")) -> None:
    """``path`` must be a readable ``.npz`` file holding ``keys``, else a one-line error."""
    if not path.exists():
        raise click.ClickException(f"{option} {str(path)!r}: no such file")
    if path.is_dir():
        raise click.ClickException(f"{option} {str(path)!r} is a folder, not an .npz file")
    try:
        with np.load(path) as z:
            files = set(z.files)
    except (OSError, ValueError, EOFError, AttributeError) as exc:
        raise click.ClickException(
            f"{option} {str(path)!r} is not an .npz data file ({exc})") from None
    missing = [k for k in keys if k not in files]
    if missing:
        raise click.ClickException(f"{option} {str(path)!r} holds no {', '.join(missing)} "
                                   f"(it has {', '.join(sorted(files)) or 'nothing'})")


def _check_folder(path: Path, option: str, pattern: str, what: str) -> None:
    """``path`` must be a folder with files matching ``pattern``, else a one-line error."""
    if not path.is_dir():
        raise click.ClickException(f"{option} {str(path)!r}: no such folder")
    if not any(p for p in path.glob(pattern) if ".tmp" not in p.name):
        raise click.ClickException(f"{option} {str(path)!r} holds no {what} ({pattern})")


def _is_rollout_folder(path: Path) -> bool:
    """Whether ``path`` is a ``gbot train rollout`` folder (its labels in ``part-*.npz``)."""
    return path.is_dir() and (path / "settings.json").exists() and any(path.glob("part-*.npz"))


def _check_data(path: Path) -> None:
    """A ``--data`` set: an .npz file, a labelled, rolled-out or selfplay folder."""
    if _is_rollout_folder(path):
        return
    if path.is_dir() and (path / "positions.npz").exists():
        _check_folder(path, "--data", "label-*.npz", "labelled chunks")
    elif path.is_dir():
        _check_folder(path, "--data", "chunk-*.npz", "selfplay chunks")
    else:
        _check_npz(path, "--data")


def _load_data(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(boards, probs, decision groups or None)`` of a ``--data`` set (checked by
    :func:`_check_data`); only teacher folders have decision groups."""
    from gbot.train import data as D
    if _is_rollout_folder(path):
        from gbot.train.rollout_label import load_with_groups as load_rollouts
        return load_rollouts(path)
    if path.is_dir() and (path / "positions.npz").exists():
        from gbot.train.label import load_with_groups
        return load_with_groups(path)
    if path.is_dir():
        from gbot.train.selfplay import load
        return (*D.dedupe(*load(path)), None)
    return (*D.load_npz(path), None)


def _check_weights(path: Path, option: str) -> Networks:
    """The weights file at ``path`` (one gbot can read), else a one-line error."""
    from gbot.errors import GbotError
    from gbot.eval.net import Networks

    try:
        return Networks.load(path)
    except GbotError as exc:
        raise click.ClickException(f"{option}: {exc}") from None


F = TypeVar("F", bound=Callable[..., Any])


def parallel_options(f: F) -> F:
    """``--workers``, ``--backend`` and ``--ray-address``: where a stage's work runs."""
    f = click.option("--ray-address", default=None,
                     help="with --backend ray: the Ray cluster to run on (default: a local "
                          "Ray instance of --workers CPUs)")(f)
    f = click.option("--backend", type=click.Choice(BACKENDS), default="process",
                     show_default=True,
                     help="worker processes on this machine, this process alone, or Ray")(f)
    f = click.option("--workers", default=default_workers, show_default="every core",
                     type=click.IntRange(1, 1024), help="worker processes (or Ray CPUs)")(f)
    return f


def _on_backend(run: Callable[[], None]) -> None:
    """Run a stage, a backend that cannot start (Ray missing or out of reach) a one-line
    error."""
    from gbot.errors import BackendError
    try:
        run()
    except BackendError as exc:
        raise click.ClickException(str(exc)) from None


def _log_to(path: Path):  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a", encoding="utf-8")

    def log(msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        click.echo(line)
        fh.write(line + "\n")
        fh.flush()
    return log


@click.group(name="train")
def cli() -> None:
    """Training pipeline for gbot's networks (stages: prepare, td, selfplay, label,
    teacher, supervised); run from a checkout beside ../shared, outputs under
    ~/.cache/gbot/runs ($GBOT_RUNS)."""


@cli.command()
@click.option("--src", type=click.Path(path_type=Path), default=SHARED, show_default=True)
@click.option("--dst", type=click.Path(path_type=Path), default=RUNS / "data", show_default=True)
def prepare(src: Path, dst: Path) -> None:
    """gnubg2ply parts 000-017 -> train, 018 -> val, 019 -> held-out (never trained on)."""
    from gbot.train import data as D
    parts = D.gnubg2ply_parts(src)
    if len(parts) < 20:
        raise click.ClickException(f"expected 20 gnubg2ply parts in {src}, found {len(parts)}")
    dst.mkdir(parents=True, exist_ok=True)
    for name, sel in (("g2_train", parts[:18]), ("g2_val", parts[18:19]),
                      ("g2_heldout", parts[19:])):
        b, p = D.read_csv(sel)
        D.save_npz(dst / f"{name}.npz", b, p)
        click.echo(f"{name}: {b.shape[0]} positions")


@cli.command()
@click.option("--games", default=20000, show_default=True)
@click.option("--hidden", default=128, show_default=True)
@click.option("--seed", default=11, show_default=True)
@click.option("--alpha", default=0.1, show_default=True)
@click.option("--lam", default=0.7, show_default=True)
@click.option("--eps", default=0.02, show_default=True, help="share of random moves")
@click.option("--checkpoint", type=click.Path(path_type=Path), default=RUNS / "td" / "td.npz",
              show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=RUNS / "td" / "nets_td.npz",
              show_default=True)
def td(games: int, hidden: int, seed: int, alpha: float, lam: float, eps: float,
       checkpoint: Path, out: Path) -> None:
    """TD(lambda) self-play bootstrap (numba); resumable from its checkpoint."""
    from gbot.train import td as T
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    nets = T.run(checkpoint, games, hidden, seed, alpha, lam, eps,
                 log=_log_to(checkpoint.parent / "log.txt"))
    nets.save(out)
    click.echo(f"wrote {out}")


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=RUNS / "selfplay" / "g0",
              show_default=True)
@click.option("--games", default=4000, show_default=True)
@click.option("--seed", default=7, show_default=True)
@click.option("--policy", type=click.Choice(["gnubg", "gbot", "versus"]), default="gnubg",
              show_default=True, help="who picks the plays: gnubg-nn 0-ply, gbot's networks, "
              "or the two against each other (gbot first in even games)")
@click.option("--eps", default=0.1, show_default=True, help="share of random plays")
@click.option("--chunk-games", default=200, show_default=True)
@click.option("--weights", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None)
@click.option("--starts", type=click.Path(path_type=Path, exists=True), default=None,
              help="start the games from these boards (a --data set) instead of the opening")
@click.option("--starts-class", type=click.Choice(CLASSES),
              default="any", show_default=True, help="keep only --starts boards of this class")
@click.option("--disagreements", is_flag=True,
              help="write only the rolls where gbot's networks and gnubg-nn 0-ply pick "
                   "different plays")
@parallel_options
def selfplay(out: Path, games: int, seed: int, policy: str, eps: float, chunk_games: int,
             weights: Path | None, starts: Path | None, starts_class: str,
             disagreements: bool, workers: int, backend: str, ray_address: str | None) -> None:
    """Play games and label every candidate of every roll with gnubg-nn 0-ply."""
    from gbot.train import selfplay as S
    if weights is not None:
        _check_weights(weights, "--weights")
    boards = None
    if starts is not None:
        from gbot.core import classify as C
        _check_data(starts)
        boards = _load_data(starts)[0]
        if starts_class != "any":
            boards = boards[C.classify_many(boards) == C.NAMES.index(starts_class)]
        if boards.shape[0] == 0:
            raise click.UsageError(f"--starts {str(starts)!r} holds no {starts_class} boards")
    _on_backend(lambda: S.run(out, games, seed, policy, eps, chunk_games, weights,
                              log=_log_to(out / "log.txt"), starts=boards,
                              disagreements=disagreements, workers=workers, backend=backend,
                              address=ray_address))


@cli.command()
@click.option("--src", type=click.Path(path_type=Path), required=True,
              help="a selfplay folder (positions to choose from)")
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--plies", default=1, show_default=True)
@click.option("--limit", default=300000, show_default=True, help="positions to label")
@click.option("--played-share", default=0.5, show_default=True,
              help="share of positions taken from played moves (the rest: other candidates)")
@click.option("--seed", default=3, show_default=True)
@parallel_options
def label(src: Path, out: Path, plies: int, limit: int, played_share: float,
          seed: int, workers: int, backend: str, ray_address: str | None) -> None:
    """Label positions from our own play with gnubg-nn at --plies (resumable)."""
    from gbot.train import label as L
    from gbot.train import selfplay as S
    from gbot.train import teacher as T
    if not (out / "positions.npz").exists():
        _check_folder(src, "--src", "chunk-*.npz", "selfplay chunks")
    log = _log_to(out / "log.txt")
    if not (out / "positions.npz").exists():
        bp, _ = S.load(src, played_only=True)
        ba, _ = S.load(src)
        rng = np.random.default_rng(seed)
        n_p = min(bp.shape[0], int(limit * played_share))
        pick = np.concatenate([bp[rng.permutation(bp.shape[0])[:n_p]],
                               ba[rng.permutation(ba.shape[0])[:limit - n_p]]])
        n = L.prepare(out, pick, limit, seed)
        log(f"chose {n} positions from {src}")
    _on_backend(lambda: T.run(out, "gnubg-nn", plies, workers=workers, log=log,
                              backend=backend, address=ray_address))


@cli.command()
@click.option("--src", type=click.Path(path_type=Path), required=True,
              help="a selfplay folder (its played positions are the ones answered) or a data "
                   "set .npz (its boards)")
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--rows", default=3_000_000, show_default=True, help="replies to keep (about)")
@click.option("--weights", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="the networks to stand in for (default: shipped)")
@click.option("--seed", default=9, show_default=True)
def replies(src: Path, out: Path, rows: int, weights: Path | None, seed: int) -> None:
    """Every reply to every roll of positions from play, valued by the networks: the training
    set of a pruning network (groups by roll, for the rank term)."""
    from gbot.eval.net import Networks
    from gbot.train import replies as RP
    from gbot.train import selfplay as S
    if (out / "positions.npz").exists():
        click.echo(f"{out} is complete")
        return
    if src.suffix == ".npz":
        _check_npz(src, "--src", ("boards",))
        with np.load(src) as z:
            positions = np.asarray(z["boards"], dtype=np.int8)
    else:
        _check_folder(src, "--src", "chunk-*.npz", "selfplay chunks")
        positions, _ = S.load(src, played_only=True)    # seen by the side about to roll
    nets = Networks.default() if weights is None else _check_weights(weights, "--weights")
    RP.build(out, positions, nets, rows, seed, log=_log_to(out / "log.txt"))


@cli.command()
@click.option("--data", "data_paths", multiple=True, type=click.Path(path_type=Path),
              default=[RUNS / "data" / "g2_train.npz"], show_default=True,
              help="a training set (repeatable): an .npz with boards and probs, or a selfplay, "
                   "label, teacher or rollout folder")
@click.option("--weight", "data_weights", multiple=True, type=float,
              help="repeat count per --data set (default 1 each)")
@click.option("--value-weight", "value_weights", multiple=True, type=click.FloatRange(0.0),
              help="weight of each --data set's rows in the value loss (default 1 each; 0: "
                   "the set teaches only through the rank term, its groups' differences)")
@click.option("--val", type=click.Path(path_type=Path), default=RUNS / "data" / "g2_val.npz",
              show_default=True)
@click.option("--hidden", default=128, show_default=True)
@click.option("--epochs", default=60, show_default=True)
@click.option("--activation", default="sigmoid", show_default=True)
@click.option("--seed", default=1, show_default=True)
@click.option("--init", type=click.Path(path_type=Path), default=None,
              help="start from these weights (.npz)")
@click.option("--lr", default=2e-3, show_default=True, help="initial learning rate")
@click.option("--lr-final", default=5e-5, show_default=True,
              help="learning rate at the end (exponential decay)")
@click.option("--rank-weight", default=0.0, show_default=True,
              help="weight of the rank term (equity errors relative to the decision's mean) "
                   "on data sets with decision groups (teacher folders)")
@click.option("--equity-weight", default=0.25, show_default=True, type=click.FloatRange(0.0),
              help="weight of the squared money-equity error beside the probabilities' MSE")
@click.option("--only", "only", multiple=True,
              type=click.Choice(["contact", "crashed", "race"]),
              help="fit just this network (repeatable); the others are --init's")
@click.option("--finetune", is_flag=True,
              help="continue every network (crashed too) from --init instead of refitting")
@click.option("--race-bearoff/--no-race-bearoff", default=True, show_default=True,
              help="fit the race network on bear-off positions too (in play the exact "
                   "bear-off tables value them)")
@click.option("--raw-inputs", is_flag=True,
              help="read the raw board inputs only, no hand-made features (pruning networks: "
                   "the forward pass then skips the features)")
@click.option("--workdir", type=click.Path(path_type=Path), default=RUNS / "supervised",
              show_default=True, help="checkpoints (resume by rerunning the same command)")
@click.option("--out", type=click.Path(path_type=Path), default=RUNS / "nets.npz",
              show_default=True)
def supervised(data_paths: tuple[Path, ...], data_weights: tuple[float, ...],
               value_weights: tuple[float, ...], val: Path, hidden: int, epochs: int,
               activation: str, seed: int, init: Path | None,
               lr: float, lr_final: float, rank_weight: float, equity_weight: float,
               only: tuple[str, ...], finetune: bool, race_bearoff: bool, raw_inputs: bool,
               workdir: Path, out: Path) -> None:
    """Fit the three networks and write the weights file."""
    from gbot.train import data as D
    from gbot.train.supervised import default_configs, train_networks
    for path in data_paths:
        _check_data(path)
    _check_npz(val, "--val")
    init_nets = None if init is None else _check_weights(init, "--init")
    if init_nets is not None:
        if init_nets.hidden != hidden:
            raise click.UsageError(f"--init has {init_nets.hidden} hidden units and --hidden "
                                   f"asks {hidden}: grow the networks first with "
                                   f"`gbot train widen`")
    elif only:
        raise click.UsageError("--only needs --init (the weights of the other networks)")
    weights = list(data_weights) or [1.0] * len(data_paths)
    values = list(value_weights) or [1.0] * len(data_paths)
    for option, given in (("--weight", weights), ("--value-weight", values)):
        if len(given) != len(data_paths):
            raise click.UsageError(f"give {option} once per --data set ({len(data_paths)}), "
                                   f"or not at all")
    if rank_weight <= 0 and min(values) == 0:
        raise click.UsageError("--value-weight 0 leaves a set only the rank term, and "
                               "--rank-weight is 0")
    _require_torch("supervised")
    log = _log_to(workdir / "log.txt")
    boards, probs, groups = [], [], []
    copy_values: list[float] = []     # the value-loss weight of each copy in boards
    next_group = 0
    for path, w, v in zip(data_paths, weights, values, strict=True):
        b, p, g = _load_data(path)
        reps = max(1, int(round(w)))
        log(f"data {path}: {b.shape[0]} positions x{reps}"
            + ("" if g is None else f", {np.unique(g).shape[0]} decisions")
            + ("" if v == 1.0 else f", value weight {v}"))
        boards += [b] * reps
        probs += [p] * reps
        copy_values += [v] * reps
        if rank_weight > 0:     # each copy its own groups; rows without one stand alone
            local = np.arange(b.shape[0], dtype=np.int64) if g is None else g - g.min()
            for _ in range(reps):
                groups.append(next_group + local)
                next_group += int(local.max()) + 1 if local.size else 0
    vb, vp = D.load_npz(val)
    configs = default_configs(hidden, epochs, seed, activation, lr=lr, lr_final=lr_final,
                              rank_weight=rank_weight, equity_weight=equity_weight,
                              raw_inputs=raw_inputs)
    nets, report = train_networks(np.concatenate(boards), np.concatenate(probs), vb, vp,
                                  configs, workdir,
                                  init=init_nets,
                                  finetune=finetune, log=log, only=only,
                                  groups=np.concatenate(groups) if rank_weight > 0 else None,
                                  race_bearoff=race_bearoff,
                                  sample_weight=None if all(v == 1.0 for v in values)
                                  else np.repeat(np.asarray(copy_values, dtype=np.float32),
                                                 [b.shape[0] for b in boards]))
    nets.save(out, trained={"data": [str(p) for p in data_paths], "weights": weights,
                            "value_weights": values,
                            "val": str(val), "hidden": hidden, "epochs": epochs,
                            "seed": seed, "lr": [lr, lr_final], "finetune": finetune,
                            "only": list(only), "rank_weight": rank_weight,
                            "race_bearoff": race_bearoff, "raw_inputs": raw_inputs,
                            "init": str(init) if init else None,
                            "report": report})
    log(f"wrote {out}: {json.dumps(report)}")


def _choose_close(src: list[Path], out: Path, margin: float, only_class: str, limit: int,
                  seed: int, log: Callable[[str], None]) -> None:
    """Write ``out/positions.npz``: up to ``limit`` of the close candidates (within
    ``margin`` of each turn's best, of ``only_class``) of the selfplay folders ``src``, with
    their decision groups."""
    from gbot.train import teacher as T
    boards, played, groups = T.close_candidate_groups(src, margin, only_class)
    kind = "" if only_class == "any" else f"{only_class} "
    if boards.shape[0] == 0:
        raise click.UsageError(f"--src holds no close {kind}candidates")
    n = T.prepare(out, boards, limit, seed, groups)
    log(f"chose {n} {kind}positions ({int(played.sum())} played, margin {margin}) from "
        f"{', '.join(map(str, src))}")


@cli.command()
@click.option("--src", "src", multiple=True, required=True,
              type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="selfplay folders (positions from play with their 0-ply values)")
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--teacher", "teacher_name", type=click.Choice(["gnubg-nn", "gbot", "bgsage"]),
              default="gnubg-nn", show_default=True)
@click.option("--plies", default=1, show_default=True, type=click.IntRange(0, 3))
@click.option("--margin", default=0.08, show_default=True,
              help="keep candidates within this 0-ply equity of each turn's best")
@click.option("--limit", default=2_000_000, show_default=True, help="positions to label")
@click.option("--weights", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="gbot teacher: networks to search with (default: shipped)")
@click.option("--seed", default=5, show_default=True)
@click.option("--class", "only_class", type=click.Choice(CLASSES),
              default="any", show_default=True,
              help="keep only candidates of this class (the network they train)")
@parallel_options
def teacher(src: tuple[Path, ...], out: Path, teacher_name: str, plies: int, margin: float,
            limit: int, weights: Path | None, seed: int, only_class: str, workers: int,
            backend: str, ray_address: str | None) -> None:
    """Label close decisions from play with a deeper teacher (resumable, parallel)."""
    from gbot.train import teacher as T
    log = _log_to(out / "log.txt")
    if not (out / "positions.npz").exists():
        _choose_close(list(src), out, margin, only_class, limit, seed, log)
    _on_backend(lambda: T.run(out, teacher_name, plies, workers=workers, weights=weights,
                              log=log, backend=backend, address=ray_address))


@cli.command(name="replygroups")
@click.option("--src", "src", multiple=True, required=True,
              type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="selfplay folders (positions from play with their 0-ply values)")
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--decisions", default=60_000, show_default=True, type=click.IntRange(1),
              help="close decisions to answer (each candidate's reply to each roll)")
@click.option("--margin", default=0.08, show_default=True,
              help="keep candidates within this 0-ply equity of each turn's best")
@click.option("--class", "only_class", type=click.Choice(CLASSES), default="contact",
              show_default=True, help="the class of the candidates and replies kept")
@click.option("--teacher", "teacher_name", type=click.Choice(["gnubg-nn", "gbot", "bgsage"]),
              default="gnubg-nn", show_default=True, help="labels the replies")
@click.option("--plies", default=0, show_default=True, type=click.IntRange(0, 3))
@click.option("--weights", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="gbot's networks: pick the replies and label the candidates "
                                 "(default: shipped)")
@click.option("--seed", default=5, show_default=True)
@parallel_options
def replygroups(src: tuple[Path, ...], out: Path, decisions: int, margin: float,
                only_class: str, teacher_name: str, plies: int, weights: Path | None,
                seed: int, workers: int, backend: str, ray_address: str | None) -> None:
    """Rank groups of replied positions (OUT/replies, by the teacher) beside their
    candidates (OUT/cands, by gbot 0-ply): the data that trains a network's odd plies
    (resumable, parallel)."""
    from gbot.eval.evaluator import Evaluator
    from gbot.train import replygroups as RG
    from gbot.train import teacher as T
    for folder in src:
        _check_folder(folder, "--src", "chunk-*.npz", "selfplay chunks")
    nets = None if weights is None else _check_weights(weights, "--weights")
    log = _log_to(out / "log.txt")
    try:
        RG.build(out, list(src), margin, decisions, seed, Evaluator(networks=nets),
                 only_class, log)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    _on_backend(lambda: T.run(out / RG.REPLIES, teacher_name, plies, workers=workers,
                              log=log, backend=backend, address=ray_address))
    _on_backend(lambda: T.run(out / RG.CANDIDATES, "gbot", 0, workers=workers,
                              weights=weights, log=log, backend=backend, address=ray_address))


@cli.command(name="blend")
@click.option("--src", type=click.Path(path_type=Path, exists=True, file_okay=False),
              required=True, help="a labelled folder (teacher or label stage)")
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--share", default=0.3, show_default=True, type=click.FloatRange(0.0, 1.0),
              help="share of the other labels (gnubg-nn's 0-ply, or --with's) in the new ones")
@click.option("--with", "other", type=click.Path(path_type=Path, exists=True, file_okay=False),
              default=None, help="blend with this labelled folder of the same positions (for "
                                 "example another teacher's) instead of gnubg-nn 0-ply")
def blend_stage(src: Path, out: Path, share: float, other: Path | None) -> None:
    """Blend a labelled folder's probabilities with gnubg-nn 0-ply or another folder's
    (resumable)."""
    from gbot.train import blend as B
    log = _log_to(out / "log.txt")
    try:
        n = B.run(src, out, share, log=log, other=other)
    except (FileNotFoundError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    log(f"blended {n} chunks of {src} with {share} of "
        f"{'gnubg-nn 0-ply' if other is None else other} into {out}")


@cli.command(name="ensemble")
@click.argument("members", nargs=-1, required=True,
                type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--net", "names", multiple=True, default=("contact",), show_default=True,
              type=click.Choice(["contact", "crashed", "race"]),
              help="networks to combine (repeatable); the others are the first member's")
def ensemble_stage(members: tuple[Path, ...], out: Path, names: tuple[str, ...]) -> None:
    """Combine weights files into one: each --net's hidden units side by side, output logits
    averaged (one network, k x hidden units)."""
    from gbot.train.ensemble import combine
    sets = [_check_weights(path, f"member {i + 1}") for i, path in enumerate(members)]
    try:
        nets = combine(sets, names)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    nets.save(out, members=[p.name for p in members])
    click.echo(f"wrote {out}: {', '.join(names)} of {len(members)} members, "
               f"{nets.hidden} hidden units")


@cli.command(name="widen")
@click.argument("weights", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--hidden", required=True, type=click.IntRange(8, 4096),
              help="hidden units of the widened networks (a multiple of 8)")
@click.option("--net", "names", multiple=True, default=("contact",), show_default=True,
              type=click.Choice(["contact", "crashed", "race"]),
              help="networks that get fresh units (repeatable); the others are zero-padded")
@click.option("--seed", default=1, show_default=True, type=int)
def widen_stage(weights: Path, out: Path, hidden: int, names: tuple[str, ...],
                seed: int) -> None:
    """Grow networks to --hidden units: fresh units with zero output weights (the same
    outputs), to fine-tune with `supervised --finetune --hidden`."""
    from gbot.errors import GbotError
    from gbot.train.ensemble import widen
    nets = _check_weights(weights, "WEIGHTS")
    try:
        grown = widen(nets, hidden, seed, names)
    except (ValueError, GbotError) as e:
        raise click.ClickException(str(e)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    grown.save(out, widened_from=weights.name)
    click.echo(f"wrote {out}: {', '.join(names)} widened to {grown.hidden} hidden units")


@cli.command(name="rollout")
@click.option("--src", type=click.Path(path_type=Path, exists=True), required=True,
              help="a .npz set with boards, a folder with positions.npz, or a selfplay "
                   "folder (its close candidates: --margin, --class)")
@click.option("--margin", default=0.08, show_default=True,
              help="selfplay --src: keep candidates within this 0-ply equity of each turn's "
                   "best")
@click.option("--class", "only_class", type=click.Choice(CLASSES), default="any",
              show_default=True, help="selfplay --src: keep only candidates of this class")
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--trials", default=36, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--truncate", default=0, show_default=True, type=click.IntRange(0, 10_000),
              help="plies before a game is valued at 0-ply (0: play to the end)")
@click.option("--limit", default=100_000, show_default=True, help="positions to label")
@click.option("--seed", default=1, show_default=True)
@click.option("--checker-ply", type=click.IntRange(0, max(ROLLOUT_PLIES)), default=0,
              show_default=True, help="ply of the checker plays inside the rollouts")
@parallel_options
def rollout_stage(src: Path, out: Path, margin: float, only_class: str, trials: int,
                  truncate: int, limit: int, seed: int, checker_ply: int, workers: int,
                  backend: str, ray_address: str | None) -> None:
    """Label positions by gbot's own rollouts (cubeless, luck cancelled; resumable)."""
    from gbot.analysis.rollout import RolloutError
    from gbot.train import rollout_label as R
    log = _log_to(out / "log.txt")
    if not (out / "positions.npz").exists():
        if src.is_dir() and not (src / "positions.npz").exists():
            _check_folder(src, "--src", "chunk-*.npz", "selfplay chunks")
            _choose_close([src], out, margin, only_class, limit, seed, log)
        else:
            n = R.prepare(src, out, limit, seed)
            log(f"chose {n} positions from {src}")
    try:
        R.run(out, trials, truncate, seed, workers, log=log, checker_ply=checker_ply,
              backend=backend, address=ray_address)
    except RolloutError as e:
        raise click.ClickException(str(e)) from None


if __name__ == "__main__":
    cli()
