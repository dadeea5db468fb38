"""Search-bot help: a full state consistent with one seat's view and a guess of the hidden parts.

Pure functions (no I/O).  The caller samples the other hands, the draw pile's order and the task
piles' order; `state_from_view` assembles, with the engine's own constructor, a state the engine
can play on (`GAME.clone`, `GAME.apply_unchecked`).  The action list is empty (the state is for
playouts, not for replay).
"""

from __future__ import annotations

from typing import cast

from games.base import State, View
from games.trick_n_trouble.cards import LEVELS, builtin_deck
from games.trick_n_trouble.options import SEATS, normalize_options
from games.trick_n_trouble.state import new_state


def unknown_tasks(view: View) -> dict[str, list[str]] | None:
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
    view: View, hands: list[list[str]], draw: list[str], piles: dict[str, list[str]]
) -> State:
    """A playable state: `view`'s public facts with the given hands, draw pile and task piles (top first)."""
    options = normalize_options(dict(view["options"]))
    story = list(piles["story"]) if "story" in piles else None
    passed: list[str | None] = [None] * SEATS
    received: list[str | None] = [None] * SEATS
    me = view["seat"]
    passed[me], received[me] = view["passed"], view["received"]
    state = new_state(
        {"seats": SEATS, "options": options, "seed": 0, "deal": None},
        lead=view["lead"],
        turn=view["to_move"][0] if view["to_move"] else None,
        hands=[list(hand) for hand in hands],
        draw=list(draw),
        piles={level: [] if story is not None else list(piles[level]) for level in LEVELS},
        story=story,
        face_up=[task["id"] for task in view["tasks"]],
        phase=view["phase"],
        round=view["round"],
        passing=view["passing"],
        passed=passed,
        received=received,
        trick=[{"seat": played["seat"], "card": played["card"]} for played in view["trick"]],
        tricks=[
            [{"seat": p["seat"], "card": p["card"]} for p in trick] for trick in (view.get("tricks") or [])
        ],
        discard=list(view.get("discard") or []),
        fulfilled=[{"task": entry["task"]["id"], "round": entry["round"]} for entry in view["fulfilled"]],
        points=view["points"],
    )
    return cast(State, state)
