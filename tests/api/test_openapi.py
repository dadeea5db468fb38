"""openapi.yaml: generated from the code (drift fails), OpenAPI 3.1, typed; docs pages served locally."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)
from flask.testing import FlaskClient

from api.error_answers import ERROR_CODES
from api.openapi_gen import spec_yaml
from core.bot_registry import NOT_A_BOT, URL_REFUSAL_CODES
from core.wire import GAME_WIRE
from games.registry import GAMES
from tests.api.conftest import auth

ROOT = Path(__file__).resolve().parents[2]
# Codes of the command line's own JSON errors (harness.cli), never an answer of the API.
CLI_ONLY_CODES = {"invalid_cpu_policy", "invalid_max_in_flight"}
CONTRACT_OPERATIONS = {
    "listGameTypes",
    "createGame",
    "joinGame",
    "getGame",
    "listLegalMoves",
    "postMove",
    "getGameEvents",
    "streamGameEvents",
    "getReplay",
    "getHealth",
}


def test_committed_openapi_yaml_matches_the_code() -> None:
    """Rule: openapi.yaml is what `python -m api.openapi_gen openapi.yaml` writes now."""
    assert (ROOT / "openapi.yaml").read_text() == spec_yaml()


def test_spec_is_openapi_31_with_the_contract_operations_and_links() -> None:
    """Rule: the contract's operationIds exist; createGame links to getGame and postMove."""
    spec = yaml.safe_load(spec_yaml())
    assert spec["openapi"].startswith("3.1")
    operations = {
        op["operationId"]: op
        for path in spec["paths"].values()
        for op in path.values()
        if "operationId" in op
    }
    assert CONTRACT_OPERATIONS <= set(operations)
    links = operations["createGame"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} >= {"getGame", "postMove"}


def test_moves_views_and_cards_are_typed() -> None:
    """Rule: moves are a discriminated union per game, views are typed per game, cards have a pattern."""
    schemas = yaml.safe_load(spec_yaml())["components"]["schemas"]
    for prefix in ("TrickyTeams", "TrickNTrouble"):
        union = schemas[f"{prefix}Move"]
        assert union["discriminator"]["propertyName"] == "type" and len(union["oneOf"]) >= 3
        assert "properties" in schemas[f"{prefix}View"]
        assert schemas[f"{prefix}View"]["properties"]["legal_moves"]["items"] == {
            "$ref": f"#/components/schemas/{prefix}Move"
        }
    assert schemas["TrickyTeamsPlayMove"]["properties"]["card"]["pattern"]
    assert {"code", "message"} <= set(schemas["Error"]["required"])


def test_envelopes_narrow_by_game_and_carry_that_games_types() -> None:
    """Rule: each answer that carries a game's types is a union discriminated by `game` (or `name`) whose
    members carry only their game's moves, views, events, results and options."""
    schemas = yaml.safe_load(spec_yaml())["components"]["schemas"]
    games = sorted(GAME_WIRE)
    for union, prop in [
        ("Game", "game"),
        ("LegalMoves", "game"),
        ("EventList", "game"),
        ("Replay", "game"),
        ("NewGame", "game"),
        ("GameType", "name"),
    ]:
        mapping = schemas[union]["discriminator"]["mapping"]
        assert schemas[union]["discriminator"]["propertyName"] == prop and sorted(mapping) == games
        for game, target in mapping.items():
            member = schemas[target.rsplit("/", 1)[1]]
            assert member["properties"][prop]["enum"] == [game], (union, game)
            prefix = GAME_WIRE[game][0]
            refs = re.findall(r"#/components/schemas/(\w+)", json.dumps(member))
            foreign = [r for r in refs if any(r.startswith(GAME_WIRE[g][0]) for g in games if g != game)]
            assert not foreign and any(r.startswith(prefix) for r in refs), (union, game, refs)


