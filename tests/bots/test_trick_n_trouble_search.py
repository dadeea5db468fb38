"""The Trick 'n Trouble search bot: legal, reproducible answers within its sample and time budget, at
every decision it searches (plays, task levels, switches), and its next-trick lookahead."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import trick_n_trouble_search as search_module
from bots.policy import Memory, Message
from bots.trick_n_trouble_search import TrickNTroubleSearch, next_trick, remember, sample_state, unseen_cards
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import card_table

SEARCHED = ("play", "choose-task-level", "keep-tasks")


def _position(seed: int, kind: str, skip: int = 0) -> tuple[Message, Memory] | None:
    """The request of the `skip`-th decision of type `kind` (a play, a level, a switch) with more than
    one option in a game of random moves, and the deciding seat's memory; None if there is none."""
    rng = random.Random(seed)
    state = GAME.new_game(3, {}, seed=seed)
    memories: list[Memory] = [{}, {}, {}]
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        view = GAME.view(state, seat)
        moves = GAME.legal_moves(state, seat)
        if len(moves) > 1 and kind in {move["type"] for move in moves}:
            if skip == 0:
                message = {"match_id": f"m{seed}", "seat": seat, "view": view, "legal_moves": moves}
                return message | {"deadline_ms": 10**7}, memories[seat]
            skip -= 1
        remember(view, memories[seat])
        GAME.apply(state, seat, moves[rng.randrange(len(moves))])
    return None


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(SEARCHED), skip=st.integers(0, 6))
def test_rule_the_search_answers_a_listed_move_the_same_every_time(seed: int, kind: str, skip: int) -> None:
    """Property: at a play, a level or a switch the answer is one of the listed moves, and the same
    request (with the same memory) gets the same answer."""
    found = _position(seed, kind, skip)
    if found is None:
        return
    message, memory = found
    search = TrickNTroubleSearch(samples=3, cap_s=3600.0)
    first = search(message, dict(memory))
    assert first in message["legal_moves"]
    assert search(message, dict(memory)) == first


@pytest.mark.parametrize("kind", SEARCHED)
def test_the_search_samples_at_most_its_budget(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`samples` caps the sampled worlds of every searched decision."""
    drawn = []

    def counting(*args: Any) -> Any:
        drawn.append(1)
        return sample_state(*args)

    monkeypatch.setattr(search_module, "sample_state", counting)
    found = next(found for seed in range(50) if (found := _position(seed, kind)) is not None)
    message, memory = found
    TrickNTroubleSearch(samples=4, cap_s=3600.0)(message, memory)
    assert 1 <= len(drawn) <= 4


@pytest.mark.parametrize("kind", SEARCHED)
def test_the_search_stops_at_its_think_clock(kind: str) -> None:
    """With a short deadline the search stops at its time budget (a quarter of the deadline) and
    still answers a listed move, also with no time for a single sample."""
    found = next(found for seed in range(50) if (found := _position(seed, kind)) is not None)
    message, memory = found
    quick = message | {"deadline_ms": 40}
    started = time.monotonic()
    move = TrickNTroubleSearch(samples=10**6)(quick, dict(memory))
    assert move in message["legal_moves"]
    assert time.monotonic() - started < 1.0  # 10 ms budget, one sample over it at most, a loaded machine
    move = TrickNTroubleSearch(samples=10**6, fraction=0.0, cap_s=0.0)(quick, dict(memory))
    assert move in message["legal_moves"]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), skip=st.integers(0, 20))
def test_rule_next_trick_is_at_most_the_tasks_it_could_fulfil(seed: int, skip: int) -> None:
    """Property: the next trick's best value in a sampled world after a play is never negative and
    never more than the points of every task it might find face up (the five best left)."""
    found = _position(seed, "play", skip)
    if found is None:
        return
    message, memory = found
    view = message["view"]
    table = card_table(tuple(view["options"]["colours"]))
    rng = random.Random(seed)
    state = sample_state(view, unseen_cards(view, remember(view, memory), table), rng)
    GAME.apply_unchecked(state, view["seat"], message["legal_moves"][0])
    while not GAME.is_over(state) and state["round"] == view["round"]:  # the others finish the trick
        seat = GAME.to_move(state)[0]
        GAME.apply_unchecked(state, seat, GAME.legal_moves(state, seat)[0])
    value = next_trick(state, table)
    assert value >= 0.0
    assert value <= 5 * 5
