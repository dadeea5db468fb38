"""The games' part of openapi.yaml: each game's named types and the envelopes that carry them.

Per game (prefix `TrickyTeams`, `TrickNTrouble`) the spec has its moves (`<P>Move`, discriminated
by `type`), view, events (`<P>Event`), result, options, deal, replay header and actions (the
marshmallow mirrors of `core.wire`, described by the TypedDicts of `games/<game>/wire.py`), and
the envelopes of the API that carry them: `<P>Game`, `<P>LegalMoves`, `<P>EventList`,
`<P>Replay`, `<P>GameType` and createGame's `<P>NewGame`. Each envelope has `game` as a one-value
enum, so the cross-game unions (`Game`, `LegalMoves`, `EventList`, `Replay`, `GameType`,
`NewGame`) are discriminated by `game`: a client narrows an answer by the game it is in.
docs/api.md argues the pattern.

`ContractPlugin` finishes what flask-smorest and apispec leave open: every marshmallow schema is
described by its docstring (a mirror by its TypedDict's), a `core.wire.common.Ref` field is a
`$ref`, every operation says its security (`[]`: public) and has a description (its view's
docstring when it has none of its own).
"""

from __future__ import annotations

import copy
import json
import sys
from typing import TYPE_CHECKING, Any, cast

from apispec import BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint as FlaskBlueprint
from marshmallow import Schema, fields

from api.bounds import MAX_OPTION_INT
from core.wire import GAME_WIRE
from core.wire.common import Ref, description_of, prose
from games.registry import GAMES

if TYPE_CHECKING:
    from apispec import APISpec

GAME_STATUS = ["waiting", "active", "finished"]
GAME_ID_PATTERN = r"^[0-9a-f]{16}$"
EVENT_ID_PATTERN = r"^[0-9]+-[0-9]+$"
MAX_SEED = 2**53 - 1


def ref(name: str) -> dict[str, str]:
    """A JSON reference to a component schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def prefix_of(game: str) -> str:
    """The component name prefix of a game's types (`tricky-teams` -> `TrickyTeams`)."""
    return GAME_WIRE[game][0]


def kebab_to_camel(name: str) -> str:
    """`take-loot` -> `TakeLoot`."""
    return "".join(part.title() for part in name.split("-"))


