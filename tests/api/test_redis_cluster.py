"""The API on a real three-master Redis Cluster (issue 25, Cluster for the state that grows).

Started by the test (`core.redis_procs.redis_cluster`: three `redis-server --cluster-enabled yes`
joined by `redis-cli --cluster create`), RQ on the ordinary test Redis (`RQ_REDIS_URL`: RQ cannot
run on a cluster). Every write path of the core package runs there: createBot (the registry's
name and URL claims), updateBot, quotas, createGame, moves (the commit script), the event
stream (its pub/sub across nodes), and a game's keys share one slot while games spread over
every master.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator

import pytest
import requests
from flask import Flask
from redis.cluster import RedisCluster

from api.app import create_app
from api.context import app_context
from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer
from core.redis_procs import ClusterGroup, redis_cluster
from tests.api.conftest import LiveServer, auth, create, play_out, tokens_of
from tests.api.test_events_sse import _read_sse


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterGroup]:
    """A three-master cluster for this module's tests."""
    with redis_cluster() as group:
        yield group


@pytest.fixture()
def cluster_app(cluster: ClusterGroup, redis_url: str) -> Flask:
    """The API with games, bots and quotas on the cluster and RQ on the test Redis."""
    prefix = f"ta-cl:{uuid.uuid4().hex[:8]}:"
    return create_app(
        {
            "REDIS_URL": cluster.url,
            "RQ_REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": prefix,
            "TESTING": True,
            "TRICKARENA_RATE_LIMITS": "off",
        }
    )


def test_the_storage_client_is_a_cluster_client(cluster_app: Flask) -> None:
    """Rule (operations.md, Redis topologies): a redis+cluster:// REDIS_URL gives a cluster client."""
    assert isinstance(app_context(cluster_app).service.repository.client, RedisCluster)


def test_games_are_played_on_a_cluster_one_slot_each_spread_over_every_master(
    cluster_app: Flask, cluster: ClusterGroup
) -> None:
    """Rule (issue 25): createGame, getLegalMoves and postMove answer 2xx on a cluster (the commit
    script and the creation's transaction touch one slot: the game id is the keys' hash tag), and
    games spread over all three masters."""
    client = cluster_app.test_client()
    repository = app_context(cluster_app).service.repository
    cluster_client = repository.client
    assert isinstance(cluster_client, RedisCluster)  # typed as the redis.Redis whose commands it shares
    played: list[str] = []
    pattern = repository.key_for("game", "*")  # each game's hash
    # Game ids are random, so twelve games miss one master about 2% of the time (3 * (2/3)^12):
    # go on creating until every master holds one, at most 60 (a miss then is 3 * (2/3)^60, 1e-10).
    for n in range(60):
        game, seats = ("tricky-teams", 3 + n % 4) if n % 3 else ("trick-n-trouble", 3)
        created = create(client, game, seats, seed=n)
        if n < 3:
            last = play_out([client], created["game_id"], tokens_of(created), random.Random(n))
            assert last["status"] == "finished"
        played.append(created["game_id"])
        if n >= 11 and all(count > 0 for count in cluster.keys_per_master(pattern).values()):
            break
    slots = {
        game_id: {
            cluster_client.keyslot(repository.key_for(kind, game_id))
            for kind in ("game", "events", "actions")
        }
        for game_id in played
    }
    assert all(len(one) == 1 for one in slots.values()), slots
    per_master = cluster.keys_per_master(pattern)
    assert all(count > 0 for count in per_master.values()), per_master
    assert sum(per_master.values()) == len(played)


def test_a_live_event_stream_hears_moves_on_a_cluster(cluster_app: Flask) -> None:
    """Rule (issue 25): the event hub's pattern subscription hears every game's PUBLISH from the
    commit script, on whichever master the game lives."""
    client = cluster_app.test_client()
    created = create(client, "tricky-teams", 4, seed=2)
    game_id, tokens = created["game_id"], tokens_of(created)

    def move_soon() -> None:
        time.sleep(0.5)
        seat = client.get(f"/games/{game_id}").get_json()["view"]["to_move"][0]
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()
        moved = client.post(
            f"/games/{game_id}/moves", json=legal["legal_moves"][0], headers=auth(tokens[seat])
        )
        assert moved.status_code == 200, moved.get_json()

    with LiveServer(cluster_app) as live:
        mover = threading.Thread(target=move_soon)
        url = f"{live.url}/games/{game_id}/events/stream?timeout=3"
        with requests.get(url, stream=True, timeout=15) as response:
            mover.start()
            messages = _read_sse(response)
        mover.join()
    versions = [m[2]["version"] for m in messages if m[0] == "game-event"]
    assert 1 in versions and 2 in versions, messages


def test_bots_are_registered_renamed_and_claimed_on_a_cluster(cluster_app: Flask) -> None:
    """Rule (issue 25): createBot, listBots, updateBot, rotateBotKeys and deleteBot answer 2xx on a
    cluster, and the registry's rules hold there: one name, one URL per owner, quotas counted."""
    client = cluster_app.test_client()
    server = BotServer(make_bot("random"), None).start()
    try:
        body = {"name": "cluster-bot", "url": server.url, "games": list(GAME_NAMES)}
        created = client.post("/bots", json=body)
        assert created.status_code == 201, created.get_json()
        bot_id, owner_key = created.get_json()["bot"]["id"], created.get_json()["owner_key"]
        owner = {"Authorization": f"Bearer {owner_key}"}
        assert bot_id in [b["id"] for b in client.get("/bots").get_json()["bots"]]
        same_name = client.post("/bots", json={**body, "url": server.url + "/other"})
        assert (same_name.status_code, same_name.get_json()["code"]) == (409, "duplicate_name")
        same_url = client.post("/bots", json={**body, "name": "cluster-bot-2"})
        assert (same_url.status_code, same_url.get_json()["code"]) == (409, "url_taken")
        renamed = client.patch(f"/bots/{bot_id}", json={"name": "cluster-bot-renamed"}, headers=owner)
        assert renamed.status_code == 200, renamed.get_json()
        rotated = client.post(f"/bots/{bot_id}/keys", json={"rotate": ["owner_key"]}, headers=owner)
        assert rotated.status_code == 200, rotated.get_json()
        owner = {"Authorization": f"Bearer {rotated.get_json()['owner_key']}"}
        # The old name is free again, the URL still taken.
        reused = client.post("/bots", json={**body, "name": "cluster-bot"})
        assert reused.status_code == 409 and reused.get_json()["code"] == "url_taken"
        assert client.delete(f"/bots/{bot_id}", headers=owner).status_code == 200
        after = client.post("/bots", json={**body, "name": "cluster-bot-3"})  # its URL is free again
        assert after.status_code == 201, after.get_json()
    finally:
        server.stop()


def test_rate_limits_count_on_a_cluster(cluster: ClusterGroup, redis_url: str) -> None:
    """Rule (issue 25, operations.md): the per-address rate limit is counted on the cluster
    (Flask-Limiter's cluster storage on the same URL): the fourth request of three a minute is 429."""
    prefix = f"ta-cl:{uuid.uuid4().hex[:8]}:"
    app = create_app(
        {
            "REDIS_URL": cluster.url,
            "RQ_REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": prefix,
            "TESTING": True,
            "TRICKARENA_RATE_LIMITS": "3/minute",
        }
    )
    client = app.test_client()
    assert [client.get("/game-types").status_code for _ in range(4)] == [200, 200, 200, 429]
    assert sum(cluster.keys_per_master(f"{prefix}ratelimit*").values()) >= 1
