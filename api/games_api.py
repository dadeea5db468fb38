"""The games blueprint: HTTP <-> schemas around `GameService` (no rules live here)."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

import orjson
from flask import Response, current_app, jsonify, request, stream_with_context

from api.blueprint_util import Blueprint, ErrorDocs, header_parameter
from api.context import app_context
from api.schemas import (
    GAME_WIRE,
    CreatedGameSchema,
    CreateGameSchema,
    EventsQuerySchema,
    JoinedGameSchema,
    JoinGameSchema,
    StreamQuerySchema,
    integral_numbers,
    ref,
)
from api.schemas.games import prefix_of
from core import errors
from core.event_hub import Batch, EventHub, Listener
from core.repository import json_bytes
from core.service import GameService
from games.registry import GAMES

F = TypeVar("F", bound=Callable[..., Any])

blp = Blueprint("games", __name__, description="Games: create, join, view, move, events, replay.")


SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}]
OPTIONAL_AUTH: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
ERROR_TEXT = {
    401: "No seat token (code `missing_token`), or an Authorization header that is not `Bearer <token>` "
    "(`invalid_authorization`).",
    403: "The token is not a seat token of this game (code `invalid_token`).",
    404: "No such game (code `game_not_found`); for a game-specific path also a game of another game "
    "(`wrong_game`).",
    409: "Conflict with the game's state: `not_your_turn`, `game_over`, `version_conflict`, "
    "`seat_moved_meanwhile`, `duplicate_move`, `game_sealed` (a tournament game before the "
    "tournament ends), "
    "`waiting_for_players`, `seat_taken`, `game_not_over`.",
    412: "If-Match names a version that is no longer current (code `stale_version`).",
    413: "The request body is too large (code `body_too_large`).",
    429: "Over a rate limit (code `rate_limited`; `Retry-After` says when to retry).",
    422: "Invalid JSON (`invalid_json`), invalid fields (`validation_error`, with field errors), "
    "or rejected by the game (`malformed_move`, `illegal_move` with the legal moves, "
    "`invalid_options`, ...).",
}
ETAG_HEADER = {
    "ETag": {
        "description": 'The game\'s version, quoted (`"7"`): send it as If-Match or If-None-Match.',
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
    }
}
GAME_HEADERS = {
    **ETAG_HEADER,
    "Vary": {
        "description": "`Authorization`: the body depends on the seat token.",
        "schema": {"type": "string"},
    },
    "Cache-Control": {
        "description": "`private, no-cache`: no shared cache may hand one seat's view to another.",
        "schema": {"type": "string"},
    },
}


def query_parameter(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    """An optional query parameter."""
    return {"in": "query", "name": name, "required": False, "schema": schema, "description": description}


SINCE = query_parameter(
    "since",
    {"type": "integer", "minimum": 0, "maximum": 2**31, "default": 0},
    "Only events of versions above this one (0: from the start).",
)
TIMEOUT = query_parameter(
    "timeout",
    {"type": "integer", "minimum": 0, "maximum": 300},
    "Close the stream after this many seconds; absent: the server's cap (TRICKARENA_SSE_MAX_SECONDS), "
    "which also caps this.",
)

documents_errors = ErrorDocs(blp, ERROR_TEXT)
# streamGameEvents's caps (api.context.with_streams; docs/operations.md, Limits).
documents_stream_errors = ErrorDocs(
    blp,
    {
        **ERROR_TEXT,
        429: "Over a rate limit (`rate_limited`), or the client address has as many event streams open "
        "as it may (`too_many_streams`); `Retry-After` says when to retry.",
        503: "This server process serves as many event streams as it may (`streams_full`), or the game "
        "store is unreachable (`storage_unavailable`); `Retry-After` says when to retry.",
    },
)


def service() -> GameService:
    """The app's GameService."""
    return app_context().service


def bearer_token() -> str | None:
    """The seat token of the request's Authorization header (see `parse_bearer`)."""
    return parse_bearer(request.headers.get("Authorization"))


