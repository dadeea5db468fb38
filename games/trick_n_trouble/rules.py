"""The rules as named functions: who may do what (rulings 2 and 4) and what each decision does to
the cards and tasks (phases 1 to 5); the engine runs them in the rulebook's order.

Each function here is the one place its rule is written: `legal_moves`, `apply`'s check and the
automatic decisions all ask the same ones.
"""

from __future__ import annotations

from itertools import product

from games.base import Event
from games.trick_n_trouble.cards import Edition
from games.trick_n_trouble.options import SEATS
from games.trick_n_trouble.state import TnTState

# Phase 1 fills the face-up tasks up to five, phase 2 the hands up to five cards (the deal's size).
FACE_UP_TASKS = 5
HAND_SIZE = 5


# The levels 1..3 whose piles hold a task, by which of the piles are empty.
LEVELS_LEFT: dict[tuple[bool, bool, bool], tuple[int, ...]] = {
    empty: tuple(level for level, none_left in zip((1, 2, 3), empty, strict=True) if not none_left)
    for empty in product((False, True), (False, True), (False, True))
}


def fill_levels(state: TnTState) -> tuple[int, ...]:
    """Ruling 2: the lead player may choose any level whose pile is not empty."""
    piles = state["piles"]
    return LEVELS_LEFT[not piles["1"], not piles["2"], not piles["3"]]


def switch_sources(state: TnTState) -> tuple[int | None, ...]:
    """Ruling (switching to an empty pile): the piles a switch may draw its replacement from.

    The replacement must be a new task, never the one just switched, so a pile counts as it is
    *before* the switched task goes under it: a level is offered only if its pile holds a task
    then, as in `fill_levels` (its top is drawn, never the task put at the bottom).  Story mode:
    the single pile (None) while it holds a task.  With no pile to draw from, no switch is
    offered at all.
    """
    story = state["story"]
    if story is not None:
        return (None,) if story else ()
    return fill_levels(state)


def playable_cards(state: TnTState, seat: int, tables: Edition) -> list[str]:
    """Ruling 4: follow the colours the trick asks for if you can (a joker is always allowed), else
    play anything; the lead, and every play after a joker lead, is free."""
    hand = state["hands"][seat]
    trick = state["trick"]
    if trick:
        asked = tables.asks[trick[0]["card"]]
        if not tables.follow[asked].isdisjoint(hand):
            return list(filter(tables.allowed[asked].__contains__, hand))
    return list(hand)


# ------------------------------------------------------------------------- what the decisions do


def draw_task(state: TnTState, level: int | None, tables: Edition, events: list[Event], auto: bool) -> None:
    """Phase 1 and ruling 2: turn up the top task of a level's pile (None: the story pile)."""
    story = state["story"]
    pile = story if level is None and story is not None else state["piles"][str(level)]
    task_id = pile.pop(0)
    state["face_up"].append(task_id)
    events.append({"type": "task-drawn", "task": task_id, "level": tables.level[task_id], "auto": auto})


def fill_hands(state: TnTState, tables: Edition, events: list[Event]) -> None:
    """Phase 2 / ruling 3: from the lead clockwise, each seat draws up to five while the pile lasts."""
    draw = state["draw"]
    for offset in range(SEATS):
        if not draw:
            return
        seat = (state["lead"] + offset) % SEATS
        hand = state["hands"][seat]
        count = min(HAND_SIZE - len(hand), len(draw))
        if count > 0:
            drawn = draw[:count]
            del draw[:count]
            hand.extend(drawn)
            hand.sort(key=tables.order.__getitem__)
            events.append(
                {
                    "type": "cards-drawn",
                    "seat": seat,
                    "count": count,
                    "private": {"seats": [seat], "cards": drawn},
                }
            )


def pass_card(state: TnTState, seat: int, card: str, tables: Edition, events: list[Event], auto: bool) -> int:
    """Phase 3 / ruling 1: give one card face down to the left; returns the receiving seat."""
    left = (seat + 1) % SEATS
    receiver = state["hands"][left]
    state["hands"][seat].remove(card)
    receiver.append(card)
    receiver.sort(key=tables.order.__getitem__)
    state["passed"][seat] = card
    state["received"][left] = card
    events.append(
        {
            "type": "card-passed",
            "seat": seat,
            "to": left,
            "auto": auto,
            "private": {"seats": [seat, left], "card": card},
        }
    )
    return left


def switch_task(
    state: TnTState, task_id: str, level: int | None, tables: Edition, events: list[Event]
) -> None:
    """Phase 4 / ruling 2: the task goes under its pile, then the lead draws a replacement from a pile
    that held a task before (`switch_sources`), so the replacement is never the switched task."""
    state["face_up"].remove(task_id)
    story = state["story"]
    if story is not None:
        story.append(task_id)
    else:
        state["piles"][str(tables.level[task_id])].append(task_id)
    events.append({"type": "task-switched", "task": task_id})
    draw_task(state, level, tables, events, auto=False)


def play_card(state: TnTState, seat: int, card: str, events: list[Event]) -> None:
    """Phase 5: the card joins the trick.  The event has no "auto" marker: a forced play must look
    like a chosen one (a last card is played automatically, but that is public)."""
    state["hands"][seat].remove(card)
    state["trick"].append({"seat": seat, "card": card})
    events.append({"type": "card-played", "seat": seat, "card": card, "round": state["round"]})
