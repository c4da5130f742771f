"""The ``gbot rollout`` and ``gbot analyse`` commands."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from gbot.errors import GbotError

__all__ = ["COMMANDS"]


class _Bar:
    """A one-line progress bar with ETA on stderr (silent when stderr is not a terminal
    unless ``force``)."""

    def __init__(self, label: str, force: bool = False) -> None:
        self.label = label
        self.start = time.monotonic()
        self.show = force or sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.show or total <= 0:
            return
        el = time.monotonic() - self.start
        eta = el / done * (total - done) if done else 0.0
        frac = min(1.0, done / total)
        bar = "#" * int(24 * frac)
        sys.stderr.write(f"\r{self.label} [{bar:<24s}] {done}/{total} {100 * frac:5.1f}% "
                         f"ETA {int(eta) // 60:d}:{int(eta) % 60:02d} ")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _parse_dice(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise click.BadParameter(f"dice must be two digits 1-6, e.g. 65: {text!r}")
    return int(digits[0]), int(digits[1])


def _probs_cols(p: tuple[float, ...]) -> str:
    win, wg, wbg, lg, lbg = p
    return f"{win:.3f} {wg:.3f} {wbg:.3f}  {1 - win:.3f} {lg:.3f} {lbg:.3f}"


def _result_json(r: Any) -> dict[str, Any]:
    return {"equity": r.equity, "equity_se": r.equity_se, "probabilities": list(r.probabilities),
            "std_errors": list(r.std_errors), "trials": r.trials, "cubeful": r.cubeful,
            "cubeful_se": r.cubeful_se, "mwc": r.mwc, "mwc_se": r.mwc_se}


@click.command()
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--trials", type=click.IntRange(1, 10_000_000), default=1296, show_default=True)
@click.option("--truncate", type=click.IntRange(0, 10_000), default=0, show_default=True,
              help="Stop each game after this many plies (0: play to the end).")
@click.option("--vr/--no-vr", "vr", default=True, show_default=True,
              help="Variance reduction (luck cancellation; cubeless figures).")
@click.option("--quasi/--no-quasi", default=True, show_default=True,
              help="Quasi-random dice for the first two rolls.")
@click.option("--bearoff-stop/--no-bearoff-stop", default=True, show_default=True,
              help="Stop exactly at a two-sided bear-off.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=1, show_default=True)
@click.option("--min-se", type=float, default=0.0, show_default=True,
              help="Stop once the equity's standard error is below this.")
@click.option("--candidates", "-n", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Plays to roll out (the best at --ply).")
@click.option("--ply", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Look-ahead that picks the candidates.")
@click.option("--cubeless", is_flag=True, help="Plays: cubeless figures only.")
@click.option("--workers", type=click.IntRange(1, 1024), default=1, show_default=True)
@click.option("--backend", type=click.Choice(["process", "ray"]), default="process",
              show_default=True)
@click.option("--ray-address", default=None, help="Ray cluster address (with --backend ray).")
@click.option("--checkpoint", type=click.Path(file_okay=False), default=None,
              help="Keep finished trials here; the same command resumes from them.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rollout(position: str, dice: str | None, match_id: str | None, trials: int, truncate: int,
            vr: bool, quasi: bool, bearoff_stop: bool, seed: int, min_se: float,
            candidates: int, ply: int, cubeless: bool, workers: int, backend: str,
            ray_address: str | None, checkpoint: str | None, as_json: bool) -> None:
    """Roll out POSITION (Position ID, PID:MID or XGID): every candidate play of DICE, or the
    cube decision without dice. 0-ply checker play and cube decisions inside the rollout."""
    from gbot.cli_tools import read_position
    from gbot.rollout import Rollout, RolloutSettings

    try:
        pos, state = read_position(position, match_id)
        roll = _parse_dice(dice) or (tuple(state.dice) if state.dice[0] else None)
        settings = RolloutSettings(trials=trials, truncate=truncate, variance_reduction=vr,
                                   quasi_random=quasi, bearoff_stop=bearoff_stop, seed=seed,
                                   min_se=min_se, workers=workers, backend=backend,
                                   ray_address=ray_address)
        ro = Rollout(settings, checkpoint=checkpoint, progress=_Bar("rollout"))
        if roll is None:
            cube = ro.cube(pos, state)
        else:
            plays = ro.plays(pos, roll, None if cubeless else state, candidates=candidates,
                             ply=ply)
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    money = state.match_length == 0
    unit = "money equity" if money else "EMG"
    if roll is None:
        nd, dt = cube.no_double, cube.double_take
        if as_json:
            click.echo(json.dumps({"position": pos.id(), "action": cube.action,
                                   "response": cube.response, "no_double": _result_json(nd),
                                   "double_take": _result_json(dt),
                                   "double_pass": cube.double_pass}, indent=2))
            return
        click.echo(f"{pos.id()}  cube decision, rolled out ({nd.trials} trials, cubeful "
                   f"{unit})")
        click.echo(f"  cubeless: {_probs_cols(nd.probabilities)}  equity {nd.equity:+.3f} "
                   f"± {nd.equity_se:.3f}")
        click.echo(f"  1. no double     {nd.cubeful:+.3f} ± {nd.cubeful_se:.3f}")
        if cube.can_double:
            click.echo(f"  2. double/take   {dt.cubeful:+.3f} ± {dt.cubeful_se:.3f}")
            click.echo(f"  3. double/pass   {cube.double_pass:+.3f}")
        click.echo(f"  proper cube action: {cube.action.replace('_', ' ')} "
                   f"(opponent: {cube.response})")
        return
    if as_json:
        click.echo(json.dumps({"position": pos.id(), "dice": list(roll), "plays": [
            {"rank": i, "play": r.play.notation, **_result_json(r.result)}
            for i, r in enumerate(plays, 1)]}, indent=2))
        return
    head = "cubeless equity" if cubeless else f"cubeful {unit}"
    click.echo(f"{pos.id()}  {roll[0]}{roll[1]}  rolled out ({head}; win wg wbg  lose lg lbg)")
    if not plays:
        click.echo("  no legal play")
    best = None
    for i, r in enumerate(plays, 1):
        res = r.result
        eq = res.equity if cubeless else res.cubeful
        se = res.equity_se if cubeless else res.cubeful_se
        assert eq is not None and se is not None
        best = eq if best is None else best
        diff = f"({eq - best:+.3f})" if i > 1 else ""
        click.echo(f"  {i:2d}. {r.play.notation:<24s} {eq:+.3f} {diff:>9s} ± {se:.3f}  "
                   f"{_probs_cols(res.probabilities)}  {res.trials} trials")


COMMANDS = [rollout]
