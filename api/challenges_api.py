"""Challenges (issue 28): people play against bots open to challenges. HTTP around
`harness.challenges` (the rules of challenges and their limits live there; docs/api.md).

Registered by the app factory (`api.app.create_app`) through `register(api, app)`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, jsonify, request
from marshmallow import Schema, fields, validate

from api.blueprint_util import Api, Blueprint, ErrorDocs, game_name_field
from api.context import app_context
from core.wire.common import ObjectRef, Ref
from harness import challenges as ops

blp = Blueprint("challenges", __name__, description="People play against bots open to challenges.")

documents_errors = ErrorDocs(
    blp,
    {
        403: "A bot whose owner turned challenges off (it is not open) and no owner key of it in "
        "`owner_keys` (code `challenges_off`).",
        404: "No such challenge (`challenge_not_found`), or no bot of that id or name (`bot_not_found`).",
        409: "A bot that was deleted (`bot_deleted`).",
        413: "The request body is too large (code `body_too_large`).",
        422: "Invalid fields (`validation_error`), an unknown game (`unknown_game`), seats that do not "
        "add up (`invalid_seats`), a bot that does not play the game (`bot_game_mismatch`), options "
        "the game refuses (`invalid_options`).",
        429: "Over a limit, with `Retry-After`: challenges created per hour per address or owner key "
        "(`rate_limited`), challenges in flight per address (`too_many_challenges`) or per bot "
        "(`bot_busy`) (docs/operations.md, Limits).",
    },
)


class CreateChallengeSchema(Schema):
    """createChallenge request."""

    class Meta:
        name = "CreateChallenge"

    game = game_name_field("Name of the game to play.", required=True)
    seats = fields.Integer(
        required=True, validate=validate.Range(min=2, max=16), metadata={"description": "Seats of the game."}
    )
    people = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=15)),
        load_default=lambda: [0],
        validate=validate.Length(min=1, max=15),
        metadata={"description": "The seats people play (default `[0]`); each gets a seat token."},
    )
    bots = fields.List(
        fields.String(validate=validate.Length(min=1, max=64)),
        required=True,
        validate=validate.Length(min=1, max=15),
        metadata={
            "description": "The bots of the other seats, in seat order: ids or names of bots open to "
            "challenges (or whose owner key is in `owner_keys`); a bot may fill several seats."
        },
    )
    options = ObjectRef(
        "GameOptions",
        load_default=dict,
        metadata={"description": "The game's own options (its `NewOptions`); absent: the defaults."},
    )
    owner_keys = fields.List(
        fields.String(validate=validate.Length(min=1, max=128)),
        load_default=list,
        validate=validate.Length(max=16),
        metadata={"description": "Owner keys of bots you own that are not open to challenges."},
    )


class ChallengePlayerSchema(Schema):
    """One seat of a challenge."""

    class Meta:
        name = "ChallengePlayer"

    seat = fields.Integer(required=True, metadata={"description": "The seat."})
    kind = fields.String(
        required=True, validate=validate.OneOf(["person", "bot"]), metadata={"description": "Who plays it."}
    )
    bot_id = fields.String(
        allow_none=True, required=True, metadata={"description": "The bot (null: a person)."}
    )
    name = fields.String(required=True, metadata={"description": "The bot's name, or `person`."})
    moves = fields.Integer(required=True, metadata={"description": "Moves it made itself so far."})
    last_ms = fields.Integer(
        allow_none=True, required=True, metadata={"description": "Its last answer time (ms); null before."}
    )
    mean_ms = fields.Integer(
        allow_none=True, required=True, metadata={"description": "Its mean answer time (ms); null before."}
    )
    idle_timeouts = fields.Integer(
        required=True,
        metadata={"description": "A person's moves played by the fallback after the idle timeout."},
    )


class ChallengeResultSchema(Schema):
    """The result of a finished challenge."""

    class Meta:
        name = "ChallengeResult"

    scores = fields.List(
        fields.Float(), required=True, metadata={"description": "Per seat, as the game scores."}
    )
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "The winning seats."})


class ChallengeTokenSchema(Schema):
    """A person's seat token."""

    class Meta:
        name = "ChallengeToken"

    seat = fields.Integer(required=True, metadata={"description": "The person's seat."})
    token = fields.String(required=True, metadata={"description": "Its seat token (shown only now)."})


