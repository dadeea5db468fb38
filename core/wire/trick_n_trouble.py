"""Marshmallow mirror of `games/trick_n_trouble/wire.py` (a drift test validates real engine output).

Each schema names the TypedDict it mirrors (`MIRRORS`); openapi.yaml describes it with that
TypedDict's docstring and each field with the description given here.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from core.wire.common import PRIVATE, Mirror, Ref, Wire, count, kind, meta
from games.trick_n_trouble import GAME, wire
from games.trick_n_trouble import state as tnt_state
from games.trick_n_trouble.options import COLOUR_NAME, MAX_TASKS, MAX_TEXT, TASK_ID

PREFIX = "TrickNTrouble"
CARD_PATTERN = GAME.card_pattern
PHASES = ["choose-task-level", "pass-decision", "pass-card", "switch-task", "play", "over"]
LEVELS = ["1", "2", "3"]

_LEVEL: dict[str, Any] = {"validate": validate.Range(min=1, max=3), "strict": True}
_WIRE = Wire(CARD_PATTERN, ["blue-7", "blue-green-2", "joker-1a"], 2)
Card = _WIRE.card
Cards = _WIRE.cards
Seat = _WIRE.seat
Seats = _WIRE.seats
Count = count
Kind = kind


def Level(description: str, **kwargs: Any) -> fields.Integer:
    """A task level, 1 to 3."""
    return fields.Integer(metadata=meta(description), **_LEVEL, **kwargs)


def TaskId(description: str, **kwargs: Any) -> fields.String:
    """A task card's id."""
    return fields.String(
        validate=validate.Length(min=1, max=64), metadata=meta(description, examples=["l1-2"]), **kwargs
    )


def Auto(**kwargs: Any) -> fields.Boolean:
    """Whether the engine took the decision because it had exactly one (public) option."""
    return fields.Boolean(
        metadata=meta(
            "True when the engine took this decision itself: there was exactly one option, and "
            "that is public."
        ),
        **kwargs,
    )


# ------------------------------------------------------------------------------------------- moves


class TNTChooseTaskLevelMoveSchema(Mirror):
    """Lead player, phase 1: draw the next face-up task from the pile of this level (1..3)."""

    MIRRORS: object = wire.ChooseTaskLevelMove
    type = Kind("choose-task-level")
    level = Level("The level of the pile to draw from.", required=True)


class TNTStartPassingMoveSchema(Mirror):
    """Lead player, phase 3: the round passes cards (everybody passes one to the left)."""

    MIRRORS: object = wire.StartPassingMove
    type = Kind("start-passing")


class TNTSkipPassingMoveSchema(Mirror):
    """Lead player, phase 3: nobody passes a card this round."""

    MIRRORS: object = wire.SkipPassingMove
    type = Kind("skip-passing")


class TNTPassCardMoveSchema(Mirror):
    """Phase 3: give this card of your hand face down to the next seat clockwise."""

    MIRRORS: object = wire.PassCardMove
    type = Kind("pass-card")
    card = Card("The card passed, one of the hand.", required=True)


class TNTSwitchTaskMoveSchema(Mirror):
    """Lead player, phase 4: put this face-up task under its pile and draw one of `level`."""

    MIRRORS: object = wire.SwitchTaskMove
    type = Kind("switch-task")
    task = TaskId("The face-up task put back.", required=True)
    level = Level("The level of the pile to draw the replacement from; absent in story mode (one pile).")


class TNTKeepTasksMoveSchema(Mirror):
    """Lead player, phase 4: keep the face-up tasks as they are."""

    MIRRORS: object = wire.KeepTasksMove
    type = Kind("keep-tasks")


class TNTPlayMoveSchema(Mirror):
    """Phase 5: play this card of your hand to the trick."""

    MIRRORS: object = wire.PlayMove
    type = Kind("play")
    card = Card("The card played, one of the hand.", required=True)


