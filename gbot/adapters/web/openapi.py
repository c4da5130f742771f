"""The OpenAPI 3.1 description of the HTTP API (served at ``/openapi.json``, shown at ``/docs``)."""

from __future__ import annotations

from typing import Any

from gbot.game.match import SWITCHES, Switch
from gbot.version import __version__

__all__ = ["openapi_document"]

Json = dict[str, Any]


def _ref(name: str) -> Json:
    return {"$ref": f"#/components/schemas/{name}"}


def _num(desc: str) -> Json:
    return {"type": "number", "minimum": 0, "maximum": 1, "description": desc}


def _pip_params() -> list[Json]:
    out: list[Json] = []
    for i in range(26):
        if i == 0:
            schema: Json = {"type": "integer", "minimum": -15, "maximum": 0}
            desc = "Bar of o, the opponent (0 or negative)."
        elif i == 25:
            schema = {"type": "integer", "minimum": 0, "maximum": 15}
            desc = "Bar of x, the side on roll (0 or positive)."
        else:
            schema = {"type": "integer", "minimum": -15, "maximum": 15}
            desc = f"Point {i} of x (x moves 24 -> 1): positive x, negative o."
        out.append({"name": f"p{i}", "in": "query", "required": False, "schema": schema,
                    "description": desc})
    return out


_AWAY = [
    {"name": "x_away", "in": "query", "required": False,
     "schema": {"type": "integer", "minimum": 0, "maximum": 64},
     "description": "Points x still needs (0 with o_away 0: money game)."},
    {"name": "o_away", "in": "query", "required": False,
     "schema": {"type": "integer", "minimum": 0, "maximum": 64},
     "description": "Points o still needs."},
    {"name": "crawford", "in": "query", "required": False, "schema": {"type": "boolean"},
     "description": "gbot extension: this is the Crawford game (no doubling)."},
]

_DICE = [
    {"name": "die1", "in": "query", "required": True,
     "schema": {"type": "integer", "minimum": 1, "maximum": 6}, "example": 3},
    {"name": "die2", "in": "query", "required": True,
     "schema": {"type": "integer", "minimum": 1, "maximum": 6}, "example": 1},
]

_ERRORS: Json = {
    "400": {"description": "Bad input (position, dice, score, rules, options).",
            "content": {"application/json": {"schema": _ref("ErrorMessage")}}},
    "413": {"description": "The body is too large.",
            "content": {"application/json": {"schema": _ref("ErrorMessage")}}},
    "503": {"description": "The request ran past the server's time bound.",
            "content": {"application/json": {"schema": _ref("ErrorMessage")}}},
}


def _native(summary: str, desc: str, example: Json, reply: str) -> Json:
    return {"post": {
        "tags": ["gbot"], "summary": summary, "description": desc,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": _ref("PositionRequest"), "example": example}}},
        "responses": {"200": {"description": "The answer.", "content": {
            "application/json": {"schema": _ref(reply)}}}, **_ERRORS},
    }}


def _switch_schema(switch: Switch) -> dict[str, Any]:
    """The JSON schema of one rule switch (:data:`gbot.game.match.SWITCHES`)."""
    if not switch.choices:
        return {"type": "boolean", "description": switch.help}
    kind = "integer" if isinstance(switch.choices[0], int) else "string"
    return {"type": kind, "enum": list(switch.choices), "description": switch.help}


