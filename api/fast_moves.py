"""The postMove fast path: a WSGI layer that serves moves without Flask's request cycle.

postMove is the one request bots and the harness make hundreds of times per game.  Flask,
werkzeug's request/response objects and flask-smorest's wrappers cost about as much CPU per move
as the move itself (reading the game, the rules, the compare-and-set write; see
docs/performance.md), so this layer answers a `POST /games/<id>/moves` with a Content-Length
directly: the same `make_move` as the Flask view, the same error bodies, the same request id,
metrics and access log (`RequestRecorder`).  Everything else, including a move without a
Content-Length or with a body over the limit, goes on to Flask untouched, and the Flask view
stays the documented operation (openapi.yaml is generated from it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES

from api.context import app_context
from api.error_answers import error_parts
from api.games_api import make_move, version_headers
from api.schemas import GAME_ID_PATTERN

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

MOVES_PATH = re.compile(r"/games/(" + GAME_ID_PATTERN.strip("^$") + r")/moves")
MOVE_ENDPOINT = "games.post_move"
# The status lines werkzeug would write ("409 CONFLICT"), for the statuses a move can answer with.
_STATUS_LINES = {
    code: f"{code} {HTTP_STATUS_CODES[code].upper()}"
    for code in (200, 401, 403, 404, 409, 412, 413, 422, 500, 503)
}


class MoveFastPath:
    """WSGI middleware in front of the Flask app that answers postMove requests itself."""

    def __init__(self, app: Flask, wsgi_app: WsgiApp) -> None:
        self.next = wsgi_app
        self.service = app_context(app).service
        self.recorder = app_context(app).requests
        self.max_body: int | None = app.config.get("MAX_CONTENT_LENGTH")
        # The metric and log label Flask would give the route, read off the route itself.
        self.endpoint = next(rule.rule for rule in app.url_map.iter_rules() if rule.endpoint == MOVE_ENDPOINT)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Serve a postMove with a Content-Length here; hand every other request to Flask."""
        if environ.get("REQUEST_METHOD") != "POST":
            return self.next(environ, start_response)
        path: str = environ.get("PATH_INFO", "")
        match = MOVES_PATH.fullmatch(path)
        length = environ.get("CONTENT_LENGTH", "")
        if (
            match is None
            or not length.isdigit()
            or (self.max_body is not None and int(length) > self.max_body)
        ):
            return self.next(environ, start_response)
        return self.serve(environ, start_response, match.group(1), path, int(length))

    def serve(
        self,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        game_id: str,
        path: str,
        length: int,
    ) -> Iterable[bytes]:
        """Apply the move and answer with the seat's view, or with the error Flask would have given."""
        recorder = self.recorder
        if recorder is not None:
            recorder.start(environ)
        try:
            raw: bytes = environ["wsgi.input"].read(length) if length else b""
            try:
                view, version = make_move(
                    self.service,
                    game_id,
                    environ.get("HTTP_AUTHORIZATION"),
                    raw,
                    environ.get("HTTP_IF_MATCH"),
                )
                status, body, headers = (
                    200,
                    orjson.dumps(view, option=orjson.OPT_NON_STR_KEYS),
                    version_headers(version),
                )
            except Exception as exc:  # noqa: BLE001 (every error becomes its JSON answer, as in Flask)
                status, doc, headers = error_parts(exc)
                body = orjson.dumps(doc)
            headers["Content-Type"] = "application/json"
            headers["Content-Length"] = str(len(body))
            if recorder is not None:
                headers["X-Request-ID"] = recorder.finish(
                    environ, "POST", path, self.endpoint, status, game_id=game_id, move=True
                )
        finally:
            if recorder is not None:
                recorder.reset(environ)
        start_response(_STATUS_LINES.get(status) or f"{status} ERROR", list(headers.items()))
        return [body]


def install(app: Flask) -> None:
    """Put the fast path in front of `app` (unless TRICKARENA_FAST_MOVES is off)."""
    if app.config.get("TRICKARENA_FAST_MOVES", True):
        app.wsgi_app = MoveFastPath(app, app.wsgi_app)  # type: ignore[method-assign]
