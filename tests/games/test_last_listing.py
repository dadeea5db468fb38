"""`apply` takes a move `legal_moves` just listed for this state version as checked (LastListing)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from games.base import Game, GameError
from games.registry import GAMES


def _answer(game: Game, state: dict[str, Any], seat: int, move: Any) -> Any:
    """What `apply` says to `move` on `state`: the error, or the events."""
    try:
        return ["accepted", game.apply(state, seat, move)]
    except GameError as exc:
        return [type(exc).__name__, exc.code, exc.message, exc.details]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_listing_checks_only_the_state_version_it_was_made_for(name: str) -> None:
    """Rule: after a move, the values listed before it are checked again like any move (the
    listing is the check only for the state object at the action count it was made for), and
    their answers are those of the same state read afresh."""
    game = GAMES[name]
    seats = game.showcase_seats
    refused = 0
    for seed in range(4):
        rng = random.Random(seed)
        state = game.new_game(seats, None, seed)
        while not game.is_over(state):
            seat = game.to_move(state)[0]
            before = game.legal_moves(state, seat)
            game.apply(state, seat, rng.choice(before))
            for stale in before:
                fresh = _answer(game, copy.deepcopy(state), seat, stale)
                if fresh[0] != "accepted":  # refused on a fresh copy: refused here too, nothing changed
                    kept = copy.deepcopy(state)
                    assert _answer(game, state, seat, stale) == fresh
                    assert state == kept
                    refused += 1
    assert refused > 100


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_move_equal_to_a_listed_one_is_recorded_as_the_engines_value(name: str) -> None:
    """Rule: a caller's plain dict equal to a listed move is parsed and checked, and the action list
    records the engine's own value; the listed value itself is recorded as it is."""
    game = GAMES[name]
    state = game.new_game(game.showcase_seats, None, 3)
    for turn in range(12):
        seat = game.to_move(state)[0]
        listed = game.legal_moves(state, seat)
        chosen = listed[turn % len(listed)]
        sent = dict(chosen) if turn % 2 else chosen
        events = game.apply(state, seat, sent)
        assert events
        assert state["actions"][-1]["move"] is chosen
