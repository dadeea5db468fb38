"""The tournaments and leagues blueprint: HTTP around `harness.tournaments` (no logic lives here).

Registered by the app factory (`api.app.create_app`) through `register(api, app)`.
The harness context shares the games repository's Redis client and key prefix and the bots
registry; matches are queued on RQ queue ``TRICKARENA_QUEUE`` (app config, then environment,
default ``trickarena``) where `trickarena worker` processes pick them up.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from flask import Flask, Response, jsonify
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api import limits
from api.blueprint_util import (
    Api,
    Blueprint,
    ErrorDocs,
    at_least_one_of,
    game_name_field,
    not_null,
    seats_per_game,
)
from api.context import app_context
from api.games_api import key_before_body, owner_bearer
from api.schemas import JsonInteger
from core import errors
from core.timing import DEFAULT as TIMING
from core.wire.common import ObjectRef, Ref
from harness import catalog
from harness import tournaments as ops
from harness.ratings import PROVISIONAL_DEALS
from harness.runner import HarnessContext

blp = Blueprint("tournaments", __name__, description="Tournaments and leagues of bots.")

BOT_ID = validate.Regexp(r"^[0-9a-f]{16}$", error="a bot id: 16 lowercase hex digits")
# A tournament's or league's name: 1-80 characters, no control characters, not starting or ending
# with white space (the same rule in the spec's pattern and here).
NAME_MAX = 80
NAME_PATTERN = r"^[^\s\x00-\x1f\x7f](?:[^\x00-\x1f\x7f]{0,78}[^\s\x00-\x1f\x7f])?$"
NAME_RULE = f"1-{NAME_MAX} characters, no control characters, no white space at either end"
CURSOR = validate.Regexp(r"^[0-9]{1,9}$", error="a cursor from a listing's answer")


def _name_field(description: str, **kwargs: Any) -> fields.String:
    return fields.String(
        validate=validate.Regexp(NAME_PATTERN, error=NAME_RULE),
        metadata={"description": f"{description} ({NAME_RULE})."},
        **kwargs,
    )


OWNER_AUTH: list[dict[str, list[str]]] = [{"ownerKey": []}]
ERROR_TEXT = {
    401: "No key (code `missing_token`, or `invalid_authorization` when not a Bearer header).",
    403: "Not the right key (code `not_owner`), or an entrant that is not open to challenges was "
    "entered without its owner key (code `entrant_not_authorized`, `details.bot_id`).",
    404: "No such tournament, league or bot (`tournament_not_found`, `league_not_found`, `bot_not_found`).",
    409: "Conflict: the tournament is already over (`tournament_over`), the bot is not a member "
    "(`not_a_member`) or was deleted (`bot_deleted`), the league was deleted (`league_deleted`), or "
    "a league round's own key was to be rotated (`league_round`: rotate the league's), or (createLeague, "
    "createTournament) a cap on live leagues or tournaments per owner key, per client address or in all "
    "is reached (`quota_exceeded`, `details.cap` and `details.max`; nothing created).",
    410: "The league was deleted (`league_deleted`); its rounds stay readable as tournaments.",
    413: "The request body is too large (code `body_too_large`).",
    422: "Invalid JSON or fields (`invalid_json`, `validation_error`), or an impossible tournament: "
    "`unknown_game`, `invalid_seats`, `bot_game_mismatch`, `duplicate_entrants`, `invalid_schedule`, "
    "`schedule_too_large`, `invalid_options`.",
}


documents_errors = ErrorDocs(blp, ERROR_TEXT)


def context() -> HarnessContext:
    """The app's harness context."""
    return app_context().harness


def _json(body: Any, status: int = 200) -> Response:
    response = jsonify(body)
    response.status_code = status
    return response


def _created(body: dict[str, Any], location: str) -> Response:
    response = _json(body, 201)
    response.headers["Location"] = location
    return response


def _match_settings(body: dict[str, Any]) -> dict[str, Any]:
    # How each match is played: the fields tournaments and leagues share (`_MatchSettings`).
    return {
        "deals": body["deals"],
        "deadline_ms": body["deadline_ms"],
        "time_bank_ms": body["time_bank_ms"],
        "options": body["options"] or None,
        "max_tables": body["max_tables"],
        "appearances": body["appearances"],
        "max_matches": body["max_matches"],
    }


# --------------------------------------------------------------------------- schemas


class _MatchSettings(Schema):
    game = game_name_field("Name of the game to play.", required=True)
    seats = JsonInteger(
        required=True,
        validate=validate.Range(min=1, max=16),
        metadata={"description": "Seats per table (1-16)."},
    )
    deals = JsonInteger(
        load_default=1, validate=validate.Range(min=1, max=1000), metadata={"description": "Deals per table."}
    )
    deadline_ms = JsonInteger(
        load_default=TIMING.deadline_ms,
        validate=validate.Range(min=10, max=60000),
        metadata={"description": "Per move."},
    )
    time_bank_ms = JsonInteger(
        load_default=TIMING.time_bank_ms,
        validate=validate.Range(min=0, max=600000),
        metadata={
            "description": "Extra time per seat per match, used when a move takes longer than the deadline."
        },
    )
    options = ObjectRef(
        "GameOptions",
        load_default=dict,
        metadata={
            "description": "Options of every match: the game's own options (its `NewOptions`), each left "
            "out taking its default; absent: the defaults. Checked by the game (422 invalid_options)."
        },
    )
    max_tables = JsonInteger(
        load_default=60,
        validate=validate.Range(min=1, max=1000),
        metadata={
            "description": "Round robin: past this many tables a pair-covering balanced subset of "
            "exactly this many is played; `coverage` tells whether every pair of entrants met "
            "(docs/harness.md, Scheduling)."
        },
    )
    appearances = JsonInteger(
        load_default=1,
        validate=validate.Range(min=1, max=100),
        metadata={
            "description": "Rating pairing: tables each entrant plays (raised to the least value at "
            "which the field fills whole tables, so that every entrant plays equally often)."
        },
    )
    max_matches = JsonInteger(
        load_default=ops.MAX_MATCHES,
        validate=validate.Range(min=1, max=ops.MAX_MATCHES),
        metadata={
            "description": "Match budget. A tournament over it is refused (422 schedule_too_large); "
            "a league round plays `max_tables` tables, or more to seat every member `appearances` "
            "times, within it, every member within one table of the others (docs/harness.md, Budget)."
        },
    )


