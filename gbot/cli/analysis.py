"""The ``gbot rollout`` and ``gbot analyse`` commands."""

from __future__ import annotations

import json
import sys
import time
import warnings
from dataclasses import replace
from typing import Any

import click

from gbot.analysis.backends import BACKENDS
from gbot.cli.hint_text import SE_NOTE
from gbot.cli.tools import _POSITION_HELP, PositionCommand, parse_dice, read_position
from gbot.errors import GbotError

__all__ = ["COMMANDS"]


class _Bar:
    """A ``progress(done, total)`` callback drawn as a bar on stderr
    (:mod:`gbot.analysis.progress`)."""

    def __init__(self, label: str, unit: str) -> None:
        self.label = label
        self.unit = unit
        self.start = time.monotonic()
        self.wall = time.time()
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        from gbot.analysis.progress import progress_bar

        if total <= 0:
            return
        if self.bar is None:
            self.bar = progress_bar(total, self.label, self.unit)
            self.bar.start_t = self.wall        # the work began before the first report
        self.bar.total = total
        if done >= total:
            self.bar.n = done
            self.close()
        elif done > self.bar.n:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        """End the bar (its last state stays on screen)."""
        if self.bar is not None:
            self.bar.close()


def _probs_cols(p: tuple[float, ...]) -> str:
    win, wg, wbg, lg, lbg = p
    return f"{win:.3f} {wg:.3f} {wbg:.3f}  {1 - win:.3f} {lg:.3f} {lbg:.3f}"


def _result_json(r: Any) -> dict[str, Any]:
    return {"equity": r.equity, "equity_se": r.equity_se, "probabilities": list(r.probabilities),
            "std_errors": list(r.std_errors), "trials": r.trials, "cubeful": r.cubeful,
            "cubeful_se": r.cubeful_se, "mwc": r.mwc, "mwc_se": r.mwc_se}


@click.command(cls=PositionCommand, epilog=_POSITION_HELP)
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--trials", type=click.IntRange(1, 10_000_000), default=1296, show_default=True,
              help="Games rolled out per candidate play (or per cube decision).")
@click.option("--truncate", type=click.IntRange(0, 10_000), default=0, show_default=True,
              help="Stop each game after this many plies (0: play to the end).")
@click.option("--vr/--no-vr", "vr", default=True, show_default=True,
              help="Variance reduction (luck cancellation; cubeless and cubeful figures).")
@click.option("--quasi/--no-quasi", default=True, show_default=True,
              help="Quasi-random dice: the first two rolls stratified over whole blocks of "
                   "36 trials (the trials beyond them take independent dice).")
@click.option("--bearoff-stop/--no-bearoff-stop", default=True, show_default=True,
              help="Stop exactly at a two-sided bear-off.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=1, show_default=True,
              help="Seed of the dice.")
@click.option("--min-se", type=float, default=0.0, show_default=True,
              help="Stop once the equity's standard error is below this.")
