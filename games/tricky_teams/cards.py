"""The Tricky Teams deck: card ids <-> small integers, card sets as bitmasks, coins.

On the wire a card is an id: `<team>-<rank>` for the 40 team cards and `flag-0` for a white flag.
Inside the engine a card is a number: team `t` (red, blue, green, yellow) and rank `r` make
`10 * t + r - 1` (0..39), so numbers run in hand order; a flag is 40.  A set of cards (a hand, the
cards a seat may play) is a bitmask, bit `n` for card `n`.  The two white flags are identical, so a
hand holding both uses bit 40 and bit 41 (`SECOND_FLAG`); everywhere else a flag is card 40.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeAlias, TypeVar

from games.tricky_teams.wire import Team

T = TypeVar("T")

TEAMS: tuple[Team, ...] = ("red", "blue", "green", "yellow")
PEASANTS: Final = "peasants"
FLAG = "flag-0"

# Display names of the teams (the rulebook's animal gangs); ids stay colours on the wire.
TEAM_NAMES: dict[str, str] = {
    "red": "finches",
    "blue": "lizards",
    "green": "tree frogs",
    "yellow": "field mice",
    PEASANTS: "peasants",
}

PEASANT, THIEF, COOK, HYPNOTIST, COUNTESS, FOOL, FOG_WITCH, DRUMMER, STRATEGIST, BRUTE = range(1, 11)

TEAM_CARDS: tuple[str, ...] = tuple(f"{team}-{rank}" for team in TEAMS for rank in range(1, 11))
# The wire form of a card id: a team card `<team>-<rank>` or the flag (a JSON Schema pattern).
CARD_PATTERN = rf"^(({'|'.join(TEAMS)})-([1-9]|10)|{FLAG})$"
# A flag has no team; there are two identical ones, so the id may appear twice in a deck.
FLAG_DECK: tuple[str, ...] = (FLAG, FLAG)
ALL_IDS: frozenset[str] = frozenset(TEAM_CARDS) | {FLAG}

# Rank and team by card id (the wire form, for bots and the edge).
RANK: dict[str, int] = {card: int(card.rsplit("-", 1)[1]) for card in ALL_IDS}
TEAM: dict[str, Team | None] = {FLAG: None}
TEAM.update({f"{team}-{rank}": team for team in TEAMS for rank in range(1, 11)})

DEFAULT_COINS: dict[str, int] = {str(rank): 1 for rank in range(11)}
DEFAULT_COINS["5"] = 2  # a Countess is worth two silver coins
DEFAULT_COINS["0"] = 0  # a white flag is worth nothing

# ---------------------------------------------------------------------------- cards as numbers

FLAG_CARD = len(TEAM_CARDS)  # 40
SECOND_FLAG = FLAG_CARD + 1  # 41: the bit of a second flag in the same set
# Card number -> id, rank, team (a team's index into TEAMS; None for a flag).
CARD_ID: tuple[str, ...] = (*TEAM_CARDS, FLAG, FLAG)
CARD_NUMBER: dict[str, int] = {card: number for number, card in enumerate(CARD_ID[:SECOND_FLAG])}
RANK_OF: tuple[int, ...] = tuple(RANK[card] for card in CARD_ID)
TEAM_OF: tuple[Team | None, ...] = tuple(TEAM[card] for card in CARD_ID)
BIT: tuple[int, ...] = tuple(1 << number for number in range(len(CARD_ID)))
# A set of teams is a bitmask too: bit t for TEAMS[t]; a card's team as such a bit (0 for a flag).
TEAM_BIT: dict[str, int] = {team: 1 << t for t, team in enumerate(TEAMS)}
TEAM_BIT_OF: tuple[int, ...] = tuple(0 if team is None else TEAM_BIT[team] for team in TEAM_OF)
# The bits a card may take in a set: its own, or either flag's.
COPIES: tuple[int, ...] = (
    *BIT[:FLAG_CARD],
    BIT[FLAG_CARD] | BIT[SECOND_FLAG],
    BIT[FLAG_CARD] | BIT[SECOND_FLAG],
)
# Each card's place among the ids sorted as strings (how the wire lists a set of loot choices).
ID_PLACE: tuple[int, ...] = tuple(sorted(CARD_ID).index(card) for card in CARD_ID)


def cards_where(test: Callable[[int], bool]) -> int:
    """The set of every card for which `test(card)` holds (with both flag bits for a flag)."""
    return sum(BIT[card] for card in range(len(CARD_ID)) if test(card))


def per_card(rule: Callable[[int], T]) -> tuple[T, ...]:
    """A rule about one card, tabulated: its answer for every card number (both flag numbers)."""
    return tuple(rule(card) for card in range(len(CARD_ID)))


def teams_in(teams: int) -> tuple[str, ...]:
    """The teams of a set of teams, in the order of TEAMS."""
    return tuple(team for team in TEAMS if teams & TEAM_BIT[team])


def mask_of(cards: Iterable[int]) -> int:
    """A set from card numbers; a second flag takes the second flag's bit."""
    mask = 0
    for card in cards:
        mask |= BIT[SECOND_FLAG] if card >= FLAG_CARD and mask & BIT[FLAG_CARD] else BIT[card]
    return mask


