"""Marshmallow schemas of the HTTP API: requests, responses, errors; the games' types (api.schemas.games)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marshmallow import Schema, fields, pre_load, validate

from api.bounds import MAX_OPTION_INT
from api.error_answers import ERROR_CODES
from api.schemas import games
from api.schemas.games import GAME_ID_PATTERN, MAX_SEED, ref
from core.wire import GAME_WIRE, has_only_known_fields, validate_move
from core.wire.common import Ref
from games.registry import GAMES

if TYPE_CHECKING:
    from apispec import APISpec

__all__ = ["GAME_ID_PATTERN", "GAME_WIRE", "MAX_SEED", "has_only_known_fields", "ref", "validate_move"]

MAX_SEATS = 16


def register_components(spec: APISpec) -> None:
    """Add the games' named types, envelopes and unions (api.schemas.games) to an apispec spec."""
    games.install(spec, [("ErrorDetails", ErrorDetailsSchema), ("Error", ErrorSchema)])


class UnreachableEntrantSchema(Schema):
    """An entrant that did not answer createTournament's `GET /`."""

    class Meta:
        name = "UnreachableEntrant"

    bot_id = fields.String(required=True, metadata={"description": "The bot's id."})
    name = fields.String(required=True, metadata={"description": "The bot's name."})
    code = fields.String(
        required=True,
        metadata={
            "description": "What went wrong, as a bot fault code (`timeout`, `connection_error`, "
            "`http_status`, `malformed_body`, ...)."
        },
    )
    message = fields.String(
        required=True, metadata={"description": "What happened, in words (at most 300 characters)."}
    )


class ErrorDetailsSchema(Schema):
    """What an error adds to its message; which fields are present depends on the `code`."""

    class Meta:
        name = "ErrorDetails"

    version = fields.Integer(
        metadata={
            "description": "With `stale_version`, `seat_moved_meanwhile`, `duplicate_move`: the "
            "game's current version."
        }
    )
    legal_moves = fields.List(
        Ref("Move"),
        metadata={"description": "With `illegal_move`: the moves legal now, as postMove takes them."},
    )
    card = fields.String(metadata={"description": "With some `illegal_move`s: the card refused."})
    fields_ = Ref(
        "FieldErrors",
        data_key="fields",
        metadata={"description": "With `malformed_move`: the field errors of the move."},
    )
    open_seats = fields.List(
        fields.Integer(), metadata={"description": "With `waiting_for_players`: the seats still open."}
    )
    seat_counts = fields.List(
        fields.Integer(), metadata={"description": "With `invalid_seats`: the seat counts the game takes."}
    )
    game_id = fields.String(metadata={"description": "With `game_sealed`: the game."})
    game = fields.String(metadata={"description": "With `wrong_game`: the game the id is of."})
    option = fields.String(metadata={"description": "With `invalid_options`: the option refused."})
    min = fields.Integer(metadata={"description": "With `number_out_of_range`: the least integer taken."})
    max = fields.Integer(
        metadata={
            "description": "With `number_out_of_range`, `invalid_options`: the greatest integer taken; with "
            "`league_full`: the members a league takes; with `quota_exceeded`: the cap's value."
        }
    )
    max_depth = fields.Integer(metadata={"description": "With `json_too_deep`: the deepest nesting read."})
    position = fields.Integer(
        metadata={"description": "With `invalid_text`: the character of the string holding a lone surrogate."}
    )
    limit = fields.String(
        metadata={"description": "With `rate_limited`: the limit exceeded (`600 per 1 minute`)."}
    )
    per = fields.String(
        metadata={
            "description": "With `rate_limited`: what the limit counts: `address` or `credential`; with "
            "`quota_exceeded`: `owner`, `address` or `total`."
        }
    )
    cap = fields.String(metadata={"description": "With `quota_exceeded`: the cap reached, by its setting."})
    kind = fields.String(
        metadata={"description": "With `quota_exceeded`: what is capped: `bot`, `league` or `tournament`."}
    )
    retry_after = fields.Integer(
        metadata={"description": "With `rate_limited`: seconds to wait (as Retry-After)."}
    )
    bot_id = fields.String(metadata={"description": "With errors about one bot of a tournament: the bot."})
    bot = fields.String(
        metadata={"description": "With `bot_not_found` from createChallenge: the bot id or name asked for."}
    )
    url = fields.String(metadata={"description": "With `url_taken`: the URL as compared (normalised)."})
    matches = fields.Integer(metadata={"description": "With `match_not_found`: how many matches there are."})
    seats = fields.Integer(metadata={"description": "With `seat_not_found`: how many seats the game has."})
    unreachable = fields.List(
        fields.Nested(UnreachableEntrantSchema),
        metadata={"description": "With `entrants_unreachable`: every entrant that did not answer `GET /`."},
    )
    claimed = fields.List(
        fields.String(),
        metadata={"description": "With `game_not_played`: the games the bot was submitted for."},
    )
    plays = fields.List(
        fields.String(), metadata={"description": "With `game_not_played`: the games the bot's GET / lists."}
    )
    json = Ref("FieldErrors", metadata={"description": "With `validation_error`: errors of the JSON body."})
    query = Ref(
        "FieldErrors", metadata={"description": "With `validation_error`: errors of the query string."}
    )
    headers = Ref("FieldErrors", metadata={"description": "With `validation_error`: errors of the headers."})