class CreateTournamentSchema(_MatchSettings):
    """createTournament request."""

    class Meta:
        name = "CreateTournament"

    JSON_SCHEMA = seats_per_game()

    name = _name_field(
        "Shown in listings and on the web pages; default `<game> tournament <first 6 digits of its id>`",
        load_default=None,
    )

    entrants = fields.List(
        fields.String(validate=BOT_ID),
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "Bot ids; with fewer bots than seats a bot fills several seats."},
    )
    start_at = fields.AwareDateTime(
        load_default=None,
        allow_none=True,
        default_timezone=UTC,
        metadata={"description": "Start later (ISO 8601)."},
    )
    seed = JsonInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=2**53),
        metadata={
            "description": "For reproducible practice runs only: whoever chooses the seed knows every "
            "deal, so a tournament with a chosen seed is marked `practice` and never counts toward a "
            "league. Without it the seed is secret and random, published once the tournament ends."
        },
    )
    owner_keys = fields.List(
        fields.String(validate=validate.Length(min=1, max=128)),
        load_default=list,
        validate=validate.Length(max=64),
        metadata={
            "description": "Owner keys of the entrants you own: a bot that is not open to challenges "
            "can only be entered with its owner key (403 entrant_not_authorized otherwise)."
        },
    )
    fault_threshold = JsonInteger(
        load_default=3,
        validate=validate.Range(min=0, max=1000),
        metadata={"description": "A bot with more faults than this in a match is not rated for that match."},
    )
    pairing = fields.String(
        load_default="round_robin",
        validate=validate.OneOf(["round_robin", "rating", "auto"]),
        metadata={
            "description": "`round_robin` (default): every table, or a pair-covering subset past "
            "max_tables; `rating`: rating-based matchmaking, every entrant at `appearances` tables; "
            "`auto`: round robin up to 64 entrants."
        },
    )


class TournamentProgressSchema(Schema):
    """How far a tournament is."""

    class Meta:
        name = "TournamentProgress"

    total = fields.Integer(required=True, metadata={"description": "Matches in the tournament's schedule."})
    completed = fields.Integer(required=True, metadata={"description": "Matches completed so far."})
    fraction = fields.Float(required=True, metadata={"description": "completed / total, from 0 to 1."})


class CoverageSchema(Schema):
    """Which pairs of entrants the schedule seats together, and how evenly it spreads tables."""

    class Meta:
        name = "Coverage"

    pairs_met = fields.Integer(
        required=True, metadata={"description": "Pairs of distinct entrants that share at least one table."}
    )
    pairs_total = fields.Integer(required=True, metadata={"description": "Pairs of distinct entrants."})
    all_pairs_met = fields.Boolean(
        required=True,
        metadata={
            "description": "False when the table budget was too small for every pair to meet "
            "(raise max_tables to cover them; a league's round robin rounds rotate, so a stable "
            "field meets every pair within a documented number of rounds)."
        },
    )
    min_tables = fields.Integer(required=True, metadata={"description": "Fewest tables an entrant plays."})
    max_tables = fields.Integer(required=True, metadata={"description": "Most tables an entrant plays."})


class TournamentSchema(Schema):
    """A tournament: its settings, status and progress."""

    class Meta:
        name = "Tournament"

    tournament_id = fields.String(required=True, metadata={"description": "The tournament's id."})
    name = fields.String(
        required=True,
        metadata={
            "description": "The tournament's name: as created, `<game> tournament <id prefix>` by "
            "default, `<league name> · round <n>` for a league round."
        },
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(ops.STATUSES),
        metadata={"description": "`scheduled`, `running`, `finished` or `cancelled`."},
    )
    game = Ref("GameName", required=True, metadata={"description": "Name of the game played."})
    seats = fields.Integer(required=True, metadata={"description": "Seats per table."})
    entrants = fields.List(
        fields.String(), required=True, metadata={"description": "Bot ids of the entrants."}
    )
    deals = fields.Integer(required=True, metadata={"description": "Deals per table."})
    deadline_ms = fields.Integer(
        required=True, metadata={"description": "Time for each move, in milliseconds."}
    )
    time_bank_ms = fields.Integer(
        required=True,
        metadata={
            "description": "Extra time per seat per match, in milliseconds, used when a move takes longer "
            "than the deadline."
        },
    )
    seed = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The seed every deal of the tournament derives from: null until the "
            "tournament has ended (finished, or cancelled and stopped), then published so that "
            "anyone can replay and audit the deals."
        },
    )
    practice = fields.Boolean(
        required=True,
        metadata={
            "description": "True when the creator chose the seed: a practice run whose deals its "
            "creator knows; it never counts toward a league."
        },
    )
    options = Ref(
        "GameOptions",
        required=True,
        metadata={
            "description": "Game options of every match, as given at creation (empty: the game's defaults)."
        },
    )
    fault_threshold = fields.Integer(
        required=True,
        metadata={"description": "A bot with more faults than this in a match is not rated for that match."},
    )
    pairing = fields.String(
        required=True,
        validate=validate.OneOf(["round_robin", "rating"]),
        metadata={"description": "How the tables were drawn (`auto` resolved at creation)."},
    )
    coverage = fields.Nested(
        CoverageSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Pair coverage of the schedule (null for tournaments created before it)."},
    )
    start_at = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When the tournament is to start (ISO 8601, UTC); null when it started at "
            "creation."
        },
    )
    progress = fields.Nested(TournamentProgressSchema, required=True)
    created_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the tournament was created (ISO 8601, UTC); null if not recorded."},
    )
    started_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the tournament started (ISO 8601, UTC); null until it has started."},
    )
    finished_at = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When the tournament ended (ISO 8601, UTC); null until it has finished or was "
            "cancelled."
        },
    )
    league = fields.Nested(
        "LeagueRoundSchema",
        metadata={"description": "Present only for a league's round: the league and the round's number."},
    )


class LeagueRoundSchema(Schema):
    """Which league round a tournament is."""

    class Meta:
        name = "LeagueRound"

    league_id = fields.String(required=True, metadata={"description": "The league's id."})
    round = fields.Integer(required=True, metadata={"description": "The round's number, from 1."})


class CreatedTournamentSchema(TournamentSchema):
    """createTournament answer: the tournament and its owner key (for cancelTournament; shown once)."""

    class Meta:
        name = "CreatedTournament"

    owner_key = fields.String(
        required=True, metadata={"description": "Bearer key for cancelTournament. Shown only now."}
    )


