"""The search API on the game object: `GAME.clone(state)` and `GAME.apply_unchecked(state, seat, move)`."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import NotYourTurn
from games.trick_n_trouble import GAME
from tests.games.test_trick_n_trouble_support import MODES

seeds = st.integers(min_value=0, max_value=2**31)


def _frozen(state: dict[str, Any]) -> str:
    return json.dumps(state, sort_keys=True)


@settings(max_examples=25, deadline=None)
@given(options=st.sampled_from(MODES), seed=seeds, choices=seeds)
def test_property_apply_unchecked_on_a_clone_leaves_the_state_apply_leaves(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Property: at every step of a random game, `apply_unchecked` on a clone gives the same state
    and the same events as `apply`, and leaves the original alone."""
    state = GAME.new_game(3, options, seed)
    rng = random.Random(choices)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        before = _frozen(state)
        copy = GAME.clone(state)
        assert copy == state
        unchecked = GAME.apply_unchecked(copy, seat, move)
        assert _frozen(state) == before
        assert GAME.apply(state, seat, move) == unchecked
        assert copy == state and _frozen(copy) == _frozen(state)


@settings(max_examples=25, deadline=None)
@given(options=st.sampled_from(MODES), seed=seeds, choices=seeds)
def test_property_a_clone_is_independent(options: dict[str, Any], seed: int, choices: int) -> None:
    """Property: playing a clone to the end changes nothing in the original, and the original
    plays on as if no clone had been made."""
    state = GAME.new_game(3, options, seed)
    twin = GAME.new_game(3, options, seed)
    rng = random.Random(choices)
    for _ in range(rng.randrange(60)):
        if GAME.is_over(state):
            break
        seat = GAME.to_move(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        GAME.apply(state, seat, move)
        GAME.apply(twin, seat, move)
    before = _frozen(state)
    copy = GAME.clone(state)
    while not GAME.is_over(copy):
        seat = GAME.to_move(copy)[0]
        GAME.apply_unchecked(copy, seat, rng.choice(GAME.legal_moves(copy, seat)))
    assert _frozen(state) == before and state == twin
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        GAME.apply(state, seat, move)
        GAME.apply(twin, seat, move)
    assert state == twin
    assert GAME.replay(state["header"], state["actions"]) == state


def test_apply_still_checks_what_apply_unchecked_trusts() -> None:
    """`apply` keeps its checks: the move of a seat out of turn is refused there, not played."""
    state = GAME.new_game(3, seed=2)
    move = GAME.legal_moves(state, 0)[0]
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 1, move)
    assert GAME.apply_unchecked(GAME.clone(state), 0, move) == GAME.apply(state, 0, move)
