"""The bots blueprint: submit, list, read, update and delete bots (HTTP around `BotRegistry`).

Registered by the app factory (`api.app.create_app`) through `register(api, app)`.
Tests may pass ``TRICKARENA_BOT_REGISTRY`` (a ready `BotRegistry`) in the app config; otherwise
the registry shares the games repository's Redis client and key prefix, and the outbound address
policy comes from ``TRICKARENA_ALLOWED_NETWORKS`` (app config first, then the environment; see
`core.outbound`).
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, Response, jsonify
from marshmallow import Schema, ValidationError, fields, validate, validates, validates_schema

from api import limits
from api.blueprint_util import Api, Blueprint, ErrorDocs, StrictBoolean, at_least_one_of, game_name_field
from api.context import app_context
from api.games_api import key_before_body, owner_bearer
from api.schemas.games import nullable, ref
from bots.protocol import SIGNATURE_HEADER, TIMESTAMP_HEADER, BotInfoSchema, register_protocol_schemas
from core import errors
from core.bot_registry import MAX_PAGE, ROTATABLE, SCAN_BUDGET, STATUSES, BotNotFound, BotRegistry
from core.outbound import BOT_URL_PATTERN
from harness.botcheck import check_registered

blp = Blueprint(
    "bots", __name__, description="Bots: submit an HTTP bot, list, read, update, rotate its keys, delete."
)

BOT_ID_PATTERN = r"^[0-9a-f]{16}$"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
SECRET_PATTERN = r"^[A-Za-z0-9_-]{32,128}$"
OWNER_AUTH: list[dict[str, list[str]]] = [{"ownerKey": []}]
# checkBot calls the bot over the network: the whole check is bounded (below gunicorn's 30 s
# worker timeout), one check of a bot runs at a time, and the next may start this long after.
CHECK_BUDGET_S = 20.0
CHECK_COOLDOWN_S = 10.0
ERROR_TEXT = {
    401: "No owner key (code `missing_token`, or `invalid_authorization` when not a Bearer header).",
    403: "Not this bot's owner key (code `not_owner`).",
    404: "No such bot (code `bot_not_found`).",
    409: "The name is taken (`duplicate_name`, deleted bots keep theirs), the URL is another owner's "
    "(`url_taken`: an active bot uses it and the request's owner key owns none of the bots there; "
    "`details.url` is the URL as compared), the bot was deleted (`bot_deleted`), or (createBot) a cap "
    "on live bots per owner key, per client address or in all is reached (`quota_exceeded`, "
    "`details.cap` and `details.max`; nothing created).",
    410: "The bot was deleted (`bot_deleted`); `listBots` with `include_deleted=true` still lists it.",
    413: "The request body is too large (code `body_too_large`).",
    429: "Too many requests (`rate_limited`, with `Retry-After`): over the API's limits, or (checkBot) "
    f"a check of this bot is running or ended less than {CHECK_COOLDOWN_S:.0f} s ago.",
    422: "Invalid JSON or fields (`invalid_json`, `validation_error`), or the bot failed its check: "
    "`invalid_url`, `forbidden_address` (the host is or resolves to a refused address), `bot_unreachable` "
    "(no valid bot info from GET /: one answer whatever the other end did, so that createBot tells "
    "nothing about other services), `game_not_played` (the bot's GET / does not list a claimed game), "
    "`unknown_game`.",
}


documents_errors = ErrorDocs(blp, ERROR_TEXT)


# --------------------------------------------------------------------------- schemas


def _games_field(required: bool) -> fields.List[str]:
    return fields.List(
        game_name_field("A game's name."),
        required=required,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "Games the bot plays (its GET / must list each of them)."},
    )


def _name_field(required: bool) -> fields.String:
    return fields.String(
        required=required,
        validate=validate.Regexp(NAME_PATTERN, error="1-64 letters, digits, '.', '_' or '-'"),
        metadata={"description": "Unique (case-insensitive) display name."},
    )


def _url_field(required: bool) -> fields.String:
    return fields.String(
        required=required,
        validate=validate.Length(min=8, max=2048),
        metadata={
            "description": "Base URL of the bot (http/https, no user info, query or fragment); the platform "
            "calls GET / on it at once.",
            "pattern": BOT_URL_PATTERN,
        },
    )


class CreateBotSchema(Schema):
    """createBot request."""

    class Meta:
        name = "CreateBot"

    name = _name_field(True)
    url = _url_field(True)
    games = _games_field(True)
    open = StrictBoolean(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Open to challenges: anyone may enter the bot into a tournament, and a league's "
            "owner may add it to the league (it plays the league's rounds only while it stays open). "
            "Otherwise createTournament needs the bot's owner key in `owner_keys`, and joinLeague the "
            "bot's owner key. Default false."
        },
    )
    secret = fields.String(
        load_default=None,
        validate=validate.Regexp(SECRET_PATTERN, error="32-128 characters of A-Z, a-z, 0-9, '-' and '_'"),
        metadata={
            "description": "The signing secret to sign every request to the bot with, chosen by its author "
            "(e.g. `trickarena bot secret`) so that the bot runs with it from the start: 32-128 "
            "characters of the URL-safe base64 alphabet. Not shown back. Absent: the platform makes one "
            "and shows it once in the answer."
        },
    )


class UpdateBotSchema(Schema):
    """updateBot request: any of name, url, games (a new url or games list is checked again)."""

    class Meta:
        name = "UpdateBot"

    JSON_SCHEMA = at_least_one_of(["name", "url", "games", "open"])

    name = _name_field(False)
    url = _url_field(False)
    games = _games_field(False)
    open = StrictBoolean(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Open to challenges: anyone may enter the bot into a tournament, and a league's "
            "owner may add it to the league (it plays the league's rounds only while it stays open). "
            "Otherwise createTournament needs the bot's owner key in `owner_keys`, and joinLeague the "
            "bot's owner key. Default false."
        },
    )

    @validates_schema
    def _something(self, data: dict[str, Any], **kwargs: Any) -> None:
        if not any(v is not None for v in data.values()):
            raise ValidationError("give at least one of name, url, games, open")


class BotSchema(Schema):
    """A bot's public fields."""

    class Meta:
        name = "Bot"

    id = fields.String(
        required=True,
        metadata={"description": "The bot's id: 16 lowercase hex digits.", "pattern": BOT_ID_PATTERN},
    )
    name = fields.String(required=True, metadata={"description": "Unique (case-insensitive) display name."})
    url = fields.String(
        required=True, metadata={"description": "Base URL of the bot that the platform calls."}
    )
    games = fields.List(fields.String(), required=True, metadata={"description": "Games the bot plays."})
    author = fields.String(required=True, metadata={"description": "As the bot's GET / reported it."})
    version = fields.String(required=True, metadata={"description": "As the bot's GET / reported it."})
    status = fields.String(
        required=True,
        validate=validate.OneOf(["active", "deleted"]),
        metadata={"description": "`active`, or `deleted` once the bot was deleted."},
    )
    open = fields.Boolean(
        required=True,
        metadata={
            "description": "Open to challenges: anyone may enter it into a tournament, and a league's "
            "owner may add it to the league."
        },
    )
    created = fields.Float(required=True, metadata={"description": "Unix time."})
    updated = fields.Float(required=True, metadata={"description": "Unix time."})
    deleted = fields.Float(required=True, allow_none=True, metadata={"description": "Unix time, or null."})


