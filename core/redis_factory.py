"""Every Redis client of the platform, built in one place from the configuration.

Nothing else constructs a Redis client (`tests/test_redis_factory.py` greps for it): the game
repository, bot registry and harness store share the one storage client of a process
(`storage_client`), RQ gets its own (`rq_client`, from `RQ_REDIS_URL`, default `REDIS_URL`), and
the rate limits use the storage client's connection pool (`limits_storage`).

Topologies (`REDIS_URL`; docs/operations.md, Redis):

- ``redis://[user:password@]host:port/db``, ``rediss://...`` (TLS), ``unix:///path?db=N``: one server;
- ``redis+sentinel://[user:password@]host:port[,host:port...]/service_name[/db]``: the master of
  `service_name` as the Sentinels name it; clients follow a failover by themselves (redis-py's
  Sentinel pool: a connection that finds its server demoted, or refusing writes, reconnects to the
  master the Sentinels name now, retried with back-off);
- ``redis+cluster://[user:password@]host:port[,host:port...]``: a `redis.cluster.RedisCluster`
  client. Every key carries a hash tag (a game's id, a tournament's, ``{bots}``, ``{quota}``…), so
  each script and transaction touches one slot (docs/operations.md, Redis topologies). RQ never
  runs on a cluster: `RQ_REDIS_URL` must then name a single server or a Sentinel service.

Every client has the socket timeout `TRICKARENA_REDIS_TIMEOUT_S` (connect and each command: a
stalled Redis fails the call within it, under every server mode, gevent included), a health check
of connections idle longer than `HEALTH_CHECK_INTERVAL_S`, and redis-py's `Retry` with exponential
back-off and jitter on connection errors only (refused, reset, a demoted master), never on
timeouts: a timed-out call is not repeated, so a hung Redis costs one timeout, not several. The API
retries briefly (`API_RETRY`: at most 1.1 s of back-off, its answer stays within 3 s); workers
ride out a failover (`WORKER_RETRY`: at most 19 s of back-off, about 10 s on average).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelManagedConnection

REDIS_URL_ENV = "REDIS_URL"
RQ_REDIS_URL_ENV = "RQ_REDIS_URL"
DEFAULT_URL = "redis://127.0.0.1:6379/0"
TIMEOUT_ENV = "TRICKARENA_REDIS_TIMEOUT_S"

# Seconds a Redis command (and a connection attempt) may take before it fails: a Redis that hangs
# gives 503s within this, plus the request's own work (docs/operations.md, Limits: 503 within 3 s).
REDIS_TIMEOUT_S = float(os.environ.get(TIMEOUT_ENV, "") or "2")
# A pooled connection idle longer than this is PINGed before use (one that a failover or a restart
# cut is replaced before a command is lost on it).
HEALTH_CHECK_INTERVAL_S = 10

SENTINEL_SCHEME = "redis+sentinel"
CLUSTER_SCHEME = "redis+cluster"
SINGLE_SCHEMES = ("redis", "rediss", "unix")

# Error replies of a server that cannot take the command now (a failover, a restart, a cluster
# re-shard): the request is answered 503 with Retry-After, and a Sentinel connection reconnects.
UNAVAILABLE_REPLIES = ("READONLY", "NOREPLICAS", "MASTERDOWN", "LOADING", "CLUSTERDOWN", "TRYAGAIN")
# Of those, the replies of a server that is no longer (or not yet safely) the master.
NOT_MASTER_REPLIES = ("READONLY", "NOREPLICAS", "MASTERDOWN")


@dataclass(frozen=True)
class RetryPolicy:
    """How often a connection error is retried, with exponential back-off and jitter (seconds)."""

    retries: int
    base_s: float
    cap_s: float

    def build(self) -> Retry:
        """redis-py's `Retry` on connection errors only (a timeout is never repeated)."""
        backoff = ExponentialWithJitterBackoff(cap=self.cap_s, base=self.base_s)
        return Retry(backoff, self.retries, supported_errors=(redis.ConnectionError,))


# The API: a failover's reconnection within its answer (back-off at most 0.1 + 0.2 + 0.4 + 0.4 s:
# redis-py's jittered back-off is a random fraction of base * 2**failures, capped), else 503.
API_RETRY = RetryPolicy(retries=4, base_s=0.05, cap_s=0.4)
# A single attempt (probes: is a Redis there at all?).
NO_RETRY = RetryPolicy(retries=0, base_s=0.0, cap_s=0.0)
# Workers: ride out a failover or a short restart (back-off at most 19 s, ~10 s on average)
# before a job fails.
WORKER_RETRY = RetryPolicy(retries=12, base_s=0.1, cap_s=2.0)


