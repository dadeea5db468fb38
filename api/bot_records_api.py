"""A bot's own records (issue 18, "My bot"): `GET /bots/{id}/matches`.

Paged like listBots (`limit`, `next_cursor`), newest first, from the per-bot indexes the
standings fold writes (`harness.botrecords`); no scan. Public, like listTournamentMatches: a
listed match shows what that list shows, and `sealed` while its tournament runs.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify
from marshmallow import Schema, fields, validate

from api.blueprint_util import Api, Blueprint, ErrorDocs
from api.bots_api import _valid, registry
from api.context import app_context
from core import errors
from core.wire.common import Ref
from harness import botrecords
from harness.tournaments import LeagueNotFound, TournamentNotFound, get_tournament

blp = Blueprint("bot_records", __name__, description="A bot's own records: its matches.")

SCOPE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
CURSOR_PATTERN = r"^[0-9]{1,17}:[A-Za-z0-9_-]{1,64}:[0-9]{1,6}$"
ERROR_TEXT = {
    410: "The bot was deleted (`bot_deleted`): its matches stay in its tournaments' standings.",
    404: "No such bot (`bot_not_found`), or no such tournament or league to filter by "
    "(`tournament_not_found`, `league_not_found`).",
    422: "Invalid query (`validation_error`): both filters at once, a bad `limit` or `cursor`.",
}
documents_errors = ErrorDocs(blp, ERROR_TEXT)


class BotMatchesQuerySchema(Schema):
    """listBotMatches filters and page."""

    class Meta:
        name = "BotMatchesQuery"

    tournament_id = fields.String(
        load_default=None,
        validate=validate.Regexp(SCOPE_ID_PATTERN, error="a tournament id"),
        metadata={"description": "Only this tournament's matches (a league round is a tournament too)."},
    )
    league_id = fields.String(
        load_default=None,
        validate=validate.Regexp(SCOPE_ID_PATTERN, error="a league id"),
        metadata={
            "description": "Only this league's matches (every round). With `tournament_id` too: that "
            "tournament's matches if it is a round of this league, else none."
        },
    )
    limit = fields.Integer(
        load_default=botrecords.DEFAULT_PAGE,
        validate=validate.Range(min=1, max=botrecords.MAX_PAGE),
        metadata={"description": f"Matches per page, at most {botrecords.MAX_PAGE}."},
    )
    cursor = fields.String(
        load_default=None,
        validate=validate.Regexp(CURSOR_PATTERN, error="a cursor from a listBotMatches answer"),
        metadata={"description": "Where to go on: the `next_cursor` of the previous page."},
    )


class BotMatchResultSchema(Schema):
    """The bot's result in one match."""

    class Meta:
        name = "BotMatchResult"

    scores = fields.List(
        fields.Float(), required=True, metadata={"description": "The bot's score in each of its seats."}
    )
    all_scores = fields.List(fields.Float(), required=True, metadata={"description": "Every seat's score."})
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "The winning seats."})
    won = fields.Boolean(required=True, metadata={"description": "True when one of the bot's seats won."})
    faults = fields.Integer(required=True, metadata={"description": "The bot's faults in the match."})
    faults_by_code = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={"description": "The bot's faults by fault code (`timeout`, `http_status`, ...)."},
    )
    unrated = fields.Boolean(
        required=True,
        metadata={"description": "True when the bot passed the fault threshold and was left out of ratings."},
    )
    team_score = fields.Float(
        required=True, allow_none=True, metadata={"description": "Cooperative games: the team's score."}
    )
    reached = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={"description": "Cooperative games: whether the team reached the win threshold."},
    )


class BotMatchSchema(Schema):
    """One of the bot's recorded matches."""

    class Meta:
        name = "BotMatch"

    tournament_id = fields.String(required=True, metadata={"description": "The match's tournament."})
    index = fields.Integer(required=True, metadata={"description": "The match's index in its tournament."})
    game = Ref("GameName", required=True, metadata={"description": "The game played."})
    league_id = fields.String(
        required=True, allow_none=True, metadata={"description": "The league, for a league round's match."}
    )
    league_round = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The league round's number."}
    )
    practice = fields.Boolean(
        required=True, metadata={"description": "A practice tournament's match (its seed was chosen)."}
    )
    sealed = fields.Boolean(
        required=True,
        metadata={"description": "True until the tournament has ended: its game answers 409 `game_sealed`."},
    )
    recorded_at = fields.String(
        required=True, metadata={"description": "When the result entered the standings (ISO 8601, UTC)."}
    )
    deal = fields.Integer(required=True, metadata={"description": "The deal's number in the tournament."})
    seats = fields.List(fields.Integer(), required=True, metadata={"description": "The bot's seats."})
    table = fields.List(fields.String(), required=True, metadata={"description": "Every seat's bot id."})
    opponents = fields.List(
        fields.String(), required=True, metadata={"description": "The other bots at the table."}
    )
    version = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The bot's version (its GET / `version`) when the match ran; null before "
                  "versions were recorded."},
    )  # fmt: skip
    game_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The match's game (replayable once unsealed)."},
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(["finished", "error"]),
        metadata={"description": "`finished`, or `error` for a match that could not be played."},
    )
    error = fields.String(
        required=True, allow_none=True, metadata={"description": "With `error`: what went wrong."}
    )
    result = fields.Nested(
        BotMatchResultSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The bot's result (null for an `error` match)."},
    )


class BotMatchListSchema(Schema):
    """listBotMatches answer: one page."""

    class Meta:
        name = "BotMatchList"

    matches = fields.List(
        fields.Nested(BotMatchSchema), required=True, metadata={"description": "Newest first."}
    )
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `cursor` for the next page; null: no more matches."},
    )


@blp.route("/bots/<string:bot_id>/matches", methods=["GET"])
@blp.doc(operationId="listBotMatches", tags=["bots"], summary="A bot's matches, newest first")
@blp.arguments(BotMatchesQuerySchema, location="query")
@blp.response(200, BotMatchListSchema)
@documents_errors(404, 410, 422)
def list_bot_matches(query: dict[str, Any], bot_id: str) -> Response:
    """The bot's recorded matches (every tournament and league round, or one tournament's or one
    league's), newest first, `limit` per page: tournament, match index, seats, opponents, result,
    faults by code and the bot's version. A match is listed once its result is in the standings."""
    if registry().get(_valid(bot_id))["status"] == "deleted":  # 404 for an unknown bot
        # gone with the bot (as getBot): its results stay in its tournaments' and leagues' standings
        raise errors.Gone(f"bot {bot_id!r} was deleted", code="bot_deleted")
    ctx = app_context().harness
    tid, lid = query["tournament_id"], query["league_id"]
    if tid is not None and not ctx.store.client.exists(ctx.store.key_for("tournament", tid)):
        raise TournamentNotFound(f"no tournament {tid!r}")
    if lid is not None and not ctx.store.client.exists(ctx.store.key_for("league", lid)):
        raise LeagueNotFound(f"no league {lid!r}")
    if tid is not None and lid is not None:
        # Both filters (a query's parameters cannot exclude each other in the spec): the tournament's
        # matches when it is a round of that league, else none.
        if (get_tournament(ctx, tid).get("league") or {}).get("league_id") != lid:
            return jsonify({"matches": [], "next_cursor": None})
        lid = None
    page = botrecords.bot_matches(ctx, bot_id, tid, lid, query["limit"], query["cursor"])
    return jsonify({"matches": page.matches, "next_cursor": page.next_cursor})


def register(api: Api, app: Flask) -> None:
    """Hook for the app factory."""
    api.register_blueprint(blp)