def owner_bearer(refusal: str = "that is not the right key") -> str | None:
    """An owner key from `Authorization: Bearer <key>`: None without the header; 401
    `missing_token` for an empty Bearer, 401 `not_owner` (saying `refusal`) for a header that is
    not Bearer. The owner-key operations of bots, tournaments, leagues and matches read it so."""
    try:
        return bearer_token()
    except errors.MissingToken as exc:
        raise errors.MissingToken("use 'Authorization: Bearer <key>'", code=exc.code) from None
    except errors.InvalidToken:
        raise errors.InvalidToken(refusal, code="not_owner") from None


def key_before_body(func: F) -> F:
    """An operation that needs a key and reads a body asks for the key first: without an Authorization
    header it is 401 whatever the body (decorate between `blp.doc` and `blp.arguments`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if bearer_token() is None:
            raise errors.MissingToken("use 'Authorization: Bearer <key>'")
        return func(*args, **kwargs)

    return cast(F, wrapper)


def parse_bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header value, None when absent; 401 when not Bearer."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise errors.MissingToken("use 'Authorization: Bearer <seat token>'", code="invalid_authorization")
    if len(token) > 256:
        raise errors.InvalidToken("the token is not a seat token of this game")
    return token


def with_etag(body: dict[str, Any], version: int, status: int = 200) -> Response:
    """A JSON response carrying the game version as its ETag."""
    # Every header given to the constructor in one go, as a list (the Content-Type too, instead of
    # a mimetype for werkzeug to turn into one): each `headers[...] =` afterwards searches and
    # validates the list again, and a dict is walked as a multi-dict (this is on every move's path).
    return Response(
        json_bytes(body),
        status=status,
        headers=[("ETag", f'"{version}"'), *GAME_ANSWER_HEADERS],
    )


# The headers every answer showing a game carries beside its ETag, built once: no sharing between
# seats, and a JSON body.
GAME_ANSWER_HEADERS = (
    # The body depends on the seat token: shared caches must not hand one seat's view to another.
    ("Vary", "Authorization"),
    ("Cache-Control", "private, no-cache"),
    ("Content-Type", "application/json"),
)


def parse_if_match(header: str | None) -> int | None:
    """The version named by If-Match (None when absent or `*`; -1 when it names no version we issue)."""
    if header is None:
        return None
    candidates = [part.strip() for part in header.split(",") if part.strip()]
    if not candidates or "*" in candidates:
        return None
    for part in candidates:
        value = part.removeprefix("W/").strip('"')
        if value.isdigit() and len(value) < 19:
            return int(value)
    return -1


@blp.route("/game-types", methods=["GET"])
@blp.doc(operationId="listGameTypes", tags=["games"], summary="The games this server plays")
@blp.response(200, "GameTypeList")
@documents_errors(429)
def list_game_types() -> Response:
    """Every game: name, title, seat counts, options schema and defaults."""
    return jsonify({"games": service().game_types()})


def create_game_body() -> dict[str, Any]:
    """createGame's request body: one type per game (`NewGame`, discriminated by `game`)."""
    return {
        "required": True,
        "description": "The game to create: its name, seat count and its own options, seed and deal.",
        "content": {"application/json": {"schema": ref("NewGame")}},
    }


@blp.route("/games", methods=["POST"])
@blp.doc(
    operationId="createGame",
    tags=["games"],
    summary="Create a game",
    requestBody=create_game_body(),
    responses={
        201: {
            "links": {
                "GetGame": {
                    "operationId": "getGame",
                    "parameters": {"game_id": "$response.body#/game_id"},
                    "description": "The new game (send a seat token for that seat's view).",
                },
                "PostMove": {
                    "operationId": "postMove",
                    "parameters": {"game_id": "$response.body#/game_id"},
                    "description": "Post a move with a seat token of `tokens`.",
                },
                "JoinGame": {
                    "operationId": "joinGame",
                    "parameters": {"game_id": "$response.body#/game_id"},
                    "description": "Claim one of `open_seats`.",
                },
            }
        }
    },
)
@blp.arguments(CreateGameSchema)
@blp.response(
    201,
    CreatedGameSchema,
    headers={"Location": {"description": "The game's path.", "schema": {"type": "string"}}, **GAME_HEADERS},
)
@documents_errors(413, 422)
def create_game(body: dict[str, Any]) -> Response:
    """Create a game: a seat token per seat (open seats excepted), shown only now."""
    created = service().create_game(
        body["game"], body["seats"], body["options"], body["seed"], body["deal"], body["open_seats"]
    )
    response = with_etag(
        {
            "game_id": created.game_id,
            "game": created.game,
            "seats": created.seats,
            "version": created.version,
            "seed": created.seed,
            "open_seats": created.open_seats,
            "tokens": [{"seat": s, "token": t} for s, t in sorted(created.tokens.items())],
        },
        created.version,
        201,
    )
    response.headers["Location"] = f"/games/{created.game_id}"
    return response


