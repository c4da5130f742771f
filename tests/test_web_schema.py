"""The HTTP API's declared types (gbot.adapters.web.models) against what the server does.

Oracles: the OpenAPI document the server publishes (every field it declares is refused just
outside its declared range or choices, with a 400 naming the field, and accepted within), the
reply models (real replies hold no undeclared key and every declared constraint), the rule
registry (every switch of ``SWITCHES`` is taken and echoed), and the status codes (random
query strings and bodies are answered 200 or 400, never 500).
"""

from __future__ import annotations

import json
import urllib.parse
import warnings
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("pydantic")
pytest.importorskip("httpx")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

with warnings.catch_warnings():          # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from gbot.adapters.web import models  # noqa: E402
from gbot.adapters.web.app import create_app  # noqa: E402
from gbot.adapters.web.openapi import OPERATIONS, openapi_document  # noqa: E402
from gbot.adapters.web.service import Service  # noqa: E402
from gbot.game.match import SWITCHES, Rules  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

START = "4HPwATDgc/ABMA"
START_PIPS = {"p24": "2", "p13": "5", "p8": "3", "p6": "5", "p1": "-2", "p12": "-5",
              "p17": "-3", "p19": "-5"}
RULES = Rules(jacoby=True, beavers=True)
DOC = openapi_document()
SCHEMAS = DOC["components"]["schemas"]
HOSTILE = ["--1", "+-1", "-+1", "²", "³1", "٣", "３", "1²", "1.0", "1e3", "0x1", "1_0", "", " ",
           "9" * 50, "true"]


@pytest.fixture(scope="module")
def client() -> Any:
    # a 500 comes back as a response, not a raise: the tests below look for it
    with TestClient(create_app(Service(rules=RULES), warm=True, timeout=300),
                    raise_server_exceptions=False) as c:
        yield c


def _message(r: Any) -> str:
    assert r.status_code == 400, (r.status_code, r.text[:300])
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert set(body) == {"message"} and body["message"] and "\n" not in body["message"]
    return str(body["message"])


def _query_params(path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in DOC["paths"][path]["get"]["parameters"]}


def _get(client: Any, path: str, params: dict[str, str]) -> Any:
    return client.get(path + "?" + urllib.parse.urlencode(params))


def _post(client: Any, path: str, body: Any) -> Any:
    """``body`` posted as JSON text (infinities as ``Infinity``, which Python's JSON reads)."""
    return client.post(path, content=json.dumps(body).encode(),
                       headers={"content-type": "application/json"})


def _base_query(path: str) -> dict[str, str]:
    return {**START_PIPS, **({"die1": "3", "die2": "1", "ply": "0"} if path == "/move" else {})}


# --- every declared field is validated as declared -------------------------------------------


@pytest.mark.parametrize("path", ["/move", "/eval"])
def test_each_query_parameter_is_refused_just_outside_its_declared_range(client: Any,
                                                                        path: str) -> None:
    params = _query_params(path)
    assert {f"p{i}" for i in range(26)} | {"x_away", "o_away", "crawford"} <= set(params)
    for name, param in params.items():
        schema = param["schema"]
        if schema["type"] == "boolean":
            bad, good = ["maybe", "2"], ["true", "0"]
        else:
            lo, hi = schema["minimum"], schema["maximum"]
            bad, good = [str(lo - 1), str(hi + 1)], [str(lo), str(hi)]
        for value in bad:
            msg = _message(_get(client, path, {**_base_query(path), name: value}))
            assert msg.startswith(f"{name} must be "), (name, value, msg)
            assert msg.endswith((f"got {value}", f"got {value!r}"))
        for value in good:        # within: not refused for this field (maybe for the board)
            if name == "ply":     # no deep search over HTTP: the model alone
                models.validate(models.MoveQuery, {**_base_query(path), name: value})
                continue
            r = _get(client, path, {**_base_query(path), name: value})
            assert r.status_code in (200, 400), r.text
            if r.status_code == 400:
                assert not _message(r).startswith(f"{name} must be"), (name, value)
    for name, param in params.items():
        if param["required"]:
            query = {k: v for k, v in _base_query(path).items() if k != name}
            assert _message(_get(client, path, query)).startswith(f"{name} is required")


