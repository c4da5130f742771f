"""The player's commands of the ``gbot`` CLI: ``hint``, ``eval``, ``show``, ``play`` (from
:mod:`gbot.cli.play`), ``bench``, ``train``."""

from __future__ import annotations

import sys
import time
from dataclasses import fields, replace
from typing import Any

import click

from gbot.cli.depth import MAX_PLY, cube_ply_option
from gbot.cli.hint_text import cube_hint_lines, fmt_probs, pct, play_hint_lines, take_hint_lines
from gbot.cli.rules import rule_options
from gbot.core.movegen import warm
from gbot.engine.engine import PLAY_PLY, Engine
from gbot.engine.hints import (
    action_words,
    cube_hint,
    describe_state,
    play_hints,
    resign_hint,
    take_hint,
)
from gbot.errors import GbotError
from gbot.eval.evaluator import Evaluator
from gbot.game.boardtext import dice_text, draw
from gbot.game.match import GameState, Rules
from gbot.game.position_text import MONEY_DEFAULTS, own_switches, read_situation


class PositionCommand(click.Command):
    """A command whose POSITION may be an XGID without its ``XGID=`` prefix: such an XGID
    starts with ``-`` (an empty point), which click would read as an option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Prefix bare XGIDs with ``XGID=`` before click sees them."""
        fixed = [f"XGID={a}" if a.startswith("-") and a.count(":") == 9 else a for a in args]
        return super().parse_args(ctx, fixed)


def read_position(text: str, match_id: str | None = None, rules: Rules = MONEY_DEFAULTS,
                  forced: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """A Position (seen by the player on roll) and a MatchState from what a gnubg user has at
    hand (:func:`gbot.game.position_text.read_situation`): gnubg's money defaults, an XGID's
    own switches unless ``forced`` names them. A path ending in ``.xgp`` is read as eXtreme
    Gammon's position file (:func:`gbot.records.xg.read_position`), its own Jacoby and beaver
    switches winning unless ``forced`` names them."""
    if text.strip().lower().endswith(".xgp"):
        return _read_xgp(text.strip(), match_id, rules, forced)
    sit = read_situation(text, rules, match_id, forced=forced)
    return sit.position, sit.state


def _read_xgp(path: str, match_id: str | None, rules: Rules,
              forced: tuple[str, ...]) -> tuple[Any, Any]:
    """The position and state of the ``.xgp`` file at ``path`` (see :func:`read_position`)."""
    from gbot.errors import MatchIdError
    from gbot.records.xg import read_position as read_xgp

    if match_id:
        raise MatchIdError("an .xgp file carries its own score and cube; give no Match ID")
    try:
        sit = read_xgp(path)
    except OSError as exc:
        raise GbotError(f"cannot read {path}: {exc.strerror or exc}") from None
    merged = own_switches(rules, sit.state.rules, (f.name for f in fields(Rules)), forced)
    state = replace(sit.state, rules=merged.in_force(sit.state.match_length))
    return sit.position, state


def parse_dice(text: str | None) -> tuple[int, int] | None:
    """Dice typed as two digits 1-6 (``65``, ``6-5``, ``6 5``), or None for no text."""
    if not text:
        return None
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise click.BadParameter(f"dice must be two digits 1-6, e.g. 65: {text!r}")
    return int(digits[0]), int(digits[1])


def _read_unfinished(position: str, match_id: str | None, rules: Rules,
                     forced: tuple[str, ...]) -> tuple[Any, Any] | None:
    """The position and state of a hint request, or None (after saying so) when the game or
    match is already over."""
    pos, state = read_position(position, match_id, rules, forced)
    over = _game_over_line(state) or (
        "the game is over in this position; nothing to decide" if pos.is_over() else None)
    if over:
        click.echo(over)
        return None
    return pos, state


def _roll_of(dice: str | None, state: Any) -> tuple[int, int] | None:
    """The dice to play: given on the command line, else the state's own, else None."""
    return parse_dice(dice) or (tuple(state.dice) if state.dice[0] else None)


def _game_over_line(state: Any) -> str | None:
    gs = state.game_state
    if gs == GameState.PLAYING:
        return None
    words = {GameState.NONE: "no game in progress", GameState.OVER: "the game is over",
             GameState.RESIGNED: "the game ended by resignation",
             GameState.DROPPED: "the game ended: a double was passed"}
    return f"{words.get(gs, 'the game is over')}; nothing to decide"


def _engine(ply: int, state: Any, cube_ply: int | None = None) -> Any:
    return Engine(ply=ply, rules=state.rules, cube_ply=cube_ply)


_POSITION_HELP = ("POSITION: a gnubg Position ID, gnubg's PID:MatchID pair, an XGID (with or "
                  "without XGID=), a FIBS board: line (quote it) or an eXtreme Gammon .xgp "
                  "file.")


@click.command(cls=PositionCommand, epilog=_POSITION_HELP)
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--ply", type=click.IntRange(0, MAX_PLY), default=PLAY_PLY, show_default=True,
              help="Look-ahead (as gbot plays; 0 for speed, 4-ply takes tens of seconds).")
