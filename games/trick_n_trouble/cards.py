"""The two decks of Trick 'n Trouble: 27 playing cards and the task cards, with per-card tables.

A playing card is a small integer, its place in deck order (the order hands are kept in); its wire
id (`blue-7`, `blue-green-2`, `joker-1a`) follows the edition's colour names. What the rules read
off a card -- its value, the colours it carries as a 3-bit mask, what it adds to a trick's colour
sums, its moves -- is computed once per edition from the functions below (`edition`), so the
rules look a card up instead of working it out again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from itertools import combinations
from typing import Any

from games.base import FrozenDict

DEFAULT_COLOURS: tuple[str, str, str] = ("blue", "green", "yellow")
# A colour name (the option `colours` may rename them) and the wire form of a card id: a single
# colour card `<colour>-<3..9>`, a double `<colour>-<colour>-2` or a joker (a JSON Schema pattern).
COLOUR_PATTERN = r"[a-z][a-z0-9]{0,15}"
CARD_PATTERN = rf"^({COLOUR_PATTERN}-[3-9]|{COLOUR_PATTERN}-{COLOUR_PATTERN}-2|joker-1[abc])$"
# Three identical "joker-1" ids would make the deck a multiset; distinct suffixes keep every
# card a distinct string while the rank stays 1.
JOKERS: tuple[str, str, str] = ("joker-1a", "joker-1b", "joker-1c")
SINGLE_RANKS = range(3, 10)
PAIRS: tuple[tuple[int, int], ...] = ((0, 1), (0, 2), (1, 2))
ALL_COLOURS = 0b111
# Every set of colours a lead may ask for, as a mask (0: none, after a joker lead).
ASKS = range(ALL_COLOURS + 1)
# The task piles by level ("1".."3", the keys of the state's piles) and how many tasks of each
# level the setup turns face up.
LEVELS: tuple[str, str, str] = ("1", "2", "3")
SETUP_FACE_UP: dict[int, int] = {1: 3, 2: 1, 3: 1}

Task = dict[str, Any]


def carried(colours: tuple[int, ...]) -> int:
    """The colours a card carries as a bitmask (bit k: colour k); a joker carries all three."""
    mask = 0
    for colour in colours:
        mask |= 1 << colour
    return mask


def contribution(value: int, carries: int) -> tuple[int, int, int]:
    """Ruling 6: what a card adds to each colour sum -- its value to every colour it carries, so a 2
    counts for both its colours and a joker for all three."""
    return (
        value if carries & 1 else 0,
        value if carries & 2 else 0,
        value if carries & 4 else 0,
    )


def asked_colours(lead: Card) -> int:
    """Ruling 4: the colours a trick asks for are those its first card carries; a joker lead asks
    for none (a 1 lead frees everyone)."""
    return 0 if lead.joker else lead.carries


def follows(card: Card, asked: int) -> bool:
    """Ruling 4: a card follows when it carries an asked colour; a joker never counts as following
    (holding one never obliges a seat to follow)."""
    return not card.joker and bool(card.carries & asked)


def allowed_when_following(card: Card, asked: int) -> bool:
    """Ruling 4: a seat that can follow may play the cards that follow, and a joker, always."""
    return card.joker or follows(card, asked)


def _deck_order() -> list[tuple[str, int, tuple[int, ...]]]:
    """Every card as (id pattern, value, colour indices), in deck order; `{0}`.. name the colours."""
    cards: list[tuple[str, int, tuple[int, ...]]] = [
        (f"{{{colour}}}-{rank}", rank, (colour,)) for colour in range(3) for rank in SINGLE_RANKS
    ]
    cards += [(f"{{{a}}}-{{{b}}}-2", 2, (a, b)) for a, b in PAIRS]
    cards += [(joker, 1, (0, 1, 2)) for joker in JOKERS]
    return cards


@dataclass(frozen=True, slots=True)
class Card:
    """A card's rank, the colour indices it carries, its deck position and whether it is a joker;
    the same facts as the rules read them: the colours as a mask and what it adds to the sums."""

    value: int
    colours: frozenset[int]
    order: int
    joker: bool
    carries: int
    adds: tuple[int, int, int]


def make_card(order: int, value: int, colours: tuple[int, ...]) -> Card:
    """The card at `order` in the deck, its tables derived from `carried` and `contribution`."""
    carries = carried(colours)
    return Card(
        value, frozenset(colours), order, carries == ALL_COLOURS, carries, contribution(value, carries)
    )


# The 27 cards as small integers: CARDS[i] is the card at place i of the deck, whatever its name.
CARDS: tuple[Card, ...] = tuple(
    make_card(order, value, colours) for order, (_, value, colours) in enumerate(_deck_order())
)


@lru_cache(maxsize=32)
def card_table(colours: tuple[str, ...]) -> dict[str, Card]:
    """Every card id of an edition with these colour names, in deck order."""
    return {
        pattern.format(*colours): card for (pattern, _, _), card in zip(_deck_order(), CARDS, strict=True)
    }


def colour_sums(cards: list[str], table: dict[str, Card]) -> list[int]:
    """Ruling 6: the per-colour sums of a trick, each card adding its `contribution`."""
    blue = green = yellow = 0
    for card_id in cards:
        adds = table[card_id].adds
        blue += adds[0]
        green += adds[1]
        yellow += adds[2]
    return [blue, green, yellow]


# ------------------------------------------------------------------------------------- task cards


# A clause of a task's condition as the rules read it: at least `need` of the three colour sums reach
# their minimum (UNREACHABLE for a colour the clause does not ask about).
Clause = tuple[tuple[int, int, int], int]
Condition = tuple[Clause, ...]
UNREACHABLE = 1 << 30
SELECTED: dict[str, int] = {"every": 3, "two": 2, "any": 1}


def clause_rule(clause: dict[str, Any]) -> Clause:
    """Ruling 6: a clause naming a colour asks its sum to reach `min`; `every`, `two` and `any`
    ask three, two or one of the three sums to reach it."""
    colour, low = clause["colour"], clause["min"]
    if isinstance(colour, int):
        lows = [UNREACHABLE, UNREACHABLE, UNREACHABLE]
        lows[colour] = low
        return (lows[0], lows[1], lows[2]), 1
    return (low, low, low), SELECTED[colour]


def condition(task: Task) -> Condition:
    """A task's condition as the rules read it: every clause must hold."""
    return tuple(clause_rule(clause) for clause in task["condition"])


