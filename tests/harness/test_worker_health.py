"""Issue 25: a worker never blames a bot for its own network; a job whose worker died right after
dequeuing it is rescued within the heartbeat grace (real RQ worker processes, real HTTP bots)."""

from __future__ import annotations

import os
import signal
import time

import pytest
import redis
from rq import Queue
from rq.worker import Worker

from api.ops import worker_status
from harness import tournaments as T
from harness.health import unhealthy_workers
from harness.runner import HarnessContext, run_match
from harness.tournaments import create_tournament

from .bot_servers import random_bots
from .conftest import WorkerProcs, wait_for


def _finished(ctx: HarnessContext, tid: str) -> bool:
    record = ctx.store.tournament(tid)
    return record is not None and record["status"] == "finished"


@pytest.mark.timeout(150)
def test_a_worker_that_reaches_no_bot_trips_and_charges_no_bot(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Issue 25, "a worker never blames a bot for its own network": beside a healthy worker, a worker
    whose own outbound policy refuses every bot address charges no fault and decides no match by
    fallback moves: its matches are abandoned uncharged and played by the healthy worker; it trips,
    takes no more jobs and is listed unhealthy (getHealth's workers section, the metric)."""
    with random_bots(ctx.bots, 3) as bots:
        ids = [bot_id for bot_id, _ in bots]
        tag = ctx.store.prefix.strip(":")[-8:]
        healthy, broken = f"healthy-{tag}", f"broken-{tag}"
        # One match at a time on the healthy worker: the broken one gets matches to take.
        workers.start(name=healthy, extra=["--max-in-flight", "1"])
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=1, deadline_ms=2000, time_bank_ms=2000, seed=25
        )
        tid = info["tournament_id"]
        # The healthy worker has played a match: it has reached every bot.
        wait_for(lambda: (ctx.store.tournament(tid) or {}).get("completed", 0) >= 1, 60, "a first result")
        # An empty allow-list: loopback (where the bots are) is refused by this worker only.
        workers.start(
            name=broken,
            scheduler=False,
            env={"TRICKARENA_ALLOWED_NETWORKS": "", "TRICKARENA_TRIP_BOTS": "2"},
        )
        wait_for(lambda: _finished(ctx, tid), 120, "the tournament to finish")
        results = ctx.store.results(tid)
        assert len(results) == info["progress"]["total"] == 12
        assert not [r for r in results if r.get("error")]
        assert sum(sum(r["faults"]) for r in results) == 0, "a bot was charged for the worker's network"
        assert all(r["unrated"] == [] for r in results)
        # It took matches (and gave them up): it tripped on two distinct bots, and says so.
        tripped = unhealthy_workers(ctx.store.client, ctx.store.prefix)
        assert broken in tripped and healthy not in tripped
        assert len(tripped[broken]["bots"]) >= 2  # type: ignore[arg-type]
        status = worker_status(ctx.rq_connection, ctx.queue_name, ctx.store.client, ctx.store.prefix)
        assert status["unhealthy"] == [broken] and status["ok"] is True


@pytest.mark.timeout(90)
def test_a_job_dequeued_by_a_worker_killed_before_starting_it_is_rescued_within_the_grace(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Issue 25, "fast rescue": a worker SIGKILLed after it dequeued a match job but before it
    started it (the job left in RQ's intermediate queue) holds the match up for about the
    heartbeat grace (2 s here, plus the maintenance interval), not RQ's hard-coded minute."""
    with random_bots(ctx.bots, 3) as bots:
        ids = [bot_id for bot_id, _ in bots]
        tag = ctx.store.prefix.strip(":")[-8:]
        doomed = workers.start(name=f"doomed-{tag}", scheduler=False)
        rq = redis.Redis.from_url(ctx.redis_url)

        def doomed_idle() -> bool:
            worker = Worker.find_by_key(f"rq:worker:doomed-{tag}", connection=rq)
            return worker is not None and worker.get_state() == "idle"

        wait_for(
            doomed_idle,
            30,
            "the doomed worker to wait for jobs",
        )
        time.sleep(0.5)  # inside its blocking dequeue
        os.kill(doomed.pid, signal.SIGSTOP)  # Redis still hands it the first job; it never takes it
        info = create_tournament(
            ctx, "trick-n-trouble", 3, ids[:2], deals=1, deadline_ms=2000, time_bank_ms=2000, seed=3
        )
        tid = info["tournament_id"]
        queue = Queue(ctx.queue_name, connection=rq)
        wait_for(lambda: rq.llen(queue.intermediate_queue_key) == 1, 10, "the doomed worker's dequeue")
        workers.sigkill(doomed)
        started = time.monotonic()
        workers.start(name=f"rescuer-{tag}")
        wait_for(lambda: _finished(ctx, tid), 60, "the tournament to finish")
        elapsed = time.monotonic() - started
        assert elapsed < 25, f"the dequeued match waited {elapsed:.0f} s"
        results = ctx.store.results(tid)
        assert len(results) == info["progress"]["total"]
        assert not [r for r in results if r.get("error")]


def test_a_run_that_died_around_creating_its_game_leaves_no_orphaned_game(ctx: HarnessContext) -> None:
    """Issue 25, "resumed matches": the id a match's game will have is recorded before the game is
    created, so a run that died in between (match 0: the id planned, no game) or just after
    (match 1: the game created, its id not yet claimed) leaves no sealed game nobody knows of: the
    next run creates or takes that game, and every game in Redis is a game of the matches."""
    with random_bots(ctx.bots, 2) as bots:
        ids = [bot_id for bot_id, _ in bots]
        info = T.create_tournament(ctx, "trick-n-trouble", 3, ids, deals=1, seed=9, enqueue=False)
        tid = info["tournament_id"]
        planned = [ctx.store.claim_game_id(tid, i, f"00deadbeef00caf{i}", field="planned") for i in (0, 1)]
        match = ctx.store.match_spec(tid, 1)
        assert match is not None
        ctx.service.create_game(
            "trick-n-trouble", 3, seed=int(match["deal_seed"]), sealed=True, game_id=planned[1]
        )
        for index in range(info["progress"]["total"]):
            assert run_match(ctx, tid, index).status == "recorded"
    game_key = ctx.service.repository.key_for("game", "*")
    games = {k.decode()[len(game_key) - 2 : -1] for k in ctx.store.client.scan_iter(game_key)}
    recorded = {r["game_id"] for r in ctx.store.results(tid)}
    assert set(planned) <= recorded
    assert games == recorded
