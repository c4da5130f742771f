"""The rule switches of the commands, declared once: every option comes from a row of
:data:`gbot.game.match.SWITCHES`.

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
from dataclasses import replace
from typing import Any

import click

from gbot.errors import GbotError
from gbot.game.match import SWITCHES, Switch
from gbot.game.position_text import MONEY_DEFAULTS

__all__ = ["ALL", "COMMON", "rule_options"]

_Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

_BY_FIELD = {s.field: s for s in SWITCHES}
COMMON = ("jacoby", "beavers", "cube_cap", "cube_enabled", "end_mode", "caucasian")
"""The switches a table's players must agree on and a board line cannot carry."""
ALL = tuple(_BY_FIELD)


def _option(switch: Switch, position: bool) -> _Decorator:
    """The click option of ``switch``; with ``position`` it defaults to None (not given)."""
    default = switch.value(MONEY_DEFAULTS)
    text = switch.help
    if position:
        text += " [default: gnubg's; a position's own where it carries one]"
    name = switch.option
    if switch.choices:
        kind = click.Choice([str(c) for c in switch.choices])
        return click.option(name, switch.field, type=kind,
                            default=None if position else str(default),
                            show_default=not position, help=text)
    if "/" in name:
        return click.option(name, switch.field, default=None if position else default,
                            show_default=not position, help=text)
    return click.option(name, switch.field, is_flag=True, flag_value=not default,
                        default=None if position else default, help=text)


def _value(switch: Switch, text: Any) -> Any:
    """An option's value as the :class:`Rules` field takes it."""
    if switch.choices and isinstance(switch.choices[0], int):
        return int(text)
    return text


def rule_options(*names: str, position: bool = False) -> _Decorator:
    """A decorator giving a command the switches ``names`` (default :data:`COMMON`)."""
    chosen = names or COMMON
    unknown = [n for n in chosen if n not in _BY_FIELD]
    if unknown:
        raise ValueError(f"unknown rule switches {unknown}")

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def with_rules(*args: Any, **kwargs: Any) -> Any:
            given = {n: kwargs.pop(n) for n in chosen}
            if position:
                given = {n: v for n, v in given.items() if v is not None}
            values = {n: _value(_BY_FIELD[n], v) for n, v in given.items()}
            try:
                rules = replace(MONEY_DEFAULTS, **values)
            except GbotError as exc:
                raise click.BadParameter(str(exc)) from None
            if position:
                return command(*args, rules=rules, forced=tuple(given), **kwargs)
            return command(*args, rules=rules, **kwargs)

        decorated: Callable[..., Any] = with_rules
        for n in reversed(chosen):
            decorated = _option(_BY_FIELD[n], position)(decorated)
        return decorated

    return decorate
