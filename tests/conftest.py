"""Shared fixtures: a real Redis (own DB number and key prefix, never flushed wholesale)."""

from __future__ import annotations

import io
import logging
import os
import signal
import uuid
from collections.abc import Iterator

import pytest
import redis

from core import telemetry
from core.redis_server import RedisHandle, ensure_redis, start_redis_server

# Our own database number on a shared server; keys are further namespaced per session.
TEST_DB = int(os.environ.get("TRICKARENA_TEST_DB", "13"))
# Rate limits off for every app the suite builds (tests fire requests far faster than a client may);
# tests/api/test_rate_limits.py turns them on in its own apps' configuration.
os.environ.setdefault("TRICKARENA_RATE_LIMITS", "off")


@pytest.fixture(scope="session")
def redis_handle() -> Iterator[RedisHandle]:
    """A reachable real Redis: the local one if up, else an embedded server started for the run."""
    handle = ensure_redis()
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def redis_url(redis_handle: RedisHandle) -> str:
    """URL of the test database (DB `TEST_DB` on the chosen server)."""
    base = redis_handle.url.rsplit("/", 1)[0]
    return f"{base}/{TEST_DB}"


@pytest.fixture()
def own_redis() -> Iterator[RedisHandle]:
    """A redis-server of the test's own on a free port (one to stop, SIGSTOP or fill: never the
    shared one); stopped after, resumed first if the test left it stopped."""
    handle = start_redis_server()
    yield handle
    assert handle._process is not None
    os.kill(handle._process.pid, signal.SIGCONT)
    handle.stop()


@pytest.fixture()
def key_prefix(redis_url: str) -> Iterator[str]:
    """A fresh key prefix for one test; its keys are deleted afterwards (only ours)."""
    prefix = f"ta-test:{uuid.uuid4().hex[:12]}:"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start : start + 500])
    client.close()


@pytest.fixture()
def captured() -> Iterator[io.StringIO]:
    """JSON log lines of the trickarena loggers, as the JSON formatter writes them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(telemetry.JsonFormatter())
    logger = logging.getLogger("trickarena")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(old_level)
