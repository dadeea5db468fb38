"""Tricky Teams' search API: `clone`, `apply_unchecked`, and the playout calls `playout_moves`,
`push` (no events) and `coins_won` that the search bot's playouts use."""

from __future__ import annotations

import json
import random
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from games.tricky_teams import GAME
from games.tricky_teams.cards import coin_values

SEATS = st.sampled_from([3, 4, 5, 6])
SEEDS = st.integers(min_value=0, max_value=2**31)
COINS = st.sampled_from([None, {"coins": {**{str(rank): rank % 3 for rank in range(11)}, "8": 5}}])


def _frozen(state: dict[str, Any]) -> str:
    return json.dumps(state, sort_keys=True)


def _coins_of(events: list[dict[str, Any]], value: dict[str, int], seats: int) -> list[int]:
    """The coins the events put on each seat's pile or lay out before it (what a raid's end counts)."""
    won = [0] * seats
    for event in events:
        if event["type"] in ("loot-taken", "cook-laid-out"):
            won[event["seat"]] += value[event["card"]]
    return won


@settings(max_examples=25, deadline=None)
@given(seats=SEATS, seed=SEEDS, choices=SEEDS, coins=COINS)
def test_property_push_leaves_the_state_apply_leaves_and_coins_won_counts_the_events(
    seats: int, seed: int, choices: int, coins: dict[str, Any] | None
) -> None:
    """Property (rule: `push` is `apply_unchecked` without events): at every step of a random game
    of 2 raids, `push` on a clone and `apply_unchecked` on another leave the state `apply` leaves,
    with `apply`'s events; within a raid `coins_won` grows by the coins of the move's `loot-taken`
    and `cook-laid-out` events, and at the end it is the result's scores."""
    state = GAME.new_game(seats, {"raids": 2, **(coins or {})}, seed)
    value = coin_values(state["header"]["options"]["coins"])
    rng = random.Random(choices)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        pushed, unchecked = GAME.clone(state), GAME.clone(state)
        before = GAME.coins_won(state)
        assert cast(object, GAME.push(pushed, seat, move)) is None  # returns nothing, also at runtime
        events = GAME.apply_unchecked(unchecked, seat, move)
        assert GAME.apply(state, seat, move) == events
        assert _frozen(pushed) == _frozen(unchecked) == _frozen(state)
        if not any(event["type"] == "raid-ended" for event in events):
            gained = _coins_of(events, value, seats)
            assert GAME.coins_won(state) == [b + g for b, g in zip(before, gained, strict=True)]
    assert GAME.coins_won(state) == GAME.result(state)["scores"]


@settings(max_examples=25, deadline=None)
@given(seats=SEATS, seed=SEEDS, choices=SEEDS)
def test_property_playout_moves_are_the_listed_moves_without_wishes(
    seats: int, seed: int, choices: int
) -> None:
    """Property (rule: a playout picks among the listed moves, a Hypnotist without a wish): at every
    step `playout_moves` is `legal_moves` with the wishes left out, in the same order, for the
    seat to move, and empty for every other seat."""
    state = GAME.new_game(seats, {"raids": 1}, seed)
    rng = random.Random(choices)
    wished = 0
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        plain = [move for move in legal if "wish" not in move]
        wished += len(plain) < len(legal)
        assert GAME.playout_moves(state, seat) == plain
        assert all(GAME.playout_moves(state, other) == [] for other in range(seats) if other != seat)
        GAME.push(state, seat, rng.choice(GAME.playout_moves(state, seat)))
    assert GAME.playout_moves(state, 0) == []


def test_a_hypnotist_plays_plain_in_playouts() -> None:
    """A seat holding a Hypnotist with seats still to play lists wishes; its playout moves do not."""
    for seed in range(200):
        state = GAME.new_game(4, {"raids": 1}, seed)
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        if any("wish" in move for move in legal):
            plain = GAME.playout_moves(state, seat)
            assert plain and all("wish" not in move for move in plain)
            assert {move["card"] for move in plain} == {move["card"] for move in legal}
            return
    raise AssertionError("no leader with a Hypnotist in 200 deals")


def test_push_on_a_clone_leaves_the_original_alone() -> None:
    """A clone played to the end with `push` changes nothing in the original."""
    state = GAME.new_game(5, {"raids": 2}, 7)
    before = _frozen(state)
    copy = GAME.clone(state)
    rng = random.Random(3)
    while turn := GAME.to_move(copy):
        GAME.push(copy, turn[0], rng.choice(GAME.playout_moves(copy, turn[0])))
    assert GAME.is_over(copy) and _frozen(state) == before
    assert GAME.coins_won(copy) == GAME.result(copy)["scores"]