def test_no_catch_all_objects_and_every_schema_and_property_described() -> None:
    """Rule: nothing a client reads of a game is an untyped object; every game schema and property says
    what it is (an optional one when it is present)."""
    spec = yaml.safe_load(spec_yaml())
    schemas = spec["components"]["schemas"]
    game_names = [
        name
        for name in schemas
        if name.startswith(("TrickyTeams", "TrickNTrouble"))
        or name in {"Game", "LegalMoves", "EventList", "Replay", "NewGame", "GameType", "Move", "EventRecord"}
        or name in {"Error", "ErrorDetails", "CreatedGame", "JoinGame", "JoinedGame", "Health", "SeatToken"}
    ]
    assert len(game_names) > 80

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            assert node.get("additionalProperties") != {}, f"catch-all at {where}"
            for key, value in (node.get("properties") or {}).items():
                assert "description" in value, f"{where}.{key} has no description"
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    for name in game_names:
        assert schemas[name].get("description"), f"{name} has no description"
        walk(schemas[name], name)
    used = set(re.findall(r"#/components/schemas/(\w+)", json.dumps(spec)))
    assert not [name for name in game_names if name not in used and name != "NewGame"], "unused"


# Keywords that give a schema its shape (an object schema with none of them is untyped).
SHAPING = (
    "properties",
    "additionalProperties",
    "patternProperties",
    "$ref",
    "oneOf",
    "anyOf",
    "allOf",
    "enum",
)


def catch_alls(node: Any, where: str = "#") -> list[str]:
    """Every place in a part of the document where a value is left untyped: `additionalProperties: {}`
    or `true`, items of any shape, or an object schema that says nothing of its fields."""
    found: list[str] = []
    if isinstance(node, list):
        for index, value in enumerate(node):
            found += catch_alls(value, f"{where}[{index}]")
        return found
    if not isinstance(node, dict):
        return found
    if node.get("additionalProperties") in ({}, True):
        found.append(f"{where}: additionalProperties {node['additionalProperties']!r}")
    if node.get("items") in ({}, True):
        found.append(f"{where}: items of any shape")
    types = node.get("type")
    if (types == "object" or (isinstance(types, list) and "object" in types)) and not any(
        key in node for key in SHAPING
    ):
        found.append(f"{where}: an object with no fields")
    for key, value in node.items():
        if key in ("properties", "examples", "example", "default", "enum", "const"):
            # Maps of names to schemas (their names are not keywords), or values, not schemas.
            if key == "properties" and isinstance(value, dict):
                for name, schema in value.items():
                    found += catch_alls(schema, f"{where}.{name}")
            continue
        found += catch_alls(value, f"{where}/{key}")
    return found


def test_nothing_a_client_reads_or_sends_is_an_untyped_object() -> None:
    """Rule: no schema of openapi.yaml (components, operations, webhooks) is a catch-all: no
    `additionalProperties: {}` / `true`, no untyped items, no object without fields; options,
    schedules, standings' matrices and the bot protocol's game parts are named types."""
    spec = yaml.safe_load(spec_yaml())
    assert catch_alls(spec) == []
    schemas = spec["components"]["schemas"]
    assert schemas["Tournament"]["properties"]["options"]["$ref"].endswith("/GameOptions")
    assert schemas["Tournament"]["properties"]["league"]["$ref"].endswith("/LeagueRound")
    assert schemas["League"]["properties"]["schedule"]["$ref"].endswith("/LeagueSchedule")
    standings = schemas["Standings"]["properties"]
    assert standings["head_to_head"]["additionalProperties"]["additionalProperties"]["$ref"].endswith(
        "/HeadToHeadCell"
    )
    assert standings["cross_play"]["additionalProperties"]["additionalProperties"]["$ref"].endswith(
        "/CrossPlayCell"
    )
    assert standings["faults"]["additionalProperties"]["$ref"].endswith("/FaultCounts")
    assert standings["compositions"]["items"]["$ref"].endswith("/Composition")
    assert {s["$ref"].rsplit("/", 1)[1] for s in schemas["GameOptions"]["anyOf"]} == {
        f"{prefix}NewOptions" for prefix, _ in GAME_WIRE.values()
    }