@blp.route("/games/<game_id:game_id>/join", methods=["POST"])
@blp.doc(operationId="joinGame", tags=["games"], summary="Claim an open seat")
@blp.arguments(JoinGameSchema, required=False)
@blp.response(201, JoinedGameSchema, headers=GAME_HEADERS)
@documents_errors(404, 409, 413, 422)
def join_game(body: dict[str, Any], game_id: str) -> Response:
    """Claim `seat` (or the lowest open seat) and receive its token, shown only now."""
    seat, token, version = service().join_game(game_id, body.get("seat"))
    return with_etag({"game_id": game_id, "seat": seat, "token": token, "version": version}, version, 201)


@blp.route("/games/<game_id:game_id>", methods=["GET"])
@blp.doc(
    operationId="getGame",
    tags=["games"],
    summary="A game as one seat (or a spectator) sees it",
    security=OPTIONAL_AUTH,
    parameters=[
        header_parameter(
            "If-None-Match", 'The ETag of a copy you hold (`"7"`): 304 without a body while it is current.'
        )
    ],
)
@blp.response(200, "Game", headers=GAME_HEADERS)
@blp.alt_response(304, description="Unchanged since the version in If-None-Match.", headers=ETAG_HEADER)
@documents_errors(401, 403, 404)
def get_game(game_id: str) -> Response:
    """With a seat token: that seat's view and legal moves; without: the spectator view."""
    svc = service()
    stored = svc.load(game_id, with_actions=False)
    token = bearer_token()
    seat = svc.authenticate(stored, token) if token is not None else None
    etag = f'"{stored.version}"'
    if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        response = Response(status=304)
        response.headers["ETag"] = etag
        response.headers["Vary"] = "Authorization"
        return response
    return with_etag(svc.render(stored, seat), stored.version)


@blp.route("/games/<game_id:game_id>/legal-moves", methods=["GET"])
@blp.doc(operationId="listLegalMoves", tags=["games"], summary="The seat's legal moves", security=SEAT_AUTH)
@blp.response(200, "LegalMoves", headers=GAME_HEADERS)
@documents_errors(401, 403, 404)
def list_legal_moves(game_id: str) -> Response:
    """Every move the token's seat may post now, each exactly as postMove accepts it."""
    svc = service()
    stored = svc.load(game_id, with_actions=False)
    seat = svc.authenticate(stored, bearer_token())
    moves = svc.legal_for(stored, seat)
    body = {
        "game_id": game_id,
        "game": stored.game,
        "version": stored.version,
        "seat": seat,
        "legal_moves": moves,
    }
    return with_etag(body, stored.version)


