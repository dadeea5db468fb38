"""Move values: parsing wire moves (`MalformedMove`) and listing the legal moves of the decision the
game waits for.

Every move is a shared immutable value (games.base.FrozenDict) from the edition's tables or the
constants below: `legal_moves` lists them, and `apply` records the listed value equal to what a
seat sent.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

from games.base import MalformedMove, Move
from games.trick_n_trouble.cards import (
    CHOOSE_LEVEL,
    KEEP_TASKS,
    SKIP_PASSING,
    START_PASSING,
    Edition,
    move_key,
)
from games.trick_n_trouble.options import SEATS, is_int
from games.trick_n_trouble.rules import fill_levels, playable_cards, switch_sources
from games.trick_n_trouble.state import TnTState

MOVE_FIELDS: dict[str, frozenset[str]] = {
    "choose-task-level": frozenset({"type", "level"}),
    "start-passing": frozenset({"type"}),
    "skip-passing": frozenset({"type"}),
    "pass-card": frozenset({"type", "card"}),
    "switch-task": frozenset({"type", "task", "level"}),
    "keep-tasks": frozenset({"type"}),
    "play": frozenset({"type", "card"}),
}
# The field a move must have besides its type (a switch's `level` is optional: story mode has none).
NEEDS: dict[str, str | None] = {
    "choose-task-level": "level",
    "start-passing": None,
    "skip-passing": None,
    "pass-card": "card",
    "switch-task": "task",
    "keep-tasks": None,
    "play": "card",
}
# The decisions where the seat's own hand is the list of options (pass a card, play a card).
HAND_DECISIONS = frozenset({"pass-card", "play"})


def parse_move(state: TnTState, seat: object, move: object, tables: Edition) -> Move:
    """The game's own value equal to `move`, a well-formed move for a seat 0..2 (the edition's
    `moves` hold every one); raises MalformedMove saying what is wrong."""
    if is_int(seat) and 0 <= seat < SEATS and isinstance(move, dict):
        own = tables.own.get(id(move))
        if own is move and own is not None:
            return own
        try:
            known = tables.moves.get(move_key(move))
        except TypeError:  # a field holds an unhashable value: no move of the game
            known = None
        # Equal fields and no others; a level equal to 1..3 must be an integer (True == 1).
        if known is not None and known == move and ("level" not in move or is_int(move["level"])):
            return known
    raise malformed(seat, move, tables)


def malformed(seat: object, move: object, tables: Edition) -> MalformedMove:
    """Why `move` is not a well-formed move for `seat`: the first problem, in a fixed order."""
    if not (is_int(seat) and 0 <= seat < SEATS):
        return MalformedMove(f"seat must be 0, 1 or 2, not {seat!r}")
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        return MalformedMove("a move is an object with a string 'type'")
    kind = move["type"]
    fields = MOVE_FIELDS.get(kind)
    if fields is None:
        return MalformedMove(f"unknown move type {kind!r}; known: {sorted(MOVE_FIELDS)}")
    needed = NEEDS[kind]
    if not (fields.issuperset(move) and (needed is None or needed in move)):
        return MalformedMove(f"a {kind!r} move has the fields {sorted(fields)}, got {sorted(move)}")
    if "card" in move and (not isinstance(move["card"], str) or move["card"] not in tables.cards):
        return MalformedMove(f"unknown card {move['card']!r}")
    if "level" in move and not (is_int(move["level"]) and 1 <= move["level"] <= 3):
        return MalformedMove(f"level must be 1, 2 or 3, not {move['level']!r}")
    if "task" in move and (not isinstance(move["task"], str) or move["task"] not in tables.tasks):
        return MalformedMove(f"unknown task {move['task']!r}")
    raise AssertionError(f"{move!r} passes every check but is not among the game's moves")


def _choose_level(state: TnTState, seat: int, tables: Edition) -> list[Move]:
    return list(map(CHOOSE_LEVEL.__getitem__, fill_levels(state)))


def _pass_decision(state: TnTState, seat: int, tables: Edition) -> list[Move]:
    return [START_PASSING, SKIP_PASSING]


def _pass_card(state: TnTState, seat: int, tables: Edition) -> list[Move]:
    return list(map(tables.give.__getitem__, state["hands"][seat]))


def _switch_or_keep(state: TnTState, seat: int, tables: Edition) -> list[Move]:
    switches = tables.switch[switch_sources(state)]
    return [KEEP_TASKS, *chain.from_iterable(map(switches.__getitem__, state["face_up"]))]


def _play(state: TnTState, seat: int, tables: Edition) -> list[Move]:
    return list(map(tables.play.__getitem__, playable_cards(state, seat, tables)))


def _none(state: TnTState, seat: int, tables: Edition) -> list[Move]:
    return []


# What the decision the game waits for offers the seat in turn, by the phase that waits for it.
OPTIONS: dict[str, Callable[[TnTState, int, Edition], list[Move]]] = {
    "choose-task-level": _choose_level,
    "pass-decision": _pass_decision,
    "pass-card": _pass_card,
    "switch-task": _switch_or_keep,
    "play": _play,
    "over": _none,
}


def why_illegal(state: TnTState, seat: int, move: dict[str, Any], legal: list[Move]) -> str:
    """A human reason why a well-formed `move` of the seat in turn is not among the `legal` ones."""
    kind = move["type"]
    if kind not in {listed["type"] for listed in legal}:
        return f"the game waits for a {state['phase']!r} decision, not {kind!r}"
    if kind in HAND_DECISIONS and move["card"] not in state["hands"][seat]:
        return f"{move['card']} is not in your hand"
    if kind == "play":
        return f"you must follow the lead {state['trick'][0]['card']} with a card of its colour (or a joker)"
    if kind == "switch-task" and move["task"] not in state["face_up"]:
        return f"task {move['task']} is not face up"
    if kind == "switch-task" and state["story"] is None and "level" not in move:
        return "switch-task needs the level to draw the replacement from"
    if kind == "switch-task" and state["story"] is not None:
        return "in story mode the replacement is the top of the single pile: give no level"
    if kind == "switch-task":
        return (
            f"the level-{move['level']} task pile is empty: the replacement must be a new task, "
            f"not the one just put under its pile"
        )
    return f"the level-{move.get('level')} task pile is empty"
