"""The repository's storage rules: actions kept apart from the state, compact finished games."""

from __future__ import annotations

import os
from typing import Any

import orjson
import pytest
import redis

from core.repository import ACTION_TAIL, CallIds, GameRepository, StaleWrite

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


def test_a_full_state_commit_sends_only_the_new_actions_and_repairs_a_wrong_count(
    redis_url: str, key_prefix: str
) -> None:
    """Rule (issue 27, incremental state): a caller holding the full action list and the count
    stored (the match runner) has only the new actions written; a count that claims more than is
    stored is caught by the script (the list would skip actions) and the commit is repeated with
    every action, so no action is lost or doubled."""
    repo = GameRepository.from_url(redis_url, prefix=key_prefix)
    repo.create(GAME_ID, "tricky-teams", 3, 1, _state(0), {})
    actions_key = repo.key_for("actions", GAME_ID)
    version = 1
    for n in range(1, 4):
        version = repo.commit(GAME_ID, version, _state(n), [], False, stored_actions=n - 1)
    assert repo.load(GAME_ID).state == _state(3)
    # Two actions appended by one move (a move followed by automatic ones) go together.
    version = repo.commit(GAME_ID, version, _state(5), [], False, stored_actions=3)
    assert repo.client.llen(actions_key) == 5 and repo.load(GAME_ID).state == _state(5)
    # A wrong count (claims 7 stored, 5 are): the script refuses the gap, every action is sent.
    version = repo.commit(GAME_ID, version, _state(8), [], False, stored_actions=7)
    assert repo.client.llen(actions_key) == 8 and repo.load(GAME_ID).state == _state(8)
    assert version == 6


def test_a_commit_sent_twice_is_applied_once(redis_url: str, key_prefix: str) -> None:
    """Rule (issue 25, failover): the same compare-and-set sent again after it was applied (its
    reply lost when a failover closed the connection, the call retried by redis-py) answers the
    version it made and writes nothing more; another request's identical move (its own call) or
    another seat's is still a stale write."""
    repo = GameRepository.from_url(redis_url, prefix=key_prefix)
    repo.create(GAME_ID, "tricky-teams", 3, 1, _state(0), {})
    for final in (False, True):
        version = repo.load(GAME_ID).version
        state = _state(version)
        call = f"call{version}"
        once: dict[str, Any] = {"seat": 1, "move_digest": "abc", "call_id": call}
        made = repo.commit(GAME_ID, version, state, [{"type": "e"}], final, **once)
        again = repo.commit(GAME_ID, version, state, [{"type": "e"}], final, **once)
        assert made == again == version + 1
        stored = repo.load(GAME_ID)
        assert stored.version == version + 1 and stored.state == state and stored.finished is final
        # Another request with the very same move (its own call) is stale, as is another seat's.
        with pytest.raises(StaleWrite):
            repo.commit(GAME_ID, version, state, [], final, seat=1, move_digest="abc")
        with pytest.raises(StaleWrite):
            repo.commit(GAME_ID, version, state, [], final, seat=2, move_digest="abc", call_id=call)
    _final, events = repo.load_with_events(GAME_ID)
    assert len(events) == 2  # one per applied commit, none for the repeats


def test_commit_call_ids_are_unique_in_a_process_and_across_a_fork() -> None:
    """Rule: every commit carries an id of its own (a retried call is recognised by it), made without
    a system call per id; a forked child (gunicorn's workers, RQ's) draws a prefix of its own."""
    ids = CallIds()
    mine = [ids.next() for _ in range(1000)]
    assert len(set(mine)) == 1000 and all("," not in i for i in mine)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next id and leave at once
        os.write(write, ids.next().encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert child and child not in mine and child != ids.next()
    assert child[:12] != mine[0][:12]
