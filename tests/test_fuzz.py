"""Fuzzing of every text surface (issue 34, item 5): hostile input gives a value or a
``GbotError`` (protocol handlers: an error reply), never another exception, and is answered
quickly.

Oracles: the exception hierarchy (:class:`gbot.errors.GbotError` is the only root allowed to
escape) and a wall-clock bound per input. The bound is 100 ms in ``scripts/fuzz.py``; here it is
250 ms, since the suite runs on busy shared machines. Inputs are the seed corpus
(``tests/data/fuzz/seeds.json``, real ``.mat``/``.sgf`` files) mutated by hypothesis, plus the
explicit cases of the issue. ``GBOT_SLOW=1`` samples 20 times more.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import load_script

ROOT = Path(__file__).resolve().parents[1]
TEST_LIMIT_MS = 250.0



fuzz = load_script("fuzz", "gbot_fuzz")
SURFACES = {s.name: s for s in fuzz.surfaces()}
SLOW = os.environ.get("GBOT_SLOW") == "1"
CHEAP = ("position_id", "match_id", "xgid", "fibs_board", "move_text", "situation", "clip",
         "ubgi")
HEAVY = ("gnubg_server", "mat", "sgf", "web_move", "web_post")

ops = st.lists(st.tuples(st.sampled_from(fuzz.OPS), st.floats(0, 0.999), st.floats(0, 0.999),
                         st.integers(0, 999)), max_size=4)


def _check(name: str, text: str, limit_ms: float = TEST_LIMIT_MS) -> None:
    ms, crash = fuzz.classify(SURFACES[name].call, text)
    assert crash is None, f"{name} crashed on {text!r}: {crash}"
    if ms > limit_ms:   # once more: a first-use compile or a collector pause is not the input's
        ms = min(ms, fuzz.classify(SURFACES[name].call, text)[0])
    assert ms <= limit_ms, f"{name} took {ms:.0f} ms on {text!r}"


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    for s in SURFACES.values():
        for seed in s.seeds:
            fuzz.classify(s.call, seed)


def test_every_surface_has_seeds() -> None:
    assert set(SURFACES) == set(CHEAP) | set(HEAVY)
    assert all(s.seeds for s in SURFACES.values())


@pytest.mark.parametrize("name, text", [(n, t) for n, ts in fuzz.HOSTILE.items() for t in ts],
                         ids=lambda v: repr(v)[:30])
def test_issue_cases_are_refused_quickly(name: str, text: str) -> None:
    _check(name, text, limit_ms=1000.0 if name in HEAVY else TEST_LIMIT_MS)


@pytest.mark.parametrize("name", list(SURFACES))
def test_seeds_are_read(name: str) -> None:
    for text in SURFACES[name].seeds:
        _check(name, text, limit_ms=2000.0)


def _fuzz_test(name: str, examples: int):  # type: ignore[no-untyped-def]
    @settings(max_examples=examples * (20 if SLOW else 1), deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.sampled_from(SURFACES[name].seeds), mutations=ops)
    def test(seed: str, mutations: list[tuple[str, float, float, int]]) -> None:
        _check(name, fuzz.mutate(seed, mutations, SURFACES[name].seeds))

    test.__name__ = f"test_fuzz_{name}"
    test.__doc__ = f"Mutated {name} input is answered or refused with a GbotError."
    return test


for _name in CHEAP:
    globals()[f"test_fuzz_{_name}"] = _fuzz_test(_name, 60)
for _name in HEAVY:
    globals()[f"test_fuzz_{_name}"] = _fuzz_test(_name, 15)
