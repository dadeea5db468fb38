"""The Tricky Teams search bot's playouts: played on clones with the search API (`push`), valued by
`coins_won`."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import tricky_teams_search
from bots.tricky_teams_search import (
    Replay,
    TrickyTeamsSearch,
    candidates,
    knowledge,
    playout,
    remember,
    sample_hidden,
)
from games.tricky_teams import GAME
from games.tricky_teams.cards import coin_values
from games.tricky_teams.determinize import state_from_view
from tests.bots.test_search_knowledge import _tt_position

TT = GAME


def _root(seats: int, seed: int, steps: int) -> tuple[dict[str, Any], dict[str, Any], int] | None:
    """A sampled game for the deciding seat of a random position (None: no play decision there)."""
    state, me, memory = _tt_position(seats, seed, steps)
    if TT.is_over(state):
        return None
    view = TT.view(state, me)
    if view["legal_moves"][0]["type"] != "play":
        return None
    remember(view, memory)
    hands, face_down = sample_hidden(knowledge(view, memory), random.Random(seed))
    return view, state_from_view(view, hands, face_down), me


@settings(max_examples=30, deadline=None)
@given(seats=st.sampled_from([3, 4, 5, 6]), seed=st.integers(0, 10**6), steps=st.integers(0, 60))
def test_rule_a_playout_to_the_raid_end_values_the_coins_won_in_it(seats: int, seed: int, steps: int) -> None:
    """Property: played to the end of the raid, a playout's value is the seat's coins won from the
    candidate move on minus the others' mean: the raid's coins less the Cooks already lying out."""
    found = _root(seats, seed, steps)
    if found is None:
        return
    view, root, me = found
    value = coin_values(view["options"]["coins"])
    laid = len(view["trick"]) + 1
    for move in candidates(view, view["legal_moves"]):
        state = TT.clone(root)
        TT.push(state, me, move)
        got = playout(state, seats, me, laid, random.Random(seed), 99, TT.coins_won(root))
        assert TT.is_over(state)
        won = [
            score - sum(value[card] for card in player["cooks"])
            for score, player in zip(TT.result(state)["scores"], view["players"], strict=True)
        ]
        assert got == pytest.approx(won[me] - (sum(won) - won[me]) / (seats - 1))


@settings(max_examples=30, deadline=None)
@given(
    seats=st.sampled_from([3, 4, 5, 6]),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
    horizon=st.integers(0, 3),
)
def test_rule_a_playout_stops_when_the_trick_after_its_horizon_starts(
    seats: int, seed: int, steps: int, horizon: int
) -> None:
    """Property: a playout plays the candidate's trick and `horizon` more to the end (loot handed
    out), and stops as the next one starts -- or at the end of the raid; the root is left alone."""
    found = _root(seats, seed, steps)
    if found is None:
        return
    view, root, me = found
    before = TT.view(root, me)
    laid = len(view["trick"]) + 1
    for move in candidates(view, view["legal_moves"]):
        state = TT.clone(root)
        TT.push(state, me, move)
        start = TT.view(state, None)["trick_number"]  # after the candidate: its trick, or the next
        playout(state, seats, me, laid, random.Random(seed), horizon, TT.coins_won(root))
        if not TT.is_over(state):
            after = TT.view(state, None)
            assert after["trick_number"] == start + horizon + 1
            assert after["trick"] == [] and after["decision"] == "play"
    assert TT.view(root, me) == before


def test_search_is_reproducible_and_plays_a_listed_move() -> None:
    """The same request gets the same answer (given time for all its samples); the answer is legal."""
    state, me, memory = _tt_position(4, 12, 9)
    view = TT.view(state, me)
    message = {
        "match_id": "m",
        "seat": me,
        "view": view,
        "legal_moves": view["legal_moves"],
        "deadline_ms": 10**7,  # the sample count decides, not the clock
    }
    search = TrickyTeamsSearch(samples=6, cap_s=3600.0)
    first = search(message, dict(memory))
    assert first in view["legal_moves"]
    assert search(message, dict(memory)) == first


def _message(seed: int, steps: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A 4-seat play request with more than two candidates, its view and the seat's memory."""
    for offset in range(200):
        state, me, memory = _tt_position(4, seed + offset, steps)
        if TT.is_over(state):
            continue
        view = TT.view(state, me)
        legal = view["legal_moves"]
        if legal[0]["type"] == "play" and len(candidates(view, legal)) > 3:
            message = {"match_id": "m", "seat": me, "view": view, "legal_moves": legal, "deadline_ms": 10**7}
            return message, view, memory
    raise AssertionError("no position with a choice")


def test_replays_give_every_candidate_the_same_random_numbers_then_fresh_ones() -> None:
    """Common random numbers: the replays of one sample's draws agree as far as the draws go; past
    them each takes fresh numbers from the search's generator."""
    rng = random.Random(7)
    draws = [rng.random() for _ in range(3)]
    first, second = Replay(draws, rng), Replay(draws, rng)
    assert [first.random() for _ in range(3)] == draws == [second.random() for _ in range(3)]
    assert first.random() != second.random()


def test_search_spends_one_playout_per_candidate_and_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """With or without common random numbers the search draws `samples` deals and plays one
    playout per candidate on each (the same budget); it answers a legal move, the same every time."""
    message, view, memory = _message(5, 6)
    counts = {"samples": 0, "playouts": 0}
    real_sample, real_playout = tricky_teams_search.sample_hidden, tricky_teams_search.playout

    def counted_sample(*args: Any, **kwargs: Any) -> Any:
        counts["samples"] += 1
        return real_sample(*args, **kwargs)

    def counted_playout(*args: Any, **kwargs: Any) -> Any:
        counts["playouts"] += 1
        return real_playout(*args, **kwargs)

    monkeypatch.setattr(tricky_teams_search, "sample_hidden", counted_sample)
    monkeypatch.setattr(tricky_teams_search, "playout", counted_playout)
    n = len(candidates(view, view["legal_moves"]))
    for crn in (False, True):
        counts.update(samples=0, playouts=0)
        search = TrickyTeamsSearch(samples=12, cap_s=3600.0, crn=crn)
        first = search(message, dict(memory))
        assert counts == {"samples": 12, "playouts": 12 * n}
        assert first in view["legal_moves"]
        assert search(message, dict(memory)) == first


def test_search_stops_at_its_think_budget() -> None:
    """However many samples it may take, the search answers within its share of the deadline (a
    sample's overshoot and the machine's load allowed for)."""
    message, view, memory = _message(5, 6)
    message = {**message, "deadline_ms": 200}  # THINK_SHARE of it: 50 ms
    started = time.monotonic()
    move = TrickyTeamsSearch(samples=10**6)(message, dict(memory))
    assert time.monotonic() - started < 1.0
    assert move in view["legal_moves"]
