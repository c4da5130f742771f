"""The gnubg server's ``evaluation ... plies N`` goes to 4, as ``gbot serve --ply``."""

from __future__ import annotations

import os

import pytest

from gbot.adapters.gnubg_external import MAX_EVAL_PLIES, Session, handle_line
from gbot.engine.engine import Engine
from tests.test_gnubg_external import MONEY_CUBE


def test_plies_up_to_four_and_no_further() -> None:
    assert MAX_EVAL_PLIES == 4
    session = Session(Engine(ply=0))
    bad, _ = handle_line(session, f"evaluation fibsboard {MONEY_CUBE} plies 5")
    assert bad is not None and bad.startswith("Error") and "0..4" in bad
    reply, _ = handle_line(session, f"evaluation fibsboard {MONEY_CUBE} plies 3 cubeless")
    assert reply is not None and len(reply.split()) == 6
    assert abs(float(reply.split()[0]) - 0.5) < 0.1


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("GBOT_SLOW"), reason="set GBOT_SLOW=1")
def test_four_ply_evaluation_answers() -> None:
    session = Session(Engine(ply=0))
    reply, _ = handle_line(session, f"evaluation fibsboard {MONEY_CUBE} plies 4 cubeless")
    assert reply is not None and len(reply.split()) == 6
