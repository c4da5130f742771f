"""The server's one-call answers (:mod:`gbot.core.answer`) against the general path.

* The move-text kernel writes gnubg 1.07's own text for every play of the legal-move vectors.
* :func:`gbot.protocols.gnubg_external.handle_line` gives the same replies, and keeps the same
  session state, with the one-call answers on and off, on the boards gnubg sent as referee and
  on generated lines, under several rule sets.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from gbot.core.movegen import legal_plays_raw
from gbot.core.notation import TEXT_SIZE, format_steps_into
from gbot.engine import Engine
from gbot.match import Rules
from gbot.position import Position
from gbot.protocols import gnubg_external as ge
from gbot.protocols.fibs_board import FibsBoard, format_fibs_board
from tests.conftest import read_jsonl, shared_path
from tests.test_fibs_board import fibs_boards

ROOT = Path(__file__).resolve().parents[1]
RULES = [Rules(), Rules(jacoby=True, beavers=True), Rules(cube_enabled=False),
         Rules(cube_cap=4), Rules(end_mode="single")]


def test_move_text_kernel_reproduces_gnubg() -> None:
    out = np.empty(TEXT_SIZE, dtype=np.uint8)
    total = 0
    for case in read_jsonl(shared_path("vectors", "legal_moves_public.jsonl")):
        pos = Position.from_id(case["position_id"])
        results, steps = legal_plays_raw(pos.board, *case["dice"])
        for res, st in zip(results, steps, strict=True):
            n = format_steps_into(pos.board, st, out)
            assert out[:n].tobytes().decode() == case["moves"][Position(res).id()]
            total += 1
    assert total == 27_845


def referee_boards() -> Iterator[str]:
    """Every board line gnubg 1.07 sent as referee in the captured transcripts, in order."""
    paths = sorted((ROOT / "protocols" / "transcripts").glob("referee-*.txt"))
    if not paths:
        pytest.skip("no captured transcripts")
    for path in paths:
        for raw in path.read_text().splitlines():
            if raw.startswith("C "):
                data = ast.literal_eval(raw[2:]).decode().strip("\x00\n")
                if data.startswith("board:"):
                    yield data


def _answers(engine: Engine, lines: list[str], fast: bool,
             monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    monkeypatch.setattr(ge, "_FAST", fast)
    session = ge.Session(engine)
    out: list[tuple[object, ...]] = []
    for line in lines:
        reply, end = ge.handle_line(session, line)
        out.append((reply, end, session.declined, session.game_score, session.pending_resign))
    return out


@pytest.fixture(scope="module")
def engines() -> list[Engine]:
    return [Engine(rules=r) for r in RULES]


def test_referee_boards_same_replies(engines: list[Engine],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    lines = list(referee_boards())
    assert len(lines) > 1000
    for engine in engines:
        want = _answers(engine, lines, False, monkeypatch)
        assert _answers(engine, lines, True, monkeypatch) == want
        # bytes, blanks and gnubg's NUL as the server passes them
        raw = [(line + "\x00").encode() for line in lines]
        assert _answers(engine, raw, True, monkeypatch) == want  # type: ignore[arg-type]


def test_most_referee_questions_take_the_fast_path(engines: list[Engine]) -> None:
    engine = engines[0]
    ge.warm(engine)
    session = ge.Session(engine)
    lines = list(referee_boards())
    answered = sum(ge._fast_reply(session, line) is not None for line in lines)
    assert answered >= 0.6 * len(lines)


@given(b=fibs_boards("gnubg_external"))
@settings(max_examples=300, deadline=None)
def test_generated_lines_same_replies(engines: list[Engine], b: FibsBoard) -> None:
    line = format_fibs_board(b)
    for engine in engines[:3]:
        got = []
        for fast in (False, True):
            ge._FAST = fast
            try:
                session = ge.Session(engine)
                got.append((ge.handle_line(session, line), session.game_score))
            finally:
                ge._FAST = True
        assert got[0] == got[1]

