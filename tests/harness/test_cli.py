"""The `trickarena` console script as a user runs it: real processes, real Redis, real HTTP bots."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from rq import Worker
from rq.job import Job

from harness.jobs import RQ_HEARTBEAT_GRACE_S, HarnessWorker
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament

from .bot_servers import random_bots
from .conftest import ROOT, WorkerProcs, wait_for


def _cli(ctx: HarnessContext, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "REDIS_URL": ctx.redis_url,
        "TRICKARENA_KEY_PREFIX": ctx.store.prefix,
        "TRICKARENA_QUEUE": ctx.queue_name,
        "TRICKARENA_HEARTBEAT_GRACE": "2",
    }
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.timeout(180)
def test_tournament_run_follows_to_the_end_and_show_prints_standings(ctx: HarnessContext) -> None:
    """Rule: `trickarena tournament run --workers 1` creates, runs and follows a tournament to its end."""
    with random_bots(ctx.bots, 2) as bots:
        entrants = [arg for bot_id, _ in bots for arg in ("--entrant", bot_id)]
        run = _cli(
            ctx,
            "tournament",
            "run",
            "--game",
            "trick-n-trouble",
            "--seats",
            "3",
            "--deals",
            "1",
            "--seed",
            "3",
            "--workers",
            "1",
            *entrants,
            "--timeout",
            "150",
            timeout=170,
        )
    assert run.returncode == 0, run.stderr[-2000:]
    # It ends with a summary in words (harness.terminal.summary), its first line naming the id.
    flat = " ".join(run.stdout.split())  # wrapped at 80 columns
    found = re.search(r"\(([0-9a-f]{16,})\): finished, (\d+) of \2 matches played\.", flat)
    assert found, run.stdout[-2000:]
    tid = found.group(1)
    assert "Winner: " in flat and "Faults: none." in flat
    assert "trick-n-trouble — standings (final)" in run.stdout
    shown = _cli(ctx, "tournament", "show", tid, "--json")
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    assert doc["tournament"]["status"] == "finished" and doc["standings"]["final"] is True
    assert {r["entrant"] for r in doc["standings"]["rows"]} == {b for b, _ in bots}
    table = _cli(ctx, "tournament", "show", tid)
    assert table.returncode == 0 and "trick-n-trouble — standings (final)" in table.stdout
    assert "Cross-play" in table.stdout  # the cooperative matrix under the table


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["tournament", "show", "nope"], "tournament_not_found"),
        (
            ["tournament", "run", "--game", "nope", "--seats", "3", "--entrant", "0123456789abcdef"],
            "unknown_game",
        ),
        (
            ["bot", "add", "--name", "x", "--url", "ftp://example.org", "--game", "tricky-teams"],
            "invalid_url",
        ),
    ],
)
def test_cli_errors_are_json_with_a_code(ctx: HarnessContext, args: list[str], code: str) -> None:
    """Rule: a refused command exits 2 and prints the same JSON error the API would."""
    result = _cli(ctx, *args)
    assert result.returncode == 2
    assert json.loads(result.stderr.strip().splitlines()[-1])["code"] == code


@pytest.mark.timeout(120)
def test_a_tournament_starts_at_its_start_time(ctx: HarnessContext, workers: WorkerProcs) -> None:
    """Rule: `start_at` queues the start with RQ's scheduler; nothing runs before it, by any fraction."""
    with random_bots(ctx.bots, 2) as bots:
        start = datetime.now(UTC) + timedelta(seconds=4)
        info = create_tournament(
            ctx, "trick-n-trouble", 3, [b for b, _ in bots], deals=1, seed=1, start_at=start
        )
        tid = info["tournament_id"]
        workers.start()
        assert get_tournament(ctx, tid)["status"] == "scheduled"
        wait_for(
            lambda: get_tournament(ctx, tid)["status"] == "finished",
            100,
            "the scheduled tournament to finish",
        )
    record = ctx.store.tournament(tid)
    assert record is not None and record["started_at"] >= start.timestamp()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("options", "policy"),
    [
        ([], os.SCHED_BATCH),
        (["--cpu-policy", "batch"], os.SCHED_BATCH),
        (["--cpu-policy", "normal"], os.SCHED_OTHER),
    ],
)
def test_a_worker_and_its_job_threads_run_under_the_cpu_policy(
    ctx: HarnessContext, workers: WorkerProcs, options: list[str], policy: int
) -> None:
    """Rule: `trickarena worker` runs as a batch job by default, and every job thread it starts too."""
    from redis import Redis
    from rq import Queue

    proc = workers.start(scheduler=False, extra=options)
    wait_for(lambda: os.sched_getscheduler(proc.pid) == policy, 20, "the worker's CPU policy")
    # The job runs in a thread of the worker; it reports the policy it finds itself under.
    job = Queue(ctx.queue_name, connection=Redis.from_url(ctx.redis_url)).enqueue(os.sched_getscheduler, 0)
    try:
        wait_for(lambda: job.get_status(refresh=True) == "finished", 30, "the job to run")
        assert job.return_value() == policy
    finally:
        job.delete()


