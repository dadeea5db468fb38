"""One tournament match in detail, with its per-decision records: HTTP around
`harness.match_detail` (who sees what is decided there; docs/api.md, "A match in detail").

Registered by the app factory (`api.app.create_app`) through `register(api, app)`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, jsonify
from marshmallow import Schema, fields, validate

from api.blueprint_util import Api, Blueprint, ErrorDocs
from api.context import app_context
from api.games_api import (
    ERROR_TEXT,
    GAME_HEADERS,
    KEEPALIVE_S,
    TIMEOUT,
    open_stream,
    owner_bearer,
    service,
    with_etag,
)
from api.schemas import StreamTimeoutQuerySchema, ref
from api.tournaments_api import FaultFlagSchema, TournamentMatchSchema
from core import errors
from core.event_hub import Listener
from harness.match_detail import check_seat_owner, game_players, match_detail
from harness.runner import HarnessContext
from harness.store import MAX_DECISION_BYTES

blp = Blueprint("matches", __name__, description="A tournament match in detail.")

documents_errors = ErrorDocs(
    blp,
    {
        401: "An Authorization header that is not `Bearer <key>` (code `invalid_authorization`).",
        403: "A key that owns neither a bot of this match nor the tournament (code `not_owner`).",
        404: "No such tournament, or no match of that index in it (`tournament_not_found`, "
        "`match_not_found`).",
    },
)


class SeatFaultsSchema(Schema):
    """A seat's calls and faults in this match, from its decision records."""

    class Meta:
        name = "SeatFaults"

    calls = fields.Integer(required=True, metadata={"description": "/move calls made to the bot."})
    total = fields.Integer(required=True, metadata={"description": "Calls that faulted."})
    by_code = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={"description": "Faults by code."},
    )
    by_reason = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": "Faults by reason: the code, for `http_status` refined with the status and the "
            "error code of the bot's JSON body (`http_status:401:bad_signature`)."
        },
    )
    flag = fields.Nested(
        FaultFlagSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Set when more than half of the calls faulted; null otherwise."},
    )


class MatchSeatSchema(Schema):
    """One seat of the match and its bot."""

    class Meta:
        name = "MatchSeat"

    seat = fields.Integer(required=True, metadata={"description": "The seat, from 0."})
    bot_id = fields.String(required=True, metadata={"description": "The bot playing the seat."})
    name = fields.String(required=True, metadata={"description": "The bot's name."})
    version = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The bot's version (its `GET /`) when the match started; null before."},
    )
    faults = fields.Nested(
        SeatFaultsSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The seat's calls and faults; null while `withheld`."},
    )


class DecisionSchema(Schema):
    """One decision of the match: a /move call to a seat's bot (or a fallback it was not asked for)."""

    class Meta:
        name = "Decision"

    index = fields.Integer(required=True, metadata={"description": "The decision's number, from 0."})
    seat = fields.Integer(required=True, metadata={"description": "The seat that moved."})
    bot_id = fields.String(required=True, allow_none=True, metadata={"description": "The seat's bot."})
    version = fields.Integer(
        required=True,
        metadata={"description": "The game version after this move (the viewer's move number + 1)."},
    )
    latency_ms = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "How long the bot took to answer; null when it was not asked or the time "
            "was not kept (a move replayed after a worker's crash)."
        },
    )
    outcome = fields.String(
        required=True,
        metadata={
            "description": "`ok`, a fault code (`timeout`, `connection_error`, `http_status`, "
            "`response_too_large`, `malformed_body`, `illegal_move`, `forbidden_address`), or "
            "`not_asked` (the bot was past the fault threshold)."
        },
    )
    fallback = fields.Boolean(
        required=True, metadata={"description": "True when the move played was the harness's fallback."}
    )
    status = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "A fault's HTTP status from the bot (null: none came, or no fault)."},
    )
    detail = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "A fault's first 512 bytes of the bot's answer, or the transport error; only "
            "for the owner of this seat's bot, or the tournament's owner once it has ended "
            "(`details_shown`); null otherwise."
        },
    )


class MatchDetailSchema(TournamentMatchSchema):
    """getTournamentMatch answer: the match as listTournamentMatches shows it, its seats in detail
    and its decisions."""

    class Meta:
        name = "MatchDetail"

    tournament_id = fields.String(required=True, metadata={"description": "The tournament."})
    sealed = fields.Boolean(
        required=True,
        metadata={"description": "True while the tournament is live: its games cannot be read yet."},
    )
    withheld = fields.Boolean(
        required=True,
        metadata={
            "description": "True while the tournament is live and the key owns no bot seated in this "
            "match: `decisions` is empty and each seat's `faults` null. The records hold no move or "
            "card, but their order tells the deal's story (who led each trick), and the same deal is "
            "in play at other tables. Everything is shown once the tournament has ended."
        },
    )
    seats = fields.List(
        fields.Nested(MatchSeatSchema), required=True, metadata={"description": "Per seat, with its bot."}
    )
    decisions = fields.List(
        fields.Nested(DecisionSchema),
        required=True,
        metadata={
            "description": "Every decision so far, in order (at most "
            f"{MAX_DECISION_BYTES // 1024} KB of records a match); while the match plays, those the "
            "runner has stored (faults at once, others in batches); empty while `withheld`."
        },
    )
    details_shown = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "The bots whose fault details this caller's key may read."},
    )


