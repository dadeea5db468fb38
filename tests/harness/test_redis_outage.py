"""A Redis outage of a few seconds mid-tournament: workers ride it out, every result lands once."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.redis_server import reachable
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament

from .bot_servers import FaultyBotServer, submit_faulty
from .conftest import WorkerProcs, wait_for

OUTAGE_S = 5.0


class OwnRedis:
    """A redis-server of this test's own, with AOF, that can be stopped and started on its port."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="trickarena-outage-"))
        with __import__("socket").socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start (again) on the same port and data directory; wait until it answers."""
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed on PATH"
        args = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.dir)]
        args += ["--save", "", "--appendonly", "yes", "--appendfsync", "always"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: reachable(self.url), 15, "the test's redis-server to answer", poll=0.05)

    def stop(self) -> None:
        """SIGTERM (Redis writes its AOF and exits) and wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)

    def remove(self) -> None:
        """Stop and delete its data."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture()
def own_redis() -> Iterator[OwnRedis]:
    """The outage test's own Redis (never the shared one: it gets stopped)."""
    server = OwnRedis()
    server.start()
    yield server
    server.remove()


@pytest.mark.timeout(240)
def test_workers_ride_out_a_redis_outage_and_every_result_lands_once(own_redis: OwnRedis) -> None:
    """Rule (issue 17, operations.md): Redis (AOF on) stopped for 5 s mid-tournament; the workers
    keep running, reconnect with back-off, and the tournament finishes with every result once."""
    prefix, queue = f"ta-outage-{uuid.uuid4().hex[:8]}:", f"ta-outage-{uuid.uuid4().hex[:8]}"
    ctx = HarnessContext.build(own_redis.url, prefix, queue)
    workers = WorkerProcs(own_redis.url, prefix, queue)
    servers = [FaultyBotServer("slow", delay_s=0.02).start() for _ in range(3)]
    try:
        ids = [submit_faulty(ctx.bots, s, f"steady{i}") for i, s in enumerate(servers)]
        procs = [workers.start(), workers.start(scheduler=False)]
        info = create_tournament(
            ctx, "tricky-teams", 3, ids, deals=2, deadline_ms=1000, time_bank_ms=1000, options={"raids": 1}
        )
        tid, total = info["tournament_id"], info["progress"]["total"]

        def mid_tournament() -> bool:
            done = get_tournament(ctx, tid)["progress"]["completed"]
            return bool(1 <= done < total)

        wait_for(mid_tournament, 120, "the tournament to be under way", poll=0.05)
        own_redis.stop()
        time.sleep(OUTAGE_S)
        assert all(p.poll() is None for p in procs), "a worker died during the outage"
        own_redis.start()
        wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 180, "the tournament to finish")
        assert all(p.poll() is None for p in procs), "a worker died after the outage"
        results = ctx.store.results(tid)
        assert sorted(int(r["index"]) for r in results) == list(range(total))
        assert not any(r.get("error") for r in results)
    finally:
        workers.stop_all()
        for server in servers:
            server.stop()
