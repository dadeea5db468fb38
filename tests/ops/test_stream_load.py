"""1,000 open event streams against the API as `make run` serves it and as compose's command serves it.

Rules pinned (issue 26, rows 1 and 2; docs/operations.md, Limits): with 1,000 streams open on four
games (bench/streams.py, loopback only, bounded), getHealth and a move answer within 1 s, the API
holds only a few Redis connections (one pub/sub reader per process, not one per stream), and every
stream receives each move of its game. Each server gets a Redis of the test's own, so its client
count is the API's alone.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis

from bench.slowloris import health_and_move
from bench.streams import Streams, create_games, move
from core.redis_server import RedisHandle, start_redis_server
from tests.ops.make_run_api import compose_api, make_run_api, within_1_s

pytestmark = pytest.mark.timeout(300)

STREAMS = 1000
GAMES = 4
# Redis connections the API may hold with every stream open: per process one pub/sub reader and a
# few pooled connections, as many as requests were in flight at once while the streams opened (before:
# one per waiting stream, up to the pool's 100 per process, then 503 MaxConnectionsError).
MAX_API_CONNECTIONS = 64


@pytest.fixture()
def own_redis() -> Iterator[RedisHandle]:
    """A redis-server of this test's own: its client list is the API's connections and ours."""
    handle = start_redis_server()
    yield handle
    handle.stop()


def api_connections(url: str) -> int:
    """Clients connected to the test's Redis, other than the one asking."""
    client = redis.Redis.from_url(url)
    try:
        me = client.client_id()
        return sum(1 for entry in client.client_list() if int(entry["id"]) != me)
    finally:
        client.close()


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll `check` until it holds; fail naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def thousand_streams_leave_the_api_answering(
    server: Callable[..., contextlib.AbstractContextManager[str]], own_redis: RedisHandle, tmp_path: Path
) -> dict[str, Any]:
    """Serve the API with `server`, open the streams, check health, moves, connections and delivery."""
    with server(own_redis.url, "ta-streams:", tmp_path) as base:
        port = int(base.rsplit(":", 1)[1])
        health_and_move(base)  # warm: imports, pools
        games = create_games(base, GAMES)
        paths = [urlsplit(f"{base}/games/{g['game_id']}/events/stream").path for g in games]
        before = api_connections(own_redis.url)
        with Streams(port, paths, STREAMS, max_seconds=150) as streams:
            wait_for(lambda: streams.status_counts().get(200, 0) == STREAMS, 90, f"{streams.status_counts()}")
            time.sleep(1.0)
            connections = api_connections(own_redis.url)

            def measure() -> dict[str, float]:
                times = health_and_move(base)
                times["streamed_move_s"], _ = move(base, games[0])
                return times

            times = within_1_s(measure)
            delivered = {}
            for game, path in zip(games, paths, strict=True):
                _, event_id = move(base, game)
                delivered[path] = streams.wait_received(event_id, path, 10.0)
            still_open = streams.open_streams()
        figures = {"times": times, "connections": connections, "before": before, "delivered": delivered}
        assert all(value < 1.0 for value in times.values()), figures
        assert connections <= MAX_API_CONNECTIONS, figures
        assert all(got == total == STREAMS // GAMES for got, total in delivered.values()), figures
        assert still_open == STREAMS, figures
        return figures


def test_1000_streams_under_make_runs_server(own_redis: RedisHandle, tmp_path: Path) -> None:
    """Rule (issue 26 row 1): make run's gunicorn (gevent) with 1,000 open streams answers getHealth
    and a move within 1 s with a few Redis connections (250 streams used to take 250 pooled
    connections: 503 MaxConnectionsError), and every stream gets each move of its game."""
    print(thousand_streams_leave_the_api_answering(make_run_api, own_redis, tmp_path))


def test_1000_streams_under_composes_server(own_redis: RedisHandle, tmp_path: Path) -> None:
    """Rule (issue 26 row 2): the same with docker-compose.yml's api command run locally (16 streams
    used to hold all 2 x 8 threads of its gthread worker: getHealth got no answer within 30 s)."""
    print(thousand_streams_leave_the_api_answering(compose_api, own_redis, tmp_path))