@blp.route("/tournaments/<string:tournament_id>/matches/<int:index>", methods=["GET"])
@blp.doc(
    operationId="getTournamentMatch",
    tags=["tournaments"],
    summary="One match with its per-decision records",
    security=[{}, {"ownerKey": []}],
)
@blp.response(200, MatchDetailSchema)
@documents_errors(401, 403, 404)
def get_tournament_match(tournament_id: str, index: int) -> Response:
    """Seats with bot names and versions, status, result, faults per seat and every decision:
    latency, outcome, fallback, and for a fault the bot's HTTP status and (to the bot's owner, or
    the tournament's owner after the end) what it answered. No move or card is in it; while the
    tournament is live, decisions and fault tallies go only to owners of the bots seated here."""
    return jsonify(match_detail(app_context().harness, tournament_id, index, owner_bearer()))


# -- any game's players, a seat's view for its bot's owner, and the players' updates as they come


class LatencySchema(Schema):
    """A seat's answer times in this game."""

    class Meta:
        name = "LatencySummary"

    timed = fields.Integer(required=True, metadata={"description": "Answers whose time was kept."})
    mean_ms = fields.Integer(required=True, allow_none=True, metadata={"description": "Mean ms."})
    median_ms = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Median, ms (null: none)."}
    )
    max_ms = fields.Integer(required=True, allow_none=True, metadata={"description": "Slowest ms."})


class GamePlayerSchema(Schema):
    """One seat of a game and who plays it."""

    class Meta:
        name = "GamePlayer"

    seat = fields.Integer(required=True, metadata={"description": "The seat, from 0."})
    bot_id = fields.String(
        required=True, allow_none=True, metadata={"description": "The seat's bot; null: a game of no match."}
    )
    name = fields.String(
        required=True, metadata={"description": "The bot's name (`Seat N` in a game of no match)."}
    )
    version = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The bot's version (its `GET /`) when the match started; null before."},
    )
    yours = fields.Boolean(
        required=True, metadata={"description": "True when the caller's owner key owns the seat's bot."}
    )
    faults = fields.Nested(
        SeatFaultsSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The seat's calls and faults; null while `withheld` or with no match."},
    )
    reasons = fields.List(
        fields.String(),
        required=True,
        allow_none=True,
        metadata={
            "description": "The faults by reason in plain words with advice, most frequent first "
            "(`3 timed out: is the bot slow, ...?`); null with `faults`."
        },
    )
    latency = fields.Nested(
        LatencySchema,
        required=True,
        allow_none=True,
        metadata={"description": "The seat's answer times; null while `withheld` or in a game of no match."},
    )


class GamePlayersSchema(Schema):
    """getGamePlayers answer: who plays a game, how their bots fared, where it belongs."""

    class Meta:
        name = "GamePlayers"

    game_id = fields.String(required=True, metadata={"description": "The game."})
    game = fields.String(required=True, metadata={"description": "Which game is played."})
    seats = fields.Integer(required=True, metadata={"description": "The number of seats."})
    version = fields.Integer(required=True, metadata={"description": "The game's version now."})
    status = fields.String(
        required=True, metadata={"description": "The game's status: `waiting`, `active` or `finished`."}
    )
    sealed = fields.Boolean(
        required=True,
        metadata={
            "description": "True while the game cannot be watched without a seat (a tournament game "
            "before its tournament has ended); its bots' owners watch their seats (getGameSeatView)."
        },
    )
    source = fields.String(
        required=True,
        validate=validate.OneOf(["tournament", "game"]),
        metadata={"description": "`tournament`: a tournament match's game; `game`: a game of no match."},
    )
    tournament_id = fields.String(
        required=True, allow_none=True, metadata={"description": "The match's tournament (null: none)."}
    )
    tournament_name = fields.String(
        required=True, allow_none=True, metadata={"description": "The tournament's name (null: none)."}
    )
    match_index = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The match's index in it (null: none)."}
    )
    withheld = fields.Boolean(
        required=True,
        metadata={"description": "As getTournamentMatch's: no decisions, faults or latencies yet."},
    )
    players = fields.List(
        fields.Nested(GamePlayerSchema), required=True, metadata={"description": "Per seat, in order."}
    )
    decisions = fields.List(
        fields.Nested(DecisionSchema),
        required=True,
        metadata={"description": "The match's decisions as getTournamentMatch shows them to this caller."},
    )
    details_shown = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "The bots whose fault details this caller's key may read."},
    )


def _harness() -> HarnessContext:
    return app_context().harness