@click.option("-n", "count", type=click.IntRange(1, 100), default=5, show_default=True,
              help="How many plays to list.")
@click.option("--rollout", is_flag=True,
              help="Roll the candidates (or the cube decision) out (gbot.analysis.rollout).")
@click.option("--trials", type=click.IntRange(1, 10_000_000), default=1296, show_default=True,
              help="With --rollout: games per candidate.")
@cube_ply_option
@rule_options("jacoby", "beavers", position=True)
def hint(position: str, dice: str | None, match_id: str | None, ply: int, count: int,
         rollout: bool, trials: int, cube_ply: int | None, rules: Rules,
         forced: tuple[str, ...]) -> None:
    """What gbot would do in POSITION: its plays of DICE ranked as it ranks them, or the cube
    decision (no dice), or the answer to a pending double or resignation."""

    if rollout:
        _rollout_hint(position, dice, match_id, ply, count, trials, rules, forced)
        return
    try:
        read = _read_unfinished(position, match_id, rules, forced)
        if read is None:
            return
        pos, state = read
        engine = _engine(ply, state, cube_ply)
        roll = _roll_of(dice, state)
        if state.resign_offered:
            r = resign_hint(engine, pos, state)
            kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[r.level]
            click.echo(f"resignation of {kind} offered; gbot would "
                       f"{'accept' if r.accept else 'reject'} it")
            return
        if state.double_offered:
            if dice:
                raise GbotError("a double is pending: no dice to play yet")
            for line in take_hint_lines(take_hint(engine, pos, state), state):
                click.echo(line)
            return
        if roll is None:
            for line in cube_hint_lines(cube_hint(engine, pos, state), state):
                click.echo(line)
            return
        st = replace(state, dice=roll)
        hints = play_hints(engine, pos, roll, st, n=count)
        lines = play_hint_lines(hints, roll, st, ply, engine.plays_by_state(st))
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    for line in lines:
        click.echo(line)