class CreatedBotSchema(Schema):
    """createBot answer: the bot, its owner key and (unless the author gave it) its signing secret, shown
    only now."""

    class Meta:
        name = "CreatedBot"

    bot = fields.Nested(BotSchema, required=True)
    owner_key = fields.String(
        required=True, metadata={"description": "Bearer key for updateBot/deleteBot and leagues. Shown once."}
    )
    secret = fields.String(
        metadata={
            "description": "HMAC key the platform signs every request to the bot with, when the platform "
            "made it (the request had no `secret`). Shown once."
        },
    )


class OwnedBotSchema(BotSchema):
    """A bot as its owner lists it: the public fields and when its key and secret were issued."""

    class Meta:
        name = "OwnedBot"

    owner_key_issued = fields.Float(
        metadata={"description": "Unix time the current owner key was issued (creation or rotation)."}
    )
    secret_issued = fields.Float(
        metadata={"description": "Unix time the current signing secret was issued (creation or rotation)."}
    )


class BotListSchema(Schema):
    """listBots answer: one page."""

    class Meta:
        name = "BotList"

    bots = fields.List(
        fields.Nested(OwnedBotSchema),
        required=True,
        metadata={
            "description": "Oldest first. Listed with an owner key: only that owner's bots, with "
            "`owner_key_issued` and `secret_issued`; otherwise the public fields only."
        },
    )
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Pass as `cursor` for the next page; null: no more bots. A page may hold "
            f"fewer than `limit` bots (each page reads at most {SCAN_BUDGET} stored bots) and still "
            "have a next one."
        },
    )


