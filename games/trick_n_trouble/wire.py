"""Wire shapes of Trick 'n Trouble: the moves `apply` accepts and the view `view` returns.

These TypedDicts are the contract the API mirrors as marshmallow schemas.  Card ids are
strings: ``<colour>-<3..9>`` (single colour), ``<colour>-<colour>-2`` (double colour, colours
in option order) and ``joker-1a`` / ``joker-1b`` / ``joker-1c`` (the three jokers need
distinct ids so that every card of the deck is a distinct string).
"""

from typing import Literal, NotRequired, TypedDict

Phase = Literal["choose-task-level", "pass-decision", "pass-card", "switch-task", "play", "over"]
"""Which kind of decision the game waits for (``over`` once the game has ended)."""


class ChooseTaskLevelMove(TypedDict):
    """Lead player, phase 1: draw the next face-up task from the pile of this level (1..3)."""

    type: Literal["choose-task-level"]
    level: int


class StartPassingMove(TypedDict):
    """Lead player, phase 3: the round passes cards (everybody passes one to the left)."""

    type: Literal["start-passing"]


class SkipPassingMove(TypedDict):
    """Lead player, phase 3: nobody passes a card this round."""

    type: Literal["skip-passing"]


class PassCardMove(TypedDict):
    """Phase 3: give this card of your hand face down to the next seat clockwise."""

    type: Literal["pass-card"]
    card: str


class SwitchTaskMove(TypedDict):
    """Lead player, phase 4: put this face-up task under its pile and draw one of `level`.

    In story mode there is a single task pile and the move has no ``level``.
    """

    type: Literal["switch-task"]
    task: str
    level: NotRequired[int]


class KeepTasksMove(TypedDict):
    """Lead player, phase 4: keep the face-up tasks as they are."""

    type: Literal["keep-tasks"]


class PlayMove(TypedDict):
    """Phase 5: play this card of your hand to the trick."""

    type: Literal["play"]
    card: str


Move = (
    ChooseTaskLevelMove
    | StartPassingMove
    | SkipPassingMove
    | PassCardMove
    | SwitchTaskMove
    | KeepTasksMove
    | PlayMove
)


class Clause(TypedDict):
    """One clause of a task condition on the per-colour sums of a trick.

    ``colour`` is a colour index (0..2, the position in the ``colours`` option), ``"every"``
    (all three colours), ``"any"`` (at least one colour) or ``"two"`` (at least two colours);
    the selected sum(s) must reach ``min``.  There is no upper bound: over-fulfilling always
    counts, so more cards can only help.
    """

    colour: int | Literal["every", "any", "two"]
    min: int


class TaskCard(TypedDict):
    """A task card as the view shows it (``text`` rendered with the game's colour names)."""

    id: str
    level: int
    points: int
    text: str
    condition: list[Clause]


class PlayedCard(TypedDict):
    """A card in a trick and who played it."""

    seat: int
    card: str


class FulfilledTask(TypedDict):
    """A task on the score pile, with the round whose trick fulfilled it."""

    task: TaskCard
    round: int


class TaskPileSizes(TypedDict):
    """How many tasks are left face down: per level (``"1"``..``"3"``) or in the story pile."""

    levels: dict[str, int]
    story: int | None


class Result(TypedDict):
    """The final result (``view["result"]`` once the game is over)."""

    scores: list[int]
    winners: list[int]
    points: int
    tasks_fulfilled: int
    band: str


class View(TypedDict):
    """What one seat (or a spectator, ``seat`` None) may know now.

    ``discard`` and ``tricks`` (past tricks in order) are None in expert mode until the game
    ends; ``passing`` is None until the lead player has decided whether the round passes.
    """

    game: Literal["trick-n-trouble"]
    seat: int | None
    seats: int
    options: dict[str, object]
    round: int
    rounds: int
    phase: Phase
    lead: int
    to_move: list[int]
    hand: list[str] | None
    hand_sizes: list[int]
    passing: bool | None
    passed: str | None
    received: str | None
    tasks: list[TaskCard]
    task_piles: TaskPileSizes
    draw_pile: int
    discard: list[str] | None
    trick: list[PlayedCard]
    tricks: list[list[PlayedCard]] | None
    points: int
    tasks_fulfilled: int
    fulfilled: list[FulfilledTask]
    legal_moves: list[Move]
    result: Result | None
    # Only once the game is over, when everything is revealed:
    hands: NotRequired[list[list[str]]]
    draw: NotRequired[list[str]]
    task_pile_contents: NotRequired[dict[str, list[str]]]
    story_pile: NotRequired[list[str] | None]
    all_passed: NotRequired[list[str | None]]


