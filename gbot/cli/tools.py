"""The player's commands of the ``gbot`` CLI: ``hint``, ``eval``, ``show``, ``play`` (from
:mod:`gbot.cli.play`), ``bench``, ``train``."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from typing import Any

import click

from gbot.cli.hint_text import cube_hint_lines, fmt_probs, pct, play_hint_lines, take_hint_lines
from gbot.core.board import START, flip_py
from gbot.core.movegen import legal_boards, legal_boards_batch, warm
from gbot.engine.engine import Engine
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
from gbot.game.match import GameState, MatchState, Rules
from gbot.game.notations.fibs_board import parse_fibs_board
from gbot.game.notations.xgid import parse_xgid
from gbot.game.position import Position

MAX_PLY = 4
"""Deepest look-ahead the commands accept (as ``gbot serve --ply``)."""


class PositionCommand(click.Command):
    """A command whose POSITION may be an XGID without its ``XGID=`` prefix: such an XGID
    starts with ``-`` (an empty point), which click would read as an option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Prefix bare XGIDs with ``XGID=`` before click sees them."""
        fixed = [f"XGID={a}" if a.startswith("-") and a.count(":") == 9 else a for a in args]
        return super().parse_args(ctx, fixed)


def read_position(text: str, match_id: str | None = None, jacoby: bool | None = None,
                  beavers: bool | None = None) -> tuple[Any, Any]:
    """A Position (seen by the player on roll) and a MatchState from what a gnubg user has at
    hand: a Position ID, gnubg's ``PID:MatchID`` pair, an XGID (with or without ``XGID=``) or
    a FIBS ``board:`` line. Money rules: Jacoby and beavers on (gnubg's defaults) unless an
    XGID says otherwise or ``jacoby``/``beavers`` are given."""
    import numpy as np


    s = text.strip()
    if s.lower().startswith("board:"):
        if match_id:
            raise GbotError("a board: line carries its own score and cube; drop --match-id")
        fb = parse_fibs_board(s)
        rules = Rules(jacoby=True if jacoby is None else jacoby,
                           beavers=True if beavers is None else beavers)
        state = fb.match_state(rules)
        return Position(np.array(state.board, dtype=np.int8)), state
    if s.upper().startswith("XGID=") or s.count(":") == 9:
        if match_id:
            raise GbotError("an XGID carries its own score and cube; drop --match-id")
        pos, state = parse_xgid(s)
        r = state.rules
        if jacoby is not None or beavers is not None:
            r = replace(r, jacoby=r.jacoby if jacoby is None else jacoby,
                        beavers=r.beavers if beavers is None else beavers)
        return pos, replace(state, rules=r)
    if ":" in s:
        if match_id:
            raise GbotError(f"give the Match ID once, not in {text!r} and --match-id")
        s, match_id = s.split(":", 1)
    rules = Rules(jacoby=True if jacoby is None else jacoby,
                       beavers=True if beavers is None else beavers)
    pos = Position.from_id(s)
    state = (MatchState.from_match_id(match_id, rules) if match_id
             else MatchState(rules=rules))
    return pos, state


def parse_dice(text: str | None) -> tuple[int, int] | None:
    """Dice typed as two digits 1-6 (``65``, ``6-5``, ``6 5``), or None for no text."""
    if not text:
        return None
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise click.BadParameter(f"dice must be two digits 1-6, e.g. 65: {text!r}")
    return int(digits[0]), int(digits[1])


def _read_unfinished(position: str, match_id: str | None, jacoby: bool | None,
                     beavers: bool | None) -> tuple[Any, Any] | None:
    """The position and state of a hint request, or None (after saying so) when the game or
    match is already over."""
    pos, state = read_position(position, match_id, jacoby, beavers)
    over = _game_over_line(state)
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


def _engine(ply: int, state: Any) -> Any:
    return Engine(ply=ply, rules=state.rules)


_rules_options = [
    click.option("--jacoby/--no-jacoby", default=None,
                 help="Money: gammons count only once the cube was turned "
                      "[default: on, as gnubg; an XGID's own rules field]."),
    click.option("--beavers/--no-beavers", default=None,
                 help="Money: the doubled side may beaver [default: on, as gnubg; an XGID's "
                      "own rules field]."),
]


def _with_rules(f: Any) -> Any:
    for opt in reversed(_rules_options):
        f = opt(f)
    return f


_POSITION_HELP = ("POSITION: a gnubg Position ID, gnubg's PID:MatchID pair, an XGID (with or "
                  "without XGID=) or a FIBS board: line (quote it).")


@click.command(cls=PositionCommand, epilog=_POSITION_HELP)
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--ply", type=click.IntRange(0, MAX_PLY), default=0, show_default=True,
              help="Look-ahead (4-ply takes tens of seconds).")
@click.option("-n", "count", type=click.IntRange(1, 100), default=5, show_default=True,
              help="How many plays to list.")
@click.option("--rollout", is_flag=True,
              help="Roll the candidates (or the cube decision) out (gbot.analysis.rollout).")
@click.option("--trials", type=click.IntRange(1, 10_000_000), default=1296, show_default=True,
              help="With --rollout: games per candidate.")
@_with_rules
def hint(position: str, dice: str | None, match_id: str | None, ply: int, count: int,
         rollout: bool, trials: int, jacoby: bool | None, beavers: bool | None) -> None:
    """What gbot would do in POSITION: its plays of DICE ranked as it ranks them, or the cube
    decision (no dice), or the answer to a pending double or resignation."""

    if rollout:
        _rollout_hint(position, dice, match_id, ply, count, trials, jacoby, beavers)
        return
    try:
        read = _read_unfinished(position, match_id, jacoby, beavers)
        if read is None:
            return
        pos, state = read
        engine = _engine(ply, state)
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
                  trials: int, jacoby: bool | None, beavers: bool | None) -> None:
    """``hint --rollout``: the candidates (or the cube decision) rolled out, gbot's play
    marked; ranked by the rollout's cubeful figures."""
    from gbot.analysis.rollout import Rollout, RolloutSettings

    try:
        read = _read_unfinished(position, match_id, jacoby, beavers)
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


@click.command(name="eval", cls=PositionCommand, epilog=_POSITION_HELP)
@click.argument("position")
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--ply", type=click.IntRange(0, MAX_PLY), default=0, show_default=True,
              help="Look-ahead (4-ply takes minutes: the cube look-ahead is not pruned).")
