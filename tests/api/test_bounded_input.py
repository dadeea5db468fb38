"""Bounded input (api/bounds.py): deep JSON, numbers beyond 64 bits and unbounded options are 422
with a clear code on every JSON endpoint, never a 500, and nothing is written."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.bounds import INT64_MAX, MAX_JSON_DEPTH, MAX_OPTION_INT
from tests.api.conftest import auth, create, play_out, tokens_of

DEEP = "[" * 1000 + "]" * 1000


def nested(depth: int) -> str:
    """A JSON object whose value nests `depth` levels in all (the outer object counts as one)."""
    return '{"game": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def options_body(threshold: str) -> str:
    """A createGame body for Trick 'n Trouble whose `threshold` option is the given JSON text."""
    return '{"game": "trick-n-trouble", "seats": 3, "options": {"threshold": ' + threshold + "}}"


def keys(raw_redis: redis.Redis, prefix: str) -> set[bytes]:
    """Every key under the test's prefix."""
    return set(raw_redis.scan_iter(match=prefix + "*", count=1000))


def json_endpoints(client: FlaskClient) -> list[tuple[str, str, dict[str, str]]]:
    """(method, path, headers) of every operation that takes a JSON body, on a real game."""
    created = create(client, "tricky-teams", 4, seed=3)
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    return [
        ("POST", "/games", {}),
        ("POST", f"/games/{game_id}/join", {}),
        ("POST", f"/games/{game_id}/moves", auth(token)),
        ("POST", "/bots", {}),
        ("PATCH", "/bots/0123456789abcdef", auth("k" * 32)),
        ("POST", "/bots/0123456789abcdef/keys", auth("k" * 32)),
        ("POST", "/tournaments", {}),
        ("POST", "/leagues", {}),
    ]


def test_json_nested_1000_deep_is_422_json_too_deep_on_every_json_endpoint(
    client: FlaskClient, raw_redis: redis.Redis, key_prefix: str
) -> None:
    """Rule: 1,000 nested brackets were a RecursionError (500); now 422 json_too_deep, nothing written."""
    endpoints = json_endpoints(client)
    before = keys(raw_redis, key_prefix)
    for method, path, headers in endpoints:
        answer = client.open(path, method=method, data=DEEP, content_type="application/json", headers=headers)
        assert answer.status_code == 422, (method, path, answer.get_json())
        assert answer.get_json()["code"] == "json_too_deep", (method, path)
        assert answer.get_json()["details"] == {"max_depth": MAX_JSON_DEPTH}
    assert keys(raw_redis, key_prefix) == before


def test_the_depth_limit_is_exactly_32_levels(client: FlaskClient) -> None:
    """Rule: 32 levels are parsed (and refused by the schema as usual), 33 are json_too_deep."""
    at_limit = client.post("/games", data=nested(MAX_JSON_DEPTH), content_type="application/json")
    assert at_limit.status_code == 422 and at_limit.get_json()["code"] == "validation_error"
    beyond = client.post("/games", data=nested(MAX_JSON_DEPTH + 1), content_type="application/json")
    assert beyond.status_code == 422 and beyond.get_json()["code"] == "json_too_deep"


@pytest.mark.parametrize(
    "number",
    [str(2**63), str(-(2**63) - 1), str(10**30), "1" * 5000, "NaN", "Infinity", "-Infinity", "1e400"],
)
def test_numbers_beyond_64_bits_are_422_number_out_of_range(
    client: FlaskClient, raw_redis: redis.Redis, key_prefix: str, number: str
) -> None:
    """Rule: an integer outside signed 64 bits, or a non-finite number, anywhere in a body: 422."""
    endpoints = json_endpoints(client)
    before = keys(raw_redis, key_prefix)
    for method, path, headers in endpoints:
        body = options_body(number)
        answer = client.open(path, method=method, data=body, content_type="application/json", headers=headers)
        assert answer.status_code == 422, (method, path, answer.get_json())
        assert answer.get_json()["code"] == "number_out_of_range", (method, path, answer.get_json())
    assert keys(raw_redis, key_prefix) == before


def test_64_bit_integers_themselves_are_no_500(client: FlaskClient) -> None:
    """Rule: the largest 64-bit integers pass the body check and meet the fields' own bounds."""
    answer = client.post("/games", json={"game": "tricky-teams", "seats": 4, "seed": INT64_MAX})
    assert answer.status_code == 422 and answer.get_json()["code"] == "validation_error"
    answer = client.post("/games", json={"game": "tricky-teams", "seats": INT64_MAX})
    assert answer.status_code == 422 and answer.get_json()["code"] == "validation_error"