def _rollout_hint(position: str, dice: str | None, match_id: str | None, ply: int, count: int,
                  trials: int, rules: Rules, forced: tuple[str, ...]) -> None:
    """``hint --rollout``: the candidates (or the cube decision) rolled out, gbot's play
    marked; ranked by the rollout's cubeful figures."""
    from gbot.analysis.rollout import Rollout, RolloutSettings
    from gbot.cli.hint_text import SE_NOTE

    try:
        read = _read_unfinished(position, match_id, rules, forced)
        if read is None:
            return
        pos, state = read
        if state.double_offered or state.resign_offered:
            raise GbotError("--rollout answers plays and cube decisions, not a pending "
                            "double or resignation (leave --rollout out)")
        roll = _roll_of(dice, state)
        engine = _engine(ply, state)
        st = replace(engine.rules_state(state), dice=roll or (0, 0))
        ro = Rollout(RolloutSettings(trials=trials))
        match = st.match_length > 0
        if roll is None:
            c = ro.cube(pos, replace(st, dice=(0, 0)))
            click.echo(f"cube decision, rolled out ({trials} trials): {describe_state(st)}")
            for name, r in (("No double", c.no_double), ("Double, take", c.double_take)):
                extra = f"  MWC {pct(r.mwc).strip()}" if match and r.mwc is not None else ""
                click.echo(f"  {name:<14s} {r.cubeful:+.3f} ± {r.cubeful_se:.3f}{extra}")
            click.echo(f"  {'Double, pass':<14s} {c.double_pass:+.3f}")
            words = (action_words(c.action, c.response) if c.can_double
                     else "No double possible")
            click.echo(f"  Proper cube action: {words}")
            click.echo(SE_NOTE)
            return
        chosen = engine.choose_play(pos, roll, st)
        rows = ro.plays(pos, roll, st, candidates=count, ply=ply)
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"X to play {dice_text(roll)}, rolled out ({trials} trials per play, "
               f"candidates by {ply}-ply): {describe_state(st)}")
    if not rows:
        click.echo("  no legal play")
        return
    for i, pr in enumerate(rows, 1):
        res = pr.result
        mark = "*" if chosen is not None and pr.play.position == chosen.position else " "
        fig = (f"MWC {pct(res.mwc)} ± {100 * (res.mwc_se or 0):.2f}%  EMG {res.cubeful:+.3f}"
               if match and res.mwc is not None else
               f"cubeful {res.cubeful:+.3f} ± {res.cubeful_se:.3f}")
        click.echo(f"  {mark}{i:3d}  {pr.play.notation or '(no move)':<28s} {fig}  cubeless "
                   f"{res.equity:+.3f} ± {res.equity_se:.3f}")
        click.echo(f"        {fmt_probs(res.probabilities)}")
    click.echo("  * gbot's play")
    click.echo(SE_NOTE)


@click.command(name="eval", cls=PositionCommand, epilog=_POSITION_HELP)
@click.argument("position")
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--ply", type=click.IntRange(0, MAX_PLY), default=PLAY_PLY, show_default=True,
              help="Look-ahead (4-ply takes minutes: the cube look-ahead is not pruned).")
@cube_ply_option
@rule_options("jacoby", "beavers", position=True)
def evaluate(position: str, match_id: str | None, ply: int, cube_ply: int | None,
             rules: Rules, forced: tuple[str, ...]) -> None:
    """Probabilities, cubeless and cubeful equity (money) or MWC and EMG (match) of
    POSITION for the side on roll, before it rolls."""

    try:
        pos, state = read_position(position, match_id, rules, forced)
        if pos.is_over():
            raise GbotError("the game is over in this position; nothing to evaluate")
        engine = _engine(ply, state, cube_ply)
        st = replace(state, player_to_act=state.player_on_roll, double_offered=False,
                     resign_offered=0, dice=(0, 0))
        h = cube_hint(engine, pos, st)
        p = engine.probabilities(pos, ply)
        cubeless_mwc = engine.equity(pos, st, ply, cubeful=False) if st.match_length else None
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    mine, theirs = pos.pip_count()
    cubeless = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
    click.echo(f"{pos.id()}  {ply}-ply: {describe_state(st)}")
    click.echo(f"  pips: X {mine}, O {theirs}")
    click.echo(f"  {ply}-ply        win   gammon  backg.")
    click.echo(f"  X        {p[0]:.3f}   {p[1]:.3f}   {p[2]:.3f}")
    click.echo(f"  O        {1 - p[0]:.3f}   {p[3]:.3f}   {p[4]:.3f}")
    click.echo(f"  cubeless equity  {cubeless:+.3f}  ({ply}-ply)")
    proper = {"no_double": 0, "too_good_take": 0, "too_good_pass": 0, "double_take": 1,
              "double_pass": 2}[h.action]
    eq = 2 * h.equities[1] if h.response == "beaver" and proper == 1 else h.equities[proper]
    if cubeless_mwc is not None and h.mwc is not None:
        click.echo(f"  cubeless MWC     {pct(cubeless_mwc).strip()}  ({ply}-ply)")
        click.echo(f"  cubeful MWC      {pct(h.mwc[proper]).strip()}   EMG {eq:+.3f}"
                   f"  ({h.ply}-ply cube decision)")
    else:
        click.echo(f"  cubeful equity   {eq:+.3f}  ({h.ply}-ply cube decision)")
    click.echo(f"  cube ({h.ply}-ply): {h.words}")


