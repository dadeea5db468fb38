"""Hypothesis properties over random Trick 'n Trouble games in every mode."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.trick_n_trouble import GAME
from tests.games.test_trick_n_trouble_support import DECK, MODES, strings

modes = st.sampled_from(MODES)
seeds = st.integers(min_value=0, max_value=2**31)
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None)


def _cards_in_play(state: dict[str, Any]) -> list[str]:
    trick = [played["card"] for played in state["trick"]]
    cards: list[str] = sum(state["hands"], []) + state["draw"] + trick + state["discard"]
    return cards


def _visible_cards(state: dict[str, Any], seat: int | None) -> set[str]:
    """The cards `seat` may see now: own hand and passes, the trick, the discard unless expert."""
    visible = {played["card"] for played in state["trick"]}
    if not state["header"]["options"]["expert"]:
        visible |= set(state["discard"])
    if seat is not None:
        visible |= set(state["hands"][seat]) | {state["passed"][seat], state["received"][seat]} - {None}
    return visible


def _visible_tasks(state: dict[str, Any]) -> set[str]:
    return set(state["face_up"]) | {entry["task"] for entry in state["fulfilled"]}


def _random_walk(options: dict[str, Any], seed: int, choices: int, check: Any) -> dict[str, Any]:
    """Play a random game calling `check(state, events)` after setup and after every move."""
    state = GAME.new_game(3, options, seed)
    rng = random.Random(choices)
    check(state, [])
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        assert legal, "a seat to move always has a legal move"
        check(state, GAME.apply(state, seat, rng.choice(legal)))
    return state


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds, choices=seeds)
def test_property_cards_are_conserved(options: dict[str, Any], seed: int, choices: int) -> None:
    """Cards conserved: hands, draw pile, trick and discard always hold the 27 cards once each."""

    def check(state: dict[str, Any], events: list[Any]) -> None:
        assert sorted(_cards_in_play(state)) == sorted(DECK)
        sizes = {len(hand) for hand in state["hands"]}
        assert len(sizes) == 1 or state["phase"] in ("pass-card", "play")

    final = _random_walk(options, seed, choices, check)
    assert final["round"] == 9 and len(final["discard"]) == 27


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds, choices=seeds)
def test_property_legal_moves_exist_until_the_end_and_all_apply(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Legal moves: exactly one seat is to move until the end, and every listed move applies."""

    def check(state: dict[str, Any], events: list[Any]) -> None:
        if GAME.is_over(state):
            assert GAME.to_move(state) == [] and all(GAME.legal_moves(state, s) == [] for s in range(3))
            return
        [seat] = GAME.to_move(state)
        assert all(GAME.legal_moves(state, other) == [] for other in range(3) if other != seat)
        legal = GAME.legal_moves(state, seat)
        if len(legal) == 1:  # only a play forced by a hand of two or more cards is asked
            assert legal[0]["type"] == "play" and len(state["hands"][seat]) >= 2
        for move in legal:
            trial = json.loads(json.dumps(state))
            GAME.apply(trial, seat, move)

    _random_walk(options, seed, choices, check)


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds, choices=seeds)
def test_property_replay_and_json_round_trip_reproduce_the_state(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Replay and serialization: header + actions rebuild the state; JSON round-trips it."""
    checkpoints: list[dict[str, Any]] = []

    def check(state: dict[str, Any], events: list[Any]) -> None:
        if len(state["actions"]) % 7 == 0:
            checkpoints.append(json.loads(json.dumps(state)))

    final = _random_walk(options, seed, choices, check)
    for state in [*checkpoints, final]:
        assert json.loads(json.dumps(state)) == state
        assert GAME.replay(state["header"], state["actions"]) == state
    assert final["schema"] == 1 and final["game"] == "trick-n-trouble"


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds, choices=seeds)
def test_property_no_view_or_event_leaks_a_hidden_card(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Hidden information: views and redacted events show no card or task a seat may not see."""
    deck = set(DECK)

    def check(state: dict[str, Any], events: list[dict[str, Any]]) -> None:
        if GAME.is_over(state):
            return
        hidden_tasks = {t for pile in state["piles"].values() for t in pile} | set(state["story"] or [])
        for seat in (0, 1, 2, None):
            shown = strings(GAME.view(state, seat))
            assert shown & deck <= _visible_cards(state, seat)
            assert not shown & (hidden_tasks - _visible_tasks(state))
            for event in events:
                redacted = strings(GAME.event_view(state, event, seat))
                if event["type"] not in ("card-played", "trick-won"):
                    private = event.get("private", {}).get("seats", [])
                    assert not redacted & deck or seat in private

    _random_walk(options, seed, choices, check)


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds)
def test_property_ruling7_expert_views_never_show_past_tricks(options: dict[str, Any], seed: int) -> None:
    """Ruling 7: in expert mode no view contains a card of an earlier trick before the end."""

    def check(state: dict[str, Any], events: list[Any]) -> None:
        if not state["header"]["options"]["expert"] or GAME.is_over(state):
            return
        for seat in (0, 1, 2, None):
            view = GAME.view(state, seat)
            assert view["discard"] is None and view["tricks"] is None
            past = set(state["discard"]) - (
                {state["passed"][seat], state["received"][seat]} if seat is not None else set()
            )
            assert not strings(view) & past

    _random_walk(options, seed, seed, check)


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds, choices=seeds)
def test_property_result_matches_the_fulfilled_tasks(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Result: points are the sum of fulfilled tasks' points; the score is points (story: task count)."""
    final = _random_walk(options, seed, choices, lambda state, events: None)
    result = GAME.result(final)
    view = GAME.view(final, 0)
    assert view["result"] == result
    assert result["points"] == sum(entry["task"]["points"] for entry in view["fulfilled"])
    expected = result["tasks_fulfilled"] if options.get("story") else result["points"]
    assert result["scores"] == [expected] * 3


@PROPERTY_SETTINGS
@given(
    options=modes, seed=seeds, hand_size=st.integers(min_value=1, max_value=5), order=st.permutations(DECK)
)
def test_property_explicit_deals_of_any_hand_size_play_all_27_cards(
    options: dict[str, Any], seed: int, hand_size: int, order: list[str]
) -> None:
    """Explicit deals: hands of 1-5 cards plus the rest as draw pile play out all 27 cards in 9 rounds."""
    hands = [order[i * hand_size : (i + 1) * hand_size] for i in range(3)]
    state = GAME.new_game(3, options, seed, deal={"hands": hands, "draw": order[3 * hand_size :]})
    assert [sorted(h) for h in state["hands"]] == [sorted(h) for h in hands]
    rng = random.Random(seed)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        assert sorted(_cards_in_play(state)) == sorted(DECK)
    assert state["round"] == 9 and len(state["discard"]) == 27


def _shuffle_hidden(state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """A copy where every card and task hidden from `seat` is reshuffled (sizes kept)."""
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


@PROPERTY_SETTINGS
@given(options=modes, seed=seeds, choices=seeds)
def test_property_a_view_never_changes_when_only_hidden_cards_change(
    options: dict[str, Any], seed: int, choices: int
) -> None:
    """Hidden information: reshuffling what a seat can't see (others' hands, piles) leaves its view as is."""
    rng = random.Random(choices)

    def check(state: dict[str, Any], events: list[Any]) -> None:
        if GAME.is_over(state):
            return
        for seat in range(3):
            assert GAME.view(_shuffle_hidden(state, seat, rng), seat) == GAME.view(state, seat)

    _random_walk(options, seed, choices, check)
