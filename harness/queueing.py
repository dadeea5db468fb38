"""Putting harness work on RQ: one job per match, a tournament's delayed start, league rounds.

The producers (`harness.tournaments`, the API, the CLI) import this module; the job functions
live in `harness.jobs`, which the workers import, and are named here by their dotted paths, as
RQ records them anyway -- so producers never import the worker side and no cycle arises.

**Fair queue: a feeder.** One RQ queue serves every tournament, but not first come, first served: a
tournament's matches wait in the harness's own backlog (``feed:<queue>:b:<tid>``, a list of match
indices under the key prefix), and at most `FEED_K` of them per tournament wait in RQ's queue at a
time (the set ``feed:<queue>:w:<tid>``; both keys hash-tagged by the tournament, ``{<tid>}``, so
the feed's script touches one Redis Cluster slot). Whenever a match job starts (`match_started`,
called first thing by the job), it leaves that set and its tournament's next match is queued behind
whatever is waiting, so tournaments take turns round robin: a small tournament queued behind a
large one waits for at most `FEED_K` of the large one's matches, not for all of them. Every step
(queueing matches, feeding, a job's start) costs O(`FEED_K`) Redis work, whatever the backlog's
length (`_FEED_LUA`). `sweep_feeder` repairs what a crash between the two steps of a feed may leave
(an index taken from the backlog whose job was never queued); the worker runs it every
`SWEEP_INTERVAL_S` (`harness.jobs.feeder_sweep_job`, on RQ's scheduler) while backlogs exist.

**No RQ records of finished matches.** The match result lives in the harness's own store; RQ
deletes a finished match job (its hash, result and execution records) as it finishes
(`RESULT_TTL_S` = 0; $TRICKARENA_RESULT_TTL_S keeps them that long for rq-dashboard, at ~6.6 KB
a match).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, cast

from rq import Callback, Queue, Retry
from rq.job import Job, JobStatus

from harness.runner import HarnessContext
from harness.scheduling import not_before
from harness.store import tournament_tag

JOB_TIMEOUT_S = 3600
MATCH_RETRIES = 5
# How long RQ keeps a finished match job (the dashboard shows it that long): not at all, a
# finished match costs < 12 KB in Redis in all that way; the result itself is in our own store.
# $TRICKARENA_RESULT_TTL_S overrides it (docs/operations.md, Limits).
RESULT_TTL_S = 0
# A failed job (retries exhausted, recorded as an error result) stays for inspection this long.
FAILURE_TTL_S = 7 * 86400

# Match jobs of one tournament waiting in RQ's queue at once (docs/operations.md, Limits).
FEED_K = 8
# How often the feeder's sweep runs while any backlog is left.
SWEEP_INTERVAL_S = 30
BACKLOG_CHUNK = 5000

# Take up to K - (waiting) indices off a tournament's backlog into its waiting set; O(K).
# KEYS: backlog list, waiting set (both in the tournament's hash slot). ARGV: K.
# Returns {emptied (1: the backlog is empty now), the indices taken...}; the index of tournaments
# with a backlog (another slot) is updated after it (`feed`).
_FEED_LUA = """
local room = tonumber(ARGV[1]) - redis.call('SCARD', KEYS[2])
if room <= 0 then return {0} end
local taken = redis.call('LPOP', KEYS[1], room)
if not taken then return {1} end
redis.call('SADD', KEYS[2], unpack(taken))
local emptied = 0
if redis.call('LLEN', KEYS[1]) == 0 then emptied = 1 end
table.insert(taken, 1, emptied)
return taken
"""


def result_ttl_s() -> int:
    """Seconds RQ keeps a finished match job: $TRICKARENA_RESULT_TTL_S, or `RESULT_TTL_S`."""
    return int(os.environ.get("TRICKARENA_RESULT_TTL_S", "") or RESULT_TTL_S)


def job_id(ctx: HarnessContext, *parts: object) -> str:
    """A deterministic RQ job id (RQ allows letters, digits, '_' and '-') scoped by the key prefix."""
    raw = "_".join(["ta", ctx.store.prefix, *(str(p) for p in parts)])
    return re.sub(r"[^A-Za-z0-9_-]", "-", raw)


def queue_for(ctx: HarnessContext) -> Queue:
    """The harness's RQ queue on the context's RQ Redis (`RQ_REDIS_URL`, default `REDIS_URL`)."""
    return Queue(ctx.queue_name, connection=ctx.rq_connection)


def _feed_key(ctx: HarnessContext, kind: str, tid: str = "") -> str:
    """The feeder's keys: ``b`` backlog of `tid`, ``w`` its matches waiting in RQ (both in the
    tournament's hash slot: ``feed:<queue>:b:{<tid>}``), ``t`` the tournaments with a backlog,
    ``sweep`` the next sweep's marker (per queue, under the prefix)."""
    suffix = f":{tournament_tag(tid)}" if tid else ""
    return f"{ctx.store.prefix}feed:{ctx.queue_name}:{kind}{suffix}"


def enqueue_matches(ctx: HarnessContext, tid: str, indices: Iterable[int]) -> list[str]:
    """Put the matches in the tournament's backlog (in order; safe to call twice: runs are
    idempotent) and queue its first `FEED_K` as RQ jobs (fair queue); the ids of the jobs queued now."""
    client = ctx.store.client
    backlog = [str(i) for i in indices]
    for start in range(0, len(backlog), BACKLOG_CHUNK):
        client.rpush(_feed_key(ctx, "b", tid), *backlog[start : start + BACKLOG_CHUNK])
    if backlog:
        client.sadd(_feed_key(ctx, "t"), tid)
    queued = feed(ctx, tid)
    schedule_sweep(ctx)
    return queued


