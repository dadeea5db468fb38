"""Setup: the seeded shuffles, explicit deals (`InvalidDeal` with the reason), the face-up tasks and
the stacked story pile.

One `random.Random(seed)` shuffles, in this order: the 27 cards (first 5 to seat 0, next 5 to seat
1, next 5 to seat 2, the rest is the draw pile, top first), then the level 1, 2, 3 task piles; an
explicit deal replaces what it gives, the shuffles still run so that the rest stays the seed's.
Nothing random happens after setup.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import InvalidDeal
from games.trick_n_trouble.cards import LEVELS, SETUP_FACE_UP, Card, edition
from games.trick_n_trouble.options import SEATS
from games.trick_n_trouble.rules import HAND_SIZE
from games.trick_n_trouble.state import Header, TnTState, new_state

DEAL_KEYS = {"hands", "draw", "tasks"}


def check_deal(deal: object) -> None:
    """The keys of an explicit deal (its cards and tasks are checked as they are dealt)."""
    if deal is None:
        return
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


def deal_cards(
    deal: dict[str, Any] | None, table: dict[str, Card], order: dict[str, int], rng: random.Random
) -> tuple[list[list[str]], list[str]]:
    """The hands (each in deck order) and the draw pile (top first): shuffled, or as the deal gives them."""
    shuffled = _shuffled(list(table), rng)
    if deal is None or "hands" not in deal:
        if deal is not None and "draw" in deal:
            raise InvalidDeal("a deal with 'draw' needs 'hands' too")
        hands = [shuffled[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(SEATS)]
        return [sorted(hand, key=order.__getitem__) for hand in hands], shuffled[SEATS * HAND_SIZE :]
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
    return [sorted(hand, key=order.__getitem__) for hand in hands], list(draw)


def _same_ids(pile: object, ids: list[str]) -> bool:
    """Whether `pile` is a list of exactly the task ids `ids` in some order."""
    return isinstance(pile, list) and all(isinstance(t, str) for t in pile) and sorted(pile) == sorted(ids)


def deal_task_piles(
    deal: dict[str, Any] | None, by_level: dict[str, list[str]], rng: random.Random
) -> dict[str, list[str]]:
    """Each level's task pile (top first): shuffled, or as the deal gives it."""
    given = (deal or {}).get("tasks", {})
    if not isinstance(given, dict) or set(given) - set(LEVELS):
        raise InvalidDeal("deal 'tasks' must map levels '1', '2', '3' to task id lists (top first)")
    piles: dict[str, list[str]] = {}
    for level in LEVELS:
        ids = by_level[level]
        order = _shuffled(ids, rng)
        if level in given:
            pile = given[level]
            if not _same_ids(pile, ids):
                raise InvalidDeal(f"deal tasks[{level!r}] must list each level-{level} task once: {ids}")
            order = list(pile)
        piles[level] = order
    return piles


def turn_up_tasks(piles: dict[str, list[str]]) -> list[str]:
    """Setup: the top 3 level-1 tasks and the top level-2 and level-3 task go face up."""
    return [piles[str(level)].pop(0) for level, count in SETUP_FACE_UP.items() for _ in range(count)]


def stack_story_pile(piles: dict[str, list[str]]) -> list[str]:
    """Ruling (story mode): after the setup the three task piles are stacked, not shuffled, into
    one pile -- level 1 on top, level 3 at the bottom (the story grows harder); top first."""
    return [task_id for level in LEVELS for task_id in piles[level]]


def deal_game(header: Header) -> TnTState:
    """The state of a new game: cards and tasks dealt, the first lead player deciding whether to pass."""
    options, deal = header["options"], header["deal"]
    tables = edition(options)
    rng = random.Random(header["seed"])
    hands, draw = deal_cards(deal, tables.cards, tables.order, rng)
    piles = deal_task_piles(deal, tables.by_level, rng)
    face_up = turn_up_tasks(piles)
    story: list[str] | None = None
    if options["story"]:
        story = stack_story_pile(piles)
        piles = {level: [] for level in LEVELS}
    lead: int = options["first_leader"]
    return new_state(
        header, lead=lead, turn=lead, hands=hands, draw=draw, piles=piles, story=story, face_up=face_up
    )
