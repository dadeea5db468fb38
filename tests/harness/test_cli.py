"""The `trickarena` console script as a user runs it: real processes, real Redis, real HTTP bots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

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
    final = json.loads(next(line for line in run.stdout.splitlines() if line.startswith('{"tournament_id"')))
    assert final["status"] == "finished"
    tid = final["tournament_id"]
    assert "Standings" in run.stdout
    shown = _cli(ctx, "tournament", "show", tid, "--json")
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    assert doc["tournament"]["status"] == "finished" and doc["standings"]["final"] is True
    assert {r["entrant"] for r in doc["standings"]["rows"]} == {b for b, _ in bots}
    table = _cli(ctx, "tournament", "show", tid)
    assert table.returncode == 0 and "Standings (final)" in table.stdout
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