def _body_fields() -> list[tuple[str, dict[str, Any]]]:
    """(dotted name, schema) of each integer and each rule switch the JSON body declares."""
    request = SCHEMAS["PositionRequest"]["properties"]
    out = []
    for name, prop in request.items():
        for branch in prop.get("anyOf", [prop]):
            if branch.get("type") == "integer":
                out.append((name, branch))
            for item in branch.get("prefixItems", ()):
                out.append((item["title"], item))
    rules = SCHEMAS[request["rules"]["$ref"].rsplit("/", 1)[-1]]["properties"]
    out += [(f"rules.{key}", prop) for key, prop in rules.items()]
    return out


def _body_with(name: str, value: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"position": START, "dice": [3, 1], "ply": 0}
    if name.startswith("rules."):
        body["rules"] = {name.split(".", 1)[1]: value}
    elif name in ("die1", "die2"):
        body["dice"] = [value, 1] if name == "die1" else [3, value]
    else:
        body[name] = value
    return body


def test_the_body_declares_every_field_and_switch() -> None:
    names = {name for name, _ in _body_fields()}
    assert {"ply", "count", "trials", "seed", "die1", "die2"} <= names
    assert {f"rules.{s.key}" for s in SWITCHES} <= names


@pytest.mark.parametrize(("name", "schema"), _body_fields(), ids=lambda v: str(v)[:20])
def test_each_body_field_is_refused_outside_its_declared_values(client: Any, name: str,
                                                                schema: dict[str, Any]) -> None:
    if "enum" in schema:
        choices = schema["enum"]
        bad = [max(choices) + 1, -1] if isinstance(choices[0], int) else ["x" + choices[0], 1]
    elif schema["type"] == "boolean":
        bad, choices = ["yes", 1, None], [True, False]
    else:
        bad = [schema["minimum"] - 1, schema["maximum"] + 1, True, 1.0, "--1", "٣"]
        choices = [schema["minimum"], schema["maximum"]]
    for value in bad:
        msg = _message(client.post("/hint", json=_body_with(name, value)))
        assert msg.startswith(f"{name} must be "), (name, value, msg)
    if name in ("trials", "seed") or name.startswith("rules."):
        route = "/cube"           # reads the same body; no rollout, no play list
    else:
        route = "/hint"
    for value in choices:
        body = _body_with(name, value)
        if name == "ply":         # no deep search over HTTP: the model alone
            assert models.validate(models.PositionRequest, body).ply == value
            continue
        r = client.post(route, json=body)
        assert r.status_code in (200, 400), r.text
        if r.status_code == 400:
            assert not _message(r).startswith(f"{name} must be"), (name, value)


def test_every_rule_switch_of_the_registry_is_taken_and_echoed(client: Any) -> None:
    for switch in SWITCHES:
        current = switch.value(RULES)
        values = [not current] if not switch.choices else \
            [c for c in switch.choices if c != current]
        for value in values:
            r = client.post("/cube", json={"position": START, "rules": {switch.key: value}})
            if r.status_code == 200:
                assert r.json()["rules"][switch.key] == value
            else:                 # refused by the rules themselves, not as a field
                assert not _message(r).startswith(f"rules.{switch.key} must be")


# --- replies are what the reply models declare ------------------------------------------------


_REPLY = {(op.method, op.path): op.reply for op in OPERATIONS}


