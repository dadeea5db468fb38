"""The match runner over real HTTP bots and real Redis: fallbacks, WAL resume, exactly-once results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.registry import get_game
from harness.runner import HarnessContext, fallback_move, run_match
from harness.tournaments import create_tournament

from .bot_servers import FaultyBotServer, submit_faulty
from .conftest import ROOT, wait_for


@pytest.fixture()
def steady_bots(ctx: HarnessContext) -> Iterator[tuple[list[str], list[FaultyBotServer]]]:
    """Four well-behaved keep-alive bots (random legal moves), submitted to the registry."""
    servers = [FaultyBotServer("slow", delay_s=0.002).start() for _ in range(4)]
    tag = ctx.store.prefix[8:20]
    ids = [submit_faulty(ctx.bots, server, f"steady{i}-{tag}") for i, server in enumerate(servers)]
    yield ids, servers
    for server in servers:
        server.stop()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**62), version=st.integers(1, 500), n=st.integers(1, 20))
def test_fallback_move_is_a_deterministic_legal_move(seed: int, version: int, n: int) -> None:
    """Rule: the fallback for a fault is one of the legal moves, fixed by match seed and version."""
    legal = [{"type": "play", "card": f"red-{i}"} for i in range(n)]
    move = fallback_move(legal, seed, version)
    assert move in legal
    assert move == fallback_move(list(legal), seed, version)


def test_result_is_recorded_exactly_once(
    ctx: HarnessContext, steady_bots: tuple[list[str], list[FaultyBotServer]]
) -> None:
    """Rule: running a finished match again records nothing and counts nothing."""
    ids, _ = steady_bots
    info = create_tournament(
        ctx, "tricky-teams", 4, ids, deals=1, seed=4, options={"raids": 1}, enqueue=False
    )
    tid = info["tournament_id"]
    first = run_match(ctx, tid, 0)
    second = run_match(ctx, tid, 0)
    assert (first.status, second.status) == ("recorded", "already_recorded")
    record = ctx.store.tournament(tid)
    assert record is not None and record["completed"] == 1
    assert len(ctx.store.results(tid)) == 1


def test_wal_at_the_current_version_is_applied_as_decided(
    ctx: HarnessContext, steady_bots: tuple[list[str], list[FaultyBotServer]]
) -> None:
    """Rule: a move decided (and accounted) before a crash is applied on resume, not asked again."""
    ids, servers = steady_bots
    info = create_tournament(
        ctx, "tricky-teams", 4, ids, deals=1, seed=4, options={"raids": 1}, enqueue=False
    )
    tid = info["tournament_id"]
    match = ctx.store.match_spec(tid, 0)
    assert match is not None
    created = ctx.service.create_game("tricky-teams", 4, {"raids": 1}, seed=int(match["deal_seed"]))
    ctx.store.claim_game_id(tid, 0, created.game_id)
    engine = get_game("tricky-teams")
    state = ctx.service.load(created.game_id).state
    seat = engine.to_move(state)[0]
    decided = engine.legal_moves(state, seat)[-1]
    acct = {
        "faults": [1 if s == seat else 0 for s in range(4)],
        "fault_codes": [{"timeout": 1} if s == seat else {} for s in range(4)],
        "bank_ms": [0 if s == seat else 5000 for s in range(4)],
        "previous": [{"status": "replaced", "fault": "timeout"} if s == seat else None for s in range(4)],
        "decisions": 1,
        "bot_s": 0.0,
        "unrated": [],
    }
    ctx.store.client.hset(
        ctx.store.key_for("match", tid, 0),
        "wal",
        json.dumps(
            {"version": 1, "actions": 0, "seat": seat, "move": decided, "fault": "timeout", "acct": acct}
        ),
    )
    asked_before = sum(s.requests for s in servers)
    outcome = run_match(ctx, tid, 0)
    assert outcome.status == "recorded" and outcome.result is not None
    final = ctx.service.load(created.game_id).state
    assert (
        final["actions"][0]["move"] == decided
        if isinstance(final["actions"][0], dict) and "move" in final["actions"][0]
        else True
    )
    assert outcome.result["fault_codes"][seat] == {"timeout": 1}
    assert outcome.result["decisions"] == len(final["actions"])
    moves_asked = sum(s.requests for s in servers) - asked_before - 4  # minus the four /end notifications
    assert moves_asked == len(final["actions"]) - 1  # every decision but the one from the WAL
    assert seat in [s for s in range(4)] and servers[ids.index(match["seats"][seat])].faults_told[:1] == [
        "timeout"
    ]


@pytest.mark.timeout(120)
def test_runner_process_killed_mid_match_resumes_from_redis(
    ctx: HarnessContext, steady_bots: tuple[list[str], list[FaultyBotServer]], redis_url: str
) -> None:
    """Rule: SIGKILL of a runner process mid-match; the next run continues from the last saved move."""
    ids, servers = steady_bots
    info = create_tournament(
        ctx, "tricky-teams", 4, ids, deals=1, deadline_ms=1000, time_bank_ms=0, seed=2, enqueue=False
    )
    tid = info["tournament_id"]
    code = (
        "import sys; from harness.runner import HarnessContext, run_match; "
        f"run_match(HarnessContext.build({redis_url!r}, {ctx.store.prefix!r}), {tid!r}, 0)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )

    def mid_match() -> bool:
        game_id = ctx.store.match_runtime(tid, 0).get("game_id")
        if not game_id:
            return False
        return ctx.service.load(game_id).version > 25

    try:
        wait_for(mid_match, 60, "the runner to be mid-match", poll=0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    game_id = ctx.store.match_runtime(tid, 0)["game_id"]
    version_at_kill = ctx.service.load(game_id).version
    asked_before = sum(s.requests for s in servers)
    outcome = run_match(ctx, tid, 0, wait_s=10)  # waits out the dead runner's lease
    assert outcome.status == "recorded" and outcome.result is not None
    assert outcome.result["timing"]["resumed"] is True
    actions = len(ctx.service.load(game_id).state["actions"])
    assert outcome.result["decisions"] == actions
    asked_after_kill = sum(s.requests for s in servers) - asked_before - 4  # minus /end (no /start)
    assert asked_after_kill <= actions - (version_at_kill - 1) + 1  # at most one decision asked twice
    # Decision records (issue 18): one per move, in order; those the dead run had buffered are
    # re-created from the game's actions without a latency, the resumed run's carry theirs.
    _versions, records = ctx.store.match_decisions(tid, 0)
    played = ctx.service.load(game_id).state["actions"]
    assert [r[0] for r in records] == [int(a["seat"]) for a in played]
    assert [r[1] for r in records] == list(range(2, len(played) + 2))
    assert all(r[3] == "ok" and not r[4] for r in records)
    assert all(isinstance(r[2], int) for r in records[version_at_kill - 1 :])


def test_the_result_carries_a_histogram_of_every_move_answer_time(ctx: HarnessContext) -> None:
    """Rule: every /move call lands in one latency bucket; none faster than the bot's 11 ms sleep."""
    from core.telemetry import BOT_LATENCY_BUCKETS, latency_bucket

    servers = [FaultyBotServer("slow", delay_s=0.011).start() for _ in range(4)]
    try:
        tag = ctx.store.prefix[8:20]
        ids = [submit_faulty(ctx.bots, server, f"sleepy{i}-{tag}") for i, server in enumerate(servers)]
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=1, seed=5, options={"raids": 1}, enqueue=False
        )
        outcome = run_match(ctx, info["tournament_id"], 0)
    finally:
        for server in servers:
            server.stop()
    assert outcome.result is not None
    latency = outcome.result["bot_latency"]
    counts = latency["counts"]
    assert len(counts) == len(BOT_LATENCY_BUCKETS) + 1
    assert sum(counts) == outcome.result["decisions"]  # no seat went unasked
    assert sum(counts[: latency_bucket(0.011)]) == 0
    assert 0.011 * sum(counts) <= latency["sum_s"] <= outcome.result["timing"]["bot_s"]
