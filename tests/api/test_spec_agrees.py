"""The spec and the server agree (issue #26 row 9): for createBot, createGame, createLeague,
createTournament, postMove and joinGame, requests valid by openapi.yaml's request schema are
accepted by the server (or refused with a rule's answer, never a shape complaint), and requests the
server refuses for their shape are refused by the schema too. The schemas are checked with
jsonschema_rs against openapi.yaml as served; the server is the real app on a real Redis, with
real HTTP bots on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)
from flask import Flask
from flask.testing import FlaskClient

from api.context import app_context
from api.openapi_gen import spec_yaml
from bots.bundled import make_bot
from bots.sdk import BotServer
from tests.api.conftest import auth, make_app, tokens_of
from tests.harness.bot_servers import random_bots

SPEC = yaml.safe_load(spec_yaml())
# What a schema-valid request may never be answered: the codes that say "malformed".
SHAPE_CODES = {"validation_error", "invalid_json", "malformed_move", "invalid_url", "invalid_deal"}


def body_schema(operation_id: str) -> jsonschema_rs.Validator:
    """A validator of the operation's request body, as openapi.yaml states it."""
    for item in SPEC["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                schema = operation["requestBody"]["content"]["application/json"]["schema"]
                return jsonschema_rs.validator_for({**schema, "components": SPEC["components"]})
    raise AssertionError(f"no operation {operation_id}")


def spec_valid(operation_id: str, body: Any) -> bool:
    """Whether openapi.yaml's request schema of the operation admits `body`."""
    return bool(body_schema(operation_id).is_valid(body))


@pytest.fixture()
def app(redis_url: str, key_prefix: str) -> Flask:
    """The API app on the test database under the test's prefix."""
    return make_app(redis_url, key_prefix)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    """Its test client."""
    return app.test_client()


@pytest.fixture(scope="module")
def bot_port() -> Iterator[int]:
    """A real random bot on loopback: its port."""
    with BotServer(make_bot("random"), None) as server:
        yield int(server.url.rsplit(":", 1)[1].strip("/"))


def test_issue26_row9_create_bot_url(client: FlaskClient, bot_port: int) -> None:
    """Issue #26 row 9: createBot's `url` pattern is the server's: every spelling the spec admits is
    registered (201), and every URL the server refuses as `invalid_url` the spec refuses too."""
    accepted = [
        f"http://127.0.0.1:{bot_port}",
        f"HTTP://localhost:{bot_port}/",
        f"Http://127.1:{bot_port}",
    ]
    key = None
    for index, url in enumerate(accepted):
        body = {"name": f"spec-{index}", "url": url, "games": ["tricky-teams"]}
        assert spec_valid("createBot", body), url
        answer = client.post("/bots", json=body, headers=auth(key) if key else {})
        assert answer.status_code == 201, (url, answer.get_json())
        key = key or answer.get_json()["owner_key"]
    refused = [
        f"ftp://127.0.0.1:{bot_port}/",
        f"http://user:pw@127.0.0.1:{bot_port}/",
        f"http://127.0.0.1:{bot_port}/?q=1",
        f"http://127.0.0.1:{bot_port}/#top",
        "http://127.0.0.1:0/",
        "http://127.0.0.1:65536/",
        f"http://127.0.0.1:0{bot_port}/",
        f" http://127.0.0.1:{bot_port}/",
        "http:///nohost",
    ]
    for url in refused:
        body = {"name": "spec-refused", "url": url, "games": ["tricky-teams"]}
        answer = client.post("/bots", json=body)
        assert (answer.status_code, answer.get_json()["code"]) == (422, "invalid_url"), url
        assert not spec_valid("createBot", body), url


def test_issue26_row9_create_game_hands_per_seat(client: FlaskClient) -> None:
    """Issue #26 row 9: createGame's deal has one non-empty hand per seat in the spec as on the
    server: a deal of the right count is created, other counts are refused by both."""
    four = [["red-8"], ["red-5"], ["blue-3"], ["green-2"]]
    body = {"game": "tricky-teams", "seats": 4, "deal": {"hands": four}}
    assert spec_valid("createGame", body)
    assert client.post("/games", json=body).status_code == 201
    wrong_counts: list[list[list[str]]] = [four[:3], [*four, ["green-5"]], [], [[], [], [], []]]
    for hands in wrong_counts:
        body = {"game": "tricky-teams", "seats": 4, "deal": {"hands": hands}}
        answer = client.post("/games", json=body)
        assert answer.status_code == 422, (hands, answer.get_json())
        assert not spec_valid("createGame", body), hands


GAME_SEATS = {"trick-n-trouble": [3], "tricky-teams": [3, 4, 5, 6]}


def test_issue26_row9_league_seats_and_cron(client: FlaskClient) -> None:
    """Issue #26 row 9: createLeague's seats per game and cron syntax are the spec's: every seat
    count and cron the spec admits is created; the server's refusals the spec refuses too."""
    for game, counts in GAME_SEATS.items():
        for seats in counts:
            body = {"game": game, "seats": seats, "interval_s": 3600}
            assert spec_valid("createLeague", body)
            assert client.post("/leagues", json=body).status_code == 201, body
        for seats in sorted(set(range(1, 17)) - set(counts)):
            body = {"game": game, "seats": seats, "interval_s": 3600}
            answer = client.post("/leagues", json=body)
            assert (answer.status_code, answer.get_json()["code"]) == (422, "invalid_seats"), body
            assert not spec_valid("createLeague", body), body
    for cron in ["0 12 * * *", "*/5 1-3 * * 1-5", "0 0 29 2 *", "5,35 */2 1-31/7 1-12 0-7", "0 * * * * 30"]:
        body = {"game": "tricky-teams", "seats": 4, "cron": cron}
        assert spec_valid("createLeague", body), cron
        assert client.post("/leagues", json=body).status_code == 201, cron
    for cron in [
        "every day",
        "@hourly",
        "0 * * * mon",
        "99 * * * *",
        "0 24 * * *",
        "*/0 * * * *",
        "0  * * * *",
    ]:
        body = {"game": "tricky-teams", "seats": 4, "cron": cron}
        answer = client.post("/leagues", json=body)
        assert (answer.status_code, answer.get_json()["code"]) == (422, "invalid_schedule"), cron
        assert not spec_valid("createLeague", body), cron


def test_issue26_row9_tournament_seats_per_game(app: Flask, client: FlaskClient) -> None:
    """Issue #26 row 9: createTournament's seats per game are the spec's: a seat count of the game
    is created with real bots, the others are refused by server and spec alike."""
    with random_bots(app_context(app).bots, 3, prefix="spec") as bots:
        entrants, keys = [b for b, _ in bots], [k for _, k in bots]
        for game, counts in GAME_SEATS.items():
            body = {
                "game": game,
                "seats": counts[0],
                "entrants": entrants,
                "owner_keys": keys,
                "start_at": "2999-01-01T00:00:00Z",
            }
            assert spec_valid("createTournament", body)
            answer = client.post("/tournaments", json=body)
            assert answer.status_code == 201, answer.get_json()
            for seats in sorted(set(range(1, 17)) - set(counts)):
                body = {**body, "seats": seats}
                answer = client.post("/tournaments", json=body)
                assert (answer.status_code, answer.get_json()["code"]) == (422, "invalid_seats"), body
                assert not spec_valid("createTournament", body), body


def test_issue26_row9_join_game(client: FlaskClient) -> None:
    """Issue #26 row 9: joinGame's schema-valid seats get a state answer: an open seat 201, a seat
    that is not open (taken, or beyond this game's table) 409 `seat_taken`, never a 422; a seat the
    schema refuses the server refuses too."""
    game = client.post("/games", json={"game": "tricky-teams", "seats": 4, "open_seats": [2, 3]}).get_json()
    path = f"/games/{game['game_id']}/join"
    for seat, status in [(9, 409), (15, 409), (0, 409), (3, 201)]:
        assert spec_valid("joinGame", {"seat": seat})
        answer = client.post(path, json={"seat": seat})
        assert answer.status_code == status, (seat, answer.get_json())
    for body in [{"seat": 16}, {"seat": -1}, {"seat": "1"}, {"other": 1}]:
        answer = client.post(path, json=body)
        assert (answer.status_code, answer.get_json()["code"]) == (422, "validation_error"), body
        assert not spec_valid("joinGame", body), body


def test_issue26_row9_post_move_body_before_if_match(client: FlaskClient) -> None:
    """Issue #26 row 9: postMove reads If-Match only once the body is a valid move: a malformed move
    is 422 `malformed_move` (the spec refuses it too) whatever If-Match says, `W/"ah"` included; a
    valid move under a stale If-Match is 412; a schema-valid move the engine refuses (a seat beyond
    the table) is the rule's answer `illegal_move` with the legal moves, never `malformed_move`."""
    created = client.post("/games", json={"game": "tricky-teams", "seats": 4, "seed": 3}).get_json()
    path = f"/games/{created['game_id']}/tricky-teams/moves"
    tokens = tokens_of(created)
    for body in [
        {"type": "bogus"},
        {"type": "play"},
        {"type": "play", "card": "red-99"},
        {"type": "choose-leader"},
    ]:
        assert not spec_valid("postTrickyTeamsMove", body), body
        for if_match in ['W/"ah"', '"99"', None]:
            headers = {**auth(tokens[0]), **({"If-Match": if_match} if if_match else {})}
            answer = client.post(path, json=body, headers=headers)
            assert (answer.status_code, answer.get_json()["code"]) == (422, "malformed_move"), (
                body,
                if_match,
            )
    body = {"type": "play", "card": "red-3"}
    assert spec_valid("postTrickyTeamsMove", body)
    answer = client.post(path, json=body, headers={**auth(tokens[0]), "If-Match": 'W/"ah"'})
    assert (answer.status_code, answer.get_json()["code"]) == (412, "stale_version")
    leader = {"type": "choose-leader", "seat": 5}
    assert spec_valid("postTrickyTeamsMove", leader)
    codes = {client.post(path, json=leader, headers=auth(t)).get_json()["code"] for t in tokens.values()}
    assert codes <= {"illegal_move", "not_your_turn"} and "illegal_move" in codes, codes
    assert not codes & SHAPE_CODES
    other_game = {"type": "keep-tasks"}  # a Trick 'n Trouble move, sent to the union postMove
    assert spec_valid("postMove", other_game)
    union = f"/games/{created['game_id']}/moves"
    codes = {client.post(union, json=other_game, headers=auth(t)).get_json()["code"] for t in tokens.values()}
    assert codes == {"illegal_move"}, codes
