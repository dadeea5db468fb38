"""The Flask app factory: configuration, error handling, the OpenAPI machinery and blueprints.

Every endpoint module is imported here and registered in `create_app` by its
``register(api, app)`` (the games blueprint directly): the list of parts is this file's imports.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from flask import Flask, Response
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter

from api import (
    bot_records_api,
    bots_api,
    bounds,
    challenges_api,
    context,
    games_api,
    limits,
    matches_api,
    ops,
    tournaments_api,
    web,
)
from api.blueprint_util import Api
from api.error_answers import error_response, http_error_response
from api.schemas import GAME_ID_PATTERN, ErrorSchema, register_components
from core import quotas

log = logging.getLogger("trickarena.api")

STATIC_DIR = Path(__file__).resolve().parent / "static"
API_VERSION = "1.0.0"

DEFAULTS: dict[str, Any] = {
    # Redis topology (core.redis_factory): redis://, rediss://, redis+sentinel://, redis+cluster://.
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "RQ_REDIS_URL": None,  # RQ's Redis (never a cluster); None: REDIS_URL
    "TRICKARENA_KEY_PREFIX": "ta:",
    "TRICKARENA_FINISHED_TTL": None,  # seconds a finished game is kept; None: forever
    "MAX_CONTENT_LENGTH": 64 * 1024,  # request bodies above this get 413
    "TRICKARENA_SSE_MAX_SECONDS": 60,  # an event stream never lives longer than this
    "TRICKARENA_SSE_MAX_STREAMS": 1000,  # open event streams per API process (503 streams_full)
    "TRICKARENA_SSE_MAX_PER_ADDRESS": 16,  # open event streams per client address (429 too_many_streams)
    # A move without If-Match equal to the seat's own latest move within this many ms: 409 duplicate_move.
    "TRICKARENA_DUPLICATE_WINDOW_MS": 2000,
    # Rate limits (api/limits.py): per client address, per credential; "off" turns them off.
    "TRICKARENA_RATE_LIMITS": limits.DEFAULT_ADDRESS_LIMITS,
    "TRICKARENA_KEY_RATE_LIMITS": limits.DEFAULT_KEY_LIMITS,
    "TRICKARENA_TRUSTED_PROXIES": 0,  # proxies in front whose X-Forwarded-For is believed
}


class GameIdConverter(BaseConverter):
    """Path converter accepting only well-formed game ids (anything else is a 404)."""

    regex = GAME_ID_PATTERN.strip("^$")


DEFAULT_ERROR = "DefaultError"
DEFAULT_ERROR_TEXT = (
    "Any other error, as an `Error` with a machine-readable `code`. Every operation may answer "
    "422 `json_too_deep`, `number_out_of_range` or `invalid_text` (bounded input), 429 "
    "`rate_limited` (over a rate limit per client address or per credential; `Retry-After` says "
    "when to retry) and 503 "
    "`storage_unavailable` (`Retry-After: 1`). Limits: docs/operations.md."
)


class TrickArenaApi(Api):
    """flask-smorest's Api with the platform's error body (`code`, `message`, `details`)."""

    ERROR_SCHEMA = ErrorSchema
    # Every operation's `default` answer: the component registered by `create_app` (with Retry-After).
    DEFAULT_ERROR_RESPONSE_NAME = DEFAULT_ERROR

    def handle_http_exception(self, error: HTTPException) -> Response:
        """Render every HTTP error (routing, size, webargs validation) as the standard error JSON."""
        return http_error_response(error)


def _config_from_env() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (
        "REDIS_URL",
        "RQ_REDIS_URL",
        "TRICKARENA_KEY_PREFIX",
        "TRICKARENA_RATE_LIMITS",
        "TRICKARENA_KEY_RATE_LIMITS",
    ):
        if os.environ.get(key):
            out[key] = os.environ[key]
    for key in (
        "TRICKARENA_FINISHED_TTL",
        "TRICKARENA_SSE_MAX_SECONDS",
        "TRICKARENA_SSE_MAX_STREAMS",
        "TRICKARENA_SSE_MAX_PER_ADDRESS",
        "TRICKARENA_DUPLICATE_WINDOW_MS",
        "TRICKARENA_TRUSTED_PROXIES",
    ):
        if os.environ.get(key):
            out[key] = int(os.environ[key])
    for key in quotas.SETTINGS:  # caps on live bots, leagues, tournaments (core.quotas)
        if os.environ.get(key):
            out[key] = int(os.environ[key])
    if os.environ.get("TRICKARENA_MAX_BODY"):
        out["MAX_CONTENT_LENGTH"] = int(os.environ["TRICKARENA_MAX_BODY"])
    return out


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the API app: config = defaults < environment < `config`."""
    app = Flask(__name__, static_folder=str(STATIC_DIR), static_url_path="/static")
    app.config.update(DEFAULTS)
    app.config.update(_config_from_env())
    app.config.update(config or {})
    app.config.update(
        API_TITLE="Trick Arena",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/static/swagger-ui/",
        OPENAPI_REDOC_PATH="/redoc",
        OPENAPI_REDOC_URL="/static/redoc/redoc.standalone.js",
        API_SPEC_OPTIONS=spec_options(),
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.converters["game_id"] = GameIdConverter

    context.install(app, context.build_context(app.config))
    limits.init_app(app)  # rate limits first: a refused request costs no more than its count
    bounds.init_app(app)  # every body checked (depth, 64-bit numbers, unbounded options) before any view

    api = TrickArenaApi(app)
    api.register_converter(GameIdConverter, lambda _converter: {"type": "string", "pattern": GAME_ID_PATTERN})
    register_components(api.spec)
    api.spec.components.response(
        DEFAULT_ERROR,
        {
            "description": DEFAULT_ERROR_TEXT,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            "headers": {
                "Retry-After": {
                    "description": "Seconds to wait before retrying (with 429 and 503).",
                    "schema": {"type": "integer", "minimum": 1},
                }
            },
        },
    )
    api.spec.components.security_scheme(
        "seatToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "The secret seat token createGame/joinGame returned.",
        },
    )

    api.register_blueprint(games_api.blp)
    for module in (bots_api, bot_records_api, tournaments_api, matches_api, challenges_api, ops, web):
        module.register(api, app)

    app.register_error_handler(Exception, error_response)
    context.app_context(app).api = api  # the OpenAPI machinery (api.openapi_gen reads its spec)
    return app


def spec_options() -> dict[str, Any]:
    """Top-level OpenAPI fields beyond the paths (info, servers, tags)."""
    return {
        "info": {
            "description": "Trick Arena's games API: create games, join seats, read per-seat views, "
            "post moves, follow events. See docs/api.md.",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": "/"}],
        "tags": [
            {"name": "games", "description": "Games: create, join, view, move, events, replay."},
            {"name": "meta", "description": "Server status."},
        ],
    }
