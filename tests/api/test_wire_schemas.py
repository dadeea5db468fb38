"""Drift: real engine output validates against the API's marshmallow mirrors of wire.py, and each
mirror has the fields of the TypedDict it names."""

from __future__ import annotations

import random
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from api.schemas import GAME_WIRE, validate_move
from core.wire.common import Mirror, description_of
from games.base import redact_event
from games.registry import GAMES, get_game

SETUPS = [
    ("tricky-teams", 3, {"raids": 1}),
    ("tricky-teams", 5, {"raids": 1}),
    ("tricky-teams", 6, {"raids": 1}),
    ("trick-n-trouble", 3, None),
    ("trick-n-trouble", 3, {"expert": True}),
]
# Parts the API may leave out of what an engine emits: an event's `private` part, for the readers it
# does not name (games.base.redact_event).
REDACTABLE = {"private"}


_INSTANCES: dict[type[Schema], Schema] = {}


def _check(schema: type[Schema], data: Any, what: str) -> None:
    instance = _INSTANCES.get(schema) or _INSTANCES.setdefault(schema, schema())
    try:
        instance.load(data)
    except ValidationError as exc:
        pytest.fail(f"{what} drifted from the API schema: {exc.messages}\n{data}")


def _check_event(wire: Any, event: dict[str, Any], seats: int, what: str) -> None:
    assert event["type"] in wire.EVENTS, f"{what}: event type {event['type']!r} has no schema"
    for reader in [None, *range(seats)]:
        _check(wire.EVENTS[event["type"]], redact_event(event, reader), f"{what} as seen by {reader}")


def _play_and_check(game_name: str, seats: int, options: dict[str, Any] | None, seed: int) -> int:
    engine = get_game(game_name)
    wire = GAME_WIRE[game_name][1]
    state = engine.new_game(seats, options, seed=seed)
    for event in engine.setup_events(state):
        _check_event(wire, event, seats, f"{game_name} setup event")
    rng = random.Random(seed)
    checked = 0
    while True:
        for reader in [None, *range(seats)]:
            _check(wire.VIEW, engine.view(state, reader), f"{game_name} view of {reader}")
        if engine.is_over(state):
            _check(wire.RESULT, engine.result(state), f"{game_name} result")
            _check(wire.HEADER, state["header"], f"{game_name} header")
            for action in state["actions"]:
                _check(wire.ACTION, action, f"{game_name} action")
                validate_move(game_name, action["move"])
            return checked
        seat = rng.choice(engine.to_move(state))
        moves = engine.legal_moves(state, seat)
        for move in moves:
            validate_move(game_name, move)
        for event in engine.apply(state, seat, rng.choice(moves)):
            _check_event(wire, event, seats, f"{game_name} event")
        checked += 1


def test_every_registered_game_has_a_wire_mirror() -> None:
    """Rule: each game the server plays has typed moves and views in openapi.yaml."""
    assert set(GAMES) <= set(GAME_WIRE)


def _mirrors() -> list[tuple[str, type[Schema]]]:
    return [
        (f"{prefix}{name}", schema)
        for prefix, module in GAME_WIRE.values()
        for name, schema in module.COMPONENTS.items()
    ]


@pytest.mark.parametrize(("name", "schema"), _mirrors(), ids=[name for name, _ in _mirrors()])
def test_each_mirror_has_the_fields_of_its_typeddict_and_descriptions(
    name: str, schema: type[Schema]
) -> None:
    """Rule: a mirror's fields are its TypedDict's keys, required as there (but for redactable parts);
    the mirror and each of its fields are described."""
    assert issubclass(schema, Mirror), name
    assert description_of(schema), f"{name} has no description"
    instance = schema()
    for field_name, field in instance.fields.items():
        assert field.metadata.get("description"), f"{name}.{field_name} has no description"
    typed = schema.MIRRORS
    if typed is None:
        return  # a shape wire.py leaves untyped (options, explicit deals): the drift test covers it
    keys = set(typing.get_type_hints(typed))
    wire_names = {field.data_key or key for key, field in instance.fields.items()}
    assert wire_names == keys, f"{name}: fields {sorted(wire_names ^ keys)} differ from {typed}"
    required = {field.data_key or key for key, field in instance.fields.items() if field.required}
    typed_required = set(getattr(typed, "__required_keys__", keys))
    assert required == typed_required - REDACTABLE, f"{name}: required {sorted(required ^ typed_required)}"


@pytest.mark.parametrize(("game", "seats", "options"), SETUPS)
def test_real_engine_output_matches_the_api_schemas(
    game: str, seats: int, options: dict[str, Any] | None
) -> None:
    """Rule: every view (each seat and spectator), legal move, event (each reader), result, header and
    action of a whole game validates."""
    assert _play_and_check(game, seats, options, seed=seats) > 10


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), setup=st.sampled_from(SETUPS))
def test_engine_output_matches_schemas_for_any_deal(seed: int, setup: tuple[str, int, Any]) -> None:
    """Invariant: schema conformance does not depend on the deal."""
    _play_and_check(setup[0], setup[1], setup[2], seed)
