"""A game an older engine stored (another state schema) is rebuilt by its replay when read or played.

`data/tricky_teams_schema1.json` is a Tricky Teams state as the engine before the typed state
(`faa0abb^`, state schema 1: card ids in lists) stored it: a 4-seat game of seed 42, 13 moves in.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
from flask.testing import FlaskClient

from core.repository import GameRepository
from games.tricky_teams import GAME
from tests.api.conftest import auth, create, play_out, tokens_of

SCHEMA_1 = Path(__file__).parent / "data" / "tricky_teams_schema1.json"


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _store_schema_1_game(client: FlaskClient, redis_url: str, key_prefix: str) -> tuple[str, dict[int, str]]:
    """A game created through the API whose stored state is then replaced by the schema-1 blob."""
    old = json.loads(SCHEMA_1.read_text())
    assert old["schema"] == 1 and GAME.schema != 1
    created = create(client, "tricky-teams", 4, seed=old["header"]["seed"], options={"raids": 1})
    game_id = created["game_id"]
    repo = GameRepository.from_url(redis_url, prefix=key_prefix)
    stored = {key: value for key, value in old.items() if key != "actions"}
    repo.client.hset(
        repo.key_for("game", game_id), mapping={"s": orjson.dumps(stored), "na": len(old["actions"])}
    )
    repo.client.rpush(repo.key_for("actions", game_id), *[orjson.dumps(action) for action in old["actions"]])
    return game_id, tokens_of(created)


def test_a_schema_1_game_reads_as_its_replay(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    """Rule: a stored state of another schema is read as the replay of its header and actions:
    every seat's view and legal moves, the spectator's view and the event log."""
    game_id, tokens = _store_schema_1_game(client, redis_url, key_prefix)
    old = json.loads(SCHEMA_1.read_text())
    rebuilt = GAME.replay(old["header"], old["actions"])
    assert rebuilt["schema"] == GAME.schema and rebuilt["actions"] == old["actions"]
    for seat, token in tokens.items():
        body = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
        assert body["view"] == _as_json(GAME.view(rebuilt, seat))
        listed = client.get(f"/games/{game_id}/legal-moves", headers=auth(token)).get_json()
        assert listed["legal_moves"] == _as_json(GAME.legal_moves(rebuilt, seat))
    spectator = client.get(f"/games/{game_id}").get_json()
    assert spectator["view"] == _as_json(GAME.view(rebuilt, None))
    assert spectator["view"]["to_move"] == [old["turn"]] == [1]
    events = client.get(f"/games/{game_id}/events", headers=auth(tokens[0]))
    assert events.status_code == 200 and events.get_json()["events"]


def test_a_schema_1_game_plays_on_and_is_stored_in_the_current_schema(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Rule: a move on a game of an older schema applies to its replay; the move stores the state in
    the engine's schema with every action, and the game plays to its end."""
    game_id, tokens = _store_schema_1_game(client, redis_url, key_prefix)
    old = json.loads(SCHEMA_1.read_text())
    seat = old["turn"]
    listed = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()
    move = listed["legal_moves"][0]
    response = client.post(f"/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
    assert response.status_code == 200, response.get_json()

    repo = GameRepository.from_url(redis_url, prefix=key_prefix)
    stored = repo.load(game_id)
    expected = GAME.replay(old["header"], [*old["actions"], {"seat": seat, "move": move}])
    assert stored.state["schema"] == GAME.schema
    assert stored.state == _as_json(expected)

    final = play_out([client], game_id, tokens, random.Random(3))
    assert final["status"] == "finished"
    replay = client.get(f"/games/{game_id}/replay").get_json()
    assert replay["actions"][: len(old["actions"])] == old["actions"]
