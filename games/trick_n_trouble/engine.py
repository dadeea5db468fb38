"""Trick 'n Trouble rules: setup, the six phases of a round, moves, views and the result.

The state is a plain JSON dict.  Randomness is used only at setup (the seed shuffles the
cards and the three task piles; story mode stacks the piles, it does not shuffle them); after
that the game is deterministic, so the state needs no random-generator state and `replay` just
re-applies the actions.

Only decisions whose single option is public are automatic (`automatic_move`, event
``"auto": true``): drawing a task when only one level has tasks left (and every story-mode
fill), passing or playing the last card in a hand, keeping the tasks when no switch is possible.
A decision that has one option only because of the cards in a hand -- a forced follow with
more cards in hand -- is an ordinary decision: the seat sends the move, it is recorded as an
action and its ``card-played`` event looks exactly like a chosen play's (rulebook: "You may not
tell anyone the cards you have or don't have in your hand").
"""

from __future__ import annotations

import random
import re
from typing import Any, TypeGuard

from games.base import (
    Event,
    GameOver,
    IllegalMove,
    InvalidDeal,
    InvalidOptions,
    MalformedMove,
    Move,
    NotYourTurn,
    State,
    View,
    redact_event,
)
from games.trick_n_trouble.cards import DEFAULT_COLOURS, Card, card_table, colour_sums
from games.trick_n_trouble.tasks import (
    SETUP_FACE_UP,
    Task,
    builtin_deck,
    deck_index,
    render_text,
    task_met,
    validate_deck,
)

NAME = "trick-n-trouble"
SEATS = 3
HAND_SIZE = 5
FACE_UP_TASKS = 5
ROUNDS = 9
LEVELS = ("1", "2", "3")
STORY_THRESHOLD = 19
COLOUR_NAME = re.compile(r"^[a-z][a-z0-9]{0,15}$")
OPTION_KEYS = {"expert", "story", "threshold", "story_threshold", "colours", "tasks", "first_leader"}
DEAL_KEYS = {"hands", "draw", "tasks"}
MOVE_FIELDS: dict[str, frozenset[str]] = {
    "choose-task-level": frozenset({"type", "level"}),
    "start-passing": frozenset({"type"}),
    "skip-passing": frozenset({"type"}),
    "pass-card": frozenset({"type", "card"}),
    "switch-task": frozenset({"type", "task", "level"}),
    "keep-tasks": frozenset({"type"}),
    "play": frozenset({"type", "card"}),
}
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


# ---------------------------------------------------------------------------------------- options


def default_options(seats: int = SEATS) -> dict[str, Any]:
    """The default options: normal mode, 40 points to win, blue/green/yellow, shipped deck."""
    return {
        "expert": False,
        "story": False,
        "threshold": 40,
        "story_threshold": STORY_THRESHOLD,
        "colours": list(DEFAULT_COLOURS),
        "tasks": None,
        "first_leader": 0,
    }