def documented_by(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """flask-smorest decorators (outermost first, as they would be stacked) for documentation only.

    flask-smorest documents a view through the `_apidoc` its decorators write, which `route`
    reads; their run-time wrappers add call layers, each looking up `current_app`, and for a
    view that returns its own Response they do nothing else.  This applies them as they would be
    stacked, keeps the `_apidoc` they built and returns the view itself, unwrapped.
    """

    def decorate(func: F) -> F:
        documented: Any = func
        for decorator in reversed(decorators):
            documented = decorator(documented)
        cast(Any, func)._apidoc = documented._apidoc
        return func

    return decorate


IF_MATCH = header_parameter(
    "If-Match", 'Apply only if the game is still at this version (`"7"`, its ETag); 412 otherwise.'
)


@blp.route("/games/<game_id:game_id>/moves", methods=["POST"])
@documented_by(
    blp.doc(
        operationId="postMove",
        tags=["games"],
        summary="Make a move",
        security=SEAT_AUTH,
        requestBody={
            "required": True,
            "description": "One of the seat's legal moves, exactly as listLegalMoves lists it (the "
            "per-game move operations take only their game's moves).",
            "content": {"application/json": {"schema": ref("Move")}},
        },
        parameters=[IF_MATCH],
    ),
    blp.response(200, "Game", headers=GAME_HEADERS),
    documents_errors(401, 403, 404, 409, 412, 413, 422),
)
def post_move(game_id: str) -> Response:
    """Apply one move for the token's seat; the answer is that seat's new view."""
    # The busiest request: an ordinary Flask view (hooks, error handler, ops middleware all apply),
    # kept lean: the body read once as bytes (413 above MAX_CONTENT_LENGTH, chunked bodies too),
    # orjson in and out, no flask-smorest wrapper at run time (`documented_by`).
    environ = request.environ
    body, version = make_move(
        service(),
        game_id,
        environ.get("HTTP_AUTHORIZATION"),
        request.get_data(cache=False),
        environ.get("HTTP_IF_MATCH"),
    )
    return with_etag(body, version)


def game_move_operation(game: str) -> None:
    """postMove for games of one game only: its body is that game's move type, its answer that game's."""
    prefix = prefix_of(game)

    def post_game_move(game_id: str) -> Response:
        svc = service()
        stored = svc.load(game_id, with_actions=False)
        if stored.game != game:
            raise errors.GameNotFound(
                f"game {game_id} is a {stored.game} game, not {game}",
                code="wrong_game",
                details={"game": stored.game},
            )
        environ = request.environ
        body, version = make_move(
            svc,
            game_id,
            environ.get("HTTP_AUTHORIZATION"),
            request.get_data(cache=False),
            environ.get("HTTP_IF_MATCH"),
        )
        return with_etag(body, version)

    post_game_move.__name__ = f"post_{game.replace('-', '_')}_move"
    post_game_move.__doc__ = (
        f"postMove for a {GAMES[game].title} game: the body is one of its moves, the answer its view "
        "(404 `wrong_game` for a game of another game). Otherwise the same as postMove."
    )
    documented = documented_by(
        blp.doc(
            operationId=f"post{prefix}Move",
            description=post_game_move.__doc__,
            tags=["games"],
            summary=f"Make a {GAMES[game].title} move",
            security=SEAT_AUTH,
            requestBody={
                "required": True,
                "description": "One of the seat's legal moves, exactly as listLegalMoves lists it.",
                "content": {"application/json": {"schema": ref(f"{prefix}Move")}},
            },
            parameters=[IF_MATCH],
        ),
        blp.response(200, f"{prefix}Game", headers=GAME_HEADERS),
        documents_errors(401, 403, 404, 409, 412, 413, 422),
    )(post_game_move)
    blp.route(f"/games/<game_id:game_id>/{game}/moves", methods=["POST"])(documented)


for _game in sorted(GAME_WIRE):
    game_move_operation(_game)


def make_move(
    svc: GameService, game_id: str, authorization: str | None, raw: bytes, if_match: str | None
) -> tuple[dict[str, Any], int]:
    """postMove without HTTP: apply the body's move for the token's seat; (that seat's new view, version)."""
    token = parse_bearer(authorization)
    if token is None:
        raise errors.MissingToken("a move needs 'Authorization: Bearer <seat token>'")
    try:
        # A whole number written `2.0` is the integer 2, as JSON Schema (openapi.yaml) counts it.
        move = integral_numbers(orjson.loads(raw))
    except orjson.JSONDecodeError:
        raise errors.Unprocessable("the request body is not valid JSON", code="invalid_json") from None
    stored, seat = svc.move_as(game_id, token, move, parse_if_match(if_match))
    return svc.render(stored, seat), stored.version


@blp.route("/games/<game_id:game_id>/events", methods=["GET"])
@blp.doc(
    operationId="getGameEvents", tags=["games"], summary="Events since a version", security=OPTIONAL_AUTH
)
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, "EventList", headers=GAME_HEADERS)
@documents_errors(401, 403, 404, 422)
def get_game_events(query: dict[str, Any], game_id: str) -> Response:
    """Events of versions above `since`, with what the reader may not see removed."""
    stored, records = service().events(game_id, None, query["since"], token=bearer_token())
    body = {
        "game_id": game_id,
        "game": stored.game,
        "version": stored.version,
        "status": service().render_status(stored),
        "events": [r.to_dict() for r in records],
    }
    return with_etag(body, stored.version)