@click.command(cls=PositionCommand, epilog=_POSITION_HELP)
@click.argument("position")
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
def show(position: str, match_id: str | None) -> None:
    """Draw POSITION: the board, pips, borne-off checkers, the score and the cube."""

    try:
        pos, state = read_position(position, match_id)
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    dice = tuple(state.dice) if state.dice[0] else None
    click.echo(draw(pos, state, dice=dice))
    click.echo(f" Position ID {pos.id()}" + (f"   Match ID {state.match_id()}"
                                              if _has_match_id(state) else ""))


def _has_match_id(state: Any) -> bool:
    try:
        state.match_id()
    except GbotError:
        return False
    return True


@click.command()
@click.option("--pairs", type=click.IntRange(100, 1_000_000), default=5_000, show_default=True,
              help="Position/roll pairs for the move-generation row (seeded self-play mix; "
                   "scripts/bench_movegen.py takes 100,000).")
@click.option("--decisions", type=click.IntRange(1, 100_000), default=300, show_default=True,
              help="Distinct contact positions for the 0-ply best-play row; the 2-ply row "
                   "takes a tenth of that many (at least 2).")
@click.option("--seed", type=int, default=1, show_default=True)
def bench(pairs: int, decisions: int, seed: int) -> None:
    """Quick speed figures on this machine, each beside its target, with the context they
    depend on (a few seconds once the kernels are compiled). Each row names the script in
    the repository's scripts/ folder that measures it at length (most beside gnubg-nn)."""
    from gbot.testing import bench as measure

    t0 = time.perf_counter()
    warm()
    networks, what = measure.load_networks(seed)
    ev = Evaluator(networks=networks)
    ev.warm()
    t_warm = time.perf_counter() - t0
    peer = measure.gnubg_nn()
    m = measure.machine()

    boards, dice = measure.make_pairs(pairs, seed)
    t_mg, counts = measure.movegen_batch(boards, dice, 3, warmup=True)
    n2 = max(2, decisions // 10)
    contact, source = measure.contact_positions(decisions + n2 + 3, seed)
    rolls = measure.seeded_rolls(len(contact), seed + 1)
    batch = measure.evaluation_batch(contact, rolls)
    rate = measure.evaluation_rate(networks.evaluate, batch, 3)
    cases = list(zip(contact, rolls, strict=True))
    warm_cases, cases0, cases2 = cases[:3], cases[3:3 + decisions], cases[3 + decisions:]
    for ply in (0, 2):
        for p, d in warm_cases:
            ev.best_play(p, d, ply)
            if peer is not None and ply == 0:
                peer.best_move(measure.gnubg_board(p), d[0], d[1], 0)

    def ours(ply: int) -> Any:
        return lambda a: ev.best_play(a[0], a[1], ply)

    def theirs(b: tuple[list[list[int]], tuple[int, int]]) -> Any:
        return peer.best_move(b[0], b[1][0], b[1][1], 0)

    t0p = measure.interleaved([(a, (measure.gnubg_board(a[0]), a[1])) for a in cases0],
                              ours(0), theirs if peer is not None else None)
    t2p = measure.interleaved([(a, None) for a in cases2], ours(2), None)

    def verdict(key: str, figure: float, shown: str = "") -> str:
        text = measure.TARGETS[key].verdict(figure).removeprefix("target ")
        return text.replace(": ", f": {shown} ") if shown else text

    if t0p.theirs is not None:
        ratio = t0p.theirs / t0p.ours
        best0 = verdict("best0", ratio, f"{ratio:.2f}x,").replace("x:", "x gnubg-nn:", 1)
        peer_note = f"; gnubg-nn {t0p.theirs * 1e6:.1f} µs"
    else:
        best0 = f"{measure.TARGETS['best0'].text().removeprefix('target ')} gnubg-nn: no peer"
        peer_note = "; gnubg-nn is not installed, so no ratio"
    rows = [
        ("move generation", f"{t_mg / len(boards) * 1e6:.2f} µs/pair", "(no target)",
         "scripts/bench_movegen.py",
         f"{counts.sum() / t_mg / 1e6:.1f} M plays/s: every legal play of each pair, "
         f"one legal_boards_batch call"),
        ("batch evaluation", f"{rate / 1e6:.2f} M positions/s", verdict("batch_eval", rate),
         "scripts/bench_eval.py",
         f"Networks.evaluate, one call over {len(batch):,} candidate results, one thread"),
        ("0-ply best play", f"{t0p.ours * 1e6:.1f} µs/decision", best0, "scripts/bench_api.py",
         f"Evaluator.best_play, {len(cases0):,} distinct contact positions{peer_note}"),
        ("2-ply best play", f"{t2p.ours * 1e3:.2f} ms/decision",
         verdict("best2_ms", t2p.ours * 1e3), "scripts/bench_api.py",
         f"Evaluator.best_play, {len(cases2):,} distinct contact positions, "
         f"{measure.threads_text(ev.threads)} (GBOT_THREADS)"),
    ]
    width = [max(len(r[k]) for r in rows) for k in range(3)]
    out = [
        "gbot bench: quick speed figures on this machine, each beside its target",
        f"  machine    {m['cores']}, {m['cpu']}, load average {m['load']}",
        f"  software   gbot {m['gbot']}, Python {m['python']}, numpy {m['numpy']}, "
        f"numba {m['numba']}; one thread"
        + (f", {ev.threads} for the 2-ply searches" if ev.threads > 1 else ""),
        f"  networks   {what}: {measure.networks_summary(networks)}",
        f"  samples    {len(boards):,} position/roll pairs of seeded self-play in a fixed mix "
        f"(seed {seed});",
        f"             {len(contact):,} contact positions, {source}, one roll each",
        f"  peer       gnubg-nn {measure.gnubg_nn_version()} (0-ply row: the same positions)",
        "  timing     wall clock: best of 3 after a warm-up call (batches), mean per decision",
        f"             (each position once); warm-up before timing {t_warm:.2f} s",
        "",
        f"  {'figure':{width[0]}}  {'value':{width[1]}}  {'target':{width[2]}}  long form",
    ]
    for figure, value, target, script, meaning in rows:
        out.append(f"  {figure:{width[0]}}  {value:{width[1]}}  {target:{width[2]}}  {script}")
        out.append(f"  {'':{width[0]}}  {meaning}")
    out += ["",
            "  also: scripts/bench_server.py (round trips beside gnubg's server: median no "
            "slower",
            "        at --cube-ply 0, p99 <= 5 ms), scripts/bench_startup.py (listening <= 2 s),",
            "        scripts/bench_rollout.py, scripts/bench_strength.py"]
    click.echo("\n".join(out))
    sys.stdout.flush()


def _train_group() -> click.Command:
    from gbot.train.cli import cli as train_cli

    return train_cli


from gbot.cli.play import play  # noqa: E402

COMMANDS = [hint, evaluate, show, play, bench, _train_group()]
