"""Helpers for the Trick 'n Trouble tests: explicit deals, a small task deck, move shortcuts."""

from __future__ import annotations

import random
from typing import Any

from games.base import State
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import DEFAULT_COLOURS, card_table

DECK = list(card_table(DEFAULT_COLOURS))
MODES: list[dict[str, bool]] = [{}, {"expert": True}, {"story": True}, {"expert": True, "story": True}]


def task(task_id: str, level: int, points: int, text: str, *clauses: dict[str, Any]) -> dict[str, Any]:
    """One task card of a test deck."""
    return {"id": task_id, "level": level, "points": points, "text": text, "condition": list(clauses)}


# A small deck whose conditions are easy to reason about; setup flips a1 a2 a3, b1 and c1.
SMALL_DECK = [
    task("a1", 1, 1, "At least 5 {0}", {"colour": 0, "min": 5}),
    task("a2", 1, 1, "At least 5 {1}", {"colour": 1, "min": 5}),
    task("a3", 1, 1, "At least 5 {2}", {"colour": 2, "min": 5}),
    task("a4", 1, 1, "At least 25 {0}", {"colour": 0, "min": 25}),
    task("b1", 2, 3, "At least 10 {0}", {"colour": 0, "min": 10}),
    task("b2", 2, 3, "At least 1 in every colour", {"colour": "every", "min": 1}),
    task("c1", 3, 5, "At least 3 {1}", {"colour": 1, "min": 3}),
    task("c2", 3, 5, "At least 25 in two colours", {"colour": "two", "min": 25}),
]
SMALL_PILES = {"1": ["a1", "a2", "a3", "a4"], "2": ["b1", "b2"], "3": ["c1", "c2"]}


def fillers(used: list[str], count: int) -> list[str]:
    """`count` cards of the deck not in `used` (to complete hands a scenario doesn't care about)."""
    return [card for card in DECK if card not in used][:count]


def new(
    hands: list[list[str]],
    draw: list[str] | None = None,
    *,
    piles: dict[str, list[str]] | None = None,
    tasks: list[dict[str, Any]] | None = None,
    **options: Any,
) -> State:
    """A game with an explicit deal (draw pile empty unless given) and the small deck by default."""
    deal: dict[str, Any] = {"hands": hands, "draw": draw or []}
    if tasks is None:
        tasks = SMALL_DECK
        piles = piles or SMALL_PILES
    if piles is not None:
        deal["tasks"] = piles
    return GAME.new_game(3, {"tasks": tasks, **options}, seed=1, deal=deal)


def act(state: State, seat: int, kind: str, **fields: Any) -> list[dict[str, Any]]:
    """Apply one move given as a type and its fields."""
    return GAME.apply(state, seat, {"type": kind, **fields})


def plays(state: State, *cards: str) -> list[dict[str, Any]]:
    """Play cards in turn order, skipping those the engine already played automatically."""
    events: list[dict[str, Any]] = []
    for card in cards:
        played = {p["card"] for p in state["trick"]} | set(state["discard"])
        if card in played:
            continue
        if state["phase"] != "play" or card not in state["hands"][state["turn"]]:
            raise AssertionError(f"cannot play {card}: phase {state['phase']}, turn {state['turn']}")
        events += act(state, state["turn"], "play", card=card)
    return events


def to_play(state: State) -> None:
    """As lead player, skip passing and keep the tasks (when those decisions are asked)."""
    if state["phase"] == "pass-decision":
        act(state, state["turn"], "skip-passing")
    if state["phase"] == "switch-task":
        act(state, state["turn"], "keep-tasks")


def random_game(options: dict[str, Any], seed: int, choices: int) -> tuple[State, list[list[dict[str, Any]]]]:
    """A complete game of uniformly random legal moves; also returns every apply's events."""
    state = GAME.new_game(3, options, seed)
    rng = random.Random(choices)
    events = []
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        events.append(GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat))))
    return state, events


def strings(value: Any) -> set[str]:
    """Every string inside a JSON value (keys included)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()
