"""Phase 6 and the end: who wins a trick, which tasks its colour sums fulfil, and the result.

Conditions only ask for minimums (see options), so `task_met` is monotone: a trick with more in
any colour fulfils every task a smaller one fulfils.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from games.base import Event
from games.trick_n_trouble.cards import Card, Condition, Edition, asked_colours, colour_sums
from games.trick_n_trouble.options import SEATS
from games.trick_n_trouble.state import PlayedCard, TnTState

CARD = itemgetter("card")
POINT_BANDS: tuple[tuple[int, str], ...] = (
    (50, "The world can live in peace. You made it."),
    (40, "Huzzah! You did it! But has the Doc gone forever?"),
    (30, "Fallen at the final hurdle?! It's only a matter of time before you succeed!"),
    (20, "There may still be hope - do better next time!"),
    (0, "A good effort but the World is lost now!"),
)
STORY_BANDS: tuple[tuple[int, str], ...] = (
    (27, "Did you use a game guide?"),
    (23, "The world can live in peace. You made it."),
    (19, "Huzzah! You did it! But has the Doc gone forever?"),
    (15, "Fallen at the final hurdle?! It's only a matter of time before you succeed!"),
    (10, "There may still be hope - do better next time!"),
    (0, "A good effort but the World is lost now!"),
)


def qualifies(card: Card, asked: int) -> bool:
    """Ruling 5: a card may win when it carries a colour the lead asked for; after a joker lead,
    which asks for none, every card may."""
    return not asked or bool(card.carries & asked)


def trick_winner(trick: list[PlayedCard], table: dict[str, Card]) -> int:
    """Ruling 5: the highest card that `qualifies` wins; a tie goes to the earlier card."""
    asked = asked_colours(table[trick[0]["card"]])
    best = trick[0]
    for played in trick[1:]:
        card = table[played["card"]]
        if qualifies(card, asked) and card.value > table[best["card"]].value:
            best = played
    return best["seat"]


def task_met(condition: Condition, sums: list[int]) -> bool:
    """Ruling 6 (over-fulfilling counts): a trick with these per-colour sums fulfils a task when every
    clause of its `condition` holds, enough of the sums reaching their minimums; if sums fulfil a
    task, so does every componentwise larger vector."""
    first, second, third = sums
    for (low1, low2, low3), need in condition:
        if (first >= low1) + (second >= low2) + (third >= low3) < need:
            return False
    return True


def fulfilled_tasks(face_up: list[str], sums: list[int], conditions: dict[str, Condition]) -> list[str]:
    """Ruling 6: every face-up task the trick's sums meet (sums serve several tasks)."""
    return [task_id for task_id in face_up if task_met(conditions[task_id], sums)]


def score_trick(state: TnTState, tables: Edition, events: list[Event]) -> None:
    """Phase 6: the fulfilled tasks go to the score pile, the trick to the discard pile, and its
    winner leads the next round."""
    trick = state["trick"]
    cards = list(map(CARD, trick))
    sums = colour_sums(cards, tables.cards)
    winner = trick_winner(trick, tables.cards)
    done = fulfilled_tasks(state["face_up"], sums, tables.conditions)
    points = 0
    for task_id in done:
        points += tables.tasks[task_id]["points"]
        state["face_up"].remove(task_id)
        state["fulfilled"].append({"task": task_id, "round": state["round"]})
    state["points"] += points
    state["tricks"].append(trick)
    state["discard"].extend(cards)
    state["trick"] = []
    state["lead"] = winner
    events.append(
        {
            "type": "trick-won",
            "seat": winner,
            "cards": cards,
            "sums": sums,
            "fulfilled": done,
            "points": points,
            "round": state["round"],
        }
    )


def band(value: int, bands: tuple[tuple[int, str], ...]) -> str:
    """The rulebook's text for a score: the band of the highest floor it reaches."""
    return next(text for floor, text in bands if value >= floor)


def result(state: TnTState) -> dict[str, Any]:
    """Team points (story mode: tasks) for every seat, winners, and the rulebook's band."""
    options = state["header"]["options"]
    count = len(state["fulfilled"])
    points = state["points"]
    if options["story"]:
        score, won, text = count, count >= options["story_threshold"], band(count, STORY_BANDS)
    else:
        score, won, text = points, points >= options["threshold"], band(points, POINT_BANDS)
    return {
        "scores": [score] * SEATS,
        "winners": list(range(SEATS)) if won else [],
        "points": points,
        "tasks_fulfilled": count,
        "band": text,
    }
