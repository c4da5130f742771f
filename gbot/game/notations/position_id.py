"""gnubg Position ID (14 characters): encode and decode, with validation.

The second half of the ID is the side on roll; :mod:`gbot.core.board` holds the layout.
Match IDs live beside it in :mod:`gbot.game.notations.match_id`.
"""

from __future__ import annotations

import base64
import binascii

from gbot.core.board import Board, from_gnubg, to_gnubg
from gbot.errors import PositionIdError

_B64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def encode_arrays(on_roll: list[int], opponent: list[int]) -> str:
    """Position ID of gnubg's arrays (opponent first in the bit string, as gnubg writes it)."""
    data = bytearray(10)
    k = 0
    for arr in (opponent, on_roll):
        for n in arr:
            for _ in range(n):
                data[k >> 3] |= 1 << (k & 7)
                k += 1
            k += 1
    return base64.b64encode(bytes(data)).decode("ascii")[:14]


def decode_arrays(pid: str, max_checkers: int = 15) -> tuple[list[int], list[int]]:
    """``(on_roll, opponent)`` arrays of a Position ID; :class:`PositionIdError` if invalid."""
    if not isinstance(pid, str):
        raise PositionIdError(f"Position ID must be a string, got {pid!r}")
    s = pid.strip()
    if len(s) != 14 or not set(s) <= _B64:
        raise PositionIdError(f"not a 14-character base64 Position ID: {pid!r}")
    try:
        data = base64.b64decode(s + "==", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PositionIdError(f"not a Position ID: {pid!r}") from exc
    arrays = [[0] * 25, [0] * 25]
    slot = 0
    for k in range(80):
        if slot >= 50:
            break
        if data[k >> 3] >> (k & 7) & 1:
            arrays[slot // 25][slot % 25] += 1
        else:
            slot += 1
    if slot < 50:
        raise PositionIdError(f"Position ID has too many checkers: {pid!r}")
    opponent, on_roll = arrays
    for name, arr in (("on-roll side", on_roll), ("opponent", opponent)):
        if sum(arr) > max_checkers:
            raise PositionIdError(f"Position ID gives the {name} {sum(arr)} checkers: {pid!r}")
    for i in range(24):
        if on_roll[i] and opponent[23 - i]:
            raise PositionIdError(f"Position ID puts both sides on one point: {pid!r}")
    return on_roll, opponent


def encode(b: Board) -> str:
    """Position ID of a board (the side to move is the second half)."""
    me, opp = to_gnubg(b)
    return encode_arrays(me, opp)


def decode(pid: str, max_checkers: int = 15) -> Board:
    """Board (side on roll to move) of a Position ID."""
    on_roll, opponent = decode_arrays(pid, max_checkers)
    return from_gnubg(on_roll, opponent)


def is_valid(pid: str) -> bool:
    """True when ``pid`` decodes to a legal position."""
    try:
        decode(pid)
    except PositionIdError:
        return False
    return True


__all__ = ["encode", "decode", "encode_arrays", "decode_arrays", "is_valid"]
