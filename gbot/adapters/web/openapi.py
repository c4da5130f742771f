"""The OpenAPI 3.1 description of the HTTP API (served at ``/openapi.json``, shown at ``/docs``).

Its schemas are those of the models that validate the requests and declare the replies
(:mod:`gbot.adapters.web.models`); :data:`OPERATIONS` adds what a model cannot say: each
route's method, path, summary and example.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from gbot.adapters.web.models import (
    CubeReply,
    EvalQuery,
    EvalReply,
    HintReply,
    MoveQuery,
    MoveReply,
    PositionRequest,
    RolloutReply,
    WildbgEvalReply,
)
from gbot.version import __version__

__all__ = ["OPERATIONS", "ErrorMessage", "Operation", "openapi_document"]

Json = dict[str, Any]
REF = "#/components/schemas/{model}"


class ErrorMessage(BaseModel):
    """Every error reply: one line of text."""

    message: str


@dataclass(frozen=True)
class Operation:
    """One method on one path: its request model (query parameters for ``get``, the JSON body
    for ``post``), its reply model and the words and example the document shows."""

    method: str
    path: str
    tag: str
    summary: str
    description: str
    request: type[BaseModel]
    reply: type[BaseModel]
    example: Any = None


_PID = "4HPwATDgc/ABMA"

OPERATIONS: tuple[Operation, ...] = (
    Operation("get", "/move", "wildbg", "Moves for a position and dice (wildbg)",
              "All legal plays, best first, each with the probabilities after it. Points "
              "without checkers may be left out; x is on roll and moves 24 -> 1. gbot "
              "extension: `ply` (0-2).", MoveQuery, MoveReply),
    Operation("get", "/eval", "wildbg", "Probabilities and cube decision (wildbg)",
              "Cubeless probabilities of x and whether x doubles and o takes.", EvalQuery,
              WildbgEvalReply),
    Operation("post", "/eval", "gbot", "Cubeless probabilities and equity (gbot eval)",
              "Probabilities, cubeless equity and gbot's cubeful equity (money) or "
              "match-winning chance (match).", PositionRequest, EvalReply,
              {"position": _PID, "ply": 0}),
    Operation("post", "/hint", "gbot", "Ranked plays, or the cube action without dice "
              "(gbot hint)", "With dice (in the body or the notation): the plays ranked, "
              "gbot's choice first. Without: the cube decision.", PositionRequest, HintReply,
              {"position": _PID, "dice": "31", "ply": 0, "count": 5}),
    Operation("post", "/cube", "gbot", "Cube decision", "Double or not for the side on roll, "
              "and the opponent's take/pass/beaver.", PositionRequest, CubeReply,
              {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
               "rules": {"jacoby": True}}),
    Operation("post", "/rollout", "gbot", "Rollout (gbot.analysis.rollout)",
              "0-ply checker play, cubeful by the 0-ply cube model. With dice: the `count` "
              "best plays (at most 5) rolled out; without: the position and, when the side on "
              "roll may double, the cube decision.", PositionRequest, RolloutReply,
              {"position": _PID, "trials": 144, "seed": 1}),
)
"""Every route of the API the document describes."""


def _parameters(model: type[BaseModel]) -> list[Json]:
    """A query model's fields as OpenAPI query parameters."""
    schema = model.model_json_schema(ref_template=REF)
    required = set(schema.get("required", ()))
    out = []
    names = sorted(schema["properties"], key=lambda name: name not in required)
    for name in names:
        prop = {k: v for k, v in schema["properties"][name].items()
                if k not in ("title", "description", "examples", "default")}
        # a parameter is absent rather than null: its schema is the non-null branch
        branches = [b for b in prop.pop("anyOf", ()) if b.get("type") != "null"]
        if branches:
            prop.update(branches[0])
        param: Json = {"name": name, "in": "query", "required": name in required,
                       "schema": prop}
        field = model.model_fields[name]
        if field.description:
            param["description"] = field.description
        if field.examples:
            param["example"] = field.examples[0]
        out.append(param)
    return out


def _errors(method: str, refs: Mapping[Any, Json]) -> Json:
    error = refs[(ErrorMessage, "validation")]
    reply = {"content": {"application/json": {"schema": error}}}
    out = {"400": {"description": "Bad input (position, dice, score, rules, options).", **reply}}
    if method == "post":
        out["413"] = {"description": "The body is too large.", **reply}
    out["503"] = {"description": "The server is busy, or the request ran past its time "
                                 "bound.", **reply}
    return out


def openapi_document() -> Json:
    """The API's OpenAPI document (a fresh dict)."""
    models = {ErrorMessage} | {op.reply for op in OPERATIONS} | \
        {op.request for op in OPERATIONS if op.method == "post"}
    refs, top = models_json_schema([(m, "validation") for m in
                                    sorted(models, key=lambda m: m.__name__)],
                                   ref_template=REF)
    paths: Json = {}
    for op in OPERATIONS:
        entry: Json = {"tags": [op.tag], "summary": op.summary, "description": op.description}
        if op.method == "get":
            entry["parameters"] = _parameters(op.request)
        else:
            body: Json = {"schema": refs[(op.request, "validation")]}
            if op.example is not None:
                body["example"] = op.example
            entry["requestBody"] = {"required": True, "content": {"application/json": body}}
        entry["responses"] = {
            "200": {"description": "The answer.", "content": {
                "application/json": {"schema": refs[(op.reply, "validation")]}}},
            **_errors(op.method, refs)}
        paths.setdefault(op.path, {})[op.method] = entry
    return {
        "openapi": "3.1.0",
        "info": {"title": "gbot", "version": __version__,
                 "description": "gbot's HTTP API: wildbg-compatible `GET /move` and `GET /eval`, "
                                "and gbot's own `POST /hint`, `/eval`, `/cube`, `/rollout`. "
                                "Errors are `{\"message\": ...}`."},
        "paths": paths,
        "components": {"schemas": top.get("$defs", {})},
    }