class ListBotsQuerySchema(Schema):
    """listBots filters and page."""

    class Meta:
        name = "ListBotsQuery"

    game = fields.String(
        validate=validate.Length(min=1, max=64),
        load_default=None,
        metadata={"description": "Only bots that play this game."},
    )
    status = fields.String(
        validate=validate.OneOf(STATUSES),
        load_default=None,
        metadata={"description": "`active` (the default), `deleted` or `any`."},
    )
    include_deleted = fields.Boolean(
        load_default=False, metadata={"description": "Same as `status=any` (when `status` is not given)."}
    )
    limit = fields.Integer(
        validate=validate.Range(min=1, max=MAX_PAGE),
        load_default=50,
        metadata={"description": f"Bots per page, at most {MAX_PAGE}."},
    )
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,9}$", error="a cursor from a listBots answer"),
        load_default=None,
        metadata={"description": "Where to go on: the `next_cursor` of the previous page."},
    )


class RotateKeysSchema(Schema):
    """rotateBotKeys request: which of the bot's secrets to replace."""

    class Meta:
        name = "RotateKeys"

    rotate = fields.List(
        fields.String(validate=validate.OneOf(ROTATABLE)),
        required=True,
        validate=validate.Length(min=1, max=2),
        metadata={
            "description": "`owner_key`, `secret` or both: each gets a new value, and the old one "
            "stops working at once.",
            "uniqueItems": True,
        },
    )

    @validates("rotate")
    def _unique(self, value: list[str], **kwargs: Any) -> None:
        if len(set(value)) != len(value):
            raise ValidationError("name each of owner_key and secret at most once")


class RotatedKeysSchema(Schema):
    """rotateBotKeys answer: the bot and what was rotated (shown only now)."""

    class Meta:
        name = "RotatedKeys"

    bot = fields.Nested(BotSchema, required=True)
    owner_key = fields.String(
        metadata={"description": "The new owner key (when rotated). Shown once; the old one no longer works."}
    )
    secret = fields.String(
        metadata={
            "description": "The new signing secret (when rotated). Shown once: restart the bot with it. "
            "Matches already running finish with the secret they started with."
        }
    )


class CheckFindingSchema(Schema):
    """One step of a bot check."""

    class Meta:
        name = "CheckFinding"

    step = fields.String(
        required=True,
        metadata={
            "description": "What was sent, e.g. `GET /` or `POST /move (tricky-teams, play, 4 seats)`."
        },
    )
    severity = fields.String(
        required=True,
        validate=validate.OneOf(["ok", "warning", "error"]),
        metadata={
            "description": "`ok`; `warning` (works, but e.g. spends the time bank); `error` (would fail in "
            "a match)."
        },
    )
    message = fields.String(required=True, metadata={"description": "What happened, in plain words."})
    elapsed_ms = fields.Float(
        metadata={"description": "How long the bot took to answer, when it was called."}
    )
    fault = fields.String(
        metadata={"description": "The fault code a match would record (`bots.protocol.FaultCode`), if any."}
    )
    status = fields.Integer(
        metadata={"description": "The bot's HTTP status, when it answered one that failed."}
    )
    body = fields.String(
        metadata={"description": "The first bytes of a refused or unusable answer (at most 160 characters)."}
    )


