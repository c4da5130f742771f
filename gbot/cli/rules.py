"""The rule switches of the commands, declared once: one table row per switch of
:class:`gbot.game.match.Rules`.

:func:`rule_options` gives a command the switches it names (all of :data:`COMMON` by default)
and calls it with one ``rules`` argument, a :class:`~gbot.game.match.Rules`, in their place
(rules the match module refuses: a usage error). With ``position=True`` (commands that read a
position, which may carry its own switches) the switches default to "not given": the command
gets ``rules`` (gnubg's money defaults with the given switches applied) and ``forced`` (the
names of the switches given).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import click

from gbot.errors import GbotError
from gbot.game.match import CUBE_CAPS, END_MODES, OPENERS, RESIGNATIONS, Rules
from gbot.game.position_text import MONEY_DEFAULTS
from gbot.game.variations import VARIATIONS

__all__ = ["ALL", "COMMON", "SWITCHES", "rule_options"]

_Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


@dataclass(frozen=True)
class Switch:
    """One rule switch on the command line: its option, the :class:`Rules` field it sets and
    how the option's value becomes the field's."""

    field: str
    decls: tuple[str, ...]
    help: str
    default: Any
    kind: Any = None            # a click type; None for a flag pair or a single flag
    flag: bool = False          # a single on-flag (``--caucasian``)
    to_rules: Callable[[Any], Any] = lambda v: v

    def option(self, position: bool) -> _Decorator:
        """The click option; with ``position`` it defaults to None (not given)."""
        default = None if position else self.default
        text = (self.help + " [default: gnubg's; a position's own where it carries one]"
                if position else self.help)
        if self.flag:
            return click.option(*self.decls, self.field, is_flag=True,
                                default=default if position else False, help=text)
        if self.kind is None:
            return click.option(*self.decls, self.field, default=default,
                                show_default=not position, help=text)
        return click.option(*self.decls, self.field, type=self.kind, default=default,
                            show_default=not position, help=text)


SWITCHES: dict[str, Switch] = {s.field: s for s in (
    Switch("jacoby", ("--jacoby/--no-jacoby",),
           "Money games: gammons count only once the cube was turned (gnubg's default).", True),
    Switch("beavers", ("--beavers/--no-beavers",),
           "Money games: the doubled side may beaver (gnubg's default).", True),
    Switch("cube_cap", ("--cube-cap",), "Highest cube value (0 = no cap).", "0",
           click.Choice([str(c) for c in CUBE_CAPS]), to_rules=int),
    Switch("cube_enabled", ("--no-cube",), "Play without the doubling cube.", False,
           flag=True, to_rules=lambda off: not off),
    Switch("end_mode", ("--end-mode",),
           "What a game can be worth: single only, up to gammons, up to backgammons.",
           "backgammons", click.Choice(list(END_MODES))),
    Switch("caucasian", ("--caucasian",),
           "Caucasian rule: a checker that hits in its home board may not join\n"
           "its own checkers later in the same turn.", False, flag=True),
    Switch("draw_last_roll", ("--draw-last-roll",),
           "Draw variant: the other side gets one last roll to draw.", False, flag=True),
    Switch("opener", ("--opener",), "Who opens games after the first.", "roll",
           click.Choice(list(OPENERS))),
    Switch("variation", ("--variation",), "Starting position.", "standard",
           click.Choice(list(VARIATIONS))),
    Switch("resignation", ("--resignation",),
           "Resignations offered and answered (gnubg, FIBS), or scored at once by the "
           "resigner's position (site style).", "offer", click.Choice(list(RESIGNATIONS))),
)}
"""Every switch the commands know, by :class:`Rules` field."""

COMMON = ("jacoby", "beavers", "cube_cap", "cube_enabled", "end_mode", "caucasian")
"""The switches a table's players must agree on and a board line cannot carry."""
ALL = tuple(SWITCHES)


def rule_options(*names: str, position: bool = False) -> _Decorator:
    """A decorator giving a command the switches ``names`` (default :data:`COMMON`)."""
    chosen = names or COMMON
    unknown = [n for n in chosen if n not in SWITCHES]
    if unknown:
        raise ValueError(f"unknown rule switches {unknown}")

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def with_rules(*args: Any, **kwargs: Any) -> Any:
            given = {n: kwargs.pop(n) for n in chosen}
            if position:
                given = {n: v for n, v in given.items() if v is not None}
            values = {n: SWITCHES[n].to_rules(v) for n, v in given.items()}
            try:
                rules = replace(MONEY_DEFAULTS if position else Rules(), **values)
            except GbotError as exc:
                raise click.BadParameter(str(exc)) from None
            if position:
                return command(*args, rules=rules, forced=tuple(given), **kwargs)
            return command(*args, rules=rules, **kwargs)

        decorated: Callable[..., Any] = with_rules
        for n in reversed(chosen):
            decorated = SWITCHES[n].option(position)(decorated)
        return decorated

    return decorate