@pytest.mark.parametrize(
    "options",
    [
        {"threshold": MAX_OPTION_INT + 1},
        {"story_threshold": INT64_MAX},
        {"threshold": 10**16},
    ],
)
@pytest.mark.parametrize("path", ["/games", "/tournaments", "/leagues"])
def test_an_option_without_a_maximum_is_capped(
    client: FlaskClient, raw_redis: redis.Redis, key_prefix: str, options: dict[str, Any], path: str
) -> None:
    """Rule: Trick 'n Trouble's threshold has no maximum in its schema (`threshold: 10**30` was a 500);
    above 2**53 - 1 it is 422 invalid_options with the option named, for every endpoint taking options."""
    body = {"game": "trick-n-trouble", "seats": 3, "options": options}
    before = keys(raw_redis, key_prefix)
    answer = client.post(path, json=body)
    assert answer.status_code == 422, answer.get_json()
    error = answer.get_json()
    assert error["code"] == "invalid_options", error
    assert error["details"] == {"option": f"options.{next(iter(options))}", "max": MAX_OPTION_INT}
    assert keys(raw_redis, key_prefix) == before


def deck(points: int, minimum: int) -> list[dict[str, Any]]:
    """A valid replacement deck (the setup flips 3 level-1, 1 level-2 and 1 level-3 task)."""
    levels = [1, 1, 1, 1, 2, 2, 3, 3]
    return [
        {
            "id": f"t{index}",
            "level": level,
            "points": points,
            "text": "Any {0}",
            "condition": [{"colour": "any", "min": minimum}],
        }
        for index, level in enumerate(levels)
    ]


def test_a_deck_beyond_the_option_bound_is_refused_inside_the_tasks(client: FlaskClient) -> None:
    """Rule: the cap applies inside nested options too (a task's points, a clause's min)."""
    answer = client.post(
        "/games",
        json={"game": "trick-n-trouble", "seats": 3, "options": {"tasks": deck(MAX_OPTION_INT + 1, 0)}},
    )
    assert answer.status_code == 422 and answer.get_json()["details"]["option"] == "options.tasks[0].points"
    answer = client.post(
        "/games",
        json={"game": "trick-n-trouble", "seats": 3, "options": {"tasks": deck(1, MAX_OPTION_INT + 1)}},
    )
    assert answer.status_code == 422
    assert answer.get_json()["details"]["option"] == "options.tasks[0].condition[0].min"


def test_a_game_at_the_option_bound_plays_to_its_end(client: FlaskClient) -> None:
    """Rule: the bound is safe: every task worth 2**53 - 1 points, each fulfilled (min 0), and a
    threshold of 2**53 - 1: the game is created, played and scored without a 500."""
    options = {
        "threshold": MAX_OPTION_INT,
        "story_threshold": MAX_OPTION_INT,
        "tasks": deck(MAX_OPTION_INT, 0),
    }
    created = create(client, "trick-n-trouble", 3, seed=5, options=options)
    last = play_out([client], created["game_id"], tokens_of(created), random.Random(5))
    assert last["status"] == "finished"


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    value=st.recursive(
        JSON_LEAVES,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=40,
    ),
    depth=st.integers(min_value=0, max_value=60),
)
def test_no_body_is_a_500(client: FlaskClient, value: Any, depth: int) -> None:
    """Property: any JSON value, wrapped in up to 60 arrays, as createGame's options or body: never 5xx."""
    wrapped = "[" * depth + json.dumps(value) + "]" * depth
    for body in (wrapped, options_body(wrapped)):
        answer = client.post("/games", data=body, content_type="application/json")
        assert answer.status_code < 500, (body[:200], answer.get_json())


LONE_SURROGATES = ["\\ud800", "\\uDFFF", "a\\udc00b", "\\ude00\\ud83d"]  # the last: a pair, backwards


@pytest.mark.parametrize("escape", LONE_SURROGATES)
def test_a_lone_surrogate_is_422_invalid_text_on_every_json_endpoint(
    client: FlaskClient, raw_redis: redis.Redis, key_prefix: str, escape: str
) -> None:
    """Rule (issue 26 row 4): a string with a lone UTF-16 surrogate, as a value or a key, is 422
    `invalid_text` with where it is, on every JSON endpoint; it was a 500 (UnicodeEncodeError) once
    it reached Redis, e.g. as a bot URL. Nothing is written."""
    endpoints = json_endpoints(client)
    before = keys(raw_redis, key_prefix)
    bodies = [
        '{"name": "b", "url": "http://127.0.0.1:19199/' + escape + '", "games": ["tricky-teams"]}',
        '{"game": "tricky-teams", "seats": 4, "name": "x' + escape + '"}',
        '{"' + escape + '": 1}',
    ]
    for method, path, headers in endpoints:
        for body in bodies:
            answer = client.open(
                path, method=method, data=body, content_type="application/json", headers=headers
            )
            assert answer.status_code == 422, (path, body, answer.get_json())
            assert answer.get_json()["code"] == "invalid_text", (path, body)
            assert isinstance(answer.get_json()["details"]["position"], int)
    assert keys(raw_redis, key_prefix) == before


def test_a_surrogate_pair_is_one_character_and_no_refusal(client: FlaskClient) -> None:
    """Rule: a valid pair (`\\ud83d\\ude00`, one emoji) is text: the bounds take it, the view judges it."""
    body = '{"game": "tricky-teams", "seats": 4, "seed": 1, "note": "\\ud83d\\ude00"}'
    answer = client.post("/games", data=body, content_type="application/json")
    assert answer.get_json().get("code") != "invalid_text", answer.get_json()