@_with_rules
def evaluate(position: str, match_id: str | None, ply: int, jacoby: bool | None,
             beavers: bool | None) -> None:
    """Probabilities, cubeless and cubeful equity (money) or MWC and EMG (match) of
    POSITION for the side on roll, before it rolls."""

    try:
        pos, state = read_position(position, match_id, jacoby, beavers)
        engine = _engine(ply, state)
        st = replace(state, player_to_act=state.player_on_roll, double_offered=False,
                     resign_offered=0, dice=(0, 0))
        h = cube_hint(engine, pos, st)
        cubeless_mwc = engine.equity(pos, st, ply, cubeful=False) if st.match_length else None
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    mine, theirs = pos.pip_count()
    p = h.probabilities
    click.echo(f"{pos.id()}  {ply}-ply: {describe_state(st)}")
    click.echo(f"  pips: X {mine}, O {theirs}")
    click.echo("             win   gammon  backg.")
    click.echo(f"  X        {p[0]:.3f}   {p[1]:.3f}   {p[2]:.3f}")
    click.echo(f"  O        {1 - p[0]:.3f}   {p[3]:.3f}   {p[4]:.3f}")
    click.echo(f"  cubeless equity  {h.cubeless:+.3f}")
    proper = {"no_double": 0, "too_good_take": 0, "too_good_pass": 0, "double_take": 1,
              "double_pass": 2}[h.action]
    eq = 2 * h.equities[1] if h.response == "beaver" and proper == 1 else h.equities[proper]
    if cubeless_mwc is not None and h.mwc is not None:
        click.echo(f"  cubeless MWC     {pct(cubeless_mwc).strip()}")
        click.echo(f"  cubeful MWC      {pct(h.mwc[proper]).strip()}   EMG {eq:+.3f}")
    else:
        click.echo(f"  cubeful equity   {eq:+.3f}")
    click.echo(f"  cube: {h.words}")


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
@click.option("--pairs", type=click.IntRange(100, 1_000_000), default=20_000, show_default=True,
              help="Position/roll pairs for the move-generator timing.")
@click.option("--seed", type=int, default=1, show_default=True)
def bench(pairs: int, seed: int) -> None:
    """Quick speed figures: move generation and batched evaluation on this machine."""
    import numpy as np


    warm()
    rng = np.random.default_rng(seed)
    boards: list[np.ndarray] = []
    dice: list[tuple[int, int]] = []
    b = START.copy()
    while len(boards) < pairs:
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        boards.append(b.copy())
        dice.append(d)
        res = legal_boards(b, *d)
        if len(res):
            b = res[rng.integers(len(res))]
        b = START.copy() if not (b[1:26] > 0).any() else flip_py(b)
    arr, darr = np.array(boards), np.array(dice)

    def best_of_3(fn: Any) -> float:
        fn()  # untimed first run: compiling or loading the kernels, first-touch memory
        times = []
        for _ in range(3):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    results, _ = legal_boards_batch(arr, darr)
    dt = best_of_3(lambda: legal_boards_batch(arr, darr))
    click.echo(f"movegen: {dt / pairs * 1e6:.2f} µs per position/roll, "
               f"{len(results) / dt:,.0f} plays/s (best of 3, after a warm-up run)")
    ev = Evaluator()
    ev.warm()
    batch = results[:100_000]
    dt = best_of_3(lambda: ev.evaluate(batch))
    click.echo(f"0-ply evaluation: {len(batch) / dt:,.0f} positions/s (best of 3)")
    sys.stdout.flush()


def _train_group() -> click.Command:
    from gbot.train.cli import cli as train_cli

    return train_cli


from gbot.cli.play import play  # noqa: E402

COMMANDS = [hint, evaluate, show, play, bench, _train_group()]