class TournamentMatchResultSchema(Schema):
    """A finished match's result."""

    class Meta:
        name = "MatchResult"

    scores = fields.List(fields.Float(), required=True, metadata={"description": "Score per seat."})
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that won."})
    faults = fields.List(fields.Integer(), required=True, metadata={"description": "Per seat."})
    unrated = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats over the threshold."}
    )
    team_score = fields.Float(metadata={"description": "Cooperative games."})
    reached = fields.Boolean(metadata={"description": "Cooperative games: the threshold was reached."})


class TournamentMatchSchema(Schema):
    """One match: seats, deal, status and the game id (watch it through getGame / streamGameEvents)."""

    class Meta:
        name = "TournamentMatch"

    index = fields.Integer(
        required=True, metadata={"description": "The match's number in the tournament's schedule."}
    )
    table = fields.Integer(
        required=True, metadata={"description": "The table (group of entrants) the match belongs to."}
    )
    deal = fields.Integer(
        required=True,
        metadata={
            "description": "The deal played (the same deal is played at several tables and rotations)."
        },
    )
    rotation = fields.Integer(
        required=True,
        metadata={"description": "The cyclic rotation of the table's seating this match plays."},
    )
    seats = fields.List(fields.String(), required=True, metadata={"description": "Bot id per seat."})
    status = fields.String(
        required=True,
        validate=validate.OneOf(["pending", "playing", "finished", "cancelled", "error"]),
        metadata={"description": "`pending`, `playing`, `finished`, `cancelled` or `error`."},
    )
    game_id = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The game's id (for getGame / streamGameEvents); null until the match has started."
        },
    )
    result = fields.Nested(TournamentMatchResultSchema)
    error = fields.String(metadata={"description": "Why the match could not be played (retries exhausted)."})


class TournamentMatchListSchema(Schema):
    """listTournamentMatches answer: one page of matches, by index."""

    class Meta:
        name = "TournamentMatchList"

    matches = fields.List(
        fields.Nested(TournamentMatchSchema),
        required=True,
        metadata={"description": "The page's matches, by index from `offset` on (at most `limit`)."},
    )
    total = fields.Integer(required=True, metadata={"description": "Matches in the tournament's schedule."})
    offset = fields.Integer(required=True, metadata={"description": "The index of the page's first match."})
    limit = fields.Integer(required=True, metadata={"description": "The page size asked for."})
    next_offset = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `offset` for the next page; null: this page holds the last match."},
    )


class MatchListQuerySchema(Schema):
    """listTournamentMatches page."""

    class Meta:
        name = "MatchListQuery"

    offset = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=1_000_000),
        metadata={"description": "The index of the first match of the page."},
    )
    limit = fields.Integer(
        load_default=ops.MATCH_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=ops.MATCH_PAGE_MAX),
        metadata={
            "description": f"Matches per page, at most {ops.MATCH_PAGE_MAX}, "
            f"by default {ops.MATCH_PAGE_DEFAULT}."
        },
    )


class OpenSkillRatingSchema(Schema):
    """OpenSkill (Plackett-Luce) rating."""

    class Meta:
        name = "Rating"

    mu = fields.Float(required=True, metadata={"description": "Mean of the rating."})
    sigma = fields.Float(
        required=True, metadata={"description": "Uncertainty (standard deviation) of the rating."}
    )
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma."})


class StandingsQuerySchema(Schema):
    """getTournamentStandings / getLeagueStandings page."""

    class Meta:
        name = "StandingsQuery"

    offset = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=1_000_000),
        metadata={"description": "Rows to skip: the page starts at rank offset + 1."},
    )
    limit = fields.Integer(
        load_default=ops.STANDINGS_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=ops.STANDINGS_PAGE_MAX),
        metadata={
            "description": f"Rows per page, at most {ops.STANDINGS_PAGE_MAX}, by default "
            f"{ops.STANDINGS_PAGE_DEFAULT}. The matrix covers the page's entrants; compositions are paged "
            "with the same offset and limit."
        },
    )
    by = fields.String(
        load_default="bot",
        validate=validate.OneOf(["bot", "version"]),
        metadata={
            "description": "`bot` (default): one row per entrant. `version`: one row per bot version "
            "(the version each result recorded), ranked by mean score, with the counts of a bot's row and "
            "`version`, `faults_by_code`; the rating is the bot's (kept per bot), no interval "
            "(`score_ci` null, `provisional` true), no matrix."
        },
    )


class StandingsStatisticsSchema(Schema):
    """How current the intervals are: they are computed in the background, once per change."""

    class Meta:
        name = "StandingsStatistics"

    as_of = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Played matches the intervals cover (null: not computed yet)."},
    )
    current = fields.Boolean(
        required=True,
        metadata={"description": "True when the intervals cover every match counted in `matches`."},
    )


class FaultFlagSchema(Schema):
    """Why an entrant is flagged: most of its calls in this tournament (or league) faulted."""

    class Meta:
        name = "FaultFlag"

    reason = fields.String(
        required=True,
        metadata={
            "description": 'In plain words, from the dominant fault, e.g. "every request answered 401 '
            'bad_signature: is the secret right?".'
        },
    )
    fault = fields.String(
        required=True,
        metadata={
            "description": "The dominant fault reason: a fault code, for `http_status` refined with the "
            "HTTP status and the error code of the bot's JSON body (`http_status:401:bad_signature`)."
        },
    )
    share = fields.Float(
        required=True, metadata={"description": "Faults / calls of the entrant (over 0.5 when flagged)."}
    )


