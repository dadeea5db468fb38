"""Bad input: every error is JSON with its code and HTTP status, and nothing is written."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import auth, create, play_out, tokens_of


@dataclass
class Ctx:
    """A fresh game to aim bad requests at."""

    game_id: str
    tokens: dict[int, str]
    to_move: int
    idle: int
    legal: list[dict[str, Any]]
    version: int


def _ctx(client: FlaskClient) -> Ctx:
    created = create(client, "tricky-teams", 4, seed=11)
    game_id, tokens = created["game_id"], tokens_of(created)
    view = client.get(f"/games/{game_id}").get_json()
    to_move = view["view"]["to_move"][0]
    legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[to_move])).get_json()[
        "legal_moves"
    ]
    idle = next(s for s in tokens if s != to_move)
    return Ctx(game_id, tokens, to_move, idle, legal, view["version"])


def _illegal_card(ctx: Ctx, client: FlaskClient) -> dict[str, Any]:
    hand = client.get(f"/games/{ctx.game_id}", headers=auth(ctx.tokens[ctx.idle])).get_json()["view"]["hand"]
    return {"type": "play", "card": hand[0]}  # a card of another seat's hand: never ours to play


Request = Callable[[FlaskClient, Ctx], Any]

CASES: list[tuple[str, Request, int, str]] = [
    (
        "create: body is not JSON",
        lambda c, x: c.post("/games", data="{nope", content_type="application/json"),
        422,
        "invalid_json",
    ),
    ("create: required fields missing", lambda c, x: c.post("/games", json={}), 422, "validation_error"),
    (
        "create: unknown field",
        lambda c, x: c.post("/games", json={"game": "tricky-teams", "seats": 4, "x": 1}),
        422,
        "validation_error",
    ),
    (
        "create: seats is a string",
        lambda c, x: c.post("/games", json={"game": "tricky-teams", "seats": "4"}),
        422,
        "validation_error",
    ),
    (
        "create: unknown game",
        lambda c, x: c.post("/games", json={"game": "chess", "seats": 2}),
        422,
        "unknown_game",
    ),
    (
        "create: seat count not played",
        lambda c, x: c.post("/games", json={"game": "tricky-teams", "seats": 2}),
        422,
        "invalid_seats",
    ),
    (
        "create: open seat out of range",
        lambda c, x: c.post("/games", json={"game": "tricky-teams", "seats": 4, "open_seats": [9]}),
        422,
        "invalid_seats",
    ),
    (
        "create: bad options",
        lambda c, x: c.post("/games", json={"game": "tricky-teams", "seats": 4, "options": {"raids": 0}}),
        422,
        "invalid_options",
    ),
    (
        "create: bad deal",
        lambda c, x: c.post("/games", json={"game": "tricky-teams", "seats": 4, "deal": {"x": 1}}),
        422,
        "invalid_deal",
    ),
    (
        "create: body too large",
        lambda c, x: c.post(
            "/games", json={"game": "tricky-teams", "seats": 4, "deal": {"x": "y" * 100_000}}
        ),
        413,
        "body_too_large",
    ),
    ("get: unknown game", lambda c, x: c.get("/games/0123456789abcdef"), 404, "game_not_found"),
    ("get: malformed game id", lambda c, x: c.get("/games/not-a-game"), 404, "not_found"),
    (
        "get: wrong token",
        lambda c, x: c.get(f"/games/{x.game_id}", headers=auth("x" * 32)),
        403,
        "invalid_token",
    ),
    (
        "get: not a bearer header",
        lambda c, x: c.get(f"/games/{x.game_id}", headers={"Authorization": "Basic abc"}),
        401,
        "invalid_authorization",
    ),
    ("legal moves: no token", lambda c, x: c.get(f"/games/{x.game_id}/legal-moves"), 401, "missing_token"),
    (
        "legal moves: wrong token",
        lambda c, x: c.get(f"/games/{x.game_id}/legal-moves", headers=auth("nope")),
        403,
        "invalid_token",
    ),
    (
        "move: no token",
        lambda c, x: c.post(f"/games/{x.game_id}/moves", json=x.legal[0]),
        401,
        "missing_token",
    ),
    (
        "move: wrong token",
        lambda c, x: c.post(f"/games/{x.game_id}/moves", json=x.legal[0], headers=auth("n" * 40)),
        403,
        "invalid_token",
    ),
    (
        "move: not your turn",
        lambda c, x: c.post(f"/games/{x.game_id}/moves", json=x.legal[0], headers=auth(x.tokens[x.idle])),
        409,
        "not_your_turn",
    ),
    (
        "move: illegal card",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves", json=_illegal_card(x, c), headers=auth(x.tokens[x.to_move])
        ),
        422,
        "illegal_move",
    ),
    (
        "move: unknown move type",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves", json={"type": "fly"}, headers=auth(x.tokens[x.to_move])
        ),
        422,
        "malformed_move",
    ),
    (
        "move: not a card id",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves",
            json={"type": "play", "card": "ace"},
            headers=auth(x.tokens[x.to_move]),
        ),
        422,
        "malformed_move",
    ),
    (
        "move: a legal move with an unknown field",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves", json={**x.legal[0], "extra": 1}, headers=auth(x.tokens[x.to_move])
        ),
        422,
        "malformed_move",
    ),
    (
        "move: body is not JSON",
        lambda c, x: c.post(f"/games/{x.game_id}/moves", data=b"\xff\xfe", headers=auth(x.tokens[x.to_move])),
        422,
        "invalid_json",
    ),
    (
        "move: JSON but not an object",
        lambda c, x: c.post(f"/games/{x.game_id}/moves", json=[1, 2], headers=auth(x.tokens[x.to_move])),
        422,
        "malformed_move",
    ),
    (
        "move: stale If-Match",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves",
            json=x.legal[0],
            headers={**auth(x.tokens[x.to_move]), "If-Match": f'"{x.version - 1}"'},
        ),
        412,
        "stale_version",
    ),
    (
        "move: If-Match that is no version",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves",
            json=x.legal[0],
            headers={**auth(x.tokens[x.to_move]), "If-Match": '"abc"'},
        ),
        412,
        "stale_version",
    ),
    (
        "move: body too large",
        lambda c, x: c.post(
            f"/games/{x.game_id}/moves", data=b"[" * 70_000, headers=auth(x.tokens[x.to_move])
        ),
        413,
        "body_too_large",
    ),
    (
        "move: unknown game",
        lambda c, x: c.post("/games/0123456789abcdef/moves", json=x.legal[0], headers=auth("t")),
        404,
        "game_not_found",
    ),
    ("join: no open seat", lambda c, x: c.post(f"/games/{x.game_id}/join", json={}), 409, "seat_taken"),
    (
        "join: seat beyond the table (not open: #26 row 9)",
        lambda c, x: c.post(f"/games/{x.game_id}/join", json={"seat": 9}),
        409,
        "seat_taken",
    ),
    (
        "events: since is negative",
        lambda c, x: c.get(f"/games/{x.game_id}/events?since=-1"),
        422,
        "validation_error",
    ),
    ("replay: before the end", lambda c, x: c.get(f"/games/{x.game_id}/replay"), 409, "game_not_over"),
    ("method not allowed", lambda c, x: c.delete(f"/games/{x.game_id}"), 405, "method_not_allowed"),
    ("unknown path", lambda c, x: c.get("/nothing-here"), 404, "not_found"),
]


def _snapshot(raw_redis: Any, key_prefix: str) -> dict[bytes, Any]:
    snap: dict[bytes, Any] = {}
    for key in sorted(raw_redis.scan_iter(match=key_prefix + "*")):
        kind = raw_redis.type(key)
        snap[key] = raw_redis.hgetall(key) if kind == b"hash" else raw_redis.xrange(key)
    return snap


@pytest.mark.parametrize(("name", "request_", "status", "code"), CASES, ids=[c[0] for c in CASES])
def test_error_is_json_with_code_and_nothing_is_written(
    client: FlaskClient, raw_redis: Any, key_prefix: str, name: str, request_: Request, status: int, code: str
) -> None:
    """Rule: each bad request gets its status and machine-readable code as JSON, and Redis is unchanged."""
    ctx = _ctx(client)
    before = _snapshot(raw_redis, key_prefix)
    response = request_(client, ctx)
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == code and isinstance(body["message"], str) and body["message"]
    assert _snapshot(raw_redis, key_prefix) == before


def test_illegal_move_reports_the_reason_and_the_legal_moves(client: FlaskClient) -> None:
    """Rule: a move that is not legal now is a 422 with the engine's reason and the current legal moves."""
    ctx = _ctx(client)
    response = client.post(
        f"/games/{ctx.game_id}/moves", json=_illegal_card(ctx, client), headers=auth(ctx.tokens[ctx.to_move])
    )
    body = response.get_json()
    assert response.status_code == 422 and body["details"]["legal_moves"] == ctx.legal


