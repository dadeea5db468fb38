"""The wire TypedDicts (mirrored by the API) describe exactly what views, moves and events carry."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from games.trick_n_trouble import GAME, wire
from tests.games.test_trick_n_trouble_support import MODES, random_game

MOVE_SHAPES = {
    typing.get_type_hints(shape)["type"].__args__[0]: shape for shape in typing.get_args(wire.Move)
}
EVENT_SHAPES = {
    kind: shape
    for shape in typing.get_args(wire.Event)
    for kind in typing.get_type_hints(shape)["type"].__args__
}


def _fits(value: dict[str, Any], shape: Any) -> bool:
    keys = set(value)
    return set(shape.__required_keys__) <= keys <= set(shape.__required_keys__) | set(shape.__optional_keys__)


@pytest.mark.parametrize("options", MODES, ids=["normal", "expert", "story", "expert+story"])
def test_views_moves_and_events_match_the_wire_shapes(options: dict[str, Any]) -> None:
    """Wire: every view, legal move and event of a whole game has the keys its TypedDict declares."""
    state, events = random_game(options, seed=3, choices=4)
    replayed = GAME.new_game(3, options, 3)
    for action in state["actions"]:
        for seat in (0, 1, 2, None):
            view = GAME.view(replayed, seat)
            assert _fits(view, wire.View)
            for task in view["tasks"]:
                assert _fits(task, wire.TaskCard)
            for move in view["legal_moves"]:
                assert _fits(move, MOVE_SHAPES[move["type"]])
        GAME.apply(replayed, action["seat"], action["move"])
    assert _fits(GAME.view(replayed, 0), wire.View) and _fits(GAME.view(replayed, 0)["result"], wire.Result)
    for event in (e for batch in events for e in batch):
        assert _fits(event, EVENT_SHAPES[event["type"]]), event