class StandingsRowSchema(Schema):
    """One entrant's line of the standings."""

    class Meta:
        name = "StandingsRow"

    rank = fields.Integer(
        required=True,
        metadata={
            "description": "Rank by mean score (ties by rating ordinal), from 1: the one measure of the "
            "order, the intervals, the separation marks and the web chart."
        },
    )
    entrant = fields.String(required=True, metadata={"description": "The entrant's bot id."})
    games = fields.Integer(required=True, metadata={"description": "Seat-games played."})
    wins = fields.Integer(required=True, metadata={"description": "Shared wins included."})
    shared_wins = fields.Integer(required=True, metadata={"description": "Wins shared with other seats."})
    win_rate = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "wins / games; null when the entrant has played no games."},
    )
    mean_score = fields.Float(
        required=True, allow_none=True, metadata={"description": "Coins, or team points."}
    )
    score_ci = fields.List(
        fields.Float(),
        required=True,
        allow_none=True,
        metadata={
            "description": "95% interval over deals (a percentile bootstrap up to 20 deals, "
            "the cluster-robust normal interval above)."
        },
    )
    provisional = fields.Boolean(
        required=True,
        metadata={
            "description": "True while the interval is not computed yet or comes from fewer than "
            f"{PROVISIONAL_DEALS} deals: too few to be trusted, so it separates the entrant from no "
            "one (docs/harness.md, Standings)."
        },
    )
    rating = fields.Nested(OpenSkillRatingSchema, required=True)
    faults = fields.Integer(required=True, metadata={"description": "Faults the entrant made in all."})
    unrated_matches = fields.Integer(
        required=True,
        metadata={
            "description": "Matches in which the entrant was not rated (more faults than the fault "
            "threshold)."
        },
    )
    threshold_rate = fields.Float(allow_none=True, metadata={"description": "Cooperative games."})
    version = fields.String(
        metadata={"description": 'With `by=version`: the bot\'s version this row counts ("" if unknown).'}
    )
    faults_by_code = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={"description": "With `by=version`: this version's faults by fault code."},
    )
    flag = fields.Nested(
        FaultFlagSchema,
        allow_none=True,
        metadata={
            "description": "Set when more than half of the entrant's /move calls faulted, with the reason "
            "in plain words; null otherwise."
        },
    )
    not_separated_from = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "Entrants whose intervals overlap this one's, nearest in rank first, at most "
            "20 (the count is `not_separated_count`)."
        },
    )
    not_separated_count = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "How many entrants this one is not separated from (null until computed)."},
    )
    separated = fields.Boolean(
        required=True,
        metadata={
            "description": "True when no other entrant's interval overlaps this one's (`not_separated_from` "
            "is empty)."
        },
    )


class FaultCountsSchema(Schema):
    """One entrant's faults in the standings' scope."""

    class Meta:
        name = "FaultCounts"

    total = fields.Integer(required=True, metadata={"description": "Faults the entrant made in all."})
    by_code = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": "Faults by fault code (docs/bot-protocol.md: `timeout`, `illegal_move`, ...); a "
            "code the entrant never made is absent."
        },
    )
    by_reason = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": "Faults by reason: a fault code, for `http_status` refined with the HTTP status "
            "and the error code of the bot's JSON body (`http_status:401:bad_signature`); at most "
            "8 reasons, the rest under their bare code. Empty for matches played before reasons "
            "were recorded."
        },
    )
    unrated_matches = fields.Integer(
        required=True,
        metadata={"description": "Matches in which the entrant had more faults than the threshold."},
    )


class HeadToHeadCellSchema(Schema):
    """Competitive standings: how the row's entrant fared against the column's, over every pair of their
    seats at the same match."""

    class Meta:
        name = "HeadToHeadCell"

    wins = fields.Integer(required=True, metadata={"description": "Times the row scored more."})
    losses = fields.Integer(required=True, metadata={"description": "Times the row scored less."})
    ties = fields.Integer(required=True, metadata={"description": "Times both scored the same."})
    rate = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "(wins + ties / 2) / meetings; null when they never met."},
    )


class CrossPlayCellSchema(Schema):
    """Cooperative standings: the mean team score of the games the row's and the column's entrants played
    together (on the diagonal: an entrant's self-play)."""

    class Meta:
        name = "CrossPlayCell"

    games = fields.Integer(required=True, metadata={"description": "Games they played together."})
    mean = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Their mean team score; null when they never played together."},
    )


class CompositionSchema(Schema):
    """Cooperative standings: one team composition (its members, sorted) and how it scored."""

    class Meta:
        name = "Composition"

    members = fields.List(
        fields.String(), required=True, metadata={"description": "Bot ids of the team, sorted."}
    )
    games = fields.Integer(required=True, metadata={"description": "Games the team played."})
    mean_score = fields.Float(
        required=True, allow_none=True, metadata={"description": "Mean team score; null with no games."}
    )
    score_ci = fields.List(
        fields.Float(),
        required=True,
        allow_none=True,
        metadata={"description": "95% interval of the mean team score over deals; null until computed."},
    )
    provisional = fields.Boolean(
        required=True,
        metadata={
            "description": "True while the interval is not computed yet or comes from fewer than "
            f"{PROVISIONAL_DEALS} deals: too few to be trusted (docs/harness.md, Standings)."
        },
    )
    threshold_rate = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Share of the games that reached the threshold; null with no games."},
    )


class StandingsSchema(Schema):
    """Standings: rows, matrices (head-to-head, or cross-play and compositions) and fault counts."""

    class Meta:
        name = "Standings"

    matches = fields.Integer(required=True, metadata={"description": "Played matches counted."})
    cooperative = fields.Boolean(
        required=True,
        metadata={"description": "True for a cooperative game (team score, cross-play and compositions)."},
    )
    total_rows = fields.Integer(
        required=True, metadata={"description": "Entrants in the standings (all pages)."}
    )
    offset = fields.Integer(
        required=True, metadata={"description": "The page's first row is rank offset + 1."}
    )
    limit = fields.Integer(required=True, metadata={"description": "Rows per page asked for."})
    rows = fields.List(
        fields.Nested(StandingsRowSchema), required=True, metadata={"description": "The page."}
    )
    faults = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(FaultCountsSchema),
        required=True,
        metadata={"description": "Per entrant of the page: total, by_code, by_reason, unrated_matches."},
    )
    statistics = fields.Nested(StandingsStatisticsSchema, required=True)
    head_to_head = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(keys=fields.String(), values=fields.Nested(HeadToHeadCellSchema)),
        metadata={
            "description": "Present for a competitive game: [row][column] (bot ids) over the page's "
            "entrants, the diagonal left out."
        },
    )
    cross_play = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(keys=fields.String(), values=fields.Nested(CrossPlayCellSchema)),
        metadata={
            "description": "Present for a cooperative game: [row][column] (bot ids) over the page's "
            "entrants, the diagonal included (self-play)."
        },
    )
    compositions = fields.List(
        fields.Nested(CompositionSchema),
        metadata={"description": "Cooperative: team compositions by mean score, this page of them."},
    )
    compositions_total = fields.Integer(metadata={"description": "Cooperative: compositions in all."})
    tournament_id = fields.String(metadata={"description": "Tournament standings: the tournament's id."})
    league_id = fields.String(metadata={"description": "League standings: the league's id."})
    final = fields.Boolean(
        metadata={
            "description": "Tournament standings: true once the tournament has finished; false while they "
            "are live."
        }
    )
    status = fields.String(metadata={"description": "Tournament standings: the tournament's status."})
    rounds = fields.Integer(metadata={"description": "League standings: rounds of the league so far."})
    by = fields.String(
        metadata={"description": "`version` when the rows are per bot version (`by=version`)."}
    )