MOVES: dict[str, type[Schema]] = {
    "choose-task-level": TNTChooseTaskLevelMoveSchema,
    "start-passing": TNTStartPassingMoveSchema,
    "skip-passing": TNTSkipPassingMoveSchema,
    "pass-card": TNTPassCardMoveSchema,
    "switch-task": TNTSwitchTaskMoveSchema,
    "keep-tasks": TNTKeepTasksMoveSchema,
    "play": TNTPlayMoveSchema,
}

# ------------------------------------------------------------------------------------------- views


class ClauseColour(fields.Field[int | str]):
    """A clause's colour: an index 0..2 or one of "every", "any", "two"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not (
            (isinstance(value, int) and 0 <= value <= 2) or value in ("every", "any", "two")
        ):
            raise ValidationError("must be 0, 1, 2, 'every', 'any' or 'two'")
        return value


class TNTClauseSchema(Mirror):
    """One clause of a task condition on the per-colour sums of a trick."""

    MIRRORS: object = wire.Clause
    colour = ClauseColour(
        required=True,
        metadata=meta(
            "A colour index (0..2, the position in the `colours` option), `every` (all three colours), "
            "`any` (at least one colour) or `two` (at least two colours).",
            oneOf=[
                {"type": "integer", "minimum": 0, "maximum": 2, "description": "One colour, by its index."},
                {"type": "string", "enum": ["every", "any", "two"], "description": "A colour selector."},
            ],
        ),
    )
    min = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(min=0),
        metadata=meta(
            "The least sum that fulfils the clause. There is no maximum: over-fulfilling always counts "
            "(rulebook)."
        ),
    )


class TNTTaskCardSchema(Mirror):
    """A task card as the view shows it (``text`` rendered with the game's colour names)."""

    MIRRORS: object = wire.TaskCard
    id = fields.String(
        required=True,
        validate=validate.Regexp(TASK_ID.pattern),
        metadata=meta("The task's id.", examples=["l1-2"]),
    )
    level = Level("The task's level.", required=True)
    points = Count("Points for fulfilling it.", required=True)
    text = fields.String(
        required=True, validate=validate.Length(min=1, max=MAX_TEXT), metadata=meta("What the task asks.")
    )
    condition = fields.List(
        fields.Nested(TNTClauseSchema),
        required=True,
        validate=validate.Length(min=1),
        metadata=meta("Clauses that must all hold for one trick."),
    )


class TNTPlayedCardSchema(Mirror):
    """A card in a trick and who played it."""

    MIRRORS: object = wire.PlayedCard
    seat = Seat("Who played it.", required=True)
    card = Card("The card.", required=True)


class TNTFulfilledTaskSchema(Mirror):
    """A task on the score pile, with the round whose trick fulfilled it."""

    MIRRORS: object = wire.FulfilledTask
    task = fields.Nested(TNTTaskCardSchema, required=True, metadata=meta("The task."))
    round = Count("The round whose trick fulfilled it.", required=True)


class TNTTaskPileSizesSchema(Mirror):
    """How many tasks are left face down: per level (``"1"``..``"3"``) or in the story pile."""

    MIRRORS: object = wire.TaskPileSizes
    levels = fields.Dict(
        keys=fields.String(validate=validate.OneOf(LEVELS)),
        values=fields.Integer(strict=True, validate=validate.Range(min=0)),
        required=True,
        metadata=meta("Tasks left per level pile (`1`..`3`)."),
    )
    story = Count(
        "Tasks left in the story pile; null unless the game is in story mode.", required=True, allow_none=True
    )


class TNTResultSchema(Mirror):
    """The final result (``view["result"]`` once the game is over)."""

    MIRRORS: object = wire.Result
    scores = fields.List(
        fields.Integer(strict=True), required=True, metadata=meta("The team's score, per seat.")
    )
    winners = Seats("Every seat when the team won, else none (a cooperative game).", required=True)
    points = fields.Integer(required=True, strict=True, metadata=meta("Points of the fulfilled tasks."))
    tasks_fulfilled = Count("Tasks fulfilled.", required=True)
    band = fields.String(required=True, metadata=meta("The rulebook's words for the score."))


class TNTViewOptionsSchema(Mirror):
    """The options in force as a view shows them: all but the task deck (the tasks face up and on the
    score pile show its cards)."""

    expert = fields.Boolean(
        required=True, metadata=meta("Skip phase 4; played tricks leave the game face down.")
    )
    story = fields.Boolean(
        required=True,
        metadata=meta(
            "One task pile (the level piles stacked, level 1 on top); only the number of fulfilled "
            "tasks counts."
        ),
    )
    threshold = Count("Points the team needs to win.", required=True)
    story_threshold = Count("Tasks the team needs to win in story mode.", required=True)
    colours = fields.List(
        fields.String(validate=validate.Regexp(COLOUR_NAME.pattern)),
        required=True,
        validate=validate.Length(equal=3),
        metadata=meta("The three colour names, in index order.", uniqueItems=True),
    )
    first_leader = Seat("The first lead player.", required=True)


class TNTOptionsSchema(TNTViewOptionsSchema):
    """The options of a game: mode, what the team needs to win, colour names and the task deck."""

    tasks = fields.List(
        fields.Nested(TNTTaskCardSchema),
        required=True,
        allow_none=True,
        validate=validate.Length(max=MAX_TASKS),
        metadata=meta("A replacement task deck; null: the shipped 27 tasks."),
    )


class TNTViewSchema(Mirror):
    """What one seat (or a spectator, ``seat`` None) may know now.

    ``discard`` and ``tricks`` (past tricks in order) are None in expert mode until the game
    ends; ``passing`` is None until the lead player has decided whether the round passes.
    """

    MIRRORS: object = wire.View
    game = fields.String(required=True, validate=validate.OneOf([GAME.name]), metadata=meta("The game."))
    seat = Seat("The reader's seat; null for a spectator.", required=True, allow_none=True)
    seats = fields.Integer(
        required=True, validate=validate.Range(min=3, max=3), strict=True, metadata=meta("Always 3.")
    )
    options = fields.Nested(
        TNTViewOptionsSchema, required=True, metadata=meta("The options in force (but the task deck).")
    )
    round = Count("The current round (from 1).", required=True)
    rounds = Count("Rounds in the game.", required=True)
    phase = fields.String(
        required=True, validate=validate.OneOf(PHASES), metadata=meta("What the game waits for.")
    )
    lead = Seat("This round's lead player.", required=True)
    to_move = Seats("The seats that may move now (empty once the game is over).", required=True)
    hand = Cards("The reader's own hand; null for a spectator.", required=True, allow_none=True)
    hand_sizes = fields.List(
        fields.Integer(strict=True), required=True, metadata=meta("Cards in each seat's hand.")
    )
    passing = fields.Boolean(
        required=True,
        allow_none=True,
        metadata=meta("Whether this round passes cards; null until the lead player has decided."),
    )
    passed = Card(
        "The card the reader passed this round; null when none (or a spectator).",
        required=True,
        allow_none=True,
    )
    received = Card(
        "The card the reader received this round; null when none (or a spectator).",
        required=True,
        allow_none=True,
    )
    tasks = fields.List(fields.Nested(TNTTaskCardSchema), required=True, metadata=meta("The face-up tasks."))
    task_piles = fields.Nested(TNTTaskPileSizesSchema, required=True, metadata=meta("Tasks left face down."))
    draw_pile = Count("Cards left in the draw pile.", required=True)
    discard = Cards(
        "Cards of past tricks; null in expert mode until the game ends.", required=True, allow_none=True
    )
    trick = fields.List(
        fields.Nested(TNTPlayedCardSchema), required=True, metadata=meta("The current trick so far.")
    )
    tricks = fields.List(
        fields.List(fields.Nested(TNTPlayedCardSchema)),
        required=True,
        allow_none=True,
        metadata=meta("Past tricks in order; null in expert mode until the game ends."),
    )
    points = fields.Integer(
        required=True, strict=True, metadata=meta("Points of the tasks fulfilled so far.")
    )
    tasks_fulfilled = Count("Tasks fulfilled so far.", required=True)
    fulfilled = fields.List(
        fields.Nested(TNTFulfilledTaskSchema),
        required=True,
        metadata=meta("The score pile: tasks fulfilled."),
    )
    legal_moves = fields.List(
        Ref(f"{PREFIX}Move"),
        required=True,
        metadata=meta(
            "The reader's legal moves, each exactly as postMove accepts it; empty for spectators "
            "and seats not to move."
        ),
    )
    result = fields.Nested(
        TNTResultSchema,
        required=True,
        allow_none=True,
        metadata=meta("Set once the game is over; null before."),
    )
    hands = fields.List(
        Cards("A seat's hand."), metadata=meta("Every seat's hand: present only once the game is over.")
    )
    draw = Cards("The draw pile, top first: present only once the game is over.")
    task_pile_contents = fields.Dict(
        keys=fields.String(validate=validate.OneOf(LEVELS)),
        values=fields.List(TaskId("A task id.")),
        metadata=meta("Task ids left in each level pile, top first: present only once the game is over."),
    )
    story_pile = fields.List(
        TaskId("A task id."),
        allow_none=True,
        metadata=meta(
            "The story pile's task ids, top first (null unless in story mode): present only once "
            "the game is over."
        ),
    )
    all_passed = fields.List(
        Card("A card.", allow_none=True),
        metadata=meta(
            "The card each seat passed this round (null: none): present only once the game is over."
        ),
    )


# ------------------------------------------------------------------------------------------ events


class TNTGameStartedEventSchema(Mirror):
    """The setup (`setup_events`): the first lead player and the face-up tasks."""

    MIRRORS: object = wire.GameStartedEvent
    type = Kind("game-started")
    lead = Seat("The first lead player.", required=True)
    face_up = fields.List(TaskId("A task id."), required=True, metadata=meta("The face-up tasks."))


class TNTPrivateHandSchema(Mirror):
    """The hidden part of a hand-dealt event: only `seats` may see `hand`."""

    seats = Seats("The seats that may see the hand.", required=True)
    hand = Cards("The hand dealt.", required=True)


class TNTHandDealtEventSchema(Mirror):
    """The setup (`setup_events`): a seat's five cards, under `private` for that seat only."""

    MIRRORS: object = wire.HandDealtEvent
    type = Kind("hand-dealt")
    seat = Seat("Who was dealt the hand.", required=True)
    size = Count("How many cards.", required=True)
    private = fields.Nested(TNTPrivateHandSchema, metadata=meta(f"The hand. {PRIVATE}"))


class TNTRoundStartedEventSchema(Mirror):
    """A new round begins (rounds 2..9) with this lead player."""

    MIRRORS: object = wire.RoundStartedEvent
    type = Kind("round-started")
    round = Count("The round.", required=True)
    lead = Seat("Its lead player.", required=True)


class TNTTaskDrawnEventSchema(Mirror):
    """A task was turned face up (phase 1 fill or a switch's replacement)."""

    MIRRORS: object = wire.TaskDrawnEvent
    type = Kind("task-drawn")
    task = TaskId("The task turned face up.", required=True)
    level = Level("Its level.", required=True)
    auto = Auto(required=True)


class TNTDrawnPrivateSchema(Mirror):
    """The drawn cards, for the drawing seat only."""

    MIRRORS: object = wire.DrawnPrivate
    seats = Seats("The seats that may see the cards.", required=True)
    cards = Cards("The cards drawn.", required=True)


class TNTCardsDrawnEventSchema(Mirror):
    """Phase 2: a seat filled its hand from the draw pile."""

    MIRRORS: object = wire.CardsDrawnEvent
    type = Kind("cards-drawn")
    seat = Seat("Who drew.", required=True)
    count = Count("How many cards.", required=True)
    private = fields.Nested(TNTDrawnPrivateSchema, metadata=meta(f"The cards drawn. {PRIVATE}"))


class TNTPassingStartedEventSchema(Mirror):
    """Phase 3: the lead player started passing (everybody passes one card to the left)."""

    MIRRORS: object = wire.PassingDecidedEvent
    type = Kind("passing-started")
    seat = Seat("The lead player.", required=True)


class TNTPassingSkippedEventSchema(Mirror):
    """Phase 3: the lead player skipped passing this round."""

    MIRRORS: object = wire.PassingDecidedEvent
    type = Kind("passing-skipped")
    seat = Seat("The lead player.", required=True)


class TNTPassedPrivateSchema(Mirror):
    """The passed card, for the giving and the receiving seat only."""

    MIRRORS: object = wire.PassedPrivate
    seats = Seats("The seats that may see the card.", required=True)
    card = Card("The card passed.", required=True)


class TNTCardPassedEventSchema(Mirror):
    """Phase 3: `seat` gave a card face down to `to`."""

    MIRRORS: object = wire.CardPassedEvent
    type = Kind("card-passed")
    seat = Seat("Who gave the card.", required=True)
    to = Seat("Who received it.", required=True)
    auto = Auto(required=True)
    private = fields.Nested(TNTPassedPrivateSchema, metadata=meta(f"The card passed. {PRIVATE}"))


class TNTTaskSwitchedEventSchema(Mirror):
    """Phase 4: the lead player put this task under its pile (a task-drawn event follows)."""

    MIRRORS: object = wire.TaskSwitchedEvent
    type = Kind("task-switched")
    task = TaskId("The task put back.", required=True)


class TNTTasksKeptEventSchema(Mirror):
    """Phase 4: the lead player kept the face-up tasks."""

    MIRRORS: object = wire.TasksKeptEvent
    type = Kind("tasks-kept")
    seat = Seat("The lead player.", required=True)
    auto = Auto(required=True)


class TNTCardPlayedEventSchema(Mirror):
    """Phase 5: a card was played face up to the trick (expert mode: `card` gone once the round is over).

    No ``auto`` field: a forced play and a chosen play must be indistinguishable to the others.
    """

    MIRRORS: object = wire.CardPlayedEvent
    type = Kind("card-played")
    seat = Seat("Who played it.", required=True)
    card = Card("The card: absent in expert mode once the round is over (until the game ends).")
    round = Count("The round.", required=True)


class TNTTrickWonEventSchema(Mirror):
    """Phase 6: the trick's winner, sums and fulfilled tasks (expert: no cards/sums after the round)."""

    MIRRORS: object = wire.TrickWonEvent
    type = Kind("trick-won")
    seat = Seat("Who won the trick.", required=True)
    cards = Cards("The trick's cards: absent in expert mode once the round is over (until the game ends).")
    sums = fields.List(
        fields.Integer(strict=True),
        metadata=meta(
            "The sum per colour: absent in expert mode once the round is over (until the game ends)."
        ),
    )
    fulfilled = fields.List(TaskId("A task id."), required=True, metadata=meta("Tasks the trick fulfilled."))
    points = fields.Integer(required=True, strict=True, metadata=meta("Points so far."))
    round = Count("The round.", required=True)


class TNTGameOverEventSchema(Mirror):
    """The hands are empty: the final result."""

    MIRRORS: object = wire.GameOverEvent
    type = Kind("game-over")
    result = fields.Nested(TNTResultSchema, required=True, metadata=meta("The final result."))


EVENTS: dict[str, type[Schema]] = {
    "game-started": TNTGameStartedEventSchema,
    "hand-dealt": TNTHandDealtEventSchema,
    "round-started": TNTRoundStartedEventSchema,
    "task-drawn": TNTTaskDrawnEventSchema,
    "cards-drawn": TNTCardsDrawnEventSchema,
    "passing-started": TNTPassingStartedEventSchema,
    "passing-skipped": TNTPassingSkippedEventSchema,
    "card-passed": TNTCardPassedEventSchema,
    "task-switched": TNTTaskSwitchedEventSchema,
    "tasks-kept": TNTTasksKeptEventSchema,
    "card-played": TNTCardPlayedEventSchema,
    "trick-won": TNTTrickWonEventSchema,
    "game-over": TNTGameOverEventSchema,
}

# ---------------------------------------------------------------------------------- deal and replay


class TNTDealSchema(Mirror):
    """An explicit deal (createGame's `deal`, kept in the replay's header as given): what it gives
    replaces the seed's shuffle, the rest stays the seed's."""

    hands = fields.List(
        Cards("One seat's hand."),
        validate=validate.Length(equal=3),
        metadata=meta("One hand per seat (the same size, 1 to 5 cards); absent: the seed's hands."),
    )
    draw = Cards("The draw pile, top first (needs `hands`); absent: the rest of the deck, shuffled.")
    tasks = fields.Dict(
        keys=fields.String(validate=validate.OneOf(LEVELS)),
        values=fields.List(TaskId("A task id.")),
        metadata=meta(
            "Per level (`1`..`3`), every task id of that level in pile order, top first; a level "
            "left out is shuffled."
        ),
    )


class TNTHeaderSchema(Mirror):
    """How the game was created: enough to replay it from its actions."""

    MIRRORS: object = tnt_state.Header
    seats = fields.Integer(required=True, strict=True, metadata=meta("Always 3."))
    options = fields.Nested(TNTOptionsSchema, required=True, metadata=meta("The options in force."))
    seed = fields.Integer(required=True, strict=True, metadata=meta("The seed the cards were shuffled with."))
    deal = fields.Nested(
        TNTDealSchema,
        required=True,
        allow_none=True,
        metadata=meta("The explicit deal; null when none was given."),
    )


class TNTActionSchema(Mirror):
    """One decision of the action list: the seat and its move (wire form)."""

    seat = Seat("Who moved.", required=True)
    move = Ref(f"{PREFIX}Move", required=True, metadata=meta("The move, as postMove accepted it."))


VIEW: type[Schema] = TNTViewSchema
RESULT: type[Schema] = TNTResultSchema
OPTIONS: type[Schema] = TNTOptionsSchema
DEAL: type[Schema] = TNTDealSchema
HEADER: type[Schema] = TNTHeaderSchema
ACTION: type[Schema] = TNTActionSchema

# Component names (after the game's prefix) of every mirror, as openapi.yaml names them.
COMPONENTS: dict[str, type[Schema]] = {
    **{schema.__name__.removeprefix("TNT").removesuffix("Schema"): schema for schema in MOVES.values()},
    "Clause": TNTClauseSchema,
    "TaskCard": TNTTaskCardSchema,
    "PlayedCard": TNTPlayedCardSchema,
    "FulfilledTask": TNTFulfilledTaskSchema,
    "TaskPileSizes": TNTTaskPileSizesSchema,
    "Result": TNTResultSchema,
    "ViewOptions": TNTViewOptionsSchema,
    "Options": TNTOptionsSchema,
    "View": TNTViewSchema,
    "PrivateHand": TNTPrivateHandSchema,
    "DrawnPrivate": TNTDrawnPrivateSchema,
    "PassedPrivate": TNTPassedPrivateSchema,
    **{schema.__name__.removeprefix("TNT").removesuffix("Schema"): schema for schema in EVENTS.values()},
    "Deal": TNTDealSchema,
    "Header": TNTHeaderSchema,
    "Action": TNTActionSchema,
}