class CheckReportSchema(Schema):
    """checkBot answer: the bot called as a match would call it, and every finding."""

    class Meta:
        name = "CheckReport"

    url = fields.String(required=True, metadata={"description": "The bot's registered URL that was checked."})
    ok = fields.Boolean(
        required=True, metadata={"description": "True when nothing would fail in a match (warnings allowed)."}
    )
    errors = fields.Integer(required=True, metadata={"description": "How many findings are errors."})
    warnings = fields.Integer(required=True, metadata={"description": "How many findings are warnings."})
    info = fields.Nested(
        BotInfoSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The bot's own GET / answer; null when it gave none that is valid."},
    )
    findings = fields.List(
        fields.Nested(CheckFindingSchema),
        required=True,
        metadata={
            "description": "In order: GET /, a request signed with a wrong secret (must be refused), then "
            "per game /start, a /move at every decision type, /end. A passed /start or /end is counted in "
            "one finding per game."
        },
    )


# --------------------------------------------------------------------------- helpers


def registry() -> BotRegistry:
    """The app's bot registry."""
    return app_context().bots


def checked_url(url: str | None) -> str | None:
    """`url` if it has a bot URL's form (openapi.yaml's pattern, `BOT_URL_PATTERN`), checked before
    anything else (name, URL owner, the bot itself); else 422 `invalid_url`."""
    if url is not None and not re.fullmatch(BOT_URL_PATTERN, url):
        raise errors.Unprocessable(
            "not a bot URL: http(s)://host[:port][/path], without user info, query, fragment, white "
            "space or a port's leading zeros",
            code="invalid_url",
        )
    return url


def owner_key() -> str | None:
    """The key of `Authorization: Bearer <owner key>`, None when absent; 401 when not Bearer."""
    return owner_bearer("that is not this bot's owner key")


# --------------------------------------------------------------------------- endpoints


@blp.route("/bots", methods=["POST"])
@blp.doc(
    operationId="createBot",
    tags=["bots"],
    summary="Submit an HTTP bot",
    description="The platform calls the bot's `GET /` at once (a refused connection is tried again, "
    "with back-off, for up to 5 s, so a bot submitted right after it was started is found). The "
    "answer holds the owner key and, unless the request gave `secret`, the signing secret: each "
    "shown only this once. A URL an active bot already uses (compared with scheme and host in lower "
    "case, without a default port or a trailing slash) is 409 `url_taken`, unless the request carries "
    "the owner key of a bot at that URL as Bearer: then the new bot shares the URL (it gets its own "
    "owner key; either key may register further bots there).",
    security=[{}, {"ownerKey": []}],
)
@blp.arguments(CreateBotSchema)
@blp.response(201, CreatedBotSchema, headers={"Location": {"schema": {"type": "string"}}})
@documents_errors(401, 409, 413, 422)
def create_bot(body: dict[str, Any]) -> Response:
    """Call the bot's GET / safely (a refused connection is tried again for a few seconds: a bot still
    starting up); if it answers well, store it and return its id, owner key and, unless the author
    gave it, its signing secret."""
    key = owner_key()
    checked_url(body["url"])
    created = app_context().quotas.create(
        "bot",
        limits.client_address(),
        [key],
        lambda: registry().create(
            body["name"],
            body["url"],
            body["games"],
            bool(body.get("open")),
            secret=body["secret"],
            owner_key=key,
        ),
        lambda made: made.bot.id,
    )
    answer = {"bot": created.bot.public(), "owner_key": created.owner_key}
    if not created.secret_supplied:
        answer["secret"] = created.secret
    response = jsonify(answer)
    response.status_code = 201
    response.headers["Cache-Control"] = "no-store"  # it holds secrets
    response.headers["Location"] = f"/bots/{created.bot.id}"
    return response


