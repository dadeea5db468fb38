"""Search-bot help: a full state consistent with one seat's view and a guess of the hidden parts.

Pure functions (no I/O).  The caller samples the other hands, the draw pile's order and the task
piles' order; `state_from_view` assembles a state the engine can play on.  The action list is
empty (the state is for playouts, not for replay).
"""

from __future__ import annotations

from typing import Any

from games.trick_n_trouble.engine import LEVELS, NAME, SEATS, normalize_options, playable_cards
from games.trick_n_trouble.tasks import builtin_deck


def unknown_tasks(view: dict[str, Any]) -> dict[str, list[str]] | None:
    """Task ids still in the piles, per level ('story' for the single story pile); None for a custom deck."""
    deck = {task["id"]: task for task in builtin_deck()}
    face_up = [task["id"] for task in view["tasks"]]
    done = [entry["task"]["id"] for entry in view["fulfilled"]]
    if any(task_id not in deck for task_id in face_up + done):
        return None  # a custom deck: the view carries only its visible tasks
    rest = [task_id for task_id in deck if task_id not in set(face_up) | set(done)]
    if view["options"]["story"]:
        return {"story": rest}
    return {level: [t for t in rest if str(deck[t]["level"]) == level] for level in LEVELS}


def state_from_view(
    view: dict[str, Any], hands: list[list[str]], draw: list[str], piles: dict[str, list[str]]
) -> dict[str, Any]:
    """A playable state: `view`'s public facts with the given hands, draw pile and task piles (top first)."""
    options = normalize_options(dict(view["options"]))
    story = list(piles["story"]) if "story" in piles else None
    passed: list[str | None] = [None] * SEATS
    received: list[str | None] = [None] * SEATS
    me = view["seat"]
    passed[me], received[me] = view["passed"], view["received"]
    return {
        "schema": 1,
        "game": NAME,
        "header": {"seats": SEATS, "options": options, "seed": 0, "deal": None},
        "actions": [],
        "round": view["round"],
        "phase": view["phase"],
        "turn": view["to_move"][0] if view["to_move"] else None,
        "lead": view["lead"],
        "hands": [list(hand) for hand in hands],
        "draw": list(draw),
        "piles": {level: [] for level in LEVELS}
        if story is not None
        else {lv: list(piles[lv]) for lv in LEVELS},
        "story": story,
        "face_up": [task["id"] for task in view["tasks"]],
        "passing": view["passing"],
        "passed": passed,
        "received": received,
        "trick": [dict(played) for played in view["trick"]],
        "tricks": [[dict(p) for p in trick] for trick in (view.get("tricks") or [])],
        "discard": list(view.get("discard") or []),
        "fulfilled": [{"task": entry["task"]["id"], "round": entry["round"]} for entry in view["fulfilled"]],
        "points": view["points"],
        "result": None,
    }


def playable(hand: list[str], trick: list[str], colours: tuple[str, ...]) -> list[str]:
    """The cards of `hand` the engine allows on a trick of `trick` (follow rules, ruling 4)."""
    state = {
        "hands": [hand],
        "trick": [{"seat": i, "card": card} for i, card in enumerate(trick)],
        "header": {"options": {"colours": list(colours)}},
    }
    return playable_cards(state, 0)
