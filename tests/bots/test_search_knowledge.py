"""Properties of what the search bots deduce: never contradicted by the true deal, always playable."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.trick_n_trouble_search import remember as tnt_remember
from bots.trick_n_trouble_search import unseen_cards
from bots.tricky_teams_search import TrickyTeamsSearch, knowledge, remember, sample_hidden
from games.registry import get_game
from games.trick_n_trouble.cards import card_table
from games.trick_n_trouble.determinize import state_from_view as tnt_state_from_view
from games.trick_n_trouble.determinize import unknown_tasks
from games.tricky_teams.cards import TEAM, full_deck
from games.tricky_teams.determinize import state_from_view

TT = get_game("tricky-teams")
TNT = get_game("trick-n-trouble")


def _tt_position(seats: int, seed: int, steps: int) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """A random Tricky Teams position where `me` decides, with `me`'s memory fed at each of its turns."""
    rng = random.Random(seed)
    state = TT.new_game(seats, {"raids": 2}, seed=seed)
    me = rng.randrange(seats)
    memory: dict[str, Any] = {}
    for _ in range(steps):
        seat = TT.to_move(state)[0]
        if seat == me:
            remember(TT.view(state, me), memory)
        moves = TT.legal_moves(state, seat)
        TT.apply(state, seat, moves[rng.randrange(len(moves))])
        if TT.is_over(state):
            break
    while not TT.is_over(state) and TT.to_move(state)[0] != me:
        seat = TT.to_move(state)[0]
        moves = TT.legal_moves(state, seat)
        TT.apply(state, seat, moves[rng.randrange(len(moves))])
    return state, me, memory


@settings(max_examples=40, deadline=None)
@given(seats=st.sampled_from([3, 4, 5, 6]), seed=st.integers(0, 10**6), steps=st.integers(0, 60))
def test_rule_tricky_teams_deductions_never_contradict_the_deal(seats: int, seed: int, steps: int) -> None:
    """Property: inferred voids hold in the true hands, the true hidden cards lie in the pool, samples fit."""
    state, me, memory = _tt_position(seats, seed, steps)
    if TT.is_over(state):
        return
    view = TT.view(state, me)
    remember(view, memory)
    k = knowledge(view, memory)
    true_hands = [TT.view(state, seat)["hand"] for seat in range(seats)]
    for seat, teams in k.voids.items():
        if seat != me:
            assert not any(TEAM[card] in teams for card in true_hands[seat]), (seat, teams)
    hidden = Counter(c for s in range(seats) if s != me for c in true_hands[s] if not c.endswith("-8"))
    # A face-down card shows in its own player's view.
    hidden.update(
        TT.view(state, p["seat"])["trick"][i]["card"]
        for i, p in enumerate(view["trick"])
        if i in k.hidden_plays
    )
    assert not hidden - Counter(k.pool)
    hands, face_down = sample_hidden(k, random.Random(seed))
    assert [len(h) for h in hands] == [len(h) for h in true_hands]
    assert hands[me] == true_hands[me]
    dealt = Counter(c for h in hands for c in h) + Counter(face_down.values())
    assert not dealt - Counter(full_deck(seats))
    rebuilt = state_from_view(view, hands, face_down)
    assert TT.legal_moves(rebuilt, me) == view["legal_moves"]
    assert TT.view(rebuilt, me)["hand"] == view["hand"]
    copy = TT.clone(rebuilt)
    while not TT.is_over(copy):  # the rebuilt state plays to the end of the raid
        seat = TT.to_move(copy)[0]
        TT.apply(copy, seat, TT.legal_moves(copy, seat)[0])
    assert TT.view(copy, None)["raid"] == view["raid"]
    assert TT.legal_moves(rebuilt, me) == view["legal_moves"]  # the copy played, the original did not


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 70), expert=st.booleans(), story=st.booleans())
def test_rule_trick_n_trouble_unseen_cards_hold_every_hidden_card(
    seed: int, steps: int, expert: bool, story: bool
) -> None:
    """Property: the unseen pool covers the other hands and the draw pile; the rebuilt state is playable."""
    rng = random.Random(seed)
    options = {"expert": expert, "story": story}
    state = TNT.new_game(3, options, seed=seed)
    memory: dict[str, Any] = {}
    for _ in range(steps):
        if TNT.is_over(state):
            return
        seat = TNT.to_move(state)[0]
        tnt_remember(TNT.view(state, seat), memory)  # this seat's memory is the one under test
        moves = TNT.legal_moves(state, seat)
        TNT.apply(state, seat, moves[rng.randrange(len(moves))])
    if TNT.is_over(state):
        return
    me = TNT.to_move(state)[0]
    view = TNT.view(state, me)
    seen = tnt_remember(view, memory)
    table = card_table(tuple(view["options"]["colours"]))
    pool = set(unseen_cards(view, seen, table))
    hidden = {c for s in range(3) if s != me for c in state["hands"][s]} | set(state["draw"])
    assert hidden <= pool
    piles = unknown_tasks(view)
    assert piles is not None
    true_piles = {"story": state["story"]} if story else state["piles"]
    assert {k: sorted(v) for k, v in piles.items()} == {k: sorted(v) for k, v in true_piles.items()}
    rebuilt = tnt_state_from_view(view, state["hands"], state["draw"], true_piles)
    assert TNT.legal_moves(rebuilt, me) == view["legal_moves"]
    assert TNT.view(rebuilt, me)["tasks"] == view["tasks"]


@settings(max_examples=25, deadline=None)
@given(seats=st.sampled_from([3, 4, 6]), seed=st.integers(0, 10**6), steps=st.integers(0, 80))
def test_rule_search_stays_correct_after_missed_calls(seats: int, seed: int, steps: int) -> None:
    """Property: with no memory at all (every earlier call missed) the search still plays a legal move."""
    state, me, _ = _tt_position(seats, seed, steps)
    if TT.is_over(state):
        return
    view = TT.view(state, me)
    k = knowledge(view, {})
    assert len(k.pool) >= sum(k.needs.values()) + len(k.hidden_plays)
    message = {
        "match_id": "missed",
        "game": "tricky-teams",
        "seat": me,
        "view": view,
        "legal_moves": view["legal_moves"],
        "deadline_ms": 20,
        "time_bank_ms": 0,
    }
    assert TrickyTeamsSearch(samples=3)(message, {}) in view["legal_moves"]