@blp.route("/bots", methods=["GET"])
@blp.doc(
    operationId="listBots",
    tags=["bots"],
    summary="Submitted bots, a page at a time (with an owner key: only that owner's)",
    security=[{}, {"ownerKey": []}],
)
@blp.arguments(ListBotsQuerySchema, location="query")
@blp.response(200, BotListSchema)
@documents_errors(401, 422)
def list_bots(query: dict[str, Any]) -> Response:
    """Bots oldest first, filtered by game and status; with `Authorization: Bearer <owner key>` only
    that owner's bots, with the fields only the owner sees. At most `limit` per page."""
    status = query["status"] or ("any" if query["include_deleted"] else "active")
    key = owner_key()
    found = registry().page(
        game=query["game"],
        status=status,
        owner_key=key,
        cursor=int(query["cursor"] or 0),
        limit=query["limit"],
    )
    bots = [bot.owner_view() if key is not None else bot.public() for bot in found.bots]
    cursor = None if found.next_cursor is None else str(found.next_cursor)
    return jsonify({"bots": bots, "next_cursor": cursor})


@blp.route("/bots/<string:bot_id>", methods=["GET"])
@blp.doc(operationId="getBot", tags=["bots"], summary="One bot (public fields)")
@blp.response(200, BotSchema)
@documents_errors(404, 410)
def get_bot(bot_id: str) -> Response:
    """A bot's public fields. A deleted bot is gone from here (410 `bot_deleted`: DELETE means what it
    says); its record stays, listed by `listBots` with `include_deleted=true` or `status=deleted`."""
    bot = registry().get(_valid(bot_id))
    if bot["status"] == "deleted":
        raise errors.Gone(f"bot {bot_id!r} was deleted", code="bot_deleted")
    return jsonify(bot)


@blp.route("/bots/<string:bot_id>", methods=["PATCH"])
@blp.doc(operationId="updateBot", tags=["bots"], summary="Change a bot (owner key)", security=OWNER_AUTH)
@key_before_body
@blp.arguments(UpdateBotSchema)
@blp.response(200, BotSchema)
@documents_errors(401, 403, 404, 409, 413, 422)
def update_bot(body: dict[str, Any], bot_id: str) -> Response:
    """Rename, move or change the games of a bot; a new URL or game list is checked like at creation."""
    bot = registry().update(
        _valid(bot_id),
        owner_key(),
        body.get("name"),
        checked_url(body.get("url")),
        body.get("games"),
        body.get("open"),
    )
    return jsonify(bot)


@blp.route("/bots/<string:bot_id>/keys", methods=["POST"])
@blp.doc(
    operationId="rotateBotKeys",
    tags=["bots"],
    summary="Replace a bot's owner key and/or signing secret (owner key)",
    security=OWNER_AUTH,
)
@key_before_body
@blp.arguments(RotateKeysSchema)
@blp.response(200, RotatedKeysSchema)
@documents_errors(401, 403, 404, 409, 413, 422)
def rotate_bot_keys(body: dict[str, Any], bot_id: str) -> Response:
    """Issue a new owner key and/or signing secret; the old ones stop working at once."""
    which = set(body["rotate"])
    rotated = registry().rotate(_valid(bot_id), owner_key(), "owner_key" in which, "secret" in which)
    answer: dict[str, Any] = {"bot": rotated.bot.public()}
    if rotated.owner_key is not None:
        answer["owner_key"] = rotated.owner_key
    if rotated.secret is not None:
        answer["secret"] = rotated.secret
    response = jsonify(answer)
    response.headers["Cache-Control"] = "no-store"  # it holds secrets
    return response


@blp.route("/bots/<string:bot_id>/check", methods=["POST"])
@blp.doc(
    operationId="checkBot",
    tags=["bots"],
    summary="Call the bot as a match would and report what is wrong (owner key)",
    description="Sends the bot a `GET /`, a `/move` signed with a wrong secret, and, signed with its "
    "stored secret, per registered game a `/start`, a `/move` at every decision type and an `/end`; "
    "each answer is judged as the match runner judges it (same faults, same time bounds). The whole "
    f"check takes at most {CHECK_BUDGET_S:.0f} s (a slower bot gets an error finding saying where it "
    f"stopped); one check of a bot runs at a time, and the next may start {CHECK_COOLDOWN_S:.0f} s after "
    "it ended (429 otherwise). The answer is 200 whatever the bot did: `ok` says whether it is ready.",
    security=OWNER_AUTH,
)
@blp.response(200, CheckReportSchema)
@documents_errors(401, 403, 404, 409, 429)
def check_bot(bot_id: str) -> Response:
    """Check a registered bot with its stored secret and games, under the operator's address policy."""
    ident, key = _valid(bot_id), owner_key()
    bots = registry()
    bots.authorize(ident, key)  # 401/403/404 before anything is held or called
    wait = bots.begin_check(ident, CHECK_BUDGET_S + 10)
    if wait is not None:
        return _check_busy(wait)
    try:
        report = check_registered(app_context().harness, ident, key, budget_s=CHECK_BUDGET_S)
    finally:
        bots.end_check(ident, CHECK_COOLDOWN_S)
    response = jsonify(report.to_dict())
    response.headers["Cache-Control"] = "no-store"
    return response


