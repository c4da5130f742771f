"""gbot.game.fields: the bounded parsing of numbers, tokens and files from outside.

Oracles: Python's own ``int`` on text that a plain ASCII pattern accepts (``[+-]?[0-9]+``),
the Unicode database (every decimal or numeric character outside ASCII is refused), and file
sizes known beforehand.
"""

from __future__ import annotations

import re
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.errors import FieldError, GbotError, MatchFileError
from gbot.game.fields import QUOTE_MAX, parse_choice, parse_int, quote, read_bounded

_PLAIN = re.compile(r"[+-]?[0-9]+", re.ASCII)

# every character outside ASCII that Python counts as a digit or a number (superscripts,
# Arabic-Indic, fullwidth, Devanagari, circled numbers, ...)
_FOREIGN_DIGITS = st.characters(categories=("Nd", "No", "Nl")).filter(lambda c: not c.isascii())


@st.composite
def _range(draw: st.DrawFn) -> tuple[int, int]:
    lo = draw(st.integers(-10**12, 10**12))
    return lo, lo + draw(st.integers(0, 10**12))


@settings(max_examples=300, deadline=None)
@given(_range(), st.data())
def test_in_range_round_trip(bounds: tuple[int, int], data: st.DataObject) -> None:
    lo, hi = bounds
    v = data.draw(st.integers(lo, hi))
    assert parse_int(str(v), "n", lo, hi) == v
    zeros = "0" * data.draw(st.integers(0, 5))
    assert parse_int(("-" if v < 0 else "") + zeros + str(abs(v)), "n", lo, hi) == v
    if lo < 0 and v >= 0:
        assert parse_int(f"+{v}", "n", lo, hi) == v


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=12), _range())
def test_any_text_is_the_plain_ascii_integer_or_a_field_error(text: str,
                                                             bounds: tuple[int, int]) -> None:
    lo, hi = bounds
    plain = _PLAIN.fullmatch(text) is not None and (lo < 0 or text[0] not in "+-")
    try:
        v = parse_int(text, "field", lo, hi)
    except FieldError as exc:
        assert "field" in str(exc) and "\n" not in str(exc)
        assert not plain or not lo <= int(text) <= hi
    else:
        assert plain and v == int(text) and lo <= v <= hi


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789", max_size=6), _FOREIGN_DIGITS,
       st.text(alphabet="0123456789", max_size=6), st.sampled_from(["", "-", "+"]))
def test_every_non_ascii_digit_is_refused(before: str, foreign: str, after: str,
                                          sign: str) -> None:
    text = sign + before + foreign + after
    with pytest.raises(FieldError) as exc:
        parse_int(text, "die", -10**9, 10**9)
    assert str(exc.value).startswith("die ") and quote(text) in str(exc.value)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=_FOREIGN_DIGITS, min_size=1, max_size=8))
def test_strings_of_other_scripts_digits_are_refused_even_where_int_reads_them(
        text: str) -> None:
    # int() reads Arabic-Indic or fullwidth digits; those are no number from outside here
    with pytest.raises(FieldError):
        parse_int(text, "n", 0, 10**12)


def test_the_cases_of_the_report() -> None:
    for text in ("²", "3²", "--1", "+-1", "-+1", "٣", "３", "1 ", " 1", "1_000", "0x1", "1e3",
                 "", "-", "+", "1.0"):
        with pytest.raises(FieldError):
            parse_int(text, "n", -100, 100)
    assert all(unicodedata.digit(c, None) is not None for c in "²٣３")


def test_a_sign_only_where_the_field_holds_negatives() -> None:
    for text in ("+5", "-5", "-0", "+0"):
        with pytest.raises(FieldError, match="from 0 to 10"):
            parse_int(text, "n", 0, 10)
    assert parse_int("-5", "n", -10, 10) == -5 and parse_int("+5", "n", -10, 10) == 5
    assert parse_int("-0", "n", -10, 10) == 0


def test_range_is_checked_and_named() -> None:
    with pytest.raises(FieldError, match=r"^die must be an integer from 1 to 6, got '7'$"):
        parse_int("7", "die", 1, 6)
    with pytest.raises(FieldError, match="from 1 to 6"):
        parse_int("0", "die", 1, 6)
    with pytest.raises(ValueError):
        parse_int("1", "die", 6, 1)


def test_ten_thousand_digits_cost_nothing_and_are_quoted_short() -> None:
    t0 = time.process_time()
    with pytest.raises(FieldError) as exc:
        parse_int("9" * 100_000, "length", 0, 64)          # int() itself refuses > 4300 digits
    msg = str(exc.value)
    assert "length" in msg and "100000 characters" in msg and len(msg) < 200
    assert parse_int("0" * 100_000 + "7", "length", 0, 64) == 7
    assert time.process_time() - t0 < 1.0


def test_quote_is_one_short_line() -> None:
    assert quote("a\nb") == "'a\\nb'"
    long = quote("x" * 10_000)
    assert long.startswith("'" + "x" * QUOTE_MAX + "'") and "10000 characters" in long
    assert "bits" in quote(10**5000)                  # repr() of such an int would raise
    assert quote([[1]] * 1000).startswith("<list")
    assert len(quote("\x00" * QUOTE_MAX)) <= QUOTE_MAX + 5


def test_parse_choice() -> None:
    assert parse_choice("p1", "player", ("p0", "p1")) == "p1"
    with pytest.raises(FieldError, match=r"player must be p0 or p1, got 'p2'"):
        parse_choice("p2", "player", ("p0", "p1"))
    with pytest.raises(FieldError, match="a, b or c"):
        parse_choice("A", "x", ("a", "b", "c"))


def test_read_bounded(tmp_path: Path) -> None:
    f = tmp_path / "m.mat"
    f.write_bytes(b"x" * 1000)
    assert read_bounded(f, 1000) == b"x" * 1000
    with pytest.raises(FieldError, match=r"is 1,000 bytes, more than the 999 bytes a file"):
        read_bounded(f, 999)
    with pytest.raises(MatchFileError, match="match file"):
        read_bounded(f, 10, "match file", MatchFileError)
    with pytest.raises(OSError):
        read_bounded(tmp_path / "missing", 10)


def test_an_endless_input_is_refused_at_the_limit() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    t0 = time.process_time()
    with pytest.raises(GbotError, match=r"more than 1,048,576 bytes"):
        read_bounded("/dev/zero", 1 << 20)
    assert time.process_time() - t0 < 5.0
