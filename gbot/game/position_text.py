"""The one reader of a position as a gnubg user types it: a Position ID, gnubg's
``PID:MatchID`` pair, an XGID (with or without ``XGID=``) or a FIBS/gnubg ``board:`` line.

Every command and the HTTP API read positions here, so they agree on what a text means:
the position is seen by the player on roll (the doubler while a double is pending), the state
carries the score, cube and turn, and the dice are the rolled ones (none before the roll or
while a double is pending). Match lengths above :data:`MAX_MATCH_LENGTH` are refused before
anything is built for them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from gbot.errors import MatchIdError
from gbot.game.match import MAX_MATCH_LENGTH, MatchState, Rules
from gbot.game.notations.fibs_board import parse_fibs_board
from gbot.game.notations.xgid import parse_xgid
from gbot.game.position import Position

__all__ = ["MONEY_DEFAULTS", "XGID_RULES", "Situation", "own_switches", "read_situation"]

MONEY_DEFAULTS = Rules(jacoby=True, beavers=True)
"""gnubg's money-play defaults (Jacoby and beavers on): the rules a bare position is read
under unless the caller says otherwise."""

XGID_RULES = ("jacoby", "beavers", "cube_cap")
"""The :class:`Rules` fields an XGID carries."""


@dataclass(frozen=True)
class Situation:
    """A position seen by the player on roll, the match state and the dice (None: not rolled).

    ``deciding`` is what the text itself asks: ``"move"`` (dice shown), ``"double"`` (on roll,
    before rolling) or ``"take"`` (a double is pending)."""

    position: Position
    state: MatchState
    dice: tuple[int, int] | None

    @property
    def deciding(self) -> str:
        """``"take"``, ``"move"`` or ``"double"``."""
        if self.state.double_offered:
            return "take"
        return "move" if self.dice is not None else "double"


def _is_xgid(s: str) -> bool:
    return s.upper().startswith("XGID=") or s.count(":") >= 9


def own_switches(rules: Rules, own: Rules, names: Iterable[str],
                 forced: Iterable[str] = ()) -> Rules:
    """``rules`` with the switches ``names`` taken from ``own`` (what a notation or a file
    says), except those named in ``forced`` (given by the user)."""
    keep = set(forced)
    return replace(rules, **{k: getattr(own, k) for k in names if k not in keep})


def read_situation(text: str, rules: Rules = MONEY_DEFAULTS, match_id: str | None = None,
                   forced: Iterable[str] = ()) -> Situation:
    """The :class:`Situation` a text describes, decided under ``rules``.

    An XGID's own switches (:data:`XGID_RULES`) win over ``rules`` unless their names are in
    ``forced``. ``match_id`` goes with a bare Position ID only: a
    ``PID:MatchID`` pair, an XGID or a ``board:`` line carry their own. Raises a
    :class:`gbot.errors.GbotError` naming what is wrong."""
    s = text.strip()
    if s[:6].lower() == "board:":
        if match_id:
            raise MatchIdError("a board: line carries its own score and cube; give no Match ID")
        state = parse_fibs_board(s).match_state(rules)
        pos = Position(np.array(state.board, dtype=np.int8))
    elif _is_xgid(s):
        if match_id:
            raise MatchIdError("an XGID carries its own score and cube; give no Match ID")
        pos, state = parse_xgid(s)
        state = replace(state, rules=own_switches(rules, state.rules, XGID_RULES, forced))
    else:
        pid = s
        if ":" in s:
            if match_id:
                raise MatchIdError(f"give the Match ID once, not in {text!r} and apart")
            pid, match_id = s.split(":", 1)
        pos = Position.from_id(pid.strip())
        state = (MatchState.from_match_id(match_id.strip(), rules) if match_id
                 else MatchState(rules=rules))
    if state.match_length > MAX_MATCH_LENGTH:
        raise MatchIdError(f"match length {state.match_length} is above {MAX_MATCH_LENGTH}")
    rolled = state.dice[0] and not state.double_offered
    dice = (int(state.dice[0]), int(state.dice[1])) if rolled else None
    return Situation(pos, state, dice)
