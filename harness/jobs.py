"""RQ jobs (ids only) and the worker class that runs them.

- `run_match_job(tid, index)` — one match; retried by RQ (`Retry`) when the worker dies or the
  job raises; the runner resumes from the game saved in Redis and records the result once.
- `start_tournament_job(tid)` — queues every match (used for tournaments that start later).
- `feeder_sweep_job()` — the fair queue's periodic repair (`harness.queueing.sweep_feeder`).
- `run_challenge_job(cid)` — one challenge (issue 28): its bot seats played, its people waited for.
- `league_round_job(lid, n)` — one league round (idempotent round key) and the next one's
  scheduling with RQ's scheduler (`enqueue_at`).

`HarnessWorker` is an RQ worker that keeps up to `max_in_flight` jobs running at once, each in a
thread of the worker process (a match spends almost all its time waiting on a bot's answer, so
one process drives many). Each job is still an ordinary RQ job: dequeued, registered as started
with its own execution and heartbeat, finished, failed or retried by RQ's own methods
(`prepare_execution`, `perform_job`, `maintain_heartbeats`); only where it runs changes. It also
has three knobs the defaults make too slow for recovering killed workers: the grace added to the
job heartbeat (RQ hard-codes 60 s, so an abandoned job is only noticed a minute after its worker
died), the maintenance interval (RQ: 10 minutes) at which abandoned jobs are found and retried,
and -- through its queue class, `HarnessQueue` -- how long a job dequeued by a worker that died
before registering it waits in RQ's intermediate queue (RQ hard-codes a minute): the same grace.

It also keeps the worker's view of its own network (`harness.health.WorkerHealth`): a match
abandoned because this worker could not reach bots that others reach is retried elsewhere with
its retry given back (`restore_retry`, an RQ exception handler), and a tripped worker takes no
job until a probe reaches one of those bots again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from datetime import timedelta
from functools import lru_cache
from typing import Any

import redis
from rq.executions import Execution
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job
from rq.queue import Queue
from rq.timeouts import TimerDeathPenalty
from rq.utils import now
from rq.worker import BaseWorker

from core.telemetry import configure_logging, log_context
from harness.challenges import challenge_error, run_challenge
from harness.health import PROBE_INTERVAL_S, WorkerHealth, WorkerUnreachable
from harness.queueing import enqueue_matches, match_started, schedule_sweep, sweep_feeder
from harness.runner import HarnessContext, run_match

# Imported at the top (in the worker, not in each job): tournaments pulls in standings, ratings
# and openskill (~70 ms), which a job would otherwise pay on its first call.
from harness.tournaments import finalize_if_complete, record_match_error, run_league_round

log = logging.getLogger("trickarena.harness")

_context_lock = threading.Lock()


@lru_cache(maxsize=1)
def _build_context() -> HarnessContext:
    configure_logging()  # JSON lines when TRICKARENA_LOG_FORMAT=json
    return HarnessContext.from_env()


def _context() -> HarnessContext:
    """One per worker process, shared by its job threads (its Redis pool is thread-safe)."""
    with _context_lock:  # the first jobs of a worker start together: build it once
        return _build_context()


class MatchBusy(RuntimeError):
    """Another runner still holds the match's lease; raising makes RQ retry the job later."""


def run_match_job(tid: str, index: int) -> dict[str, Any]:
    """RQ job: play or resume one match, then finish the tournament if it was the last."""
    ctx = _context()
    with log_context(match_id=f"{tid}:{index}", tournament_id=tid):  # on every log line of the match
        match_started(ctx, tid, int(index))  # the fair queue's feeder: the tournament's next match
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
    if job.retries_left or issubclass(exc_type, WorkerUnreachable):
        return  # RQ retries it (an infrastructure error always: `restore_retry`)
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


def feeder_sweep_job() -> int:
    """RQ job (scheduled): repair and top up the fair queue's feeder, then schedule the next sweep
    while backlogs are left; the jobs queued."""
    ctx = _context()
    queued = sweep_feeder(ctx)
    schedule_sweep(ctx, after_sweep=True)
    return queued


def league_round_job(lid: str, round_no: int) -> str | None:
    """RQ job: run league round `round_no` (once) and schedule the next."""
    return run_league_round(_context(), lid, int(round_no))


CPU_POLICIES = ("batch", "normal")


