"""The bot SDK: turn a function ``(view, legal_moves) -> move`` into a signed bot HTTP service.

    from bots.sdk import serve

    def choose(view, legal_moves):
        return legal_moves[0]

    serve(choose, name="first-move", games=["tricky-teams"])   # http://127.0.0.1:8001

`serve()` listens on `DEFAULT_PORT` (8001) unless told otherwise (`port=`): never the platform's
own 8000. It checks `choose` before it listens (`check_choose`): a function it could not call as
`choose(view, legal_moves)` stops it at once with one clear line, not a 500 on the first move.

The signing secret comes from the environment (`$TRICKARENA_BOT_SECRET`) or a file
(`$TRICKARENA_BOT_SECRET_FILE`), never from the command line, where `ps` shows it (`load_secret`).
`GET /` is public (the platform calls it before it has issued the secret); every `POST` must carry
a valid, fresh signature (see `bots.protocol.verify`) or is answered 401.

The server is the standard library's, used as documented: `http.server.ThreadingHTTPServer` (a
thread per connection) with a `BaseHTTPRequestHandler` whose `protocol_version` is "HTTP/1.1".
That gives keep-alive (HTTP/1.1 by default, HTTP/1.0 with `Connection: keep-alive`), the request
line and header parsing with their limits, `Expect: 100-continue` (`handle_expect_100`) and the
idle `timeout`; answers go out with `send_response` / `send_header` / `end_headers` and `wfile`.
`wbufsize` (socketserver's buffer size for `wfile`) makes `wfile` buffered, so the status line,
headers and body leave in one send when the stdlib flushes after each request. Why this server:

- the harness reuses one connection per bot for a whole match (reconnecting per move would cost
  more than the rest of its per-decision overhead), so the server must keep connections alive;
  `wsgiref.simple_server` answers one request per connection;
- a bot call is in the hot path of every decision, and a framework's request cycle (Flask,
  werkzeug) cost more than a random bot's move: the handler calls the bot's `BotEndpoint`
  directly. What the stdlib costs on top of a hand-written server is its header parser (the
  email package, ~50 us a request), the price of not keeping an HTTP parser of our own.

`create_app` serves the same `BotEndpoint` as a Flask app, for hosting a bot under any WSGI server
instead (Flask is imported only then).
"""

from __future__ import annotations

import errno
import inspect
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import orjson
from marshmallow import Schema, ValidationError

from bots.protocol import (
    DEFAULT_TOLERANCE_S,
    FAULT_CODES,
    PROTOCOL_VERSION,
    EndRequestSchema,
    Headers,
    MoveRequestSchema,
    MoveStatus,
    SignatureError,
    StartRequestSchema,
    sign,
    verify,
)

if TYPE_CHECKING:
    from flask import Flask

__all__ = [
    "Bot",
    "BotEndpoint",
    "BotServer",
    "FunctionBot",
    "DEFAULT_PORT",
    "SecretError",
    "check_choose",
    "client_address",
    "create_app",
    "load_secret",
    "new_secret",
    "serve",
    "serve_bot",
    "sign",
    "verify",
]

# A bot's port when none is given (docs/bot-protocol.md): not the platform's API, on 8000.
DEFAULT_PORT = 8001
SECRET_ENV = "TRICKARENA_BOT_SECRET"
SECRET_FILE_ENV = "TRICKARENA_BOT_SECRET_FILE"
MAX_REQUEST_BYTES = 1024 * 1024
# A refused body up to this size is read and dropped (within DRAIN_TIMEOUT_S) before the connection
# closes, so the client reads the 413 rather than a reset; a bigger one: the connection just closes.
MAX_DRAIN_BYTES = 8 * MAX_REQUEST_BYTES
DRAIN_TIMEOUT_S = 2.0
log = logging.getLogger("trickarena.bot")

Move = dict[str, Any]
Choose = Callable[[dict[str, Any], list[Move]], Move]


class SecretError(ValueError):
    """The secret file can't be read, or holds no secret."""


def new_secret() -> str:
    """A fresh signing secret (256 random bits, URL-safe base64): what `trickarena bot secret` prints."""
    return secrets.token_urlsafe(32)


