"""What a finished match costs in Redis: its game, the harness's records and RQ's, by MEMORY USAGE."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import cast

import pytest
import redis

from harness.queueing import job_id
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament

from .bot_servers import delayed_bots
from .conftest import WorkerProcs, wait_for

# Issue 16: a finished Tricky Teams match costs less than this in all (game, harness, RQ).
BUDGET_BYTES = 12 * 1024
RESULT_TTL_S = 3  # RQ's records of a finished match job expire after this (short, for the test)


def _usage(client: redis.Redis, keys: list[bytes]) -> dict[str, int]:
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)  # every element counted, not a sample
    return {k.decode(): int(n or 0) for k, n in zip(keys, pipe.execute(), strict=True)}


def _rq_keys(client: redis.Redis, ctx: HarnessContext) -> list[bytes]:
    ours = job_id(ctx).encode()
    return [
        k
        for k in client.scan_iter(match="rq:*", count=1000)
        if ours in k or ctx.queue_name.encode() in k and b":worker" not in k
    ]


@pytest.fixture()
def steady_bots(ctx: HarnessContext) -> Iterator[list[str]]:
    """Four well-behaved bots (random legal moves, no delay)."""
    with delayed_bots(ctx.bots, 4, 0.0, "mem") as ids:
        yield ids


@pytest.mark.timeout(180)
def test_a_finished_tricky_teams_match_costs_under_12_kb_in_all(
    ctx: HarnessContext,
    workers: WorkerProcs,
    steady_bots: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Rule (issue 16): game + harness records + RQ's records of a finished Tricky Teams match (the
    default options, the full game), measured with MEMORY USAGE over every key the tournament
    left, tournament-wide keys shared out over its matches, stay under 12 KB a match once RQ's
    short-lived records have expired; while they live, each has a TTL of at most the result TTL."""
    monkeypatch.setenv("TRICKARENA_RESULT_TTL_S", str(RESULT_TTL_S))  # read when the jobs are queued
    client = ctx.store.client
    workers.start(scheduler=False)
    info = create_tournament(
        ctx, "tricky-teams", 4, steady_bots, deals=2, deadline_ms=2000, time_bank_ms=2000
    )
    tid, total = info["tournament_id"], info["progress"]["total"]
    wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 150, "the tournament to finish")
    # Every key under the test's prefix but the bot registry's (bots are not per match).
    registry = (ctx.store.prefix + "bot").encode()
    ours = [
        k for k in client.scan_iter(match=ctx.store.prefix + "*", count=1000) if not k.startswith(registry)
    ]

    rq_live = _rq_keys(client, ctx)
    # Every RQ record of a finished job goes away by itself within the result TTL: a key expires,
    # an entry of a queue's registry (a sorted set) is scored with its expiry time.
    lasting = {}
    for key in rq_live:
        if client.type(key) == b"zset":
            entries = cast(list[tuple[bytes, float]], client.zrange(key, 0, -1, withscores=True))
            until = max((score for _, score in entries), default=0.0)
            if until > time.time() + RESULT_TTL_S + 1:
                lasting[key] = until
        elif not 0 < client.pttl(key) <= RESULT_TTL_S * 1000:
            lasting[key] = client.pttl(key)
    assert not lasting, lasting
    rq_now = sum(_usage(client, rq_live).values())

    time.sleep(RESULT_TTL_S + 1)
    rq_after = _rq_keys(client, ctx)
    harness = _usage(client, ours)
    game = {k: v for k, v in harness.items() if ":game:" in k}
    records = {k: v for k, v in harness.items() if ":game:" not in k}
    rq = _usage(client, rq_after)
    per_match = (sum(game.values()) + sum(records.values()) + sum(rq.values())) / total
    with capsys.disabled():
        print(
            f"\nper finished match ({total} matches): game {sum(game.values()) / total:.0f} B, "
            f"harness records {sum(records.values()) / total:.0f} B, RQ while kept "
            f"{rq_now / total:.0f} B, RQ after {RESULT_TTL_S} s {sum(rq.values()) / total:.0f} B; "
            f"in all {per_match:.0f} B"
        )
    assert per_match < BUDGET_BYTES
