"""The postMove fast path (api/fast_moves.py) answers exactly as the Flask view does, and is the one used.

Two apps on the real test Redis, one with the fast path and one with it switched off
(`TRICKARENA_FAST_MOVES=False`), get the same games (same seeds) and the same requests, good and
bad; every answer must match in status, JSON body and the headers a client relies on.
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
from flask import Flask, request
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from api.fast_moves import MoveFastPath
from tests.api.conftest import GAME_SETUPS, LiveServer, auth, make_app, tokens_of

MOVES_ROUTE = "/games/<game_id:game_id>/moves"
# Headers a client acts on; X-Request-ID is random per request and Content-Length follows the body.
COMPARED_HEADERS = ("Content-Type", "ETag", "Vary", "Cache-Control", "WWW-Authenticate", "Retry-After")


@pytest.fixture()
def twin_apps(redis_url: str, key_prefix: str) -> tuple[Flask, Flask]:
    """(fast path on, fast path off), each under its own key prefix."""
    fast = make_app(redis_url, key_prefix + "fast:")
    slow = make_app(redis_url, key_prefix + "flask:", TRICKARENA_FAST_MOVES=False)
    return fast, slow


def answer_of(response: Any, game_id: str | None) -> tuple[int, Any, dict[str, str | None]]:
    """Status, JSON body (the game id replaced, so twin games compare) and the compared headers."""
    text = response.get_data(as_text=True)
    if game_id:
        text = text.replace(game_id, "<game>")
    headers = {name: response.headers.get(name) for name in COMPARED_HEADERS}
    return response.status_code, json.loads(text), headers


class Twin:
    """One game created alike in both apps; `post` sends the same request to both and compares."""

    def __init__(self, clients: tuple[FlaskClient, FlaskClient], game: str, seats: int, seed: int) -> None:
        self.clients = clients
        self.created = [
            c.post("/games", json={"game": game, "seats": seats, "seed": seed}).get_json() for c in clients
        ]
        self.ids = [created["game_id"] for created in self.created]
        self.tokens = [tokens_of(created) for created in self.created]

    def post(
        self,
        seat: int | None,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        token: str | None = None,
    ) -> tuple[int, Any, dict[str, str | None]]:
        """POST the same move request to both games; asserts both answer alike and returns the answer."""
        answers = []
        for client, game_id, tokens in zip(self.clients, self.ids, self.tokens, strict=True):
            sent = dict(headers or {})
            if seat is not None:
                sent.update(auth(tokens[seat]))
            if token is not None:
                sent["Authorization"] = token
            response = client.post(f"/games/{game_id}/moves", data=body, headers=sent)
            answers.append(answer_of(response, game_id))
        assert answers[0] == answers[1]
        return answers[0]

    def spectator(self) -> dict[str, Any]:
        """The fast app's game as a spectator reads it (version, status, view)."""
        return self.clients[0].get(f"/games/{self.ids[0]}").get_json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("game, seats", GAME_SETUPS)
def test_fast_path_answers_every_move_and_error_exactly_as_flask(
    twin_apps: tuple[Flask, Flask], game: str, seats: int
) -> None:
    """Rule: postMove's answers (views, ETags, every error code and its details) do not depend on the path."""
    clients = (twin_apps[0].test_client(), twin_apps[1].test_client())
    twin = Twin(clients, game, seats, seed=seats * 101)
    rng = random.Random(seats)
    seen: set[int] = set()
    for step in range(2000):
        game_now = twin.spectator()
        if not game_now["view"]["to_move"]:
            break
        seat = game_now["view"]["to_move"][0]
        legal = clients[0].get(f"/games/{twin.ids[0]}/legal-moves", headers=auth(twin.tokens[0][seat]))
        move = json.dumps(rng.choice(legal.get_json()["legal_moves"])).encode()
        if step % 3 == 0:  # one bad request of each kind, in turn, between the good moves
            bad: list[tuple[int | None, bytes, dict[str, str], str | None]] = [
                (None, move, {}, None),  # no token
                (None, move, {}, "Basic abc"),
                (None, move, {}, "Bearer " + "x" * 300),
                (None, move, {}, "Bearer not-a-seat-token"),
                ((seat + 1) % seats, move, {}, None),  # not that seat's turn
                (seat, b"{not json", {}, None),
                (seat, b'{"type":"fly"}', {}, None),
                (seat, b'{"type":"play","card":"no-such-card","extra":1}', {}, None),
                (seat, b"", {"Content-Type": "application/json"}, None),
                (seat, move, {"If-Match": '"1"'}, None),
            ]
            who, body_sent, headers_sent, token = bad[(step // 3) % len(bad)]
            seen.add(twin.post(who, body_sent, headers_sent, token=token)[0])
        status, body, headers = twin.post(seat, move, {"If-Match": f'"{game_now["version"]}"'})
        assert status == 200, body
        assert headers["ETag"] == f'"{body["version"]}"' and headers["Vary"] == "Authorization"
    else:
        raise AssertionError("the game did not end")
    assert twin.post(0, b'{"type":"play","card":"x"}')[1]["code"] == "game_over"
    assert {401, 403, 409, 412, 422} <= seen
    # A game that no one has, in either app.
    for client in clients:
        missing = client.post("/games/ffffffffffffffff/moves", data=b"{}", headers=auth("t"))
        assert answer_of(missing, None)[:2] == (
            404,
            {"code": "game_not_found", "message": "no game ffffffffffffffff"},
        )


def test_a_game_waiting_for_players_is_refused_alike(twin_apps: tuple[Flask, Flask]) -> None:
    """Rule: moves before every seat is claimed get 409 waiting_for_players on both paths."""
    answers = []
    for app in twin_apps:
        client = app.test_client()
        created = client.post(
            "/games", json={"game": "tricky-teams", "seats": 3, "seed": 5, "open_seats": [2]}
        )
        body = created.get_json()
        token = tokens_of(body)[0]
        response = client.post(
            f"/games/{body['game_id']}/moves", json={"type": "play", "card": "x"}, headers=auth(token)
        )
        answers.append(answer_of(response, body["game_id"]))
    assert answers[0] == answers[1]
    assert answers[0][0] == 409 and answers[0][1]["code"] == "waiting_for_players"


def test_moves_skip_flask_on_the_fast_path_only(twin_apps: tuple[Flask, Flask]) -> None:
    """Rule: with the fast path on, a move never enters Flask's request cycle (the reason it exists)."""
    for app, fast in zip(twin_apps, (True, False), strict=True):
        entered: list[str] = []
        app.before_request(lambda entered=entered: entered.append(request.path))  # type: ignore[misc]
        client = app.test_client()
        created = client.post("/games", json={"game": "tricky-teams", "seats": 3, "seed": 9}).get_json()
        game_id = created["game_id"]
        seat = client.get(f"/games/{game_id}").get_json()["view"]["to_move"][0]
        move = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens_of(created)[seat])).get_json()
        posted = client.post(
            f"/games/{game_id}/moves", json=move["legal_moves"][0], headers=auth(tokens_of(created)[seat])
        )
        assert posted.status_code == 200
        assert (f"/games/{game_id}/moves" in entered) is not fast
        assert f"/games/{game_id}/legal-moves" in entered
    assert isinstance(twin_apps[0].wsgi_app, MoveFastPath)
    assert not isinstance(twin_apps[1].wsgi_app, MoveFastPath)


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


