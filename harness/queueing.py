"""Putting harness work on RQ: one job per match, a tournament's delayed start, league rounds.

The producers (`harness.tournaments`, the API, the CLI) import this module; the job functions
live in `harness.jobs`, which the workers import, and are named here by their dotted paths, as
RQ records them anyway -- so producers never import the worker side and no cycle arises.

**Fair queue.** One RQ queue serves every tournament, but not first come, first served: each
time matches are queued, the waiting jobs are re-ordered round-robin by tournament (one Lua
call, `_INTERLEAVE_LUA`), keeping each tournament's own order. Two tournaments queued together
alternate; a small tournament queued behind a large one waits for as many of the large one's
matches as it has matches itself, not for all of them.

**Short-lived RQ records.** The match result lives in the harness's own store; RQ keeps a
finished match job (its hash, its result, its entry in the finished registry, all shown by
rq-dashboard) for `RESULT_TTL_S` only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import datetime

from rq import Callback, Queue, Retry
from rq.job import Job

from harness.runner import HarnessContext
from harness.scheduling import not_before

JOB_TIMEOUT_S = 3600
MATCH_RETRIES = 5
# How long RQ keeps a finished match job (the dashboard shows it that long); the result itself is
# in our own store. $TRICKARENA_RESULT_TTL_S overrides it (docs/operations.md, Limits).
RESULT_TTL_S = 300
# A failed job (retries exhausted, recorded as an error result) stays for inspection this long.
FAILURE_TTL_S = 7 * 86400

# Re-order a queue's waiting jobs round-robin by group, each group in its own order. A job's
# group is its id up to the last "_" (`ta_<prefix>_<tid>` for match jobs), groups take turns in
# the order they first appear. O(queue length). KEYS: the queue list. Returns the group count.
_INTERLEAVE_LUA = """
local ids = redis.call('LRANGE', KEYS[1], 0, -1)
local order, groups = {}, {}
for _, id in ipairs(ids) do
  local group = string.match(id, '^(.*)_[^_]*$') or id
  local members = groups[group]
  if not members then
    members = {}
    groups[group] = members
    order[#order + 1] = group
  end
  members[#members + 1] = id
end
if #order < 2 then return #order end
local out, next_of, active = {}, {}, order
while #active > 0 do
  local still = {}
  for _, group in ipairs(active) do
    local i = (next_of[group] or 0) + 1
    local members = groups[group]
    out[#out + 1] = members[i]
    next_of[group] = i
    if i < #members then still[#still + 1] = group end
  end
  active = still
end
redis.call('DEL', KEYS[1])
for i = 1, #out, 4000 do
  redis.call('RPUSH', KEYS[1], unpack(out, i, math.min(i + 3999, #out)))
end
return #order
"""


def result_ttl_s() -> int:
    """Seconds RQ keeps a finished match job: $TRICKARENA_RESULT_TTL_S, or `RESULT_TTL_S`."""
    return int(os.environ.get("TRICKARENA_RESULT_TTL_S", "") or RESULT_TTL_S)


def job_id(ctx: HarnessContext, *parts: object) -> str:
    """A deterministic RQ job id (RQ allows letters, digits, '_' and '-') scoped by the key prefix."""
    raw = "_".join(["ta", ctx.store.prefix, *(str(p) for p in parts)])
    return re.sub(r"[^A-Za-z0-9_-]", "-", raw)


def queue_for(ctx: HarnessContext) -> Queue:
    """The harness's RQ queue on the context's Redis."""
    return Queue(ctx.queue_name, connection=ctx.store.client)


def enqueue_matches(ctx: HarnessContext, tid: str, indices: Iterable[int]) -> list[str]:
    """Queue one job per match (deterministic job ids; safe to call twice: runs are idempotent),
    then interleave the waiting jobs by tournament (fair queue)."""
    queue = queue_for(ctx)
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
    jobs: list[Job] = []
    for start in range(0, len(specs), 500):
        jobs += queue.enqueue_many(specs[start : start + 500])
    interleave(ctx)
    return [j.id for j in jobs]


def interleave(ctx: HarnessContext) -> int:
    """Re-order the queue's waiting jobs round-robin by tournament; the number of groups."""
    script = ctx.store.client.register_script(_INTERLEAVE_LUA)
    return int(script(keys=[queue_for(ctx).key]))


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