def options_schema() -> dict[str, Any]:
    """JSON Schema of the options object."""
    clause = {
        "type": "object",
        "description": "The selected colour sum(s) must reach `min`. There is no `max`: over-fulfilling "
        "always counts, so a condition can only ask for minimums.",
        "properties": {
            "colour": {
                "oneOf": [{"type": "integer", "minimum": 0, "maximum": 2}, {"enum": ["every", "any", "two"]}]
            },
            "min": {"type": "integer", "minimum": 0},
        },
        "required": ["colour", "min"],
        "additionalProperties": False,
    }
    task = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,39}$"},
            "level": {"type": "integer", "minimum": 1, "maximum": 3},
            "points": {"type": "integer", "minimum": 0},
            "text": {"type": "string", "minLength": 1, "maxLength": 200},
            "condition": {"type": "array", "items": clause, "minItems": 1, "maxItems": 6},
        },
        "required": ["id", "level", "points", "text", "condition"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "expert": {
                "type": "boolean",
                "default": False,
                "description": "Skip phase 4; played tricks leave the game face down.",
            },
            "story": {
                "type": "boolean",
                "default": False,
                "description": "One task pile (the level piles stacked, level 1 on top); only the number "
                "of fulfilled tasks counts.",
            },
            "threshold": {
                "type": "integer",
                "minimum": 0,
                "default": 40,
                "description": "Points the team needs to win.",
            },
            "story_threshold": {
                "type": "integer",
                "minimum": 0,
                "default": STORY_THRESHOLD,
                "description": "Tasks the team needs to win in story mode.",
            },
            "colours": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[a-z][a-z0-9]{0,15}$"},
                "minItems": 3,
                "maxItems": 3,
                "uniqueItems": True,
                "default": list(DEFAULT_COLOURS),
            },
            "tasks": {
                "oneOf": [{"type": "null"}, {"type": "array", "items": task, "maxItems": 100}],
                "default": None,
                "description": "A replacement task deck (null: the shipped 27 tasks).",
            },
            "first_leader": {
                "type": "integer",
                "minimum": 0,
                "maximum": 2,
                "default": 0,
                "description": "The first lead player (most recent delivery notification).",
            },
        },
        "additionalProperties": False,
    }


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_colours(colours: object) -> tuple[str, ...]:
    if not (isinstance(colours, list) and len(colours) == 3 and all(isinstance(c, str) for c in colours)):
        raise InvalidOptions("colours must be a list of three colour names")
    for name in colours:
        if not COLOUR_NAME.match(name):
            raise InvalidOptions(
                f"colour {name!r}: use 1-16 lowercase letters/digits, starting with a letter"
            )
    if len(set(colours)) != 3 or "joker" in colours:
        raise InvalidOptions("colours must be three distinct names other than 'joker'")
    return tuple(colours)


