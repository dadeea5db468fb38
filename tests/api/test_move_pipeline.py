"""postMove goes through the one request pipeline: Flask's request cycle, its hooks, its error handler.

Issue #14: moves used to be answered by a second HTTP stack beside Flask, so a hook added to the
app later (authentication, rate limits) silently missed the busiest endpoint.  These tests pin
that every move, good or bad, is an ordinary Flask request: app hooks see it and can answer it,
the app's error handler maps its errors, and the ops middleware (request id, metrics, access log)
records it like every other request.  They also pin postMove's answers (statuses, codes, headers)
that the second stack had to copy.
"""

from __future__ import annotations

import io
import json
import logging
import random
import socket
from typing import Any

import pytest
import redis
import requests
from flask import Flask, Response, request, request_started
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from api.context import app_context
from api.ops import RequestRecorder
from core import errors
from tests.api.conftest import GAME_SETUPS, LiveServer, auth, make_app, tokens_of

MOVES_ROUTE = "/games/<game_id:game_id>/moves"
BEARER_CHALLENGE = 'Bearer realm="trick-arena"'


def post(client: FlaskClient, game_id: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any, Any]:
    """POST a move; (status, JSON body, headers), its Content-Length checked."""
    response = client.post(f"/games/{game_id}/moves", data=body, headers=headers)
    assert int(response.headers["Content-Length"]) == len(response.get_data())
    return response.status_code, json.loads(response.get_data()), response.headers