@pytest.mark.parametrize(("method", "path", "payload"), [
    ("get", "/move", {**START_PIPS, "die1": "3", "die2": "1"}),
    ("get", "/move", {**START_PIPS, "die1": "6", "die2": "4", "x_away": "3", "o_away": "5"}),
    ("get", "/move", {"p25": "1", "p5": "14", "p12": "-3",
                      **{f"p{i}": "-2" for i in range(19, 25)}, "die1": "6", "die2": "5"}),
    ("get", "/eval", START_PIPS),
    ("get", "/eval", {**START_PIPS, "x_away": "2", "o_away": "1", "crawford": "yes"}),
    ("post", "/eval", {"position": START}),
    ("post", "/eval", {"position": START, "match_id": "cAkgAAAAAAAA"}),
    ("post", "/hint", {"position": START, "dice": "31", "count": None}),
    ("post", "/hint", {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"}),
    ("post", "/cube", {"position": START + ":cAkgAAAAAAAA"}),
    ("post", "/cube", {"position": "board:gnubg:gbot:5:0:0:-1:4:2:0:-1:2:2:0:1:1:2:0:-2:0:0:"
                                   "1:0:0:0:-2:0:-2:-2:-2:-3:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:"
                                   "0:0:0:0:0:0:1"}),
    ("post", "/rollout", {"position": START, "trials": 2}),
    ("post", "/rollout", {"position": START, "trials": 2, "dice": [6, 5], "count": 2}),
])
def test_replies_hold_to_their_declared_models(client: Any, method: str, path: str,
                                               payload: dict[str, Any]) -> None:
    if method == "get":
        r = _get(client, path, payload)
    else:
        r = client.post(path, json=payload)
    assert r.status_code == 200, r.text
    reply = _REPLY[(method, path)]
    reply.model_validate(r.json())        # extra="forbid": no undeclared key either
    ref = DOC["paths"][path][method]["responses"]["200"]["content"]["application/json"]
    assert ref["schema"]["$ref"].endswith(f"/{reply.__name__}")


# --- hostile input: a 400, never a 500 --------------------------------------------------------


def test_bodies_that_are_not_utf8_json_are_refused(client: Any) -> None:
    text = json.dumps({"position": START})
    assert "UTF-8" in _message(client.post("/hint", content=text.encode("utf-16")))
    assert "UTF-8" in _message(client.post("/hint", content=b'{"position": "\xff\xfe"}'))
    assert client.post("/hint", content=b"\xef\xbb\xbf" + text.encode()).status_code == 200
    for raw in (b'{"position": "%s", "count": 1%s}' % (START.encode(), b"0" * 5000),
                b'{"position": "%s", "count": 1e999}' % START.encode(),
                b'{"position": "%s", "seed": -%s}' % (START.encode(), b"9" * 400)):
        _message(client.post("/rollout", content=raw))


def test_query_strings_that_are_not_utf8_are_refused(client: Any) -> None:
    msg = _message(client.get("/move?die1=%FF&die2=1&p24=2&p1=-2"))
    assert msg.startswith("die1 must be an integer")


_KEYS = st.sampled_from([f"p{i}" for i in range(26)] + ["die1", "die2", "x_away", "o_away",
                                                         "crawford", "ply", "other"])
_TEXT = st.one_of(st.integers(-20, 20).map(str), st.sampled_from(HOSTILE),
                  st.text(max_size=6),
                  st.text(alphabet=st.characters(categories=("Nd", "No", "Pd", "Sm", "Zs")),
                          max_size=4))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["/move", "/eval"]), st.lists(st.tuples(_KEYS, _TEXT), max_size=10),
       st.booleans())
def test_random_query_strings_are_answered_or_refused(client: Any, path: str,
                                                      pairs: list[tuple[str, str]],
                                                      on_start: bool) -> None:
    pairs = [(k, v) for k, v in pairs if not (k == "ply" and v.strip() in ("1", "2"))]
    base = list(_base_query(path).items()) if on_start else []
    r = client.get(path + "?" + urllib.parse.urlencode(base + pairs))
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        _message(r)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
_FIELDS = st.sampled_from(["position", "match_id", "dice", "ply", "count", "rules", "trials",
                           "seed", "turbo"])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["/hint", "/eval", "/cube"]), st.dictionaries(_FIELDS, _JSON, max_size=5),
       st.booleans())
def test_random_bodies_are_answered_or_refused(client: Any, path: str, body: dict[str, Any],
                                               on_start: bool) -> None:
    if on_start:
        body = {"position": START, **{k: v for k, v in body.items() if k != "position"}}
    if body.get("ply") in (1, 2):
        body["ply"] = 0           # a deep search is slow, not wrong
    r = _post(client, path, body)
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        _message(r)


def _bad_integer(lo: int, hi: int) -> st.SearchStrategy[str]:
    """Text no integer field between lo and hi accepts."""
    return st.one_of(st.integers(hi + 1, hi + 10**9).map(str),
                     st.integers(lo - 10**9, lo - 1).map(str),
                     st.sampled_from(["--1", "+-1", "-+1", "²", "٣", "３", "1²", "1.0", "1e3",
                                      "0x1", "9" * 50, "true", "x"]),
                     st.text(alphabet=st.characters(categories=("Nd", "No")), min_size=1,
                             max_size=4).filter(lambda t: not t.isascii()))