def obj(description: str, properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed object schema: every property required except `optional`."""
    return {
        "type": "object",
        "description": description,
        "additionalProperties": False,
        "required": [name for name in properties if name not in optional],
        "properties": properties,
    }


def described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """`schema` with a description (a `$ref` keeps its siblings in OpenAPI 3.1)."""
    return {**schema, "description": description}


def integer(description: str, minimum: int | None = 0, **extra: Any) -> dict[str, Any]:
    """An integer property."""
    out: dict[str, Any] = {"type": "integer", "description": description, **extra}
    if minimum is not None:
        out["minimum"] = minimum
    return out


def nullable(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """`schema` or null."""
    return {"description": description, "anyOf": [schema, {"type": "null"}]}


def game_name(game: str) -> dict[str, Any]:
    """The `game` property of an envelope of one game: a one-value enum (the discriminator)."""
    return {"type": "string", "enum": [game], "description": f"Always `{game}`: the game this is about."}


def discriminated(description: str, names: dict[str, str], prop: str = "game") -> dict[str, Any]:
    """A oneOf of components, discriminated by `prop` (value -> component name)."""
    return {
        "description": description,
        "oneOf": [ref(name) for name in dict.fromkeys(names.values())],
        "discriminator": {
            "propertyName": prop,
            "mapping": {value: f"#/components/schemas/{name}" for value, name in names.items()},
        },
    }


# The common properties of the envelopes.
GAME_ID = {"type": "string", "pattern": GAME_ID_PATTERN, "description": "The game's id."}
VERSION = integer("The game's version (also the ETag): 1 at creation, +1 per move and per join.", 1)
STATUS = described(ref("GameStatus"), "The game's status.")
SEATS = integer("Number of seats.", 1)
OPEN_SEATS = {
    "type": "array",
    "items": {"type": "integer", "minimum": 0},
    "description": "Seats nobody has claimed yet (joinGame claims one); empty once every seat is taken.",
}


# One server-sent message (OpenAPI 3.1: the media type's schema describes each message).
SSE_MESSAGE: dict[str, Any] = {
    "type": "object",
    "description": "One server-sent message. The stream starts with `retry: 2000` alone, sends each event "
    "as `id`, `event: game-event` and `data`, an idle stream a `: keep-alive` comment every 5 s, and ends "
    "with `event: end`.",
    "properties": {
        "event": {
            "type": "string",
            "enum": ["game-event", "end"],
            "description": "`game-event`: `data` is an EventRecord; `end`: `data` is a StreamEnd.",
        },
        "id": {
            "type": "string",
            "pattern": EVENT_ID_PATTERN,
            "description": "With `game-event`: the event's id (send as Last-Event-ID to resume after it).",
        },
        "retry": {"type": "integer", "description": "In the first message only: reconnect after 2000 ms."},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"anyOf": [ref("EventRecord"), ref("StreamEnd")]},
            "description": "JSON: an EventRecord (`game-event`), or why the stream ends (`end`).",
        },
    },
}


PLAYERS_SSE_MESSAGE: dict[str, Any] = {
    "type": "object",
    "description": "One server-sent message of streamGamePlayers. The stream starts with `retry: 2000` "
    "alone, sends `event: players` with the document at once and at each change, an idle stream a "
    "`: keep-alive` comment every 5 s, and ends with `event: end`.",
    "properties": {
        "event": {
            "type": "string",
            "enum": ["players", "end"],
            "description": "`players`: `data` is GamePlayers; `end`: `data` is a StreamEnd.",
        },
        "retry": {"type": "integer", "description": "In the first message only: reconnect after 2000 ms."},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"anyOf": [ref("GamePlayers"), ref("StreamEnd")]},
            "description": "JSON: GamePlayers (`players`), or why the stream ends (`end`).",
        },
    },
}


def fill_descriptions(
    node: dict[str, Any], twin: dict[str, Any], components: dict[str, Any], name: str
) -> None:
    """Describe each property of a game's own JSON Schema (`node`) that has no description with the
    description of the same property of its mirror (`twin`, as converted), else by its name."""
    while "$ref" in twin:
        twin = components.get(twin["$ref"].rsplit("/", 1)[1], {})
    for branch in ("anyOf", "oneOf"):
        for index, option in enumerate(node.get(branch) or []):
            twins = [t for t in twin.get(branch) or [] if t.get("type") != "null"] or [twin]
            fill_descriptions(option, twins[min(index, len(twins) - 1)], components, name)
    if isinstance(node.get("items"), dict):
        fill_descriptions(node["items"], twin.get("items") or {}, components, name)
    twin_properties = twin.get("properties") or {}
    for key, value in (node.get("properties") or {}).items():
        match = twin_properties.get(key) or {}
        if "description" not in value:
            value["description"] = match.get("description") or f"`{key}` of `{name}`."
        fill_descriptions(value, match, components, key)


def defaults_described(node: Any, say_null: bool = True) -> None:
    """Move each `default` of a request schema into its description: generators (openapi-typescript)
    make a property with a default required, while a client may leave it out. (`say_null` False: a
    null default, which only says the field may be left out, is dropped.)"""
    if isinstance(node, list):
        for item in node:
            defaults_described(item, say_null)
    elif isinstance(node, dict):
        if "default" in node and isinstance(node.get("description"), str):
            default = node.pop("default")
            if default is not None or say_null:
                node["description"] += f" Default: `{json.dumps(default)}`."
        node.pop("default", None)
        for value in node.values():
            defaults_described(value, say_null)


def bounded_integers(node: Any) -> None:
    """Give each integer of a game's options schema that has no `maximum` (`minimum`) the server's bound
    for it, `MAX_OPTION_INT` (api.bounds: a larger one is 422 invalid_options), so that the spec says it."""
    if isinstance(node, list):
        for item in node:
            bounded_integers(item)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        node.setdefault("maximum", MAX_OPTION_INT)
        node.setdefault("minimum", -MAX_OPTION_INT)
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            bounded_integers(list(value.values()))
        elif key not in ("default", "enum", "const", "examples"):
            bounded_integers(value)


def _hands_per_seat(deal: dict[str, Any] | None, seats: int) -> dict[str, Any]:
    """createGame's `deal` with `seats` seats, when the game's deal gives hands: one non-empty hand
    per seat (the engine refuses any other count with 422 `invalid_deal`)."""
    if deal is None or "hands" not in deal.get("properties", {}):
        return {}
    hands = {
        "type": "array",
        "minItems": seats,
        "maxItems": seats,
        "items": {"minItems": 1, "description": "A hand: at least one card."},
        "description": f"With {seats} seats: {seats} hands.",
    }
    return {
        "deal": {
            "anyOf": [{"type": "null"}, {"type": "object", "properties": {"hands": hands}}],
            "description": f"With {seats} seats: a hand per seat.",
        }
    }


def game_components(game: str, components: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The envelopes and unions of one game (the mirrors are registered from their schemas, before:
    `components` holds them converted)."""
    p = prefix_of(game)
    module = GAME_WIRE[game][1]
    engine = GAMES[game]
    title = engine.title
    options_schema = copy.deepcopy(engine.options_schema())
    new_options = {
        **options_schema,
        "description": f"createGame's {title} options; each left out takes its default. "
        + options_schema.get("description", ""),
    }
    fill_descriptions(new_options, ref(f"{p}Options"), components, "options")
    defaults_described(new_options)
    bounded_integers(new_options)
    return {
        f"{p}Move": discriminated(
            f"A {title} move, discriminated by `type` (exactly as listLegalMoves lists it).",
            {kind: f"{p}{kebab_to_camel(kind)}Move" for kind in module.MOVES},
            prop="type",
        ),
        f"{p}Event": discriminated(
            f"A {title} event, discriminated by `type`: the engine's events and the API's `seat-joined` "
            "(hidden parts removed for the reader until the game is over).",
            {
                **{kind: f"{p}{kebab_to_camel(kind)}Event" for kind in module.EVENTS},
                "seat-joined": "SeatJoinedEvent",
            },
            prop="type",
        ),
        f"{p}EventRecord": obj(
            f"One stored event of a {title} game: its stream id, the version its move produced, the event.",
            {
                "id": {
                    "type": "string",
                    "pattern": EVENT_ID_PATTERN,
                    "description": "`<version>-<n>`: the n-th event (from 0) of the write that made "
                    "`version`.",
                },
                "version": VERSION,
                "event": described(ref(f"{p}Event"), "The event, as the reader may see it."),
            },
        ),
        f"{p}Game": obj(
            f"A {title} game as one reader sees it: the API envelope and the engine's view.",
            {
                "game_id": GAME_ID,
                "game": game_name(game),
                "version": VERSION,
                "status": STATUS,
                "seats": SEATS,
                "seat": nullable(
                    integer("A seat."), "The reader's seat; null for a spectator (no seat token)."
                ),
                "open_seats": OPEN_SEATS,
                "view": described(
                    ref(f"{p}View"),
                    "What the reader may know now, its legal moves included (none while seats are open).",
                ),
            },
        ),
        f"{p}LegalMoves": obj(
            f"The legal moves of one seat of a {title} game (listLegalMoves).",
            {
                "game_id": GAME_ID,
                "game": game_name(game),
                "version": VERSION,
                "seat": integer("The token's seat."),
                "legal_moves": {
                    "type": "array",
                    "items": ref(f"{p}Move"),
                    "description": "Every move the seat may post now, each exactly as postMove accepts it; "
                    "empty when the seat is not to move.",
                },
            },
        ),
        f"{p}EventList": obj(
            f"Events of a {title} game above a version (getGameEvents).",
            {
                "game_id": GAME_ID,
                "game": game_name(game),
                "version": VERSION,
                "status": STATUS,
                "events": {
                    "type": "array",
                    "items": ref(f"{p}EventRecord"),
                    "description": "The events of versions above `since`, oldest first.",
                },
            },
        ),
        f"{p}Replay": obj(
            f"Everything needed to re-simulate a finished {title} game (getReplay).",
            {
                "game_id": GAME_ID,
                "game": game_name(game),
                "version": VERSION,
                "seats": SEATS,
                "seed": nullable(
                    integer("A seed."),
                    "The seed the creator chose; null when the deal came from a secret random seed "
                    "(`header.seed` shows it).",
                ),
                "header": described(ref(f"{p}Header"), "How the game was created."),
                "actions": {
                    "type": "array",
                    "items": ref(f"{p}Action"),
                    "description": "Every move in order, with its seat.",
                },
                "result": described(ref(f"{p}Result"), "The final result."),
                "events": {
                    "type": "array",
                    "items": ref(f"{p}EventRecord"),
                    "description": "Every event, nothing hidden.",
                },
            },
        ),
        f"{p}NewOptions": new_options,
        f"{p}NewGame": obj(
            f"createGame's body for a {title} game.",
            {
                "game": game_name(game),
                "seats": {
                    "type": "integer",
                    "enum": list(engine.seat_counts),
                    "description": "Number of seats (players).",
                },
                "options": nullable(ref(f"{p}NewOptions"), "The options; absent or null: the defaults."),
                "seed": nullable(
                    integer("A seed.", maximum=MAX_SEED),
                    "Seed of the deal (for reproducible games). Absent or null: a secret random seed, shown "
                    "to nobody before the end (the replay shows it).",
                ),
                "deal": nullable(
                    ref(f"{p}Deal"), "An explicit deal (docs/rules); absent or null: the seed deals."
                ),
                "open_seats": {
                    "type": "array",
                    "maxItems": max(engine.seat_counts),
                    "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 0, "maximum": max(engine.seat_counts) - 1},
                    "description": "Seats created without a token, claimed later with joinGame; absent: "
                    "none (every seat gets a token now).",
                },
            },
            optional=("options", "seed", "deal", "open_seats"),
        )
        | {
            # An open seat is a seat of the game created: below its `seats` (JSON Schema's if/then;
            # generated types are unaffected).
            "allOf": [
                {
                    "if": {
                        "properties": {"seats": {"const": n, "description": f"{n} seats."}},
                        "required": ["seats"],
                    },
                    "then": {
                        "properties": {
                            "open_seats": {
                                "items": {"maximum": n - 1},
                                "description": f"With {n} seats: seats 0 to {n - 1}.",
                            },
                            **_hands_per_seat(components.get(f"{p}Deal"), n),
                        }
                    },
                }
                for n in engine.seat_counts
            ]
        },
        f"{p}GameType": obj(
            f"{title}: seat counts and options.",
            {
                "name": game_name(game),
                "title": {"type": "string", "description": "The game's display name."},
                "seat_counts": {
                    "type": "array",
                    "items": {"type": "integer", "minimum": 1},
                    "description": "The seat counts the game is played with.",
                },
                "options_schema": described(ref("JsonSchema"), "JSON Schema of createGame's `options`."),
                "default_options": {
                    "type": "object",
                    "description": "The default options per seat count (keys are seat counts).",
                    "propertyNames": {"enum": [str(n) for n in engine.seat_counts]},
                    "additionalProperties": ref(f"{p}Options"),
                },
            },
        ),
    }


def shared_components() -> dict[str, dict[str, Any]]:
    """The cross-game unions (discriminated by `game`) and the types every game shares."""
    names = sorted(GAME_WIRE)

    def union(kind: str, description: str) -> dict[str, Any]:
        return discriminated(description, {g: f"{prefix_of(g)}{kind}" for g in names})

    def any_game(kind: str, description: str) -> dict[str, Any]:
        # A union that cannot be discriminated by a property of its own (the game is named beside it).
        return {"description": description, "anyOf": [ref(f"{prefix_of(g)}{kind}") for g in names]}

    return {
        "GameName": {"type": "string", "enum": names, "description": "The games this server plays."},
        "GameStatus": {
            "type": "string",
            "enum": GAME_STATUS,
            "description": "`waiting`: open seats left, nobody may move yet; `active`; `finished`.",
        },
        "Game": union("Game", "A game as one reader sees it, discriminated by `game`."),
        "LegalMoves": union("LegalMoves", "A seat's legal moves, discriminated by `game`."),
        "EventList": union("EventList", "Events above a version, discriminated by `game`."),
        "Replay": union("Replay", "A finished game's replay, discriminated by `game`."),
        "GameType": discriminated(
            "One game the server plays, discriminated by `name`.",
            {g: f"{prefix_of(g)}GameType" for g in names},
            prop="name",
        ),
        "NewGame": union("NewGame", "createGame's body, discriminated by `game`."),
        "GameView": any_game(
            "View",
            "A seat's view of a game of any game (what the bot protocol sends a bot); which "
            "game's is the `game` beside it.",
        ),
        "GameResult": any_game(
            "Result",
            "A finished game's result, of any game (what the bot protocol sends a bot); which "
            "game's is the `game` beside it.",
        ),
        "GameOptions": any_game(
            "NewOptions",
            "The options of a game as a tournament or league is given them: the game's own "
            "options (`TrickyTeamsNewOptions`, ...), each left out taking its default. Which game's they "
            "are is the `game` beside them.",
        ),
        "Move": any_game(
            "Move",
            "A move of any game (postMove's body; the per-game move operations take only "
            "their game's moves). Both games have a `play` move, so this union is not discriminated.",
        ),
        "EventRecord": any_game(
            "EventRecord",
            "An event record of any game (one message of streamGameEvents).",
        ),
        "SeatJoinedEvent": obj(
            "The API's own event: a seat was claimed with joinGame.",
            {
                "type": {"type": "string", "enum": ["seat-joined"], "description": "Always `seat-joined`."},
                "seat": integer("The seat claimed."),
            },
        ),
        "StreamEnd": obj(
            "The last message of an event stream: why it ends.",
            {
                "reason": {
                    "type": "string",
                    "enum": ["finished", "timeout", "game_not_found"],
                    "description": "`finished`: the game is over; `timeout`: the stream's time is up "
                    "(reconnect); `game_not_found`: the game expired.",
                }
            },
        ),
        "SseMessage": SSE_MESSAGE,
        "PlayersSseMessage": PLAYERS_SSE_MESSAGE,
        "GameTypeList": obj(
            "Every game the server plays.",
            {"games": {"type": "array", "items": ref("GameType"), "description": "The games, by name."}},
        ),
        "JsonSchema": {
            "type": "object",
            "description": "A JSON Schema (2020-12) document, as the games write their options' schemas: "
            "the keywords they use, each typed (a test checks every game's schema against this one).",
            "additionalProperties": False,
            "properties": {
                "type": {
                    "description": "The JSON type(s) allowed.",
                    "anyOf": [
                        ref("JsonType"),
                        {"type": "array", "items": ref("JsonType"), "description": "Any of these types."},
                    ],
                },
                "description": {"type": "string", "description": "What the value means."},
                "properties": {
                    "type": "object",
                    "description": "The schema of each property of an object.",
                    "additionalProperties": ref("JsonSchema"),
                },
                "required": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "The properties an object must have.",
                },
                "additionalProperties": {
                    "description": "Whether (or with what schema) other properties are allowed.",
                    "anyOf": [{"type": "boolean"}, ref("JsonSchema")],
                },
                "items": described(ref("JsonSchema"), "The schema of each item of an array."),
                "oneOf": {
                    "type": "array",
                    "items": ref("JsonSchema"),
                    "description": "The value matches exactly one of these schemas.",
                },
                "anyOf": {
                    "type": "array",
                    "items": ref("JsonSchema"),
                    "description": "The value matches at least one of these schemas.",
                },
                "allOf": {
                    "type": "array",
                    "items": ref("JsonSchema"),
                    "description": "The value matches every one of these schemas.",
                },
                "not": described(ref("JsonSchema"), "The value must not match this schema."),
                "contains": described(ref("JsonSchema"), "An array has an item matching this schema."),
                "minContains": integer("The fewest items of an array that match `contains`."),
                "const": described(ref("JsonValue"), "The one value allowed."),
                "enum": {
                    "type": "array",
                    "items": ref("JsonValue"),
                    "description": "The only values allowed.",
                },
                "default": described(ref("JsonValue"), "The value taken when none is given."),
                "minimum": {"type": "number", "description": "The least number allowed."},
                "maximum": {"type": "number", "description": "The greatest number allowed."},
                "minLength": integer("The fewest characters of a string."),
                "maxLength": integer("The most characters of a string."),
                "pattern": {"type": "string", "description": "A regular expression a string matches."},
                "minItems": integer("The fewest items of an array."),
                "maxItems": integer("The most items of an array."),
                "uniqueItems": {"type": "boolean", "description": "Whether an array's items must differ."},
            },
        },
        "JsonType": {
            "type": "string",
            "enum": ["object", "array", "string", "number", "integer", "boolean", "null"],
            "description": "A JSON Schema type name.",
        },
        # JSON values, recursive through objects only: generated clients type a cycle of schemas that
        # passes through an object (openapi-typescript: an interface property; openapi-python-client:
        # a model class), not one from an array straight back to an array (TypeScript's TS2502, a
        # union the Python generator drops). So an array holds scalars and objects, never arrays; the
        # games' options need no more (test_the_json_schema_type_takes_every_games_options_schema).
        "JsonValue": {
            "description": "A JSON value (an option's default, its one allowed value or one of them): "
            "a scalar, an object of JSON values, or an array of scalars and objects (an array directly "
            "inside an array is not one: generated clients could not type it).",
            "anyOf": [
                ref("JsonScalar"),
                ref("JsonObject"),
                {
                    "type": "array",
                    "items": ref("JsonArrayItem"),
                    "description": "An array of scalars and objects.",
                },
            ],
        },
        "JsonScalar": {
            "type": ["string", "number", "boolean", "null"],
            "description": "A JSON string, number, boolean or null.",
        },
        "JsonObject": {
            "type": "object",
            "description": "A JSON object: any member names, each member's value a JSON value.",
            "additionalProperties": ref("JsonValue"),
        },
        "JsonArrayItem": {
            "description": "An item of an array in a JSON value: a scalar or an object (not an array).",
            "anyOf": [ref("JsonScalar"), ref("JsonObject")],
        },
        "Health": {
            "type": "object",
            "description": "The server's status (getHealth): Redis, the workers, and any other registered "
            "section under its own name.",
            "required": ["status", "redis", "workers"],
            "properties": {
                "status": {
                    "type": "string",
                    "enum": ["ok", "degraded"],
                    "description": "`degraded` when a section is not ok (the API itself still serves).",
                },
                "redis": obj(
                    "Whether Redis takes writes (a replica, a demoted master or one short of its "
                    "replicas does not: the API could not serve).",
                    {
                        "ok": {
                            "type": "boolean",
                            "description": "Whether Redis took a write (a short-lived key under the "
                            "app's prefix) within the Redis timeout.",
                        },
                        "latency_ms": {
                            "type": "number",
                            "minimum": 0,
                            "description": "Present when `ok`: the write's round trip in milliseconds.",
                        },
                        "error": {
                            "type": "string",
                            "description": "Present when not `ok`: the error's type.",
                        },
                    },
                    optional=("latency_ms", "error"),
                ),
                "workers": nullable(
                    ref("HealthWorkers"), "The match workers; null when no worker reporter is installed."
                ),
            },
            "additionalProperties": ref("HealthSection"),
        },
        "HealthWorkers": obj(
            "The RQ workers listening on the platform's queue.",
            {
                "ok": {
                    "type": "boolean",
                    "description": "Whether at least one healthy worker listens (one not in `unhealthy`).",
                },
                "count": integer("Present unless the check failed: workers listening."),
                "queue": {"type": "string", "description": "Present unless the check failed: the queue."},
                "queued": integer("Present unless the check failed: jobs waiting."),
                "workers": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Present unless the check failed: the listening workers' names.",
                },
                "unhealthy": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Present unless the check failed: the listening workers that take no "
                    "job because they could not reach bots that other workers reach (docs/harness.md, "
                    "Worker health).",
                },
                "error": {
                    "type": "string",
                    "description": "Present when the check failed: the error's type (`RedisUnavailable`: "
                    "not checked, Redis is down).",
                },
            },
            optional=("count", "queue", "queued", "workers", "unhealthy", "error"),
        ),
        "HealthSection": obj(
            "A section another part of the platform registered with `api.ops.register_health_check`: "
            "whether that part is well (a section with fields of its own gets a schema of its own, as "
            "`workers` has).",
            {
                "ok": {"type": "boolean", "description": "Whether that part is well."},
                "error": {
                    "type": "string",
                    "description": "Present when the check failed: the error's type (`RedisUnavailable`: "
                    "not checked, Redis is down).",
                },
            },
            optional=("error",),
        ),
        "FieldErrors": {
            "type": "object",
            "description": "Error messages by field name (or list index); a nested object's errors nest. "
            "`_schema` holds errors about the whole object.",
            "additionalProperties": {
                "description": "The messages of one field, or the field errors of a nested value.",
                "anyOf": [{"type": "array", "items": {"type": "string"}}, ref("FieldErrors")],
            },
        },
    }


