"""The bundled bots keep to the time policy on the documented minimum machine (2 cores) while it is
busy: a tournament of every bundled bot in each game, as `make run` creates it, played by two real
workers against the bots served as `make run` serves them (one process each), with two processes
spinning on the CPU beside them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
import requests

from bots.bundled import BUNDLED, GAME_NAMES
from bots.sdk import SECRET_ENV, new_secret
from games.registry import GAMES
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_standings, get_tournament

from .conftest import ROOT, WorkerProcs

BUSY_PROCESSES = 2  # one per core of the minimum machine: every core has a competitor


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the bot at {url} exited"
        try:
            if requests.get(url, timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the bot at {url} did not come up")


def _spin() -> subprocess.Popen[bytes]:
    """A process that keeps one core busy until killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture()
def bundled_bots(ctx: HarnessContext) -> Iterator[dict[str, str]]:
    """Every bundled bot served in its own process (`python -m bots.serve`, as `make run` serves it
    through `harness.platform bot`) and registered; bot id -> bundled name."""
    procs: list[subprocess.Popen[bytes]] = []
    ids: dict[str, str] = {}
    try:
        for name in BUNDLED:
            secret, port = new_secret(), _free_port()
            env = {**os.environ, SECRET_ENV: secret, "PYTHONPATH": str(ROOT)}
            args = [sys.executable, "-m", "bots.serve", name, "--port", str(port)]
            procs.append(subprocess.Popen(args, cwd=ROOT, env=env))
            url = f"http://127.0.0.1:{port}"
            _wait_up(url, procs[-1])
            created = ctx.bots.create(f"{name}-{uuid.uuid4().hex[:6]}", url, list(GAME_NAMES), secret=secret)
            ids[created.bot.id] = name
        yield ids
    finally:
        _stop(procs)


@pytest.mark.timeout(1200)
def test_the_bundled_bots_never_fault_under_cpu_contention(
    ctx: HarnessContext, workers: WorkerProcs, bundled_bots: dict[str, str]
) -> None:
    """Rule: under `make run`'s tournaments (every bundled bot, the showcase table of each game, the
    configured deadline and bank) on two busy cores, no bundled bot -- the search bot included --
    faults: their thinking is bounded well inside the deadline, measured from each request's
    arrival (docs/bots.md, Time)."""
    busy = [_spin() for _ in range(BUSY_PROCESSES)]
    try:
        workers.start()
        workers.start()
        entrants = list(bundled_bots)
        # As `make run` creates them (harness.platform: the showcase table, the configured time policy).
        created = [
            create_tournament(ctx, game, GAMES[game].showcase_seats, entrants, deals=1, seed=11)
            for game in sorted(GAMES)
        ]
        tids = [info["tournament_id"] for info in created]
        deadline = time.monotonic() + 1000
        while not all(get_tournament(ctx, tid)["status"] == "finished" for tid in tids):
            assert time.monotonic() < deadline, "the tournaments did not finish"
            time.sleep(2)
    finally:
        _stop(busy)
    faults = {}
    for tid in tids:
        doc = get_standings(ctx, tid)
        for entrant, entry in doc["faults"].items():
            if entry["total"]:
                where = f"{get_tournament(ctx, tid)['game']}/{bundled_bots[entrant]}"
                faults[where] = entry.get("by_reason") or entry["by_code"]
    assert faults == {}, f"bundled bots faulted: {faults} (load {os.getloadavg()})"
