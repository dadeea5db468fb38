"""The API's one application context: everything the routes use, built once by `create_app`.

One Redis connection pool per process: the game repository's client (`core.redis_factory`, from
`REDIS_URL`) is shared by the bot registry, the harness store, the rate limits and the platform
counters; RQ's client is built from `RQ_REDIS_URL` (the same pool when it names the same Redis).
Routes reach the context through `app_context()` (typed), never through string keys of their own
in `app.extensions`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app

from core.bot_registry import BotRegistry
from core.event_hub import EventHub, StreamSlots
from core.outbound import ALLOWED_NETWORKS_ENV, AddressPolicy
from core.quotas import Quotas, caps_from
from core.redis_factory import RQ_REDIS_URL_ENV, rq_client, rq_url
from core.repository import GameRepository
from core.service import GameService
from harness.runner import HarnessContext
from harness.store import HarnessStore

EXTENSION_KEY = "trickarena"

HealthCheck = Callable[[], dict[str, Any]]


@dataclass
class AppContext:
    """The harness context (game service, bot registry, harness store, address policy, queue)
    plus the API's own parts: getHealth's sections and the request recorder of `api.ops`."""

    harness: HarnessContext
    health: dict[str, HealthCheck] = field(default_factory=dict)
    requests: Any = None  # api.ops.RequestRecorder, set by api.ops (it lives above this module)
    # Event streams: the process's one reader fanning events out, the per-address cap.
    events: EventHub = field(init=False)
    stream_slots: StreamSlots = field(init=False)
    # Caps on live bots, leagues and tournaments (core.quotas).
    quotas: Quotas = field(init=False)
    api: Any = None  # the flask-smorest Api (its spec is openapi.yaml), set by create_app

    @property
    def service(self) -> GameService:
        """The game service."""
        return self.harness.service

    @property
    def bots(self) -> BotRegistry:
        """The bot registry."""
        return self.harness.bots


def build_context(config: dict[str, Any] | Any) -> AppContext:
    """The context for an app's configuration (test configs may hand in ready-made parts:
    `TRICKARENA_REPOSITORY`, `TRICKARENA_BOT_REGISTRY`, `TRICKARENA_HARNESS`)."""
    if config.get("TRICKARENA_HARNESS") is not None:
        return with_streams(AppContext(config["TRICKARENA_HARNESS"]), config)
    repository = config.get("TRICKARENA_REPOSITORY")
    if repository is None:
        ttl = config["TRICKARENA_FINISHED_TTL"]
        repository = GameRepository.from_url(
            config["REDIS_URL"],
            prefix=config["TRICKARENA_KEY_PREFIX"],
            finished_ttl=int(ttl) if ttl else None,
        )
    service = GameService(repository, duplicate_window_ms=int(config["TRICKARENA_DUPLICATE_WINDOW_MS"]))
    bots = config.get("TRICKARENA_BOT_REGISTRY")
    if bots is None:
        environ = dict(os.environ)
        if "TRICKARENA_ALLOWED_NETWORKS" in config:
            environ[ALLOWED_NETWORKS_ENV] = config["TRICKARENA_ALLOWED_NETWORKS"]
        bots = BotRegistry(
            repository.client, prefix=repository.prefix, policy=AddressPolicy.from_env(environ)
        )
    queue = config.get("TRICKARENA_QUEUE") or os.environ.get("TRICKARENA_QUEUE", "trickarena")
    store = HarnessStore(repository.client, repository.prefix)
    url = str(config.get("REDIS_URL") or "")
    rq = None
    if url:
        queue_url = rq_url({RQ_REDIS_URL_ENV: config.get("RQ_REDIS_URL") or ""}, storage_url=url)
        rq = rq_client(queue_url) if queue_url != url else None
    harness = HarnessContext(store, service, bots, bots.policy, queue, url, rq=rq)
    if config.get("TRICKARENA_MIN_LEAGUE_INTERVAL_S") is not None:
        harness.min_league_interval_s = int(config["TRICKARENA_MIN_LEAGUE_INTERVAL_S"])
    return with_streams(AppContext(harness), config)


def with_streams(context: AppContext, config: dict[str, Any] | Any) -> AppContext:
    """`context` with its event hub and stream slots (caps: docs/operations.md, Limits)."""
    service = context.service
    context.events = EventHub(service, int(config.get("TRICKARENA_SSE_MAX_STREAMS") or 0))
    context.stream_slots = StreamSlots(
        service.repository.client,
        service.repository.prefix,
        int(config.get("TRICKARENA_SSE_MAX_PER_ADDRESS") or 0),
    )
    context.quotas = Quotas(service.repository.client, service.repository.prefix, caps_from(config))
    return context


def install(app: Flask, context: AppContext) -> None:
    """Attach the context to the app (once, in `create_app`)."""
    app.extensions[EXTENSION_KEY] = context


def app_context(app: Flask | None = None) -> AppContext:
    """The context of `app` (default: the app serving the current request)."""
    context: AppContext = (app or current_app).extensions[EXTENSION_KEY]
    return context