class CreateLeagueSchema(_MatchSettings):
    """createLeague request: exactly one of interval_s and cron."""

    class Meta:
        name = "CreateLeague"

    JSON_SCHEMA = {"oneOf": [not_null(["interval_s"]), not_null(["cron"])], **seats_per_game()}

    name = _name_field(
        "The league's name; default `<game> league <first 6 digits of its id>`; its rounds are named "
        "`<league name> · round <n>`",
        load_default=None,
    )
    pairing = fields.String(
        load_default="auto",
        validate=validate.OneOf(["round_robin", "rating", "auto"]),
        metadata={
            "description": "How each round pairs the members: `auto` (default) is round robin up to "
            "64 members and rating-based matchmaking above; see createTournament."
        },
    )
    interval_s = JsonInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=366 * 86400),
        metadata={"description": "Seconds between rounds; give exactly one of interval_s and cron."},
    )
    cron = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=128),
        metadata={
            "description": "A cron expression (UTC) for the rounds; give exactly one of interval_s and cron. "
            "Five numeric fields (minute, hour, day of month, month, day of week 0-7; each a comma list "
            "of `*`, `N` or `N-M`, with an optional `/step`) and optionally a sixth, the second; rounds "
            "at least `TRICKARENA_MIN_LEAGUE_INTERVAL_S` apart (422 `invalid_schedule` otherwise).",
            "pattern": ops.CRON_PATTERN,
        },
    )

    @validates_schema
    def _one_schedule(self, data: dict[str, Any], **kwargs: Any) -> None:
        if (data.get("interval_s") is None) == (data.get("cron") is None):
            raise ValidationError("give exactly one of interval_s or cron")


class UpdateLeagueSchema(Schema):
    """updateLeague request (the league's owner key): any of name, status, a new schedule."""

    class Meta:
        name = "UpdateLeague"

    JSON_SCHEMA = {
        **at_least_one_of(["name", "status", "interval_s", "cron"]),
        "not": not_null(["interval_s", "cron"]),
    }

    name = _name_field(
        "A new name (rounds created from then on carry it)", load_default=None, allow_none=True
    )
    status = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(["active", "paused"]),
        metadata={
            "description": "`paused`: no round starts until `active` again (then one period from now)."
        },
    )
    interval_s = JsonInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=366 * 86400),
        metadata={
            "description": "A new schedule: seconds between rounds (the next round one period from now)."
        },
    )
    cron = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=128),
        metadata={
            "description": "A new schedule: a cron expression (UTC), as createLeague's.",
            "pattern": ops.CRON_PATTERN,
        },
    )

    @validates_schema
    def _something(self, data: dict[str, Any], **kwargs: Any) -> None:
        if not any(v is not None for v in data.values()):
            raise ValidationError("give at least one of name, status, interval_s, cron")
        if data.get("interval_s") is not None and data.get("cron") is not None:
            raise ValidationError("give at most one of interval_s and cron")


class LeagueScheduleSchema(Schema):
    """When a league's rounds run: exactly one of `interval_s` and `cron`."""

    class Meta:
        name = "LeagueSchedule"

    interval_s = fields.Integer(
        metadata={"description": "Present for an interval schedule: seconds between rounds."}
    )
    cron = fields.String(metadata={"description": "Present for a cron schedule: the cron expression (UTC)."})


class LeagueSchema(Schema):
    """A league: its settings, members, rounds and the next round time."""

    class Meta:
        name = "League"

    league_id = fields.String(required=True, metadata={"description": "The league's id."})
    name = fields.String(required=True, metadata={"description": "The league's name."})
    game = Ref("GameName", required=True, metadata={"description": "Name of the game played."})
    seats = fields.Integer(required=True, metadata={"description": "Seats per table."})
    schedule = fields.Nested(
        "LeagueScheduleSchema",
        required=True,
        metadata={
            "description": 'When rounds run: `{"interval_s": seconds}` or `{"cron": expression}` (UTC).'
        },
    )
    deals = fields.Integer(required=True, metadata={"description": "Deals per table."})
    deadline_ms = fields.Integer(
        required=True, metadata={"description": "Time for each move, in milliseconds."}
    )
    time_bank_ms = fields.Integer(
        required=True,
        metadata={
            "description": "Extra time per seat per match, in milliseconds, used when a move takes longer "
            "than the deadline."
        },
    )
    pairing = fields.String(
        required=True,
        validate=validate.OneOf(["round_robin", "rating", "auto"]),
        metadata={"description": "How each round pairs the members."},
    )
    appearances = fields.Integer(
        required=True,
        metadata={"description": "Tables per member per round, at least (within the match budget)."},
    )
    max_matches = fields.Integer(
        required=True,
        metadata={
            "description": "Per-round match budget (a round is sized to fit it; docs/harness.md, Budget)."
        },
    )
    max_members = fields.Integer(required=True, metadata={"description": "Member cap (409 league_full)."})
    status = fields.String(required=True, metadata={"description": "`active`, `paused` or `deleted`."})
    members = fields.List(fields.String(), required=True, metadata={"description": "Bot ids of the members."})
    rounds = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": f"Tournament ids of the latest {ops.ROUNDS_LISTED} rounds at most, oldest first "
            "(`rounds_total` counts them all)."
        },
    )
    rounds_total = fields.Integer(required=True, metadata={"description": "Rounds started so far."})
    next_round = fields.Integer(required=True, metadata={"description": "Number of the next round (from 1)."})
    next_at = fields.String(
        required=True, metadata={"description": "When the next round is due (ISO 8601, UTC)."}
    )
    created_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the league was created (ISO 8601, UTC); null if not recorded."},
    )


class JoinLeagueSchema(Schema):
    """joinLeague request (with the bot's owner key, or the league's, as Bearer)."""

    class Meta:
        name = "JoinLeague"

    bot_id = fields.String(
        required=True,
        validate=BOT_ID,
        metadata={
            "description": "Id of the bot to join (16 lowercase hex digits). The Bearer is its owner key, "
            "or the league's owner key when the bot is open to challenges (it then plays only while it "
            "stays open)."
        },
    )


# --------------------------------------------------------------------------- tournaments


class CreatedLeagueSchema(LeagueSchema):
    """createLeague answer: the league and its owner key (for updateLeague, deleteLeague and
    cancelling its rounds; shown once)."""

    class Meta:
        name = "CreatedLeague"

    owner_key = fields.String(required=True, metadata={"description": "Shown only now."})


