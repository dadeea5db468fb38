"""The bot SDK: turn a function ``(view, legal_moves) -> move`` into a signed bot HTTP service.

    from bots.sdk import serve

    def choose(view, legal_moves):
        return legal_moves[0]

    serve(choose, name="first-move", games=["tricky-teams"], secret="...", port=8001)

`GET /` is public (the platform calls it before it has issued the secret); every `POST` must carry
a valid, fresh signature (see `bots.protocol.verify`) or is answered 401.
"""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import orjson
from flask import Flask, Response, request
from marshmallow import Schema, ValidationError

from bots.protocol import (
    DEFAULT_TOLERANCE_S,
    FAULT_CODES,
    PROTOCOL_VERSION,
    EndRequestSchema,
    MoveRequestSchema,
    MoveStatus,
    SignatureError,
    StartRequestSchema,
    sign,
    verify,
)

__all__ = [
    "Bot",
    "BotEndpoint",
    "BotServer",
    "FunctionBot",
    "client_address",
    "create_app",
    "serve",
    "sign",
    "verify",
]

SECRET_ENV = "TRICKARENA_BOT_SECRET"
MAX_REQUEST_BYTES = 1024 * 1024
log = logging.getLogger("trickarena.bot")

Move = dict[str, Any]
Choose = Callable[[dict[str, Any], list[Move]], Move]


class Bot:
    """Base class of a bot: override `move` (and `start`/`end` if the bot keeps per-match memory)."""

    name = "bot"
    author = "anonymous"
    version = "0.1"
    games: Sequence[str] = ()

    def info(self) -> dict[str, Any]:
        """The `GET /` answer."""
        return {
            "name": self.name,
            "author": self.author,
            "version": self.version,
            "games": list(self.games),
            "protocol": PROTOCOL_VERSION,
        }

    def start(self, message: dict[str, Any]) -> None:
        """A match begins (`POST /start`); default: nothing to prepare."""

    def move(self, message: dict[str, Any]) -> Move:
        """Choose one of `message["legal_moves"]` for `message["view"]`."""
        raise NotImplementedError

    def end(self, message: dict[str, Any]) -> None:
        """A match ended (`POST /end`); default: nothing to clean up."""


class FunctionBot(Bot):
    """A bot made from a plain `(view, legal_moves) -> move` function."""

    def __init__(
        self,
        choose: Choose,
        name: str,
        games: Sequence[str],
        author: str = "anonymous",
        version: str = "0.1",
    ) -> None:
        self._choose = choose
        self.name = name
        self.games = tuple(games)
        self.author = author
        self.version = version

    def move(self, message: dict[str, Any]) -> Move:
        """Delegate to the wrapped function."""
        return self._choose(message["view"], message["legal_moves"])


def _error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, **extra}


_MOVE_FIELDS = frozenset(
    {"match_id", "game", "seat", "view", "legal_moves", "deadline_ms", "time_bank_ms", "previous"}
)
_MOVE_REQUIRED = _MOVE_FIELDS - {"previous"}
_STATUSES = frozenset(status.value for status in MoveStatus)
_FAULTS = frozenset(FAULT_CODES)


def _is_int(value: Any, low: int, high: int | None = None) -> bool:
    return type(value) is int and value >= low and (high is None or value <= high)


def _is_str_keyed(value: Any) -> bool:
    return type(value) is dict and all(type(key) is str for key in value)


def _canonical_move_request(payload: Any) -> dict[str, Any] | None:
    """`payload` as MoveRequestSchema would load it, if it is in the plain form the platform sends; else None.

    marshmallow walks every key of the view and of each legal move (over half of a random
    bot's CPU per move); this checks the same rules directly. Anything it does not accept goes
    through the schema, which then decides (and words the errors).
    """
    if type(payload) is not dict or not _MOVE_REQUIRED <= payload.keys() <= _MOVE_FIELDS:
        return None
    match_id, game, legal, previous = (
        payload["match_id"],
        payload["game"],
        payload["legal_moves"],
        payload.get("previous"),
    )
    if not (
        type(match_id) is str
        and 1 <= len(match_id) <= 128
        and type(game) is str
        and 1 <= len(game) <= 64
        and _is_int(payload["seat"], 0, 15)
        and _is_int(payload["deadline_ms"], 1)
        and _is_int(payload["time_bank_ms"], 0)
        and _is_str_keyed(payload["view"])
        and type(legal) is list
        and legal
        and all(_is_str_keyed(move) for move in legal)
    ):
        return None
    if previous is not None and not (
        type(previous) is dict
        and previous.keys() == {"status", "fault"}
        and previous["status"] in _STATUSES
        and (previous["fault"] is None or previous["fault"] in _FAULTS)
    ):
        return None
    return {**payload, "previous": previous}