class ChallengeSchema(Schema):
    """A challenge as anyone may read it (no token, no card)."""

    class Meta:
        name = "Challenge"

    challenge_id = fields.String(required=True, metadata={"description": "The challenge's id."})
    game = Ref("GameName", required=True, metadata={"description": "The game."})
    seats = fields.Integer(required=True, metadata={"description": "Seats of the game."})
    options = ObjectRef(
        "GameOptions", required=True, metadata={"description": "The game's options as given."}
    )
    game_id = fields.String(required=True, metadata={"description": "The game (getGame, its event stream)."})
    status = fields.String(
        required=True,
        validate=validate.OneOf(["running", "finished", "error"]),
        metadata={"description": "`running`, `finished`, or `error` (the run failed for good)."},
    )
    rated = fields.Boolean(
        required=True, metadata={"description": "Always false: challenges are never rated."}
    )
    players = fields.List(
        fields.Nested(ChallengePlayerSchema), required=True, metadata={"description": "Every seat."}
    )
    idle_s = fields.Integer(
        required=True,
        metadata={"description": "Seconds a person may take per move before the fallback move is played."},
    )
    created_at = fields.String(required=True, metadata={"description": "When it was created (ISO 8601)."})
    finished_at = fields.String(
        allow_none=True, required=True, metadata={"description": "When it finished (ISO 8601), or null."}
    )
    result = fields.Nested(
        ChallengeResultSchema, allow_none=True, required=True, metadata={"description": "Once finished."}
    )
    error = fields.String(
        allow_none=True, required=True, metadata={"description": "Why it failed, if it did."}
    )


class CreatedChallengeSchema(ChallengeSchema):
    """createChallenge answer: the challenge and the people's seat tokens."""

    class Meta:
        name = "CreatedChallenge"

    tokens = fields.List(
        fields.Nested(ChallengeTokenSchema),
        required=True,
        metadata={"description": "One seat token per person, shown only now: post moves with it."},
    )


def limits() -> ops.ChallengeLimits:
    """The app's challenge limits (its configuration, else the environment's)."""
    base = ops.ChallengeLimits.from_env()
    overrides = current_app.config.get("TRICKARENA_CHALLENGE_LIMITS") or {}
    return ops.ChallengeLimits(**{**base.__dict__, **overrides})


@blp.route("/challenges", methods=["POST"])
@blp.doc(operationId="createChallenge", tags=["challenges"], summary="Play a game against bots")
@blp.arguments(CreateChallengeSchema)
@blp.response(201, CreatedChallengeSchema)
@documents_errors(403, 404, 409, 413, 422, 429)
def create_challenge(body: dict[str, Any]) -> Response:
    """Create a game with people at `people` and the bots at the other seats; the bots' seats are
    played by the platform's workers (same runner, signing, deadlines and fault records as a
    tournament), the people's with the returned seat tokens through postMove. Never rated."""
    created = ops.create_challenge(
        app_context().harness,
        limits(),
        body["game"],
        body["seats"],
        body["people"],
        body["bots"],
        body["options"],
        body["owner_keys"],
        request.remote_addr or "-",
    )
    response = jsonify(created)
    response.status_code = 201
    response.headers["Location"] = f"/challenges/{created['challenge_id']}"
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.route("/challenges/<string:challenge_id>", methods=["GET"])
@blp.doc(operationId="getChallenge", tags=["challenges"], summary="A challenge: seats, answer times, result")
@blp.response(200, ChallengeSchema)
@documents_errors(404)
def get_challenge(challenge_id: str) -> Response:
    """Its game, its seats (people and named bots, with their answer times), status and result."""
    return jsonify(ops.get_challenge(app_context().harness, challenge_id))


def register(api: Api, app: Flask) -> None:
    """Hook for the app factory."""
    api.spec.tag({"name": "challenges", "description": "People play a game against bots open to challenges."})
    api.register_blueprint(blp)
