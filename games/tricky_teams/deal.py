"""Dealing: seeded shuffles per raid, explicit deals (validated, raising InvalidDeal), the first lead."""

from __future__ import annotations

import random
from collections import Counter

from games.base import InvalidDeal, is_int
from games.tricky_teams.cards import (
    ALL_IDS,
    BIT,
    CARD_NUMBER,
    FLAG,
    flags_in_play,
    full_deck,
    hand_size,
    mask_of,
    sort_hand,
)
from games.tricky_teams.state import Deal

RED_DRUMMER = "red-8"


def deal_from_seed(seats: int, seed: int, raid: int) -> list[int]:
    """Shuffle the deck with a generator seeded by (seed, raid) alone and deal it evenly (as sets)."""
    deck = list(range(len(full_deck(seats))))  # card numbers; with flags, 40 and 41 are the two flags
    # A string seed is hashed deterministically (sha512), independent of PYTHONHASHSEED.
    random.Random(f"{seed}:{raid}").shuffle(deck)
    size = hand_size(seats)
    return [sum(map(BIT.__getitem__, deck[i * size : (i + 1) * size])) for i in range(seats)]


def hand_sets(hands: list[list[str]]) -> list[int]:
    """Hands of card ids (an explicit deal's) as sets."""
    return [mask_of(CARD_NUMBER[card] for card in hand) for hand in hands]


def red_drummer_leads(hands: list[int]) -> int | None:
    """Ruling 1: whoever holds the red 8 leads the first trick of a raid (None if nobody does)."""
    for seat, hand in enumerate(hands):
        if hand & BIT[CARD_NUMBER[RED_DRUMMER]]:
            return seat
    return None


def validate_deal(seats: int, deal: object) -> Deal:
    """Check an explicit deal and return it normalized: sorted hands and a definite first leader."""
    if not isinstance(deal, dict):
        raise InvalidDeal("deal must be an object with 'hands' and optionally 'first_leader'")
    unknown = sorted(set(deal) - {"hands", "first_leader"})
    if unknown:
        raise InvalidDeal(f"unknown deal field(s) {unknown}")
    hands = deal.get("hands")
    if not isinstance(hands, list) or len(hands) != seats:
        raise InvalidDeal(f"deal.hands must be a list of {seats} hands, one per seat")
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list) or not all(isinstance(card, str) for card in hand):
            raise InvalidDeal(f"hand of seat {seat} must be a list of card ids")
    sizes = {len(hand) for hand in hands}
    if len(sizes) != 1:
        raise InvalidDeal(f"all hands must have the same size, got sizes {[len(h) for h in hands]}")
    size = sizes.pop()
    if not 1 <= size <= hand_size(seats):
        raise InvalidDeal(f"hands must hold 1 to {hand_size(seats)} cards with {seats} players, not {size}")
    _check_cards(seats, hands)
    normalized = [sort_hand(hand) for hand in hands]
    holder = red_drummer_leads(hand_sets(normalized))
    return {"hands": normalized, "first_leader": _first_leader(seats, holder, deal.get("first_leader"))}


def _check_cards(seats: int, hands: list[list[str]]) -> None:
    counts = Counter(card for hand in hands for card in hand)
    for card, count in sorted(counts.items()):
        if card not in ALL_IDS:
            raise InvalidDeal(f"unknown card {card!r}")
        if card == FLAG and not flags_in_play(seats):
            raise InvalidDeal(f"white flags ({FLAG}) are only used with 3 or 6 players, not {seats}")
        limit = 2 if card == FLAG else 1
        if count > limit:
            raise InvalidDeal(f"card {card!r} is dealt {count} times (at most {limit})")


def _first_leader(seats: int, holder: int | None, given: object) -> int:
    if given is None:
        if holder is None:
            raise InvalidDeal(f"nobody holds {RED_DRUMMER}: give first_leader (a seat 0..{seats - 1})")
        return holder
    if not is_int(given) or not 0 <= given < seats:
        raise InvalidDeal(f"first_leader must be a seat from 0 to {seats - 1}, not {given!r}")
    if holder is not None and holder != given:
        raise InvalidDeal(f"first_leader {given} contradicts ruling 1: seat {holder} holds {RED_DRUMMER}")
    return given