class BotEndpoint:
    """The protocol routes of one bot: signature checks, body validation, the bot's answer.

    Shared by the Flask app (`create_app`, for any WSGI server) and the SDK's own keep-alive
    server, which calls it directly: Flask's request dispatch costs more than a random bot's move.
    """

    def __init__(self, bot: Bot, secret: str | None = None, tolerance_s: int = DEFAULT_TOLERANCE_S) -> None:
        self.bot = bot
        self.secret = secret
        self.tolerance_s = tolerance_s
        # /start and /end answers are ignored by the platform; a bare acknowledgement is enough.
        self.routes: dict[str, tuple[Schema, Callable[[dict[str, Any]], Any]]] = {
            "/start": (StartRequestSchema(), self._acknowledge(bot.start)),
            "/move": (MoveRequestSchema(), lambda message: {"move": bot.move(message)}),
            "/end": (EndRequestSchema(), self._acknowledge(bot.end)),
        }

    @staticmethod
    def _acknowledge(hook: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], Any]:
        def answer(message: dict[str, Any]) -> Any:
            hook(message)
            return {"ok": True}

        return answer

    def post(self, path: str, headers: Mapping[str, str], body: bytes) -> tuple[int, Any]:
        """Answer a `POST` to one of `routes`: (HTTP status, JSON payload)."""
        schema, answer = self.routes[path]
        if self.secret is None:
            return 401, _error_body("no_secret", "this bot has no signing secret configured yet")
        try:
            verify(self.secret, body, headers, tolerance_s=self.tolerance_s)
        except SignatureError as exc:
            return 401, _error_body(exc.code, exc.message)
        try:
            payload = orjson.loads(body)  # a ValueError when not JSON, as json.loads; ~3x faster
            message = _canonical_move_request(payload) if path == "/move" else None
            if message is None:
                message = schema.load(payload)
        except (ValueError, ValidationError) as exc:
            detail = exc.messages if isinstance(exc, ValidationError) else str(exc)
            return 400, _error_body(
                "malformed_request", "request body does not match the protocol", errors=detail
            )
        return 200, answer(message)

    def answer(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, Any] | None:
        """(status, payload) for a protocol route; None for anything else (the WSGI app answers it)."""
        if method == "GET" and path == "/":
            return 200, self.bot.info()
        if method == "POST" and path in self.routes:
            return self.post(path, headers, body)
        return None


def _reply(status: int, payload: Any) -> Response:
    return Response(json.dumps(payload, separators=(",", ":")), status=status, mimetype="application/json")


def create_app(bot: Bot, secret: str | None = None, tolerance_s: int = DEFAULT_TOLERANCE_S) -> Flask:
    """The WSGI app serving `bot` with signature checks on every POST."""
    app = Flask(f"bot-{bot.name}")
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    endpoint = BotEndpoint(bot, secret, tolerance_s)

    @app.get("/")
    def info() -> Response:
        return _reply(200, bot.info())

    def route(path: str) -> None:
        def handler() -> Response:
            return _reply(*endpoint.post(path, dict(request.headers), request.get_data(cache=True)))

        app.add_url_rule(path, endpoint=path.strip("/"), view_func=handler, methods=["POST"])

    for path in endpoint.routes:
        route(path)
    return app


class _Headers(dict[str, str]):
    """Request headers keyed by lower-case name (HTTP header names are case-insensitive)."""

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        """The header `name` in any spelling, or `default`."""
        return super().get(name.lower(), default)


_local = threading.local()


def client_address() -> tuple[str, int] | None:
    """The (host, port) of the connection the current request came on (inside a bot's hook), or None."""
    return getattr(_local, "client_address", None)