def _match_jobs(ctx: HarnessContext, tid: str, indices: Iterable[int]) -> list[str]:
    """Queue one RQ job per match (deterministic job ids); their ids."""
    ttl = result_ttl_s()
    specs = [
        Queue.prepare_data(
            "harness.jobs.run_match_job",
            args=(tid, i),
            job_id=job_id(ctx, tid, i),
            timeout=JOB_TIMEOUT_S,
            result_ttl=ttl,
            failure_ttl=FAILURE_TTL_S,
            # Immediate retries: a retried match waits for the dead runner's lease itself.
            retry=Retry(max=MATCH_RETRIES),
            on_failure=Callback("harness.jobs.match_failed"),
        )
        for i in indices
    ]
    if not specs:
        return []
    return [j.id for j in queue_for(ctx).enqueue_many(specs)]


def feed(ctx: HarnessContext, tid: str) -> list[str]:
    """Top the tournament's waiting matches in RQ's queue up to `FEED_K` from its backlog; the
    ids of the jobs queued. A tournament no longer running or scheduled has its backlog dropped."""
    status = ctx.store.tournament_status(tid)
    if status not in (None, "scheduled", "running"):
        drop_backlog(ctx, tid)
        return []
    client = ctx.store.client
    script = client.register_script(_FEED_LUA)
    emptied, *taken = cast(
        list[Any], script(keys=[_feed_key(ctx, "b", tid), _feed_key(ctx, "w", tid)], args=[FEED_K])
    )
    if int(emptied):
        # Out of the index of backlogs -- back in if one was queued meanwhile (`enqueue_matches`
        # pushes, then lists): idempotent, and never leaves a backlog unlisted.
        client.srem(_feed_key(ctx, "t"), tid)
        if client.llen(_feed_key(ctx, "b", tid)):
            client.sadd(_feed_key(ctx, "t"), tid)
    return _match_jobs(ctx, tid, [int(i) for i in taken])


def match_started(ctx: HarnessContext, tid: str, index: int) -> list[str]:
    """A match job has started: it no longer waits; queue the tournament's next match(es)."""
    ctx.store.client.srem(_feed_key(ctx, "w", tid), str(index))
    return feed(ctx, tid)


def drop_backlog(ctx: HarnessContext, tid: str) -> None:
    """Forget the tournament's matches not yet queued (a cancelled or finished tournament)."""
    client = ctx.store.client
    client.delete(_feed_key(ctx, "b", tid), _feed_key(ctx, "w", tid))
    client.srem(_feed_key(ctx, "t"), tid)


def backlog(ctx: HarnessContext, tid: str) -> int:
    """How many of the tournament's matches wait in the feeder's backlog (not yet in RQ's queue)."""
    return int(ctx.store.client.llen(_feed_key(ctx, "b", tid)))


def waiting(ctx: HarnessContext, tid: str) -> int:
    """How many of the tournament's matches the feeder counts as waiting in RQ's queue."""
    return int(ctx.store.client.scard(_feed_key(ctx, "w", tid)))


def sweep_feeder(ctx: HarnessContext) -> int:
    """Repair the feeder after a crash: a waiting index whose RQ job is gone or has already run
    leaves the waiting set; one whose job was never queued is queued; every tournament with a
    backlog is topped up. O(FEED_K) per tournament with a backlog; the jobs queued."""
    client = ctx.store.client
    queued = 0
    tids = [t.decode() for t in cast(set[bytes], client.smembers(_feed_key(ctx, "t")))]
    for tid in tids:
        waiting = sorted(int(i) for i in cast(set[bytes], client.smembers(_feed_key(ctx, "w", tid))))
        ids = [job_id(ctx, tid, i) for i in waiting]
        missing, gone = [], []
        for index, job in zip(waiting, Job.fetch_many(ids, connection=ctx.rq_connection), strict=True):
            if job is None:
                missing.append(index)
            elif job.get_status(refresh=False) not in (JobStatus.QUEUED, JobStatus.SCHEDULED):
                gone.append(str(index))
        if gone:
            client.srem(_feed_key(ctx, "w", tid), *gone)
        queued += len(_match_jobs(ctx, tid, missing)) + len(feed(ctx, tid))
    return queued


def schedule_sweep(ctx: HarnessContext, after_sweep: bool = False) -> str | None:
    """Queue the feeder's next sweep in `SWEEP_INTERVAL_S` while any backlog is left, unless one is
    due already (a marker key living until then; the sweep itself, `after_sweep`, replaces it);
    its job id, or None."""
    client = ctx.store.client
    marker = _feed_key(ctx, "sweep")
    if after_sweep:
        client.delete(marker)
    if not client.scard(_feed_key(ctx, "t")) or not client.set(marker, 1, nx=True, ex=SWEEP_INTERVAL_S):
        return None
    job = queue_for(ctx).enqueue_in(
        timedelta(seconds=SWEEP_INTERVAL_S), "harness.jobs.feeder_sweep_job", result_ttl=0, failure_ttl=3600
    )
    return str(job.id)


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