@click.option("--candidates", "-n", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Plays to roll out (the best at --ply).")
@click.option("--ply", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Look-ahead that picks the candidates.")
@click.option("--checker-ply", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Ply of the checker plays inside the rollout (1 or 2: the evaluator's "
                   "choice at that ply among the best 0-ply candidates; much slower).")
@click.option("--cube-ply", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Ply of the probabilities the cube decisions inside the rollout use.")
@click.option("--cubeless", is_flag=True, help="Plays: cubeless figures only.")
@click.option("--workers", type=click.IntRange(1, 1024), default=1, show_default=True,
              help="Processes (or ray tasks) sharing the trials.")
@click.option("--backend", type=click.Choice(BACKENDS), default="process",
              show_default=True, help="Where the trials run; ray needs the optional ray "
              "package.")
@click.option("--ray-address", default=None, help="Ray cluster address (with --backend ray).")
@click.option("--checkpoint", type=click.Path(file_okay=False), default=None,
              help="Keep finished trials here; the same command resumes from them.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rollout(position: str, dice: str | None, match_id: str | None, trials: int, truncate: int,
            vr: bool, quasi: bool, bearoff_stop: bool, seed: int, min_se: float,
            candidates: int, ply: int, checker_ply: int, cube_ply: int, cubeless: bool,
            workers: int, backend: str, ray_address: str | None, checkpoint: str | None,
            as_json: bool) -> None:
    """Roll out POSITION: every candidate play of DICE (two digits 1-6, e.g. 65; the dice
    POSITION gives when left out), or the cube decision without dice. Checker plays and cube
    decisions inside the rollout at --checker-ply and --cube-ply (0-ply by default); gbot's
    own play (at --checker-ply) is starred. A progress bar with an ETA goes to stderr."""
    from gbot.analysis.rollout import Rollout, RolloutSettings
    from gbot.engine.engine import Engine

    chosen: Any = None
    try:
        pos, state = read_position(position, match_id)
        roll = parse_dice(dice) or (tuple(state.dice) if state.dice[0] else None)
        settings = RolloutSettings(trials=trials, truncate=truncate, variance_reduction=vr,
                                   quasi_random=quasi, bearoff_stop=bearoff_stop, seed=seed,
                                   min_se=min_se, workers=workers, backend=backend,
                                   ray_address=ray_address, checker_ply=checker_ply,
                                   cube_ply=cube_ply)
        bar = _Bar("rollout", "trial")
        ro = Rollout(settings, checkpoint=checkpoint, progress=bar)
        try:
            if roll is None:
                cube = ro.cube(pos, state)
            else:
                plays = ro.plays(pos, roll, None if cubeless else state,
                                 candidates=candidates, ply=ply)
        finally:
            bar.close()
        if roll is not None:
            engine = Engine(ply=checker_ply, rules=state.rules)
            chosen = engine.choose_play(pos, roll, replace(engine.rules_state(state),
                                                           dice=roll))
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
        click.echo(SE_NOTE)
        return

    def is_chosen(r: Any) -> bool:
        return chosen is not None and r.play.position == chosen.position

    if as_json:
        click.echo(json.dumps({"position": pos.id(), "dice": list(roll), "plays": [
            {"rank": i, "play": r.play.notation, "chosen": is_chosen(r),
             **_result_json(r.result)} for i, r in enumerate(plays, 1)]}, indent=2))
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
        mark = "*" if is_chosen(r) else " "
        click.echo(f" {mark}{i:2d}. {r.play.notation:<24s} {eq:+.3f} {diff:>9s} ± {se:.3f}  "
                   f"{_probs_cols(res.probabilities)}  {res.trials} trials")
    if chosen is not None:
        if any(is_chosen(r) for r in plays):
            click.echo(f"  * gbot's play (at {checker_ply}-ply)")
        else:
            click.echo(f"  gbot's play at {checker_ply}-ply, {chosen.notation or '(no move)'}, "
                       "is not among these")
    if plays:
        click.echo(SE_NOTE)


def _summary_lines(a: Any) -> list[str]:
    from gbot.analysis.report import headline, luck_adjusted_text, summary_rows

    lines = [headline(a), ""]
    rows = [("", a.names[0], a.names[1]), *summary_rows(a)]
    for r in rows:
        lines.append(f"  {r[0]:<32s} {r[1]:>16s} {r[2]:>16s}")
    lines += ["", f"  {luck_adjusted_text(a)}"]
    return lines


def _decision_lines(a: Any, marked_only: bool) -> list[str]:
    out = []
    moves: dict[int, int] = {}
    for d in a.decisions:
        n = moves.get(d.game, 0) + (d.kind == "move")
        moves[d.game] = n
        if marked_only and not d.mark:
            continue
        what = f"{d.dice[0]}{d.dice[1]}" if d.kind == "move" else d.kind
        number = n if d.kind == "move" else n + 1
        out.append(f"  game {d.game + 1:2d} move {number:3d} {a.names[d.player][:10]:<10s} "
                   f"{what:<4s} {d.position_id}:{d.match_id} played {d.played:<22s} "
                   f"best {d.best:<22s} -{d.error:.3f} {d.mark}")
    return out


def _compile_here(workers: int) -> bool:
    """Whether the first game is analysed in this process before ``workers`` processes share
    the rest: while some kernels are not cached, so that they compile once, here."""
    from gbot.cli.warmup import all_cached

    if workers <= 1 or all_cached():
        return False
    click.echo(f"analyse: the first game here (some kernels are not cached yet), then "
               f"{workers} processes share the rest", err=True)
    return True


@click.command(name="analyse")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--ply", type=click.IntRange(0, 3), default=2, show_default=True,
              help="Look-ahead of every evaluation.")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Processes (default: every core).")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None,
              help="Also write an HTML report: the figures, an equity plot, and every "
                   "decision with its board, candidates and cube figures.")
@click.option("--all", "show_all", is_flag=True, help="List every decision, not only marked.")
def analyse(path: str, ply: int, workers: int | None, as_json: bool, html_out: str | None,
            show_all: bool) -> None:
    """Analyse a .mat, .sgf or eXtreme Gammon .xg match file: every checker play and cube
    decision at --ply, errors and marks, per-player error rates (mEMG, MWC) and PR, luck,
    rating. Progress goes to stderr (also with --json)."""
    from pathlib import Path

    from gbot.analysis.analyse import analyse as run
    from gbot.analysis.analyse import read_match
    from gbot.analysis.backends import default_workers
    from gbot.records.matfile import MatchFileWarning

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", MatchFileWarning)
            record = read_match(path)
        for w in caught:
            if isinstance(w.message, MatchFileWarning):
                click.echo(f"warning: {path}:{w.message.line}: {w.message.text}", err=True)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        procs = min(workers or default_workers(), max(len(record.games), 1))
        actions = sum(len(g.actions) for g in record.games)
        click.echo(f"analyse: {Path(path).name}, {len(record.games)} games, {actions} actions, "
                   f"at {ply}-ply on {procs} process{'es' if procs > 1 else ''}", err=True)
        first_here = _compile_here(procs)
        bar = _Bar("analyse", "game")
        bar(0, len(record.games))
        try:
            a = run(record, ply, workers=procs, progress=bar, first_here=first_here)
        finally:
            bar.close()
        if not sys.stderr.isatty():
            click.echo(f"analyse: done in {time.monotonic() - bar.start:.0f} s", err=True)
    except (GbotError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if html_out:
        from gbot.analysis.report import html_report

        try:
            with open(html_out, "w", encoding="utf-8") as fh:
                fh.write(html_report(a, source=Path(path).name))
        except OSError as exc:
            raise click.ClickException(f"cannot write {html_out}: {exc}") from None
    if as_json:
        click.echo(json.dumps(a.to_json(), indent=1))
        return
    for line in _summary_lines(a):
        click.echo(line)
    lines = _decision_lines(a, not show_all)
    if lines:
        click.echo("")
        click.echo("decisions" + ("" if show_all else " marked doubtful or worse") + ":")
        for line in lines:
            click.echo(line)


COMMANDS = [rollout, analyse]
