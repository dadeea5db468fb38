"""Forced decisions (issue 13 §2): a play forced by the cards in a hand must not tell anyone it was forced.

The rulebook: "You may not tell anyone the cards you have or don't have in your hand."  A seat that
must follow with its only card of the lead colour still sends the move; only decisions whose single
option follows from public facts (pile sizes, hand sizes, face-up tasks) are taken by the engine.
"""

from __future__ import annotations

import json
import random
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import edition
from games.trick_n_trouble.engine import automatic_move
from games.trick_n_trouble.state import TnTState
from tests.games.test_trick_n_trouble_support import DECK, MODES, act, new, task, to_play

NEVER = [
    task(f"n{i}", level, 1, "At least 99 {0}", {"colour": 0, "min": 99})
    for i, level in enumerate([1, 1, 1, 1, 2, 2, 3, 3])
]
OBSERVERS: list[int | None] = [0, 1, 2, None]
PLAYED_KEYS = {"type", "seat", "card", "round"}


def _seen(state: dict[str, Any], events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    return [GAME.event_view(state, event, seat) for event in events]


def test_ruling_forced_follow_is_the_seats_own_decision_and_leaks_nothing() -> None:
    """Forced decisions: seat 1 holds one blue card and no joker; after a blue lead it must still send
    its move, the lead's apply shows only the lead's card, and the forced event equals a chosen one."""
    state = new(
        [
            ["blue-5", "yellow-8", "yellow-9"],
            ["blue-3", "green-4", "green-5"],
            ["blue-4", "blue-9", "yellow-3"],
        ],
        tasks=NEVER,
    )
    to_play(state)
    events = act(state, 0, "play", card="blue-5")
    # Before issue 13 this apply also returned seat 1's forced play, marked "auto": true.
    for seat in OBSERVERS:
        assert _seen(state, events, seat) == [
            {"type": "card-played", "seat": 0, "card": "blue-5", "round": 1}
        ]
        view = GAME.view(state, seat)
        assert view["to_move"] == [1] and view["trick"] == [{"seat": 0, "card": "blue-5"}]
    assert GAME.legal_moves(state, 1) == [{"type": "play", "card": "blue-3"}]
    assert automatic_move(cast(TnTState, state), edition(state["header"]["options"])) is None
    forced = act(state, 1, "play", card="blue-3")
    assert forced == [{"type": "card-played", "seat": 1, "card": "blue-3", "round": 1}]
    assert state["actions"][-1] == {"seat": 1, "move": {"type": "play", "card": "blue-3"}}
    assert len(GAME.legal_moves(state, 2)) == 2
    chosen = act(state, 2, "play", card="blue-9")[0]
    assert set(chosen) == set(forced[0]) == PLAYED_KEYS


ASKED_CASES = [
    # (case, hands, lead's card, the seats whose play of the first trick is their own move)
    (
        "last cards: hand sizes are public, all three plays are automatic",
        [["blue-5"], ["blue-3"], ["blue-9"]],
        [],
        True,
    ),
    (
        "a single follower among two cards is hidden: asked",
        [["blue-5", "yellow-8"], ["blue-3", "green-4"], ["blue-9", "green-6"]],
        [0, 1, 2],
        False,
    ),
    (
        "a joker besides the follower is a real choice: asked",
        [["blue-5", "yellow-8"], ["blue-3", "joker-1a"], ["green-9", "green-6"]],
        [0, 1, 2],
        False,
    ),
]


@pytest.mark.parametrize(("case", "hands", "asked", "over"), ASKED_CASES, ids=[c[0] for c in ASKED_CASES])
def test_ruling_only_a_public_single_option_is_automatic(
    case: str, hands: list[list[str]], asked: list[int], over: bool
) -> None:
    """Forced decisions: a play is taken by the engine only when the hand holds one card; every other
    play, forced or not, is the seat's move (an action) and no play event carries an "auto" marker."""
    state = new(hands, tasks=NEVER)
    events = act(state, 0, "skip-passing") + act(state, 0, "keep-tasks")
    while state["round"] == 1 and not GAME.is_over(state):
        [seat] = GAME.to_move(state)
        events += GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    plays = [e for e in events if e["type"] == "card-played"]
    assert [e["seat"] for e in plays] == [0, 1, 2]
    assert all(set(e) == PLAYED_KEYS for e in plays)
    assert [a["seat"] for a in state["actions"] if a["move"]["type"] == "play"] == asked
    assert GAME.is_over(state) == over


def _shapes(events: list[dict[str, Any]]) -> list[tuple[str, Any, tuple[str, ...]]]:
    """What the shape of an event list tells: each event's type, actor and keys, up to the first
    finished trick (its winner and what follows depend on the trick's cards, which are then public)."""
    shapes = []
    for event in events:
        actor = None if event["type"] == "trick-won" else event.get("seat")
        shapes.append((event["type"], actor, tuple(sorted(event))))
        if event["type"] == "trick-won":
            break
    return shapes


def _public(state: dict[str, Any], seat: int | None) -> tuple[Any, ...]:
    view = GAME.view(state, seat)
    return (
        tuple(sorted(view)),
        view["phase"],
        view["to_move"],
        view["hand_sizes"],
        view["round"],
        view["lead"],
    )


def _twin(state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """A copy where every card hidden from `seat` (other hands, draw pile) and the task piles' order
    are reshuffled: a game `seat` and the spectators cannot tell from this one."""
    other: dict[str, Any] = json.loads(json.dumps(state))
    others = [s for s in range(3) if s != seat]
    pool = sum((other["hands"][s] for s in others), []) + other["draw"]
    rng.shuffle(pool)
    for s in others:
        size = len(other["hands"][s])
        other["hands"][s], pool = sorted(pool[:size], key=DECK.index), pool[size:]
    other["draw"] = pool
    for pile in [*other["piles"].values(), other["story"] or []]:
        rng.shuffle(pile)
    return other


@settings(max_examples=25, deadline=None)
@given(options=st.sampled_from(MODES), seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_property_ruling_a_forced_play_looks_like_a_chosen_one(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Forced decisions: what the mover and the spectators see after any move -- the events' types,
    actors and keys, the version step (one action, who is to move next) and the view's public parts --
    is the same in every game they cannot tell apart, whether the next seats are forced or free
    (until a trick is complete: its cards, winner and the next lead are then public)."""
    state = GAME.new_game(3, options, seed)
    rng = random.Random(choices)
    while not GAME.is_over(state):
        [mover] = GAME.to_move(state)
        move = rng.choice(GAME.legal_moves(state, mover))
        twin = _twin(state, mover, rng)
        events, twin_events = GAME.apply(state, mover, move), GAME.apply(twin, mover, move)
        assert len(state["actions"]) == len(twin["actions"])
        for seat in (mover, None):
            assert _shapes(_seen(state, events, seat)) == _shapes(_seen(twin, twin_events, seat))
            if not any(event["type"] == "trick-won" for event in events):
                assert _public(state, seat) == _public(twin, seat)


@settings(max_examples=25, deadline=None)
@given(options=st.sampled_from(MODES), seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_property_ruling_automatic_decisions_are_public_ones(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Forced decisions: every play or pass the engine takes itself is of a seat holding one card; every
    play event has the same keys; a seat asked with a single legal move is a forced follower."""
    state = GAME.new_game(3, options, seed)
    rng = random.Random(choices)
    while not GAME.is_over(state):
        [mover] = GAME.to_move(state)
        legal = GAME.legal_moves(state, mover)
        if len(legal) == 1:
            assert legal[0]["type"] == "play" and len(state["hands"][mover]) >= 2
        sizes = [len(hand) for hand in state["hands"]]
        events = GAME.apply(state, mover, rng.choice(legal))
        for index, event in enumerate(events):
            if event["type"] == "card-played":
                assert set(event) == PLAYED_KEYS
            if event["type"] in ("card-played", "card-passed"):
                assert index == 0 or sizes[event["seat"]] == 1, "only a last card goes automatically"
                sizes[event["seat"]] -= 1
            if event["type"] == "card-passed":
                sizes[event["to"]] += 1
            if event["type"] == "cards-drawn":
                sizes[event["seat"]] += event["count"]