@dataclass(frozen=True)
class Topology:
    """Where Redis is, read from a URL: a single server, a Sentinel service or a cluster."""

    kind: str  # "single" | "sentinel" | "cluster"
    url: str
    nodes: tuple[tuple[str, int], ...] = ()
    service: str = ""
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_password: str | None = None


def _nodes(netloc: str, default_port: int) -> tuple[tuple[str, int], ...]:
    hosts = netloc.rpartition("@")[2]
    out = []
    for item in hosts.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not sep:
            host, port = item.strip(), str(default_port)
        if not host or not port.isdigit():
            raise ValueError(f"a redis+sentinel:// or redis+cluster:// URL lists host:port, not {item!r}")
        out.append((host.strip("[]"), int(port)))
    return tuple(out)


def parse_url(url: str) -> Topology:
    """The topology a Redis URL names (ValueError, saying what is wrong, for anything else)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in SINGLE_SCHEMES:
        return Topology("single", url)
    if scheme not in (SENTINEL_SCHEME, CLUSTER_SCHEME):
        raise ValueError(
            f"{url!r}: a Redis URL is redis://, rediss://, unix://, "
            "redis+sentinel://host:port[,host:port]/service_name[/db] or redis+cluster://host:port[,...]"
        )
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    query = parse_qs(parts.query)
    if scheme == CLUSTER_SCHEME:
        return Topology("cluster", url, _nodes(parts.netloc, 6379), username=username, password=password)
    path = [p for p in parts.path.split("/") if p]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"{url!r}: a Sentinel URL ends in /service_name or /service_name/db")
    return Topology(
        "sentinel",
        url,
        _nodes(parts.netloc, 26379),
        service=unquote(path[0]),
        db=int(path[1]) if len(path) == 2 else 0,
        username=username,
        password=password,
        sentinel_password=next(iter(query.get("sentinel_password", [])), None),
    )


class FailoverConnection(SentinelManagedConnection):
    """A connection to the master a Sentinel names. redis-py's own turns the READONLY reply of a
    demoted master into a connection error (so the command is retried on the new master); this one
    does the same for the other replies of a server that is no longer the master (NOREPLICAS: it
    lost its replicas, as an old master does once its replica is promoted; MASTERDOWN), and asks the
    Sentinels for the master's address on every (re)connection: redis-py 8 reconnects within a
    command's retries to the address it had, which would retry on the old master until the retries
    run out."""

    def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        """Connect (if not connected) to the master the Sentinels name now."""
        if not self.is_connected and self.connection_pool.is_master:
            self.host, self.port = self.connection_pool.get_master_address()
        super().connect_check_health(check_health, retry_socket_connect)

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        """redis-py's answer, or ConnectionError (after disconnecting) where the master moved on."""
        try:
            return super().read_response(*args, **kwargs)
        except redis.ResponseError as error:
            if self.connection_pool.is_master and str(error).startswith(NOT_MASTER_REPLIES):
                self.disconnect()  # type: ignore[no-untyped-call]  # redis-py's own, untyped
                raise redis.ConnectionError(f"the master refuses writes: {error}") from error
            raise


def _common(timeout_s: float, retry: RetryPolicy) -> dict[str, Any]:
    return {
        "socket_timeout": timeout_s,
        "socket_connect_timeout": timeout_s,
        "retry": retry.build(),
        "health_check_interval": HEALTH_CHECK_INTERVAL_S,
    }


def _parse_replies_in_transactions(cluster: RedisCluster) -> None:
    """Make a cluster client's MULTI replies read like a plain client's.

    redis-py's cluster transaction (a `pipeline(transaction=True)` on one slot) applies only the
    cluster client's own reply callbacks, so a stream read there comes back as raw nested lists
    and SMEMBERS as a list (a plain client's XRANGE gives (id, fields) pairs, SMEMBERS a set). The
    cluster client gets the plain client's parser for those commands through its public
    `set_response_callback`, applied only to a reply still in raw form: outside a transaction the
    node's own client has parsed it before the cluster's callback sees it.
    """
    plain = redis.Redis().response_callbacks  # a plain client's parsers (it makes no connection)

    def raw_entries(reply: Any) -> bool:
        return isinstance(reply, list) and bool(reply) and isinstance(reply[0], list)

    for command, is_raw in (
        ("XRANGE", raw_entries),
        ("XREVRANGE", raw_entries),
        ("SMEMBERS", lambda reply: isinstance(reply, list)),
    ):
        parse = plain[command]
        cluster.set_response_callback(  # type: ignore[no-untyped-call]
            command,
            lambda reply, parse=parse, is_raw=is_raw, **options: (
                parse(reply, **options) if is_raw(reply) else reply
            ),
        )


