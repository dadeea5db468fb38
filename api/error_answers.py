"""How every exception raised while serving a request becomes a JSON error answer.

The app's one error handler (`error_response`, registered for every exception by `create_app`)
serves every route, postMove included: service errors as they say, Redis outages 503, HTTP errors
(routing, size, validation) as their status with the standard body, anything else a logged 500.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Response, jsonify
from werkzeug.exceptions import HTTPException

from core.errors import ServiceError

log = logging.getLogger("trickarena.api")


def _code_name(error: HTTPException) -> str:
    return (error.name or "error").lower().replace(" ", "_").replace("'", "")


def http_error_response(error: HTTPException) -> Response:
    """The JSON error response for a werkzeug/webargs HTTP exception, keeping its headers (e.g. Allow)."""
    ready = getattr(error, "response", None)
    if isinstance(ready, Response):
        return ready  # built with the error body already (a rate limit's 429: api.limits.rate_limited)
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
    """Status, JSON body and extra headers of a service error's response."""
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

    The one place that maps exceptions (other than HTTP errors) to answers: service errors as
    they say, Redis outages 503, anything else a logged 500.
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


def error_response(error: Exception) -> Response:
    """The app's error handler: the JSON answer of any exception raised while serving a request."""
    if isinstance(error, HTTPException):
        return http_error_response(error)
    return _json_response(error_parts(error))