@pytest.mark.parametrize("game, seats", GAME_SETUPS)
def test_every_move_and_error_is_answered_with_its_status_code_and_headers(
    app: Flask, game: str, seats: int
) -> None:
    """Rule: postMove's answers keep their contract: the seat's view with ETag, or the JSON error."""
    client = app.test_client()
    created = client.post("/games", json={"game": game, "seats": seats, "seed": seats * 101}).get_json()
    game_id, tokens = created["game_id"], tokens_of(created)
    rng = random.Random(seats)
    seen: set[str] = set()
    for step in range(2000):
        spectator = client.get(f"/games/{game_id}").get_json()
        to_move = spectator["view"]["to_move"]
        if not to_move:
            break
        seat, version = to_move[0], spectator["version"]
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()
        move = json.dumps(rng.choice(legal["legal_moves"])).encode()
        if step % 3 == 0:  # one bad request of each kind, in turn, between the good moves
            idle = [s for s in range(seats) if s not in to_move]
            bad: list[tuple[dict[str, str], bytes, int, str]] = [
                ({}, move, 401, "missing_token"),
                ({"Authorization": "Basic abc"}, move, 401, "invalid_authorization"),
                ({"Authorization": "Bearer " + "x" * 300}, move, 403, "invalid_token"),
                ({"Authorization": "Bearer not-a-seat-token"}, move, 403, "invalid_token"),
                (auth(tokens[idle[0]]) if idle else {}, move, 409 if idle else 401, "not_your_turn"),
                (auth(tokens[seat]), b"{not json", 422, "invalid_json"),
                (auth(tokens[seat]), b'{"type":"fly"}', 422, "malformed_move"),
                (
                    auth(tokens[seat]),
                    b'{"type":"play","card":"no-such-card","extra":1}',
                    422,
                    "malformed_move",
                ),
                ({**auth(tokens[seat]), "Content-Type": "application/json"}, b"", 422, "invalid_json"),
                ({**auth(tokens[seat]), "If-Match": f'"{version - 1}"'}, move, 412, "stale_version"),
            ]
            headers, body, status, code = bad[(step // 3) % len(bad)]
            if status == 412 and version == 1:
                continue
            got_status, got, got_headers = post(client, game_id, body, headers)
            if code == "not_your_turn" and not idle:
                code = "missing_token"
            assert (got_status, got["code"]) == (status, code), got
            assert got_headers["Content-Type"] == "application/json"
            assert got_headers.get("WWW-Authenticate") == (BEARER_CHALLENGE if status == 401 else None)
            assert "ETag" not in got_headers
            seen.add(code)
        status, view, headers = post(
            client, game_id, move, {**auth(tokens[seat]), "If-Match": f'"{version}"'}
        )
        assert status == 200, view
        assert view["version"] == version + 1 and view["seat"] == seat
        assert headers["ETag"] == f'"{version + 1}"' and headers["Vary"] == "Authorization"
        assert headers["Cache-Control"] == "private, no-cache"
        assert headers["Content-Type"] == "application/json"
    else:
        raise AssertionError("the game did not end")
    assert post(client, game_id, b'{"type":"play","card":"x"}', auth(tokens[0]))[1]["code"] == "game_over"
    assert {"missing_token", "invalid_token", "not_your_turn", "invalid_json", "stale_version"} <= seen
    missing = post(client, "ffffffffffffffff", b"{}", auth("t"))
    assert missing[:2] == (404, {"code": "game_not_found", "message": "no game ffffffffffffffff"})


def test_a_game_waiting_for_players_refuses_moves(client: FlaskClient) -> None:
    """Rule: moves before every seat is claimed get 409 waiting_for_players."""
    created = client.post(
        "/games", json={"game": "tricky-teams", "seats": 3, "seed": 5, "open_seats": [2]}
    ).get_json()
    status, body, _ = post(
        client, created["game_id"], b'{"type":"play","card":"x"}', auth(tokens_of(created)[0])
    )
    assert status == 409 and body["code"] == "waiting_for_players"


def first_move(client: FlaskClient | None, base: str | None = None) -> tuple[str, dict[str, str], Any]:
    """Create a 3-seat game; (game id, the mover's auth header, one legal move), via a client or HTTP."""
    if client is not None:
        created = client.post("/games", json={"game": "tricky-teams", "seats": 3, "seed": 4}).get_json()
        seat = client.get(f"/games/{created['game_id']}").get_json()["view"]["to_move"][0]
        header = auth(tokens_of(created)[seat])
        moves = client.get(f"/games/{created['game_id']}/legal-moves", headers=header).get_json()
        return created["game_id"], header, moves["legal_moves"][0]
    created = requests.post(
        f"{base}/games", json={"game": "tricky-teams", "seats": 3, "seed": 4}, timeout=10
    ).json()
    seat = requests.get(f"{base}/games/{created['game_id']}", timeout=10).json()["view"]["to_move"][0]
    header = auth(tokens_of(created)[seat])
    moves = requests.get(f"{base}/games/{created['game_id']}/legal-moves", headers=header, timeout=10).json()
    return created["game_id"], header, moves["legal_moves"][0]


def version_of(client: FlaskClient, game_id: str) -> int:
    """The game's current version, as a spectator reads it."""
    return int(client.get(f"/games/{game_id}").get_json()["version"])


def sample(name: str, **labels: str) -> float:
    """A metric's current value in this process's registry (0 when not yet created)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_hook_added_to_the_app_later_sees_and_can_refuse_every_move(app: Flask) -> None:
    """Rule: moves go through Flask's request cycle: app hooks see them, and their answers are recorded.

    The regression of issue #14: with moves served beside Flask, a rate limit or an authentication
    hook registered on the app would never have run for postMove.
    """
    seen: list[str | None] = []
    started: list[str] = []

    def limit() -> Response | None:
        seen.append(request.endpoint)
        if request.headers.get("X-Limited"):
            answer = Response(
                b'{"code":"rate_limited","message":"slow down"}', 429, mimetype="application/json"
            )
            answer.headers["Retry-After"] = "3"
            return answer
        return None

    def stamp(response: Response) -> Response:
        response.headers["X-Hooked"] = request.endpoint or ""
        return response

    app.before_request(limit)
    app.after_request(stamp)
    request_started.connect(lambda _app, **_extra: started.append(request.path), app, weak=False)
    client = app.test_client()
    game_id, header, move = first_move(client)
    started.clear()

    answer = client.post(f"/games/{game_id}/moves", json=move, headers=header)
    assert answer.status_code == 200 and answer.headers["X-Hooked"] == "games.post_move"
    assert seen[-1] == "games.post_move" and started == [f"/games/{game_id}/moves"]
    assert answer.headers["X-Request-ID"]

    labels = {"endpoint": MOVES_ROUTE, "method": "POST", "status": "429"}
    before = sample("trickarena_http_requests_total", **labels)
    refused = client.post(
        f"/games/{game_id}/moves",
        json=move,
        headers={**header, "X-Limited": "1", "X-Request-ID": "limited-1"},
    )
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert refused.headers["Retry-After"] == "3" and refused.headers["X-Hooked"] == "games.post_move"
    assert refused.headers["X-Request-ID"] == "limited-1"
    assert sample("trickarena_http_requests_total", **labels) - before == 1
    assert version_of(client, game_id) == 2  # the refused move changed nothing


def test_an_error_raised_by_a_hook_on_a_move_goes_through_the_apps_error_handler(app: Flask) -> None:
    """Rule: one error mapping: a service error raised by an app hook on postMove is its JSON answer."""

    def authenticate() -> None:
        if request.endpoint == "games.post_move" and request.headers.get("X-Client") != "known":
            raise errors.MissingToken("unknown client", code="unknown_client")

    app.before_request(authenticate)
    client = app.test_client()
    game_id, header, move = first_move(client)
    answer = client.post(f"/games/{game_id}/moves", json=move, headers=header)
    assert answer.status_code == 401
    assert answer.get_json() == {"code": "unknown_client", "message": "unknown client"}
    assert answer.headers["WWW-Authenticate"] == BEARER_CHALLENGE
    assert version_of(client, game_id) == 1
    accepted = client.post(f"/games/{game_id}/moves", json=move, headers={**header, "X-Client": "known"})
    assert accepted.status_code == 200 and accepted.headers["ETag"] == '"2"'


def test_no_route_is_answered_beside_flask(app: Flask) -> None:
    """Rule: the only layer in front of Flask is the ops recorder, and it hands every request to Flask."""
    recorder = app.wsgi_app
    assert isinstance(recorder, RequestRecorder)
    assert getattr(recorder.wsgi_app, "__func__", None) is Flask.wsgi_app
    assert getattr(recorder.wsgi_app, "__self__", None) is app


def test_chunked_and_oversized_moves(redis_url: str, key_prefix: str) -> None:
    """Rule: a move without Content-Length works over HTTP, and one over the body limit gets 413."""
    app = make_app(redis_url, key_prefix, MAX_CONTENT_LENGTH=512)
    with LiveServer(app) as server:
        game_id, header, move = first_move(None, server.url)
        chunks = iter([json.dumps(move).encode()])  # a generator body: sent chunked, no Content-Length
        answer = requests.post(f"{server.url}/games/{game_id}/moves", data=chunks, headers=header, timeout=10)
        assert answer.request.headers.get("Transfer-Encoding") == "chunked"
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == 2 and answer.headers["ETag"] == '"2"'
        padded = json.dumps({**move, "pad": "x" * 600})
        too_big = requests.post(
            f"{server.url}/games/{game_id}/moves", data=padded, headers=header, timeout=10
        )
        assert too_big.status_code == 413 and too_big.json()["code"] == "body_too_large"
        assert too_big.headers["X-Request-ID"]
        assert requests.get(f"{server.url}/games/{game_id}", timeout=10).json()["version"] == 2


@pytest.mark.parametrize("status, make_bad", [(200, False), (409, True)])
def test_moves_are_counted_and_logged_like_every_request(
    app: Flask, captured: io.StringIO, status: int, make_bad: bool
) -> None:
    """Rule: metrics, access log and X-Request-ID cover moves as they cover every request."""
    client = app.test_client()
    game_id, header, move = first_move(client)
    if make_bad:
        client.post(f"/games/{game_id}/moves", json=move, headers=header)  # the move itself, first
    labels = {"endpoint": MOVES_ROUTE, "method": "POST", "status": str(status)}
    before = (
        sample("trickarena_http_requests_total", **labels),
        sample("trickarena_api_moves_total"),
        sample("trickarena_http_request_duration_seconds_count", endpoint=MOVES_ROUTE),
    )
    rid = f"move-{status}"
    answer = client.post(f"/games/{game_id}/moves", json=move, headers={**header, "X-Request-ID": rid})
    assert answer.status_code == status
    assert answer.headers["X-Request-ID"] == rid
    after = (
        sample("trickarena_http_requests_total", **labels),
        sample("trickarena_api_moves_total"),
        sample("trickarena_http_request_duration_seconds_count", endpoint=MOVES_ROUTE),
    )
    assert after[0] - before[0] == 1
    assert after[1] - before[1] == (1 if status == 200 else 0)
    assert after[2] - before[2] == 1
    lines = [json.loads(line) for line in captured.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == rid]
    assert len(mine) == 1
    line = mine[0]
    assert (line["method"], line["path"], line["endpoint"], line["status"], line["game_id"]) == (
        "POST",
        f"/games/{game_id}/moves",
        MOVES_ROUTE,
        status,
        game_id,
    )
    assert line["duration_ms"] >= 0 and line["msg"] == f"POST /games/{game_id}/moves {status}"
    # Without a caller id each move gets a fresh one.
    ids = {
        client.post(f"/games/{game_id}/moves", json=move, headers=header).headers["X-Request-ID"]
        for _ in range(3)
    }
    assert len(ids) == 3


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_redis_is_a_503_with_retry_after(key_prefix: str) -> None:
    """Rule: while Redis is down a move is answered 503 storage_unavailable with Retry-After, never a 500."""
    app = make_app(f"redis://127.0.0.1:{closed_port()}/0", key_prefix)
    response = app.test_client().post(
        "/games/0123456789abcdef/moves", json={"type": "play"}, headers=auth("t")
    )
    assert response.status_code == 503 and response.get_json()["code"] == "storage_unavailable"
    assert response.headers["Retry-After"] == "1" and response.headers["X-Request-ID"]


def test_a_corrupt_stored_game_is_a_logged_500_that_changes_nothing(
    app: Flask, raw_redis: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """Rule: a bug or corrupt data gives 500 internal_error, logged with its traceback."""
    client = app.test_client()
    game_id, header, move = first_move(client)
    key = app_context(app).service.repository.key_for("game", game_id)
    raw_redis.hset(key, "s", b"{not json")
    with caplog.at_level(logging.ERROR, logger="trickarena.api"):
        response = client.post(f"/games/{game_id}/moves", json=move, headers=header)
    assert raw_redis.hget(key, "v") == b"1" and raw_redis.hget(key, "s") == b"{not json"
    assert any(record.exc_info for record in caplog.records if record.name == "trickarena.api")
    assert (response.status_code, response.get_json()) == (
        500,
        {"code": "internal_error", "message": "an unexpected error occurred; it has been logged"},
    )
