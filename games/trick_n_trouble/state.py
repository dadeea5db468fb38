"""The typed state of Trick 'n Trouble, its one constructor and its copy for search.

The state is its own JSON form (games/base.py): a dict of JSON values, stored by the API as it is
and read back equal. `TnTState` names and types its keys; `new_state` is the only place that
writes the whole dict, for a new game and a state rebuilt from a view (determinize); `clone`
copies one.
Cards are card ids and tasks task ids, in lists kept in the order the rules give them: hands in
deck order, piles top first, the face-up tasks in the order they were turned up.
"""

from __future__ import annotations

from typing import Any, TypedDict

from games.base import State
from games.trick_n_trouble.options import SEATS

NAME = "trick-n-trouble"
SCHEMA = 1


class Header(TypedDict):
    """How the game was created: enough to replay it from its actions."""

    seats: int
    options: dict[str, Any]
    seed: int
    deal: dict[str, Any] | None


class PlayedCard(TypedDict):
    """A card in a trick and who played it."""

    seat: int
    card: str


class Fulfilled(TypedDict):
    """A task on the score pile and the round whose trick fulfilled it."""

    task: str
    round: int


class TnTState(TypedDict):
    """The state: the header, the decisions taken (`actions`) and where the game stands."""

    schema: int
    game: str
    header: Header
    actions: list[dict[str, Any]]
    round: int
    # The decision the game waits for (wire.Phase), "over" once it has ended; `turn` is whose.
    phase: str
    turn: int | None
    lead: int
    hands: list[list[str]]
    draw: list[str]
    piles: dict[str, list[str]]
    # Story mode: the single stacked task pile (the level piles are then empty); else None.
    story: list[str] | None
    face_up: list[str]
    # This round: whether it passes (None until the lead player decides), what each seat gave/got.
    passing: bool | None
    passed: list[str | None]
    received: list[str | None]
    trick: list[PlayedCard]
    tricks: list[list[PlayedCard]]
    discard: list[str]
    fulfilled: list[Fulfilled]
    points: int
    result: dict[str, Any] | None


def new_state(
    header: Header,
    *,
    lead: int,
    hands: list[list[str]],
    draw: list[str],
    piles: dict[str, list[str]],
    story: list[str] | None,
    face_up: list[str],
    turn: int | None,
    phase: str = "pass-decision",
    round: int = 1,
    passing: bool | None = None,
    passed: list[str | None] | None = None,
    received: list[str | None] | None = None,
    trick: list[PlayedCard] | None = None,
    tricks: list[list[PlayedCard]] | None = None,
    discard: list[str] | None = None,
    fulfilled: list[Fulfilled] | None = None,
    points: int = 0,
    result: dict[str, Any] | None = None,
    actions: list[dict[str, Any]] | None = None,
) -> TnTState:
    """A state from its parts; those left out are as at a game's first decision (round 1: whether
    to pass, nothing passed, played or fulfilled yet)."""
    return {
        "schema": SCHEMA,
        "game": NAME,
        "header": header,
        "actions": [] if actions is None else actions,
        "round": round,
        "phase": phase,
        "turn": turn,
        "lead": lead,
        "hands": hands,
        "draw": draw,
        "piles": piles,
        "story": story,
        "face_up": face_up,
        "passing": passing,
        "passed": [None] * SEATS if passed is None else passed,
        "received": [None] * SEATS if received is None else received,
        "trick": [] if trick is None else trick,
        "tricks": [] if tricks is None else tricks,
        "discard": [] if discard is None else discard,
        "fulfilled": [] if fulfilled is None else fulfilled,
        "points": points,
        "result": result,
    }


def clone(state: State) -> State:
    """An independent copy for search: every list the engine changes is copied; what it never
    changes once written (the header, played cards, past tricks, fulfilled tasks, actions, the
    result) is shared."""
    copy = state.copy()
    copy["actions"] = state["actions"][:]
    copy["hands"] = [hand[:] for hand in state["hands"]]
    copy["draw"] = state["draw"][:]
    copy["piles"] = {level: pile[:] for level, pile in state["piles"].items()}
    if state["story"] is not None:
        copy["story"] = state["story"][:]
    for key in ("face_up", "passed", "received", "trick", "tricks", "discard", "fulfilled"):
        copy[key] = state[key][:]
    return copy
