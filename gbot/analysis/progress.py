"""Progress bars of the long commands (``gbot tournament``, ``gbot rollout``, ``gbot analyse``):
tqdm on stderr, with the count done of the total, the rate and an ETA.

On a terminal the bar redraws in place. When stderr is not a terminal (a log file, a pipe)
the bar becomes a plain line at most every :data:`LOG_INTERVAL` seconds, plus the first and
the last, so logs stay short. The training stages, whose record is their log, show a bar
only on a terminal (:func:`terminal_bar`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from tqdm import tqdm

__all__ = ["LOG_INTERVAL", "LineWriter", "around_bars", "progress_bar", "terminal_bar"]

LOG_INTERVAL = 10.0
"""Seconds between two progress lines when stderr is not a terminal."""

_TERMINAL = ("{desc} {n_fmt}/{total_fmt} {bar:20} {percentage:3.0f}% "
             "[{elapsed}, ETA {remaining}, {rate_fmt}]{postfix}")
_LOG = ("{desc} {n_fmt}/{total_fmt} {percentage:3.0f}% "
        "[{elapsed}, ETA {remaining}, {rate_fmt}]{postfix}")


class LineWriter:
    """A file for tqdm that turns each redraw into one whole line of ``out``."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.encoding = getattr(out, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        """Write the text of one redraw (without its carriage returns) as a line."""
        line = text.replace("\r", "").rstrip()
        if line:
            self.out.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        """Flush ``out``."""
        self.out.flush()


def progress_bar(total: int | None, desc: str, unit: str, *, quiet: bool = False,
                 initial: int = 0, **kwargs: Any) -> tqdm:
    """A bar on stderr for ``total`` units (``initial`` of them done before this run, not
    counted in the rate, which is the mean over the run); ``quiet`` shows nothing."""
    err = sys.stderr
    tty = err.isatty()
    return tqdm(total=total, desc=desc, unit=unit, initial=initial, disable=quiet,
                file=err if tty else LineWriter(err), dynamic_ncols=tty,
                mininterval=0.1 if tty else LOG_INTERVAL, miniters=1, smoothing=0,
                bar_format=_TERMINAL if tty else _LOG, **kwargs)


def terminal_bar(total: int, desc: str, unit: str, *,
                 initial: int = 0) -> tqdm:
    """A bar shown only when stderr is a terminal, for work whose record is its log."""
    return progress_bar(total, desc, unit, quiet=not sys.stderr.isatty(), initial=initial)


def around_bars(log: Callable[[str], None]) -> Callable[[str], None]:
    """``log`` with the bars on screen cleared before each line and drawn again after it."""

    def write(msg: str) -> None:
        with tqdm.external_write_mode():
            log(msg)
    return write