def normalize_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults merged with `options`, every value checked; raises InvalidOptions."""
    if options is not None and not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    merged = default_options()
    given = options or {}
    unknown = set(given) - OPTION_KEYS
    if unknown:
        raise InvalidOptions(f"unknown options {sorted(unknown)}; known: {sorted(OPTION_KEYS)}")
    merged.update(given)
    for flag in ("expert", "story"):
        if not isinstance(merged[flag], bool):
            raise InvalidOptions(f"{flag} must be true or false")
    for key in ("threshold", "story_threshold"):
        if not (_is_int(merged[key]) and merged[key] >= 0):
            raise InvalidOptions(f"{key} must be a non-negative integer")
    if not (_is_int(merged["first_leader"]) and 0 <= merged["first_leader"] < SEATS):
        raise InvalidOptions("first_leader must be a seat 0, 1 or 2")
    colours = _check_colours(merged["colours"])
    merged["colours"] = list(colours)
    if merged["tasks"] is not None:
        merged["tasks"] = validate_deck(merged["tasks"], colours)
    return merged


def _colours(state: State) -> tuple[str, ...]:
    return tuple(state["header"]["options"]["colours"])


def _table(state: State) -> dict[str, Card]:
    return card_table(_colours(state))


def _deck(options: dict[str, Any]) -> list[Task]:
    tasks: list[Task] | None = options["tasks"]
    return builtin_deck() if tasks is None else tasks


def _tasks(state: State) -> dict[str, Task]:
    return _task_index(state["header"]["options"])


_BUILTIN_INDEX: dict[str, Task] = deck_index(builtin_deck())


def _task_index(options: dict[str, Any]) -> dict[str, Task]:
    tasks: list[Task] | None = options["tasks"]
    return _BUILTIN_INDEX if tasks is None else deck_index(tasks)


# ------------------------------------------------------------------------------------------ setup


def _shuffled(items: list[str], rng: random.Random) -> list[str]:
    out = list(items)
    rng.shuffle(out)
    return out


def _check_card_list(what: str, cards: object, table: dict[str, Card]) -> list[str]:
    if not (isinstance(cards, list) and all(isinstance(card, str) for card in cards)):
        raise InvalidDeal(f"{what} must be a list of card ids")
    unknown = [card for card in cards if card not in table]
    if unknown:
        raise InvalidDeal(f"{what}: unknown cards {unknown}")
    return cards


def _deal_hands(deal: dict[str, Any], table: dict[str, Card]) -> list[list[str]]:
    hands = deal.get("hands")
    if not (isinstance(hands, list) and len(hands) == SEATS):
        raise InvalidDeal("a deal needs 'hands': one list of cards per seat (3)")
    checked = [_check_card_list(f"hands[{seat}]", hand, table) for seat, hand in enumerate(hands)]
    sizes = {len(hand) for hand in checked}
    if len(sizes) != 1 or not 1 <= sizes.pop() <= HAND_SIZE:
        raise InvalidDeal(f"hands must have the same size, 1 to {HAND_SIZE} cards each")
    return checked


def _check_fills(hand_size: int, pile: int) -> None:
    """Reject a draw pile that would run out in the middle of a fill (hands would differ)."""
    size = hand_size
    while size > 0:
        size -= 1
        need = SEATS * (HAND_SIZE - size)
        if pile and pile < need:
            raise InvalidDeal(
                f"a draw pile of {pile} cards runs out while filling hands of {size} to {HAND_SIZE}; "
                f"give a multiple that fills every hand"
            )
        if pile:
            pile -= need
            size = HAND_SIZE


def _deal_cards(
    deal: dict[str, Any] | None, table: dict[str, Card], rng: random.Random
) -> tuple[list[list[str]], list[str]]:
    shuffled = _shuffled(list(table), rng)
    if deal is None or "hands" not in deal:
        if deal is not None and "draw" in deal:
            raise InvalidDeal("a deal with 'draw' needs 'hands' too")
        return [
            sorted(shuffled[i * HAND_SIZE : (i + 1) * HAND_SIZE], key=lambda c: table[c].order)
            for i in range(SEATS)
        ], shuffled[SEATS * HAND_SIZE :]
    hands = _deal_hands(deal, table)
    dealt = [card for hand in hands for card in hand]
    if "draw" in deal:
        draw = _check_card_list("draw", deal["draw"], table)
    else:
        draw = [card for card in shuffled if card not in set(dealt)]
    everything = dealt + draw
    if len(set(everything)) != len(everything):
        repeated = sorted({card for card in everything if everything.count(card) > 1})
        raise InvalidDeal(f"cards dealt more than once: {repeated}")
    _check_fills(len(hands[0]), len(draw))
    return [sorted(hand, key=lambda c: table[c].order) for hand in hands], list(draw)


def _same_ids(pile: object, ids: list[str]) -> bool:
    """Whether `pile` is a list of exactly the task ids `ids` in some order."""
    return isinstance(pile, list) and all(isinstance(t, str) for t in pile) and sorted(pile) == sorted(ids)


def _deal_task_piles(
    deal: dict[str, Any] | None, tasks: list[Task], rng: random.Random
) -> dict[str, list[str]]:
    given = (deal or {}).get("tasks", {})
    if not isinstance(given, dict) or set(given) - set(LEVELS):
        raise InvalidDeal("deal 'tasks' must map levels '1', '2', '3' to task id lists (top first)")
    piles: dict[str, list[str]] = {}
    for level in LEVELS:
        ids = [task["id"] for task in tasks if task["level"] == int(level)]
        order = _shuffled(ids, rng)
        if level in given:
            pile = given[level]
            if not _same_ids(pile, ids):
                raise InvalidDeal(f"deal tasks[{level!r}] must list each level-{level} task once: {ids}")
            order = list(pile)
        piles[level] = order
    return piles


def stack_story_pile(piles: dict[str, list[str]]) -> list[str]:
    """Ruling (story mode): after the setup the three task piles are stacked, not shuffled, into
    one pile -- level 1 on top, level 3 at the bottom (the story grows harder); top first."""
    return [task_id for level in LEVELS for task_id in piles[level]]


def new_game(
    seats: int,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    deal: dict[str, Any] | None = None,
) -> State:
    """Set up a game for 3 seats; seed None means 0; raises InvalidOptions / InvalidDeal."""
    if seats != SEATS:
        raise InvalidOptions(f"Trick 'n Trouble is played by exactly {SEATS} seats, not {seats}")
    opts = normalize_options(options)
    if seed is None:
        seed = 0
    if not _is_int(seed):
        raise InvalidOptions("seed must be an integer")
    if deal is not None:
        if not isinstance(deal, dict):
            raise InvalidDeal("a deal must be an object")
        if "story" in deal:
            raise InvalidDeal(
                "deal 'story' is not accepted: story mode stacks the level piles (level 1 on top, level 3 "
                "at the bottom), so give the order of the story pile with deal 'tasks'"
            )
        unknown = set(deal) - DEAL_KEYS
        if unknown:
            raise InvalidDeal(f"unknown deal keys {sorted(unknown)}; known: {sorted(DEAL_KEYS)}")
    rng = random.Random(seed)
    table = card_table(tuple(opts["colours"]))
    hands, draw = _deal_cards(deal, table, rng)
    piles = _deal_task_piles(deal, _deck(opts), rng)
    face_up = [piles[str(level)].pop(0) for level, count in SETUP_FACE_UP.items() for _ in range(count)]
    story: list[str] | None = None
    if opts["story"]:
        story = stack_story_pile(piles)
        piles = {level: [] for level in LEVELS}
    lead = opts["first_leader"]
    return {
        "schema": 1,
        "game": NAME,
        "header": {"seats": SEATS, "options": opts, "seed": seed, "deal": deal},
        "actions": [],
        "round": 1,
        "phase": "pass-decision",
        "turn": lead,
        "lead": lead,
        "hands": hands,
        "draw": draw,
        "piles": piles,
        "story": story,
        "face_up": face_up,
        "passing": None,
        "passed": [None] * SEATS,
        "received": [None] * SEATS,
        "trick": [],
        "tricks": [],
        "discard": [],
        "fulfilled": [],
        "points": 0,
        "result": None,
    }


# ------------------------------------------------------------------------------------ legal moves


def _card_key(state: State) -> Any:
    table = _table(state)
    return lambda card: table[card].order


def _fill_levels(state: State) -> list[int]:
    """Ruling 2: the lead player may choose any level whose pile is not empty."""
    return [int(level) for level in LEVELS if state["piles"][level]]


def switch_sources(state: State) -> list[int | None]:
    """Ruling (switching to an empty pile): the piles a switch may draw its replacement from.

    The replacement must be a new task, never the one just switched, so a pile counts as it is
    *before* the switched task goes under it: a level is offered only if its pile holds a task
    then (its top is drawn, never the task put at the bottom).  Story mode: the single pile
    (None) while it holds a task.  With no pile to draw from, no switch is offered at all.
    """
    if state["story"] is not None:
        return [None] if state["story"] else []
    return [int(level) for level in LEVELS if state["piles"][level]]


def _lead_colours(card: Card) -> frozenset[int] | None:
    """The colours a trick asks for; None after a joker lead (rule: a 1 lead frees everyone)."""
    return None if card.joker else card.colours


def playable_cards(state: State, seat: int) -> list[str]:
    """Ruling 4: follow a lead colour if you can (jokers always allowed), else play anything."""
    hand: list[str] = state["hands"][seat]
    if not state["trick"]:
        return list(hand)
    table = _table(state)
    wanted = _lead_colours(table[state["trick"][0]["card"]])
    if wanted is None:
        return list(hand)
    followers = [card for card in hand if not table[card].joker and table[card].colours & wanted]
    if not followers:
        return list(hand)
    return [card for card in hand if card in followers or table[card].joker]


def _moves_for_phase(state: State) -> list[Move]:
    phase = state["phase"]
    seat = state["turn"]
    if phase == "choose-task-level":
        return [{"type": "choose-task-level", "level": level} for level in _fill_levels(state)]
    if phase == "pass-decision":
        return [{"type": "start-passing"}, {"type": "skip-passing"}]
    if phase == "pass-card":
        return [{"type": "pass-card", "card": card} for card in state["hands"][seat]]
    if phase == "switch-task":
        moves: list[Move] = [{"type": "keep-tasks"}]
        sources = switch_sources(state)
        for task_id in state["face_up"]:
            for level in sources:
                switch: Move = {"type": "switch-task", "task": task_id}
                if level is not None:
                    switch["level"] = level
                moves.append(switch)
        return moves
    if phase == "play":
        return [{"type": "play", "card": card} for card in playable_cards(state, seat)]
    return []


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every move `seat` may make now, exactly as `apply` accepts it; [] if none."""
    if state["phase"] == "over" or seat != state["turn"]:
        return []
    return _moves_for_phase(state)


