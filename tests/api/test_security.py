"""Security: seat tokens only read their own seat; spectators see no hand; events leak no hidden cards."""

from __future__ import annotations

import json
import random
from typing import Any, cast

import redis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.context import app_context
from tests.api.conftest import auth, create, tokens_of

READERS_EVERY = 4  # check every reader's view and events every few moves (keeps the test quick)


def _private_leaks(events: list[dict[str, Any]], reader: int | None) -> list[dict[str, Any]]:
    leaks = []
    for record in events:
        private = record["event"].get("private")
        if private is not None and (reader is None or reader not in private.get("seats", [])):
            leaks.append(record)
    return leaks


def _check_reader(client: FlaskClient, game_id: str, tokens: dict[int, str], reader: int | None) -> None:
    headers = auth(tokens[reader]) if reader is not None else {}
    game = client.get(f"/games/{game_id}", headers=headers).get_json()
    view = game["view"]
    if game["status"] == "finished":
        return
    assert game["seat"] == reader and view["seat"] == reader
    if reader is None:
        assert view["hand"] is None and "hands" not in view
        assert view["legal_moves"] == []
    events = client.get(f"/games/{game_id}/events", headers=headers).get_json()["events"]
    assert _private_leaks(events, reader) == []
    for record in events:
        event = record["event"]
        if event["type"] == "card-played" and event.get("face_down") and event["seat"] != reader:
            assert event["card"] is None, f"face-down card shown to {reader}: {event}"
    if view["game"] == "tricky-teams":
        for player in view["players"]:
            if player["seat"] != reader:
                assert "loot" not in player, "another seat's loot pile is hidden"
    else:
        assert "all_passed" not in view and "draw" not in view


def _hands(client: FlaskClient, game_id: str, tokens: dict[int, str]) -> dict[int, list[str]]:
    return {
        s: client.get(f"/games/{game_id}", headers=auth(t)).get_json()["view"]["hand"]
        for s, t in tokens.items()
    }


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    setup=st.sampled_from([("tricky-teams", 4), ("tricky-teams", 3), ("trick-n-trouble", 3)]),
)
def test_no_reader_ever_sees_what_it_may_not(client: FlaskClient, seed: int, setup: tuple[str, int]) -> None:
    """Invariant: each token reads only its seat; spectators see no hand; events stay redacted."""
    game, seats = setup
    created = create(client, game, seats, seed=seed, options={"raids": 1} if game == "tricky-teams" else None)
    game_id, tokens = created["game_id"], tokens_of(created)
    rng = random.Random(seed)
    for n in range(2000):
        spectator = client.get(f"/games/{game_id}").get_json()
        if spectator["status"] == "finished":
            break
        if n % READERS_EVERY == 0:
            for reader in [None, *tokens]:
                _check_reader(client, game_id, tokens, reader)
            hands = _hands(client, game_id, tokens)
            for seat, hand in hands.items():
                others = {c for s, h in hands.items() if s != seat for c in h} - {"flag-0"}
                assert not others & set(hand), "hands are disjoint: a token reads only its own"
        seat = rng.choice(spectator["view"]["to_move"])
        move = rng.choice(
            client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()["legal_moves"]
        )
        sent = {**auth(tokens[seat]), "If-Match": f'"{spectator["version"]}"'}
        assert client.post(f"/games/{game_id}/moves", json=move, headers=sent).status_code == 200
    # After the end everything is revealed: the replay has the private parts.
    replay = client.get(f"/games/{game_id}/replay").get_json()
    assert any("private" in r["event"] for r in replay["events"]) or game == "trick-n-trouble"


def test_a_token_of_another_game_is_refused(client: FlaskClient) -> None:
    """Rule: a seat token is valid only for its own game (403)."""
    first = create(client, "trick-n-trouble", 3)
    second = create(client, "trick-n-trouble", 3)
    response = client.get(f"/games/{second['game_id']}", headers=auth(tokens_of(first)[0]))
    assert response.status_code == 403 and response.get_json()["code"] == "invalid_token"


def test_tokens_are_long_random_and_stored_hashed(
    client: FlaskClient, app: Flask, raw_redis: redis.Redis
) -> None:
    """Rule: tokens carry >= 128 random bits and Redis holds only their digests."""
    created = create(client, "tricky-teams", 6)
    tokens = tokens_of(created)
    assert len(set(tokens.values())) == 6
    assert all(len(t) >= 32 for t in tokens.values())  # 24 bytes of urlsafe base64 = 192 bits
    key = app_context(app).service.repository.key_for("game", created["game_id"])
    stored = cast(dict[bytes, bytes], raw_redis.hgetall(key))  # raw: responses not decoded
    blob = json.dumps({k.decode(): v.decode("latin-1") for k, v in stored.items()})
    assert not any(t in blob for t in tokens.values())
