"""A rule-of-thumb Trick 'n Trouble player that aims every trick at the face-up tasks.

`choose(view, legal_moves, rng)` is a pure function of what its seat may see.  The rules of
thumb, as a careful human would play without talking:
- play the card that maximises the expected worth of the face-up tasks this trick fulfils
  (points; in story mode every task counts one), counting on the players after you to help
  (estimated from the cards you cannot see), minus a small cost per rank: strong cards are
  kept for later unless they buy a task now;
- refill with level-1 tasks first (cheap to reach, so more of them get done);
- switch the face-up task you see least chance of reaching from your hand;
- skip passing (passing blind gives away a good card as often as it helps; measured no better).
"""

from __future__ import annotations

import random
from typing import Any

from games.trick_n_trouble.cards import Card, card_table, colour_sums

Move = dict[str, Any]
View = dict[str, Any]

# How much one unseen card is expected to add to the sums a task still lacks.
CARD_REACH = 7.0
# An exact sum is rarely hit by two more cards.
EXACT_DISCOUNT = 0.35
# The least reachable face-up task is switched unless its chance is at least this (when allowed).
HOPELESS = 0.7
# Whether the lead player starts a round of passing.
PASSING = False
# How many useful options a later player is assumed to choose from.
CHOICES = 3
# Preference of levels when refilling tasks (measured: level 1 first scores best).
LEVEL_PREFERENCE = (1, 2, 3)
# Cost per rank of the card played, as a share of an average face-up task's worth: strong
# cards are kept for later tricks unless they buy a task now.
WASTE_SHARE = 0.2


def _clause_deficit(clause: dict[str, Any], sums: list[int]) -> float | None:
    """What the sums still lack for one clause; None if it can no longer hold (a max is passed)."""
    low, high = clause.get("min", 0), clause.get("max", 10**9)
    colour = clause["colour"]
    indices = [colour] if isinstance(colour, int) else [0, 1, 2]
    lacks = [max(0, low - sums[i]) if sums[i] <= high else None for i in indices]
    open_lacks = sorted(lack for lack in lacks if lack is not None)
    needed = {"every": 3, "two": 2}.get(colour, 1) if isinstance(colour, str) else 1
    if len(open_lacks) < needed:
        return None
    return float(sum(open_lacks[:needed]))


def task_deficit(task: dict[str, Any], sums: list[int]) -> float | None:
    """Total the sums still lack for a task; None if it can no longer be fulfilled this trick."""
    total = 0.0
    for clause in task["condition"]:
        deficit = _clause_deficit(clause, sums)
        if deficit is None:
            return None
        total += deficit
    return total


def _exact(task: dict[str, Any]) -> bool:
    return any("max" in clause for clause in task["condition"])


def _add(sums: list[int], extra: list[int]) -> list[int]:
    return [total + more for total, more in zip(sums, extra, strict=True)]


def _completing_share(task: dict[str, Any], sums: list[int], extras: list[list[int]]) -> float:
    """Share of the possible additions (card vectors summed) that complete the task."""
    good = sum(1 for extra in extras if task_deficit(task, _add(sums, extra)) == 0)
    return good / len(extras)


def task_chance(task: dict[str, Any], sums: list[int], unseen: list[list[int]], remaining: int) -> float:
    """Estimated chance the trick fulfils `task` given the sums so far and `remaining` cards to come."""
    deficit = task_deficit(task, sums)
    if deficit is None:
        return 0.0
    if remaining == 0 or deficit == 0 and not _exact(task):
        return 1.0 if deficit == 0 else 0.0
    if remaining == 1:
        # The last player holds a few of the unseen cards and picks the one that completes it.
        return 1.0 - (1.0 - _completing_share(task, sums, unseen)) ** CHOICES
    # Two cards to come: a cheap reach estimate (pair enumeration was 20x slower, no stronger).
    chance = max(0.0, 1.0 - deficit / (CARD_REACH * remaining))
    return chance * (EXACT_DISCOUNT if _exact(task) else 1.0)


def _unseen_cards(view: View, table: dict[str, Card]) -> list[str]:
    seen = set(view["hand"] or []) | {played["card"] for played in view["trick"]}
    seen |= set(view.get("discard") or [])
    return [card for card in table if card not in seen]