def test_a_bad_cpu_policy_from_the_environment_is_refused(
    ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: an unknown $TRICKARENA_WORKER_CPU_POLICY stops the worker with a JSON error, exit 2."""
    monkeypatch.setenv("TRICKARENA_WORKER_CPU_POLICY", "realtime")
    result = _cli(ctx, "worker", "--burst", "--no-scheduler", timeout=60)
    assert result.returncode == 2
    assert json.loads(result.stderr.strip().splitlines()[-1])["code"] == "invalid_cpu_policy"


@pytest.mark.parametrize("policy", ["realtime", "", "BATCH"])
def test_set_cpu_policy_refuses_unknown_policies(policy: str) -> None:
    """Rule: only "batch" and "normal" are CPU policies; anything else is a ValueError, not a no-op."""
    from harness.jobs import set_cpu_policy

    with pytest.raises(ValueError, match="unknown CPU policy"):
        set_cpu_policy(policy)


def test_a_worker_logs_rq_s_own_lines_as_json_when_asked(
    ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: with TRICKARENA_LOG_FORMAT=json every line a worker writes is JSON, RQ's own included."""
    monkeypatch.setenv("TRICKARENA_LOG_FORMAT", "json")
    result = _cli(ctx, "worker", "--burst", "--no-scheduler", "--log-level", "INFO", timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [json.loads(line) for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert all(isinstance(line, dict) for line in lines)
    rq = [line["msg"] for line in lines if line["logger"] == "rq.worker"]
    assert any("started with PID" in msg for msg in rq) and any("quitting" in msg for msg in rq), rq


@pytest.mark.parametrize(
    ("timeout", "working", "grace", "expected"),
    [
        (None, 0.0, 2, 2 + 30),  # no job timeout: monitoring interval (30 s here) + our grace
        (3600, 0.0, 2, 2 + 30),
        (3600, 3590.0, 2, 2 + 10),  # near its timeout: the remaining time bounds the interval
        (3600, 0.0, 60, 60 + 30),  # our grace at RQ's own value: RQ's TTL exactly
    ],
)
def test_worker_heartbeat_ttl_is_rqs_with_our_grace(
    ctx: HarnessContext, timeout: int | None, working: float, grace: int, expected: int
) -> None:
    """Rule (harness.md, workers): a job's heartbeat TTL is RQ's own, with the configured grace in
    place of RQ's fixed 60 s; pins RQ's grace, so an RQ release that changes it fails here."""
    job = Job.create(func=print, connection=ctx.store.client, timeout=timeout)
    plain = Worker(["q"], connection=ctx.store.client, job_monitoring_interval=30)
    assert plain.get_heartbeat_ttl(job, working) - (expected - grace) == RQ_HEARTBEAT_GRACE_S
    ours = HarnessWorker(["q"], connection=ctx.store.client, job_monitoring_interval=30)
    ours.heartbeat_grace_s = grace
    assert ours.get_heartbeat_ttl(job, working) == expected
