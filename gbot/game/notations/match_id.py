"""gnubg Match ID (12 characters): the bit codec and its mapping to :class:`gbot.MatchState`.

A Match ID packs 67 bits (gnubg 1.07 adds bit 66, "Jacoby off", to the older 66-bit key)
little-endian into 9 bytes, written as 12 base64 characters. :class:`MatchIdFields` holds
exactly those fields with gnubg's fixed player numbers (player 1 is the bottom player, X).

Quirks kept on purpose: the encoder always writes the larger die first, so ``(2, 5)`` and
``(5, 2)`` give one ID; the Jacoby bit is stored inverted (1 = Jacoby *not* in force, which
gnubg 1.07 writes for every match).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from gbot.core.limits import CENTRE as CENTRE
from gbot.core.limits import MAX_CUBE
from gbot.errors import MatchIdError

# CENTRE (gbot.core.limits): ``cube_owner`` of a centred cube (stored as 3 in the two owner bits).

MAX_FIELD = 2**15 - 1
"""The largest match length or score the 15-bit fields hold."""

_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

LAYOUT = (
    ("cube_log2", 0, 4),
    ("owner", 4, 2),
    ("dice_owner", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("jacoby_off", 66, 1),
)
"""Each field of the key as (name, first bit, width), in key order; bit 66 is the inverted
Jacoby flag."""
_USED_BITS = 67


@dataclass(frozen=True)
class MatchIdFields:
    """Every field of a gnubg Match ID, typed, with gnubg's player numbers (0 and 1).

    ``cube`` is the cube value (not its log2); ``cube_owner`` is 0, 1 or :data:`CENTRE`;
    ``dice_owner`` is gnubg's ``fMove`` and ``turn`` its ``fTurn``; ``dice`` is ``(0, 0)``
    before the roll; ``jacoby`` is True when the Jacoby rule is in force (bit 66 clear).
    Construction rejects values the ID cannot hold or no game can reach, with
    :class:`MatchIdError`.
    """

    cube: int = 1
    cube_owner: int = CENTRE
    dice_owner: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        """Check every field's range and the combinations no game can produce."""
        _check(self)


def _check(f: MatchIdFields) -> None:
    def bad(what: str) -> MatchIdError:
        return MatchIdError(f"{what}: {f!r}")

    ints = (f.cube, f.cube_owner, f.dice_owner, f.game_state, f.turn, f.resigned,
            f.match_length)
    if not all(isinstance(v, int) for v in ints) or not all(
        isinstance(t, tuple) and len(t) == 2 and all(isinstance(v, int) for v in t)
        for t in (f.dice, f.score)
    ):
        raise bad("Match ID fields must be integers (dice and score pairs of two)")
    if f.cube < 1 or f.cube > MAX_CUBE or f.cube & (f.cube - 1):
        raise bad(f"cube {f.cube!r} is not a power of two from 1 to 32768")
    if f.cube_owner not in (CENTRE, 0, 1):
        raise bad(f"cube owner {f.cube_owner!r} is not 0, 1 or centre (-1)")
    if f.dice_owner not in (0, 1) or f.turn not in (0, 1):
        raise bad("dice owner and turn must be player 0 or 1")
    if not 0 <= f.game_state <= 4:
        raise bad(f"game state {f.game_state!r} is not 0..4")
    if not 0 <= f.resigned <= 3:
        raise bad(f"resignation {f.resigned!r} is not 0..3")
    d1, d2 = f.dice
    if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
        raise bad(f"dice {f.dice!r} are not a roll (both 1..6) or (0, 0)")
    if not 0 <= f.match_length <= MAX_FIELD or not all(0 <= s <= MAX_FIELD for s in f.score):
        raise bad("match length and scores must be 0..32767")
    if f.crawford and f.match_length == 0:
        raise bad("a money session has no Crawford game")
    if f.doubled and f.resigned:
        raise bad("a double and a resignation cannot both be pending")
    # a beaver hands the decision back to the doubler; gnubg 1.07 then marks the doubled
    # side as cube owner (it writes e.g. EREAAAAAAAAE)
    beaver = f.cube > 1 and f.cube_owner == 1 - f.dice_owner
    if f.doubled and (f.dice != (0, 0) or (f.turn == f.dice_owner and not beaver)):
        raise bad("a pending double needs unrolled dice and the other player to decide")
    if f.game_state == 1 and f.match_length and max(f.score) >= f.match_length:
        raise bad("a game in play in a match someone has already won")


def _get_bits(key: int, start: int, width: int) -> int:
    return (key >> start) & ((1 << width) - 1)


def encode(fields: MatchIdFields) -> str:
    """The 12-character Match ID of ``fields`` (the larger die is written first)."""
    _check(fields)
    hi, lo = max(fields.dice), min(fields.dice)
    values = {
        "cube_log2": fields.cube.bit_length() - 1,
        "owner": 3 if fields.cube_owner == CENTRE else fields.cube_owner,
        "dice_owner": fields.dice_owner,
        "crawford": int(fields.crawford),
        "game_state": fields.game_state,
        "turn": fields.turn,
        "doubled": int(fields.doubled),
        "resigned": fields.resigned,
        "die1": hi,
        "die2": lo,
        "match_length": fields.match_length,
        "score0": fields.score[0],
        "score1": fields.score[1],
        "jacoby_off": int(not fields.jacoby),
    }
    key = 0
    for name, start, width in LAYOUT:
        key |= (values[name] & ((1 << width) - 1)) << start
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def decode(mid: str) -> MatchIdFields:
    """The fields of a 12-character Match ID; :class:`MatchIdError` if it is not one."""
    if not isinstance(mid, str):
        raise MatchIdError(f"Match ID must be a string, got {mid!r}")
    s = mid.strip()
    if len(s) != 12 or not set(s) <= _B64:
        raise MatchIdError(f"not a 12-character base64 Match ID: {mid!r}")
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - alphabet checked above
        raise MatchIdError(f"not a Match ID: {mid!r}") from exc
    key = int.from_bytes(raw, "little")
    if key >> _USED_BITS:
        raise MatchIdError(f"Match ID sets bits beyond bit 66: {mid!r}")
    v = {name: _get_bits(key, start, width) for name, start, width in LAYOUT}
    owner = v["owner"]
    if owner == 2:
        raise MatchIdError(f"Match ID has cube owner 2 (only 0, 1 or 3 = centre): {mid!r}")
    try:
        return MatchIdFields(
            cube=1 << v["cube_log2"],
            cube_owner=CENTRE if owner == 3 else owner,
            dice_owner=v["dice_owner"],
            crawford=bool(v["crawford"]),
            game_state=v["game_state"],
            turn=v["turn"],
            doubled=bool(v["doubled"]),
            resigned=v["resigned"],
            dice=(v["die1"], v["die2"]),
            match_length=v["match_length"],
            score=(v["score0"], v["score1"]),
            jacoby=not v["jacoby_off"],
        )
    except MatchIdError as exc:
        raise MatchIdError(f"impossible Match ID {mid!r}: {exc}") from None


def is_valid(mid: str) -> bool:
    """True when ``mid`` decodes to a possible match state."""
    try:
        decode(mid)
    except MatchIdError:
        return False
    return True


__all__ = ["CENTRE", "LAYOUT", "MatchIdFields", "decode", "encode", "is_valid"]
