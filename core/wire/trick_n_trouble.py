"""Marshmallow mirror of `games/trick_n_trouble/wire.py` (a drift test validates real engine output)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from games.trick_n_trouble import GAME

CARD_PATTERN = GAME.card_pattern
PHASES = ["choose-task-level", "pass-decision", "pass-card", "switch-task", "play", "over"]

_SEAT: dict[str, Any] = {"validate": validate.Range(min=0, max=2), "strict": True}
_LEVEL: dict[str, Any] = {"validate": validate.Range(min=1, max=3), "strict": True}


def Card(**kwargs: Any) -> fields.String:
    """A Trick 'n Trouble card id: ``<colour>-<3..9>``, ``<colour>-<colour>-2`` or ``joker-1[abc]``."""
    return fields.String(
        validate=validate.Regexp(CARD_PATTERN),
        metadata={"pattern": CARD_PATTERN, "examples": ["blue-7", "blue-green-2", "joker-1a"]},
        **kwargs,
    )


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([name]))


class TNTChooseTaskLevelMoveSchema(Schema):
    """Lead player: draw the next face-up task from the pile of this level."""

    type = _type("choose-task-level")
    level = fields.Integer(required=True, **_LEVEL)


class TNTStartPassingMoveSchema(Schema):
    """Lead player: everybody passes one card to the left this round."""

    type = _type("start-passing")


class TNTSkipPassingMoveSchema(Schema):
    """Lead player: nobody passes a card this round."""

    type = _type("skip-passing")


class TNTPassCardMoveSchema(Schema):
    """Give this card face down to the next seat clockwise."""

    type = _type("pass-card")
    card = Card(required=True)


class TNTSwitchTaskMoveSchema(Schema):
    """Lead player: put this face-up task under its pile and draw one of `level` (no level in story mode)."""

    type = _type("switch-task")
    task = fields.String(required=True, validate=validate.Length(min=1, max=64))
    level = fields.Integer(**_LEVEL)


class TNTKeepTasksMoveSchema(Schema):
    """Lead player: keep the face-up tasks."""

    type = _type("keep-tasks")


class TNTPlayMoveSchema(Schema):
    """Play this card of your hand to the trick."""

    type = _type("play")
    card = Card(required=True)


MOVES: dict[str, type[Schema]] = {
    "choose-task-level": TNTChooseTaskLevelMoveSchema,
    "start-passing": TNTStartPassingMoveSchema,
    "skip-passing": TNTSkipPassingMoveSchema,
    "pass-card": TNTPassCardMoveSchema,
    "switch-task": TNTSwitchTaskMoveSchema,
    "keep-tasks": TNTKeepTasksMoveSchema,
    "play": TNTPlayMoveSchema,
}

MOVE_REFS = {
    name: f"#/components/schemas/TrickNTrouble{''.join(p.title() for p in name.split('-'))}Move"
    for name in MOVES
}
MOVE_UNION = {
    "oneOf": [{"$ref": ref} for ref in MOVE_REFS.values()],
    "discriminator": {"propertyName": "type", "mapping": dict(MOVE_REFS)},
}


class ClauseColour(fields.Field[int | str]):
    """A clause's colour: an index 0..2 or one of "every", "any", "two"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not (
            (isinstance(value, int) and 0 <= value <= 2) or value in ("every", "any", "two")
        ):
            raise ValidationError("must be 0, 1, 2, 'every', 'any' or 'two'")
        return value


class TNTClauseSchema(Schema):
    """One clause of a task condition on the per-colour sums of a trick."""

    colour = ClauseColour(
        required=True,
        metadata={
            "oneOf": [{"type": "integer", "minimum": 0, "maximum": 2}, {"enum": ["every", "any", "two"]}]
        },
    )
    min = fields.Integer(
        required=True,
        strict=True,
        metadata={
            "description": "The least sum that fulfils the clause. There is no maximum: over-fulfilling "
            "always counts (rulebook)."
        },
    )


class TNTTaskCardSchema(Schema):
    """A task card as the view shows it."""

    id = fields.String(required=True)
    level = fields.Integer(required=True, strict=True)
    points = fields.Integer(required=True, strict=True)
    text = fields.String(required=True)
    condition = fields.List(fields.Nested(TNTClauseSchema), required=True)


class TNTPlayedCardSchema(Schema):
    """A card in a trick and who played it."""

    seat = fields.Integer(required=True, **_SEAT)
    card = Card(required=True)


class TNTFulfilledTaskSchema(Schema):
    """A task on the score pile with the round that fulfilled it."""

    task = fields.Nested(TNTTaskCardSchema, required=True)
    round = fields.Integer(required=True, strict=True)


class TNTTaskPileSizesSchema(Schema):
    """Face-down tasks left: per level, or in the story pile."""

    levels = fields.Dict(keys=fields.String(), values=fields.Integer(strict=True), required=True)
    story = fields.Integer(required=True, allow_none=True, strict=True)


class TNTResultSchema(Schema):
    """The final result."""

    scores = fields.List(fields.Integer(strict=True), required=True)
    winners = fields.List(fields.Integer(**_SEAT), required=True)
    points = fields.Integer(required=True, strict=True)
    tasks_fulfilled = fields.Integer(required=True, strict=True)
    band = fields.String(required=True)


class TNTViewSchema(Schema):
    """What one seat (or a spectator, `seat` null) may know now in Trick 'n Trouble."""

    game = fields.String(required=True, validate=validate.OneOf([GAME.name]))
    seat = fields.Integer(required=True, allow_none=True, **_SEAT)
    seats = fields.Integer(required=True, validate=validate.Range(min=3, max=3), strict=True)
    options = fields.Dict(keys=fields.String(), required=True)
    round = fields.Integer(required=True, strict=True)
    rounds = fields.Integer(required=True, strict=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    lead = fields.Integer(required=True, **_SEAT)
    to_move = fields.List(fields.Integer(**_SEAT), required=True)
    hand = fields.List(Card(), required=True, allow_none=True)
    hand_sizes = fields.List(fields.Integer(strict=True), required=True)
    passing = fields.Boolean(required=True, allow_none=True)
    passed = Card(required=True, allow_none=True)
    received = Card(required=True, allow_none=True)
    tasks = fields.List(fields.Nested(TNTTaskCardSchema), required=True)
    task_piles = fields.Nested(TNTTaskPileSizesSchema, required=True)
    draw_pile = fields.Integer(required=True, strict=True)
    discard = fields.List(Card(), required=True, allow_none=True)
    trick = fields.List(fields.Nested(TNTPlayedCardSchema), required=True)
    points = fields.Integer(required=True, strict=True)
    tasks_fulfilled = fields.Integer(required=True, strict=True)
    fulfilled = fields.List(fields.Nested(TNTFulfilledTaskSchema), required=True)
    legal_moves = fields.List(fields.Dict(metadata=MOVE_UNION), required=True)
    result = fields.Nested(TNTResultSchema, required=True, allow_none=True)
    tricks = fields.List(fields.List(fields.Nested(TNTPlayedCardSchema)), allow_none=True)
    # Only once the game is over (everything revealed); the last four are not (yet) in wire.py.
    hands = fields.List(fields.List(Card()))
    draw = fields.List(Card())
    task_pile_contents = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
    story_pile = fields.List(fields.String(), allow_none=True)
    all_passed = fields.List(Card(allow_none=True))


EVENTS: dict[str, type[Schema]] = {}

VIEW: type[Schema] = TNTViewSchema
