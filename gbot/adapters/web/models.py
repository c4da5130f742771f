"""The HTTP API's requests and replies as declared types (pydantic models).

The requests are validated by these models and the OpenAPI document
(:mod:`gbot.adapters.web.openapi`) is made from them, so what the document says a field takes is
what the server accepts. Requests:

* :class:`EvalQuery` and :class:`MoveQuery`: wildbg's query parameters (every value a string
  of ASCII digits, with a sign on the board's points; an empty value counts as absent);
* :class:`PositionRequest`: the JSON body of gbot's own ``POST`` routes, its ``rules`` an object
  of :data:`RulesRequest`, one field per switch of :data:`gbot.game.match.SWITCHES`.

A number may come as a JSON integer or as a string of ASCII digits (no other script's digits,
no superscripts, one sign only where the range holds negative numbers); booleans, fractions and
anything else are refused. :func:`validate` reads a request into its model and turns a refusal
into a one-line message naming the field, the declared type in words and the value given.

Replies (:class:`MoveReply`, :class:`WildbgEvalReply`, :class:`HintReply`,
:class:`EvalReply`, :class:`CubeReply`, :class:`RolloutReply`) declare every key the service
writes; they describe the replies in the OpenAPI document and the tests hold real replies to
them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gbot.errors import FieldError
from gbot.game.fields import parse_int, quote
from gbot.game.match import MAX_MATCH_LENGTH, SWITCHES, Switch

__all__ = [
    "DEFAULT_TRIALS",
    "MAX_CHECKERS",
    "MAX_INT_TEXT",
    "MAX_PLY",
    "MAX_TEXT",
    "MAX_TRIALS",
    "CubeReply",
    "EvalQuery",
    "EvalReply",
    "HintReply",
    "MoveQuery",
    "MoveReply",
    "PositionRequest",
    "RolloutReply",
    "RulesRequest",
    "WildbgEvalReply",
    "validate",
]

MAX_PLY = 2
"""Deepest look-ahead a request may ask for (the bound on its running time)."""
MAX_CHECKERS = 15
MAX_TEXT = 400
"""Longest position text (a FIBS board line is about 150 characters)."""
MAX_INT_TEXT = 999_999
"""Largest magnitude a number spelled as a string may have, whatever its field (each field's
own range is narrower)."""
DEFAULT_TRIALS = 144
MAX_TRIALS = 1296
MAX_SEED = 2**32 - 1

M = TypeVar("M", bound=BaseModel)

REFUSED = "refused"
"""The error type of a refusal whose message is complete as it stands (a check across fields)."""


# --- numbers from text ---------------------------------------------------------------------------


def _integer(signed: bool) -> BeforeValidator:
    """What turns a JSON integer or a string of ASCII digits into an ``int`` (a sign only where
    ``signed``); anything else is refused before the declared range is checked."""
    lo = -MAX_INT_TEXT if signed else 0

    def read(value: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return parse_int(value.strip(), "number", lo, MAX_INT_TEXT)
            except FieldError:
                pass
        raise PydanticCustomError("integer_text", "not an integer")

    return BeforeValidator(read)


DIGITS = _integer(signed=False)
SIGNED = _integer(signed=True)

Die = Annotated[int, Field(ge=1, le=6), DIGITS]
Away = Annotated[int, Field(ge=0, le=MAX_MATCH_LENGTH), DIGITS]
Ply = Annotated[int, Field(ge=0, le=MAX_PLY), DIGITS]
Count = Annotated[int, Field(ge=1, le=1000), DIGITS]
Trials = Annotated[int, Field(ge=1, le=MAX_TRIALS), DIGITS]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED), SIGNED]


def _flag(value: Any) -> Any:
    """A query string's yes/no word as a bool (``1``/``true``/``yes``/``on``,
    ``0``/``false``/``no``/``off``, any case); other values are left for the bool check."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("1", "true", "yes", "on"):
            return True
        if word in ("0", "false", "no", "off"):
            return False
    return value