def build_client(url: str, retry: RetryPolicy = API_RETRY, timeout_s: float | None = None) -> redis.Redis:
    """A client of the Redis `url` names, with the timeouts, retry and health check above.

    (A cluster's client is a `RedisCluster`, typed as the `redis.Redis` whose commands it shares.)
    """
    topology = parse_url(url)
    options = _common(REDIS_TIMEOUT_S if timeout_s is None else timeout_s, retry)
    if topology.kind == "single":
        return redis.Redis.from_url(url, **options)
    if topology.kind == "cluster":
        nodes = [ClusterNode(host, port) for host, port in topology.nodes]  # type: ignore[no-untyped-call]
        cluster = RedisCluster(
            startup_nodes=nodes, username=topology.username, password=topology.password, **options
        )
        _parse_replies_in_transactions(cluster)
        return cast(redis.Redis, cluster)
    sentinel_options = {k: options[k] for k in ("socket_timeout", "socket_connect_timeout")}
    if topology.sentinel_password:
        sentinel_options["password"] = topology.sentinel_password
    sentinel = Sentinel(list(topology.nodes), sentinel_kwargs=sentinel_options)
    master: redis.Redis = sentinel.master_for(
        topology.service,
        connection_class=FailoverConnection,
        db=topology.db,
        username=topology.username,
        password=topology.password,
        **options,
    )
    return master


def redis_url(environ: Mapping[str, str] | None = None) -> str:
    """`REDIS_URL` (default: the local server)."""
    env = os.environ if environ is None else environ
    return env.get(REDIS_URL_ENV) or DEFAULT_URL


def rq_url(environ: Mapping[str, str] | None = None, storage_url: str | None = None) -> str:
    """`RQ_REDIS_URL`, default the storage's URL; ValueError for a cluster (RQ needs one server)."""
    env = os.environ if environ is None else environ
    url = env.get(RQ_REDIS_URL_ENV) or storage_url or redis_url(env)
    _refuse_cluster(url)
    return url


def _refuse_cluster(url: str) -> None:
    if parse_url(url).kind == "cluster":
        raise ValueError(
            f"RQ cannot run on a Redis Cluster: set {RQ_REDIS_URL_ENV} to a single server or a "
            "Sentinel service (it only holds job metadata)"
        )


def storage_client(url: str | None = None, retry: RetryPolicy = API_RETRY) -> redis.Redis:
    """The client of games, bots and tournaments (one per process): `url` or `REDIS_URL`."""
    return build_client(url or redis_url(), retry)


def rq_client(url: str, retry: RetryPolicy = API_RETRY) -> redis.Redis:
    """A client of RQ's Redis at `url` (`rq_url`): for queueing and, with `WORKER_RETRY`, a
    worker's own loop (RQ raises its socket timeout above its blocking dequeue)."""
    _refuse_cluster(url)
    return build_client(url, retry)


def limits_storage(client: redis.Redis, url: str) -> tuple[str, dict[str, Any]]:
    """Flask-Limiter's storage URI and options on the same topology as `client`: its connection
    pool for a single server or a Sentinel service, the cluster's nodes for a cluster."""
    topology = parse_url(url)
    if topology.kind == "cluster":
        options = _common(REDIS_TIMEOUT_S, API_RETRY)
        del options["health_check_interval"]
        return url, options
    return "redis://", {"connection_pool": client.connection_pool}


def is_client(value: object) -> bool:
    """True for a client `build_client` makes (a stand-in without Redis is not one)."""
    return isinstance(value, (redis.Redis, RedisCluster))


def is_unavailable(error: BaseException) -> bool:
    """True for the errors of a Redis that cannot serve now (unreachable, hung, failing over,
    loading, refusing writes): answered 503 with Retry-After, never 500."""
    if isinstance(error, (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError)):
        return True
    return isinstance(error, redis.ResponseError) and str(error).startswith(UNAVAILABLE_REPLIES)


def check_writable(client: redis.Redis, key: str) -> None:
    """Raise unless the Redis takes a write now: a short-lived SET of `key` (a replica, a demoted
    master or one without its replicas refuses it)."""
    client.set(key, "1", px=5000)
