"""End-to-end: whole games of every game through HTTP only, by legal moves; joins; two app instances."""

from __future__ import annotations

import random

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.context import app_context
from tests.api.conftest import GAME_SETUPS, LiveServer, auth, create, make_app, play_out, tokens_of


@pytest.mark.parametrize(("game", "seats"), GAME_SETUPS)
def test_whole_game_by_legal_moves_over_http(client: FlaskClient, game: str, seats: int) -> None:
    """Rule: a game created over HTTP can be played to its end by legal moves only, then replayed."""
    created = create(
        client, game, seats, seed=seats * 7, options={"raids": 1} if game == "tricky-teams" else None
    )
    final = play_out([client], created["game_id"], tokens_of(created), random.Random(seats))
    assert final["status"] == "finished"
    assert final["view"]["result"] is not None
    replay = client.get(f"/games/{created['game_id']}/replay")
    assert replay.status_code == 200
    body = replay.get_json()
    assert body["seed"] == seats * 7 and body["version"] == final["version"]
    assert len(body["actions"]) == final["version"] - 1  # one action per move, version 1 at creation


def test_replay_resimulates_the_game(client: FlaskClient) -> None:
    """Rule: the replay (header + actions) rebuilds exactly the final state's result."""
    from games.registry import get_game

    created = create(client, "trick-n-trouble", 3, seed=5)
    play_out([client], created["game_id"], tokens_of(created), random.Random(5))
    body = client.get(f"/games/{created['game_id']}/replay").get_json()
    engine = get_game("trick-n-trouble")
    rebuilt = engine.replay(body["header"], body["actions"])
    assert engine.result(rebuilt) == body["result"]


def test_one_game_through_two_app_instances_alternately(redis_url: str, key_prefix: str) -> None:
    """Rule: no process-local state: two app instances serve the same game move by move."""
    first = make_app(redis_url, key_prefix).test_client()
    second = make_app(redis_url, key_prefix).test_client()
    created = create(first, "tricky-teams", 4, options={"raids": 1})
    final = play_out([first, second], created["game_id"], tokens_of(created), random.Random(1))
    assert final["status"] == "finished"
    assert second.get(f"/games/{created['game_id']}").get_json()["version"] == final["version"]


def test_open_seats_are_joined_then_played(client: FlaskClient) -> None:
    """Rule: open seats get no token at creation; joinGame hands them out; play starts once all are taken."""
    created = create(client, "trick-n-trouble", 3, open_seats=[1, 2])
    assert [t["seat"] for t in created["tokens"]] == [0] and created["open_seats"] == [1, 2]
    game_id = created["game_id"]
    waiting = client.get(f"/games/{game_id}").get_json()
    assert waiting["status"] == "waiting" and waiting["open_seats"] == [1, 2]
    tokens = tokens_of(created)
    blocked = client.post(f"/games/{game_id}/moves", json={"type": "skip-passing"}, headers=auth(tokens[0]))
    assert blocked.status_code == 409 and blocked.get_json()["code"] == "waiting_for_players"
    joined = client.post(f"/games/{game_id}/join", json={"seat": 2})
    assert joined.status_code == 201 and joined.get_json()["seat"] == 2
    tokens[2] = joined.get_json()["token"]
    again = client.post(f"/games/{game_id}/join", json={"seat": 2})
    assert again.status_code == 409 and again.get_json()["code"] == "seat_taken"
    anyseat = client.post(f"/games/{game_id}/join", json={})
    assert anyseat.status_code == 201 and anyseat.get_json()["seat"] == 1
    tokens[1] = anyseat.get_json()["token"]
    full = client.post(f"/games/{game_id}/join", json={})
    assert full.status_code == 409
    assert client.get(f"/games/{game_id}").get_json()["status"] == "active"
    assert play_out([client], game_id, tokens, random.Random(3))["status"] == "finished"


def test_whole_game_over_a_real_server(live_server: LiveServer) -> None:
    """Rule: the API works over real HTTP on loopback (requests, not the test client)."""
    import requests

    session = requests.Session()
    base = live_server.url
    created = session.post(f"{base}/games", json={"game": "trick-n-trouble", "seats": 3, "seed": 9}).json()
    tokens = tokens_of(created)
    rng = random.Random(9)
    while True:
        game = session.get(f"{base}/games/{created['game_id']}")
        assert game.headers["ETag"] == f'"{game.json()["version"]}"'
        if game.json()["status"] == "finished":
            break
        seat = game.json()["view"]["to_move"][0]
        mine = session.get(f"{base}/games/{created['game_id']}", headers=auth(tokens[seat])).json()
        move = rng.choice(mine["view"]["legal_moves"])
        posted = session.post(
            f"{base}/games/{created['game_id']}/moves",
            json=move,
            headers={**auth(tokens[seat]), "If-Match": game.headers["ETag"]},
        )
        assert posted.status_code == 200, posted.text
    assert session.get(f"{base}/health").json()["redis"]["ok"] is True


def test_app_reads_config_from_environment(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, key_prefix: str
) -> None:
    """Rule: REDIS_URL, TRICKARENA_KEY_PREFIX and TRICKARENA_FINISHED_TTL come from the environment."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("TRICKARENA_KEY_PREFIX", key_prefix)
    monkeypatch.setenv("TRICKARENA_FINISHED_TTL", "120")
    app: Flask = __import__("api.app", fromlist=["create_app"]).create_app()
    client = app.test_client()
    created = create(client, "trick-n-trouble", 3, seed=2)
    repo = app_context(app).service.repository
    assert repo.client.exists(repo.key_for("game", created["game_id"])) == 1
    play_out([client], created["game_id"], tokens_of(created), random.Random(2))
    ttl = repo.client.ttl(repo.key_for("game", created["game_id"]))
    assert 0 < ttl <= 120