def test_the_bot_protocol_is_the_documents_webhooks_and_every_component_is_used() -> None:
    """Rule: the calls the platform makes to a bot (GET /, POST /start, /move, /end) are OpenAPI 3.1
    `webhooks` whose bodies and answers are the Bot* messages, the signed ones with their signature
    headers; so every component is referenced from an operation or a webhook (no lint exception)."""
    spec = yaml.safe_load(spec_yaml())
    hooks = spec["webhooks"]
    assert set(hooks) == {"botInfo", "botStart", "botMove", "botEnd"}
    assert hooks["botInfo"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/BotInfo"
    }
    for name, body in [
        ("botStart", "BotStartRequest"),
        ("botMove", "BotMoveRequest"),
        ("botEnd", "BotEndRequest"),
    ]:
        call = hooks[name]["post"]
        assert call["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(f"/{body}")
        assert {p["name"] for p in call["parameters"]} == {"X-TrickArena-Timestamp", "X-TrickArena-Signature"}
        assert call["responses"]["401"]["content"]["application/json"]["schema"]["$ref"].endswith("/BotError")
    move = hooks["botMove"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert move["$ref"].endswith("/BotMoveResponse")
    bot = spec["components"]["schemas"]
    assert bot["BotMoveResponse"]["properties"]["move"]["$ref"].endswith("/Move")
    assert bot["BotMoveRequest"]["properties"]["view"]["$ref"].endswith("/GameView")
    assert bot["BotEndRequest"]["properties"]["result"]["$ref"].endswith("/GameResult")
    text = json.dumps({k: v for k, v in spec.items() if k != "components"})
    referenced = set(re.findall(r"#/components/schemas/(\w+)", text))
    while True:
        more = {
            r
            for name in referenced
            for r in re.findall(
                r"#/components/schemas/(\w+)", json.dumps(spec["components"]["schemas"][name])
            )
        } - referenced
        if not more:
            break
        referenced |= more
    assert sorted(set(spec["components"]["schemas"]) - referenced) == []


def test_the_json_schema_type_takes_every_games_options_schema() -> None:
    """Rule: `JsonSchema` (listGameTypes' `options_schema`) is closed, and each game's options schema is
    one: a game that writes a keyword the type lacks fails here, not in a client."""
    spec = json.loads(json.dumps(yaml.safe_load(spec_yaml())))
    assert spec["components"]["schemas"]["JsonSchema"]["additionalProperties"] is False
    document = {**spec["components"]["schemas"]["JsonSchema"], "components": spec["components"]}
    validator = jsonschema_rs.Draft202012Validator(document)
    for name, game in GAMES.items():
        errors = [e.message for e in validator.iter_errors(game.options_schema())]
        assert errors == [], name
    assert not validator.is_valid({"type": "object", "x-anything": 1})
    # Values nest through objects to any depth, but an array holds no array (generated clients could
    # not type that cycle: docs/api.md).
    assert validator.is_valid({"default": [{"a": [1, {"b": None}]}, "x"], "enum": [{"c": {"d": [True]}}]})
    assert not validator.is_valid({"default": [[1]]})


def test_every_property_has_a_description() -> None:
    """Rule: every property of every component schema (a `$ref` aside) says what it is."""
    schemas = yaml.safe_load(spec_yaml())["components"]["schemas"]
    missing: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        for key, value in (node.get("properties") or {}).items():
            if isinstance(value, dict) and "description" not in value and "$ref" not in value:
                missing.append(f"{path}.{key}")
            walk(value, f"{path}.{key}")
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                walk(node[key], f"{path}[]")
        for key in ("oneOf", "anyOf", "allOf"):
            for index, option in enumerate(node.get(key) or []):
                walk(option, f"{path}|{index}")

    for name, schema in schemas.items():
        walk(schema, name)
    assert missing == []


def test_error_codes_are_the_codes_the_code_raises() -> None:
    """Rule: Error.code is an enum of ERROR_CODES, and every code the API, core, harness or games raise
    is one of them."""
    code = yaml.safe_load(spec_yaml())["components"]["schemas"]["Error"]["properties"]["code"]
    assert code["enum"] == sorted(ERROR_CODES)
    raised: set[str] = set()
    for folder in ("api", "core", "harness", "games"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.keyword)
                    and node.arg == "code"
                    and isinstance(node.value, ast.Constant)
                ):
                    raised.add(str(node.value.value))
                elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "code" for t in node.targets
                ):
                    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                        raised.add(str(node.value.value))
                elif isinstance(node, ast.Dict):
                    for key, value in zip(node.keys, node.values, strict=True):
                        if (
                            isinstance(key, ast.Constant)
                            and key.value == "code"
                            and isinstance(value, ast.Constant)
                        ):
                            raised.add(str(value.value))
                elif isinstance(node, ast.FunctionDef) and node.name == "_invalid":
                    raised.update(str(d.value) for d in node.args.defaults if isinstance(d, ast.Constant))
    assert raised - CLI_ONLY_CODES <= set(ERROR_CODES), sorted(raised - CLI_ONLY_CODES - set(ERROR_CODES))
    # Codes raised through names rather than literals: createBot's refusals of a bot URL.
    assert {NOT_A_BOT, *URL_REFUSAL_CODES.values()} <= set(ERROR_CODES)


