"""The heuristic Trick 'n Trouble player: legal, view-only, and aiming at the face-up tasks."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.trick_n_trouble_heuristic import choose
from games.trick_n_trouble import GAME
from tests.games.test_trick_n_trouble_support import MODES, act, new, to_play


@settings(max_examples=12, deadline=None)
@given(options=st.sampled_from(MODES), seed=st.integers(min_value=0, max_value=2**31))
def test_heuristic_always_picks_a_legal_move_from_the_view(options: dict[str, Any], seed: int) -> None:
    """Heuristic: every choice is one of the legal moves, made from the seat's view alone."""
    state = GAME.new_game(3, options, seed)
    rng = random.Random(seed)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        view = GAME.view(state, seat)
        move = choose(view, view["legal_moves"], rng)
        assert move in GAME.legal_moves(state, seat)
        GAME.apply(state, seat, move)


def test_heuristic_last_player_completes_the_most_valuable_tasks() -> None:
    """Heuristic: as last player it plays the card whose trick fulfils the most task points."""
    state = new([["blue-9", "yellow-3"], ["blue-5", "yellow-4"], ["green-3", "yellow-5"]])
    to_play(state)
    act(state, 0, "play", card="blue-9")
    act(state, 1, "play", card="blue-5")  # seat 1's only legal card (it is still asked)
    view = GAME.view(state, 2)
    assert [m["card"] for m in view["legal_moves"]] == ["green-3", "yellow-5"]
    # green-3: a1 + b1 + c1 ("at least 3 green") = 9 points; yellow-5: a1 + b1 + a3 = 5 points.
    assert choose(view, view["legal_moves"], random.Random(0)) == {"type": "play", "card": "green-3"}


def test_heuristic_skips_passing_and_is_deterministic_for_a_given_rng() -> None:
    """Heuristic: it keeps its cards (no blind passing) and the same view + rng seed gives the same move."""
    state = GAME.new_game(3, seed=5)
    view = GAME.view(state, 0)
    assert choose(view, view["legal_moves"], random.Random(1)) == {"type": "skip-passing"}
    act(state, 0, "skip-passing")
    view = GAME.view(state, 0)
    assert choose(view, view["legal_moves"], random.Random(1)) == choose(
        view, view["legal_moves"], random.Random(1)
    )
