"""The repository's storage rules: actions kept apart from the state, compact finished games."""

from __future__ import annotations

from typing import Any

import orjson
import redis

from core.repository import ACTION_TAIL, GameRepository

GAME_ID = "00000000000000bb"


def _state(n: int) -> dict[str, Any]:
    return {
        "header": {"seats": 3},
        "n": n,
        "actions": [{"seat": a % 3, "move": {"type": "x", "i": a}} for a in range(n)],
    }


def test_full_state_commits_and_light_loads_agree(redis_url: str, key_prefix: str) -> None:
    """Rule: a full-state commit (the match runner's) and a light move read/commit see the same actions."""
    repo = GameRepository.from_url(redis_url, prefix=key_prefix)
    repo.create(GAME_ID, "tricky-teams", 3, 1, _state(0), {})
    version = 1
    for n in range(1, 6):
        version = repo.commit(GAME_ID, version, _state(n), [{"type": "e"}], False)
    light = repo.load_for_move(GAME_ID)
    assert light.actions_base == 5 and light.state["actions"] == []
    light.state["actions"].append({"seat": 2, "move": {"type": "x", "i": 5}})
    light.state["n"] = 6
    version = repo.commit(GAME_ID, version, light.state, [], False, actions_base=light.actions_base)
    assert repo.load(GAME_ID).state == _state(6)
    # The game ends: the blob holds the complete state and every event.
    repo.commit(GAME_ID, version, _state(7), [{"type": "end"}], True)
    final, events = repo.load_with_events(GAME_ID)
    assert final.finished and final.state == _state(7) and len(events) == 6
    assert repo.client.exists(repo.key_for("actions", GAME_ID), repo.key_for("events", GAME_ID)) == 0


def test_a_game_stored_with_actions_inside_its_state_still_plays(redis_url: str, key_prefix: str) -> None:
    """Rule: a live game stored by the earlier layout (actions inside the state) keeps every action."""
    repo = GameRepository.from_url(redis_url, prefix=key_prefix)
    client: redis.Redis = repo.client
    old = _state(ACTION_TAIL + 4)
    client.hset(
        repo.key_for("game", GAME_ID), mapping={"v": 9, "g": "tricky-teams", "n": 3, "s": orjson.dumps(old)}
    )
    moved = repo.load_for_move(GAME_ID)
    assert moved.actions_base is None and moved.state == old
    repo.commit(GAME_ID, 9, _state(ACTION_TAIL + 5), [], False)
    assert repo.load(GAME_ID).state == _state(ACTION_TAIL + 5)
    assert repo.load_for_move(GAME_ID).actions_base == ACTION_TAIL + 5
