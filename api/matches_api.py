"""One tournament match in detail, with its per-decision records: HTTP around
`harness.match_detail` (who sees what is decided there; docs/api.md, "A match in detail").

Registered by the app factory (`api.app.create_app`) through `register(api, app)`.
"""

from __future__ import annotations

from flask import Flask, Response, jsonify
from marshmallow import Schema, fields

from api.blueprint_util import Api, Blueprint, ErrorDocs
from api.context import app_context
from api.games_api import owner_bearer
from api.tournaments_api import FaultFlagSchema, TournamentMatchSchema
from harness.match_detail import match_detail
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


def register(api: Api, app: Flask) -> None:
    """Hook for the app factory."""
    api.register_blueprint(blp)