def _card_vector(card: Card) -> list[int]:
    return [card.value if colour in card.colours else 0 for colour in range(3)]


def _table_and_unseen(view: View) -> tuple[dict[str, Card], list[list[int]]]:
    """The edition's card table and the colour vectors of every card this seat cannot see."""
    table = card_table(tuple(view["options"]["colours"]))
    return table, [_card_vector(table[card]) for card in _unseen_cards(view, table)]


def task_worth(view: View, task: dict[str, Any]) -> float:
    """What fulfilling a task is worth to the team: its points, or one task in story mode."""
    return 1.0 if view["options"]["story"] else float(task["points"])


def play_value(view: View, card_id: str, table: dict[str, Card], unseen: list[list[int]]) -> float:
    """Expected task worth of the trick if this seat plays `card_id` now."""
    cards = [played["card"] for played in view["trick"]] + [card_id]
    sums = colour_sums(cards, table)
    remaining = 3 - len(cards)
    return sum(task_worth(view, task) * task_chance(task, sums, unseen, remaining) for task in view["tasks"])


def choose_play(view: View, legal: list[Move], rng: random.Random) -> Move:
    """The legal card with the best expected task worth, less a cost for spending strong cards."""
    table, unseen = _table_and_unseen(view)
    worths = [task_worth(view, task) for task in view["tasks"]] or [0.0]
    # Spending a strong card costs a share of what an average face-up task is worth.
    waste = WASTE_SHARE * sum(worths) / len(worths)
    scored = []
    for move in legal:
        value = play_value(view, move["card"], table, unseen) - waste * table[move["card"]].value
        scored.append((value, rng.random(), move))
    return max(scored, key=lambda item: (item[0], item[1]))[2]


def lead_chance(view: View, task: dict[str, Any], table: dict[str, Card], unseen: list[list[int]]) -> float:
    """The best chance of fulfilling `task` when leading one of this seat's cards."""
    return max(
        (task_chance(task, colour_sums([card], table), unseen, 2) for card in view["hand"]), default=0.0
    )


def choose_switch(view: View, legal: list[Move], rng: random.Random) -> Move:
    """Switch the least reachable face-up task unless even that one looks likely, else keep."""
    table, unseen = _table_and_unseen(view)
    chances = {task["id"]: lead_chance(view, task, table, unseen) for task in view["tasks"]}
    if not chances:
        return {"type": "keep-tasks"}
    worst = min(chances, key=lambda task_id: (chances[task_id], rng.random()))
    if chances[worst] >= HOPELESS:
        return {"type": "keep-tasks"}
    options = [move for move in legal if move.get("task") == worst]
    if "level" not in options[0]:
        return options[0]  # story mode: the replacement is the top of the single pile
    level = preferred_level([move["level"] for move in options])
    return next(move for move in options if move["level"] == level)


def lead_value(view: View, card_id: str, table: dict[str, Card], unseen: list[list[int]]) -> float:
    """Expected task points if this seat led `card_id` now (how useful the card is to keep)."""
    sums = colour_sums([card_id], table)
    return sum(task_worth(view, task) * task_chance(task, sums, unseen, 2) for task in view["tasks"])


def choose_pass(view: View, legal: list[Move], rng: random.Random) -> Move:
    """Give away the card least useful for the face-up tasks."""
    table, unseen = _table_and_unseen(view)
    return min(legal, key=lambda move: (lead_value(view, move["card"], table, unseen), rng.random()))


def preferred_level(levels: list[int]) -> int:
    """The most preferred of the levels on offer."""
    return next(level for level in LEVEL_PREFERENCE if level in levels)


def choose(view: View, legal_moves: list[Move], rng: random.Random) -> Move:
    """Pick one of `legal_moves` for the seat whose `view` this is."""
    kinds = {move["type"] for move in legal_moves}
    if "play" in kinds:
        return choose_play(view, legal_moves, rng)
    if "choose-task-level" in kinds:
        return {"type": "choose-task-level", "level": preferred_level([m["level"] for m in legal_moves])}
    if "keep-tasks" in kinds:
        return choose_switch(view, legal_moves, rng)
    if "skip-passing" in kinds:
        return {"type": "start-passing" if PASSING else "skip-passing"}
    return choose_pass(view, legal_moves, rng)
