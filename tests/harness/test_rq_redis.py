"""RQ on a Redis of its own (`RQ_REDIS_URL`), the games and tournaments on `REDIS_URL`."""

from __future__ import annotations

import uuid

import pytest
import redis

from core.redis_server import RedisHandle
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament

from .bot_servers import FaultyBotServer, submit_faulty
from .conftest import WorkerProcs, wait_for


@pytest.mark.timeout(240)
def test_rq_runs_on_own_redis_url_and_the_tournament_on_redis_url(
    redis_url: str, key_prefix: str, own_redis: RedisHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (issue 25, operations.md Redis topologies): with RQ_REDIS_URL set, the queue, jobs and
    workers live there (not a key of them on REDIS_URL) while the tournament, its games and results
    live on REDIS_URL; a worker plays the whole tournament so."""
    monkeypatch.setenv("RQ_REDIS_URL", own_redis.url)  # the workers inherit it
    queue = f"ta-rq-{uuid.uuid4().hex[:8]}"
    ctx = HarnessContext.build(redis_url, key_prefix, queue)
    workers = WorkerProcs(redis_url, key_prefix, queue)
    servers = [FaultyBotServer("slow", delay_s=0.0).start() for _ in range(3)]
    storage = redis.Redis.from_url(redis_url)
    try:
        ids = [submit_faulty(ctx.bots, s, f"rq{i}") for i, s in enumerate(servers)]
        workers.start()
        info = create_tournament(ctx, "tricky-teams", 3, ids, deals=1, options={"raids": 1})
        tid, total = info["tournament_id"], info["progress"]["total"]
        wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 180, "the tournament to finish")
        results = ctx.store.results(tid)
        assert sorted(int(r["index"]) for r in results) == list(range(total))
        assert not any(r.get("error") for r in results)
        rq_keys = [
            k for k in redis.Redis.from_url(own_redis.url).scan_iter(match="rq:*") if queue.encode() in k
        ]
        assert rq_keys, "no RQ key of the queue on RQ_REDIS_URL"
        on_storage = [k for k in storage.scan_iter(match="rq:*", count=1000) if queue.encode() in k]
        assert not on_storage, on_storage
        assert storage.exists(ctx.store.key_for("results", tid))
    finally:
        workers.stop_all()
        for server in servers:
            server.stop()
        storage.close()
