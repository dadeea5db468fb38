"""Marshmallow mirror of `games/tricky_teams/wire.py` (a drift test validates real engine output)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from games.tricky_teams import GAME
from games.tricky_teams.cards import PEASANTS, TEAMS

CARD_PATTERN = GAME.card_pattern
PHASES = ["play", "take-loot", "choose-leader", "over"]
DECISIONS = ["play", "take-loot", "choose-leader"]

_SEAT: dict[str, Any] = {"validate": validate.Range(min=0, max=5), "strict": True}


def Card(**kwargs: object) -> fields.String:
    """A Tricky Teams card id: ``<team>-<rank>`` or ``flag-0``."""
    return fields.String(
        validate=validate.Regexp(CARD_PATTERN),
        metadata={"pattern": CARD_PATTERN, "examples": ["red-5", "flag-0"]},
        **kwargs,  # type: ignore[arg-type]
    )


def Cards(**kwargs: object) -> fields.List[str]:
    """A list of Tricky Teams card ids."""
    return fields.List(Card(), **kwargs)  # type: ignore[arg-type]


class TTWishSchema(Schema):
    """A Hypnotist's wish: `seat` must play `team`."""

    class Meta:
        name = "TrickyTeamsWish"

    seat = fields.Integer(required=True, **_SEAT)
    team = fields.String(required=True, validate=validate.OneOf(TEAMS))


class TTWishInForceSchema(TTWishSchema):
    """A wish still binding a seat; `by` is the Hypnotist's seat."""

    by = fields.Integer(required=True, **_SEAT)


class TTPlayMoveSchema(Schema):
    """Play a card from the hand; only a Hypnotist (rank 4) may carry a `wish`."""

    type = fields.String(required=True, validate=validate.OneOf(["play"]))
    card = Card(required=True)
    wish = fields.Nested(TTWishSchema)


class TTTakeLootMoveSchema(Schema):
    """Take one card of the pending loot."""

    type = fields.String(required=True, validate=validate.OneOf(["take-loot"]))
    card = Card(required=True)


class TTChooseLeaderMoveSchema(Schema):
    """The Strategist's player names the seat that leads the next trick."""

    type = fields.String(required=True, validate=validate.OneOf(["choose-leader"]))
    seat = fields.Integer(required=True, **_SEAT)


MOVES: dict[str, type[Schema]] = {
    "play": TTPlayMoveSchema,
    "take-loot": TTTakeLootMoveSchema,
    "choose-leader": TTChooseLeaderMoveSchema,
}


class TTTrickPlaySchema(Schema):
    """One card of the current trick; `card` is null when face down and hidden from the viewer."""

    seat = fields.Integer(required=True, **_SEAT)
    card = Card(required=True, allow_none=True)
    face_down = fields.Boolean(required=True)
    wish = fields.Nested(TTWishSchema, required=True, allow_none=True)


class TTScoredPlaySchema(TTTrickPlaySchema):
    """One card of a scored trick, revealed, with its strength."""

    card = Card(required=True)
    strength = fields.Integer(required=True, strict=True)


class TTScoredTrickSchema(Schema):
    """A completed trick: cards revealed, strengths, winners and loot."""

    raid = fields.Integer(required=True, strict=True)
    number = fields.Integer(required=True, strict=True)
    leader = fields.Integer(required=True, **_SEAT)
    plays = fields.List(fields.Nested(TTScoredPlaySchema), required=True)
    strengths = fields.Dict(keys=fields.String(), values=fields.Integer(strict=True), required=True)
    winning_team = fields.String(required=True, validate=validate.OneOf([*TEAMS, PEASANTS]))
    winners = fields.List(fields.Integer(**_SEAT), required=True)
    loot = Cards(required=True)
    thief = fields.Integer(required=True, allow_none=True, **_SEAT)
    strategist = fields.Integer(required=True, allow_none=True, **_SEAT)
    next_leader = fields.Integer(required=True, allow_none=True, **_SEAT)


