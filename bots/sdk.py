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
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from flask import Flask, Response, request
from marshmallow import Schema, ValidationError

from bots.protocol import (
    DEFAULT_TOLERANCE_S,
    PROTOCOL_VERSION,
    EndRequestSchema,
    MoveRequestSchema,
    SignatureError,
    StartRequestSchema,
    sign,
    verify,
)

__all__ = ["Bot", "FunctionBot", "BotServer", "create_app", "serve", "sign", "verify"]

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


def _error(status: int, code: str, message: str, **extra: Any) -> Response:
    body = {"code": code, "message": message, **extra}
    return Response(json.dumps(body), status=status, mimetype="application/json")


def _json(payload: Any) -> Response:
    return Response(json.dumps(payload, separators=(",", ":")), status=200, mimetype="application/json")


def create_app(bot: Bot, secret: str | None = None, tolerance_s: int = DEFAULT_TOLERANCE_S) -> Flask:
    """The WSGI app serving `bot` with signature checks on every POST."""
    app = Flask(f"bot-{bot.name}")
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES

    def checked(schema: Schema) -> dict[str, Any] | Response:
        body = request.get_data(cache=True)
        if secret is None:
            return _error(401, "no_secret", "this bot has no signing secret configured yet")
        try:
            verify(secret, body, dict(request.headers), tolerance_s=tolerance_s)
        except SignatureError as exc:
            return _error(401, exc.code, exc.message)
        try:
            payload = json.loads(body)
            loaded: dict[str, Any] = schema.load(payload)
        except (ValueError, ValidationError) as exc:
            detail = exc.messages if isinstance(exc, ValidationError) else str(exc)
            return _error(400, "malformed_request", "request body does not match the protocol", errors=detail)
        return loaded

    @app.get("/")
    def info() -> Response:
        return _json(bot.info())

    def route(path: str, schema: Schema, answer: Callable[[dict[str, Any]], Any]) -> None:
        def handler() -> Response:
            message = checked(schema)
            return message if isinstance(message, Response) else _json(answer(message))

        app.add_url_rule(path, endpoint=path.strip("/"), view_func=handler, methods=["POST"])

    def acknowledge(hook: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], Any]:
        def answer(message: dict[str, Any]) -> Any:
            hook(message)
            return {"ok": True}

        return answer

    # /start and /end answers are ignored by the platform; a bare acknowledgement is enough.
    route("/start", StartRequestSchema(), acknowledge(bot.start))
    route("/move", MoveRequestSchema(), lambda message: {"move": bot.move(message)})
    route("/end", EndRequestSchema(), acknowledge(bot.end))

    return app


class KeepAliveHandler(BaseHTTPRequestHandler):
    """Serves a WSGI app over HTTP/1.1 with keep-alive (werkzeug's server closes every connection).

    The harness reuses one connection per bot for a whole match; reconnecting per move would
    cost more than the rest of its per-decision overhead. Request bodies must carry a
    Content-Length (every HTTP client sends one for a JSON body); idle connections close after
    `timeout` seconds.
    """

    protocol_version = "HTTP/1.1"
    timeout = 60
    # Headers and body go out as two writes; with Nagle on, the body waits for the client's
    # delayed ACK (~40 ms per request on keep-alive connections).
    disable_nagle_algorithm = True
    server: KeepAliveServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        """Quiet: a bot logs through `logging` if it wants to."""

    def handle_one_request_body(self) -> None:
        """Answer one request through the WSGI app."""
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
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _plain(self, code: int, text: bytes) -> None:
        self.close_connection = True
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(text)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_one_request_body  # noqa: N815


class KeepAliveServer(ThreadingHTTPServer):
    """A threaded HTTP server for one WSGI app (a thread per connection)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: Any) -> None:
        self.app = app
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
        self.server = server_class((host, port), create_app(bot, secret, tolerance_s))
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