def _parse_last_event_id(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    head, _, tail = value.strip().partition("-")
    if head.isdigit() and tail.isdigit() and len(head) < 12 and len(tail) < 12:
        return int(head), int(tail)
    return None


@blp.route("/games/<game_id:game_id>/events/stream", methods=["GET"])
@blp.doc(
    operationId="streamGameEvents",
    tags=["games"],
    summary="Events as server-sent events",
    security=OPTIONAL_AUTH,
    description="Each event is sent as `id: <version>-<n>`, `event: game-event` and `data: <EventRecord "
    "JSON>`; reconnect with `Last-Event-ID` (or `since`) to resume. The stream ends with an `end` event "
    "when the game is over or after `timeout` seconds (capped by the server). Open streams are capped "
    "per client address (429 `too_many_streams`) and per server process (503 `streams_full`), both "
    "with `Retry-After` (docs/operations.md, Limits).",
    parameters=[
        SINCE,
        TIMEOUT,
        header_parameter("Last-Event-ID", "Resume after this event id (`<version>-<n>`); wins over `since`."),
    ],
    responses={
        200: {
            "description": "A text/event-stream of messages (each one as SseMessage describes).",
            "headers": {
                "Cache-Control": {"description": "`no-cache`.", "schema": {"type": "string"}},
            },
            "content": {"text/event-stream": {"schema": ref("SseMessage")}},
        }
    },
)
@blp.arguments(StreamQuerySchema, location="query")
@documents_stream_errors(401, 403, 404, 409, 422, 429, 503)
def stream_game_events(query: dict[str, Any], game_id: str) -> Response:
    """Server-sent events of the game, resumable with Last-Event-ID, bounded in time; the process's
    event hub hands each stream what is new (core.event_hub), so a waiting stream holds no Redis
    connection."""
    svc = service()
    token = bearer_token()
    stored = svc.load(game_id, with_actions=False)  # 404 / 401 / 403 / 409 before the stream starts
    seat = svc.authenticate(stored, token) if token is not None else None
    svc.check_readable(stored, seat)
    last = _parse_last_event_id(request.headers.get("Last-Event-ID")) or (query["since"], 2**40)
    hub = app_context().events
    return open_stream(
        game_id,
        query["timeout"],
        lambda listener, lifetime: _sse(svc, hub, listener, seat, last, lifetime),
    )


def open_stream(
    game_id: str, timeout: int | None, messages: Callable[[Listener, float], Iterator[str]]
) -> Response:
    """A server-sent-events response about `game_id` fed by the process's event hub: a slot of the
    client address's (429 when it has none free), a listener of the hub (503 when the process is
    full), `messages(listener, lifetime)` streamed; both given back when the stream closes. The
    lifetime is `timeout` seconds capped by TRICKARENA_SSE_MAX_SECONDS (the cap when None)."""
    cap = float(current_app.config["TRICKARENA_SSE_MAX_SECONDS"])
    lifetime = min(cap, float(timeout)) if timeout is not None else cap
    context = app_context()
    release = context.stream_slots.acquire(request.remote_addr or "-", lifetime)
    try:
        listener = context.events.attach(game_id)
    except Exception:
        release()
        raise
    response = Response(
        stream_with_context(messages(listener, lifetime)),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(lambda: context.events.detach(listener))
    response.call_on_close(release)
    return response


# Seconds an idle stream waits before a keep-alive comment (which also notices a gone client).
KEEPALIVE_S = 5.0


def _event_messages(
    svc: GameService, seat: int | None
) -> Callable[[Batch], list[tuple[tuple[int, int], str]]]:
    """A batch's events as SSE messages for `seat`'s reader: (event id, message)."""

    def render(batch: Batch) -> list[tuple[tuple[int, int], str]]:
        assert batch.stored is not None
        out = []
        for record in svc.redact(batch.stored, batch.events, seat):
            data = json.dumps(record.to_dict(), separators=(",", ":"))
            out.append(
                (
                    (record.version, int(record.id.split("-")[1])),
                    f"id: {record.id}\nevent: game-event\ndata: {data}\n\n",
                )
            )
        return out

    return render


def _sse(
    svc: GameService,
    hub: EventHub,
    listener: Listener,
    seat: int | None,
    last: tuple[int, int],
    lifetime: float,
) -> Iterator[str]:
    """The stream: its backlog read once, then the hub's batches; a gap (a batch after a version it
    has not read, or batches dropped while it did not read) is read again from Redis."""
    deadline = time.monotonic() + lifetime
    render = _event_messages(svc, seat)
    yield "retry: 2000\n\n"
    through: int | None = None  # every event up to this version is sent (None: read it first)
    while True:
        if through is None:
            through = last[0] - 1 if last[0] > 0 else 0
            batches = [hub.read(listener.game_id, through)]
        else:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                yield 'event: end\ndata: {"reason": "timeout"}\n\n'
                return
            batches, lost = listener.take(min(remaining, KEEPALIVE_S))
            if lost:
                through = None
                continue
            if not batches:
                yield ": keep-alive\n\n"
                continue
        for batch in batches:
            if batch.stored is None:
                yield 'event: end\ndata: {"reason": "game_not_found"}\n\n'
                return
            if batch.after > through:
                through = None  # a gap: read it
                break
            for event_id, message in batch.rendered(seat, render):
                if event_id > last:
                    yield message
                    last = event_id
            through = max(through, batch.stored.version)
            listener.through = through
            if svc.render_status(batch.stored) == "finished":
                yield 'event: end\ndata: {"reason": "finished"}\n\n'
                return


@blp.route("/games/<game_id:game_id>/replay", methods=["GET"])
@blp.doc(operationId="getReplay", tags=["games"], summary="Everything about a finished game")
@blp.response(200, "Replay")
@documents_errors(404, 409)
def get_replay(game_id: str) -> Response:
    """After the end: header, actions and every event with all cards revealed."""
    return jsonify(service().replay(game_id))


@blp.route("/health", methods=["GET"])
@blp.doc(operationId="getHealth", tags=["meta"], summary="Server status")
@blp.response(200, "Health")
@blp.alt_response(503, schema="Health", description="Redis is down.")
def get_health() -> Response:
    """Whether Redis takes a write, and its latency, plus any registered checks (e.g. workers)."""
    started = time.perf_counter()
    try:
        service().repository.check_writable()  # a Redis that only reads cannot serve the API
        redis_status: dict[str, Any] = {
            "ok": True,
            "latency_ms": round((time.perf_counter() - started) * 1000, 3),
        }
    except Exception as exc:  # any failure to reach Redis is "down", never a 500
        redis_status = {"ok": False, "error": type(exc).__name__}
    body: dict[str, Any] = {"status": "ok", "redis": redis_status, "workers": None}
    healthy = redis_status["ok"]
    for name, check in app_context().health.items():
        if not redis_status["ok"]:
            # The sections read Redis too: a hung one would cost each its own timeout.
            body[name] = {"ok": False, "error": "RedisUnavailable"}
            continue
        try:
            section = check()
        except Exception as exc:  # a broken reporter makes the server degraded, not broken
            section = {"ok": False, "error": type(exc).__name__}
        body[name] = section
        healthy = healthy and bool(section.get("ok", True))
    body["status"] = "ok" if healthy else "degraded"
    response = jsonify(body)
    # Only a Redis outage makes this server unable to serve (503); a degraded section (say, no
    # worker running) is reported in the body while the API itself keeps working.
    response.status_code = 200 if redis_status["ok"] else 503
    if not redis_status["ok"]:
        response.headers["Retry-After"] = "1"  # as every storage_unavailable answer
    return response
