"""Wire shapes of Tricky Teams: moves, events and views as TypedDicts (mirrored by the API schemas).

Cards are string ids: ``"<team>-<rank>"`` for the 40 team cards (teams ``red``, ``blue``,
``green``, ``yellow``; ranks 1..10) and ``"flag-0"`` for a white flag (two identical flags
exist in 3- and 6-player games, so a hand may hold ``"flag-0"`` twice).
"""

from typing import Literal, NotRequired, TypedDict

Team = Literal["red", "blue", "green", "yellow"]
WinningTeam = Literal["red", "blue", "green", "yellow", "peasants"]
Phase = Literal["play", "take-loot", "choose-leader", "over"]
Decision = Literal["play", "take-loot", "choose-leader"]


class Wish(TypedDict):
    """A Hypnotist's wish as submitted with a play: `seat` must play `team`."""

    seat: int
    team: Team


class WishInForce(TypedDict):
    """A wish binding a seat that has not played yet in this trick; `by` is the Hypnotist's seat."""

    seat: int
    team: Team
    by: int


class PlayMove(TypedDict):
    """Play a card from the hand; only a Hypnotist (rank 4) may carry a `wish`."""

    type: Literal["play"]
    card: str
    wish: NotRequired[Wish | None]  # null, like leaving it out: no wish


class TakeLootMove(TypedDict):
    """Take one card of the pending loot onto the own loot pile."""

    type: Literal["take-loot"]
    card: str


class ChooseLeaderMove(TypedDict):
    """The Strategist's player names the seat that leads the next trick."""

    type: Literal["choose-leader"]
    seat: int


Move = PlayMove | TakeLootMove | ChooseLeaderMove


class TrickPlay(TypedDict):
    """One card of the current trick; `card` is null for a face-down card the viewer may not see."""

    seat: int
    card: str | None
    face_down: bool
    wish: Wish | None


class ScoredPlay(TypedDict):
    """One card of a scored trick, revealed, with its strength (rank plus its player's Cooks)."""

    seat: int
    card: str
    face_down: bool
    wish: Wish | None
    strength: int


class ScoredTrick(TypedDict):
    """A completed trick: every card revealed, team strengths, the winning team and the loot."""

    raid: int
    number: int
    leader: int
    plays: list[ScoredPlay]
    strengths: dict[WinningTeam, int]  # team name (and "peasants" when a 1 was played) -> strength
    winning_team: WinningTeam
    winners: list[int]  # seats of the winning team, in the order they choose loot
    loot: list[str]  # every card outside the winning team, flags included
    thief: int | None  # seat of a Thief in the winning team (takes all loot, leads)
    strategist: int | None  # seat of a Strategist in the winning team (chooses the leader)
    next_leader: int | None  # null while the Strategist has yet to choose / after the raid's last trick


class PendingLoot(TypedDict):
    """Loot being distributed: the cards left, the pick order and whose pick it is."""

    cards: list[str]
    order: list[int]
    next: int


class PlayerView(TypedDict):
    """What everyone may know about one seat (its `loot` contents only for itself or after the end)."""

    seat: int
    hand_size: int
    eights: list[str]  # 8s have no card back: always visible
    cooks: list[str]  # Cooks lying out in front of the player this raid
    loot_size: int
    loot: NotRequired[list[str]]
    coins: list[int]  # coins per finished raid
    total: int


class Result(TypedDict):
    """Final result: coin totals per seat, the winners (ties share the win) and coins per raid."""

    scores: list[int]
    winners: list[int]
    coins_per_raid: list[list[int]]
    final: bool  # false while the game is still running (standings so far)


class Options(TypedDict):
    """Game options: number of raids and the coin table (rank as a string -> coins)."""

    raids: int
    coins: dict[str, int]


class View(TypedDict):
    """Everything `seat` (null: a spectator) may know now."""

    game: Literal["tricky-teams"]
    seats: int
    seat: int | None
    options: Options
    teams: dict[str, str]  # team id -> display name (red: finches, ...)
    raid: int
    raids: int
    trick_number: int
    phase: Phase
    to_move: list[int]
    decision: Decision | None
    leader: int | None
    hand: list[str] | None  # own hand, sorted; null for spectators
    players: list[PlayerView]
    trick: list[TrickPlay]
    wishes: list[WishInForce]
    teams_out: list[Team]
    fog: bool  # a Fog Witch was played: later cards go face down (except 8s)
    pending_loot: PendingLoot | None
    last_trick: ScoredTrick | None
    legal_moves: list[Move]  # empty for spectators and seats not to move
    result: Result | None  # set once the game is over


class PrivateCard(TypedDict):
    """The hidden part of a face-down card-played event: only `seats` may see `card`."""

    seats: list[int]
    card: str


class PrivateHand(TypedDict):
    """The hidden part of a hand-dealt event: only `seats` may see `hand`."""

    seats: list[int]
    hand: list[str]


class CardPlayedEvent(TypedDict):
    """A card was played; a face-down card's id is only under `private` (its player's eyes)."""

    type: Literal["card-played"]
    seat: int
    card: str | None
    face_down: bool
    wish: Wish | None
    private: NotRequired[PrivateCard]


class TrickWonEvent(ScoredTrick):
    """A trick was scored: every card revealed (same fields as the view's `last_trick`)."""

    type: Literal["trick-won"]


class LootTakenEvent(TypedDict):
    """A card went onto `seat`'s loot pile: picked (`choice`), automatic (`auto`) or its own card (`own`)."""

    type: Literal["loot-taken"]
    seat: int
    card: str
    how: Literal["choice", "auto", "own"]


class CookLaidOutEvent(TypedDict):
    """A Cook of the winning team now lies out in front of `seat` until the raid ends."""

    type: Literal["cook-laid-out"]
    seat: int
    card: str


class LeaderChosenEvent(TypedDict):
    """The Strategist's player (`seat`) named `leader` to lead the next trick."""

    type: Literal["leader-chosen"]
    seat: int
    leader: int


class RaidEndedEvent(TypedDict):
    """A raid was counted: `coins` per seat in this raid and running `totals`."""

    type: Literal["raid-ended"]
    raid: int
    coins: list[int]
    totals: list[int]


class RaidStartedEvent(TypedDict):
    """A new raid was dealt (raids after the first); `eights` are the 8s each seat holds (public)."""

    type: Literal["raid-started"]
    raid: int
    leader: int
    eights: list[list[str]]


class HandDealtEvent(TypedDict):
    """`seat` was dealt `size` cards; the hand itself is private to that seat."""

    type: Literal["hand-dealt"]
    seat: int
    size: int
    private: PrivateHand


class GameEndedEvent(TypedDict):
    """The last raid was counted; the final result."""

    type: Literal["game-ended"]
    result: Result


Event = (
    CardPlayedEvent
    | TrickWonEvent
    | LootTakenEvent
    | CookLaidOutEvent
    | LeaderChosenEvent
    | RaidEndedEvent
    | RaidStartedEvent
    | HandDealtEvent
    | GameEndedEvent
)
