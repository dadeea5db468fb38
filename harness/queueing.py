"""Putting harness work on RQ: one job per match, a tournament's delayed start, league rounds.

The producers (`harness.tournaments`, the API, the CLI) import this module; the job functions
live in `harness.jobs`, which the workers import, and are named here by their dotted paths, as
RQ records them anyway -- so producers never import the worker side and no cycle arises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from rq import Callback, Queue, Retry
from rq.job import Job

from harness.runner import HarnessContext
from harness.scheduling import not_before

JOB_TIMEOUT_S = 3600
MATCH_RETRIES = 5
RESULT_TTL_S = 3600


def job_id(ctx: HarnessContext, *parts: object) -> str:
    """A deterministic RQ job id (RQ allows letters, digits, '_' and '-') scoped by the key prefix."""
    raw = "_".join(["ta", ctx.store.prefix, *(str(p) for p in parts)])
    return re.sub(r"[^A-Za-z0-9_-]", "-", raw)


def queue_for(ctx: HarnessContext) -> Queue:
    """The harness's RQ queue on the context's Redis."""
    return Queue(ctx.queue_name, connection=ctx.store.client)


def enqueue_matches(ctx: HarnessContext, tid: str, indices: Iterable[int]) -> list[str]:
    """Queue one job per match (deterministic job ids; safe to call twice: runs are idempotent)."""
    queue = queue_for(ctx)
    specs = [
        Queue.prepare_data(
            "harness.jobs.run_match_job",
            args=(tid, i),
            job_id=job_id(ctx, tid, i),
            timeout=JOB_TIMEOUT_S,
            result_ttl=RESULT_TTL_S,
            failure_ttl=7 * 86400,
            # Immediate retries: a retried match waits for the dead runner's lease itself.
            retry=Retry(max=MATCH_RETRIES),
            on_failure=Callback("harness.jobs.match_failed"),
        )
        for i in indices
    ]
    jobs: list[Job] = []
    for start in range(0, len(specs), 500):
        jobs += queue.enqueue_many(specs[start : start + 500])
    return [j.id for j in jobs]


def schedule_start(ctx: HarnessContext, tid: str, when: datetime) -> str:
    """Queue the tournament's start at `when` (RQ scheduler; never before it)."""
    job = queue_for(ctx).enqueue_at(
        not_before(when), "harness.jobs.start_tournament_job", tid, job_id=job_id(ctx, "start", tid)
    )
    return str(job.id)


def schedule_league_round(ctx: HarnessContext, lid: str, round_no: int, when: datetime) -> str:
    """Queue league round `round_no` at `when` (never before it); one job per round (deterministic id)."""
    job = queue_for(ctx).enqueue_at(
        not_before(when),
        "harness.jobs.league_round_job",
        lid,
        round_no,
        job_id=job_id(ctx, "league", lid, round_no),
        retry=Retry(max=3, interval=[1, 5, 30]),
    )
    return str(job.id)