@lru_cache(maxsize=1)
def _builtin_text() -> str:
    return files(__package__).joinpath("tasks.json").read_text()


def builtin_deck() -> list[Task]:
    """A fresh copy of the shipped 27-task deck (9 per level)."""
    deck: list[Task] = json.loads(_builtin_text())
    return deck


# ---------------------------------------------------------------------------------------- editions


@dataclass(frozen=True, slots=True, eq=False)
class Edition:
    """The tables of one game's decks: its card ids (colour names) and its task deck.

    `cards` maps each card id to its `Card`, `order` to its place in deck order (a hand's sort key),
    `asks` to the colours it asks for as a lead; `follow[asked]` and `allowed[asked]` are the cards
    that follow, and that a seat able to follow may play, when a lead asks for `asked`.  `tasks`
    maps each task id to the task (deck order), `conditions` to its `condition`, `level` to its
    level; `by_level` lists each level's ids.  `play` and `give` are each card's play and pass
    moves, `switch[sources]` each task's switch moves when a replacement may come from `sources`
    (`rules.switch_sources`): the shared immutable values that `legal_moves` lists and the action
    list records.  `moves` holds every well-formed move of the game by its fields (`move_key`), `own`
    by its identity (a value the engine made is already the move it names).
    """

    cards: dict[str, Card]
    order: dict[str, int]
    asks: dict[str, int]
    follow: tuple[frozenset[str], ...]
    allowed: tuple[frozenset[str], ...]
    tasks: dict[str, Task]
    conditions: dict[str, Condition]
    level: dict[str, int]
    by_level: dict[str, list[str]]
    play: dict[str, FrozenDict]
    give: dict[str, FrozenDict]
    switch: dict[tuple[int | None, ...], dict[str, tuple[FrozenDict, ...]]]
    moves: dict[tuple[Any, ...], FrozenDict]
    own: dict[int, FrozenDict]


