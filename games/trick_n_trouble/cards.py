"""The 27 playing cards of Trick 'n Trouble and the colour rules that read them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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


@dataclass(frozen=True, slots=True)
class Card:
    """A card's rank, the colour indices it carries, its deck position and whether it is a joker."""

    value: int
    colours: frozenset[int]
    order: int
    joker: bool


@lru_cache(maxsize=32)
def card_table(colours: tuple[str, ...]) -> dict[str, Card]:
    """Every card id of an edition with these colour names, in deck order."""
    ids: list[tuple[str, int, frozenset[int]]] = []
    for index, name in enumerate(colours):
        ids.extend((f"{name}-{rank}", rank, frozenset({index})) for rank in SINGLE_RANKS)
    ids.extend((f"{colours[a]}-{colours[b]}-2", 2, frozenset({a, b})) for a, b in PAIRS)
    ids.extend((joker, 1, frozenset({0, 1, 2})) for joker in JOKERS)
    return {
        card_id: Card(value, carried, order, len(carried) == 3)
        for order, (card_id, value, carried) in enumerate(ids)
    }


def deck(colours: tuple[str, ...]) -> list[str]:
    """The full deck of 27 card ids in deck order."""
    return list(card_table(colours))


def colour_sums(cards: list[str], table: dict[str, Card]) -> list[int]:
    """Per-colour sums of a trick: a 2 counts for both its colours, a joker for all three."""
    sums = [0, 0, 0]
    for card_id in cards:
        card = table[card_id]
        for colour in card.colours:
            sums[colour] += card.value
    return sums
