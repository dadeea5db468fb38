"""Rate limits (Flask-Limiter) per client address and per credential, counted in the API's Redis.

Two application-wide limits, checked in a `before_request` hook of the one Flask pipeline, so
every route counts (postMove included), and stored in Redis under the app's key prefix, so that
they hold across API processes and machines:

- per client address (`TRICKARENA_RATE_LIMITS`, default `1200/minute`): every request;
- per credential (`TRICKARENA_KEY_RATE_LIMITS`, default `600/minute`): every request
  with `Authorization: Bearer <seat token or owner key>`, counted by the key's SHA-256 (the key
  itself is never stored), wherever it comes from.

A request over a limit gets 429 `rate_limited` with `Retry-After` (seconds until the window that
refused it has room again) and changes nothing. The strings are the `limits` library's
(`N/second`, `N per minute`, `;` between several); `off` turns a set off, and
`TRICKARENA_RATE_LIMITS=off` every rate limit (the test suite runs so; `tests/api/test_rate_limits.py`
turns them on). getHealth, `/metrics` and `/metrics/platform` are exempt: a probe or a scrape
must never see 429, and getHealth must show a Redis outage itself. Behind proxies,
`TRICKARENA_TRUSTED_PROXIES=N` takes the client address from the N-th last `X-Forwarded-For`
entry (werkzeug's ProxyFix; compose: 1, its nginx edge); never set it where clients reach the
API directly, they could pick any address.

While Redis is unreachable the check fails like every other Redis call: 503 storage_unavailable.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from flask import Flask, Response, jsonify, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from limits import parse_many
from werkzeug.middleware.proxy_fix import ProxyFix

from api.context import app_context
from core.redis_factory import is_client, limits_storage

# One window each: every limit costs one Redis script call per request (docs/operations.md, Limits);
# bursts within the minute are the edge's to cut (compose's nginx: limit_req).
DEFAULT_ADDRESS_LIMITS = "1200/minute"
DEFAULT_KEY_LIMITS = "600/minute"
OFF = "off"
# The monitoring endpoints (getHealth, /metrics, /metrics/platform): never limited.
EXEMPT_ENDPOINTS = frozenset({"games.get_health", "trickarena_metrics", "trickarena_platform_metrics"})


def client_address() -> str:
    """The key of the per-address limit: the client's address (after ProxyFix, when configured)."""
    return f"addr:{request.remote_addr or '-'}"


def bearer() -> str | None:
    """The token of `Authorization: Bearer <token>`, None when there is none (never an error)."""
    scheme, _, token = (request.headers.get("Authorization") or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def credential() -> str:
    """The key of the per-credential limit: a digest of the Bearer token (the token is not stored)."""
    token = bearer() or ""
    return "key:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def rate_limited(limit: RequestLimit) -> Response:
    """The 429 answer: the API's error body, `Retry-After` until the window has room again."""
    retry_after = max(1, min(limit.limit.get_expiry(), limit.reset_at - int(time.time())))
    per = "credential" if limit.key.find("key:") >= 0 else "client address"
    response = jsonify(
        {
            "code": "rate_limited",
            "message": f"too many requests: the limit is {limit.limit} per {per}; retry after "
            f"{retry_after} s",
            "details": {"limit": str(limit.limit), "per": per, "retry_after": retry_after},
        }
    )
    response.status_code = 429
    response.headers["Retry-After"] = str(retry_after)
    return response


def parse_limits(text: str, setting: str) -> str | None:
    """The limit string, checked (None when `off`); ValueError naming the setting when malformed."""
    text = text.strip()
    if text.lower() == OFF:
        return None
    try:
        parse_many(text)
    except ValueError as exc:
        raise ValueError(
            f"{setting}={text!r} is not a rate limit such as '1200/minute' or '20/second;600/minute': {exc}"
        ) from None
    return text


def init_app(app: Flask) -> Limiter | None:
    """Install the rate limits of the app's configuration (nothing when `TRICKARENA_RATE_LIMITS` is off)."""
    hops = int(app.config.get("TRICKARENA_TRUSTED_PROXIES") or 0)
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    address_limits = parse_limits(str(app.config["TRICKARENA_RATE_LIMITS"]), "TRICKARENA_RATE_LIMITS")
    if address_limits is None:
        return None
    key_limits = parse_limits(str(app.config["TRICKARENA_KEY_RATE_LIMITS"]), "TRICKARENA_KEY_RATE_LIMITS")
    repository = app_context(app).service.repository
    limits: list[Any] = [ApplicationLimit(address_limits, key_function=client_address)]
    if key_limits is not None:
        limits.append(
            ApplicationLimit(key_limits, key_function=credential, exempt_when=lambda: bearer() is None)
        )
    # The app's own Redis connections on the configured topology (core.redis_factory: the storage
    # client's pool, Sentinel's included, with its timeouts: a hung Redis is a 503 within
    # TRICKARENA_REDIS_TIMEOUT_S, not a wait); keys under the app's prefix. (Typed `str | int` by
    # Flask-Limiter; limits' Redis storage takes the pool as documented.)
    storage_uri, storage_options = "redis://", dict[str, Any]()
    if is_client(repository.client):  # not the offline spec generator's stand-in
        storage_uri, storage_options = limits_storage(repository.client, str(app.config["REDIS_URL"]))
    options: Any = {"key_prefix": f"{repository.prefix}ratelimit", **storage_options}
    limiter = Limiter(
        client_address,
        app=app,
        application_limits=limits,
        storage_uri=storage_uri,
        storage_options=options,
        strategy="sliding-window-counter",
        headers_enabled=False,  # a header on every answer would cost a Redis read per request
        on_breach=rate_limited,
        swallow_errors=False,
    )
    limiter.request_filter(lambda: request.endpoint in EXEMPT_ENDPOINTS)
    return limiter
