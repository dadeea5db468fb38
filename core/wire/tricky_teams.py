"""Marshmallow mirror of `games/tricky_teams/wire.py` (a drift test validates real engine output).

Each schema names the TypedDict it mirrors (`MIRRORS`); openapi.yaml describes it with that
TypedDict's docstring and each field with the description given here.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from core.wire.common import PRIVATE, Mirror, Ref, Wire, count, kind, meta
from games.tricky_teams import GAME, wire
from games.tricky_teams import state as tt_state
from games.tricky_teams.cards import PEASANTS, TEAMS

PREFIX = "TrickyTeams"
CARD_PATTERN = GAME.card_pattern
PHASES = ["play", "take-loot", "choose-leader", "over"]
DECISIONS = ["play", "take-loot", "choose-leader"]
MAX_SEAT = max(GAME.seat_counts) - 1

_WIRE = Wire(CARD_PATTERN, ["red-5", "flag-0"], MAX_SEAT)
Card = _WIRE.card
Cards = _WIRE.cards
Seat = _WIRE.seat
Seats = _WIRE.seats
Count = count
Kind = kind


def Int(description: str, **kwargs: Any) -> fields.Integer:
    """A whole number (may be negative)."""
    return fields.Integer(strict=True, metadata=meta(description), **kwargs)


def Team(description: str, **kwargs: Any) -> fields.String:
    """A team id."""
    return fields.String(validate=validate.OneOf(TEAMS), metadata=meta(description), **kwargs)


# ------------------------------------------------------------------------------------------- moves


class TTWishSchema(Mirror):
    """A Hypnotist's wish as submitted with a play: `seat` must play `team`."""

    MIRRORS: object = wire.Wish
    seat = Seat("The seat that must play a card of `team` in this trick if it can.", required=True)
    team = Team("The team wished for.", required=True)


class TTWishInForceSchema(TTWishSchema):
    """A wish binding a seat that has not played yet in this trick; `by` is the Hypnotist's seat."""

    MIRRORS: object = wire.WishInForce
    by = Seat("The seat of the Hypnotist who made the wish.", required=True)


class TTPlayMoveSchema(Mirror):
    """Play a card from the hand; only a Hypnotist (rank 4) may carry a `wish`."""

    MIRRORS: object = wire.PlayMove
    type = Kind("play")
    card = Card("The card to play, one of the hand.", required=True)
    wish = fields.Nested(
        TTWishSchema,
        allow_none=True,
        metadata=meta(
            "Present only when the card is a Hypnotist (rank 4) and its player makes a wish; "
            "null, like leaving it out, plays the card without a wish. Listed moves leave it out."
        ),
    )


class TTTakeLootMoveSchema(Mirror):
    """Take one card of the pending loot onto the own loot pile."""

    MIRRORS: object = wire.TakeLootMove
    type = Kind("take-loot")
    card = Card("The card taken, one of `pending_loot.cards`.", required=True)


class TTChooseLeaderMoveSchema(Mirror):
    """The Strategist's player names the seat that leads the next trick."""

    MIRRORS: object = wire.ChooseLeaderMove
    type = Kind("choose-leader")
    seat = Seat("The seat that leads the next trick.", required=True)


MOVES: dict[str, type[Schema]] = {
    "play": TTPlayMoveSchema,
    "take-loot": TTTakeLootMoveSchema,
    "choose-leader": TTChooseLeaderMoveSchema,
}

# ------------------------------------------------------------------------------------------- views


class TTTrickPlaySchema(Mirror):
    """One card of the current trick; `card` is null for a face-down card the viewer may not see."""

    MIRRORS: object = wire.TrickPlay
    seat = Seat("Who played the card.", required=True)
    card = Card(
        "The card; null when it lies face down and the reader is not its player.",
        required=True,
        allow_none=True,
    )
    face_down = fields.Boolean(required=True, metadata=meta("Whether the card was played face down (fog)."))
    wish = fields.Nested(
        TTWishSchema, required=True, allow_none=True, metadata=meta("The wish played with it; null: none.")
    )