# ------------------------------------------------------------------------------------------ events
# Every event has a kebab-case "type"; hidden parts sit under "private" ({"seats": [...], ...}) and
# are stripped by games.base.redact_event for everybody else.  "auto" marks a decision the engine
# took because it had exactly one option *and that is public* (pile sizes, hand sizes, face-up
# tasks).  A play never carries it: a play forced by a hand of two or more cards is the seat's own
# move, and its event must look exactly like a chosen play's.


class GameStartedEvent(TypedDict):
    """The setup (`setup_events`): the first lead player and the face-up tasks."""

    type: Literal["game-started"]
    lead: int
    face_up: list[str]


class HandDealtEvent(TypedDict):
    """The setup (`setup_events`): a seat's five cards, under `private` for that seat only."""

    type: Literal["hand-dealt"]
    seat: int
    size: int
    private: dict[str, object]


class RoundStartedEvent(TypedDict):
    """A new round begins (rounds 2..9) with this lead player."""

    type: Literal["round-started"]
    round: int
    lead: int


class TaskDrawnEvent(TypedDict):
    """A task was turned face up (phase 1 fill or a switch's replacement)."""

    type: Literal["task-drawn"]
    task: str
    level: int
    auto: bool


class DrawnPrivate(TypedDict):
    """The drawn cards, for the drawing seat only."""

    seats: list[int]
    cards: list[str]


class CardsDrawnEvent(TypedDict):
    """Phase 2: a seat filled its hand from the draw pile."""

    type: Literal["cards-drawn"]
    seat: int
    count: int
    private: NotRequired[DrawnPrivate]


class PassingDecidedEvent(TypedDict):
    """Phase 3: the lead player started (``passing-started``) or skipped (``passing-skipped``) passing."""

    type: Literal["passing-started", "passing-skipped"]
    seat: int


class PassedPrivate(TypedDict):
    """The passed card, for the giving and the receiving seat only."""

    seats: list[int]
    card: str


class CardPassedEvent(TypedDict):
    """Phase 3: `seat` gave a card face down to `to`."""

    type: Literal["card-passed"]
    seat: int
    to: int
    auto: bool
    private: NotRequired[PassedPrivate]


class TaskSwitchedEvent(TypedDict):
    """Phase 4: the lead player put this task under its pile (a task-drawn event follows)."""

    type: Literal["task-switched"]
    task: str


class TasksKeptEvent(TypedDict):
    """Phase 4: the lead player kept the face-up tasks."""

    type: Literal["tasks-kept"]
    seat: int
    auto: bool


class CardPlayedEvent(TypedDict):
    """Phase 5: a card was played face up to the trick (expert mode: `card` gone once the round is over).

    No ``auto`` field: a forced play and a chosen play must be indistinguishable to the others.
    """

    type: Literal["card-played"]
    seat: int
    card: NotRequired[str]
    round: int


class TrickWonEvent(TypedDict):
    """Phase 6: the trick's winner, sums and fulfilled tasks (expert: no cards/sums after the round)."""

    type: Literal["trick-won"]
    seat: int
    cards: NotRequired[list[str]]
    sums: NotRequired[list[int]]
    fulfilled: list[str]
    points: int
    round: int


class GameOverEvent(TypedDict):
    """The hands are empty: the final result."""

    type: Literal["game-over"]
    result: Result


Event = (
    GameStartedEvent
    | HandDealtEvent
    | RoundStartedEvent
    | TaskDrawnEvent
    | CardsDrawnEvent
    | PassingDecidedEvent
    | CardPassedEvent
    | TaskSwitchedEvent
    | TasksKeptEvent
    | CardPlayedEvent
    | TrickWonEvent
    | GameOverEvent
)