Flag = Annotated[StrictBool, BeforeValidator(_flag)]


def _dice(value: Any) -> Any:
    """Dice as a JSON body gives them: ``"65"``, ``"6-5"`` (two ASCII digits in at most 5
    characters), ``[6, 5]``, or none (null, ``""``, ``[]``)."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, list) and len(value) == 2:
        return value
    if isinstance(value, str) and len(value) <= 5:
        digits = [c for c in value if c in "0123456789"]
        if len(digits) == 2:
            return digits
    raise PydanticCustomError(
        REFUSED, "dice must be two dice 1 to 6 such as \"65\" or [6, 5], got {value}",
        {"value": quote(value)})


def _dice_text(schema: dict[str, Any]) -> None:
    """The dice's schema with the text form the validator reads too."""
    schema["anyOf"].insert(0, {"type": "string", "maxLength": 5,
                               "description": "Two digits 1 to 6: \"65\", \"6-5\"."})


Dice = Annotated[
    tuple[Annotated[Die, Field(title="die1")], Annotated[Die, Field(title="die2")]] | None,
    BeforeValidator(_dice),
]


def _no_default(schema: dict[str, Any]) -> None:
    """A switch left out keeps the server's default, which the document cannot know."""
    schema.pop("default", None)


# --- wildbg's query --------------------------------------------------------------------------


def _pip_field(i: int) -> tuple[Any, Any]:
    lo, hi = (-MAX_CHECKERS, 0) if i == 0 else (0, MAX_CHECKERS) if i == 25 \
        else (-MAX_CHECKERS, MAX_CHECKERS)
    desc = ("Bar of o, the opponent (0 or negative)." if i == 0 else
            "Bar of x, the side on roll (0 or positive)." if i == 25 else
            f"Point {i} of x (x moves 24 -> 1): positive x, negative o.")
    return Annotated[int, Field(ge=lo, le=hi), SIGNED], Field(0, description=desc)