class TTScoredPlaySchema(TTTrickPlaySchema):
    """One card of a scored trick, revealed, with its strength (rank plus its player's Cooks)."""

    MIRRORS: object = wire.ScoredPlay
    card = Card("The card (always revealed once the trick is scored).", required=True)
    strength = Int("The card's strength: its rank plus its player's Cooks.", required=True)


class TTScoredTrickSchema(Mirror):
    """A completed trick: every card revealed, team strengths, the winning team and the loot."""

    MIRRORS: object = wire.ScoredTrick
    raid = Count("The raid the trick belongs to (from 1).", required=True)
    number = Count("The trick's number within its raid (from 1).", required=True)
    leader = Seat("Who led the trick.", required=True)
    plays = fields.List(
        fields.Nested(TTScoredPlaySchema), required=True, metadata=meta("The cards in playing order.")
    )
    strengths = fields.Dict(
        keys=fields.String(validate=validate.OneOf([*TEAMS, PEASANTS])),
        values=fields.Integer(strict=True),
        required=True,
        metadata=meta("Strength per team in the trick (and `peasants` when a 1 was played)."),
    )
    winning_team = fields.String(
        required=True, validate=validate.OneOf([*TEAMS, PEASANTS]), metadata=meta("The team that won.")
    )
    winners = Seats("Seats of the winning team, in the order they choose loot.", required=True)
    loot = Cards("Every card outside the winning team, flags included.", required=True)
    thief = Seat(
        "The seat of a Thief in the winning team (takes all the loot, leads); null: none.",
        required=True,
        allow_none=True,
    )
    strategist = Seat(
        "The seat of a Strategist in the winning team (chooses the next leader); null: none.",
        required=True,
        allow_none=True,
    )
    next_leader = Seat(
        "Who leads the next trick; null while the Strategist has yet to choose, and after a raid's last "
        "trick.",
        required=True,
        allow_none=True,
    )


class TTPendingLootSchema(Mirror):
    """Loot being distributed: the cards left, the pick order and whose pick it is."""

    MIRRORS: object = wire.PendingLoot
    cards = Cards("The loot cards not taken yet.", required=True)
    order = Seats("The seats picking, in order.", required=True)
    next = Seat("The seat whose pick it is.", required=True)


class TTPlayerViewSchema(Mirror):
    """What everyone may know about one seat (its `loot` contents only for itself or after the end)."""

    MIRRORS: object = wire.PlayerView
    seat = Seat("The seat.", required=True)
    hand_size = Count("Cards in its hand.", required=True)
    eights = Cards("Its 8s (8s have no card back: always visible).", required=True)
    cooks = Cards("Cooks lying out in front of the player this raid.", required=True)
    loot_size = Count("Cards on its loot pile.", required=True)
    loot = Cards("The cards of its loot pile: present only in the seat's own view and once the game is over.")
    coins = fields.List(
        fields.Integer(strict=True), required=True, metadata=meta("Coins won in each finished raid.")
    )
    total = Int("Coins won so far.", required=True)


class TTResultSchema(Mirror):
    """Final result: coin totals per seat, the winners (ties share the win) and coins per raid."""

    MIRRORS: object = wire.Result
    scores = fields.List(fields.Integer(strict=True), required=True, metadata=meta("Coin totals per seat."))
    winners = Seats("The seats with the most coins (ties share the win).", required=True)
    coins_per_raid = fields.List(
        fields.List(fields.Integer(strict=True)),
        required=True,
        metadata=meta("Per raid, the coins each seat won."),
    )
    final = fields.Boolean(
        required=True, metadata=meta("False while the game is still running (standings so far).")
    )