def _check_busy(retry_after: int) -> Response:
    response = jsonify(
        {
            "code": "rate_limited",
            "message": f"a check of this bot is running or just ended; retry after {retry_after} s",
            "details": {"limit": "1 check per bot at a time", "per": "bot", "retry_after": retry_after},
        }
    )
    response.status_code = 429
    response.headers["Retry-After"] = str(retry_after)
    return response


@blp.route("/bots/<string:bot_id>", methods=["DELETE"])
@blp.doc(operationId="deleteBot", tags=["bots"], summary="Retire a bot (owner key)", security=OWNER_AUTH)
@blp.response(200, BotSchema)
@documents_errors(401, 403, 404)
def delete_bot(bot_id: str) -> Response:
    """Mark the bot deleted: it plays no more, its record and past results stay."""
    deleted = registry().delete(_valid(bot_id), owner_key())
    app_context().quotas.release("bot", bot_id)  # its slot in the caps is free again
    return jsonify(deleted)


def _valid(bot_id: str) -> str:
    # A malformed id can name no bot: answer 404 without touching Redis.
    if len(bot_id) != 16 or any(c not in "0123456789abcdef" for c in bot_id):
        raise BotNotFound(f"no bot {bot_id!r}")
    return bot_id


# --------------------------------------------------------------------------- the bot protocol

# What the protocol's messages carry of a game, as openapi.yaml types it (bots.protocol loads them
# as plain objects: a bot checks nothing of the game's shapes, the platform made them).
PROTOCOL_GAME_FIELDS: dict[tuple[str, str], dict[str, Any]] = {
    ("BotStartRequest", "options"): {
        **ref("GameOptions"),
        "description": "The match's options as the tournament was given them (empty: the game's defaults).",
    },
    ("BotMoveRequest", "view"): {
        **ref("GameView"),
        "description": "The seat's view of the game, exactly as getGame's `view` shows it to that seat.",
    },
    ("BotMoveRequest", "legal_moves"): {
        "type": "array",
        "minItems": 1,
        "items": ref("Move"),
        "description": "The moves the seat may make (at least one); the answer must be one of them verbatim.",
    },
    ("BotMoveResponse", "move"): {
        **ref("Move"),
        "description": "One of the request's `legal_moves`, verbatim (same fields, same values).",
    },
    ("BotEndRequest", "result"): {**ref("GameResult"), "description": "The game's final result."},
    ("BotEndRequest", "view"): nullable(
        ref("GameView"), "The final view of the seat; always null in tournament and league matches."
    ),
}

SIGNED = [
    {
        "in": "header",
        "name": TIMESTAMP_HEADER,
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "description": "Unix seconds when the platform signed the request; refuse one more than 300 s "
        "from your clock (`stale_signature`).",
    },
    {
        "in": "header",
        "name": SIGNATURE_HEADER,
        "required": True,
        "schema": {"type": "string", "pattern": "^sha256=[0-9a-f]{64}$"},
        "description": "`sha256=` and the lowercase hex HMAC-SHA256 of `<timestamp>.<body>` keyed with the "
        "bot's signing secret (docs/bot-protocol.md, Signatures).",
    },
]
REFUSED = {
    "401": {
        "description": "The signature is missing, stale or wrong (`missing_signature`, `bad_timestamp`, "
        "`stale_signature`, `bad_signature`): the bot did nothing.",
        "content": {"application/json": {"schema": ref("BotError")}},
    }
}
IGNORED = {"description": 'Any answer: the platform ignores it (the SDK answers `{"ok": true}`).'}


