"""Numbers, tokens and files that come from outside, read within explicit bounds.

Every integer a protocol line, a query string, a JSON body or a match file carries is read by
:func:`parse_int`: ASCII digits only (no other script's digits, no superscripts), one leading
sign only where the field's range holds negative numbers, and a range per field (a string of
thousands of digits is refused as out of range, never handed to ``int``). Tokens from a fixed
set are read by :func:`parse_choice`, files by :func:`read_bounded`. Every refusal is a
:class:`~gbot.errors.FieldError` (or the caller's own :class:`~gbot.errors.GbotError` subclass)
with a one-line message naming the field and quoting the value, cut to :data:`QUOTE_MAX`
characters.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from gbot.errors import FieldError, GbotError

__all__ = ["QUOTE_MAX", "parse_choice", "parse_int", "quote", "read_bounded"]

QUOTE_MAX = 40
"""Longest piece of an outside value an error message quotes."""


def quote(value: object, limit: int = QUOTE_MAX) -> str:
    """``repr`` of ``value`` for an error message: one line, cut to about ``limit`` characters
    (the full length of a cut string is named)."""
    if isinstance(value, str | bytes) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} characters)"
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"<an integer of {value.bit_length()} bits>"
    text = repr(value) if isinstance(value, str | bytes | int | float | bool | None) \
        else f"<{type(value).__name__}>"
    return text if len(text) <= limit + 2 else text[:limit] + "..."


def parse_int(text: str, field: str, lo: int, hi: int) -> int:
    """The integer ``text`` spells, which must lie in ``lo`` .. ``hi``.

    ``text`` is ASCII digits, with one leading ``-`` or ``+`` only when ``lo`` is negative;
    nothing else (spaces, other digits, a second sign) is read. Anything else, or a value out
    of range, is a :class:`~gbot.errors.FieldError` naming ``field`` and quoting ``text``.
    """
    if lo > hi:
        raise ValueError(f"empty range {lo}..{hi} for {field}")
    if not isinstance(text, str):
        raise FieldError(f"{field} must be an integer from {lo} to {hi}, got {quote(text)}")
    body, negative = text, False
    if lo < 0 and text[:1] in ("-", "+"):
        body, negative = text[1:], text[0] == "-"
    if not (body.isascii() and body.isdigit()):
        raise FieldError(f"{field} must be an integer from {lo} to {hi}, got {quote(text)}")
    digits = body.lstrip("0")
    # more digits than the wider bound has: out of range, without building the number
    if len(digits) > len(str(max(abs(lo), abs(hi)))):
        raise FieldError(f"{field} must be an integer from {lo} to {hi}, got {quote(text)}")
    value = int(digits or "0")
    if negative:
        value = -value
    if not lo <= value <= hi:
        raise FieldError(f"{field} must be an integer from {lo} to {hi}, got {quote(text)}")
    return value


def parse_choice(text: str, field: str, choices: Sequence[str]) -> str:
    """``text`` if it is one of ``choices`` (exactly), else a
    :class:`~gbot.errors.FieldError` naming the field, the choices and the value."""
    if isinstance(text, str) and text in choices:
        return text
    words = list(choices)
    allowed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" or {words[-1]}"
    raise FieldError(f"{field} must be {allowed}, got {quote(text)}")


def read_bounded(path: str | os.PathLike[str], limit: int, what: str = "file",
                 error: type[GbotError] = FieldError) -> bytes:
    """The bytes of the file at ``path``, at most ``limit`` of them.

    A larger file is refused with ``error`` (a one-line message naming the size and the
    limit) before it is read; an input whose size is not known beforehand (a pipe, a device
    such as ``/dev/zero``) is read no further than ``limit + 1`` bytes and refused there.
    Missing or unreadable files raise :class:`OSError` as :func:`open` does.
    """
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise error(f"{os.fspath(path)} is {st.st_size:,} bytes, more than the {limit:,} "
                        f"bytes a {what} may have")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise error(f"{os.fspath(path)} holds more than {limit:,} bytes, the most a {what} "
                    f"may have")
    return data
