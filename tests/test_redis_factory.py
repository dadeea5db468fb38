"""One factory builds every Redis client (core.redis_factory), from the configured topology."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from redis.exceptions import RedisClusterException

from core.redis_factory import (
    API_RETRY,
    REDIS_TIMEOUT_S,
    build_client,
    parse_url,
    rq_url,
)

ROOT = Path(__file__).resolve().parent.parent
# Constructing a client or a pool by any other road than the factory.
CONSTRUCTION = re.compile(
    r"\b(?:Redis|StrictRedis|RedisCluster|Sentinel|ConnectionPool|BlockingConnectionPool)\("
    r"|\b(?:Redis|StrictRedis|ConnectionPool|redis)\.from_url\b"
)


def test_no_redis_client_is_built_outside_the_factory() -> None:
    """Rule (issue 25): every Redis client of the platform (core, harness, api, bots) is built by
    core/redis_factory.py; nothing else calls Redis(...), Redis.from_url, a pool or a Sentinel."""
    offenders = []
    for package in ("core", "harness", "api", "bots"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "core" / "redis_factory.py":
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if CONSTRUCTION.search(code):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, offenders


@pytest.mark.parametrize(
    ("url", "kind", "nodes", "service", "db"),
    [
        ("redis://127.0.0.1:6379/0", "single", (), "", 0),
        ("rediss://user:pw@redis.example:6380/2", "single", (), "", 0),
        ("unix:///run/redis.sock?db=1", "single", (), "", 0),
        (
            "redis+sentinel://s1:26379,s2:26380/arena/3",
            "sentinel",
            (("s1", 26379), ("s2", 26380)),
            "arena",
            3,
        ),
        ("redis+sentinel://:secret@s1/arena", "sentinel", (("s1", 26379),), "arena", 0),
        ("redis+cluster://c1:7000,c2:7001", "cluster", (("c1", 7000), ("c2", 7001)), "", 0),
    ],
)
def test_redis_urls_name_their_topology(
    url: str, kind: str, nodes: tuple[tuple[str, int], ...], service: str, db: int
) -> None:
    """Rule (operations.md, Redis): REDIS_URL is a single server (redis://, rediss://, unix://), a
    Sentinel service (redis+sentinel://host:port[,host:port]/service_name[/db]) or a cluster."""
    topology = parse_url(url)
    assert (topology.kind, topology.nodes, topology.service, topology.db) == (kind, nodes, service, db)


@pytest.mark.parametrize(
    "url",
    ["http://x:6379", "redis+sentinel://s1:26379", "redis+sentinel://s1:26379/a/b", "redis+cluster://c1:x"],
)
def test_a_malformed_redis_url_is_refused_with_a_reason(url: str) -> None:
    """Rule: a URL the factory cannot read is refused at start-up, saying what is expected."""
    with pytest.raises(ValueError, match="redis"):
        parse_url(url)


def test_rq_defaults_to_redis_url_and_never_runs_on_a_cluster() -> None:
    """Rule (operations.md, Redis): RQ_REDIS_URL defaults to REDIS_URL; RQ cannot use a cluster."""
    assert rq_url({"REDIS_URL": "redis://a:1/0"}) == "redis://a:1/0"
    assert rq_url({"REDIS_URL": "redis+cluster://c:7000", "RQ_REDIS_URL": "redis://q:1/0"}) == "redis://q:1/0"
    with pytest.raises(ValueError, match="RQ_REDIS_URL"):
        rq_url({"REDIS_URL": "redis+cluster://c:7000"})


def test_every_client_has_the_timeouts_the_retry_and_the_health_check() -> None:
    """Rule (operations.md, Redis): socket and connect timeouts, redis-py's Retry with back-off on
    connection errors only (never on timeouts) and a health check, on every topology's client."""
    single = build_client("redis://127.0.0.1:1/0")
    sentinel = build_client("redis+sentinel://127.0.0.1:1/arena/0")
    for client in (single, sentinel):
        kwargs = client.connection_pool.connection_kwargs
        assert kwargs["socket_timeout"] == kwargs["socket_connect_timeout"] == REDIS_TIMEOUT_S
        assert kwargs["health_check_interval"] > 0
        assert kwargs["retry"].get_retries() == API_RETRY.retries
        assert kwargs["retry"] == API_RETRY.build()
    # A cluster's client (RedisCluster) reads the cluster's slots when it is built: nothing there.
    with pytest.raises(RedisClusterException, match="127.0.0.1:1"):
        build_client("redis+cluster://127.0.0.1:1")