def test_field_errors_name_the_fields(client: FlaskClient) -> None:
    """Rule: a 422 for invalid fields says which fields and why."""
    body = client.post("/games", json={"seats": "x"}).get_json()
    assert set(body["details"]["json"]) == {"game", "seats"}


def test_method_not_allowed_keeps_allow_header(client: FlaskClient) -> None:
    """Rule: a 405 is JSON and still lists the allowed methods."""
    response = client.put("/games")
    assert response.status_code == 405 and "POST" in response.headers["Allow"]


def test_moves_after_the_end_are_refused(client: FlaskClient, raw_redis: Any, key_prefix: str) -> None:
    """Rule: once the game is over, a move is a 409 `game_over` and nothing changes."""
    created = create(client, "trick-n-trouble", 3, seed=4)
    tokens = tokens_of(created)
    play_out([client], created["game_id"], tokens, random.Random(4))
    before = _snapshot(raw_redis, key_prefix)
    response = client.post(
        f"/games/{created['game_id']}/moves", json={"type": "keep-tasks"}, headers=auth(tokens[0])
    )
    assert response.status_code == 409 and response.get_json()["code"] == "game_over"
    assert _snapshot(raw_redis, key_prefix) == before


def test_if_match_current_version_applies(client: FlaskClient) -> None:
    """Rule: If-Match with the current ETag applies the move; the new ETag is one higher."""
    ctx = _ctx(client)
    etag = client.get(f"/games/{ctx.game_id}").headers["ETag"]
    response = client.post(
        f"/games/{ctx.game_id}/moves",
        json=ctx.legal[0],
        headers={**auth(ctx.tokens[ctx.to_move]), "If-Match": etag},
    )
    assert response.status_code == 200 and response.headers["ETag"] == f'"{ctx.version + 1}"'
    assert "Authorization" in response.headers["Vary"] and "private" in response.headers["Cache-Control"]
    cached = client.get(f"/games/{ctx.game_id}", headers={"If-None-Match": response.headers["ETag"]})
    assert cached.status_code == 304


def test_redis_outage_is_a_503_json_not_a_500(key_prefix: str) -> None:
    """Rule: with Redis unreachable endpoints answer 503 JSON `storage_unavailable`; health says so."""
    import socket

    from tests.api.conftest import make_app

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead_port = sock.getsockname()[1]
    client = make_app(f"redis://127.0.0.1:{dead_port}/0", key_prefix).test_client()
    health = client.get("/health")
    assert health.status_code == 503 and health.get_json()["redis"]["ok"] is False
    created = client.post("/games", json={"game": "trick-n-trouble", "seats": 3})
    assert created.status_code == 503 and created.get_json()["code"] == "storage_unavailable"
    assert client.get("/games/0123456789abcdef").status_code == 503