_QUERY_FIELDS = sorted(_query_params("/move").items())


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(_QUERY_FIELDS), st.data())
def test_a_bad_query_field_is_a_400_naming_it(client: Any, field: tuple[str, Any],
                                              data: st.DataObject) -> None:
    name, param = field
    schema = param["schema"]
    if schema["type"] == "boolean":
        value = data.draw(st.sampled_from(["maybe", "2", "٣", "tru"]))
    else:
        value = data.draw(_bad_integer(schema["minimum"], schema["maximum"]))
    msg = _message(_get(client, "/move", {**_base_query("/move"), name: value}))
    assert msg.startswith(f"{name} must be "), msg
    assert len(msg) < 200


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from([f for f in _body_fields() if "minimum" in f[1]]), st.data())
def test_a_bad_body_number_is_a_400_naming_it(client: Any, field: tuple[str, Any],
                                              data: st.DataObject) -> None:
    name, schema = field
    value: Any = data.draw(st.one_of(
        _bad_integer(schema["minimum"], schema["maximum"]),
        st.integers(schema["maximum"] + 1, schema["maximum"] + 10**30),
        st.floats(allow_nan=False), st.booleans()))
    msg = _message(_post(client, "/hint", _body_with(name, value)))
    assert msg.startswith(f"{name} must be "), msg


def test_messages_name_the_declared_type_and_quote_the_value() -> None:
    cases = [
        (models.MoveQuery, {"die1": "٣", "die2": "1"},
         "die1 must be an integer between 1 and 6, got '٣'"),
        (models.EvalQuery, {"x_away": "3"},
         "x_away and o_away are both 0 (money) or both at least 1, got 3 and 0"),
        (models.EvalQuery, {"p24": "15", "p13": "3"},
         "player x has 18 checkers on the board, at most 15"),
        (models.PositionRequest, {"position": START, "turbo": 1},
         "unknown field 'turbo'; the fields are position, match_id, dice, ply, cube_ply, count, "
         "rules, trials, seed"),
        (models.PositionRequest, {"position": START, "dice": "3²"},
         "dice must be two dice 1 to 6 such as \"65\" or [6, 5], got '3²'"),
        (models.PositionRequest, {"position": START, "count": "0", "ply": 9},
         "ply must be an integer between 0 and 2 or null, got 9 (and 1 more)"),
        (models.PositionRequest, {"position": "x" * 500},
         "position must be a non-empty string of at most 400 characters, got "
         "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (500 characters)"),
    ]
    for model, data, want in cases:
        with pytest.raises(ValueError) as info:
            models.validate(model, data)
        assert str(info.value) == want
    good = models.validate(models.PositionRequest, {"position": START, "dice": " 6-5",
                                                    "ply": " 1 ", "rules": {"cube_cap": "8"}})
    assert good.dice == (6, 5) and good.ply == 1
    assert good.rules.model_dump(exclude_unset=True) == {"cube_cap": 8}


@pytest.mark.parametrize(("body", "want"), [({}, 2), ({"ply": 0}, 2), ({"cube_ply": 0}, 0),
                                            ({"ply": 1, "cube_ply": 1}, 1)])
def test_cube_figures_say_their_depth(body: dict[str, int], want: int) -> None:
    """/cube names the look-ahead of its decision; cube_ply sets it (default: ply, at least
    2), and the figures are the engine's at that depth."""
    from gbot.engine.engine import Engine
    from gbot.engine.hints import cube_hint
    from gbot.game.match import MatchState
    from gbot.game.position import Position

    svc = Service(rules=RULES)
    pid = START
    reply = svc.cube({"position": pid, **body})
    assert reply["cube"]["ply"] == want
    ply = body.get("ply", svc.ply)
    eng = Engine(evaluator=svc.evaluator(False), ply=ply, cube_ply=body.get("cube_ply"),
                 rules=RULES)
    h = cube_hint(eng, Position.from_id(pid), MatchState(rules=RULES))
    assert reply["cube"]["equities"]["no_double"] == pytest.approx(h.equities[0], abs=1e-9)
