"""Drift: real engine views, moves and events validate against the API's marshmallow mirrors of wire.py."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from api.schemas import GAME_WIRE, validate_move
from games.registry import GAMES, get_game

SETUPS = [
    ("tricky-teams", 3, {"raids": 1}),
    ("tricky-teams", 5, {"raids": 1}),
    ("tricky-teams", 6, {"raids": 1}),
    ("trick-n-trouble", 3, None),
    ("trick-n-trouble", 3, {"expert": True}),
]


def _check(schema: Any, data: Any, what: str) -> None:
    try:
        schema().load(data)
    except ValidationError as exc:
        pytest.fail(f"{what} drifted from the API schema: {exc.messages}\n{data}")


def _play_and_check(game_name: str, seats: int, options: dict[str, Any] | None, seed: int) -> int:
    engine = get_game(game_name)
    wire = GAME_WIRE[game_name][1]
    state = engine.new_game(seats, options, seed=seed)
    rng = random.Random(seed)
    checked = 0
    while True:
        for reader in [None, *range(seats)]:
            _check(wire.VIEW, engine.view(state, reader), f"{game_name} view of {reader}")
        if engine.is_over(state):
            return checked
        seat = rng.choice(engine.to_move(state))
        moves = engine.legal_moves(state, seat)
        for move in moves:
            validate_move(game_name, move)
        for event in engine.apply(state, seat, rng.choice(moves)):
            if event["type"] in wire.EVENTS:
                _check(wire.EVENTS[event["type"]], event, f"{game_name} event")
        checked += 1


def test_every_registered_game_has_a_wire_mirror() -> None:
    """Rule: each game the server plays has typed moves and views in openapi.yaml."""
    assert set(GAMES) <= set(GAME_WIRE)


@pytest.mark.parametrize(("game", "seats", "options"), SETUPS)
def test_real_engine_output_matches_the_api_schemas(
    game: str, seats: int, options: dict[str, Any] | None
) -> None:
    """Rule: every view (each seat and spectator), legal move and known event of a whole game validates."""
    assert _play_and_check(game, seats, options, seed=seats) > 10


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), setup=st.sampled_from(SETUPS))
def test_engine_output_matches_schemas_for_any_deal(seed: int, setup: tuple[str, int, Any]) -> None:
    """Invariant: schema conformance does not depend on the deal."""
    _play_and_check(setup[0], setup[1], setup[2], seed)