class _Board(BaseModel):
    """wildbg's board: `p0` .. `p25`, signed checker counts seen by x, the side on roll; at
    most 15 checkers a side. Points left out are empty."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    def board(self) -> list[int]:
        """The 26 counts."""
        return [getattr(self, f"p{i}") for i in range(26)]

    @model_validator(mode="after")
    def _checkers(self) -> _Board:
        board = self.board()
        for name, count in (("x", sum(v for v in board if v > 0)),
                            ("o", -sum(v for v in board if v < 0))):
            if count > MAX_CHECKERS:
                raise PydanticCustomError(
                    REFUSED, "player {name} has {count} checkers on the board, at most 15",
                    {"name": name, "count": count})
        return self


if TYPE_CHECKING:
    Board = _Board
else:
    Board = create_model("Board", __base__=_Board, __doc__=_Board.__doc__,
                         **{f"p{i}": _pip_field(i) for i in range(26)})


class EvalQuery(Board):
    """``GET /eval``: the board and, for match play, how far each side is from winning."""

    x_away: Away = Field(0, description="Points x still needs (0 with o_away 0: money game).")
    o_away: Away = Field(0, description="Points o still needs.")
    crawford: Flag = Field(False, description="gbot extension: this is the Crawford game "
                                              "(no doubling).")

    @model_validator(mode="after")
    def _score(self) -> EvalQuery:
        xa, oa = self.x_away, self.o_away
        if (xa == 0) != (oa == 0):
            raise PydanticCustomError(
                REFUSED, "x_away and o_away are both 0 (money) or both at least 1, got {xa} "
                         "and {oa}", {"xa": xa, "oa": oa})
        if self.crawford and 1 not in (xa, oa):
            raise PydanticCustomError(REFUSED, "the Crawford game needs a player 1 away")
        return self


class MoveQuery(EvalQuery):
    """``GET /move``: the board, the dice and, for match play, the score."""

    die1: Die = Field(description="One die.", examples=[3])
    die2: Die = Field(description="The other die.", examples=[1])
    ply: Ply | None = Field(None, description="gbot extension: look-ahead (default: the "
                                              "server's).")


# --- gbot's own requests ---------------------------------------------------------------------


def _switch_type(switch: Switch) -> Any:
    """The declared type of one rule switch: a JSON boolean, or one of its choices."""
    if not switch.choices:
        return StrictBool
    choice = cast(Any, Literal)[switch.choices]       # Literal[*choices]
    if isinstance(switch.choices[0], int):
        return Annotated[choice, DIGITS]
    return choice


if TYPE_CHECKING:
    RulesRequest = BaseModel
else:
    RulesRequest = create_model(
        "Rules", __config__=ConfigDict(extra="forbid", frozen=True),
        __doc__="Rule switches; missing ones keep the server's defaults (gbot web --help).",
        **{s.key: (_switch_type(s), Field(None, description=s.help,
                                          json_schema_extra=_no_default)) for s in SWITCHES})


class PositionRequest(BaseModel):
    """The body of `POST /hint`, `/eval`, `/cube` and `/rollout`: a position and what to
    decide it with (each route reads the fields it needs)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    position: str = Field(min_length=1, max_length=MAX_TEXT, pattern=r"\S", strict=True,
                          description="Position ID, PID:MatchID, XGID=... or a FIBS/gnubg "
                                      "board: line.")
    match_id: str | None = Field(None, max_length=MAX_TEXT, strict=True,
                                 description="Match ID, when not in `position`.")
    dice: Dice = Field(None, description="\"65\" or [6, 5]; default: the dice of the "
                                         "notation.", json_schema_extra=_dice_text)
    ply: Ply | None = Field(None, description="Look-ahead (default: the server's).")
    cube_ply: Ply | None = Field(None, description="Look-ahead of cube decisions (default: "
                                                   "ply, at least 2).")
    count: Count | None = Field(5, description="/hint: plays to list (null: all); /rollout: "
                                               "plays to roll out (at most 5).")
    rules: RulesRequest = Field(default_factory=RulesRequest)
    trials: Trials = Field(DEFAULT_TRIALS, description="/rollout: games per position.")
    seed: Seed = Field(1, description="/rollout: the dice seed.")


# --- replies ---------------------------------------------------------------------------------


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Chance = Annotated[float, Field(ge=0, le=1)]


class Step(_Reply):
    """One checker moving one die: bar is 25, off is 0."""

    from_: int = Field(alias="from", ge=1, le=25)
    to: int = Field(ge=0, le=24)


class WildbgProbabilities(_Reply):
    """Of x. `win` includes gammons and backgammons, `winG` backgammons, `loseG` includes
    `loseBg`; lose = 1 - win."""

    win: Chance
    winG: Chance
    winBg: Chance
    loseG: Chance
    loseBg: Chance


class WildbgMove(_Reply):
    """One play and the probabilities after it."""

    play: list[Step] = Field(max_length=4)
    probabilities: WildbgProbabilities


class MoveReply(_Reply):
    """Every legal play, gbot's choice first; one with an empty `play` when none is legal."""

    moves: list[WildbgMove]


class CubeAnswer(_Reply):
    """What gbot plays: whether x doubles now (false when not yet, or too good) and whether
    o takes a double now."""

    double: bool
    accept: bool


class WildbgEvalReply(_Reply):
    """Cubeless probabilities and the cube decision."""

    cube: CubeAnswer
    probabilities: WildbgProbabilities


class Probabilities(_Reply):
    """Cubeless, of the side on roll; gammons include backgammons."""

    win: Chance
    win_gammon: Chance
    win_backgammon: Chance
    lose: Chance
    lose_gammon: Chance
    lose_backgammon: Chance


