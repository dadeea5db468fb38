"""A Sentinel failover mid-tournament, for real: a master, its replica and a Sentinel started by the
test, the API under `make run`'s gunicorn and an RQ worker both configured with the
`redis+sentinel://` URL, a tournament of real HTTP bots, and a loop of requests running through it."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from api.app import create_app
from core.redis_procs import SERVICE, SentinelGroup, sentinel_group
from harness.platform import api_server_command, free_port
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament
from tests.harness.bot_servers import FaultyBotServer, submit_faulty
from tests.harness.conftest import WorkerProcs, wait_for
from tests.ops.make_run_api import serve_api


def planned_failover(group: SentinelGroup) -> int:
    """SENTINEL FAILOVER as docs/operations.md says to run a planned one: writes paused on the
    master and the replica caught up first (Redis replicates asynchronously: a write the old master
    took after the replica's last read would be lost), the pause held until the old master is a
    replica of the new one, then lifted (its paused writes answer READONLY and are retried
    on the new master). A pause that ends before that lets the old master take writes the failover
    throws away: CI saw a game go from version 10 back to 9 with a 1.5 s pause. The new master's port."""
    old = group.master_port()
    master = next(s for s in group.servers if s.port == old).client()
    replica = next(s for s in group.servers if s.name != "sentinel" and s.port != old).client()
    master.execute_command("CLIENT", "PAUSE", "30000", "WRITE")  # type: ignore[no-untyped-call]
    try:
        offset = master.info("replication")["master_repl_offset"]
        wait_for(
            lambda: replica.info("replication")["slave_repl_offset"] >= offset, 5, "the replica to catch up"
        )
        assert group.sentinel.client().execute_command("SENTINEL", "FAILOVER", SERVICE)  # type: ignore[no-untyped-call]
        wait_for(lambda: group.master_port() != old, 30, "the Sentinel to name the new master", poll=0.05)
        # The Sentinel would turn the old master into a replica too, but only after a few of its
        # INFO periods (seconds); the operator does it at once.
        master.execute_command("REPLICAOF", "127.0.0.1", str(group.master_port()))  # type: ignore[no-untyped-call]
        assert master.info("replication")["role"] == "slave"
    finally:
        master.execute_command("CLIENT", "UNPAUSE")  # type: ignore[no-untyped-call]
    return group.master_port()


class RequestLoop:
    """createGame, then its moves (getGame, getLegalMoves, postMove), and getHealth, in a loop; every
    answer counted by (operation, status) with whether a 503 carried Retry-After."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.answers: Counter[tuple[str, int]] = Counter()
        self.bad: list[tuple[str, int, str]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.game: dict[str, Any] | None = None

    def call(self, name: str, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        answer = requests.request(method, self.base + path, timeout=30, **kwargs)
        self.answers[(name, answer.status_code)] += 1
        fine = answer.status_code in (200, 201) or (
            answer.status_code == 503 and answer.headers.get("Retry-After")
        )
        if not fine:
            self.bad.append((name, answer.status_code, answer.text[:300]))
        return answer if answer.status_code in (200, 201) else None

    def step(self) -> None:
        self.call("getHealth", "GET", "/health")
        if self.game is None:
            created = self.call("createGame", "POST", "/games", json={"game": "trick-n-trouble", "seats": 3})
            self.game = created.json() if created is not None else None
            return
        game_id = self.game["game_id"]
        tokens = {t["seat"]: t["token"] for t in self.game["tokens"]}
        seen = self.call("getGame", "GET", f"/games/{game_id}")
        if seen is None:
            return
        state = seen.json()
        if state["status"] == "finished":
            self.game = None
            return
        seat = state["view"]["to_move"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        listed = self.call("getLegalMoves", "GET", f"/games/{game_id}/legal-moves", headers=auth)
        if listed is None:
            return
        move = listed.json()["legal_moves"][0]
        headers = {**auth, "If-Match": f'"{state["version"]}"'}
        self.call("postMove", "POST", f"/games/{game_id}/moves", json=move, headers=headers)

    def run(self) -> None:
        while not self.stop.is_set():
            self.step()


@pytest.mark.timeout(420)
def test_a_sentinel_failover_mid_tournament_costs_no_500_and_no_result(tmp_path: Path) -> None:
    """Rule (issue 25, operations.md Redis): with REDIS_URL=redis+sentinel://..., a failover
    mid-tournament: every request of a loop running through it answers 2xx or 503 with
    Retry-After (never 500), the API and the worker reconnect to the new master by themselves, the
    tournament completes and every match result is recorded exactly once."""
    prefix, queue = f"ta-fo-{uuid.uuid4().hex[:8]}:", f"ta-fo-{uuid.uuid4().hex[:8]}"
    with sentinel_group() as group:
        url = group.url
        ctx = HarnessContext.build(url, prefix, queue)
        workers = WorkerProcs(url, prefix, queue)
        servers = [FaultyBotServer("slow", delay_s=0.02).start() for _ in range(3)]
        port = free_port()
        command = api_server_command("127.0.0.1", port, tmp_path)
        # The loop runs unthrottled: at > 1,200 requests a minute from one address the rate limit
        # (tested in tests/api/test_rate_limits.py) would answer 429 and hide what is measured here.
        env = {"TRICKARENA_QUEUE": queue, "TRICKARENA_RATE_LIMITS": "off"}
        try:
            with serve_api(command, port, url, prefix, tmp_path, **env) as base:
                ids = [submit_faulty(ctx.bots, s, f"steady{i}") for i, s in enumerate(servers)]
                procs = [workers.start()]
                info = create_tournament(
                    ctx,
                    "tricky-teams",
                    3,
                    ids,
                    deals=4,
                    deadline_ms=1000,
                    time_bank_ms=1000,
                    options={"raids": 1},
                )
                tid, total = info["tournament_id"], info["progress"]["total"]
                loop = RequestLoop(base)
                loop.thread.start()

                def mid_tournament() -> bool:
                    done: int = get_tournament(ctx, tid)["progress"]["completed"]
                    return bool(1 <= done < total)

                wait_for(mid_tournament, 120, "the tournament to be under way", poll=0.05)
                before = sum(loop.answers.values())
                new_master = planned_failover(group)
                wait_for(
                    lambda: get_tournament(ctx, tid)["status"] == "finished", 240, "the tournament to finish"
                )
                time.sleep(1.0)  # the loop goes on a little on the new master
                loop.stop.set()
                loop.thread.join(timeout=60)
                during = sum(loop.answers.values()) - before
                assert all(p.poll() is None for p in procs), "a worker died in the failover"
                results = ctx.store.results(tid)
                progress = get_tournament(ctx, tid)["progress"]
                served = requests.get(f"{base}/health", timeout=10)
        finally:
            workers.stop_all()
            for server in servers:
                server.stop()
        print(f"failover: {during} answers while it ran; all: {dict(loop.answers)}; matches: {total}")
        assert not loop.bad, (
            f"answers other than 2xx or 503 with Retry-After: {loop.bad[:5]} ({loop.answers})"
        )
        assert during > 20 and loop.answers[("postMove", 200)] > 0, loop.answers
        assert sorted(int(r["index"]) for r in results) == list(range(total)), results
        assert not any(r.get("error") for r in results), [r for r in results if r.get("error")]
        assert progress["completed"] == total, progress  # counted once each
        assert served.status_code == 200 and served.json()["redis"]["ok"], served.text
        assert new_master != group.servers[0].port


@pytest.mark.timeout(120)
def test_a_redis_that_refuses_writes_is_unhealthy_and_its_refusals_are_503(tmp_path: Path) -> None:
    """Rule (issue 25): an API whose Redis only reads (a replica; a demoted master) reports
    getHealth 503 with `redis.ok` false, and a write (createGame) answers 503 storage_unavailable
    with Retry-After, not 500; reads still answer."""
    with sentinel_group() as group:
        replica = next(s for s in group.servers if s.name == "replica")
        prefix = f"ta-ro-{uuid.uuid4().hex[:8]}:"
        app = create_app(
            {"REDIS_URL": f"redis://127.0.0.1:{replica.port}/0", "TRICKARENA_KEY_PREFIX": prefix}
        )
        client = app.test_client()
        health = client.get("/health")
        assert health.status_code == 503 and health.get_json()["redis"]["ok"] is False, health.get_json()
        assert health.headers["Retry-After"] == "1"
        created = client.post("/games", json={"game": "trick-n-trouble", "seats": 3})
        assert created.status_code == 503, created.get_json()
        assert created.get_json()["code"] == "storage_unavailable" and created.headers["Retry-After"] == "1"
        assert client.get("/bots").status_code == 200
        with pytest.raises(redis.ReadOnlyError):
            replica.client().set(f"{prefix}probe", "1")
