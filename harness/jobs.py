"""RQ jobs (ids only) and the worker class that runs them.

- `run_match_job(tid, index)` — one match; retried by RQ (`Retry`) when the worker dies or the
  job raises; the runner resumes from the game saved in Redis and records the result once.
- `start_tournament_job(tid)` — queues every match (used for tournaments that start later).
- `league_round_job(lid, n)` — one league round (idempotent round key) and the next one's
  scheduling with RQ's scheduler (`enqueue_at`).

`HarnessWorker` is RQ's forking `Worker` with two knobs the defaults make too slow for
recovering killed workers: the grace added to the job heartbeat (RQ hard-codes 60 s, so an
abandoned job is only noticed a minute after its worker died) and the maintenance interval
(RQ: 10 minutes) at which abandoned jobs are found and retried.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
from functools import lru_cache
from typing import Any

from rq.job import Job
from rq.worker import Worker

from core.telemetry import configure_logging, log_context
from harness.queueing import enqueue_matches
from harness.runner import HarnessContext, run_match

# Imported at the top (in the worker, not in each job): RQ forks a work-horse per job, and an
# import inside the job (tournaments pulls in standings, ratings, openskill: ~70 ms) would be
# paid again by every match.
from harness.tournaments import finalize_if_complete, record_match_error, run_league_round

log = logging.getLogger("trickarena.harness")


@lru_cache(maxsize=1)
def _context() -> HarnessContext:
    # One per worker process (and per forked work-horse: the pool is recreated lazily after fork).
    configure_logging()  # JSON lines when TRICKARENA_LOG_FORMAT=json
    return HarnessContext.from_env()


class MatchBusy(RuntimeError):
    """Another runner still holds the match's lease; raising makes RQ retry the job later."""


def run_match_job(tid: str, index: int) -> dict[str, Any]:
    """RQ job: play or resume one match, then finish the tournament if it was the last."""
    ctx = _context()
    with log_context(match_id=f"{tid}:{index}", tournament_id=tid):  # on every log line of the match
        outcome = run_match(ctx, tid, int(index))
        if outcome.status == "busy":
            raise MatchBusy(f"match {tid}:{index} is held by another runner")
        finalize_if_complete(ctx, tid)
    return {"status": outcome.status, "completed": outcome.completed}


def match_failed(job: Job, connection: Any, exc_type: type, value: BaseException, traceback: Any) -> None:
    """RQ failure callback: once a match job has no retries left, record it as an error.

    Without this an internal error (not a bot fault: those never fail a job) would leave the
    tournament one result short forever. The error result counts towards completion and is
    left out of the standings.
    """
    if job.retries_left:
        return  # RQ retries it
    tid, index = job.args[0], int(job.args[1])
    ctx = _context()
    record_match_error(ctx, tid, index, f"{getattr(exc_type, '__name__', 'Error')}: {value}")
    finalize_if_complete(ctx, tid)


def start_tournament_job(tid: str) -> int:
    """RQ job: queue every match of a tournament scheduled for later."""
    ctx = _context()
    record = ctx.store.tournament(tid)
    if record is None or record["status"] != "scheduled":
        return 0
    enqueue_matches(ctx, tid, range(record["total"]))
    return int(record["total"])


def league_round_job(lid: str, round_no: int) -> str | None:
    """RQ job: run league round `round_no` (once) and schedule the next."""
    return run_league_round(_context(), lid, int(round_no))


CPU_POLICIES = ("batch", "normal")


def set_cpu_policy(policy: str) -> bool:
    """Run this process, and the work-horses it will fork, under `policy`; False if the OS has none.

    "batch" is Linux's SCHED_BATCH: same CPU share, but a worker woken by a bot's or Redis's
    reply no longer preempts the process that woke it. That process then finishes its last
    microseconds (a bot thread returning to its read loop, still holding its GIL; Redis back to
    its event loop) instead of waiting on the run queue behind a whole turn of the work-horse
    while another match stands still behind it. See docs/performance.md (Harness).
    """
    if policy not in CPU_POLICIES:
        raise ValueError(f"unknown CPU policy {policy!r} (one of {', '.join(CPU_POLICIES)})")
    wanted = getattr(os, "SCHED_BATCH" if policy == "batch" else "SCHED_OTHER", None)
    if wanted is None or not hasattr(os, "sched_setscheduler"):
        return False
    try:
        # pid 0 is the calling thread; threads and processes it creates later inherit the policy.
        os.sched_setscheduler(0, wanted, os.sched_param(0))
    except OSError:
        return False
    return True


# The grace RQ adds to every job heartbeat TTL (rq.worker.base.Worker.get_heartbeat_ttl).
RQ_HEARTBEAT_GRACE_S = 60


PR_SET_PDEATHSIG = 1  # prctl(2)


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux `prctl(PR_SET_PDEATHSIG)`).

    RQ puts each work-horse in a process group of its own (`os.setpgrp`), so killing the
    worker's group does not reach it: without this, a horse outlives a killed worker and plays
    on. With it, stopping a worker (its group) stops its match too; the match resumes elsewhere
    from the game in Redis and its write-ahead record.
    """
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    parent = os.getppid()
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # the parent died before the prctl took effect
        os._exit(1)


class HarnessWorker(Worker):
    """RQ's forking worker with a configurable heartbeat grace (abandoned jobs found sooner)."""

    heartbeat_grace_s = int(os.environ.get("TRICKARENA_HEARTBEAT_GRACE", "60"))

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """RQ's heartbeat TTL with our grace in place of its fixed one (abandoned jobs found sooner).

        RQ's own method stays what computes the TTL (monitoring interval bounded by the job
        timeout, plus `RQ_HEARTBEAT_GRACE_S`); only the grace is swapped.  A test pins RQ's grace,
        so an RQ release that changes it fails the build instead of skewing this.
        """
        ttl = int(super().get_heartbeat_ttl(job, working_time))
        return ttl - RQ_HEARTBEAT_GRACE_S + self.heartbeat_grace_s

    def setup_work_horse_signals(self) -> None:
        """RQ's horse signal setup (its hook, run in every forked horse), then die with the worker."""
        super().setup_work_horse_signals()  # type: ignore[no-untyped-call]
        die_with_parent()

    @property
    def dequeue_timeout(self) -> int:
        """Wake up from a blocking dequeue at least once per maintenance interval."""
        return max(1, min(int(self.worker_ttl) - 15, int(self.maintenance_interval)))