class State(_Reply):
    """The match state (match_length 0: money)."""

    match_length: int
    score: list[int]
    cube_value: int
    cube_owner: Literal["centre", 0, 1]
    player_on_roll: Literal[0, 1]
    crawford: bool


if TYPE_CHECKING:
    RulesReply = BaseModel
else:
    RulesReply = create_model(
        "RulesInForce", __config__=ConfigDict(extra="forbid"),
        __doc__="The rule switches the answer was decided under.",
        **{s.key: (_switch_type(s), Field(description=s.help)) for s in SWITCHES})


class _Header(_Reply):
    position_id: str
    match_id: str | None = Field(None, description="Absent where the state has none.")
    board: list[int] = Field(description="26 counts seen by the side on roll (wildbg's "
                                         "p0..p25 layout).")
    pips: list[int]
    ply: int
    state: State
    rules: RulesReply
    deciding: Literal["move", "double", "take"]


class Equities(_Reply):
    """Cubeful, from the side on roll (null where it may not double)."""

    no_double: float | None
    double_take: float | None
    double_pass: float | None


class CubeDecision(_Reply):
    """The cube decision of the side on roll and the opponent's answer."""

    action: Literal["no_double", "double_take", "double_pass", "too_good_take",
                    "too_good_pass"]
    response: Literal["take", "pass", "beaver"]
    words: str
    can_double: bool
    reason: str
    equities: Equities
    mwc: Equities | None = Field(None, description="Match-winning chances (match play).")
    probabilities: Probabilities
    cubeless_equity: float
    engine: CubeAnswer
    ply: int = Field(description="The look-ahead of this decision and its figures, in "
                                 "gnubg's numbering (the request's cube_ply; default: its "
                                 "ply, at least 2).")


class PlayRow(_Reply):
    """One play of a hint, ranked."""

    rank: int
    move: str
    chosen: bool
    ply: int
    equity: float
    cubeful_equity: float | None
    mwc: float | None
    diff: float
    probabilities: Probabilities
    steps: list[Step]
    next_position_id: str = Field(description="The opponent's view after.")
    board_after: list[int]
    game_over: bool


class Resignation(_Reply):
    """Whether to accept the pending resignation."""

    level: int
    accept: bool


class HintReply(_Header):
    """With dice: the plays ranked; without: the cube decision; with a resignation pending:
    the answer to it."""

    dice: list[int] | None = None
    plays: list[PlayRow] | None = None
    legal_plays: int | None = None
    best: str | None = None
    ranked_by: str | None = None
    next_position_id: str | None = Field(None, description="With no legal play: the "
                                                           "opponent's view.")
    cube: CubeDecision | None = None
    resignation: Resignation | None = None


class EvalReply(_Header):
    """Probabilities, cubeless equity, and the cubeful equity (money) or match-winning
    chances and EMG (match)."""

    probabilities: Probabilities
    cubeless_equity: float
    cubeful_equity: float | None = Field(None, description="money")
    cubeless_mwc: float | None = Field(None, description="match")
    cubeful_mwc: float | None = Field(None, description="match")
    emg: float | None = Field(None, description="match")
    cube_words: str


class TakeFigures(_Reply):
    """The taker's figures of a pending double."""

    answer: Literal["take", "drop", "beaver"]
    take: float
    pass_: float = Field(alias="pass")
    beaver: float | None
    mwc_take: float | None
    mwc_pass: float | None


class CubeReply(_Header):
    """The cube decision; with a double pending, also the taker's figures."""

    cube: CubeDecision
    take: TakeFigures | None = None


class RolloutFigures(_Reply):
    """A rollout's figures."""

    probabilities: Probabilities
    std_errors: list[float]
    equity: float
    equity_se: float
    cubeful: float | None
    cubeful_se: float | None
    mwc: float | None
    mwc_se: float | None
    trials: int


class RolledPlay(RolloutFigures):
    """One play rolled out."""

    rank: int
    move: str