def _signed_call(operation_id: str, summary: str, description: str, body: str) -> dict[str, Any]:
    """A signed POST the platform makes to a bot."""
    return {
        "operationId": operation_id,
        "summary": summary,
        "description": description,
        "tags": ["bot protocol"],
        "security": [],
        "parameters": SIGNED,
        "requestBody": {
            "required": True,
            "description": f"A `{body}`, signed.",
            "content": {"application/json": {"schema": ref(body)}},
        },
    }


def protocol_webhooks() -> dict[str, dict[str, Any]]:
    """The bot protocol as OpenAPI 3.1 `webhooks`: the calls the platform makes to a bot's service (its
    base URL is the bot's `url`), with what the bot must answer (docs/bot-protocol.md)."""
    return {
        "botInfo": {
            "get": {
                "operationId": "botInfo",
                "summary": "GET / of a bot: what it is and plays",
                "description": "Unsigned: the platform calls it at createBot (before it has issued a "
                "secret), at checkBot and before matches. Answer within 5 s.",
                "tags": ["bot protocol"],
                "security": [],
                "responses": {
                    "200": {
                        "description": "The bot's name, author, version, games and protocol version.",
                        "content": {"application/json": {"schema": ref("BotInfo")}},
                    },
                    "4XX": {
                        "description": "Any other answer: createBot refuses the bot (422 `not_a_bot`).",
                        "content": {"application/json": {"schema": ref("BotError")}},
                    },
                },
            }
        },
        "botStart": {
            "post": {
                **_signed_call(
                    "botStart",
                    "POST /start of a bot: a match begins",
                    "The match's game, the bot's seat, the options and time limits; the answer is ignored.",
                    "BotStartRequest",
                ),
                "responses": {"200": IGNORED, **REFUSED},
            }
        },
        "botMove": {
            "post": {
                **_signed_call(
                    "botMove",
                    "POST /move of a bot: its seat must decide",
                    "The seat's view and legal moves; answer 200 with one of the legal moves, verbatim, "
                    "within `deadline_ms` (plus what is left of the time bank). Any other answer is a "
                    "fault (docs/bot-protocol.md, Fault codes): the platform plays a fallback move.",
                    "BotMoveRequest",
                ),
                "responses": {
                    "200": {
                        "description": "The bot's move.",
                        "content": {"application/json": {"schema": ref("BotMoveResponse")}},
                    },
                    **REFUSED,
                },
            }
        },
        "botEnd": {
            "post": {
                **_signed_call(
                    "botEnd",
                    "POST /end of a bot: the match is over",
                    "The result and the bot's faults; the answer is ignored.",
                    "BotEndRequest",
                ),
                "responses": {"200": IGNORED, **REFUSED},
            }
        },
    }


def register_protocol(api: Api) -> None:
    """The protocol's messages (bots.protocol) with the game's parts typed, and its calls as webhooks."""
    register_protocol_schemas(api.spec)
    schemas = api.spec.components.schemas
    for (name, prop), schema in PROTOCOL_GAME_FIELDS.items():
        schemas[name]["properties"][prop] = schema
    api.spec.options["webhooks"] = protocol_webhooks()
    # Declared in the document's tag list as the operations' tags are (ContractPlugin.declare_tags).
    api.spec.options.setdefault("tags", []).append(
        {
            "name": "bot protocol",
            "description": "What the platform sends to a bot's own HTTP service and what the bot answers "
            "(docs/bot-protocol.md).",
        }
    )


def register(api: Api, app: Flask) -> None:
    """Hook for the app factory: the registry, the protocol schemas, the owner-key scheme, the blueprint."""
    register_protocol(api)
    api.spec.components.security_scheme(
        "ownerKey",
        {"type": "http", "scheme": "bearer", "description": "The secret owner key createBot returned."},
    )
    api.spec.tag(
        {
            "name": "bots",
            "description": "Bots: submit an HTTP bot, list, read, update, rotate its keys, delete.",
        }
    )
    api.register_blueprint(blp)