@blp.route("/tournaments", methods=["POST"])
@blp.doc(operationId="createTournament", tags=["tournaments"], summary="Create a round-robin tournament")
@blp.arguments(CreateTournamentSchema)
@blp.response(201, CreatedTournamentSchema)
@documents_errors(403, 404, 409, 413, 422)
def create_tournament(body: dict[str, Any]) -> Response:
    """Schedule every match (now, or at start_at) and queue them for the workers. Every entrant is
    first asked `GET /` (signed, all at once, 2 s each): if any does not answer, nothing is created
    and the 422 `entrants_unreachable` lists which bots did not answer and why (league rounds are
    not checked this way)."""
    created = app_context().quotas.create(
        "tournament",
        limits.client_address(),
        [limits.bearer(), *body["owner_keys"]],
        lambda: _create_tournament(body),
        lambda made: str(made["tournament_id"]),
    )
    return _created(created, f"/tournaments/{created['tournament_id']}")


def _create_tournament(body: dict[str, Any]) -> dict[str, Any]:
    return ops.create_tournament(
        context(),
        body["game"],
        body["seats"],
        body["entrants"],
        start_at=body["start_at"],
        seed=body["seed"],
        fault_threshold=body["fault_threshold"],
        owner_keys=body["owner_keys"],
        pairing=body["pairing"],
        check_answers=True,
        name=body["name"],
        **_match_settings(body),
    )


@blp.route("/tournaments/<string:tournament_id>", methods=["GET"])
@blp.doc(operationId="getTournament", tags=["tournaments"], summary="A tournament's state and progress")
@blp.response(200, TournamentSchema)
@documents_errors(404)
def get_tournament(tournament_id: str) -> Response:
    """Status and progress."""
    return _json(ops.get_tournament(context(), tournament_id))


@blp.route("/tournaments/<string:tournament_id>/matches", methods=["GET"])
@blp.doc(operationId="listTournamentMatches", tags=["tournaments"], summary="The matches, a page at a time")
@blp.arguments(MatchListQuerySchema, location="query")
@blp.response(200, TournamentMatchListSchema)
@documents_errors(404, 422)
def list_tournament_matches(query: dict[str, Any], tournament_id: str) -> Response:
    """Matches by index with their seats, deal, status, game id (viewable through the games API
    while they are played) and result; at most `limit` from `offset` on."""
    return _json(ops.match_page(context(), tournament_id, query["offset"], query["limit"]))


@blp.route("/tournaments/<string:tournament_id>/standings", methods=["GET"])
@blp.doc(
    operationId="getTournamentStandings", tags=["tournaments"], summary="Standings (live until finished)"
)
@blp.arguments(StandingsQuerySchema, location="query")
@blp.response(200, StandingsSchema)
@documents_errors(404, 422)
def get_tournament_standings(query: dict[str, Any], tournament_id: str) -> Response:
    """Games, wins, mean score with its interval, ratings, head-to-head or cross-play, faults: one
    page of rows, ranked by mean score (ratings kept as results come in; intervals computed in the
    background, see `statistics`)."""
    return _json(ops.get_standings(context(), tournament_id, query["offset"], query["limit"], query["by"]))


@blp.route("/tournaments/<string:tournament_id>/cancel", methods=["POST"])
@blp.doc(
    operationId="cancelTournament",
    tags=["tournaments"],
    summary="Cancel a tournament (its owner key)",
    security=OWNER_AUTH,
)
@blp.response(200, TournamentSchema)
@documents_errors(401, 403, 404, 409)
def cancel_tournament(tournament_id: str) -> Response:
    """Queued matches will not start; running ones stop within about a second."""
    return _json(ops.cancel_tournament(context(), tournament_id, owner_bearer()))


# --------------------------------------------------------------------------- leagues


@blp.route("/leagues", methods=["POST"])
@blp.doc(operationId="createLeague", tags=["leagues"], summary="Create a league on a schedule")
@blp.arguments(CreateLeagueSchema)
@blp.response(201, CreatedLeagueSchema)
@documents_errors(409, 413, 422)
def create_league(body: dict[str, Any]) -> Response:
    """Every interval (or cron time) the members play a round robin; ratings carry over."""
    created = app_context().quotas.create(
        "league",
        limits.client_address(),
        [limits.bearer()],
        lambda: ops.create_league(
            context(),
            body["game"],
            body["seats"],
            interval_s=body["interval_s"],
            cron=body["cron"],
            name=body["name"],
            pairing=body["pairing"],
            **_match_settings(body),
        ),
        lambda made: str(made["league_id"]),
    )
    return _created(created, f"/leagues/{created['league_id']}")


@blp.route("/leagues/<string:league_id>", methods=["GET"])
@blp.doc(operationId="getLeague", tags=["leagues"], summary="A league: members, rounds, next round")
@blp.response(200, LeagueSchema)
@documents_errors(404, 410)
def get_league(league_id: str) -> Response:
    """Settings, members and rounds. A deleted league is gone from here and from its standings (410
    `league_deleted`); its rounds stay readable as tournaments, and `listLeagues` still lists it."""
    return _json(_live_league(league_id))


def _live_league(league_id: str) -> dict[str, Any]:
    league = ops.get_league(context(), league_id)
    if league["status"] == "deleted":
        raise errors.Gone(f"league {league_id!r} was deleted", code="league_deleted")
    return league


@blp.route("/leagues/<string:league_id>", methods=["PATCH"])
@blp.doc(
    operationId="updateLeague",
    tags=["leagues"],
    summary="Pause, resume, rename or reschedule a league (its owner key)",
    security=OWNER_AUTH,
)
@key_before_body
@blp.arguments(UpdateLeagueSchema)
@blp.response(200, LeagueSchema)
@documents_errors(401, 403, 404, 409, 413, 422)
def update_league(body: dict[str, Any], league_id: str) -> Response:
    """Only the owner key createLeague returned may change the league."""
    return _json(
        ops.update_league(
            context(),
            league_id,
            owner_bearer(),
            name=body["name"],
            status=body["status"],
            interval_s=body["interval_s"],
            cron=body["cron"],
        )
    )


@blp.route("/leagues/<string:league_id>", methods=["DELETE"])
@blp.doc(
    operationId="deleteLeague",
    tags=["leagues"],
    summary="Delete a league (its owner key)",
    security=OWNER_AUTH,
)
@blp.response(200, LeagueSchema)
@documents_errors(401, 403, 404, 409)
def delete_league(league_id: str) -> Response:
    """No more rounds; the league is gone from getLeague and its standings (410), its rounds stay
    readable as tournaments and listLeagues lists it (status `deleted`)."""
    deleted = ops.delete_league(context(), league_id, owner_bearer())
    app_context().quotas.release("league", league_id)  # its slot in the caps is free again
    return _json(deleted)


