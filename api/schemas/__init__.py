"""Marshmallow schemas of the HTTP API: requests, responses, errors, and per-game wire shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marshmallow import Schema, fields, validate

from core.wire import GAME_WIRE, has_only_known_fields, validate_move
from games.registry import GAMES

if TYPE_CHECKING:
    from apispec import APISpec

__all__ = ["GAME_WIRE", "has_only_known_fields", "validate_move"]

MAX_SEATS = 16
MAX_SEED = 2**53 - 1
GAME_ID_PATTERN = r"^[0-9a-f]{16}$"


def ref(name: str) -> dict[str, str]:
    """A JSON reference to a component schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def move_component(game: str) -> str:
    """Component name of one game's move union."""
    return f"{GAME_WIRE[game][0]}Move"


def view_component(game: str) -> str:
    """Component name of one game's view."""
    return f"{GAME_WIRE[game][0]}View"


ANY_MOVE: dict[str, Any] = {"anyOf": [ref(move_component(g)) for g in GAME_WIRE]}
ANY_VIEW: dict[str, Any] = {
    "oneOf": [ref(view_component(g)) for g in GAME_WIRE],
    "discriminator": {
        "propertyName": "game",
        "mapping": {g: f"#/components/schemas/{view_component(g)}" for g in GAME_WIRE},
    },
}


def register_components(spec: APISpec) -> None:
    """Add per-game moves, views and events, and the cross-game unions, to an apispec spec."""
    for game, (prefix, module) in GAME_WIRE.items():
        for kind, schema in module.MOVES.items():
            name = f"{prefix}{''.join(p.title() for p in kind.split('-'))}Move"
            spec.components.schema(name, schema=schema)
        spec.components.schema(move_component(game), component=dict(module.MOVE_UNION))
        spec.components.schema(view_component(game), schema=module.VIEW)
        for kind, schema in module.EVENTS.items():
            spec.components.schema(
                f"{prefix}{''.join(p.title() for p in kind.split('-'))}Event", schema=schema
            )
    spec.components.schema("Move", component=dict(ANY_MOVE))
    spec.components.schema("GameView", component=dict(ANY_VIEW))


class ErrorSchema(Schema):
    """Every error response: a machine-readable code, a human message and optional details."""

    class Meta:
        name = "Error"

    code = fields.String(required=True, metadata={"examples": ["illegal_move"]})
    message = fields.String(required=True)
    details = fields.Dict(keys=fields.String())


class GameTypeSchema(Schema):
    """One game the server plays."""

    name = fields.String(required=True)
    title = fields.String(required=True)
    seat_counts = fields.List(fields.Integer(), required=True)
    options_schema = fields.Dict(required=True, metadata={"description": "JSON Schema of the options."})
    default_options = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(),
        required=True,
        metadata={"description": "Default options per seat count (keys are seat counts)."},
    )


class GameTypeListSchema(Schema):
    """Every game the server plays."""

    games = fields.List(fields.Nested(GameTypeSchema), required=True)


class CreateGameSchema(Schema):
    """Body of createGame."""

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

    seat = fields.Integer(required=True)
    token = fields.String(required=True)


class CreatedGameSchema(Schema):
    """Response of createGame."""

    game_id = fields.String(required=True, metadata={"pattern": GAME_ID_PATTERN})
    game = fields.String(required=True)
    seats = fields.Integer(required=True)
    version = fields.Integer(required=True)
    seed = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The seed you sent; null when you sent none: the deal then comes from a "
            "secret random seed that nobody can read before the game ends (the replay shows it)."
        },
    )
    open_seats = fields.List(fields.Integer(), required=True)
    tokens = fields.List(fields.Nested(SeatTokenSchema), required=True)


class JoinGameSchema(Schema):
    """Body of joinGame (an empty object claims the lowest open seat)."""

    seat = fields.Integer(
        strict=True, load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEATS - 1)
    )


class JoinedGameSchema(Schema):
    """Response of joinGame."""

    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True)
    version = fields.Integer(required=True)


class GameSchema(Schema):
    """A game as one reader sees it: the API envelope and the engine's view."""

    class Meta:
        name = "Game"

    game_id = fields.String(required=True, metadata={"pattern": GAME_ID_PATTERN})
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "Also the ETag; send as If-Match."})
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "active", "finished"]))
    seats = fields.Integer(required=True)
    seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The reader's seat; null: spectator."}
    )
    open_seats = fields.List(fields.Integer(), required=True)
    view = fields.Dict(required=True, metadata=ANY_VIEW)


class LegalMovesSchema(Schema):
    """Response of listLegalMoves."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    legal_moves = fields.List(fields.Dict(metadata=ANY_MOVE), required=True)


class EventSchema(Schema):
    """One game event: stream id ``<version>-<n>``, the version its move produced, the event itself."""

    id = fields.String(required=True, metadata={"pattern": r"^[0-9]+-[0-9]+$"})
    version = fields.Integer(required=True)
    event = fields.Dict(
        required=True,
        metadata={
            "description": "An engine event (`type` plus fields; hidden parts removed for this reader), "
            "or the API's own `seat-joined`.",
            "required": ["type"],
            "properties": {"type": {"type": "string"}},
        },
    )


class EventListSchema(Schema):
    """Response of getGameEvents."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "active", "finished"]))
    events = fields.List(fields.Nested(EventSchema), required=True)


class EventsQuerySchema(Schema):
    """Query of getGameEvents."""

    since = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**31),
        metadata={"description": "Only events of versions above this one."},
    )


class StreamQuerySchema(EventsQuerySchema):
    """Query of streamGameEvents."""

    timeout = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=300),
        metadata={"description": "Close the stream after this many seconds (capped by the server)."},
    )


class ReplaySchema(Schema):
    """Response of getReplay: everything needed to re-simulate a finished game."""

    game_id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.Integer(required=True)
    seed = fields.Integer(required=True, allow_none=True)
    header = fields.Dict(required=True, metadata={"description": "The engine's creation header."})
    actions = fields.List(fields.Dict(), required=True, metadata={"description": "Every action in order."})
    result = fields.Dict(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class HealthSchema(Schema):
    """Response of getHealth."""

    status = fields.String(required=True, validate=validate.OneOf(["ok", "degraded"]))
    redis = fields.Dict(required=True, metadata={"description": "`ok` and `latency_ms` (or `error`)."})
    workers = fields.Dict(
        allow_none=True, metadata={"description": "Worker status, when a reporter is installed."}
    )


class IfMatchHeaderSchema(Schema):
    """Headers of postMove."""

    if_match = fields.String(
        data_key="If-Match",
        metadata={"description": "Apply only if the game is still at this version (the ETag of a GET)."},
    )
