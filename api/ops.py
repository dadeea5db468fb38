"""Operations: Prometheus `/metrics`, structured JSON logs with request/match ids, worker health.

Metrics come from two places, so that they add up across gunicorn workers and machines:

- HTTP requests and API moves are counted in-process with `prometheus_client`; under gunicorn
  `PROMETHEUS_MULTIPROC_DIR` points every worker at one directory and `/metrics` aggregates it.
- What the RQ workers do (moves played in matches, bot decision time, bot faults) is counted in
  Redis hashes (`record_match`, called once per recorded match), and the queue depth and worker
  count are read from RQ at scrape time. These describe the whole platform, not the process that
  answers, so they have their own path, `/metrics/platform` (any API process answers it alike;
  scrape it as one target), and are not in `/metrics`: summed over replicas they would count
  each match once per replica.

`python -m api.ops probe URL` is the container health probe: exit 0 when URL answers and, for
getHealth, when its Redis section is ok (a "degraded" platform without workers still has a
healthy API, which must stay in service).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

import redis
from flask import Flask, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from api.context import app_context
from core.telemetry import (
    BOT_LATENCY_BUCKETS,
    DEFAULT_QUEUE,
    LOG_CONTEXT,
    METRICS_KEY,
    QUEUE_ENV,
    bucket_label,
    configure_logging,
)
from harness.health import unhealthy_workers

if TYPE_CHECKING:
    from api.blueprint_util import Api

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PLATFORM_METRICS_ENDPOINT = "trickarena_platform_metrics"
REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_ENVIRON = "HTTP_X_REQUEST_ID"
# The caller's X-Request-ID is kept (logged, echoed) only when it is 1-64 characters of letters,
# digits, '.', '_' and '-', and, from 32 characters on, hexadecimal (a UUID, with or without its
# dashes). Every secret the platform issues (seat tokens, owner keys, signing secrets) is 32 or
# more characters of base64url (`secrets.token_urlsafe`), so a secret sent there by mistake is
# replaced by a fresh id and never reaches a log line (a random 32-character token is all hex with
# odds below 1e-14).
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,31}|[0-9A-Fa-f-]{32,64}")


log = logging.getLogger("trickarena.access")

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


HTTP_REQUESTS = Counter(
    "trickarena_http_requests_total", "HTTP requests served", ["endpoint", "method", "status"]
)
HTTP_LATENCY = Histogram(
    "trickarena_http_request_duration_seconds",
    "HTTP request latency",
    ["endpoint"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
)
API_MOVES = Counter("trickarena_api_moves_total", "Moves applied through postMove")


class PlatformCollector(Collector):
    """Scrape-time metrics from Redis: worker counters, RQ queue depth and live workers."""

    def __init__(self, client: redis.Redis, prefix: str, queue: str, rq: redis.Redis | None = None) -> None:
        self.client = client
        self.prefix = prefix
        self.queue = queue
        self.rq = client if rq is None else rq  # RQ's Redis (RQ_REDIS_URL)

    def collect(self) -> Iterable[Metric]:
        """Yield the platform metric families (empty families when Redis is unreachable)."""
        matches = CounterMetricFamily("trickarena_matches", "Matches recorded by workers", labels=["game"])
        moves = CounterMetricFamily("trickarena_match_moves", "Moves played in matches", labels=["game"])
        bot_latency = HistogramMetricFamily(
            "trickarena_bot_decision_seconds", "Time bots took to answer /move", labels=["game"]
        )
        faults = CounterMetricFamily("trickarena_bot_faults", "Bot faults by code", labels=["game", "code"])
        depth = GaugeMetricFamily("trickarena_queue_depth", "Jobs waiting in the queue", labels=["queue"])
        workers = GaugeMetricFamily("trickarena_workers", "RQ workers alive", labels=["queue"])
        unhealthy = GaugeMetricFamily(
            "trickarena_workers_unhealthy",
            "RQ workers alive that take no job: they could not reach bots other workers reach",
            labels=["queue"],
        )
        up = GaugeMetricFamily("trickarena_redis_up", "1 when Redis answered this scrape")
        try:
            raw = self.client.hgetall(f"{self.prefix}{METRICS_KEY}")
            counts = worker_status(self.rq, self.queue, self.client, self.prefix)
        except (redis.RedisError, OSError):
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        buckets: dict[str, dict[str, float]] = {}
        sums: dict[str, float] = {}
        for field_b, value_b in cast(dict[bytes, bytes], raw).items():
            parts = field_b.decode().split("|")
            value = float(value_b)
            if parts[0] == "matches":
                matches.add_metric([parts[1]], value)
            elif parts[0] == "moves":
                moves.add_metric([parts[1]], value)
            elif parts[0] == "bot_latency" and len(parts) == 3:
                buckets.setdefault(parts[1], {})[parts[2]] = value
            elif parts[0] == "bot_latency_sum":
                sums[parts[1]] = value
            elif parts[0] == "faults" and len(parts) == 3:
                faults.add_metric([parts[1], parts[2]], value)
        for game, by_bound in sorted(buckets.items()):
            cumulative, running = [], 0.0
            for index in range(len(BOT_LATENCY_BUCKETS) + 1):
                label = bucket_label(index)
                running += by_bound.get(label, 0.0)
                cumulative.append((label, running))
            bot_latency.add_metric([game], cumulative, sums.get(game, 0.0))
        depth.add_metric([self.queue], counts["queued"])
        workers.add_metric([self.queue], counts["count"])
        unhealthy.add_metric([self.queue], len(counts["unhealthy"]))
        yield from (matches, moves, bot_latency, faults, depth, workers, unhealthy, up)


def worker_status(
    client: redis.Redis, queue: str, store: redis.Redis | None = None, prefix: str = ""
) -> dict[str, Any]:
    """Live RQ workers listening on `queue` (and those of them that tripped: `harness.health`, listed
    under `prefix` in `store`, default RQ's Redis), the queue depth; ok with one healthy worker."""
    from rq import Queue, Worker

    all_workers = Worker.all(connection=client)
    listening = sorted(w.name for w in all_workers if queue in w.queue_names())
    tripped = unhealthy_workers(store if store is not None else client, prefix)
    unhealthy = [name for name in listening if name in tripped]
    q = Queue(queue, connection=client)
    return {
        "ok": len(listening) > len(unhealthy),
        "count": len(listening),
        "queue": queue,
        "queued": q.count,
        "workers": listening,
        "unhealthy": unhealthy,
    }


# -- the Flask side -----------------------------------------------------------------------------
def _registry() -> CollectorRegistry:
    """The process's own metrics (all gunicorn workers' under the multiprocess mode)."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        from prometheus_client import REGISTRY

        registry.register(_Forward(REGISTRY))
    return registry


class _Forward(Collector):
    """Expose the process-wide default registry inside our per-app registry."""

    def __init__(self, source: CollectorRegistry) -> None:
        self.source = source

    def collect(self) -> Iterable[Metric]:
        """Every metric of the source registry."""
        return self.source.collect()


class RequestRecorder:
    """WSGI middleware around the Flask app: request ids, request metrics and the access log line.

    It wraps `app.wsgi_app` (Flask's documented place for middleware), so every request, of
    every route, passes through it and through Flask's whole request cycle inside it: hooks,
    routing, view, error handler.  Nothing is answered beside Flask.  The request id and log
    context are set before Flask sees the request and left when Flask's cycle (teardown included)
    is over; the request is counted, logged and given its X-Request-ID when Flask starts the
    response, with the route read off the request object werkzeug keeps in the environ.  (A
    streamed body, such as an event stream, is sent after that: its own log lines carry no id.)
    Every request pays for this, so it costs no Flask hook calls, and the labelled metric
    children are looked up once per (endpoint, method, status): `labels()` validates and locks on
    every call.
    """

    def __init__(self, wsgi_app: WsgiApp) -> None:
        self.wsgi_app = wsgi_app
        self._requests: dict[tuple[str, str, str], Any] = {}
        self._latency: dict[str, Any] = {}

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request through Flask, recorded; the log context covers Flask's request cycle."""
        self.start(environ)

        def recorded(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append((REQUEST_ID_HEADER, self.finish(environ, status)))
            return start_response(status, headers, exc_info)

        try:
            return self.wsgi_app(environ, recorded)
        finally:
            self.reset(environ)

    @staticmethod
    def start(environ: dict[str, Any]) -> str:
        """Give the request its id (the caller's X-Request-ID if sane) and start its clock and log context."""
        # HTTP drops optional whitespace around a header value; not every server has done so.
        incoming = environ.get(REQUEST_ID_ENVIRON, "").strip(" \t")
        # A caller's id ends up in every log line: only a safe one is kept (`SAFE_REQUEST_ID`).
        # A fresh one is 128 random bits as 32 hex digits (what uuid4().hex gave, for less work).
        rid = incoming if SAFE_REQUEST_ID.fullmatch(incoming) else os.urandom(16).hex()
        environ["trickarena.request_id"] = rid
        environ["trickarena.started"] = time.perf_counter()
        environ["trickarena.log_token"] = LOG_CONTEXT.set({"request_id": rid})
        return rid

    def finish(self, environ: dict[str, Any], status_line: str) -> str:
        """Count and log one answered request (its status line as Flask starts the response); its id."""
        elapsed = time.perf_counter() - environ.get("trickarena.started", time.perf_counter())
        status = status_line[:3]
        code = int(status)
        # werkzeug puts the Request it builds for the environ there (Flask's `request`).
        req = environ.get("werkzeug.request")
        rule = getattr(req, "url_rule", None)
        endpoint: str = rule.rule if rule is not None else "<unmatched>"
        # A path (or an id in it) is logged only when it named something that exists: an unmatched
        # route or a 404 may carry whatever was pasted there, a secret or an owner key included,
        # so those lines carry the route template and no ids (`logged_path`).
        found = rule is not None and code != 404
        view_args: dict[str, Any] = (getattr(req, "view_args", None) or {}) if found else {}
        method: str = environ.get("REQUEST_METHOD", "")
        path: str = (req.path if req is not None else environ.get("PATH_INFO", "")) if found else endpoint
        label = (endpoint, method, status)
        counter = self._requests.get(label)
        if counter is None:
            counter = self._requests[label] = HTTP_REQUESTS.labels(endpoint, method, status)
        counter.inc()
        latency = self._latency.get(endpoint)
        if latency is None:
            latency = self._latency[endpoint] = HTTP_LATENCY.labels(endpoint)
        latency.observe(elapsed)
        if code == 200 and rule is not None and rule.endpoint.endswith("post_move"):
            API_MOVES.inc()
        if endpoint != "/metrics" and log.isEnabledFor(logging.INFO):
            fields = {
                "method": method,
                "path": path,
                "endpoint": endpoint,
                "status": code,
                "duration_ms": round(elapsed * 1000, 3),
                "game_id": view_args.get("game_id"),
                "tournament_id": view_args.get("tournament_id"),
            }
            # makeRecord + handle is what log.info does, minus walking the stack for the caller's
            # file and line (an access line's origin is always this recorder).
            log.handle(
                log.makeRecord(
                    log.name,
                    logging.INFO,
                    __file__,
                    0,
                    "%s %s %s",
                    (method, path, status),
                    None,
                    extra=fields,
                )
            )
        return str(environ.get("trickarena.request_id", ""))

    @staticmethod
    def reset(environ: dict[str, Any]) -> None:
        """Leave the request's log context (after Flask's request cycle, teardown included)."""
        token = environ.pop("trickarena.log_token", None)
        if token is not None:
            with contextlib.suppress(ValueError):
                LOG_CONTEXT.reset(token)


def register_health_check(app: Flask, name: str, check: Callable[[], dict[str, Any]]) -> None:
    """Add a section (e.g. "workers") to getHealth; `check` returns a JSON dict with an `ok` flag (and
    `error` when the check failed): openapi.yaml's `HealthSection`, or a schema of its own for more fields."""
    app_context(app).health[name] = check


def init_app(app: Flask) -> None:
    """Request ids, JSON access logs, request metrics, `/metrics` (this process's),
    `/metrics/platform` (the platform's, from Redis), and the workers section of getHealth."""

    configure_logging()
    service = app_context(app).service
    client: redis.Redis = service.repository.client
    prefix: str = service.repository.prefix
    queue = os.environ.get(QUEUE_ENV, DEFAULT_QUEUE)
    rq = app_context(app).harness.rq_connection
    registry = _registry()
    platform = CollectorRegistry()
    platform.register(PlatformCollector(client, prefix, queue, rq))

    # Around Flask's whole request cycle, for every route (see RequestRecorder).
    recorder = RequestRecorder(app.wsgi_app)
    app.wsgi_app = recorder  # type: ignore[method-assign]
    app_context(app).requests = recorder

    def metrics() -> Response:
        """The Prometheus text exposition of this API process's metrics (HTTP, postMove)."""
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    def platform_metrics() -> Response:
        """The Prometheus text exposition of the platform's metrics, read from Redis."""
        return Response(generate_latest(platform), mimetype=CONTENT_TYPE_LATEST)

    app.add_url_rule("/metrics", endpoint="trickarena_metrics", view_func=metrics, methods=["GET"])
    app.add_url_rule(
        "/metrics/platform", endpoint=PLATFORM_METRICS_ENDPOINT, view_func=platform_metrics, methods=["GET"]
    )
    register_health_check(app, "workers", lambda: worker_status(rq, queue, client, prefix))


def register(_api: Api, app: Flask) -> None:
    """Hook for the app factory's optional modules."""
    init_app(app)


# -- the container probe ------------------------------------------------------------------------
def probe(url: str, timeout: float = 4.0) -> bool:
    """True when `url` answers; for a getHealth body, only when its Redis section is ok."""
    import urllib.error
    import urllib.request

    status_ok = True
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 (operator-given URL)
            body = answer.read()
    except urllib.error.HTTPError as exc:
        body, status_ok = exc.read(), False
    except OSError:
        return False
    try:
        doc = json.loads(body)
    except ValueError:
        return status_ok
    if isinstance(doc, dict) and isinstance(doc.get("redis"), dict):
        return bool(doc["redis"].get("ok"))
    return status_ok


def main(argv: list[str] | None = None) -> int:
    """`python -m api.ops probe URL`: exit 0 when healthy, 1 otherwise."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "probe":
        print("usage: python -m api.ops probe URL", file=sys.stderr)
        return 2
    return 0 if probe(args[1]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