game_errors = ErrorDocs(blp, ERROR_TEXT)
seat_view_errors = ErrorDocs(
    blp,
    {
        401: "No owner key (code `missing_token`), or an Authorization header that is not `Bearer <key>` "
        "(`invalid_authorization`).",
        403: "The key does not own the bot seated there (code `not_owner`).",
        404: "No such game (`game_not_found`), no such seat (`seat_not_found`), or a game of no "
        "tournament match (`not_a_match_game`: use its seat token with getGame).",
    },
)


@blp.route("/games/<game_id:game_id>/players", methods=["GET"])
@blp.doc(
    operationId="getGamePlayers",
    tags=["games"],
    summary="Who plays a game: names, faults, latencies",
    security=[{}, {"ownerKey": []}],
)
@blp.response(200, GamePlayersSchema)
@game_errors(401, 404)
def get_game_players(game_id: str) -> Response:
    """Per seat the bot (id, name, version), whether the caller's owner key owns it, its faults with
    their reasons and its answer times, and the tournament match the game belongs to. Readable for
    any game, sealed or not (no move or card is in it); while the tournament is live, faults,
    latencies and decisions go only to owners of the bots seated here (`withheld`), as
    getTournamentMatch. A key that owns no bot here reads what anyone reads."""
    return jsonify(game_players(_harness(), game_id, owner_bearer()))


@blp.route("/games/<game_id:game_id>/seats/<int:seat>/view", methods=["GET"])
@blp.doc(
    operationId="getGameSeatView",
    tags=["games"],
    summary="A seat's view, for the owner of the bot in it",
    security=[{"ownerKey": []}],
)
@blp.response(200, "Game", headers=GAME_HEADERS)
@seat_view_errors(401, 403, 404)
def get_game_seat_view(game_id: str, seat: int) -> Response:
    """The game as the bot in `seat` sees it (getGame with that seat's token: exactly what the bot
    itself is sent, its own hand and legal moves, no other hidden card), for the owner of that bot
    (`Authorization: Bearer <owner key>`), while the game runs and after, sealed or not: so an
    owner watches a live tournament game from the bot's seat."""
    key = owner_bearer()
    if key is None:
        raise errors.MissingToken("use 'Authorization: Bearer <owner key>'")
    check_seat_owner(_harness(), game_id, seat, key)
    svc = service()
    stored = svc.load(game_id, with_actions=False)
    return with_etag(svc.render(stored, seat), stored.version)


@blp.route("/games/<game_id:game_id>/players/stream", methods=["GET"])
@blp.doc(
    operationId="streamGamePlayers",
    tags=["games"],
    summary="getGamePlayers as server-sent events, at every change",
    description="An `event: players` with getGamePlayers's document as anyone reads it (no key) "
    "first and again whenever it changes: a move, a decision recorded, the game's end, its "
    "tournament's end (unsealed). Ends with an `end` event once the game is over and watchable "
    "(`finished`), or after `timeout` seconds (`timeout`, capped by the server): reconnect. "
    "Counted with streamGameEvents's streams against the same caps (docs/operations.md, Limits). "
    "A page that holds an owner key reads getGamePlayers with it when told of a change.",
    parameters=[TIMEOUT],
    responses={
        200: {
            "description": "A text/event-stream of messages (each one as PlayersSseMessage describes).",
            "headers": {"Cache-Control": {"description": "`no-cache`.", "schema": {"type": "string"}}},
            "content": {"text/event-stream": {"schema": ref("PlayersSseMessage")}},
        }
    },
)
@blp.arguments(StreamTimeoutQuerySchema, location="query")
@game_errors(404, 422, 429)
def stream_game_players(query: dict[str, Any], game_id: str) -> Response:
    """The players' document at every change, from the process's event hub (no poll of the game):
    a move wakes it at once; decisions and the tournament's end are read again every few seconds."""
    ctx = _harness()
    first = game_players(ctx, game_id, None)  # 404 before the stream starts
    return open_stream(
        game_id, query["timeout"], lambda listener, lifetime: _player_updates(ctx, listener, first, lifetime)
    )


def _player_updates(
    ctx: HarnessContext, listener: Listener, doc: dict[str, Any], lifetime: float
) -> Iterator[str]:
    deadline = time.monotonic() + lifetime
    yield "retry: 2000\n\n"
    sent = ""
    while True:
        data = json.dumps(doc, separators=(",", ":"))
        if data != sent:
            yield f"event: players\ndata: {data}\n\n"
            sent = data
        if doc["status"] == "finished" and not doc["sealed"]:
            yield 'event: end\ndata: {"reason": "finished"}\n\n'
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            yield 'event: end\ndata: {"reason": "timeout"}\n\n'
            return
        batches, _lost = listener.take(min(remaining, KEEPALIVE_S))
        if not batches:
            yield ": keep-alive\n\n"
        try:
            doc = game_players(ctx, listener.game_id, None)
        except errors.GameNotFound:
            yield 'event: end\ndata: {"reason": "game_not_found"}\n\n'
            return


def register(api: Api, app: Flask) -> None:
    """Hook for the app factory."""
    api.register_blueprint(blp)
