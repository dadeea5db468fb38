"""The Flask app factory: configuration, error handling, the OpenAPI machinery and blueprints.

Other parts of the platform add endpoints by writing a module named in `EXTRA_BLUEPRINT_MODULES`
that exposes either ``blp`` (a `flask_smorest.Blueprint`) or ``register(api, app)``; a module
that does not exist yet is skipped, one that fails to import is an error.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from flask import Flask, Response, jsonify
from flask_smorest import Api
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter

from api.errors import ServiceError
from api.repository import GameRepository
from api.schemas import GAME_ID_PATTERN, ErrorSchema, register_components
from api.service import GameService

log = logging.getLogger("trickarena.api")

EXTRA_BLUEPRINT_MODULES: tuple[str, ...] = ("api.bots_api", "api.tournaments_api", "api.ops", "api.web")
STATIC_DIR = Path(__file__).resolve().parent / "static"
API_VERSION = "1.0.0"

DEFAULTS: dict[str, Any] = {
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "TRICKARENA_KEY_PREFIX": "ta:",
    "TRICKARENA_FINISHED_TTL": None,  # seconds a finished game is kept; None: forever
    "MAX_CONTENT_LENGTH": 64 * 1024,  # request bodies above this get 413
    "TRICKARENA_SSE_MAX_SECONDS": 60,  # an event stream never holds a worker longer than this
    "TRICKARENA_FAST_MOVES": True,  # serve postMove through api.fast_moves (False: through Flask)
    # A move without If-Match equal to the seat's own latest move within this many ms: 409 duplicate_move.
    "TRICKARENA_DUPLICATE_WINDOW_MS": 2000,
}


class GameIdConverter(BaseConverter):
    """Path converter accepting only well-formed game ids (anything else is a 404)."""

    regex = GAME_ID_PATTERN.strip("^$")


class TrickArenaApi(Api):
    """flask-smorest's Api with the platform's error body (`code`, `message`, `details`)."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error: HTTPException) -> Any:
        """Render every HTTP error (routing, size, webargs validation) as the standard error JSON."""
        return http_error_response(error)


def _code_name(error: HTTPException) -> str:
    return (error.name or "error").lower().replace(" ", "_").replace("'", "")


def http_error_response(error: HTTPException) -> Response:
    """The JSON error response for a werkzeug/webargs HTTP exception, keeping its headers (e.g. Allow)."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    body: dict[str, Any] = {"code": _code_name(error), "message": error.description or error.name}
    messages = data.get("messages")
    if messages is not None:
        # webargs: invalid JSON arrives as a 400, field errors as a 422; both are 422 here.
        status = 422
        flat = (
            {loc: errs for loc, errs in messages.items()} if isinstance(messages, dict) else {"_": messages}
        )
        json_errors = flat.get("json")
        if isinstance(json_errors, list) and any("Invalid JSON" in str(m) for m in json_errors):
            body = {"code": "invalid_json", "message": "the request body is not valid JSON"}
        else:
            body = {"code": "validation_error", "message": "the request has invalid fields", "details": flat}
    elif status == 413:
        body = {"code": "body_too_large", "message": "the request body is larger than the server accepts"}
    response = jsonify(body)
    response.status_code = status
    if status != 422:
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
    for name, value in (data.get("headers") or {}).items():
        response.headers[name] = value
    return response


ErrorParts = tuple[int, dict[str, Any], dict[str, str]]


def service_error_parts(error: ServiceError) -> ErrorParts:
    """Status, JSON body and extra headers of a service error's response (Flask or the fast path)."""
    headers = {"WWW-Authenticate": 'Bearer realm="trick-arena"'} if error.status == 401 else {}
    return error.status, error.to_dict(), headers


def storage_unavailable_parts(error: Exception) -> ErrorParts:
    """The 503 answered while Redis is unreachable (the client should retry)."""
    log.warning("redis unavailable: %r", error)
    body = {"code": "storage_unavailable", "message": "the game store is unreachable; retry"}
    return 503, body, {"Retry-After": "1"}


def unexpected_error_parts(error: Exception) -> ErrorParts:
    """The 500 of a bug: logged with its traceback, answered without details."""
    log.exception("unhandled error", exc_info=error)
    return 500, {"code": "internal_error", "message": "an unexpected error occurred; it has been logged"}, {}


def error_parts(error: Exception) -> ErrorParts:
    """Status, JSON body and extra headers answering an exception raised while serving a request.

    The one place that maps exceptions to answers, for Flask's error handler and the postMove
    fast path alike: service errors as they say, Redis outages 503, anything else a logged 500.
    """
    if isinstance(error, ServiceError):
        return service_error_parts(error)
    if isinstance(error, (redis.ConnectionError, redis.TimeoutError)):
        return storage_unavailable_parts(error)
    return unexpected_error_parts(error)


def _json_response(parts: ErrorParts) -> Response:
    status, body, headers = parts
    response = jsonify(body)
    response.status_code = status
    for name, value in headers.items():
        response.headers[name] = value
    return response


def _config_from_env() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("REDIS_URL", "TRICKARENA_KEY_PREFIX"):
        if os.environ.get(key):
            out[key] = os.environ[key]
    for key in ("TRICKARENA_FINISHED_TTL", "TRICKARENA_SSE_MAX_SECONDS", "TRICKARENA_DUPLICATE_WINDOW_MS"):
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

    if "TRICKARENA_REPOSITORY" in app.config:
        repository = app.config["TRICKARENA_REPOSITORY"]
    else:
        ttl = app.config["TRICKARENA_FINISHED_TTL"]
        repository = GameRepository.from_url(
            app.config["REDIS_URL"],
            prefix=app.config["TRICKARENA_KEY_PREFIX"],
            finished_ttl=int(ttl) if ttl else None,
        )
    app.extensions["trickarena.service"] = GameService(
        repository, duplicate_window_ms=int(app.config["TRICKARENA_DUPLICATE_WINDOW_MS"])
    )
    app.extensions["trickarena.health"] = {}

    api = TrickArenaApi(app)
    api.register_converter(GameIdConverter, lambda _converter: {"type": "string", "pattern": GAME_ID_PATTERN})
    register_components(api.spec)
    api.spec.components.security_scheme(
        "seatToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "The secret seat token createGame/joinGame returned.",
        },
    )

    from api import games_api

    api.register_blueprint(games_api.blp)
    for module_name in EXTRA_BLUEPRINT_MODULES:
        _register_optional(module_name, api, app)

    app.register_error_handler(Exception, _error_response)
    app.extensions["trickarena.api"] = api

    from api import fast_moves

    fast_moves.install(app)
    return app


def _register_optional(module_name: str, api: Api, app: Flask) -> None:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return
        raise
    if hasattr(module, "register"):
        module.register(api, app)
    else:
        api.register_blueprint(module.blp)


def _error_response(error: Exception) -> Response:
    if isinstance(error, HTTPException):
        return http_error_response(error)
    return _json_response(error_parts(error))


def register_health_check(app: Flask, name: str, check: Callable[[], dict[str, Any]]) -> None:
    """Add a section (e.g. "workers") to getHealth; `check` returns a JSON dict with an `ok` flag."""
    app.extensions["trickarena.health"][name] = check


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
