"""A Redis that hangs (SIGSTOP) makes requests fail fast with 503, not hang; they recover after."""

from __future__ import annotations

import os
import signal
import time

from core.redis_factory import REDIS_TIMEOUT_S
from core.redis_server import RedisHandle
from tests.api.conftest import create, make_app


def test_a_hung_redis_gives_503_within_the_socket_timeout_then_recovers(own_redis: RedisHandle) -> None:
    """Rule (operations.md, Limits): with Redis stopped, a read answers 503 storage_unavailable
    within TRICKARENA_REDIS_TIMEOUT_S (3 s) plus a margin; once Redis runs again, 200."""
    client = make_app(own_redis.url, "ta-hang:").test_client()
    game_id = create(client, "trick-n-trouble", 3)["game_id"]
    assert own_redis._process is not None
    os.kill(own_redis._process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = client.get(f"/games/{game_id}")
        waited = time.monotonic() - started
    finally:
        os.kill(own_redis._process.pid, signal.SIGCONT)
    assert answer.status_code == 503, answer.get_json()
    assert answer.get_json()["code"] == "storage_unavailable" and answer.headers["Retry-After"] == "1"
    assert waited < REDIS_TIMEOUT_S + 1.5, waited
    assert client.get(f"/games/{game_id}").status_code == 200
