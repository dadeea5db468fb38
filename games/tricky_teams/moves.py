"""Moves: the move values, parsing a wire move into one (MalformedMove), listing the legal ones.

Every move is an immutable value (games.base.FrozenDict) made once, at import: `parse_move` and
the listings hand out the same object for the same move, and the action list records it.
"""

from __future__ import annotations

from games.base import FrozenDict, MalformedMove, is_int
from games.tricky_teams.cards import (
    CARD_ID,
    CARD_NUMBER,
    FLAG_CARD,
    ID_PLACE,
    TEAMS,
    cards_where,
    listed,
    listing,
)
from games.tricky_teams.options import SEAT_COUNTS
from games.tricky_teams.rules import may_wish, playable, wish_targets
from games.tricky_teams.state import State

MOVE_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "card", "wish"}),
    "take-loot": frozenset({"type", "card"}),
    "choose-leader": frozenset({"type", "seat"}),
}
MAX_SEATS = max(SEAT_COUNTS)
HYPNOTISTS = cards_where(may_wish)

# The moves by card number (both flag numbers: the one flag move), by seat, and a Hypnotist's
# wishes by card, target seat and team.
PLAY: tuple[FrozenDict, ...] = tuple(FrozenDict({"type": "play", "card": card}) for card in CARD_ID)
TAKE_LOOT: tuple[FrozenDict, ...] = tuple(FrozenDict({"type": "take-loot", "card": card}) for card in CARD_ID)
CHOOSE_LEADER: tuple[FrozenDict, ...] = tuple(
    FrozenDict({"type": "choose-leader", "seat": seat}) for seat in range(MAX_SEATS)
)
WISH: dict[tuple[int, int, str], FrozenDict] = {
    (card, seat, team): FrozenDict(
        {"type": "play", "card": CARD_ID[card], "wish": FrozenDict({"seat": seat, "team": team})}
    )
    for card in range(len(CARD_ID))
    if may_wish(card)
    for seat in range(MAX_SEATS)
    for team in TEAMS
}
# A Hypnotist's wishes from one seat, every team in order, by card and seat.
WISHES_FROM: dict[tuple[int, int], tuple[FrozenDict, ...]] = {
    (card, seat): tuple(WISH[card, seat, team] for team in TEAMS) for card, seat, _ in WISH
}


# Every move value above that names only seats of a game of `seats`, by its identity: a move value
# the engine made (and `legal_moves` listed) is already the value it names.
OWN_VALUES: dict[int, dict[int, FrozenDict]] = {
    seats: {
        id(value): value
        for value in (*PLAY, *TAKE_LOOT, *CHOOSE_LEADER[:seats], *WISH.values())
        if value.get("seat", 0) < seats and value.get("wish", {"seat": 0})["seat"] < seats
    }
    for seats in SEAT_COUNTS
}


def parse_move(move: object, seats: int) -> FrozenDict:
    """Check the shape of `move` and return the move value it names (a null wish is a plain play)."""
    own = OWN_VALUES[seats].get(id(move))
    if own is move and own is not None:
        return own
    if not isinstance(move, dict):
        raise MalformedMove("a move must be an object with a 'type'")
    kind = move.get("type")
    fields = MOVE_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise MalformedMove(f"unknown move type {kind!r}; expected one of {sorted(MOVE_FIELDS)}")
    if not fields.issuperset(move):
        raise MalformedMove(f"unknown field(s) {sorted(set(move) - fields)} in a {kind} move")
    if kind == "choose-leader":
        return CHOOSE_LEADER[_seat(move, "seat", seats)]
    card = move.get("card")
    number = CARD_NUMBER.get(card) if isinstance(card, str) else None
    if number is None:
        raise MalformedMove(f"{kind} needs 'card', a card id like 'blue-4' or 'flag-0', not {card!r}")
    if kind == "take-loot":
        return TAKE_LOOT[number]
    wish = move.get("wish")
    if wish is None:
        return PLAY[number]
    if not isinstance(wish, dict) or set(wish) != {"seat", "team"}:
        raise MalformedMove("wish must be an object with exactly 'seat' and 'team'")
    team = wish["team"]
    if not isinstance(team, str) or team not in TEAMS:
        raise MalformedMove(f"wish.team must be one of {list(TEAMS)}, not {team!r}")
    seat = _seat(wish, "seat", seats)
    if not may_wish(number):
        return FrozenDict({"type": "play", "card": card, "wish": FrozenDict({"seat": seat, "team": team})})
    return WISH[number, seat, team]


def _seat(obj: dict[str, object], key: str, seats: int) -> int:
    value = obj.get(key)
    if not is_int(value) or not 0 <= value < seats:
        raise MalformedMove(f"'{key}' must be a seat from 0 to {seats - 1}, not {value!r}")
    return value


_PLAYS = listing(PLAY, distinct=True)
_KINDS = listing([min(card, FLAG_CARD) for card in range(len(CARD_ID))], distinct=True)


def play_moves(state: State, seat: int) -> list[FrozenDict]:
    """The seat's play moves in hand order: each playable card once (the two flags are one move), a
    Hypnotist plain and then with every wish for every seat still to play and every team."""
    legal = playable(state, seat)
    if not legal & HYPNOTISTS:
        return listed(legal, _PLAYS)
    targets = wish_targets(state)
    moves: list[FrozenDict] = []
    for card in listed(legal, _KINDS):
        moves.append(PLAY[card])
        if may_wish(card):
            for target in targets:
                moves += WISHES_FROM[card, target]
    return moves


def take_loot_moves(cards: list[int]) -> list[FrozenDict]:
    """One move per distinct loot card, in the order of the card ids."""
    return [TAKE_LOOT[card] for card in sorted(set(cards), key=ID_PLACE.__getitem__)]


def choose_leader_moves(seats: int) -> list[FrozenDict]:
    """A Strategist's player may name any seat."""
    return list(CHOOSE_LEADER[:seats])


def plain_play_moves(state: State, seat: int) -> list[FrozenDict]:
    """The seat's play moves without a Hypnotist's wishes: each playable card once, in hand order."""
    return listed(playable(state, seat), _PLAYS)
