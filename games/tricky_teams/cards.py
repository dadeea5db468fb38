"""The Tricky Teams deck: card ids, precomputed rank/team tables, the coin table and hand order."""

from __future__ import annotations

TEAMS: tuple[str, ...] = ("red", "blue", "green", "yellow")
PEASANTS = "peasants"
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

RANK: dict[str, int] = {card: int(card.rsplit("-", 1)[1]) for card in ALL_IDS}
TEAM: dict[str, str | None] = {card: (None if card == FLAG else card.split("-", 1)[0]) for card in ALL_IDS}

# Hand order: by team (red, blue, green, yellow), then rank; flags last.
SORT_KEY: dict[str, int] = {card: i for i, card in enumerate(TEAM_CARDS)}
SORT_KEY[FLAG] = len(TEAM_CARDS)

DEFAULT_COINS: dict[str, int] = {str(rank): 1 for rank in range(11)}
DEFAULT_COINS["5"] = 2  # a Countess is worth two silver coins
DEFAULT_COINS["0"] = 0  # a white flag is worth nothing


def flags_in_play(seats: int) -> bool:
    """The two white flags (0s) are only used with three and with six players."""
    return seats in (3, 6)


def full_deck(seats: int) -> list[str]:
    """Every card dealt for this seat count, in canonical order."""
    return list(TEAM_CARDS) + (list(FLAG_DECK) if flags_in_play(seats) else [])


def hand_size(seats: int) -> int:
    """Cards per hand in a full deal: 14/10/8/7 for 3/4/5/6 players."""
    return len(full_deck(seats)) // seats


def sort_hand(cards: list[str]) -> list[str]:
    """A hand in display order (team, then rank; flags last)."""
    return sorted(cards, key=SORT_KEY.__getitem__)


# The coin table is keyed by the rank as a string (JSON object keys are strings).
RANK_KEY: dict[str, str] = {card: str(rank) for card, rank in RANK.items()}


def coin_values(coins: dict[str, int]) -> dict[str, int]:
    """Coins per card id from a rank -> coins table."""
    return {card: coins[RANK_KEY[card]] for card in ALL_IDS}


def pile_coins(pile: list[str], coins: dict[str, int]) -> int:
    """The silver coins of a loot pile under a rank -> coins table (Countess 2, flag 0 by default)."""
    return sum(coins[RANK_KEY[card]] for card in pile)