def to_move(state: State) -> list[int]:
    """The seat that decides now ([] once the game is over)."""
    return [] if state["phase"] == "over" else [state["turn"]]


def is_over(state: State) -> bool:
    """True once hands and draw pile are empty (after the ninth round with the full deck)."""
    return bool(state["phase"] == "over")


# ----------------------------------------------------------------------------------- move checks


def _check_shape(state: State, seat: object, move: object) -> Move:
    if not (_is_int(seat) and 0 <= seat < SEATS):
        raise MalformedMove(f"seat must be 0, 1 or 2, not {seat!r}")
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise MalformedMove("a move is an object with a string 'type'")
    kind = move["type"]
    if kind not in MOVE_FIELDS:
        raise MalformedMove(f"unknown move type {kind!r}; known: {sorted(MOVE_FIELDS)}")
    required = MOVE_FIELDS[kind] - ({"level"} if kind == "switch-task" else set())
    if not required <= set(move) <= MOVE_FIELDS[kind]:
        raise MalformedMove(f"a {kind!r} move has the fields {sorted(MOVE_FIELDS[kind])}, got {sorted(move)}")
    if "card" in move and (not isinstance(move["card"], str) or move["card"] not in _table(state)):
        raise MalformedMove(f"unknown card {move['card']!r}")
    if "level" in move and not (_is_int(move["level"]) and 1 <= move["level"] <= 3):
        raise MalformedMove(f"level must be 1, 2 or 3, not {move['level']!r}")
    if "task" in move and (not isinstance(move["task"], str) or move["task"] not in _tasks(state)):
        raise MalformedMove(f"unknown task {move['task']!r}")
    return move


