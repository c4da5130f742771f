"""The rule switches of the commands (``--jacoby``, ``--beavers``, ``--cube-cap``, ``--no-cube``,
``--end-mode``, ``--caucasian``), declared once.

:func:`rule_options` gives a command all six and hands it one ``rules`` argument, a
:class:`gbot.game.match.Rules` (``gbot serve``, ``gbot web``); the single options serve commands
that build their rules otherwise (``gbot play``, ``gbot tournament``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from gbot.errors import GbotError
from gbot.game.match import CUBE_CAPS, END_MODES, Rules

__all__ = ["BEAVERS", "CAUCASIAN", "CUBE_CAP", "END_MODE", "JACOBY", "NO_CUBE", "rule_options"]

_Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

JACOBY: _Decorator = click.option(
    "--jacoby/--no-jacoby", default=True, show_default=True,
    help="Money games: gammons count only once the cube was turned (gnubg's default).")
BEAVERS: _Decorator = click.option(
    "--beavers/--no-beavers", default=True, show_default=True,
    help="Money games: the doubled side may beaver (gnubg's default).")
CUBE_CAP: _Decorator = click.option(
    "--cube-cap", type=click.Choice([str(c) for c in CUBE_CAPS]), default="0",
    show_default=True, help="Highest cube value (0 = no cap).")
NO_CUBE: _Decorator = click.option("--no-cube", is_flag=True,
                                   help="Play without the doubling cube.")
END_MODE: _Decorator = click.option(
    "--end-mode", type=click.Choice(list(END_MODES)), default="backgammons", show_default=True,
    help="What a game can be worth: single only, up to gammons, up to backgammons.")
CAUCASIAN: _Decorator = click.option(
    "--caucasian", is_flag=True,
    help="Caucasian rule: a checker that hits in its home board may not join\n"
         "its own checkers later in the same turn.")


def rule_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with the six rule options; it is called with ``rules`` (a
    :class:`gbot.game.match.Rules`) in their place (rules the match module refuses: a
    usage error)."""

    @functools.wraps(command)
    def with_rules(*args: Any, jacoby: bool, beavers: bool, cube_cap: str, no_cube: bool,
                   end_mode: str, caucasian: bool, **kwargs: Any) -> Any:
        try:
            rules = Rules(cube_enabled=not no_cube, cube_cap=int(cube_cap), end_mode=end_mode,
                          jacoby=jacoby, beavers=beavers, caucasian=caucasian)
        except GbotError as exc:
            raise click.BadParameter(str(exc)) from None
        return command(*args, rules=rules, **kwargs)

    decorated: Callable[..., Any] = with_rules
    for option in (CAUCASIAN, END_MODE, NO_CUBE, CUBE_CAP, BEAVERS, JACOBY):
        decorated = option(decorated)
    return decorated