@blp.route("/leagues/<string:league_id>/members", methods=["POST"])
@blp.doc(
    operationId="joinLeague",
    tags=["leagues"],
    summary="Join a bot (its owner key, or the league's for a bot open to challenges)",
    security=OWNER_AUTH,
)
@key_before_body
@blp.arguments(JoinLeagueSchema)
@blp.response(200, LeagueSchema)
@documents_errors(401, 403, 404, 409, 413, 422)
def join_league(body: dict[str, Any], league_id: str) -> Response:
    """The bot plays from the next round on. With the bot's owner key any bot joins; with the
    league's owner key only a bot open to challenges does (else 403 `entrant_not_authorized`, as
    createTournament's entrants), and it sits out every round while its owner has it closed."""
    return _json(ops.join_league(context(), league_id, body["bot_id"], owner_bearer()))


@blp.route("/leagues/<string:league_id>/members/<string:bot_id>", methods=["DELETE"])
@blp.doc(
    operationId="leaveLeague",
    tags=["leagues"],
    summary="Take a bot out (its owner key, or the league's)",
    security=OWNER_AUTH,
)
@blp.response(200, LeagueSchema)
@documents_errors(401, 403, 404, 409)
def leave_league(league_id: str, bot_id: str) -> Response:
    """The bot's owner takes it out, or the league's owner does; its past results stay in earlier
    rounds."""
    return _json(ops.leave_league(context(), league_id, bot_id, owner_bearer()))


@blp.route("/leagues/<string:league_id>/standings", methods=["GET"])
@blp.doc(operationId="getLeagueStandings", tags=["leagues"], summary="Standings over every round")
@blp.arguments(StandingsQuerySchema, location="query")
@blp.response(200, StandingsSchema)
@documents_errors(404, 410, 422)
def get_league_standings(query: dict[str, Any], league_id: str) -> Response:
    """Every round's results together, ratings carried round by round: one page of rows."""
    _live_league(league_id)
    return _json(ops.league_standings(context(), league_id, query["offset"], query["limit"], query["by"]))


# --------------------------------------------------------------------------- owner keys


class RotatedTournamentKeySchema(Schema):
    """rotateTournamentKey answer: the tournament and its new owner key (shown only now)."""

    class Meta:
        name = "RotatedTournamentKey"

    tournament = fields.Nested(TournamentSchema, required=True)
    owner_key = fields.String(
        required=True,
        metadata={"description": "The new owner key. Shown once; the old one no longer works."},
    )


class RotatedLeagueKeySchema(Schema):
    """rotateLeagueKey answer: the league and its new owner key (shown only now)."""

    class Meta:
        name = "RotatedLeagueKey"

    league = fields.Nested(LeagueSchema, required=True)
    owner_key = fields.String(
        required=True,
        metadata={
            "description": "The new owner key, of the league and its rounds. Shown once; the old one no "
            "longer works."
        },
    )


def _no_store(body: dict[str, Any]) -> Response:
    response = _json(body)
    response.headers["Cache-Control"] = "no-store"  # it holds a secret
    return response


@blp.route("/tournaments/<string:tournament_id>/keys", methods=["POST"])
@blp.doc(
    operationId="rotateTournamentKey",
    tags=["tournaments"],
    summary="Replace a tournament's owner key (its owner key)",
    description="A new owner key, shown in this answer only; the old key stops working at once (one "
    "compare-and-set: of two rotations with the same old key one wins, the other is 403 `not_owner`). "
    "A league round has no key of its own (409 `league_round`): rotate its league's key.",
    security=OWNER_AUTH,
)
@blp.response(200, RotatedTournamentKeySchema)
@documents_errors(401, 403, 404, 409)
def rotate_tournament_key(tournament_id: str) -> Response:
    """Issue a new owner key for the tournament; the old one stops working at once."""
    return _no_store(ops.rotate_tournament_key(context(), tournament_id, owner_bearer()))


@blp.route("/leagues/<string:league_id>/keys", methods=["POST"])
@blp.doc(
    operationId="rotateLeagueKey",
    tags=["leagues"],
    summary="Replace a league's owner key (its owner key)",
    description="A new owner key, shown in this answer only; the old key stops working at once for "
    "the league and for its rounds (cancelTournament), and listings by owner key follow the new one. "
    "A deleted league's key cannot be rotated (409 `league_deleted`).",
    security=OWNER_AUTH,
)
@blp.response(200, RotatedLeagueKeySchema)
@documents_errors(401, 403, 404, 409)
def rotate_league_key(league_id: str) -> Response:
    """Issue a new owner key for the league and its rounds; the old one stops working at once."""
    return _no_store(ops.rotate_league_key(context(), league_id, owner_bearer()))


# --------------------------------------------------------------------------- listings


def _page_size(what: str) -> fields.Integer:
    return fields.Integer(
        validate=validate.Range(min=1, max=catalog.PAGE_MAX),
        load_default=catalog.PAGE_DEFAULT,
        metadata={
            "description": f"{what} per page ({catalog.PAGE_DEFAULT} by default, at most {catalog.PAGE_MAX})."
        },
    )


def _cursor_field() -> fields.String:
    return fields.String(
        validate=CURSOR,
        load_default=None,
        metadata={"description": "Where to go on: the `next_cursor` of the previous page."},
    )


def _next_cursor_field(what: str) -> fields.String:
    return fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": f"Pass as `cursor` for the next page; null: no more {what}. A page may hold "
            f"fewer than `limit` (each page reads at most {catalog.SCAN_BUDGET} stored {what}) and "
            "still have a next one."
        },
    )


class ListTournamentsQuerySchema(Schema):
    """listTournaments filters and page."""

    class Meta:
        name = "ListTournamentsQuery"

    game = fields.String(
        validate=validate.Length(min=1, max=64),
        load_default=None,
        metadata={"description": "Only tournaments of this game."},
    )
    status = fields.String(
        validate=validate.OneOf(catalog.TOURNAMENT_STATUSES),
        load_default="any",
        metadata={"description": "Only tournaments in this status; `any` (the default): all."},
    )
    league = fields.String(
        validate=BOT_ID,
        load_default=None,
        metadata={"description": "Only the rounds of this league (its id: 16 lowercase hex digits)."},
    )
    limit = _page_size("Tournaments")
    cursor = _cursor_field()