def _why_illegal(state: State, seat: int, move: Move) -> str:
    kind = move["type"]
    if kind not in {legal["type"] for legal in _moves_for_phase(state)}:
        return f"the game waits for a {state['phase']!r} decision, not {kind!r}"
    if kind in ("pass-card", "play") and move["card"] not in state["hands"][seat]:
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


# ----------------------------------------------------------------------------------------- phases


def _draw_task(state: State, level: int | None, events: list[Event], auto: bool) -> None:
    pile = state["story"] if level is None else state["piles"][str(level)]
    task_id = pile.pop(0)
    state["face_up"].append(task_id)
    events.append(
        {"type": "task-drawn", "task": task_id, "level": _tasks(state)[task_id]["level"], "auto": auto}
    )


def _fill_tasks(state: State, events: list[Event]) -> None:
    """Phase 1: the lead player fills up to five face-up tasks while tasks are left."""
    while len(state["face_up"]) < FACE_UP_TASKS:
        if state["story"] is not None:
            if not state["story"]:
                break
            _draw_task(state, None, events, auto=True)
            continue
        if not _fill_levels(state):
            break
        state["phase"], state["turn"] = "choose-task-level", state["lead"]
        return
    _fill_hands(state, events)
    _enter_pass_decision(state)


def _fill_hands(state: State, events: list[Event]) -> None:
    """Phase 2 / ruling 3: from the lead clockwise, draw up to five while the pile lasts."""
    for offset in range(SEATS):
        seat = (state["lead"] + offset) % SEATS
        hand = state["hands"][seat]
        drawn: list[str] = []
        while len(hand) + len(drawn) < HAND_SIZE and state["draw"]:
            drawn.append(state["draw"].pop(0))
        if drawn:
            hand.extend(drawn)
            hand.sort(key=_card_key(state))
            events.append(
                {
                    "type": "cards-drawn",
                    "seat": seat,
                    "count": len(drawn),
                    "private": {"seats": [seat], "cards": drawn},
                }
            )