def set_cpu_policy(policy: str) -> bool:
    """Run this process, and the job threads it will start, under `policy`; False if the OS has none.

    "batch" is Linux's SCHED_BATCH: same CPU share, but a worker woken by a bot's or Redis's
    reply no longer preempts the process that woke it. That process then finishes its last
    microseconds (a bot thread returning to its read loop, still holding its GIL; Redis back to
    its event loop) instead of waiting on the run queue behind a whole turn of the worker while
    another match stands still behind it. See docs/performance.md (Harness).
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
HEARTBEAT_GRACE_ENV = "TRICKARENA_HEARTBEAT_GRACE"


def restore_retry(job: Job, exc_type: type, value: BaseException, traceback: Any) -> bool:
    """RQ exception handler: an infrastructure error (`WorkerUnreachable`) does not use up one of
    the match's retries -- RQ's retry that follows takes back the one given here. Runs after the
    failure callback and before RQ decides on the retry, on the same job object."""
    if issubclass(exc_type, WorkerUnreachable):
        job.retries_left = (job.retries_left or 0) + 1
    return True


class GraceIntermediateQueue(IntermediateQueue):
    """RQ's intermediate queue with our grace in place of its fixed minute: a job a dead worker had
    dequeued but not registered is failed (and so retried) `grace_s` after maintenance first saw it."""

    def __init__(self, queue_key: str, connection: redis.Redis, grace_s: int) -> None:
        super().__init__(queue_key, connection)
        self.grace_s = grace_s

    def should_be_cleaned_up(self, job_id: str) -> bool:
        """Stuck longer than the grace since maintenance first saw it."""
        first_seen = self.get_first_seen(job_id)
        return first_seen is not None and now() - first_seen > timedelta(seconds=self.grace_s)


class HarnessQueue(Queue):
    """The workers' queue class (RQ's `queue_class`): RQ's `Queue` whose intermediate queue is
    rescued after `rescue_grace_s` (the worker's heartbeat grace) instead of a minute."""

    rescue_grace_s = int(os.environ.get(HEARTBEAT_GRACE_ENV, "60"))

    @property
    def intermediate_queue(self) -> IntermediateQueue:
        """The intermediate queue, with the grace."""
        return GraceIntermediateQueue(self.key, self.connection, self.rescue_grace_s)


# Jobs (matches) one worker process runs at once (docs/harness.md, Concurrency).
DEFAULT_MAX_IN_FLIGHT = 64
MAX_IN_FLIGHT_ENV = "TRICKARENA_MAX_IN_FLIGHT"


def parse_max_in_flight(text: str) -> int:
    """A number of jobs in flight: a whole number from 1 to 1024 (ValueError otherwise)."""
    value = int(text)
    if not 1 <= value <= 1024:
        raise ValueError(f"jobs in flight must be from 1 to 1024, not {value}")
    return value


def max_in_flight_from_env() -> int:
    """$TRICKARENA_MAX_IN_FLIGHT, or the default (ValueError when it is not a valid number)."""
    return parse_max_in_flight(os.environ.get(MAX_IN_FLIGHT_ENV, "").strip() or str(DEFAULT_MAX_IN_FLIGHT))


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class HarnessWorker(BaseWorker):
    """An RQ worker running up to `max_in_flight` jobs at once, each in a thread of its own.

    The main thread is RQ's own loop (`work`): it waits for a free slot before each dequeue
    (`dequeue_job_and_maintain_ttl`), registers the job's execution (`prepare_execution`) and
    hands the job to a thread that runs RQ's `perform_job` (success, failure, retries, callbacks
    and results exactly as RQ handles them). A heartbeat thread keeps every running job's
    execution alive (`maintain_heartbeats`, once per job monitoring interval), so a worker that
    dies takes all its jobs' heartbeats with it and RQ's maintenance retries every one of them.
    Job timeouts are RQ's thread-safe `TimerDeathPenalty`. A warm stop (SIGTERM) takes no new
    job and lets the running ones finish; a second signal is RQ's cold stop: the process exits
    and its jobs are retried elsewhere, each match resuming from its game and write-ahead record.
    """

    death_penalty_class = TimerDeathPenalty
    queue_class = HarnessQueue
    heartbeat_grace_s = int(os.environ.get(HEARTBEAT_GRACE_ENV, "60"))

    def __init__(self, *args: Any, max_in_flight: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_in_flight = max_in_flight if max_in_flight is not None else max_in_flight_from_env()
        if self.max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self._in_flight: dict[str, tuple[Job, Execution]] = {}
        self._slots = threading.Condition()
        self._stopping = threading.Event()
        self._cold = False
        self.health: WorkerHealth | None = None
        self.push_exc_handler(restore_retry)  # type: ignore[no-untyped-call]

    @property
    def in_flight(self) -> int:
        """Jobs running in this worker now."""
        return len(self._in_flight)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """RQ's heartbeat TTL with our grace in place of its fixed one (abandoned jobs found sooner).

        RQ's own method stays what computes the TTL (monitoring interval bounded by the job
        timeout, plus `RQ_HEARTBEAT_GRACE_S`); only the grace is swapped.  A test pins RQ's grace,
        so an RQ release that changes it fails the build instead of skewing this.
        """
        ttl = int(super().get_heartbeat_ttl(job, working_time))
        return ttl - RQ_HEARTBEAT_GRACE_S + self.heartbeat_grace_s

    @property
    def dequeue_timeout(self) -> int:
        """Wake up from a blocking dequeue at least once per maintenance interval."""
        return max(1, min(int(self.worker_ttl) - 15, int(self.maintenance_interval)))

    def bootstrap(self, *args: Any, **kwargs: Any) -> None:
        """RQ's start-up (registration, logging, pubsub), then the thread that keeps jobs alive."""
        super().bootstrap(*args, **kwargs)
        ctx = _context()
        self.health = ctx.health = WorkerHealth(ctx.store.client, ctx.store.prefix, self.name)
        self.health.forget()  # a listing left by an earlier process of the same name
        threading.Thread(target=self._heartbeat_loop, name="rq-job-heartbeats", daemon=True).start()

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """RQ's dequeue, once a slot is free (None once a stop was requested: RQ's loop then ends)."""
        with self._slots:
            while len(self._in_flight) >= self.max_in_flight and not self._stop_requested:
                self._slots.wait(timeout=1.0)
        self._wait_until_healthy()
        if self._stop_requested:
            return None
        return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)

    def _wait_until_healthy(self) -> None:
        """While this worker is tripped (`harness.health`): take no job, keep its registration
        alive, and probe the bots it could not reach every `PROBE_INTERVAL_S`."""
        health = self.health
        if health is None:
            return
        ctx = _context()
        while health.tripped and not self._stop_requested:
            self.heartbeat()
            if self._stopping.wait(PROBE_INTERVAL_S):
                return
            try:
                health.probe(self._bot_target, ctx.policy)
            except redis.RedisError as exc:
                log.warning("health probe failed: %s", exc)

    @staticmethod
    def _bot_target(bot_id: str) -> tuple[str, str | None] | None:
        record = _context().bot(bot_id)
        return (record.url, record.secret) if record is not None else None

    def execute_job(self, job: Job, queue: Queue) -> None:
        """Register the job's execution and start it in a thread of its own; returns at once."""
        # A stop signal waits until the job is registered and its thread started (never half-begun).
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            execution = self.prepare_execution(job)
            with self._slots:
                self._in_flight[execution.id] = (job, execution)
            thread = threading.Thread(
                target=self._perform, args=(job, queue, execution), name=f"rq-job-{job.id}", daemon=True
            )
            thread.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)

    def _perform(self, job: Job, queue: Queue, execution: Execution) -> None:
        """A job thread: RQ's `perform_job` (it records success or failure), then free the slot."""
        try:
            self.perform_job(job, queue, execution)
        except Exception:  # Redis gone while RQ recorded the outcome: the job is retried as abandoned
            log.exception("job %s: its outcome could not be recorded", job.id)
        finally:
            with self._slots:
                self._in_flight.pop(execution.id, None)
                self._slots.notify_all()

    def _heartbeat_loop(self) -> None:
        """Keep every running job's execution, and this worker, alive in RQ's registries."""
        while not self._stopping.wait(self.job_monitoring_interval):
            for job, execution in list(self._in_flight.values()):
                if self._stopping.is_set():
                    return
                try:
                    self.maintain_heartbeats(job, execution)
                except redis.RedisError as exc:
                    log.warning("heartbeat of job %s failed: %s", job.id, exc)

    def request_force_stop(self, signum: int, frame: Any) -> None:
        """RQ's cold stop (a second signal): exit without waiting for the running jobs."""
        self._cold = True
        super().request_force_stop(signum, frame)

    def teardown(self) -> None:
        """Let the running jobs finish (warm stop, or the queue drained in burst mode), then RQ's teardown."""
        try:
            with self._slots:
                while self._in_flight and not self._cold:
                    self._slots.wait(timeout=1.0)
        finally:
            self._stopping.set()
            if self.health is not None:
                with contextlib.suppress(redis.RedisError):
                    self.health.forget()
            super().teardown()  # type: ignore[no-untyped-call]


def run_challenge_job(cid: str) -> dict[str, Any]:
    """RQ job: play (or resume) a challenge's bot seats to the end (harness.challenges)."""
    ctx = _context()
    with log_context(match_id=f"{cid}:0", challenge_id=cid):
        outcome = run_challenge(ctx, cid)
        if outcome.status == "busy":
            raise MatchBusy(f"challenge {cid} is held by another runner")
    return {"status": outcome.status}


def challenge_failed(job: Job, connection: Any, exc_type: type, value: BaseException, traceback: Any) -> None:
    """RQ failure callback: a challenge with no retries left is marked `error` (its slots freed)."""
    if job.retries_left:
        return
    challenge_error(_context(), str(job.args[0]), f"{getattr(exc_type, '__name__', 'Error')}: {value}")
