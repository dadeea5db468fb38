"""One `trickarena worker` process runs many RQ jobs at once: each still an RQ job (started,
finished, failed, timed out, retried), at most `--max-in-flight` of them, stopped warm or cold."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from redis import Redis
from rq import Queue, Retry
from rq.job import Job, JobStatus

from harness.runner import HarnessContext

from .conftest import ROOT, WorkerProcs, wait_for


def nap(seconds: float) -> float:
    """A job that waits like a match waiting on bots: in short sleeps (so a job timeout can land)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.01)
    return seconds


def _queue(ctx: HarnessContext) -> Queue:
    return Queue(ctx.queue_name, connection=Redis.from_url(ctx.redis_url))


def _enqueue(queue: Queue, count: int, seconds: float, **kwargs: object) -> list[Job]:
    return [queue.enqueue(nap, seconds, **kwargs) for _ in range(count)]


@pytest.mark.timeout(60)
def test_one_worker_runs_up_to_max_in_flight_jobs_at_once(ctx: HarnessContext, workers: WorkerProcs) -> None:
    """Rule: with --max-in-flight 4, eight 2-second jobs run four at a time (RQ's started registry
    never holds more than four, and holds four at some point), so they take two rounds, not eight."""
    queue = _queue(ctx)
    jobs = _enqueue(queue, 8, 2.0)
    started = time.monotonic()
    workers.start(scheduler=False, extra=["--max-in-flight", "4"])
    peak = 0
    while not all(job.get_status(refresh=True) == JobStatus.FINISHED for job in jobs):
        peak = max(peak, queue.started_job_registry.count)
        assert time.monotonic() - started < 30, "the jobs did not finish"
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    assert peak == 4
    assert 4.0 <= elapsed < 10.0  # two rounds of 2 s (plus the worker's start), not 16 s
    assert [job.return_value() for job in jobs] == [2.0] * 8


@pytest.mark.timeout(90)
def test_a_job_timeout_fails_only_its_own_job(ctx: HarnessContext, workers: WorkerProcs) -> None:
    """Rule: RQ's job timeout still holds with several jobs in flight: the job over its timeout
    fails (JobTimeoutException), the others finish."""
    queue = _queue(ctx)
    slow = queue.enqueue(nap, 30, job_timeout=2)
    quick = _enqueue(queue, 3, 1.0)
    workers.start(scheduler=False)
    wait_for(lambda: slow.get_status(refresh=True) == JobStatus.FAILED, 30, "the slow job to time out")
    assert "JobTimeoutException" in (slow.latest_result().exc_string or "")  # type: ignore[union-attr]
    finished = [JobStatus.FINISHED] * 3
    wait_for(lambda: [j.get_status(refresh=True) for j in quick] == finished, 20, "the others to finish")


@pytest.mark.timeout(90)
def test_a_warm_stop_finishes_the_jobs_in_flight_and_takes_no_new_one(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: SIGTERM with jobs in flight: the worker takes no new job, lets the running ones
    finish (RQ marks them finished), and exits."""
    queue = _queue(ctx)
    jobs = _enqueue(queue, 3, 2.0)
    proc = workers.start(scheduler=False, extra=["--max-in-flight", "2"])
    wait_for(lambda: queue.started_job_registry.count == 2, 20, "two jobs in flight", poll=0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0
    statuses = sorted(JobStatus(job.get_status(refresh=True)).value for job in jobs)
    assert statuses == ["finished", "finished", "queued"]


@pytest.mark.timeout(90)
def test_a_cold_stop_leaves_the_jobs_in_flight_to_be_retried(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: a second SIGTERM (RQ's cold stop) exits at once; the jobs it had in flight are found
    abandoned (no heartbeat) by another worker and retried."""
    queue = _queue(ctx)
    jobs = _enqueue(queue, 2, 4.0, retry=Retry(max=1))
    proc = workers.start(scheduler=False)
    wait_for(lambda: queue.started_job_registry.count == 2, 20, "both jobs in flight", poll=0.05)
    proc.send_signal(signal.SIGTERM)
    time.sleep(1.2)  # RQ ignores a second signal within a second of the first
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)
    assert all(job.get_status(refresh=True) == JobStatus.STARTED for job in jobs)  # abandoned
    workers.start(scheduler=False)
    wait_for(
        lambda: all(job.get_status(refresh=True) == JobStatus.FINISHED for job in jobs),
        40,
        "the abandoned jobs to be retried and finish",
    )


@pytest.mark.parametrize("value", ["0", "-3", "lots", "5000"])
def test_a_bad_max_in_flight_is_refused(ctx: HarnessContext, value: str) -> None:
    """Rule: $TRICKARENA_MAX_IN_FLIGHT must be a whole number from 1 to 1024: otherwise the worker
    stops with a JSON error (exit 2); the option is checked by argparse (exit 2) the same way."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRICKARENA_MAX_IN_FLIGHT": value}
    args = [sys.executable, "-m", "harness.cli", "worker", "--burst", "--no-scheduler"]
    args += ["--redis-url", ctx.redis_url, "--queue", ctx.queue_name]
    run: subprocess.CompletedProcess[str] | subprocess.CompletedProcess[bytes]
    run = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert json.loads(run.stderr.strip().splitlines()[-1])["code"] == "invalid_max_in_flight"
    del env["TRICKARENA_MAX_IN_FLIGHT"]
    args += ["--max-in-flight", value]
    run = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert run.returncode == 2
