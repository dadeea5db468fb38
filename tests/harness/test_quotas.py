"""Quotas (issue #26 row 6): caps on live bots, leagues and tournaments per owner key, per client
address and in all; past a cap 409 `quota_exceeded` and nothing created; deleting (cancelling,
finishing) frees the slot. Real API app, real Redis, real HTTP bots on loopback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from bots.bundled import make_bot
from bots.sdk import BotServer
from harness.runner import HarnessContext

from .bot_servers import random_bots

OTHER = {"REMOTE_ADDR": "198.51.100.7"}  # a second client address (the test client's is 127.0.0.1)


def _app(redis_url: str, key_prefix: str, queue_name: str, **caps: int) -> Flask:
    return create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name, **caps}
    )


@pytest.fixture(scope="module")
def bot_url() -> Iterator[str]:
    """One real random bot on loopback (its URL shared by the bots of one owner key)."""
    with BotServer(make_bot("random"), None) as server:
        yield server.url


def _refused(answer: Any, cap: str, limit: int) -> None:
    assert answer.status_code == 409, answer.get_json()
    body = answer.get_json()
    assert (body["code"], body["details"]["cap"], body["details"]["max"]) == ("quota_exceeded", cap, limit)


def _bot(client: FlaskClient, url: str, name: str, key: str | None = None, **environ: str) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    body = {"name": name, "url": url, "games": ["trick-n-trouble"]}
    return client.post("/bots", json=body, headers=headers, environ_base=environ)


def _count(client: FlaskClient, path: str, key: str) -> int:
    return len(client.get(path, query_string={"limit": 100}).get_json()[key])


def test_issue26_row6_bots_per_owner_key_and_per_address(
    redis_url: str, key_prefix: str, queue_name: str, bot_url: str
) -> None:
    """Issue #26 row 6: createBot past `TRICKARENA_MAX_BOTS_PER_OWNER` (bots sent with one owner key)
    or `TRICKARENA_MAX_BOTS_PER_ADDRESS` is 409 `quota_exceeded` naming the cap and its limit, and
    creates nothing; deleting a bot frees its slot."""
    client = _app(
        redis_url, key_prefix, queue_name, TRICKARENA_MAX_BOTS_PER_OWNER=2, TRICKARENA_MAX_BOTS_PER_ADDRESS=3
    ).test_client()
    first = _bot(client, bot_url, "q-first")
    assert first.status_code == 201, first.get_json()
    key = first.get_json()["owner_key"]
    made = [_bot(client, bot_url, f"q-own-{i}", key) for i in range(2)]
    assert [m.status_code for m in made] == [201, 201]
    _refused(_bot(client, bot_url, "q-own-2", key, **OTHER), "TRICKARENA_MAX_BOTS_PER_OWNER", 2)
    _refused(_bot(client, bot_url, "q-addr", key=None), "TRICKARENA_MAX_BOTS_PER_ADDRESS", 3)
    assert _count(client, "/bots", "bots") == 3  # nothing else created
    gone = made[0].get_json()  # a bot sharing the URL has its own owner key
    deleted = client.delete(
        f"/bots/{gone['bot']['id']}", headers={"Authorization": f"Bearer {gone['owner_key']}"}
    )
    assert deleted.status_code == 200
    assert _bot(client, bot_url, "q-own-again", key).status_code == 201  # the slot is free again


def test_issue26_row6_leagues_overall_ceiling_and_delete_frees(
    redis_url: str, key_prefix: str, queue_name: str
) -> None:
    """Issue #26 row 6: createLeague past `TRICKARENA_MAX_LEAGUES` (the global ceiling) is 409
    `quota_exceeded` from any address, nothing created; deleteLeague frees the slot; past
    `TRICKARENA_MAX_LEAGUES_PER_ADDRESS` one address is refused while another is not."""
    client = _app(
        redis_url, key_prefix, queue_name, TRICKARENA_MAX_LEAGUES=3, TRICKARENA_MAX_LEAGUES_PER_ADDRESS=2
    ).test_client()
    body = {"game": "trick-n-trouble", "seats": 3, "interval_s": 3600}
    keys = []
    for environ in ({}, {}, OTHER):
        answer = client.post("/leagues", json=body, environ_base=environ)
        assert answer.status_code == 201, answer.get_json()
        keys.append((answer.get_json()["league_id"], answer.get_json()["owner_key"]))
    _refused(
        client.post("/leagues", json=body, environ_base={"REMOTE_ADDR": "203.0.113.9"}),
        "TRICKARENA_MAX_LEAGUES",
        3,
    )
    assert _count(client, "/leagues", "leagues") == 3
    lid, key = keys[0]
    assert client.delete(f"/leagues/{lid}", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    assert client.post("/leagues", json=body).status_code == 201  # the freed slot
    _refused(client.post("/leagues", json=body, environ_base=OTHER), "TRICKARENA_MAX_LEAGUES", 3)


def test_issue26_row6_concurrent_creations_never_overshoot(
    redis_url: str, key_prefix: str, queue_name: str
) -> None:
    """Issue #26 row 6: 24 createLeague at once against a cap of 5 per address: exactly 5 created,
    19 refused with `quota_exceeded` (check and take are one Redis script: no overshoot)."""
    app = _app(redis_url, key_prefix, queue_name, TRICKARENA_MAX_LEAGUES_PER_ADDRESS=5)
    body = {"game": "trick-n-trouble", "seats": 3, "interval_s": 3600}
    statuses: list[int] = []
    start = threading.Barrier(24)

    def create() -> None:
        client = app.test_client()
        start.wait()
        statuses.append(client.post("/leagues", json=body).status_code)

    threads = [threading.Thread(target=create) for _ in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] * 5 + [409] * 19
    assert _count(app.test_client(), "/leagues", "leagues") == 5


def test_issue26_row6_tournaments_per_owner_key_and_cancel_frees(
    redis_url: str, key_prefix: str, queue_name: str, ctx: HarnessContext
) -> None:
    """Issue #26 row 6: a tournament counts against each entrant owner key it names (and the
    address) while live; past `TRICKARENA_MAX_TOURNAMENTS_PER_OWNER` 409 `quota_exceeded`,
    nothing created; cancelling it frees the slot."""
    client = _app(redis_url, key_prefix, queue_name, TRICKARENA_MAX_TOURNAMENTS_PER_OWNER=1).test_client()
    with random_bots(ctx.bots, 3, prefix="quota") as bots:
        body = {
            "game": "trick-n-trouble",
            "seats": 3,
            "entrants": [b for b, _ in bots],
            "owner_keys": [k for _, k in bots],
            "start_at": "2999-01-01T00:00:00Z",
        }
        first = client.post("/tournaments", json=body)
        assert first.status_code == 201, first.get_json()
        _refused(
            client.post("/tournaments", json=body, environ_base=OTHER),
            "TRICKARENA_MAX_TOURNAMENTS_PER_OWNER",
            1,
        )
        assert _count(client, "/tournaments", "tournaments") == 1
        created = first.get_json()
        cancel = client.post(
            f"/tournaments/{created['tournament_id']}/cancel",
            headers={"Authorization": f"Bearer {created['owner_key']}"},
        )
        assert cancel.status_code == 200, cancel.get_json()
        assert client.post("/tournaments", json=body).status_code == 201
