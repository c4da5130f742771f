"""Logging for the long-running commands (``gbot serve``, ``gbot fibs``): the ``--log`` check
and a set-up that ``-v`` turns to DEBUG for gbot's own loggers only (never for numba or
other libraries), undone when the command ends."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

__all__ = ["check_log_file", "command_logging", "setup_logging"]


def check_log_file(_ctx: click.Context, param: click.Parameter, value: str | None
                   ) -> str | None:
    """Click callback: ``value`` must name a file that can be appended to (its folder
    exists and is writable), else a one-line usage error."""
    if value is None:
        return None
    folder = os.path.dirname(os.path.abspath(value)) or "."
    why = None
    if os.path.isdir(value):
        why = "it is a folder"
    elif not os.path.isdir(folder):
        why = f"no folder {folder!r}"
    elif os.path.exists(value) and not os.access(value, os.W_OK):
        why = "the file is not writable"
    elif not os.path.exists(value) and not os.access(folder, os.W_OK | os.X_OK):
        why = f"the folder {folder!r} is not writable"
    if why is not None:
        raise click.BadParameter(f"cannot write the log file {value!r}: {why}", param=param)
    return value


def setup_logging(verbose: bool, log_file: str | None, fmt: str) -> list[logging.Handler]:
    """Log INFO and up to stderr (and ``log_file``); with ``verbose``, also gbot's DEBUG.

    Other libraries stay at INFO. Returns the handlers added to the root logger.
    """
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        try:
            handlers.append(logging.FileHandler(log_file))
        except OSError as exc:
            raise click.ClickException(
                f"cannot write the log file {log_file!r}: {exc.strerror or exc}") from None
    formatter = logging.Formatter(fmt)
    root = logging.getLogger()
    for h in handlers:
        h.setFormatter(formatter)
        root.addHandler(h)
    root.setLevel(logging.INFO)
    logging.getLogger("gbot").setLevel(logging.DEBUG if verbose else logging.INFO)
    return handlers


@contextmanager
def command_logging(verbose: bool, log_file: str | None, fmt: str) -> Iterator[None]:
    """:func:`setup_logging` for the length of a ``with`` block; handlers and levels are
    put back on exit."""
    root = logging.getLogger()
    ours = logging.getLogger("gbot")
    saved = (root.level, ours.level)
    handlers = setup_logging(verbose, log_file, fmt)
    try:
        yield
    finally:
        for h in handlers:
            root.removeHandler(h)
            h.close()
        root.setLevel(saved[0])
        ours.setLevel(saved[1])