# The moves whose values do not depend on the edition.
CHOOSE_LEVEL: dict[int, FrozenDict] = {
    level: FrozenDict({"type": "choose-task-level", "level": level}) for level in (1, 2, 3)
}
START_PASSING = FrozenDict({"type": "start-passing"})
SKIP_PASSING = FrozenDict({"type": "skip-passing"})
KEEP_TASKS = FrozenDict({"type": "keep-tasks"})


def move_key(move: dict[str, Any]) -> tuple[Any, ...]:
    """What tells a move from every other: its type and its card, task and level (None if absent)."""
    return move.get("type"), move.get("card"), move.get("task"), move.get("level")


def _edition(colours: tuple[str, ...], tasks: list[Task]) -> Edition:
    cards = card_table(colours)
    play = {card: FrozenDict({"type": "play", "card": card}) for card in cards}
    give = {card: FrozenDict({"type": "pass-card", "card": card}) for card in cards}
    by_task = {task["id"]: _switches(task["id"]) for task in tasks}
    switch = {sources: {task_id: moves[sources] for task_id, moves in by_task.items()} for sources in SOURCES}
    every = [*CHOOSE_LEVEL.values(), START_PASSING, SKIP_PASSING, KEEP_TASKS, *play.values(), *give.values()]
    every += [move for by_sources in by_task.values() for moves in by_sources.values() for move in moves]
    return Edition(
        cards=cards,
        order={card_id: card.order for card_id, card in cards.items()},
        asks={card_id: asked_colours(card) for card_id, card in cards.items()},
        follow=tuple(
            frozenset(card_id for card_id, card in cards.items() if follows(card, asked)) for asked in ASKS
        ),
        allowed=tuple(
            frozenset(card_id for card_id, card in cards.items() if allowed_when_following(card, asked))
            for asked in ASKS
        ),
        tasks={task["id"]: task for task in tasks},
        conditions={task["id"]: condition(task) for task in tasks},
        level={task["id"]: task["level"] for task in tasks},
        by_level={level: [task["id"] for task in tasks if task["level"] == int(level)] for level in LEVELS},
        play=play,
        give=give,
        switch=switch,
        moves={move_key(move): move for move in every},
        own={id(move): move for move in every},
    )


# Every set of piles a switch's replacement may come from: levels in order, or (None,) the story pile.
SOURCES: tuple[tuple[int | None, ...], ...] = (
    (),
    (None,),
    *(levels for size in (1, 2, 3) for levels in combinations((1, 2, 3), size)),
)


def _switches(task_id: str) -> dict[tuple[int | None, ...], tuple[FrozenDict, ...]]:
    """A task's switch moves for every set of piles a replacement may come from (`SOURCES`)."""
    move = {"type": "switch-task", "task": task_id}
    to_pile = {None: FrozenDict(move)} | {level: FrozenDict({**move, "level": level}) for level in (1, 2, 3)}
    return {sources: tuple(to_pile[pile] for pile in sources) for sources in SOURCES}


@lru_cache(maxsize=32)
def _shipped_edition(colours: tuple[str, ...]) -> Edition:
    return _edition(colours, builtin_deck())


@lru_cache(maxsize=32)
def _replacement_edition(colours: tuple[str, ...], deck: str) -> Edition:
    return _edition(colours, json.loads(deck))


# The options last asked about and their tables: a game asks at every call with the same options.
_last: tuple[dict[str, Any], Edition] | None = None


def edition(options: dict[str, Any]) -> Edition:
    """The tables of a game with these (normalized) options: its colour names and task deck."""
    global _last
    last = _last
    if last is not None and last[0] is options:
        return last[1]
    tables = _edition_of(options)
    _last = (options, tables)
    return tables


def _edition_of(options: dict[str, Any]) -> Edition:
    colours = tuple(options["colours"])
    tasks: list[Task] | None = options["tasks"]
    if tasks is None:
        return _shipped_edition(colours)
    return _replacement_edition(colours, json.dumps(tasks, sort_keys=True))