def openapi_document() -> Json:
    """The API's OpenAPI document (a fresh dict)."""
    probs_w = {"type": "object", "title": "wildbg probabilities",
               "description": "Of x. `win` includes gammons and backgammons, `winG` "
                              "backgammons, `loseG` includes `loseBg`; lose = 1 - win.",
               "properties": {k: _num(k) for k in ("win", "winG", "winBg", "loseG", "loseBg")},
               "required": ["win", "winG", "winBg", "loseG", "loseBg"]}
    probs = {"type": "object", "description": "Cubeless, of the side on roll; gammons "
                                              "include backgammons.",
             "properties": {k: _num(k) for k in ("win", "win_gammon", "win_backgammon", "lose",
                                                 "lose_gammon", "lose_backgammon")}}
    rules = {"type": "object", "description": "Rule switches; missing ones keep the server's "
                                              "defaults (gbot web --help).",
             "properties": {s.key: _switch_schema(s) for s in SWITCHES}}
    request = {"type": "object", "required": ["position"], "properties": {
        "position": {"type": "string", "description":
                     "Position ID, PID:MatchID, XGID=... or a FIBS/gnubg board: line."},
        "match_id": {"type": "string", "description": "Match ID, when not in `position`."},
        "dice": {"description": "\"65\" or [6, 5]; default: the dice of the notation.",
                 "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}},
                           {"type": "null"}]},
        "ply": {"type": "integer", "minimum": 0, "maximum": 2},
        "count": {"type": ["integer", "null"], "minimum": 1, "maximum": 1000,
                  "description": "/hint: plays to list (null: all); default 5."},
        "rules": _ref("Rules"),
        "trials": {"type": "integer", "minimum": 1, "maximum": 1296,
                   "description": "/rollout: games per position (default 144)."},
        "seed": {"type": "integer", "description": "/rollout: the dice seed (default 1)."},
    }}
    header = {
        "position_id": {"type": "string"}, "match_id": {"type": "string"},
        "board": {"type": "array", "items": {"type": "integer"}, "description":
                  "26 counts seen by the side on roll (wildbg's p0..p25 layout)."},
        "pips": {"type": "array", "items": {"type": "integer"}},
        "ply": {"type": "integer"}, "state": {"type": "object"}, "rules": _ref("Rules"),
        "deciding": {"type": "string", "enum": ["move", "double", "take"]},
    }
    cube = {"type": "object", "properties": {
        "action": {"type": "string", "enum": ["no_double", "double_take", "double_pass",
                                              "too_good_take", "too_good_pass"]},
        "response": {"type": "string", "enum": ["take", "pass", "beaver"]},
        "can_double": {"type": "boolean"},
        "equities": {"type": "object", "description": "Cubeful, from the side on roll "
                     "(null where it may not double)."},
        "mwc": {"type": "object", "description": "Match-winning chances (match play)."},
        "probabilities": probs,
        "engine": {"type": "object", "description": "What gbot plays: double now, take."},
    }}
    play = {"type": "object", "properties": {
        "rank": {"type": "integer"}, "move": {"type": "string"},
        "equity": {"type": "number"}, "diff": {"type": "number"}, "ply": {"type": "integer"},
        "probabilities": probs, "steps": {"type": "array", "items": _ref("MoveDetail")},
        "next_position_id": {"type": "string", "description": "The opponent's view after."},
        "board_after": {"type": "array", "items": {"type": "integer"}},
        "game_over": {"type": "boolean"}}}
    schemas = {
        "ErrorMessage": {"type": "object", "properties": {"message": {"type": "string"}},
                         "required": ["message"]},
        "MoveDetail": {"type": "object", "description": "One checker moving one die: bar is "
                       "25, off is 0.", "properties": {
                           "from": {"type": "integer", "minimum": 1, "maximum": 25},
                           "to": {"type": "integer", "minimum": 0, "maximum": 24}}},
        "ProbabilitiesView": probs_w,
        "MoveInfo": {"type": "object", "properties": {
            "play": {"type": "array", "maxItems": 4, "items": _ref("MoveDetail")},
            "probabilities": _ref("ProbabilitiesView")}},
        "MoveResponse": {"type": "object", "description": "Every legal play, gbot's choice "
                         "first; one with an empty `play` when none is legal.",
                         "properties": {"moves": {"type": "array", "items": _ref("MoveInfo")}}},
        "CubeInfo": {"type": "object", "properties": {
            "double": {"type": "boolean", "description": "x should double now (false when "
                                                         "not yet, or too good)."},
            "accept": {"type": "boolean", "description": "o should take a double now."}}},
        "EvalResponse": {"type": "object", "properties": {
            "cube": _ref("CubeInfo"), "probabilities": _ref("ProbabilitiesView")}},
        "Rules": rules,
        "PositionRequest": request,
        "HintResponse": {"type": "object", "properties": {
            **header, "dice": {"type": "array", "items": {"type": "integer"}},
            "plays": {"type": "array", "items": play}, "best": {"type": ["string", "null"]},
            "legal_plays": {"type": "integer"}, "cube": cube}},
        "EvalNativeResponse": {"type": "object", "properties": {
            **header, "probabilities": probs, "cubeless_equity": {"type": "number"},
            "cubeful_equity": {"type": "number", "description": "money"},
            "cubeless_mwc": {"type": "number", "description": "match"},
            "cubeful_mwc": {"type": "number", "description": "match"},
            "emg": {"type": "number", "description": "match"},
            "cube_words": {"type": "string"}}},
        "CubeResponse": {"type": "object", "properties": {**header, "cube": cube,
                                                          "take": {"type": "object"}}},
        "RolloutResponse": {"type": "object", "properties": {
            **header, "trials": {"type": "integer"}, "seed": {"type": "integer"},
            "position": {"type": "object"}, "cube": {"type": "object"},
            "plays": {"type": "array", "items": {"type": "object"}}}},
    }
    pid = "4HPwATDgc/ABMA"
    paths = {
        "/move": {"get": {
            "tags": ["wildbg"], "summary": "Moves for a position and dice (wildbg)",
            "description": "All legal plays, best first, each with the probabilities after it. "
                           "Points without checkers may be left out; x is on roll and moves "
                           "24 -> 1. gbot extension: `ply` (0-2).",
            "parameters": _DICE + _pip_params() + _AWAY + [
                {"name": "ply", "in": "query", "required": False,
                 "schema": {"type": "integer", "minimum": 0, "maximum": 2}}],
            "responses": {"200": {"description": "The plays.", "content": {
                "application/json": {"schema": _ref("MoveResponse")}}}, **_ERRORS}}},
        "/eval": {"get": {
            "tags": ["wildbg"], "summary": "Probabilities and cube decision (wildbg)",
            "parameters": _pip_params() + _AWAY,
            "responses": {"200": {"description": "The evaluation.", "content": {
                "application/json": {"schema": _ref("EvalResponse")}}}, **_ERRORS}},
            **_native("Cubeless probabilities and equity (gbot eval)",
                      "Probabilities, cubeless equity and gbot's cubeful equity (money) or "
                      "match-winning chance (match).", {"position": pid, "ply": 0},
                      "EvalNativeResponse")},
        "/hint": _native("Ranked plays, or the cube action without dice (gbot hint)",
                         "With dice (in the body or the notation): the plays ranked, gbot's "
                         "choice first. Without: the cube decision.",
                         {"position": pid, "dice": "31", "ply": 0, "count": 5}, "HintResponse"),
        "/cube": _native("Cube decision", "Double or not for the side on roll, and the "
                         "opponent's take/pass/beaver.",
                         {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
                          "rules": {"jacoby": True}}, "CubeResponse"),
        "/rollout": _native("Rollout (gbot.analysis.rollout)",
                            "0-ply checker play, cubeful by the 0-ply cube model. With dice: "
                            "the `count` best plays (at most 5) rolled out; without: the "
                            "position and, when the side on roll may double, the cube "
                            "decision. `trials` 1-1296 (default 144), `seed`.",
                            {"position": pid, "trials": 144, "seed": 1}, "RolloutResponse"),
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "gbot", "version": __version__,
                 "description": "gbot's HTTP API: wildbg-compatible `GET /move` and `GET /eval`, "
                                "and gbot's own `POST /hint`, `/eval`, `/cube`, `/rollout`. "
                                "Errors are `{\"message\": ...}`."},
        "paths": paths,
        "components": {"schemas": schemas},
    }