class TTOptionsSchema(Mirror):
    """Game options: number of raids and the coin table (rank as a string -> coins)."""

    MIRRORS: object = wire.Options
    raids = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=1), metadata=meta("Number of raids (deals).")
    )
    coins = fields.Dict(
        keys=fields.String(validate=validate.OneOf([str(rank) for rank in range(11)])),
        values=fields.Integer(strict=True, validate=validate.Range(min=0)),
        required=True,
        metadata=meta("Silver coins per card rank ('0' is a white flag, '5' a Countess)."),
    )


class TTViewSchema(Mirror):
    """Everything `seat` (null: a spectator) may know now."""

    MIRRORS: object = wire.View
    game = fields.String(required=True, validate=validate.OneOf([GAME.name]), metadata=meta("The game."))
    seats = fields.Integer(
        required=True,
        validate=validate.Range(min=min(GAME.seat_counts), max=max(GAME.seat_counts)),
        strict=True,
        metadata=meta("Number of seats."),
    )
    seat = Seat("The reader's seat; null for a spectator.", required=True, allow_none=True)
    options = fields.Nested(TTOptionsSchema, required=True, metadata=meta("The options in force."))
    teams = fields.Dict(
        keys=fields.String(validate=validate.OneOf([*TEAMS, PEASANTS])),
        values=fields.String(),
        required=True,
        metadata=meta("Team id (and `peasants`) -> display name (red: finches, ...)."),
    )
    raid = Count("The current raid (from 1).", required=True)
    raids = Count("Raids in the game.", required=True)
    trick_number = Count("The current trick's number within the raid (from 1).", required=True)
    phase = fields.String(
        required=True, validate=validate.OneOf(PHASES), metadata=meta("What the game waits for.")
    )
    to_move = Seats("The seats that may move now (empty once the game is over).", required=True)
    decision = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(DECISIONS),
        metadata=meta("The decision awaited; null once the game is over."),
    )
    leader = Seat("Who leads the current trick; null while nobody does.", required=True, allow_none=True)
    hand = Cards("The reader's own hand, sorted; null for a spectator.", required=True, allow_none=True)
    players = fields.List(
        fields.Nested(TTPlayerViewSchema), required=True, metadata=meta("What is public about each seat.")
    )
    trick = fields.List(
        fields.Nested(TTTrickPlaySchema), required=True, metadata=meta("The current trick's cards so far.")
    )
    wishes = fields.List(
        fields.Nested(TTWishInForceSchema), required=True, metadata=meta("Wishes still binding a seat.")
    )
    teams_out = fields.List(
        Team("A team."),
        required=True,
        metadata=meta(
            "Teams out in the current trick (ruling 2: a face-up card of the team lies in it), in the "
            "order they came out; empty at the start of each trick."
        ),
    )
    fog = fields.Boolean(
        required=True, metadata=meta("A Fog Witch was played: later cards go face down (except 8s).")
    )
    pending_loot = fields.Nested(
        TTPendingLootSchema,
        required=True,
        allow_none=True,
        metadata=meta("The loot being handed out; null when none is."),
    )
    last_trick = fields.Nested(
        TTScoredTrickSchema,
        required=True,
        allow_none=True,
        metadata=meta(
            "The last scored trick (its `raid` says of which raid: the previous raid's last trick "
            "until this raid's first is scored); null before the game's first trick is scored."
        ),
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
        TTResultSchema,
        required=True,
        allow_none=True,
        metadata=meta("Set once the game is over; null before."),
    )


# ------------------------------------------------------------------------------------------ events


class TTPrivateCardSchema(Mirror):
    """The hidden part of a face-down card-played event: only `seats` may see `card`."""

    MIRRORS: object = wire.PrivateCard
    seats = Seats("The seats that may see the card.", required=True)
    card = Card("The face-down card.", required=True)


class TTPrivateHandSchema(Mirror):
    """The hidden part of a hand-dealt event: only `seats` may see `hand`."""

    MIRRORS: object = wire.PrivateHand
    seats = Seats("The seats that may see the hand.", required=True)
    hand = Cards("The hand dealt.", required=True)