class RolloutCube(_Reply):
    """The cube decision by rollout."""

    action: str
    response: str
    no_double: RolloutFigures
    double_take: RolloutFigures
    double_pass: float


class RolloutReply(_Header):
    """With dice: the plays rolled out; without: the position and, when the side on roll may
    double, the cube decision."""

    trials: int
    seed: int
    stopped_early: bool = Field(description="The time bound stopped the rollout before "
                                            "`trials`; each figure's own `trials` says how "
                                            "many games it played (whole blocks of 36).")
    dice: list[int] | None = None
    plays: list[RolledPlay] | None = None
    position: RolloutFigures | None = None
    cube: RolloutCube | None = None


# --- reading a request -------------------------------------------------------------------------


def validate(model: type[M], data: Any) -> M:
    """``data`` read into ``model``; a refusal raises :class:`ValueError` with a one-line
    message (:func:`message`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValueError(message(model, exc)) from None


def message(model: type[BaseModel], exc: ValidationError) -> str:
    """One line for the first error of ``exc``: the field, what it takes, the value given."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    text = _one(model, first)
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more)"
    return text


def _one(model: type[BaseModel], error: Mapping[str, Any]) -> str:
    kind, loc = error["type"], tuple(error["loc"])
    if kind == REFUSED:
        return str(error["msg"])
    schema = _schema(model)
    if kind == "extra_forbidden":
        parent_name, parent = _locate(schema, loc[:-1])
        fields = ", ".join(_resolve(parent, schema, "properties").get("properties", {}))
        where = f" in {parent_name}" if parent_name else ""
        return f"unknown field {quote(loc[-1])}{where}; the fields are {fields}"
    name, node = _locate(schema, loc)
    name = name or "the body"
    if kind == "missing":
        return f"{name} is required: {_words(node, schema)}"
    return f"{name} must be {_words(node, schema)}, got {quote(error.get('input'))}"


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def _resolve(node: dict[str, Any], schema: dict[str, Any], key: str) -> dict[str, Any]:
    """``node`` itself, its ``$ref`` target or its ``anyOf`` branch that has ``key``."""
    if "$ref" in node:
        node = {**schema["$defs"][node["$ref"].rsplit("/", 1)[-1]],
                **{k: v for k, v in node.items() if k != "$ref"}}
    for branch in node.get("anyOf", ()):
        branch = _resolve(branch, schema, key)
        if key in branch:
            return branch
    return node


def _locate(schema: dict[str, Any], loc: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    """The name and the schema of the field at ``loc`` (an item titled in the schema, such
    as a die, is named by its title)."""
    name, node = "", schema
    for part in loc:
        if isinstance(part, int):
            node = _resolve(node, schema, "prefixItems")
            items = node.get("prefixItems") or []
            node = items[part] if part < len(items) else node.get("items", {})
            name = node.get("title") or f"{name}[{part}]"
        else:
            node = _resolve(node, schema, "properties").get("properties", {}).get(part, {})
            name = f"{name}.{part}" if name else str(part)
    return name, node


def _words(node: dict[str, Any], schema: dict[str, Any]) -> str:
    """The declared type of a schema node in words."""
    if "$ref" in node:
        return _words(_resolve(node, schema, "type"), schema)
    if "anyOf" in node:
        return " or ".join(_words(branch, schema) for branch in node["anyOf"])
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(v) for v in node["enum"])
    kind = node.get("type")
    if kind == "integer":
        return f"an integer between {node.get('minimum')} and {node.get('maximum')}"
    if kind == "string":
        longest = f" of at most {node['maxLength']} characters" if "maxLength" in node else ""
        return ("a non-empty string" if node.get("minLength") else "a string") + longest
    return {"boolean": "true or false", "null": "null", "object": "an object",
            "array": "an array", "number": "a number"}.get(str(kind), "a valid value")