class ErrorSchema(Schema):
    """Every error response: a machine-readable code, a human message and, for some codes, details."""

    class Meta:
        name = "Error"

    code = fields.String(
        required=True,
        validate=validate.OneOf(sorted(ERROR_CODES)),
        metadata={
            "description": "What went wrong, for programs:\n\n"
            + "\n".join(f"- `{code}`: {text}" for code, text in ERROR_CODES.items()),
            "examples": ["illegal_move"],
        },
    )
    message = fields.String(required=True, metadata={"description": "What went wrong, for people."})
    details = fields.Nested(
        ErrorDetailsSchema,
        metadata={"description": "Present only for the codes that have details (see each)."},
    )


def integral_numbers(value: Any) -> Any:
    """`value` with each number that has no fractional part (`2.0`) an integer, as JSON Schema counts it
    (`"type": "integer"` admits 2.0), up to `MAX_OPTION_INT` in size (a larger one stays a float: past
    every bound the spec sets, it is refused either way)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_OPTION_INT:
        return int(value)
    if isinstance(value, dict):
        return {key: integral_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral_numbers(item) for item in value]
    return value


class CreateGameSchema(Schema):
    """Body of createGame: checked here for its shape, then by the game (`seats`, `options` against the
    game's own options schema, `deal`, `open_seats`), so that what it accepts is what the game's
    `NewGame` of openapi.yaml admits (tests/api/test_create_game_contract.py)."""

    @pre_load
    def _json_integers(self, data: Any, **_kwargs: Any) -> Any:
        # JSON has one number type: 2.0 is the integer 2 to JSON Schema, and to every check below.
        return integral_numbers(data)

    game = fields.String(
        required=True, validate=validate.Length(min=1, max=64), metadata={"examples": sorted(GAMES)}
    )
    seats = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=MAX_SEATS))
    options = fields.Dict(keys=fields.String(), load_default=None, allow_none=True)
    seed = fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={
            "description": "Seed of the deal (for reproducible games). When absent the deal comes "
            "from a secret random seed, shown to nobody before the end (the replay shows it)."
        },
    )
    deal = fields.Dict(
        keys=fields.String(),
        load_default=None,
        allow_none=True,
        metadata={"description": "An explicit deal in the game's own format (see docs/rules)."},
    )
    open_seats = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=0, max=MAX_SEATS - 1)),
        load_default=list,
        validate=validate.Length(max=MAX_SEATS),
        metadata={
            "description": "Seats created without a token, claimed later with joinGame.",
            "uniqueItems": True,
        },
    )


class SeatTokenSchema(Schema):
    """A seat and its secret token (shown once)."""

    seat = fields.Integer(required=True, metadata={"description": "The seat."})
    token = fields.String(
        required=True,
        metadata={"description": "The seat's secret token: send it as `Authorization: Bearer`."},
    )


class CreatedGameSchema(Schema):
    """Response of createGame: the game's id and a token for every seat not left open (shown only now)."""

    game_id = fields.String(
        required=True, metadata={"pattern": GAME_ID_PATTERN, "description": "The new game's id."}
    )
    game = Ref("GameName", required=True, metadata={"description": "The game played."})
    seats = fields.Integer(required=True, metadata={"description": "Number of seats."})
    version = fields.Integer(required=True, metadata={"description": "The game's version (1)."})
    seed = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The seed you sent; null when you sent none: the deal then comes from a "
            "secret random seed that nobody can read before the game ends (the replay shows it)."
        },
    )
    open_seats = fields.List(
        fields.Integer(), required=True, metadata={"description": "The seats left open for joinGame."}
    )
    tokens = fields.List(
        fields.Nested(SeatTokenSchema),
        required=True,
        metadata={"description": "One token per seat not in `open_seats`, by seat."},
    )


class JsonInteger(fields.Integer):
    """A JSON body's integer as JSON Schema has it: a whole number, `3.0` included (loaded as 3); not a
    boolean, a string or a fraction (marshmallow's strict Integer refuses 3.0, its lax one takes "3")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._validated(value)


class JoinGameSchema(Schema):
    """Body of joinGame (an empty object, or no body, claims the lowest open seat)."""

    seat = JsonInteger(
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_SEATS - 1),
        metadata={"description": "The open seat to claim; absent or null: the lowest open seat."},
    )


class JoinedGameSchema(Schema):
    """Response of joinGame: the seat claimed and its token (shown only now)."""

    game_id = fields.String(required=True, metadata={"pattern": GAME_ID_PATTERN, "description": "The game."})
    seat = fields.Integer(required=True, metadata={"description": "The seat claimed."})
    token = fields.String(
        required=True,
        metadata={"description": "The seat's secret token: send it as `Authorization: Bearer`."},
    )
    version = fields.Integer(required=True, metadata={"description": "The game's version after the join."})


class EventsQuerySchema(Schema):
    """Query of getGameEvents."""

    since = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**31),
        metadata={"description": "Only events of versions above this one."},
    )


class StreamTimeoutQuerySchema(Schema):
    """Query of streamGamePlayers (and part of streamGameEvents's)."""

    timeout = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=300),
        metadata={"description": "Close the stream after this many seconds (capped by the server)."},
    )


class StreamQuerySchema(EventsQuerySchema, StreamTimeoutQuerySchema):
    """Query of streamGameEvents."""
