"""Per-seat and spectator views, and the event log as a seat may read it: the only way hidden
information leaves the engine; after the game ends everything is revealed."""

from __future__ import annotations

from typing import Any, cast

from games.base import Event, State, View, redact_event
from games.trick_n_trouble.cards import LEVELS, Task, edition
from games.trick_n_trouble.engine import legal_moves, to_move
from games.trick_n_trouble.options import SEATS
from games.trick_n_trouble.state import NAME, TnTState

ROUNDS = 9


def render_text(task: Task, colours: list[str]) -> str:
    """The task's plain-language text with the edition's colour names filled in."""
    text: str = task["text"].format(*colours)
    return text


def task_card(task: Task, colours: list[str]) -> dict[str, Any]:
    """A task as views show it (wire.TaskCard)."""
    return {
        "id": task["id"],
        "level": task["level"],
        "points": task["points"],
        "text": render_text(task, colours),
        "condition": task["condition"],
    }


def view(state: State, seat: int | None) -> View:
    """What `seat` (None: a spectator) may know now; everything once the game is over."""
    s = cast(TnTState, state)
    opts = s["header"]["options"]
    tasks = edition(opts).tasks
    colours = opts["colours"]
    over = s["phase"] == "over"
    me = seat if seat is not None and 0 <= seat < SEATS else None
    hidden_tricks = opts["expert"] and not over
    out: View = {
        "game": NAME,
        "seat": me,
        "seats": SEATS,
        "options": {key: value for key, value in opts.items() if key != "tasks"},
        "round": s["round"],
        "rounds": ROUNDS,
        "phase": s["phase"],
        "lead": s["lead"],
        "to_move": to_move(state),
        "hand": None if me is None else list(s["hands"][me]),
        "hand_sizes": [len(hand) for hand in s["hands"]],
        "passing": s["passing"],
        "passed": None if me is None else s["passed"][me],
        "received": None if me is None else s["received"][me],
        "tasks": [task_card(tasks[task_id], colours) for task_id in s["face_up"]],
        "task_piles": {
            "levels": {level: len(s["piles"][level]) for level in LEVELS},
            "story": None if s["story"] is None else len(s["story"]),
        },
        "draw_pile": len(s["draw"]),
        "discard": None if hidden_tricks else list(s["discard"]),
        "trick": [dict(played) for played in s["trick"]],
        "tricks": None if hidden_tricks else [[dict(p) for p in trick] for trick in s["tricks"]],
        "points": s["points"],
        "tasks_fulfilled": len(s["fulfilled"]),
        "fulfilled": [
            {"task": task_card(tasks[entry["task"]], colours), "round": entry["round"]}
            for entry in s["fulfilled"]
        ],
        "legal_moves": [] if me is None else legal_moves(state, me),
        "result": s["result"],
    }
    if over:
        out["hands"] = [list(hand) for hand in s["hands"]]
        out["draw"] = list(s["draw"])
        out["task_pile_contents"] = {level: list(pile) for level, pile in s["piles"].items()}
        out["story_pile"] = None if s["story"] is None else list(s["story"])
        out["all_passed"] = list(s["passed"])
    return out


def trick_left_the_game(state: State, event: Event) -> bool:
    """Ruling 7: in expert mode a trick's cards leave the game face down once its round is over."""
    return (
        bool(state["header"]["options"]["expert"])
        and event.get("type") in ("card-played", "trick-won")
        and event.get("round", state["round"]) < state["round"]
        and state["phase"] != "over"
    )


def event_view(state: State, event: Event, seat: int | None) -> Event:
    """A logged event as `seat` may read it now: private parts stripped, expert tricks face down."""
    event = redact_event(event, seat, state["phase"] == "over")
    if trick_left_the_game(state, event):
        event = {k: v for k, v in event.items() if k not in ("card", "cards", "sums")}
    return event
