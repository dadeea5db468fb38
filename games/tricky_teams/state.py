"""The typed state of a Tricky Teams game, its constructor and its copy.

The state is a TypedDict, so at run time it is the plain JSON dict of games/base.py: storing it is
the identity and `json.loads(json.dumps(state)) == state`.  Cards in it are numbers and hands are
bitmasks (see cards.py); the header, the action list and `last_trick` keep the wire form (ids), so
that a game replays from its header and actions and the last trick is shown as scored.

Besides the header and the action list the state keeps small public aggregates of the current
trick (`out`, `down`, `fog`, `peasant_out`, `wishes`) so that the rules ask them, not the trick.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from games.tricky_teams.wire import Options, ScoredTrick, Wish, WishInForce

SCHEMA = 2
NAME = "tricky-teams"

Phase = Literal["play", "take-loot", "choose-leader", "over"]


class Deal(TypedDict):
    """An explicit first deal, validated: sorted hands of card ids and the first leader."""

    hands: list[list[str]]
    first_leader: int


class Header(TypedDict):
    """What a game is created from: with its actions, everything needed to replay it."""

    seats: int
    options: Options
    seed: int
    deal: Deal | None


class Action(TypedDict):
    """One decision of the action list: the seat and its move (wire form)."""

    seat: int
    move: dict[str, Any]


class Play(TypedDict):
    """One card of the current trick: card number, face down or not, the Hypnotist's wish if any."""

    seat: int
    card: int
    face_down: bool
    wish: Wish | None


class PendingLoot(TypedDict):
    """Loot being handed out: cards left, the pickers in order, picks made, the winners' own cards."""

    cards: list[int]
    order: list[int]
    index: int
    own: list[list[int]]  # [seat, card] in pick order


class State(TypedDict):
    """A Tricky Teams game."""

    schema: int
    game: str
    header: Header
    actions: list[Action]
    seats: int
    raid: int
    trick_number: int
    phase: Phase
    turn: int | None  # the seat with a decision (None once the game is over)
    leader: int | None
    hands: list[int]  # per seat, a set of cards
    trick: list[Play]
    out: int  # the teams out: bit t for TEAMS[t] (ruling 2)
    down: bool  # a face-down card is in the trick (ruling 12)
    fog: bool  # a Fog Witch was played: later cards go face down (ruling 12)
    peasant_out: bool  # a 1 is in the trick (ruling 3b)
    wishes: list[WishInForce]  # wishes binding seats still to play (ruling 11)
    cooks: list[list[int]]  # per seat, the Cooks lying out this raid (ruling 9)
    loot: list[list[int]]  # per seat, this raid's loot pile in the order taken
    coins: list[list[int]]  # per finished raid, each seat's coins
    pending: PendingLoot | None
    last_trick: ScoredTrick | None


def new_state(header: Header) -> State:
    """A game's state before its first deal: the header and empty hands, piles and trick."""
    seats = header["seats"]
    return {
        "schema": SCHEMA,
        "game": NAME,
        "header": header,
        "actions": [],
        "seats": seats,
        "raid": 0,
        "trick_number": 0,
        "phase": "play",
        "turn": None,
        "leader": None,
        "hands": [0] * seats,
        "trick": [],
        "out": 0,
        "down": False,
        "fog": False,
        "peasant_out": False,
        "wishes": [],
        "cooks": [[] for _ in range(seats)],
        "loot": [[] for _ in range(seats)],
        "coins": [],
        "pending": None,
        "last_trick": None,
    }


def clone(state: State) -> State:
    """An independent copy for search: every list the engine changes in place is copied.

    The engine never changes a play, a wish, a raid's coins, the header or a scored trick once
    made (it replaces them), so those are shared.
    """
    copy = state.copy()
    copy["actions"] = state["actions"][:]
    copy["hands"] = state["hands"][:]
    copy["trick"] = state["trick"][:]
    copy["cooks"] = [cooks[:] for cooks in state["cooks"]]
    copy["loot"] = [pile[:] for pile in state["loot"]]
    copy["coins"] = state["coins"][:]
    pending = state["pending"]
    if pending is not None:
        copy["pending"] = {**pending, "cards": pending["cards"][:]}
    return copy