def _enter_pass_decision(state: State) -> None:
    state["phase"], state["turn"] = "pass-decision", state["lead"]


def _pass_card(state: State, seat: int, card: str, events: list[Event], auto: bool) -> None:
    """Phase 3 / ruling 1: give one card to the left; the last passer gives to the lead."""
    left = (seat + 1) % SEATS
    state["hands"][seat].remove(card)
    state["hands"][left].append(card)
    state["hands"][left].sort(key=_card_key(state))
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
    if left == state["lead"]:
        _enter_switch(state)
    else:
        state["turn"] = left


def _enter_switch(state: State) -> None:
    """Phase 4 is skipped in expert mode."""
    if state["header"]["options"]["expert"]:
        _enter_play(state)
    else:
        state["phase"], state["turn"] = "switch-task", state["lead"]


def _switch_task(state: State, task_id: str, level: int | None, events: list[Event]) -> None:
    """Ruling 2: the task goes under its pile, then the lead draws a replacement from a pile that
    held a task before (`switch_sources`), so the replacement is never the switched task."""
    state["face_up"].remove(task_id)
    if state["story"] is not None:
        state["story"].append(task_id)
    else:
        state["piles"][str(_tasks(state)[task_id]["level"])].append(task_id)
    events.append({"type": "task-switched", "task": task_id})
    _draw_task(state, level, events, auto=False)
    _enter_play(state)


def _enter_play(state: State) -> None:
    state["phase"], state["turn"] = "play", state["lead"]


def trick_winner(trick: list[dict[str, Any]], table: dict[str, Card]) -> int:
    """Ruling 5: highest card carrying a lead colour (any card after a joker lead); ties: earlier."""
    wanted = _lead_colours(table[trick[0]["card"]])
    best = trick[0]
    for played in trick[1:]:
        card = table[played["card"]]
        qualifies = wanted is None or bool(card.colours & wanted)
        if qualifies and card.value > table[best["card"]].value:
            best = played
    seat: int = best["seat"]
    return seat


def fulfilled_tasks(state: State, sums: list[int]) -> list[str]:
    """Ruling 6: every face-up task the trick's sums meet (sums serve several tasks)."""
    tasks = _tasks(state)
    return [task_id for task_id in state["face_up"] if task_met(tasks[task_id], sums)]


def _finish_trick(state: State, events: list[Event]) -> None:
    """Phase 6: score the trick, discard it, hand the lead to its winner."""
    table = _table(state)
    cards = [played["card"] for played in state["trick"]]
    sums = colour_sums(cards, table)
    winner = trick_winner(state["trick"], table)
    done = fulfilled_tasks(state, sums)
    tasks = _tasks(state)
    points = sum(tasks[task_id]["points"] for task_id in done)
    for task_id in done:
        state["face_up"].remove(task_id)
        state["fulfilled"].append({"task": task_id, "round": state["round"]})
    state["points"] += points
    state["tricks"].append(state["trick"])
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
    if not any(state["hands"]) and not state["draw"]:
        state["phase"], state["turn"] = "over", None
        state["result"] = result(state)
        events.append({"type": "game-over", "result": state["result"]})
        return
    _start_round(state, events)