class TTCardPlayedEventSchema(Mirror):
    """A card was played; a face-down card's id is only under `private` (its player's eyes)."""

    MIRRORS: object = wire.CardPlayedEvent
    type = Kind("card-played")
    seat = Seat("Who played it.", required=True)
    card = Card("The card; null when it was played face down.", required=True, allow_none=True)
    face_down = fields.Boolean(required=True, metadata=meta("Whether it was played face down (fog)."))
    wish = fields.Nested(
        TTWishSchema, required=True, allow_none=True, metadata=meta("The wish played with it; null: none.")
    )
    private = fields.Nested(TTPrivateCardSchema, metadata=meta(f"Only for a face-down card. {PRIVATE}"))


class TTTrickWonEventSchema(TTScoredTrickSchema):
    """A trick was scored: every card revealed (same fields as the view's `last_trick`)."""

    MIRRORS: object = wire.TrickWonEvent
    type = Kind("trick-won")


class TTLootTakenEventSchema(Mirror):
    """A card went onto `seat`'s loot pile: picked (`choice`), automatic (`auto`) or its own card (`own`)."""

    MIRRORS: object = wire.LootTakenEvent
    type = Kind("loot-taken")
    seat = Seat("Whose loot pile.", required=True)
    card = Card("The card.", required=True)
    how = fields.String(
        required=True,
        validate=validate.OneOf(["choice", "auto", "own"]),
        metadata=meta("Picked (`choice`), the only card left (`auto`) or the seat's own card (`own`)."),
    )


class TTCookLaidOutEventSchema(Mirror):
    """A Cook of the winning team now lies out in front of `seat` until the raid ends."""

    MIRRORS: object = wire.CookLaidOutEvent
    type = Kind("cook-laid-out")
    seat = Seat("In front of whom.", required=True)
    card = Card("The Cook.", required=True)


class TTLeaderChosenEventSchema(Mirror):
    """The Strategist's player (`seat`) named `leader` to lead the next trick."""

    MIRRORS: object = wire.LeaderChosenEvent
    type = Kind("leader-chosen")
    seat = Seat("The Strategist's player.", required=True)
    leader = Seat("The seat named to lead.", required=True)


class TTRaidEndedEventSchema(Mirror):
    """A raid was counted: `coins` per seat in this raid and running `totals`."""

    MIRRORS: object = wire.RaidEndedEvent
    type = Kind("raid-ended")
    raid = Count("The raid counted.", required=True)
    coins = fields.List(
        fields.Integer(strict=True), required=True, metadata=meta("Coins per seat this raid.")
    )
    totals = fields.List(fields.Integer(strict=True), required=True, metadata=meta("Coins per seat so far."))


class TTRaidStartedEventSchema(Mirror):
    """A new raid was dealt (raids after the first); `eights` are the 8s each seat holds (public)."""

    MIRRORS: object = wire.RaidStartedEvent
    type = Kind("raid-started")
    raid = Count("The new raid.", required=True)
    leader = Seat("Who leads its first trick.", required=True)
    eights = fields.List(
        fields.List(Card("An 8.")), required=True, metadata=meta("Per seat, the 8s it was dealt.")
    )


class TTHandDealtEventSchema(Mirror):
    """`seat` was dealt `size` cards; the hand itself is private to that seat."""

    MIRRORS: object = wire.HandDealtEvent
    type = Kind("hand-dealt")
    seat = Seat("Who was dealt the hand.", required=True)
    size = Count("How many cards.", required=True)
    private = fields.Nested(TTPrivateHandSchema, metadata=meta(f"The hand. {PRIVATE}"))


class TTGameEndedEventSchema(Mirror):
    """The last raid was counted; the final result."""

    MIRRORS: object = wire.GameEndedEvent
    type = Kind("game-ended")
    result = fields.Nested(TTResultSchema, required=True, metadata=meta("The final result."))


