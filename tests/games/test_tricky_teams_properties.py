"""Property tests over random Tricky Teams games for 3, 4, 5 and 6 players (hypothesis)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import GameError
from games.tricky_teams import GAME
from games.tricky_teams.cards import CARD_ID, CARD_NUMBER, RANK, coin_values, full_deck, ids, mask_of
from tests.games.test_tricky_teams_support import hands, piles, trick_cards

SEATS = st.sampled_from([3, 4, 5, 6])
SEEDS = st.integers(min_value=0, max_value=2**32)
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cards_in_play(state: dict[str, Any]) -> Counter[str]:
    """Every card of the current raid wherever it is: hands, trick, loot being handed out, piles, cooks."""
    cards: Counter[str] = Counter()
    for seat in range(state["seats"]):
        cards.update(hands(state)[seat])
        cards.update(piles(state, "loot")[seat])
        cards.update(piles(state, "cooks")[seat])
    cards.update(trick_cards(state))
    pending = state["pending"]
    if pending is not None:
        cards.update(ids(pending["cards"]))
        cards.update(CARD_ID[card] for _, card in pending["own"])
    return cards


def play_out(seats: int, seed: int, raids: int = 2) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A random game, checking conservation, move availability and per-raid coins along the way."""
    rng = random.Random(seed)
    state = GAME.new_game(seats, {"raids": raids}, seed=seed)
    coins = coin_values(state["header"]["options"]["coins"])
    dealt = cards_in_play(state)
    snapshots = []
    while not GAME.is_over(state):
        assert cards_in_play(state) == dealt
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        assert moves, "a legal move exists until the game ends"
        assert all(GAME.legal_moves(state, other) == [] for other in range(seats) if other != seat)
        if rng.random() < 0.05:
            snapshots.append(json.loads(json.dumps(state)))
        raid = state["raid"]
        GAME.apply(state, seat, moves[rng.randrange(len(moves))])
        if state["raid"] != raid or GAME.is_over(state):
            assert sum(state["coins"][raid - 1]) == sum(coins[card] for card in dealt.elements())
            dealt = cards_in_play(state)
    assert GAME.to_move(state) == []
    return state, snapshots


@PROPERTY_SETTINGS
@given(seats=SEATS, seed=SEEDS)
def test_cards_conserved_moves_exist_and_raid_coins_add_up(seats: int, seed: int) -> None:
    """Cards are conserved, a legal move exists until the end, each raid hands out the dealt coins."""
    state, _ = play_out(seats, seed)
    assert len(state["coins"]) == 2


@PROPERTY_SETTINGS
@given(seats=SEATS, seed=SEEDS)
def test_replay_and_json_round_trip_reproduce_the_state(seats: int, seed: int) -> None:
    """Replaying the action list rebuilds the final state; the state survives JSON unchanged."""
    state, snapshots = play_out(seats, seed, raids=1)
    assert GAME.replay(state["header"], state["actions"]) == state
    assert json.loads(json.dumps(state)) == state
    for snapshot in snapshots:
        assert GAME.replay(snapshot["header"], snapshot["actions"]) == snapshot


@PROPERTY_SETTINGS
@given(seats=SEATS, seed=SEEDS)
def test_every_listed_move_applies(seats: int, seed: int) -> None:
    """Every move legal_moves lists is accepted by apply (checked on copies along a random game)."""
    rng = random.Random(seed)
    state = GAME.new_game(seats, {"raids": 1}, seed=seed)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        text = json.dumps(state)
        for move in moves:
            GAME.apply(json.loads(text), seat, move)
        GAME.apply(state, seat, moves[rng.randrange(len(moves))])


def hide_and_shuffle(state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """A copy where every card hidden from `seat` is shuffled among the hidden places.

    Hidden: non-8 cards in other hands and other seats' face-down cards in the current trick.
    """
    other: dict[str, Any] = json.loads(json.dumps(state))
    held = hands(other)
    slots: list[tuple[Any, int | str]] = []
    for s, hand in enumerate(held):
        if s != seat:
            slots += [(hand, i) for i, card in enumerate(hand) if RANK[card] != 8]
    for play in other["trick"]:
        if play["face_down"] and play["seat"] != seat:
            play["card"] = CARD_ID[play["card"]]
            slots.append((play, "card"))
    cards = [container[key] for container, key in slots]
    rng.shuffle(cards)
    for (container, key), card in zip(slots, cards, strict=True):
        container[key] = card
    other["hands"] = [mask_of(CARD_NUMBER[card] for card in hand) for hand in held]
    for container, key in slots:
        if key == "card":
            container["card"] = CARD_NUMBER[container["card"]]
    return other


@PROPERTY_SETTINGS
@given(seats=SEATS, seed=SEEDS)
def test_view_does_not_change_when_only_hidden_cards_change(seats: int, seed: int) -> None:
    """A seat's view is the same whatever the cards hidden from it are; spectators see no hand."""
    rng = random.Random(seed)
    state = GAME.new_game(seats, {"raids": 1}, seed=seed)
    while not GAME.is_over(state):
        if rng.random() < 0.3:
            for seat in range(seats):
                assert GAME.view(hide_and_shuffle(state, seat, rng), seat) == GAME.view(state, seat)
            spectator = GAME.view(state, None)
            assert spectator["hand"] is None and spectator["legal_moves"] == []
            assert all("loot" not in p for p in spectator["players"])
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        GAME.apply(state, seat, moves[rng.randrange(len(moves))])
    assert GAME.view(state, None)["result"] == GAME.result(state)


@PROPERTY_SETTINGS
@given(seats=SEATS, seed=SEEDS, size=st.integers(min_value=1, max_value=7))
def test_explicit_partial_deals_play_through(seats: int, seed: int, size: int) -> None:
    """A random explicit deal of `size` cards per hand plays to the end; its raid hands out its coins."""
    rng = random.Random(seed)
    deck = full_deck(seats)
    rng.shuffle(deck)
    dealt = [deck[i * size : (i + 1) * size] for i in range(seats)]
    deal: dict[str, Any] = {"hands": dealt}
    if not any("red-8" in hand for hand in dealt):
        deal["first_leader"] = rng.randrange(seats)
    state = GAME.new_game(seats, {"raids": 1}, seed=seed, deal=deal)
    assert [len(hand) for hand in hands(state)] == [size] * seats
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        GAME.apply(state, seat, moves[rng.randrange(len(moves))])
    coins = coin_values(state["header"]["options"]["coins"])
    assert sum(state["coins"][0]) == sum(coins[card] for hand in dealt for card in hand)
    assert GAME.replay(state["header"], state["actions"]) == state


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 10)
    | st.floats(allow_nan=False)
    | st.sampled_from(
        ["play", "take-loot", "choose-leader", "red-4", "flag-0", "green", "red-8", "seat", "card", ""]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "card", "wish", "seat", "team", "x"]), inner, max_size=4)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(move=JSON_VALUES, seat=st.integers(-1, 4) | st.none() | st.booleans())
def test_any_json_move_is_applied_or_rejected_with_a_game_error(move: Any, seat: Any) -> None:
    """Whatever JSON arrives as a move, apply either accepts it or raises a typed GameError."""
    state = GAME.new_game(
        4, {"raids": 1}, seed=1, deal={"hands": [["red-4"], ["red-8"], ["blue-4"], ["green-2"]]}
    )
    before = json.dumps(state, sort_keys=True)
    try:
        GAME.apply(state, seat, move)
    except GameError:
        assert json.dumps(state, sort_keys=True) == before