def register_game_components(spec: APISpec) -> None:
    """Add each game's mirrors, envelopes and unions, and the shared types, to the spec."""
    for game, (prefix, module) in GAME_WIRE.items():
        for name, schema in module.COMPONENTS.items():
            spec.components.schema(f"{prefix}{name}", schema=schema)
        for name, component in game_components(game, spec.components.schemas).items():
            spec.components.schema(name, component=component)
    for name, component in shared_components().items():
        spec.components.schema(name, component=component)


# --------------------------------------------------------------------------------------- the plugin


def view_docstring(endpoint: str) -> str | None:
    """The docstring of the view behind a Flask endpoint (`<blueprint>.<function>`) of an api module."""
    blueprint, _, name = endpoint.partition(".")
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("api.") or module is None:
            continue
        blp = getattr(module, "blp", None)
        if isinstance(blp, FlaskBlueprint) and blp.name == blueprint:
            doc = getattr(getattr(module, name, None), "__doc__", None)
            return prose(doc) if doc else None
    return None


def ref_property(_converter: Any, field: fields.Field[Any], **_kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a `Ref` field is a `$ref` to its component."""
    if isinstance(field, Ref):
        return {"$ref": f"#/components/schemas/{field.component}"}
    return {}


class ContractPlugin(BasePlugin):
    """Finishes the spec: schema descriptions from docstrings, `Ref` fields, operations' security and
    descriptions."""

    spec: APISpec | None = None

    def init_spec(self, spec: APISpec) -> None:
        """Install the `Ref` conversion in the marshmallow plugin."""
        self.spec = spec
        for plugin in spec.plugins:
            if isinstance(plugin, MarshmallowPlugin) and plugin.converter is not None:
                cast(Any, plugin.converter).add_attribute_function(ref_property)

    def schema_helper(self, name: str, definition: dict[str, Any], **kwargs: Any) -> dict[str, Any] | None:
        """A marshmallow schema without a description is described by its docstring (a mirror's: the
        TypedDict's); its properties' defaults move into their descriptions (see `defaults_described`:
        generated clients would make a property with a default required, in a body a client writes);
        its `JSON_SCHEMA` (keywords across fields, e.g. `anyOf`) is added."""
        schema = kwargs.get("schema")
        if schema is not None:
            defaults_described(definition.get("properties"), say_null=False)
        if schema is None:
            return None
        cls = schema if isinstance(schema, type) else type(schema)
        if not issubclass(cls, Schema):
            return None
        # Rules across fields that a schema's validator enforces (`at least one of ...`), in JSON Schema.
        extra: dict[str, Any] = dict(getattr(cls, "JSON_SCHEMA", {}))
        text = "" if definition.get("description") else description_of(cls)
        if text:
            extra["description"] = text
        return extra or None

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        """Public operations say so (`security: []`); an operation without a description gets its view's
        docstring."""
        rule = kwargs.get("rule")
        for operation in (operations or {}).values():
            if not isinstance(operation, dict):
                continue
            operation.setdefault("security", [])
            self.declare_tags(operation.get("tags") or [])
            if not operation.get("description") and rule is not None:
                text = view_docstring(rule.endpoint)
                if text:
                    operation["description"] = text

    def declare_tags(self, names: list[str]) -> None:
        """Declare the tags an operation uses in the document's tag list (with the description given to
        `spec.tag`): the app's `tags` option replaces the tags added with `spec.tag` when the spec is
        written."""
        if self.spec is None:
            return
        declared: list[dict[str, Any]] = self.spec.options.setdefault("tags", [])
        added: list[dict[str, Any]] = getattr(self.spec, "_tags", [])
        for name in names:
            if all(tag["name"] != name for tag in declared):
                declared.append(next((tag for tag in added if tag["name"] == name), {"name": name}))


def install(spec: APISpec, early: list[tuple[str, type[Schema]]]) -> None:
    """Install the plugin and add the games' components.

    `early` are marshmallow schemas that flask-smorest converted before the plugin existed (the
    error body of every answer, when the Api was built): they are converted again, children first.
    """
    plugin = ContractPlugin()
    cast(list[BasePlugin], spec.plugins).append(plugin)
    plugin.init_spec(spec)
    converter = next(p for p in spec.plugins if isinstance(p, MarshmallowPlugin)).converter
    assert converter is not None
    for name, schema in early:
        if name in spec.components.schemas:
            definition: dict[str, Any] = cast(Any, converter).schema2jsonschema(schema)
            definition.update(plugin.schema_helper(name, definition, schema=schema) or {})
            spec.components.schemas[name] = definition
    # flask-smorest registers its pagination header schema with every Api; no operation uses it.
    spec.components.schemas.pop("PaginationMetadata", None)
    register_game_components(spec)
