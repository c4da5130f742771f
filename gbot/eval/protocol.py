"""What the engine and the cube module ask of an evaluator: one protocol, in one place.

:class:`EvaluatorProtocol` lists every member the engine (:mod:`gbot.engine.engine`) and the cube
module (:mod:`gbot.cube.decision`, :mod:`gbot.cube.lookahead`) use. :class:`gbot.Evaluator`
has them all. ``probabilities`` is the one every evaluator must have; the others are
capabilities an evaluator may leave out (gnubg-nn's tournament wrapper has no batch
``evaluate``, a test double may have only ``probabilities``): :func:`provides` says whether
one is there, and the engine falls back to what is (the move generator with ``evaluate``,
the 0-ply model without it). ``caucasian`` absent means the standard move rule.

The networks below an evaluator have their own, narrower protocol
(:class:`gbot.eval.evaluator.BoardEvaluator`: float32 probabilities of a batch, no ply).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from gbot.game.position import Play, Position

__all__ = ["CAPABILITIES", "Capability", "EvaluatorProtocol", "move_rule", "provides"]

Capability = Literal["evaluate", "best_play", "hint"]
CAPABILITIES: tuple[Capability, ...] = ("evaluate", "best_play", "hint")
"""The members of :class:`EvaluatorProtocol` an evaluator may leave out."""


class EvaluatorProtocol(Protocol):
    """An evaluator as the engine and the cube module see it (:class:`gbot.Evaluator`: all)."""

    caucasian: bool
    """The move rule it plays under (the Caucasian rule when True)."""

    def probabilities(self, pos: Position, ply: int = 0) -> Sequence[float]:
        """Cubeless ``(win, win_g, win_bg, lose_g, lose_bg)`` of the side on roll."""
        ...

    def evaluate(self, boards: npt.ArrayLike, ply: int = 0) -> npt.NDArray[np.float64]:
        """The same, ``float64[n, 5]``, for boards ``int8[n, 26]`` (side to move in each)."""
        ...

    def best_play(self, pos: Position, dice: Sequence[int], ply: int = 0) -> Play | None:
        """The play it makes with ``dice`` (None when none is legal)."""
        ...

    def hint(self, pos: Position, dice: Sequence[int], ply: int = 0,
             n: int | None = 5) -> list[Any]:
        """Ranked plays (``.play``, ``.probabilities``, ``.ply``), best first."""
        ...


def provides(evaluator: object, capability: Capability) -> bool:
    """Whether ``evaluator`` has the optional member ``capability`` of the protocol."""
    if capability not in CAPABILITIES:
        raise ValueError(f"not an optional evaluator member: {capability!r}")
    return callable(getattr(evaluator, capability, None))


def move_rule(evaluator: object) -> bool:
    """The evaluator's ``caucasian`` (False when it does not say)."""
    return bool(getattr(evaluator, "caucasian", False))