EVENTS: dict[str, type[Schema]] = {
    "card-played": TTCardPlayedEventSchema,
    "trick-won": TTTrickWonEventSchema,
    "loot-taken": TTLootTakenEventSchema,
    "cook-laid-out": TTCookLaidOutEventSchema,
    "leader-chosen": TTLeaderChosenEventSchema,
    "raid-ended": TTRaidEndedEventSchema,
    "raid-started": TTRaidStartedEventSchema,
    "hand-dealt": TTHandDealtEventSchema,
    "game-ended": TTGameEndedEventSchema,
}

# ---------------------------------------------------------------------------------- deal and replay


class TTDealSchema(Mirror):
    """An explicit first deal (createGame's `deal`): a hand per seat and, optionally, the first leader.

    The hands hold the same number of cards (1 to a full hand); whoever holds the red 8 leads, so
    `first_leader` is needed only when nobody holds it (and must agree when somebody does).
    """

    hands = fields.List(
        Cards("One seat's hand."),
        required=True,
        metadata=meta("One hand of card ids per seat, in seat order."),
    )
    first_leader = Seat("The first leader; needed only when no hand holds `red-8`.")


class TTDealtSchema(Mirror):
    """The explicit first deal as the game stored it: sorted hands and the first leader."""

    MIRRORS: object = tt_state.Deal
    hands = fields.List(Cards("One seat's hand, sorted."), required=True, metadata=meta("One hand per seat."))
    first_leader = Seat("The first leader.", required=True)


class TTHeaderSchema(Mirror):
    """What a game is created from: with its actions, everything needed to replay it."""

    MIRRORS: object = tt_state.Header
    seats = fields.Integer(required=True, strict=True, metadata=meta("Number of seats."))
    options = fields.Nested(TTOptionsSchema, required=True, metadata=meta("The options in force."))
    seed = fields.Integer(required=True, strict=True, metadata=meta("The seed the cards were shuffled with."))
    deal = fields.Nested(
        TTDealtSchema,
        required=True,
        allow_none=True,
        metadata=meta("The explicit first deal; null when the seed dealt every raid."),
    )


class TTActionSchema(Mirror):
    """One decision of the action list: the seat and its move (wire form)."""

    MIRRORS: object = tt_state.Action
    seat = Seat("Who moved.", required=True)
    move = Ref(f"{PREFIX}Move", required=True, metadata=meta("The move, as postMove accepted it."))


VIEW: type[Schema] = TTViewSchema
RESULT: type[Schema] = TTResultSchema
OPTIONS: type[Schema] = TTOptionsSchema
DEAL: type[Schema] = TTDealSchema
HEADER: type[Schema] = TTHeaderSchema
ACTION: type[Schema] = TTActionSchema

# Component names (after the game's prefix) of every mirror, as openapi.yaml names them.
COMPONENTS: dict[str, type[Schema]] = {
    "Wish": TTWishSchema,
    "WishInForce": TTWishInForceSchema,
    **{schema.__name__.removeprefix("TT").removesuffix("Schema"): schema for schema in MOVES.values()},
    "TrickPlay": TTTrickPlaySchema,
    "ScoredPlay": TTScoredPlaySchema,
    "ScoredTrick": TTScoredTrickSchema,
    "PendingLoot": TTPendingLootSchema,
    "PlayerView": TTPlayerViewSchema,
    "Result": TTResultSchema,
    "Options": TTOptionsSchema,
    "View": TTViewSchema,
    "PrivateCard": TTPrivateCardSchema,
    "PrivateHand": TTPrivateHandSchema,
    **{schema.__name__.removeprefix("TT").removesuffix("Schema"): schema for schema in EVENTS.values()},
    "Deal": TTDealSchema,
    "Dealt": TTDealtSchema,
    "Header": TTHeaderSchema,
    "Action": TTActionSchema,
}