def load_secret(
    secret_file: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """The bot's signing secret: the file `secret_file`, else `$TRICKARENA_BOT_SECRET`, else the file
    named by `$TRICKARENA_BOT_SECRET_FILE`; None when none is set (the bot then refuses every POST).

    A file holds the secret alone (surrounding white space, a final newline, is dropped). Raise
    SecretError for a file that can't be read or is empty: a bot must not silently run unsigned.
    """
    env = os.environ if environ is None else environ
    if secret_file is None:
        value = env.get(SECRET_ENV)
        if value:
            return value
        secret_file = env.get(SECRET_FILE_ENV) or None
        if secret_file is None:
            return None
    try:
        with open(secret_file, encoding="utf-8") as fh:
            value = fh.read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretError(f"cannot read the secret file {os.fspath(secret_file)!r}: {exc}") from None
    if not value:
        raise SecretError(f"the secret file {os.fspath(secret_file)!r} is empty")
    return value


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


def check_choose(choose: object) -> None:
    """Raise TypeError, in plain words, unless `choose` can be called as `choose(view, legal_moves)`
    and returns its move: a callable (not async, not a generator) taking two positional arguments
    (more parameters are fine when they have defaults)."""
    if not callable(choose):
        raise TypeError(
            f"choose is not callable ({type(choose).__name__}): it must be a function "
            "choose(view, legal_moves) that returns one of legal_moves"
        )
    label = getattr(choose, "__qualname__", None) or type(choose).__name__
    if inspect.iscoroutinefunction(choose) or inspect.isasyncgenfunction(choose):
        raise TypeError(
            f"{label} is async: the SDK calls choose(view, legal_moves) and needs the move back "
            "at once; write it with `def`, not `async def`"
        )
    if inspect.isgeneratorfunction(choose):
        raise TypeError(
            f"{label} yields: choose(view, legal_moves) must return one of legal_moves, not yield it"
        )
    try:
        signature = inspect.signature(choose)
    except (TypeError, ValueError):
        return  # no signature to read (some built-ins): nothing to check
    try:
        signature.bind({}, [])
    except TypeError as exc:
        raise TypeError(
            f"{label}{signature} cannot be called as choose(view, legal_moves) ({exc}): it must "
            "take the view and the legal moves, in that order, and return one of legal_moves"
        ) from None


class FunctionBot(Bot):
    """A bot made from a plain `(view, legal_moves) -> move` function (checked: `check_choose`)."""

    def __init__(
        self,
        choose: Choose,
        name: str,
        games: Sequence[str],
        author: str = "anonymous",
        version: str = "0.1",
    ) -> None:
        check_choose(choose)
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


def _canonical_move_request(payload: Any) -> dict[str, Any] | None:
    """A JSON-decoded `payload` as MoveRequestSchema would load it, if it is in the plain form the
    platform sends; else None (the schema then decides, and words the errors).

    marshmallow walks every key of the view and of each legal move (over half of a random bot's
    CPU per move); this checks the same rules directly. Decoded JSON has only string keys, which
    is all the schema's `Dict(keys=String())` asks of the view and of each legal move.
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
        and type(payload["view"]) is dict
        and type(legal) is list
        and legal
        and all(type(move) is dict for move in legal)
    ):
        return None
    if previous is not None and not (
        type(previous) is dict
        and previous.keys() == {"status", "fault"}
        # (type checks first: a list or a dict would fail `in` on a frozenset as unhashable)
        and type(previous["status"]) is str
        and previous["status"] in _STATUSES
        and (previous["fault"] is None or (type(previous["fault"]) is str and previous["fault"] in _FAULTS))
    ):
        return None
    return {**payload, "previous": previous}


class BotEndpoint:
    """The routes of one bot: signature checks, body validation, the bot's answer, 404s and 405s.

    Shared by the SDK's own server (`BotServer`), which calls `answer` for every request, and the
    Flask app (`create_app`, for any WSGI server).
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

    def post(self, path: str, headers: Headers, body: bytes) -> tuple[int, Any]:
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

    def answer(self, method: str, path: str, headers: Headers, body: bytes) -> tuple[int, Any]:
        """(HTTP status, JSON payload) for any request: a protocol route, else a 404 or a 405."""
        if path == "/":
            if method in ("GET", "HEAD"):
                return 200, self.bot.info()
        elif path in self.routes:
            if method == "POST":
                return self.post(path, headers, body)
        else:
            return 404, _error_body(
                "not_found", "no such route (the bot protocol has /, /start, /move, /end)"
            )
        return 405, _error_body("method_not_allowed", f"{path} accepts {self.allow(path)}")

    def allow(self, path: str) -> str:
        """The methods a route accepts (the `Allow` header of a 405)."""
        return "GET, HEAD" if path == "/" else "POST"


def create_app(bot: Bot, secret: str | None = None, tolerance_s: int = DEFAULT_TOLERANCE_S) -> Flask:
    """A Flask (WSGI) app answering like `BotServer`, for hosting `bot` under any WSGI server."""
    from flask import Flask, Response, request
    from werkzeug.exceptions import InternalServerError, RequestEntityTooLarge

    app = Flask(f"bot-{bot.name}")
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    endpoint = BotEndpoint(bot, secret, tolerance_s)

    def reply(status: int, payload: Any, allow: str | None = None) -> Response:
        data = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
        response = Response(data, status=status, mimetype="application/json")
        if allow is not None:
            response.headers["Allow"] = allow
        return response

    # Every path and method goes to the endpoint, which routes (and words 404s and 405s) itself.
    methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    @app.route("/", defaults={"_rest": ""}, methods=methods, provide_automatic_options=False)
    @app.route("/<path:_rest>", methods=methods, provide_automatic_options=False)
    def handle(_rest: str) -> Response:
        status, payload = endpoint.answer(request.method, request.path, request.headers, request.get_data())
        return reply(status, payload, endpoint.allow(request.path) if status == 405 else None)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(_exc: RequestEntityTooLarge) -> Response:
        return reply(413, _error_body("body_too_large", f"request body over {MAX_REQUEST_BYTES} bytes"))

    @app.errorhandler(InternalServerError)
    def failed(_exc: InternalServerError) -> Response:
        # Flask has logged the bot's exception already.
        return reply(500, _error_body("internal_error", "the bot failed to answer"))

    return app


_local = threading.local()


def client_address() -> tuple[str, int] | None:
    """The (host, port) of the connection the current request came on (inside a bot's hook), or None."""
    return getattr(_local, "client_address", None)


class BotRequestHandler(BaseHTTPRequestHandler):
    """Answers the requests of one connection, one after the other, with `server.endpoint`.

    A request body needs a Content-Length of at most MAX_REQUEST_BYTES (every HTTP client sends
    one for a JSON body). A request the server cannot frame or will not read is answered with a
    JSON error (`{"code", "message"}`) and its connection closed, so a body left unread is never
    taken for the next request. Idle connections close after `timeout` seconds.
    """

    protocol_version = "HTTP/1.1"
    timeout = 60
    # TCP_NODELAY: an answer never waits for the client's (delayed) ACK of the previous one.
    disable_nagle_algorithm = True
    # socketserver.StreamRequestHandler's buffer size for wfile (0, unbuffered, by default): with a
    # buffer, status line, headers and body go out in one send when the stdlib flushes wfile after
    # each request; unbuffered, the headers and the body would be two sends.
    wbufsize = 64 * 1024
    server: BotHTTPServer
    _date: tuple[int, str] = (0, "")  # (unix second, its Date header value), shared by all handlers

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        """Quiet: a bot logs through `logging` if it wants to."""

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The `Date` header's value: formatted once a second rather than for every answer (~10 us)."""
        if timestamp is not None:
            return super().date_time_string(timestamp)
        second = int(time.time())
        cached = BotRequestHandler._date
        if cached[0] != second:
            cached = BotRequestHandler._date = (second, super().date_time_string(second))
        return cached[1]

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's own refusals (bad request line, headers too large, unknown method) as JSON."""
        status = HTTPStatus(code)
        self._refuse(code, status.name.lower(), message or status.phrase)

    def handle_expect_100(self) -> bool:
        """`Expect: 100-continue`: refuse a body we would refuse before it is sent, else continue."""
        if self._body_length(drain=False) is None:
            return False
        super().handle_expect_100()
        self.wfile.flush()  # the client waits for the 100 before it sends the body
        return True

    def _handle(self) -> None:
        """Answer one request, whatever its method: the endpoint routes by method and path."""
        length = self._body_length(drain=True)
        if length is None:
            return
        body = self.rfile.read(length) if length else b""
        if len(body) < length:  # the client closed in the middle of its body: no one to answer
            self.close_connection = True
            return
        path = self.path.partition("?")[0]
        endpoint = self.server.endpoint
        _local.client_address = self.client_address
        try:
            status, payload = endpoint.answer(self.command, path, self.headers, body)
        except Exception:
            # As a WSGI framework does: a bug in the bot is its 500, not a dropped connection.
            log.exception("bot %s failed on %s %s", endpoint.bot.name, self.command, path)
            status, payload = 500, _error_body("internal_error", "the bot failed to answer")
        self._send_json(status, payload, endpoint.allow(path) if status == 405 else None)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _handle

    def _body_length(self, drain: bool) -> int | None:
        """The request body's Content-Length; None once the request is refused (and answered)."""
        headers = self.headers
        if headers.defects:
            # The stdlib's parser ends the header section at a line that is not a header: what
            # follows it (a Content-Length, say) would go unseen.
            self._refuse(400, "bad_request", "malformed header line")
            return None
        names = [name.lower() for name in headers.keys()]
        if "transfer-encoding" in names:
            self._refuse(411, "length_required", "a request body needs a Content-Length")
            return None
        if names.count("content-length") > 1 or names.count("host") > 1:
            # A repeated framing header is how requests get smuggled past proxies: refuse it.
            self._refuse(400, "bad_request", "repeated Content-Length or Host header")
            return None
        declared = (headers.get("Content-Length") or "0").strip()
        if not (declared.isascii() and declared.isdigit()):
            self._refuse(411, "length_required", "Content-Length must be a number of bytes")
            return None
        length = int(declared) if len(declared) <= 15 else MAX_DRAIN_BYTES + 1
        if length > MAX_REQUEST_BYTES:
            self._refuse(413, "body_too_large", f"request body over {MAX_REQUEST_BYTES} bytes")
            if drain:
                self._discard(length)
            return None
        return length

    def _discard(self, length: int) -> None:
        """Read and drop a refused body (bounded in size and time): the client then reads the
        answer instead of a reset, which closing on unread data would send it."""
        if length > MAX_DRAIN_BYTES:
            return
        self.wfile.flush()
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        try:
            while length > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self.request.settimeout(remaining)
                chunk = self.rfile.read1(min(length, 64 * 1024))
                if not chunk:
                    return
                length -= len(chunk)
        except OSError:  # a timeout or a reset: the connection closes anyway
            return

    def _refuse(self, status: int, code: str, message: str) -> None:
        self.close_connection = True
        self._send_json(status, _error_body(code, message))

    def _send_json(self, status: int, payload: Any, allow: str | None = None) -> None:
        data = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if allow is not None:
            self.send_header("Allow", allow)
        if self.close_connection:
            self.send_header("Connection", "close")
        elif self.request_version == "HTTP/1.0":
            self.send_header("Connection", "keep-alive")  # an HTTP/1.0 client keeps it only if told
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


class BotHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server (a daemon thread per connection) for one bot's endpoint."""

    def __init__(self, address: tuple[str, int], endpoint: BotEndpoint) -> None:
        self.endpoint = endpoint
        super().__init__(address, BotRequestHandler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up is routine (the harness drops a connection at a move's deadline);
        any other failure outside the bot's hooks is logged (the stdlib prints it to stderr)."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        log.exception("bot %s: connection from %s failed", self.endpoint.bot.name, client_address)


class BotHTTPServer6(BotHTTPServer):
    """The same on an IPv6 address."""

    address_family = socket.AF_INET6


class BotServer:
    """A bot served on a background thread (threaded, keep-alive HTTP/1.1); `port=0` picks a free port."""

    def __init__(
        self,
        bot: Bot,
        secret: str | None,
        host: str = "127.0.0.1",
        port: int = 0,
        tolerance_s: int = DEFAULT_TOLERANCE_S,
    ) -> None:
        server_class = BotHTTPServer6 if ":" in host else BotHTTPServer
        self.server = server_class((host, port), BotEndpoint(bot, secret, tolerance_s))
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
    port: int = DEFAULT_PORT,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
) -> None:
    """Serve `bot` in the foreground until interrupted; without `secret`, `load_secret()`'s (the
    environment's). A port already taken exits with one line saying so (SystemExit)."""
    secret = secret if secret is not None else load_secret()
    try:
        server = BotServer(bot, secret, host, port, tolerance_s)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise SystemExit(
            f"bot {bot.name}: port {port} on {host} is already in use (another bot, or one still "
            "running from before?): stop it, or choose another port: serve(..., port=N), "
            "`python -m bots.serve NAME --port N`, PORT=N for the starters (0: any free port)"
        ) from None
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
    port: int = DEFAULT_PORT,
    author: str = "anonymous",
    version: str = "0.1",
) -> None:
    """Serve a `(view, legal_moves) -> move` function as a bot until interrupted, on `port`
    (`DEFAULT_PORT`, 8001, unless given). Before it listens it checks `choose` (`check_choose`) and
    the port: either wrong exits with one clear line (SystemExit), not a traceback."""
    try:
        bot = FunctionBot(choose, name, games, author, version)
    except TypeError as exc:
        raise SystemExit(f"serve(): {exc}") from None
    serve_bot(bot, secret, host, port)