class KeepAliveHandler(BaseHTTPRequestHandler):
    """Serves a bot over HTTP/1.1 with keep-alive (werkzeug's server closes every connection).

    The harness reuses one connection per bot for a whole match; reconnecting per move would
    cost more than the rest of its per-decision overhead. Protocol routes go straight to the
    bot's `BotEndpoint`; anything else (404s, 405s) to the WSGI app. Request bodies must carry
    a Content-Length (every HTTP client sends one for a JSON body); idle connections close after
    `timeout` seconds.
    """

    protocol_version = "HTTP/1.1"
    timeout = 60
    # Each answer goes out in one write; with Nagle on, a second write (the body after the
    # headers) would wait for the client's delayed ACK (~40 ms per request).
    disable_nagle_algorithm = True
    server: KeepAliveServer
    MAX_HEADERS = 100

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        """Quiet: a bot logs through `logging` if it wants to."""

    def parse_request(self) -> bool:
        """Parse the request line and headers (plain lines: the stdlib's email parser costs ~0.2 ms)."""
        self.command = None  # type: ignore[assignment]
        self.request_version = self.default_request_version
        self.close_connection = True
        self.requestline = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        words = self.requestline.split()
        if len(words) != 3 or words[2] not in ("HTTP/1.0", "HTTP/1.1"):
            self.send_error(400, "Bad request line")
            return False
        self.command, self.path, self.request_version = words
        headers = _Headers()
        while True:
            line = self.rfile.readline(65537)
            if len(line) > 65536 or len(headers) >= self.MAX_HEADERS:
                self.send_error(431, "Request header fields too large")
                return False
            if line in (b"\r\n", b"\n", b""):
                break
            name, colon, value = line.decode("iso-8859-1").partition(":")
            key = name.lower()
            # A repeated framing header is how requests get smuggled past proxies: refuse it.
            if (
                not colon
                or not name
                or name != name.strip()
                or (key in headers and key in ("content-length", "transfer-encoding", "host"))
            ):
                self.send_error(400, "Bad header line")
                return False
            headers[key] = value.strip() if key not in headers else f"{headers[key]}, {value.strip()}"
        self.headers = headers  # type: ignore[assignment]
        connection = headers.get("Connection", "").lower()
        if self.request_version == "HTTP/1.1":
            self.close_connection = connection == "close"
        else:
            self.close_connection = connection != "keep-alive"
        if headers.get("Expect", "").lower() == "100-continue":
            return self.handle_expect_100()
        return True

    def handle_one_request_body(self) -> None:
        """Answer one request: the bot's endpoint for protocol routes, the WSGI app otherwise."""
        length_header = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding") or (
            length_header is not None and not length_header.isdigit()
        ):
            self._plain(411, b"a request body needs a Content-Length")
            return
        length = int(length_header or 0)
        if length > MAX_REQUEST_BYTES:
            self._plain(413, b"request body too large")
            return
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        _local.client_address = self.client_address
        endpoint = self.server.endpoint
        try:
            answer = (
                None if endpoint is None or query else endpoint.answer(self.command, path, self.headers, body)
            )
        except Exception:
            # As Flask does: a bug in the bot is its 500, not a dropped connection.
            log.exception(
                "bot %s failed on %s %s", endpoint.bot.name if endpoint else "?", self.command, path
            )
            answer = 500, _error_body("internal_error", "the bot failed to answer")
        if answer is not None:
            status, payload = answer
            data = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
            self._send(status, [("Content-Type", "application/json")], data)
        else:
            self._wsgi(path, query, body)

    def _wsgi(self, path: str, query: str, body: bytes) -> None:
        environ: dict[str, Any] = {
            "REQUEST_METHOD": self.command,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote(path),
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "SERVER_NAME": self.server.server_address[0],
            "SERVER_PORT": str(self.server.server_address[1]),
            "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0],
            "REMOTE_PORT": str(self.client_address[1]),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in self.headers.items():
            key = name.upper().replace("-", "_")
            if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                environ[f"HTTP_{key}"] = value
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            started[:] = [status, headers]
            return lambda data: None  # the legacy write() callable; Flask never uses it

        result = self.server.app(environ, start_response)
        try:
            payload = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        status, headers = started
        self._send(int(status.partition(" ")[0]), headers, payload)

    def _send(self, code: int, headers: list[tuple[str, str]], payload: bytes) -> None:
        self.send_response(code)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        if self.close_connection:
            self.send_header("Connection", "close")
        # Headers and body in one write (one segment, one wake-up of the client).
        self._headers_buffer.append(b"\r\n")
        if self.command != "HEAD":
            self._headers_buffer.append(payload)
        self.flush_headers()

    def _plain(self, code: int, text: bytes) -> None:
        self.close_connection = True
        self._send(code, [("Content-Type", "text/plain")], text)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_one_request_body  # noqa: N815


class KeepAliveServer(ThreadingHTTPServer):
    """A threaded HTTP server for one WSGI app (a thread per connection)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: Any, endpoint: BotEndpoint | None = None) -> None:
        self.app = app
        self.endpoint = endpoint
        super().__init__(address, KeepAliveHandler)


class KeepAliveServer6(KeepAliveServer):
    """The same on an IPv6 address."""

    address_family = socket.AF_INET6


class BotServer:
    """A bot served on a background thread (threaded, keep-alive HTTP); `port=0` picks a free port."""

    def __init__(
        self,
        bot: Bot,
        secret: str | None,
        host: str = "127.0.0.1",
        port: int = 0,
        tolerance_s: int = DEFAULT_TOLERANCE_S,
    ) -> None:
        server_class = KeepAliveServer6 if ":" in host else KeepAliveServer
        app = create_app(bot, secret, tolerance_s)
        self.server = server_class((host, port), app, BotEndpoint(bot, secret, tolerance_s))
        self.host = host
        self.port = int(self.server.server_address[1])
        self._thread = threading.Thread(target=self.server.serve_forever, name=f"bot-{bot.name}", daemon=True)

    @property
    def url(self) -> str:
        """The bot's base URL."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> BotServer:
        """Start serving in the background."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_bot(
    bot: Bot,
    secret: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
) -> None:
    """Serve `bot` in the foreground until interrupted (secret defaults to $TRICKARENA_BOT_SECRET)."""
    secret = secret if secret is not None else os.environ.get(SECRET_ENV)
    server = BotServer(bot, secret, host, port, tolerance_s)
    log.warning(
        "bot %s serving on %s (signature check %s)", bot.name, server.url, "on" if secret else "pending"
    )
    try:
        server.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server.server_close()


def serve(
    choose: Choose,
    name: str,
    games: Sequence[str],
    secret: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    author: str = "anonymous",
    version: str = "0.1",
) -> None:
    """Serve a `(view, legal_moves) -> move` function as a bot until interrupted."""
    serve_bot(FunctionBot(choose, name, games, author, version), secret, host, port)