class TTPendingLootSchema(Schema):
    """Loot being distributed: cards left, pick order, whose pick it is."""

    cards = Cards(required=True)
    order = fields.List(fields.Integer(**_SEAT), required=True)
    next = fields.Integer(required=True, **_SEAT)


class TTPlayerViewSchema(Schema):
    """What everyone may know about one seat (`loot` only for itself or after the end)."""

    seat = fields.Integer(required=True, **_SEAT)
    hand_size = fields.Integer(required=True, strict=True)
    eights = Cards(required=True)
    cooks = Cards(required=True)
    loot_size = fields.Integer(required=True, strict=True)
    loot = Cards()
    coins = fields.List(fields.Integer(strict=True), required=True)
    total = fields.Integer(required=True, strict=True)


class TTResultSchema(Schema):
    """Final result: coin totals, winners, coins per raid."""

    scores = fields.List(fields.Integer(strict=True), required=True)
    winners = fields.List(fields.Integer(**_SEAT), required=True)
    coins_per_raid = fields.List(fields.List(fields.Integer(strict=True)), required=True)
    # Emitted by the engine though not (yet) in wire.py's Result.
    final = fields.Boolean()


class TTOptionsSchema(Schema):
    """Options in force: raids and the coin table (rank as a string -> coins)."""

    raids = fields.Integer(required=True, strict=True)
    coins = fields.Dict(keys=fields.String(), values=fields.Integer(strict=True), required=True)


MOVE_REFS = {
    name: f"#/components/schemas/TrickyTeams{''.join(p.title() for p in name.split('-'))}Move"
    for name in MOVES
}
MOVE_UNION = {
    "oneOf": [{"$ref": ref} for ref in MOVE_REFS.values()],
    "discriminator": {"propertyName": "type", "mapping": dict(MOVE_REFS)},
}


class TTViewSchema(Schema):
    """Everything `seat` (null: a spectator) may know now in Tricky Teams."""

    game = fields.String(required=True, validate=validate.OneOf([GAME.name]))
    seats = fields.Integer(required=True, validate=validate.Range(min=3, max=6), strict=True)
    seat = fields.Integer(required=True, allow_none=True, **_SEAT)
    options = fields.Nested(TTOptionsSchema, required=True)
    teams = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    raid = fields.Integer(required=True, strict=True)
    raids = fields.Integer(required=True, strict=True)
    trick_number = fields.Integer(required=True, strict=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    to_move = fields.List(fields.Integer(**_SEAT), required=True)
    decision = fields.String(required=True, allow_none=True, validate=validate.OneOf(DECISIONS))
    leader = fields.Integer(required=True, allow_none=True, **_SEAT)
    hand = Cards(required=True, allow_none=True)
    players = fields.List(fields.Nested(TTPlayerViewSchema), required=True)
    trick = fields.List(fields.Nested(TTTrickPlaySchema), required=True)
    wishes = fields.List(fields.Nested(TTWishInForceSchema), required=True)
    teams_out = fields.List(fields.String(validate=validate.OneOf(TEAMS)), required=True)
    fog = fields.Boolean(required=True)
    pending_loot = fields.Nested(TTPendingLootSchema, required=True, allow_none=True)
    last_trick = fields.Nested(TTScoredTrickSchema, required=True, allow_none=True)
    legal_moves = fields.List(fields.Dict(metadata=MOVE_UNION), required=True)
    result = fields.Nested(TTResultSchema, required=True, allow_none=True)


class TTCardPlayedEventSchema(Schema):
    """A card was played; a face-down card's id is only under `private`."""

    type = fields.String(required=True, validate=validate.OneOf(["card-played"]))
    seat = fields.Integer(required=True, **_SEAT)
    card = Card(required=True, allow_none=True)
    face_down = fields.Boolean(required=True)
    wish = fields.Nested(TTWishSchema, required=True, allow_none=True)
    private = fields.Dict()


EVENTS: dict[str, type[Schema]] = {"card-played": TTCardPlayedEventSchema}

VIEW: type[Schema] = TTViewSchema
