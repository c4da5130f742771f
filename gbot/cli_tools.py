"""The player's commands of the ``gbot`` CLI: ``hint``, ``eval``, ``play``, ``bench``, ``train``."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from gbot.errors import GbotError


def _position_and_state(position: str, match_id: str | None) -> tuple[Any, Any]:
    """A Position and MatchState from a Position ID, an XGID, or gnubg's ``PID:MID`` pair."""
    import gbot

    text = position.strip()
    if text.upper().startswith("XGID=") or text.count(":") >= 9:
        return gbot.parse_xgid(text)
    if ":" in text and match_id is None:
        text, match_id = text.split(":", 1)
    pos = gbot.Position.from_id(text)
    state = gbot.MatchState.from_match_id(match_id) if match_id else gbot.MatchState()
    return pos, state


def _dice(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise click.BadParameter(f"dice must be two digits 1-6, e.g. 65: {text!r}")
    return int(digits[0]), int(digits[1])


def _fmt_probs(p: tuple[float, ...]) -> str:
    win, wg, wbg, lg, lbg = p
    return (f"win {win:.3f} (g {wg:.3f} bg {wbg:.3f})  "
            f"lose {1 - win:.3f} (g {lg:.3f} bg {lbg:.3f})")


@click.command()
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--ply", type=click.IntRange(0, 2), default=0, show_default=True)
@click.option("-n", "count", type=click.IntRange(1, 100), default=5, show_default=True,
              help="How many plays to list.")
def hint(position: str, dice: str | None, match_id: str | None, ply: int, count: int) -> None:
    """Best plays for POSITION (Position ID, PID:MID or XGID) and DICE, or the cube action.

    Without DICE (and without dice in the Match ID or XGID) the cube decision is shown.
    """
    import gbot

    try:
        pos, state = _position_and_state(position, match_id)
        roll = _dice(dice) or (tuple(state.dice) if state.dice[0] else None)
        ev = gbot.Evaluator()
        if roll is None:
            decision = gbot.cube_decision(pos, state, ply=ply, evaluator=ev)
            nd, dt, dp = decision.equities
            click.echo(f"{pos.id()}  cube action at {ply}-ply: {decision.action} "
                       f"(opponent: {decision.response})")
            click.echo(f"  no double     {nd:+.3f}\n  double/take   {dt:+.3f}\n"
                       f"  double/pass   {dp:+.3f}")
            return
        hints = ev.hint(pos, roll, ply=ply, n=count)
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{pos.id()}  {roll[0]}{roll[1]}  at {ply}-ply (cubeless equity)")
    if not hints:
        click.echo("  no legal play")
    for i, h in enumerate(hints, 1):
        diff = h.equity - hints[0].equity
        click.echo(f"  {i:2d}. {h.play.notation:<28s} {h.equity:+.3f}"
                   + (f" ({diff:+.3f})" if i > 1 else ""))


@click.command(name="eval")
@click.argument("position")
@click.option("--match-id", "-m", default=None, help="gnubg Match ID (score, cube, turn).")
@click.option("--ply", type=click.IntRange(0, 2), default=0, show_default=True)
def evaluate(position: str, match_id: str | None, ply: int) -> None:
    """Cubeless probabilities and equity of POSITION for the side on roll."""
    import gbot

    try:
        pos, _state = _position_and_state(position, match_id)
        ev = gbot.Evaluator()
        probs = ev.probabilities(pos, ply=ply)
        eq = ev.equity(pos, ply=ply)
    except GbotError as exc:
        raise click.ClickException(str(exc)) from None
    mine, theirs = pos.pip_count()
    click.echo(f"{pos.id()}  pips {mine} vs {theirs}  {ply}-ply")
    click.echo(f"  {_fmt_probs(probs)}")
    click.echo(f"  cubeless equity {eq:+.3f}")


def _draw(board: Any, me: str) -> str:
    """A small text board seen by the human (X, moving 24 -> 1)."""
    top = " ".join(f"{p:>2d}" for p in range(13, 25))
    bot = " ".join(f"{p:>2d}" for p in range(12, 0, -1))

    def cell(p: int) -> str:
        v = int(board[p])
        return f"{'X' if v > 0 else 'O'}{abs(v):d}" if v else " ."

    row1 = " ".join(cell(p) for p in range(13, 25))
    row2 = " ".join(cell(p) for p in range(12, 0, -1))
    bars = f"bar: you {int(board[25])}, gbot {-int(board[0])}"
    return f" {top}\n {row1}\n {row2}\n {bot}\n {bars}  ({me} = X)"


@click.command()
@click.option("--length", type=click.IntRange(0, 64), default=5, show_default=True,
              help="Match length (0 = one money game).")
@click.option("--ply", type=click.IntRange(0, 2), default=0, show_default=True)
@click.option("--seed", type=int, default=None, help="Seed for the dice.")
def play(length: int, ply: int, seed: int | None) -> None:
    """Play a match against gbot in the terminal (moves as 24/18 13/11, 'double', 'resign')."""
    from gbot.engine import Engine
    from gbot.match import GameState
    from gbot.position import Position
    from gbot.referee import Referee, can_double

    ref = Referee(length, seed=seed, names=("gbot", "you"))
    engine = Engine(ply=ply, rules=ref.state.rules)
    human = 1
    while True:
        s = ref.state
        if s.game_state == GameState.NONE:
            ref.roll()
            continue
        if s.game_state != GameState.PLAYING:
            click.echo(f"game over: {s.score[human]}-{s.score[1 - human]} (you-gbot)")
            if length == 0 or max(s.score) >= length:
                break
            ref.next_game()
            continue
        pos = Position(s.board_array())
        mover = s.player_on_roll
        if s.double_offered:
            if s.player_to_act == human:
                ans = click.prompt("gbot doubles: take or drop?",
                                   type=click.Choice(["take", "drop"]))
                (ref.take if ans == "take" else ref.drop)()
            else:
                ans = engine.respond_double(Position(s.board_array()).swapped(), s)
                click.echo(f"gbot: {ans}")
                (ref.take if ans != "drop" else ref.drop)()
            continue
        if s.dice == (0, 0):
            if mover != human and can_double(s) and \
                    engine.cube_action(pos, s) == "double":
                click.echo("gbot doubles")
                ref.double()
                continue
            if mover == human:
                click.echo(_draw(pos.board, "you"))
                if can_double(s) and click.confirm("double?", default=False):
                    ref.double()
                    continue
            ref.roll()
            continue
        dice = s.dice
        if mover == human:
            plays = pos.legal_plays(dice, caucasian=s.rules.caucasian)
            if not plays:
                click.echo(f"you rolled {dice[0]}{dice[1]}: no legal play")
                ref.play(None)
                continue
            while True:
                text = click.prompt(f"you rolled {dice[0]}{dice[1]}, your move")
                try:
                    chosen = pos.play_from_text(text, dice, caucasian=s.rules.caucasian)
                    break
                except GbotError as exc:
                    click.echo(f"  {exc}")
            ref.play(chosen.position.board, chosen.steps)
        else:
            chosen_play = engine.choose_play(pos, dice)
            click.echo(f"gbot rolls {dice[0]}{dice[1]}: "
                       f"{chosen_play.notation if chosen_play else '(no play)'}")
            ref.play(None if chosen_play is None else chosen_play.position.board,
                     None if chosen_play is None else chosen_play.steps)
    click.echo(f"final score: you {ref.state.score[human]}, gbot {ref.state.score[1 - human]}")


@click.command()
@click.option("--pairs", type=click.IntRange(100, 1_000_000), default=20_000, show_default=True,
              help="Position/roll pairs for the move-generator timing.")
@click.option("--seed", type=int, default=1, show_default=True)
def bench(pairs: int, seed: int) -> None:
    """Quick speed figures: move generation and batched evaluation on this machine."""
    import numpy as np

    import gbot
    from gbot.core.board import START, flip_py
    from gbot.core.movegen import legal_boards, legal_boards_batch, warm

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
    t = time.perf_counter()
    results, _ = legal_boards_batch(arr, darr)
    dt = time.perf_counter() - t
    click.echo(f"movegen: {dt / pairs * 1e6:.2f} µs per position/roll, "
               f"{len(results) / dt:,.0f} plays/s")
    ev = gbot.Evaluator()
    ev.warm()
    batch = results[:100_000]
    ev.evaluate(batch[:10])
    t = time.perf_counter()
    ev.evaluate(batch)
    dt = time.perf_counter() - t
    click.echo(f"0-ply evaluation: {len(batch) / dt:,.0f} positions/s")
    sys.stdout.flush()


def _train_group() -> click.Command:
    from gbot.train.cli import cli as train_cli

    return train_cli


COMMANDS = [hint, evaluate, play, bench, _train_group()]
