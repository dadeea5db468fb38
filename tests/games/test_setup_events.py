"""The setup as events: a log that starts at creation shows the first deal like every later one."""

from __future__ import annotations

import pytest

from games import get_game
from games.base import redact_event

CASES = [("tricky-teams", 3), ("tricky-teams", 4), ("tricky-teams", 6), ("trick-n-trouble", 3)]


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_setup_events_deal_each_seat_its_own_hand_privately(name: str, seats: int) -> None:
    """Rule: each seat's dealt hand is an event private to that seat, equal to its hand in the state."""
    game = get_game(name)
    state = game.new_game(seats, seed=11)
    dealt = [e for e in game.setup_events(state) if e["type"] == "hand-dealt"]
    assert [e["seat"] for e in dealt] == list(range(seats))
    for event in dealt:
        seat = event["seat"]
        assert event["private"]["hand"] == game.view(state, seat)["hand"]
        assert event["private"]["seats"] == [seat]
        for reader in [None, *range(seats)]:
            shown = game.event_view(state, event, reader)
            assert ("private" in shown) == (reader == seat)


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_setup_events_are_deterministic_and_leave_the_state_alone(name: str, seats: int) -> None:
    """Rule: the setup events follow from the state's header alone and do not change the state."""
    game = get_game(name)
    state = game.new_game(seats, seed=5)
    before = repr(state)
    assert game.setup_events(state) == game.setup_events(game.new_game(seats, seed=5))
    assert repr(state) == before


def test_tricky_teams_setup_events_name_the_red_drummer_and_the_eights() -> None:
    """Ruling 1 and the 8s' missing backs: the raid-started event is public and names both."""
    game = get_game("tricky-teams")
    state = game.new_game(4, seed=2)
    started = game.setup_events(state)[0]
    assert started["type"] == "raid-started" and started["raid"] == 1
    hands = [game.view(state, seat)["hand"] for seat in range(4)]
    assert "red-8" in hands[started["leader"]]
    assert started["eights"] == [[c for c in hand if c.endswith("-8")] for hand in hands]
    assert redact_event(started, None) == started
