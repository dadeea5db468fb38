"""Fixtures of the API tests: apps on the real test Redis, a real HTTP server, game-playing helpers."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.test import TestResponse

from api.app import create_app

GAME_SETUPS = [("tricky-teams", 3), ("tricky-teams", 4), ("tricky-teams", 6), ("trick-n-trouble", 3)]


def make_app(redis_url: str, key_prefix: str, **extra: Any) -> Flask:
    """An app on the test database under the test's key prefix."""
    config = {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TESTING": True, **extra}
    return create_app(config)


@pytest.fixture()
def app(redis_url: str, key_prefix: str) -> Flask:
    """One API app (short SSE lifetime so stream tests stay fast)."""
    return make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=3)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    """A test client of `app`."""
    return app.test_client()


@pytest.fixture()
def raw_redis(redis_url: str) -> Iterator[redis.Redis]:
    """A plain client of the test database, to look at what was (not) written."""
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


class LiveServer:
    """A real threaded werkzeug server on loopback, serving one app."""

    def __init__(self, app: Flask) -> None:
        self.server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture()
def live_server(app: Flask) -> Iterator[LiveServer]:
    """`app` served over real HTTP on 127.0.0.1."""
    # The server's socket backlog must take the concurrency test's burst.
    BaseWSGIServer.request_queue_size = 256
    with LiveServer(app) as server:
        yield server


def auth(token: str) -> dict[str, str]:
    """The Authorization header of a seat token."""
    return {"Authorization": f"Bearer {token}"}


def json_of(response: TestResponse) -> Any:
    """The response's JSON body: Flask's `.json`, which is None for a non-JSON answer (the test
    then fails here rather than on indexing None)."""
    body = response.json
    assert body is not None, response.data
    return body


def create(client: FlaskClient, game: str, seats: int, **body: Any) -> dict[str, Any]:
    """POST /games and return the body, asserting 201."""
    response = client.post("/games", json={"game": game, "seats": seats, **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    """Seat -> token from a createGame response."""
    return {t["seat"]: t["token"] for t in created["tokens"]}


def play_out(
    clients: list[FlaskClient],
    game_id: str,
    tokens: dict[int, str],
    rng: random.Random,
    max_moves: int = 5000,
) -> dict[str, Any]:
    """Play a game to its end over HTTP by legal moves, rotating over `clients`; returns the last view."""
    last: dict[str, Any] = {}
    for n in range(max_moves):
        client = clients[n % len(clients)]
        spectator: dict[str, Any] = client.get(f"/games/{game_id}").get_json()
        if spectator["status"] == "finished":
            return spectator
        seat = rng.choice(spectator["view"]["to_move"])
        listed = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat]))
        assert listed.status_code == 200, listed.get_json()
        moves = listed.get_json()["legal_moves"]
        assert moves, f"seat {seat} is to move but has no legal moves"
        # If-Match: the move is for this version (a repeat of the seat's own last move is then no duplicate).
        sent = {**auth(tokens[seat]), "If-Match": f'"{spectator["version"]}"'}
        response = client.post(f"/games/{game_id}/moves", json=rng.choice(moves), headers=sent)
        assert response.status_code == 200, response.get_json()
        last = response.get_json()
        assert last["version"] == spectator["version"] + 1
    raise AssertionError(f"game {game_id} did not end within {max_moves} moves: {last.get('status')}")