def _start_round(state: State, events: list[Event]) -> None:
    state["round"] += 1
    state["passing"] = None
    state["passed"] = [None] * SEATS
    state["received"] = [None] * SEATS
    events.append({"type": "round-started", "round": state["round"], "lead": state["lead"]})
    _fill_tasks(state, events)


def _play(state: State, seat: int, card: str, events: list[Event]) -> None:
    """Phase 5: the card joins the trick.  The event has no "auto" marker: a forced play must
    look like a chosen one (a last card is played automatically, but that is public)."""
    state["hands"][seat].remove(card)
    state["trick"].append({"seat": seat, "card": card})
    events.append({"type": "card-played", "seat": seat, "card": card, "round": state["round"]})
    if len(state["trick"]) == SEATS:
        _finish_trick(state, events)
    else:
        state["turn"] = (seat + 1) % SEATS


def _step(state: State, seat: int, move: Move, events: list[Event], auto: bool) -> None:
    kind = move["type"]
    if kind == "choose-task-level":
        _draw_task(state, move["level"], events, auto)
        _fill_tasks(state, events)
    elif kind == "start-passing":
        state["passing"] = True
        state["phase"] = "pass-card"
        events.append({"type": "passing-started", "seat": seat})
    elif kind == "skip-passing":
        state["passing"] = False
        events.append({"type": "passing-skipped", "seat": seat})
        _enter_switch(state)
    elif kind == "pass-card":
        _pass_card(state, seat, move["card"], events, auto)
    elif kind == "switch-task":
        _switch_task(state, move["task"], move.get("level"), events)
    elif kind == "keep-tasks":
        events.append({"type": "tasks-kept", "seat": seat, "auto": auto})
        _enter_play(state)
    else:
        _play(state, seat, move["card"], events)


def automatic_move(state: State) -> Move | None:
    """Ruling (forced decisions): the move the engine takes itself, or None if the seat decides.

    A decision is automatic only when its having a single option follows from public
    information: one non-empty level to draw a task from (story mode: every fill), a switch that
    no pile allows (only `keep-tasks`), passing or playing the last card in a hand (hand sizes
    are public).  A play forced by the cards in a hand of two or more -- a single card to follow
    with -- stays the seat's decision, so nobody learns what the hand does not hold.
    """
    phase = state["phase"]
    moves = _moves_for_phase(state)
    if len(moves) != 1:
        return None
    if phase in ("pass-card", "play") and len(state["hands"][state["turn"]]) != 1:
        return None
    return moves[0]


def _advance(state: State, events: list[Event]) -> None:
    """Take every decision whose single option is public (`automatic_move`)."""
    while state["phase"] != "over":
        move = automatic_move(state)
        if move is None:
            return
        _step(state, state["turn"], move, events, auto=True)


def apply(state: State, seat: int, move: Move) -> list[Event]:
    """Apply `move` for `seat` in place and return the events; raise on a bad move."""
    move = _check_shape(state, seat, move)
    if state["phase"] == "over":
        raise GameOver("the game is over")
    if seat != state["turn"]:
        raise NotYourTurn(f"it is seat {state['turn']}'s turn ({state['phase']})")
    if move not in _moves_for_phase(state):
        raise IllegalMove(_why_illegal(state, seat, move), details={"legal_moves": _moves_for_phase(state)})
    events: list[Event] = []
    _step(state, seat, dict(move), events, auto=False)
    state["actions"].append({"seat": seat, "move": dict(move)})
    _advance(state, events)
    return events