def test_every_operation_is_described_with_its_parameters() -> None:
    """Rule: each games operation has a description and security; the query and header parameters the
    server reads are declared."""
    spec = yaml.safe_load(spec_yaml())
    operations = {
        op["operationId"]: op
        for path in spec["paths"].values()
        for op in path.values()
        if "operationId" in op
    }
    for name in CONTRACT_OPERATIONS | {"postTrickyTeamsMove", "postTrickNTroubleMove"}:
        assert operations[name]["description"] and "security" in operations[name], name

    def params(name: str) -> set[str]:
        return {p["name"] for p in operations[name].get("parameters", [])}

    assert {"since", "timeout", "Last-Event-ID"} <= params("streamGameEvents")
    assert {"since"} <= params("getGameEvents")
    assert {"If-None-Match"} <= params("getGame")
    assert {"If-Match"} <= params("postMove") and {"If-Match"} <= params("postTrickyTeamsMove")
    assert set(operations["streamGameEvents"]["responses"]["200"]["content"]) == {"text/event-stream"}
    join = spec["components"]["schemas"]["JoinGame"]
    assert not join.get("required") and "default" not in join["properties"]["seat"]


def test_swagger_ui_and_redoc_load_from_local_assets(client: FlaskClient) -> None:
    """Rule: /docs and /redoc work offline: every script and stylesheet they reference is served by us."""
    for page in ("/docs", "/redoc"):
        response = client.get(page)
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        assets = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert assets, page
        for asset in assets:
            assert asset.startswith("/"), f"{page} loads {asset} from outside"
            loaded = client.get(asset)
            assert loaded.status_code == 200 and len(loaded.data) > 1000, asset
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and spec.get_json()["info"]["title"] == "Trick Arena"


def test_a_null_wish_is_a_plain_play_in_the_spec_as_on_the_server(client: Any) -> None:
    """Rule (issue 17's contract): the engine reads `"wish": null` as a play without a wish
    (tests/games/test_tricky_teams_setup.py), so the spec's Tricky Teams play move admits it too,
    and postMove answers 200 with the same move recorded as a plain play."""
    spec = json.loads(json.dumps(yaml.safe_load(spec_yaml())))
    document = {"$ref": "#/components/schemas/TrickyTeamsPlayMove", "components": spec["components"]}
    validator = jsonschema_rs.Draft202012Validator(document)
    assert validator.is_valid({"type": "play", "card": "red-4", "wish": None})
    assert not validator.is_valid({"type": "play", "card": "red-4", "wish": "red"})
    created = client.post("/games", json={"game": "tricky-teams", "seats": 4, "seed": 1}).get_json()
    tokens = [t["token"] for t in created["tokens"]]
    token = next(
        t
        for t in tokens
        if client.get(f"/games/{created['game_id']}/legal-moves", headers=auth(t)).get_json()["legal_moves"]
    )
    listed = client.get(f"/games/{created['game_id']}/legal-moves", headers=auth(token)).get_json()
    plain = next(m for m in listed["legal_moves"] if "wish" not in m)
    answer = client.post(
        f"/games/{created['game_id']}/moves", json={**plain, "wish": None}, headers=auth(token)
    )
    assert answer.status_code == 200, answer.get_json()
    played = answer.get_json()
    assert played["version"] == 2 and plain["card"] not in played["view"]["hand"]
