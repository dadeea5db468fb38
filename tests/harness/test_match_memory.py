"""What a finished match costs in Redis: its game, the harness's records and RQ's, by MEMORY USAGE."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
import redis

from harness.catalog import list_tournaments
from harness.queueing import job_id
from harness.runner import HarnessContext, run_match
from harness.tournaments import TournamentNotFound, create_tournament, finalize_if_complete, get_tournament

from .bot_servers import delayed_bots
from .conftest import WorkerProcs, wait_for

# Issue 16: a finished Tricky Teams match costs less than this in all (game, harness, RQ).
BUDGET_BYTES = 12 * 1024


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


def _kind(key: str, prefix: str) -> str:
    """A key's kind for the breakdown: its template with the ids taken out."""
    rest = key[len(prefix) :] if key.startswith(prefix) else key
    parts = rest.split(":")
    if parts[0] == "rq":
        return ":".join(parts[:2])
    if parts[0] == "game":
        return "game" + "".join(":" + p for p in parts[2:])
    if parts[0] == "b":
        return "b:<bot>:" + ":".join(p for p in parts[2:3])
    if parts[0] == "t":
        return "t:<tid>" + "".join(":" + (p if not p.isdigit() else "<i>") for p in parts[2:])
    return parts[0]


@pytest.mark.timeout(180)
def test_a_finished_tricky_teams_match_costs_under_12_kb_in_all_rq_included(
    ctx: HarnessContext,
    workers: WorkerProcs,
    steady_bots: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Rule (issue 16, 25): game + harness records + RQ's records of a finished Tricky Teams match
    (the default options, the full game), measured with MEMORY USAGE over every key the tournament
    left as it finished -- RQ's included, with the default settings -- tournament-wide keys shared
    out over its matches, stay under 12 KB a match."""
    client = ctx.store.client
    workers.start(scheduler=False)
    info = create_tournament(
        ctx, "tricky-teams", 4, steady_bots, deals=2, deadline_ms=2000, time_bank_ms=2000
    )
    tid, total = info["tournament_id"], info["progress"]["total"]
    wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 150, "the tournament to finish")
    time.sleep(0.5)  # the last job's own bookkeeping in RQ, after it recorded the result
    # Every key under the test's prefix but the bot registry's (bots are not per match).
    # (its keys share the registry's own prefix, `BotRegistry.key_for`: ``{bots}:`` since issue 25)
    registry = os.path.commonprefix([ctx.bots.key_for("bot", "x"), ctx.bots.key_for("index")]).encode()
    ours = [
        k for k in client.scan_iter(match=ctx.store.prefix + "*", count=1000) if not k.startswith(registry)
    ]
    usage = _usage(client, ours + _rq_keys(client, ctx))
    kinds: dict[str, int] = {}
    for key, n in usage.items():
        kind = _kind(key, ctx.store.prefix)
        kinds[kind] = kinds.get(kind, 0) + n
    game = sum(v for k, v in kinds.items() if k.startswith("game"))
    rq = sum(v for k, v in kinds.items() if k.startswith("rq:"))
    per_match = sum(kinds.values()) / total
    with capsys.disabled():
        print(
            f"\nper finished match ({total} matches): game {game / total:.0f} B, harness records "
            f"{(sum(kinds.values()) - game - rq) / total:.0f} B, RQ {rq / total:.0f} B; in all "
            f"{per_match:.0f} B"
        )
        for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print(f"  {kind:40} {n / total:8.0f} B")
    assert per_match < BUDGET_BYTES


@pytest.mark.timeout(120)
def test_a_finished_tournament_and_its_games_expire_together_after_the_retention(
    ctx: HarnessContext, steady_bots: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (issue 25, bounded memory): when a tournament of its own finishes, every key it left --
    record, matches, results, decision records, standings, the bots' per-tournament indexes and
    its games -- expires after the retention ($TRICKARENA_TOURNAMENT_RETENTION_S), all at once:
    its replays are there while it is listed, and then it is gone from the listings too."""

    monkeypatch.setenv("TRICKARENA_TOURNAMENT_RETENTION_S", "3")
    client = ctx.store.client
    info = create_tournament(ctx, "tricky-teams", 4, steady_bots, deals=1, enqueue=False)
    tid, total = info["tournament_id"], info["progress"]["total"]
    for index in range(total):
        assert run_match(ctx, tid, index).status == "recorded"
    finalize_if_complete(ctx, tid)
    assert get_tournament(ctx, tid)["status"] == "finished"
    games = set(ctx.store.match_game_ids(tid, total).values())
    assert len(games) == total
    left = [
        k.decode()
        for k in client.scan_iter(match=ctx.store.prefix + "*", count=1000)
        if tid.encode() in k or any(g.encode() in k for g in games)
    ]
    assert any(":game:" in k for k in left) and any(":b:" in k for k in left)
    ttls = {k: client.pttl(k) for k in left}
    assert all(0 < ttl <= 3000 for ttl in ttls.values()), {k: v for k, v in ttls.items() if not 0 < v <= 3000}
    assert tid in [t["tournament_id"] for t in list_tournaments(ctx).items]
    time.sleep(3.5)
    assert not any(client.exists(k) for k in left)
    with pytest.raises(TournamentNotFound):
        get_tournament(ctx, tid)
    assert tid not in [t["tournament_id"] for t in list_tournaments(ctx).items]