def test_chunked_and_oversized_moves_are_left_to_flask(redis_url: str, key_prefix: str) -> None:
    """Rule: a move without Content-Length still works over HTTP, and one over the body limit gets 413."""
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
        assert requests.get(f"{server.url}/games/{game_id}", timeout=10).json()["version"] == 2


def sample(name: str, **labels: str) -> float:
    """A metric's current value in this process's registry (0 when not yet created)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.parametrize("status, make_bad", [(200, False), (409, True)])
def test_fast_path_moves_are_counted_and_logged_like_every_request(
    twin_apps: tuple[Flask, Flask], captured: io.StringIO, status: int, make_bad: bool
) -> None:
    """Rule: metrics, access log and X-Request-ID cover fast-path moves as they cover Flask's requests."""
    for app in twin_apps:
        client = app.test_client()
        game_id, header, move = first_move(client)
        if make_bad:
            header = {"Authorization": header["Authorization"]}
            client.post(f"/games/{game_id}/moves", json=move, headers=header)  # the move itself, first
        labels = {"endpoint": MOVES_ROUTE, "method": "POST", "status": str(status)}
        before = (
            sample("trickarena_http_requests_total", **labels),
            sample("trickarena_api_moves_total"),
            sample("trickarena_http_request_duration_seconds_count", endpoint=MOVES_ROUTE),
        )
        rid = f"fast-path-{status}-{app.config['TRICKARENA_FAST_MOVES']}"
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
    client = twin_apps[0].test_client()
    game_id, header, move = first_move(client)
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


def test_an_unreachable_redis_is_a_503_with_retry_after_on_both_paths(key_prefix: str) -> None:
    """Rule: while Redis is down a move is answered 503 storage_unavailable with Retry-After, never a 500."""
    url = f"redis://127.0.0.1:{closed_port()}/0"
    answers = []
    for fast in (True, False):
        app = make_app(url, key_prefix, TRICKARENA_FAST_MOVES=fast)
        response = app.test_client().post(
            "/games/0123456789abcdef/moves", json={"type": "play"}, headers=auth("t")
        )
        answers.append(answer_of(response, None))
    assert answers[0] == answers[1]
    status, body, headers = answers[0]
    assert status == 503 and body["code"] == "storage_unavailable" and headers["Retry-After"] == "1"


def test_a_corrupt_stored_game_is_a_logged_500_that_changes_nothing(
    twin_apps: tuple[Flask, Flask], raw_redis: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """Rule: a bug or corrupt data gives 500 internal_error (logged with its traceback) on both paths."""
    answers = []
    for app in twin_apps:
        client = app.test_client()
        game_id, header, move = first_move(client)
        key = f"{app.config['TRICKARENA_KEY_PREFIX']}game:{game_id}"
        raw_redis.hset(key, "s", b"{not json")
        with caplog.at_level(logging.ERROR, logger="trickarena.api"):
            response = client.post(f"/games/{game_id}/moves", json=move, headers=header)
        answers.append(answer_of(response, game_id))
        assert raw_redis.hget(key, "v") == b"1" and raw_redis.hget(key, "s") == b"{not json"
        assert any(record.exc_info for record in caplog.records if record.name == "trickarena.api")
        caplog.clear()
    assert answers[0] == answers[1]
    assert answers[0][:2] == (
        500,
        {"code": "internal_error", "message": "an unexpected error occurred; it has been logged"},
    )
