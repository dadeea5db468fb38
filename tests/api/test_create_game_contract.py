"""createGame: the server accepts exactly the bodies its spec admits (the game's `NewGame`).

The cases are derived from each game's own options schema (every option: its bounds, each wrong
type, an unknown key; the nested coin table, colours, a replacement task deck and each way a task
can be wrong), plus seat counts, open seats, seeds and integers written `2.0`. Each body is posted
to a live app and validated against openapi.yaml's `NewGame` (JSON Schema 2020-12): the two must
agree, and an option the spec refuses is 422 `invalid_options`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)
from flask.testing import FlaskClient

from api.bounds import MAX_OPTION_INT
from api.openapi_gen import spec_yaml
from games.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
WRONG_TYPES: list[Any] = ["x", True, 1.5, None, {}, []]
# The one rule of a game's options that JSON Schema cannot state (its schema's description says it).
UNSAYABLE = {"trick-n-trouble": "duplicate task ids"}


def spec_validator() -> jsonschema_rs.Draft202012Validator:
    """A validator of createGame's body: openapi.yaml's `NewGame`."""
    components = yaml.safe_load(spec_yaml())["components"]
    return jsonschema_rs.Draft202012Validator(
        {"$ref": "#/components/schemas/NewGame", "components": components}
    )


def values_for(schema: dict[str, Any]) -> list[Any]:
    """Values to try for one option or part of one: its bounds, its default, each wrong type, and (for
    objects and arrays) each of their parts' values in turn."""
    kind = schema.get("type")
    out: list[Any] = [*WRONG_TYPES]
    if "default" in schema:
        out.append(schema["default"])
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        out += [v for v in (low, high) if v is not None]
        out += [low - 1] if low is not None else [-MAX_OPTION_INT, -MAX_OPTION_INT - 1]
        out += [high + 1] if high is not None else [MAX_OPTION_INT, MAX_OPTION_INT + 1]
        out += [float(v) for v in (low, high) if v is not None]  # 2.0 is the integer 2 to JSON
    elif kind == "boolean":
        out += [True, False, 0, "true"]
    elif kind == "object":
        out.append({"no-such-option": 1})
        for key, part in (schema.get("properties") or {}).items():
            out += [{key: value} for value in values_for(part)]
    elif kind == "array" and isinstance(schema.get("default"), list):
        default = schema["default"]
        out += [default[:-1], [*default, default[0]], [default[0], *default[1:-1], default[0]]]
        out += [[value, *default[1:]] for value in values_for(schema["items"])]
    elif kind == "string":
        out += ["", "UPPER", "a" * 300]
    return out


def task_decks() -> list[Any]:
    """Trick 'n Trouble replacement decks: the shipped one, and it with each thing a task can get wrong."""
    shipped = json.loads((ROOT / "games" / "trick_n_trouble" / "tasks.json").read_text())
    task_schema = GAMES["trick-n-trouble"].options_schema()["properties"]["tasks"]["oneOf"][1]["items"]
    decks: list[Any] = [shipped, [], shipped[:100], [t for t in shipped if t["level"] != 3]]
    for key, part in task_schema["properties"].items():
        for value in [*values_for(part), "{3} fails", "{{0}} ok {1}", "{0}}", "{", "x {2}"]:
            deck = copy.deepcopy(shipped)
            deck[0][key] = value
            decks.append(deck)
        deck = copy.deepcopy(shipped)
        del deck[0][key]
        decks.append(deck)
    clause = task_schema["properties"]["condition"]["items"]
    for key, part in clause["properties"].items():
        for value in [*values_for(part), 3, "every", "any", "two", "none"]:
            deck = copy.deepcopy(shipped)
            deck[0]["condition"][0][key] = value
            decks.append(deck)
    for extra in ({"max": 3}, {"other": 1}):
        deck = copy.deepcopy(shipped)
        deck[0]["condition"][0].update(extra)
        decks.append(deck)
    deck = copy.deepcopy(shipped)
    deck[0]["extra"] = 1
    decks.append(deck)
    return decks