def setup_events(state: State) -> list[Event]:
    """The setup as events: face-up tasks and the lead (public), each seat's dealt hand (private)."""
    header = state["header"]
    fresh = new_game(header["seats"], header["options"], header["seed"], header["deal"])
    events: list[Event] = [{"type": "game-started", "lead": fresh["lead"], "face_up": list(fresh["face_up"])}]
    for seat, hand in enumerate(fresh["hands"]):
        private = {"seats": [seat], "hand": list(hand)}
        events.append({"type": "hand-dealt", "seat": seat, "size": len(hand), "private": private})
    return events


def replay(header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
    """Rebuild a state from its header and action list."""
    state = new_game(header["seats"], header["options"], header["seed"], header["deal"])
    for action in actions:
        apply(state, action["seat"], action["move"])
    return state


# ----------------------------------------------------------------------------------------- result


def _band(value: int, bands: tuple[tuple[int, str], ...]) -> str:
    return next(text for floor, text in bands if value >= floor)


def result(state: State) -> dict[str, Any]:
    """Team points (story mode: tasks) for every seat, winners, and the rulebook's band."""
    opts = state["header"]["options"]
    count = len(state["fulfilled"])
    points: int = state["points"]
    if opts["story"]:
        score, won, band = count, count >= opts["story_threshold"], _band(count, STORY_BANDS)
    else:
        score, won, band = points, points >= opts["threshold"], _band(points, POINT_BANDS)
    return {
        "scores": [score] * SEATS,
        "winners": list(range(SEATS)) if won else [],
        "points": points,
        "tasks_fulfilled": count,
        "band": band,
    }


# ------------------------------------------------------------------------------------------- view


def _task_card(task: Task, colours: tuple[str, ...]) -> dict[str, Any]:
    return {
        "id": task["id"],
        "level": task["level"],
        "points": task["points"],
        "text": render_text(task, colours),
        "condition": task["condition"],
    }


def view(state: State, seat: int | None) -> View:
    """What `seat` (None: a spectator) may know now; everything once the game is over."""
    opts = state["header"]["options"]
    tasks = _tasks(state)
    colours = _colours(state)
    over = state["phase"] == "over"
    me = seat if seat is not None and 0 <= seat < SEATS else None
    hidden_tricks = opts["expert"] and not over
    out: View = {
        "game": NAME,
        "seat": me,
        "seats": SEATS,
        "options": {key: value for key, value in opts.items() if key != "tasks"},
        "round": state["round"],
        "rounds": ROUNDS,
        "phase": state["phase"],
        "lead": state["lead"],
        "to_move": to_move(state),
        "hand": None if me is None else list(state["hands"][me]),
        "hand_sizes": [len(hand) for hand in state["hands"]],
        "passing": state["passing"],
        "passed": None if me is None else state["passed"][me],
        "received": None if me is None else state["received"][me],
        "tasks": [_task_card(tasks[task_id], colours) for task_id in state["face_up"]],
        "task_piles": {
            "levels": {level: len(state["piles"][level]) for level in LEVELS},
            "story": None if state["story"] is None else len(state["story"]),
        },
        "draw_pile": len(state["draw"]),
        "discard": None if hidden_tricks else list(state["discard"]),
        "trick": [dict(played) for played in state["trick"]],
        "tricks": None if hidden_tricks else [[dict(p) for p in trick] for trick in state["tricks"]],
        "points": state["points"],
        "tasks_fulfilled": len(state["fulfilled"]),
        "fulfilled": [
            {"task": _task_card(tasks[entry["task"]], colours), "round": entry["round"]}
            for entry in state["fulfilled"]
        ],
        "legal_moves": [] if me is None else legal_moves(state, me),
        "result": state["result"],
    }
    if over:
        out["hands"] = [list(hand) for hand in state["hands"]]
        out["draw"] = list(state["draw"])
        out["task_pile_contents"] = {level: list(pile) for level, pile in state["piles"].items()}
        out["story_pile"] = None if state["story"] is None else list(state["story"])
        out["all_passed"] = list(state["passed"])
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