class TournamentSummarySchema(Schema):
    """A tournament as listTournaments shows it."""

    class Meta:
        name = "TournamentSummary"

    tournament_id = fields.String(required=True, metadata={"description": "The tournament's id."})
    name = fields.String(required=True, metadata={"description": "The tournament's name."})
    game = Ref("GameName", required=True, metadata={"description": "Name of the game played."})
    seats = fields.Integer(required=True, metadata={"description": "Seats per table."})
    status = fields.String(
        required=True,
        validate=validate.OneOf(ops.STATUSES),
        metadata={"description": "`scheduled`, `running`, `finished` or `cancelled`."},
    )
    entrants_total = fields.Integer(required=True, metadata={"description": "How many bots entered."})
    entrants = fields.List(
        fields.Nested("ListedEntrantSchema"),
        required=True,
        metadata={
            "description": f"The first {catalog.ENTRANTS_SHOWN} entrants, named (the others are only "
            "counted)."
        },
    )
    practice = fields.Boolean(
        required=True, metadata={"description": "True when the creator chose the seed (a practice run)."}
    )
    progress = fields.Nested(TournamentProgressSchema, required=True)
    created_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the tournament was created (ISO 8601, UTC); null if not recorded."},
    )
    league = fields.Nested(
        "LeagueRoundSchema",
        metadata={"description": "Present only for a league's round: the league and the round's number."},
    )


class ListedEntrantSchema(Schema):
    """An entrant as listTournaments names it."""

    class Meta:
        name = "ListedEntrant"

    bot_id = fields.String(required=True, metadata={"description": "The bot's id."})
    name = fields.String(required=True, metadata={"description": "The bot's name (its id if it is gone)."})


class TournamentListSchema(Schema):
    """listTournaments answer: one page."""

    class Meta:
        name = "TournamentList"

    tournaments = fields.List(
        fields.Nested(TournamentSummarySchema),
        required=True,
        metadata={"description": "Newest first."},
    )
    next_cursor = _next_cursor_field("tournaments")


class ListLeaguesQuerySchema(Schema):
    """listLeagues filters and page."""

    class Meta:
        name = "ListLeaguesQuery"

    game = fields.String(
        validate=validate.Length(min=1, max=64),
        load_default=None,
        metadata={"description": "Only leagues of this game."},
    )
    status = fields.String(
        validate=validate.OneOf(catalog.LEAGUE_STATUSES),
        load_default="any",
        metadata={"description": "Only leagues in this status; `any` (the default): all."},
    )
    limit = _page_size("Leagues")
    cursor = _cursor_field()


class LeagueSummarySchema(Schema):
    """A league as listLeagues shows it."""

    class Meta:
        name = "LeagueSummary"

    league_id = fields.String(required=True, metadata={"description": "The league's id."})
    name = fields.String(required=True, metadata={"description": "The league's name."})
    game = Ref("GameName", required=True, metadata={"description": "Name of the game played."})
    seats = fields.Integer(required=True, metadata={"description": "Seats per table."})
    status = fields.String(
        required=True,
        validate=validate.OneOf(ops.LEAGUE_STATUSES),
        metadata={"description": "`active`, `paused` or `deleted`."},
    )
    members_total = fields.Integer(required=True, metadata={"description": "How many members it has now."})
    rounds_total = fields.Integer(required=True, metadata={"description": "Rounds created so far."})
    schedule = fields.Nested(
        "LeagueScheduleSchema",
        required=True,
        metadata={
            "description": 'When rounds run: `{"interval_s": seconds}` or `{"cron": expression}` (UTC).'
        },
    )
    next_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the next round is due (ISO 8601, UTC)."},
    )
    created_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the league was created (ISO 8601, UTC); null if not recorded."},
    )


class LeagueListSchema(Schema):
    """listLeagues answer: one page."""

    class Meta:
        name = "LeagueList"

    leagues = fields.List(
        fields.Nested(LeagueSummarySchema), required=True, metadata={"description": "Newest first."}
    )
    next_cursor = _next_cursor_field("leagues")


def _cursor(query: dict[str, Any]) -> int | None:
    return None if query["cursor"] is None else int(query["cursor"])


def _next(page: catalog.Page) -> str | None:
    return None if page.next_cursor is None else str(page.next_cursor)


@blp.route("/tournaments", methods=["GET"])
@blp.doc(
    operationId="listTournaments",
    tags=["tournaments"],
    summary="Tournaments, newest first, a page at a time (with an owner key: only that owner's)",
    security=[{}, {"ownerKey": []}],
)
@blp.arguments(ListTournamentsQuerySchema, location="query")
@blp.response(200, TournamentListSchema)
@documents_errors(401, 422)
def list_tournaments(query: dict[str, Any]) -> Response:
    """Tournaments newest first, filtered by game, status and league; with `Authorization: Bearer
    <owner key>` only what that key owns (a tournament's key: that tournament; a league's key: its
    rounds). At most `limit` per page."""
    page = catalog.list_tournaments(
        context(),
        game=query["game"],
        status=query["status"],
        league=query["league"],
        owner_key=owner_bearer(),
        cursor=_cursor(query),
        limit=query["limit"],
    )
    return _json({"tournaments": page.items, "next_cursor": _next(page)})


@blp.route("/leagues", methods=["GET"])
@blp.doc(
    operationId="listLeagues",
    tags=["leagues"],
    summary="Leagues, newest first, a page at a time (with an owner key: only that owner's)",
    security=[{}, {"ownerKey": []}],
)
@blp.arguments(ListLeaguesQuerySchema, location="query")
@blp.response(200, LeagueListSchema)
@documents_errors(401, 422)
def list_leagues(query: dict[str, Any]) -> Response:
    """Leagues newest first, filtered by game and status; with `Authorization: Bearer <owner key>`
    only the league that key owns. At most `limit` per page."""
    page = catalog.list_leagues(
        context(),
        game=query["game"],
        status=query["status"],
        owner_key=owner_bearer(),
        cursor=_cursor(query),
        limit=query["limit"],
    )
    return _json({"leagues": page.items, "next_cursor": _next(page)})


def register(api: Api, app: Flask) -> None:
    """Hook for the app factory: the harness context and the blueprint."""
    if "ownerKey" not in api.spec.components.security_schemes:
        api.spec.components.security_scheme(
            "ownerKey", {"type": "http", "scheme": "bearer", "description": "A secret owner key."}
        )
    api.spec.tag({"name": "tournaments", "description": "Round-robin tournaments of bots."})
    api.spec.tag({"name": "leagues", "description": "Leagues: scheduled rounds with carried-over ratings."})
    api.register_blueprint(blp)