def option_cases(game: str) -> list[dict[str, Any]]:
    """Every option of `game`, one at a time, with each value to try."""
    schema = GAMES[game].options_schema()
    cases: list[dict[str, Any]] = [{}, {"no-such-option": 1}]
    for key, part in schema["properties"].items():
        cases += [{key: value} for value in values_for(part if "type" in part else {**part, "type": None})]
    if game == "trick-n-trouble":
        cases += [{"tasks": deck} for deck in task_decks()]
        cases += [{"colours": c} for c in (["joker", "b", "c"], ["a", "b", "c"], ["a1", "b", "z9"])]
    return cases


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_option_the_spec_refuses_is_invalid_options_and_every_one_it_admits_is_accepted(
    client: FlaskClient, game: str
) -> None:
    """Rule: createGame's options are checked by the game's own options schema as openapi.yaml states
    it: a body the spec's `NewGame` admits is created (201), one it refuses is 422 `invalid_options`
    (but for the one rule JSON Schema cannot state, said in the schema's description)."""
    validator = spec_validator()
    seats = GAMES[game].showcase_seats
    disagree: list[str] = []
    accepted = refused = 0
    unsayable = 0
    for options in option_cases(game):
        body = {"game": game, "seats": seats, "options": options}
        answer = client.post("/games", json=body)
        admitted = validator.is_valid(body)
        code = (answer.get_json() or {}).get("code")
        if answer.status_code == 201 and admitted:
            accepted += 1
        elif answer.status_code == 422 and code == "invalid_options" and not admitted:
            refused += 1
        else:
            disagree.append(f"{answer.status_code} {code} / spec {admitted}: {json.dumps(options)[:200]}")
    if game == "trick-n-trouble":
        deck = json.loads((ROOT / "games" / "trick_n_trouble" / "tasks.json").read_text())
        deck[1]["id"] = deck[0]["id"]
        body = {"game": game, "seats": seats, "options": {"tasks": deck}}
        answer = client.post("/games", json=body)
        assert validator.is_valid(body) and answer.status_code == 422  # UNSAYABLE
        assert answer.get_json()["code"] == "invalid_options" and "duplicate" in answer.get_json()["message"]
        unsayable += 1
    assert disagree == []
    assert accepted >= 10 and refused >= 30, (accepted, refused)
    assert unsayable == (1 if game in UNSAYABLE else 0)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_seats_open_seats_seed_and_deal_agree_with_the_spec(client: FlaskClient, game: str) -> None:
    """Rule: createGame's seat count, open seats, seed and deal: the server accepts what the spec admits
    (an open seat below `seats`, integers written `4.0` too) and refuses the rest with a 422 code."""
    validator = spec_validator()
    counts = GAMES[game].seat_counts
    n = counts[0]
    bodies: list[dict[str, Any]] = [{"game": game, "seats": s} for s in range(0, 18)]
    bodies += [{"game": game, "seats": float(n)}, {"game": game, "seats": n, "seed": 7.0}]
    bodies += [{"game": game, "seats": s, "open_seats": [s - 1]} for s in counts]
    bodies += [{"game": game, "seats": s, "open_seats": [s]} for s in counts]
    bodies += [{"game": game, "seats": n, "open_seats": o} for o in ([0, 0], [-1], [0.0], list(range(n)))]
    bodies += [{"game": game, "seats": n, "seed": s} for s in (-1, 0, 2**53 - 1, 2**53, "1", None, 1.5)]
    bad_deals: list[object] = [{}, None, [], {"hands": 1}]
    bodies += [{"game": game, "seats": n, "deal": d} for d in bad_deals]
    bodies += [{"game": game, "seats": n, "extra": 1}, {"game": game, "seats": n, "options": None}]
    disagree: list[str] = []
    for body in bodies:
        answer = client.post("/games", json=body)
        admitted = validator.is_valid(body)
        code = (answer.get_json() or {}).get("code")
        if (answer.status_code == 201) != admitted or (
            not admitted
            and code not in {"invalid_seats", "validation_error", "invalid_deal", "invalid_options"}
        ):
            disagree.append(f"{answer.status_code} {code} / spec {admitted}: {json.dumps(body)}")
    assert disagree == []
