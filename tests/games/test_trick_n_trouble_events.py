"""Ruling 7 applied to the event log: in expert mode past tricks leave the game face down."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import get_game

GAME = get_game("trick-n-trouble")


def _play_until_round(
    options: dict[str, Any], target_round: int, seed: int = 3
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A seeded random game stopped once `target_round` has started; returns state and raw events."""
    state = GAME.new_game(3, options, seed=seed)
    rng = random.Random(seed)
    log: list[dict[str, Any]] = []
    while not GAME.is_over(state) and state["round"] < target_round:
        seat = GAME.to_move(state)[0]
        log.extend(GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat))))
    return state, log


def _seen_cards(state: dict[str, Any], log: list[dict[str, Any]], seat: int | None) -> list[str]:
    seen = []
    for event in log:
        shown = GAME.event_view(state, event, seat)
        if shown["type"] == "card-played" and "card" in shown:
            seen.append(shown["card"])
        if shown["type"] == "trick-won" and "cards" in shown:
            seen.extend(shown["cards"])
    return seen


@pytest.mark.parametrize("seat", [None, 0, 1, 2])
def test_ruling_7_expert_events_of_past_tricks_show_no_cards(seat: int | None) -> None:
    """Ruling 7: once a round is over, no reader of an expert game's log sees its trick's cards."""
    state, log = _play_until_round({"expert": True}, 4)
    assert state["round"] == 4
    played = [e for e in log if e["type"] == "card-played"]
    assert played and all(e["round"] < 4 for e in played)
    assert _seen_cards(state, log, seat) == []
    won = [GAME.event_view(state, e, seat) for e in log if e["type"] == "trick-won"]
    assert won and all("sums" not in e and "fulfilled" in e for e in won)


def test_ruling_7_expert_current_trick_stays_visible_in_the_log() -> None:
    """Ruling 7: the trick on the table is face up until its round ends, in the log as in the view."""
    state, log = _play_until_round({"expert": True}, 2)
    rng = random.Random(9)
    while not state["trick"]:
        seat = GAME.to_move(state)[0]
        log.extend(GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat))))
    on_table = [play["card"] for play in state["trick"]]
    assert _seen_cards(state, log, None) == on_table


def test_normal_mode_log_keeps_every_played_card() -> None:
    """Outside expert mode the discard pile is open, so the log keeps every played card."""
    state, log = _play_until_round({}, 4)
    played = [e["card"] for e in log if e["type"] == "card-played"]
    assert len(played) == 9
    assert _seen_cards(state, log, None)[: len(played)] != []
    assert set(played) <= set(_seen_cards(state, log, 2))


def test_expert_log_is_revealed_after_the_end() -> None:
    """After the game ends everything is revealed, the expert log included."""
    state, log = _play_until_round({"expert": True}, 99)
    assert GAME.is_over(state)
    played = [e["card"] for e in log if e["type"] == "card-played"]
    assert len(played) == 27
    assert set(played) <= set(_seen_cards(state, log, None))
