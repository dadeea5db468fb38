"""Harness fixtures: a context on the test Redis, real RQ worker processes, real HTTP bots."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest
import redis

from harness.queueing import job_id
from harness.runner import HarnessContext

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def queue_name() -> str:
    """A queue of our own, so workers of other tests (or people) never take our jobs."""
    return f"ta-test-{uuid.uuid4().hex[:10]}"


def delete_rq_keys(redis_url: str, context: HarnessContext) -> None:
    """Delete RQ's keys of `context`'s queue and jobs on the test Redis (nothing else)."""
    client = redis.Redis.from_url(redis_url)
    job_prefix = job_id(context)
    doomed = [
        k
        for k in client.scan_iter(match="rq:*", count=1000)
        if context.queue_name.encode() in k or job_prefix.encode() in k
    ]
    for start in range(0, len(doomed), 500):
        client.delete(*doomed[start : start + 500])
    client.close()


@pytest.fixture()
def ctx(redis_url: str, key_prefix: str, queue_name: str) -> Iterator[HarnessContext]:
    """A harness context on the test database, prefix and queue; RQ keys of the queue removed after."""
    context = HarnessContext.build(redis_url, key_prefix, queue_name)
    yield context
    delete_rq_keys(redis_url, context)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(c) for c in fh.read().split()]
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


class WorkerProcs:
    """`trickarena worker` processes started by one test (and only those are ever signalled)."""

    def __init__(self, redis_url: str, prefix: str, queue: str) -> None:
        self.redis_url, self.prefix, self.queue = redis_url, prefix, queue
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(
        self,
        scheduler: bool = True,
        name: str | None = None,
        extra: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start one worker in its own session (process group = its pid); `extra` options appended,
        `env` added to its environment."""
        args = [
            sys.executable,
            "-m",
            "harness.cli",
            "worker",
            "--redis-url",
            self.redis_url,
            "--prefix",
            self.prefix,
            "--queue",
            self.queue,
            "--heartbeat-grace",
            "2",
            "--maintenance-interval",
            "2",
            "--monitor-interval",
            "1",
            "--log-level",
            "WARNING",
        ]
        if not scheduler:
            args.append("--no-scheduler")
        if name:
            args += ["--name", name]
        args += extra
        environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        proc = subprocess.Popen(args, cwd=ROOT, env=environ, start_new_session=True)
        self.procs.append(proc)
        return proc

    def current_matches(self, name: str) -> list[int]:
        """Indices of the matches the named worker is running now (from RQ's records)."""
        from rq.worker import Worker

        worker = Worker.find_by_key(f"rq:worker:{name}", connection=redis.Redis.from_url(self.redis_url))
        if worker is None:
            return []
        return [int(e.job_id.rsplit("_", 1)[1]) for e in worker.get_current_executions(refresh=True)]

    def children(self, proc: subprocess.Popen[bytes]) -> list[int]:
        """Child processes of a worker (the RQ scheduler, if it runs one; jobs are threads)."""
        return _children(proc.pid)

    def sigkill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL a worker with everything it forked (the scheduler): a machine dying."""
        family = [proc.pid, *_children(proc.pid)]
        for pid in list(family):
            family += _children(pid)
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        """SIGTERM then SIGKILL every worker we started (and its children)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.sigkill(proc)


@pytest.fixture()
def workers(redis_url: str, key_prefix: str, queue_name: str) -> Iterator[WorkerProcs]:
    """Start real RQ worker processes on demand; all stopped at the end of the test."""
    procs = WorkerProcs(redis_url, key_prefix, queue_name)
    yield procs
    procs.stop_all()


def wait_for(predicate: Callable[[], bool], timeout: float, what: str, poll: float = 0.2) -> None:
    """Poll until `predicate()` holds; fail the test (never skip) after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