# Listing a set: each team's ten cards are one block of ten bits and the flags a block of two; a
# table per block maps the block's bits to what its cards list as (ids, moves), in hand order.
_BLOCKS: tuple[tuple[int, int], ...] = ((0, 10), (10, 10), (20, 10), (30, 10), (FLAG_CARD, 2))
Listing: TypeAlias = tuple[tuple[tuple[T, ...], ...], ...]


def listing(value_of: Sequence[T], distinct: bool = False) -> Listing[T]:
    """The block tables that list a set as `value_of[card]` for each card in hand order; with
    `distinct`, the two identical flags once (the two flag numbers must have equal values)."""
    tables = []
    for start, size in _BLOCKS:
        table = []
        for bits in range(1 << size):
            values = [value_of[start + i] for i in range(size) if bits >> i & 1]
            table.append(tuple(values[:1] if distinct and start == FLAG_CARD else values))
        tables.append(tuple(table))
    return tuple(tables)


def listed(mask: int, tables: Listing[T]) -> list[T]:
    """The set `mask` as listed by `tables` (see `listing`)."""
    red, blue, green, yellow, flags = tables
    return [
        *red[mask & 1023],
        *blue[mask >> 10 & 1023],
        *green[mask >> 20 & 1023],
        *yellow[mask >> 30 & 1023],
        *flags[mask >> 40],
    ]


_IDS = listing(CARD_ID)


def hand_ids(mask: int) -> list[str]:
    """A set as the wire's list of ids, in hand order (`flag-0` twice for both flags)."""
    return listed(mask, _IDS)


def ids(cards: Iterable[int]) -> list[str]:
    """Card numbers as wire ids."""
    return [CARD_ID[card] for card in cards]


# ---------------------------------------------------------------------------- the deck by seats


def flags_in_play(seats: int) -> bool:
    """The two white flags (0s) are only used with three and with six players."""
    return seats in (3, 6)


def full_deck(seats: int) -> list[str]:
    """Every card id dealt for this seat count, in canonical order."""
    return list(TEAM_CARDS) + (list(FLAG_DECK) if flags_in_play(seats) else [])


def hand_size(seats: int) -> int:
    """Cards per hand in a full deal: 14/10/8/7 for 3/4/5/6 players."""
    return len(full_deck(seats)) // seats


SORT_KEY: dict[str, int] = {card: CARD_NUMBER[card] for card in ALL_IDS}


def sort_hand(cards: list[str]) -> list[str]:
    """A hand of ids in display order (team, then rank; flags last)."""
    return sorted(cards, key=SORT_KEY.__getitem__)


def coin_values(coins: dict[str, int]) -> dict[str, int]:
    """Coins per card id from a rank -> coins table (rank as a string: JSON object keys)."""
    return {card: coins[str(RANK[card])] for card in ALL_IDS}


RANK_KEYS: tuple[str, ...] = tuple(str(rank) for rank in range(11))


def coins_by_rank(coins: dict[str, int]) -> list[int]:
    """A rank -> coins table (JSON: ranks as strings) as a list indexed by rank."""
    return list(map(coins.__getitem__, RANK_KEYS))


def pile_coins(pile: list[int], coins: dict[str, int]) -> int:
    """The silver coins of a loot pile under a rank -> coins table (Countess 2, flag 0 by default)."""
    return pile_value(pile, coins_by_rank(coins))


def pile_value(pile: list[int], by_rank: list[int]) -> int:
    """The silver coins of a pile, the coins by rank given as a list (`coins_by_rank`)."""
    return sum(map(by_rank.__getitem__, map(RANK_OF.__getitem__, pile)))
