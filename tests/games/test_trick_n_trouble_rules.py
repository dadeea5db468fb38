"""Scenario tests: one per rule of the rulebook and per ruling of issue 3, with explicit deals."""

from __future__ import annotations

from typing import Any

import pytest

from games.base import GameError, redact_event
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import builtin_deck, card_table, colour_sums
from games.trick_n_trouble.scoring import trick_winner
from games.trick_n_trouble.state import PlayedCard
from tests.games.test_trick_n_trouble_support import (
    DECK,
    SMALL_DECK,
    act,
    fillers,
    new,
    plays,
    task,
    to_play,
)

TABLE = card_table(("blue", "green", "yellow"))
# Tasks nobody can fulfil: for scenarios about everything but scoring.
NEVER = [
    task(f"n{i}", level, 1, "At least 99 {0}", {"colour": 0, "min": 99})
    for i, level in enumerate([1, 1, 1, 1, 2, 2, 3, 3])
]


def test_setup_deals_five_each_and_flips_three_level1_one_level2_one_level3() -> None:
    """Setup: 5 cards per hand, the other 12 form the draw pile, face-up tasks 3/1/1 by level."""
    state = GAME.new_game(3)
    assert [len(hand) for hand in state["hands"]] == [5, 5, 5]
    assert len(state["draw"]) == 12
    assert sorted(sum(state["hands"], []) + state["draw"]) == sorted(DECK)
    levels = {t["id"]: t["level"] for t in builtin_deck()}
    assert [levels[t] for t in state["face_up"]] == [1, 1, 1, 2, 3]
    assert {level: len(pile) for level, pile in state["piles"].items()} == {"1": 6, "2": 8, "3": 8}


def test_deck_has_27_distinct_cards_with_three_distinct_joker_ids() -> None:
    """Cards: 7 per colour (3..9), three double-colour 2s and three jokers with distinct ids."""
    assert len(DECK) == len(set(DECK)) == 27
    assert [c for c in DECK if c.startswith("joker")] == ["joker-1a", "joker-1b", "joker-1c"]
    assert [c for c in DECK if c.endswith("-2")] == ["blue-green-2", "blue-yellow-2", "green-yellow-2"]
    assert [c for c in DECK if c.startswith("blue-") and c.count("-") == 1] == [
        f"blue-{n}" for n in range(3, 10)
    ]


def test_colour_names_option_renames_card_ids_and_task_texts() -> None:
    """Other editions: card ids and task texts follow the `colours` option."""
    state = GAME.new_game(3, {"colours": ["red", "white", "black"]}, seed=4)
    cards = sum(state["hands"], []) + state["draw"]
    assert "red-3" in cards and "red-white-2" in cards and "joker-1c" in cards
    raw = {t["id"]: t["text"] for t in builtin_deck()}
    for shown in GAME.view(state, 0)["tasks"]:
        assert shown["text"] == raw[shown["id"]].format("red", "white", "black")
        assert "blue" not in shown["text"] and "{" not in shown["text"]


def test_seed_none_means_seed_zero_and_seeds_are_deterministic() -> None:
    """Determinism: the same seed gives the same game; no seed is seed 0."""
    assert GAME.new_game(3) == GAME.new_game(3, seed=0)
    assert GAME.new_game(3, seed=5) == GAME.new_game(3, seed=5)
    assert GAME.new_game(3, seed=5)["hands"] != GAME.new_game(3, seed=6)["hands"]


def test_first_lead_player_is_the_first_leader_option() -> None:
    """Setup: the most recent delivery notification (option first_leader) leads first."""
    state = GAME.new_game(3, {"first_leader": 2})
    assert state["lead"] == 2 and GAME.to_move(state) == [2]
    assert GAME.legal_moves(state, 2) == [{"type": "start-passing"}, {"type": "skip-passing"}]


# --------------------------------------------------------------------------- phase 1: fill up tasks


def _round_one_fulfils_a1_and_b1() -> dict[str, Any]:
    state = new([["blue-9", "green-5"], ["blue-8", "green-6"], ["blue-7", "yellow-6"]])
    to_play(state)
    plays(state, "blue-9", "blue-8", "blue-7")
    return state


def test_phase1_fill_up_tasks_is_skipped_in_the_first_round() -> None:
    """Phase 1 is skipped in round 1: the game opens with five tasks and the pass decision."""
    state = new([["blue-9"], ["blue-8"], ["blue-7"]])
    assert len(state["face_up"]) == 5 and state["phase"] == "pass-decision"


def test_ruling2_lead_player_chooses_the_level_of_each_task_drawn() -> None:
    """Ruling 2: after a trick, the (new) lead player picks a level for every task drawn."""
    state = _round_one_fulfils_a1_and_b1()
    assert state["face_up"] == ["a2", "a3", "c1"]
    assert state["phase"] == "choose-task-level" and GAME.to_move(state) == [0]
    assert GAME.legal_moves(state, 0) == [{"type": "choose-task-level", "level": n} for n in (1, 2, 3)]
    act(state, 0, "choose-task-level", level=3)
    act(state, 0, "choose-task-level", level=1)
    assert state["face_up"] == ["a2", "a3", "c1", "c2", "a4"]
    assert state["phase"] == "pass-decision"


def test_ruling2_an_empty_level_cannot_be_chosen() -> None:
    """Ruling 2: once a level's pile is empty it is not offered and choosing it is illegal."""
    state = _round_one_fulfils_a1_and_b1()
    act(state, 0, "choose-task-level", level=3)
    assert GAME.legal_moves(state, 0) == [{"type": "choose-task-level", "level": n} for n in (1, 2)]
    with pytest.raises(GameError) as error:
        act(state, 0, "choose-task-level", level=3)
    assert error.value.code == "illegal_move" and "empty" in error.value.message


def test_single_remaining_level_is_drawn_automatically_and_filling_stops_when_piles_run_out() -> None:
    """Auto-resolve: one possible level is drawn without asking; with no tasks left fewer than 5 lie up."""
    deck = [t for t in SMALL_DECK if t["id"] in {"a1", "a2", "a3", "a4", "b1", "c1"}]
    state = new(
        [["blue-9", "green-5"], ["blue-8", "green-6"], ["blue-7", "yellow-6"]],
        tasks=deck,
        piles={"1": ["a1", "a2", "a3", "a4"], "2": ["b1"], "3": ["c1"]},
    )
    to_play(state)
    events = plays(state, "blue-9", "blue-8", "blue-7")
    drawn = [e for e in events if e["type"] == "task-drawn"]
    assert drawn == [{"type": "task-drawn", "task": "a4", "level": 1, "auto": True}]
    assert state["face_up"] == ["a2", "a3", "c1", "a4"] and state["phase"] == "pass-decision"


def test_ruling2_story_mode_fills_from_the_top_of_the_single_stacked_pile() -> None:
    """Ruling 2 / story mode: new tasks come from the top of the single pile, no level to choose."""
    state = new([["blue-9", "green-5"], ["blue-8", "green-6"], ["blue-7", "yellow-6"]], story=True)
    assert state["piles"] == {"1": [], "2": [], "3": []} and state["story"] == ["a4", "b2", "c2"]
    to_play(state)
    events = plays(state, "blue-9", "blue-8", "blue-7")
    drawn = [(e["task"], e["auto"]) for e in events if e["type"] == "task-drawn"]
    assert drawn == [("a4", True), ("b2", True)]
    assert state["face_up"] == ["a2", "a3", "c1", "a4", "b2"] and state["story"] == ["c2"]


STACK_SEEDS = [0, 1, 7, 123, 2**31 - 1]


@pytest.mark.parametrize("seed", STACK_SEEDS)
def test_ruling_story_mode_stacks_the_piles_level_1_on_top(seed: int) -> None:
    """Story mode: after the setup the three task piles are stacked, not shuffled -- the story pile is
    the seed's level-1 pile on top of its level-2 pile on top of its level-3 pile."""
    normal = GAME.new_game(3, seed=seed)
    story = GAME.new_game(3, {"story": True}, seed=seed)
    assert story["face_up"] == normal["face_up"] and story["hands"] == normal["hands"]
    assert story["story"] == normal["piles"]["1"] + normal["piles"]["2"] + normal["piles"]["3"]
    levels = {t["id"]: t["level"] for t in builtin_deck()}
    assert [levels[t] for t in story["story"]] == [1] * 6 + [2] * 8 + [3] * 8


# --------------------------------------------------------------------------- phase 2: fill up hand


def test_ruling3_hands_fill_up_to_five_from_the_lead_player_clockwise() -> None:
    """Ruling 3: the lead player draws first, then clockwise, each up to five cards."""
    hands = [
        ["blue-3", "green-3", "green-4", "green-5"],
        ["blue-9", "green-6", "green-7", "green-8"],
        ["blue-4", "yellow-3", "yellow-4", "yellow-5"],
    ]
    draw = ["yellow-6", "yellow-7", "yellow-8", "yellow-9", "blue-5", "blue-6"]
    state = new(hands, draw, tasks=NEVER, piles=None)
    to_play(state)
    events = plays(state, "blue-3", "blue-9", "blue-4")
    assert state["lead"] == 1
    drawn = [(e["seat"], e["private"]["cards"]) for e in events if e["type"] == "cards-drawn"]
    assert drawn == [(1, ["yellow-6", "yellow-7"]), (2, ["yellow-8", "yellow-9"]), (0, ["blue-5", "blue-6"])]
    assert [len(hand) for hand in state["hands"]] == [5, 5, 5] and state["draw"] == []


def test_phase2_is_skipped_once_the_draw_pile_is_empty() -> None:
    """Phase 2: with the draw pile empty nobody draws; hands shrink by one card per round."""
    state = new([["blue-3", "green-3"], ["blue-9", "green-6"], ["blue-4", "yellow-3"]], tasks=NEVER)
    to_play(state)
    events = plays(state, "blue-3", "blue-9", "blue-4")
    assert not [e for e in events if e["type"] == "cards-drawn"]
    assert [len(hand) for hand in state["hands"]] == [1, 1, 1]


def test_drawn_cards_are_private_to_the_drawing_seat() -> None:
    """Events: drawn cards sit under `private` for the drawing seat only."""
    state = GAME.new_game(3, seed=3)
    events: list[dict[str, Any]] = []
    while state["round"] == 1:
        seat = GAME.to_move(state)[0]
        events += GAME.apply(state, seat, GAME.legal_moves(state, seat)[-1])
    drawn = [e for e in events if e["type"] == "cards-drawn"]
    assert len(drawn) == 3
    for event in drawn:
        other = (event["seat"] + 1) % 3
        assert "private" not in redact_event(event, other)
        assert redact_event(event, event["seat"])["private"]["cards"]


# --------------------------------------------------------------------------- phase 3: pass card


def _three_card_game() -> dict[str, Any]:
    return new(
        [
            ["blue-3", "blue-4", "blue-5"],
            ["green-3", "green-4", "green-5"],
            ["yellow-3", "yellow-4", "yellow-5"],
        ],
        tasks=NEVER,
    )


def test_ruling1_passing_goes_left_and_the_last_player_passes_back_to_the_lead() -> None:
    """Ruling 1: lead passes to the next seat clockwise, each passes on, the last gives to the lead."""
    state = _three_card_game()
    act(state, 0, "start-passing")
    assert GAME.to_move(state) == [0] and state["phase"] == "pass-card"
    act(state, 0, "pass-card", card="blue-3")
    assert GAME.to_move(state) == [1] and "blue-3" in state["hands"][1]
    act(state, 1, "pass-card", card="green-5")
    act(state, 2, "pass-card", card="yellow-4")
    assert state["hands"] == [
        ["blue-4", "blue-5", "yellow-4"],
        ["blue-3", "green-3", "green-4"],
        ["green-5", "yellow-3", "yellow-5"],
    ]
    assert state["phase"] == "switch-task" and GAME.to_move(state) == [0]
    views = [GAME.view(state, seat) for seat in range(3)]
    assert [(v["passed"], v["received"]) for v in views] == [
        ("blue-3", "yellow-4"),
        ("green-5", "blue-3"),
        ("yellow-4", "green-5"),
    ]


def test_ruling1_a_player_may_pass_on_the_card_just_received() -> None:
    """Ruling 1: the card you just got may be the one you pass."""
    state = _three_card_game()
    act(state, 0, "start-passing")
    act(state, 0, "pass-card", card="blue-3")
    assert {"type": "pass-card", "card": "blue-3"} in GAME.legal_moves(state, 1)
    act(state, 1, "pass-card", card="blue-3")
    assert "blue-3" in state["hands"][2]


def test_ruling1_only_the_lead_player_decides_whether_the_round_passes() -> None:
    """Ruling 1: whether to pass is the lead's decision; skipping means nobody passes."""
    state = _three_card_game()
    assert GAME.legal_moves(state, 1) == []
    with pytest.raises(GameError) as error:
        act(state, 1, "start-passing")
    assert error.value.code == "not_your_turn"
    act(state, 0, "skip-passing")
    assert state["passing"] is False and state["passed"] == [None, None, None]
    assert state["phase"] == "switch-task"


def test_passed_card_is_private_to_giver_and_receiver() -> None:
    """Events: a passed card is visible to the two seats involved only."""
    state = _three_card_game()
    act(state, 0, "start-passing")
    [event] = act(state, 0, "pass-card", card="blue-3")
    assert event["private"] == {"seats": [0, 1], "card": "blue-3"}
    assert "blue-3" not in str(redact_event(event, 2)) and "blue-3" not in str(redact_event(event, None))
    assert GAME.view(state, 2)["received"] is None


def test_passing_the_only_card_in_hand_is_automatic() -> None:
    """Auto-resolve: with one card in hand, passing it needs no decision (the receiver then has two)."""
    state = new([["blue-3"], ["green-3"], ["yellow-3"]], tasks=NEVER)
    events = act(state, 0, "start-passing")
    assert [e["auto"] for e in events if e["type"] == "card-passed"] == [True]
    assert GAME.legal_moves(state, 1) == [{"type": "pass-card", "card": c} for c in ("blue-3", "green-3")]


# --------------------------------------------------------------------------- phase 4: switch task


def test_ruling2_switching_puts_the_task_under_its_pile_and_draws_any_level() -> None:
    """Ruling 2: the switched task goes to the bottom of its level's pile; the lead draws any level."""
    state = _three_card_game_small()
    act(state, 0, "skip-passing")
    levels = [m["level"] for m in GAME.legal_moves(state, 0) if m.get("task") == "a1"]
    assert levels == [1, 2, 3]
    act(state, 0, "switch-task", task="a1", level=3)
    assert state["face_up"] == ["a2", "a3", "b1", "c1", "c2"]
    assert state["piles"] == {"1": ["a4", "a1"], "2": ["b2"], "3": []}
    assert state["phase"] == "play"


def test_ruling2_switching_cannot_draw_from_an_empty_level() -> None:
    """Ruling 2: an empty level is not offered for the replacement either."""
    state = _three_card_game_small()
    act(state, 0, "skip-passing")
    act(state, 0, "switch-task", task="a1", level=3)
    to_play_round(state)
    assert {m.get("level") for m in GAME.legal_moves(state, state["lead"]) if m.get("task") == "a2"} == {1, 2}


def test_ruling2_story_mode_switch_uses_the_single_pile_without_a_level() -> None:
    """Ruling 2 / story mode: the task goes under the single pile and its top is drawn."""
    state = new([["blue-3", "blue-4"], ["green-3", "green-4"], ["yellow-3", "yellow-4"]], story=True)
    act(state, 0, "skip-passing")
    assert {"type": "switch-task", "task": "a1"} in GAME.legal_moves(state, 0)
    with pytest.raises(GameError) as error:
        act(state, 0, "switch-task", task="a1", level=1)
    assert error.value.code == "illegal_move"
    act(state, 0, "switch-task", task="a1")
    assert state["face_up"] == ["a2", "a3", "b1", "c1", "a4"] and state["story"] == ["b2", "c2", "a1"]


SWITCH_CASES = [
    # (case, tasks left in the piles after the setup, story mode, sources a switch may draw from)
    ("every pile holds a task", ["a4", "b2", "c2"], False, [1, 2, 3]),
    ("a pile empty before the put-back is no choice, even the task's own", ["a4", "b2"], False, [1, 2]),
    ("the own pile holding a task is a choice: its top comes, not the task", ["c2"], False, [3]),
    ("every pile empty: no switch is offered", [], False, []),
    ("story pile holding a task: switch, no level", ["a4"], True, [None]),
    ("story pile empty: no switch is offered", [], True, []),
]


@pytest.mark.parametrize(
    ("case", "extra", "story", "sources"), SWITCH_CASES, ids=[c[0] for c in SWITCH_CASES]
)
def test_ruling_switching_never_hands_back_the_switched_task(
    case: str, extra: list[str], story: bool, sources: list[int | None]
) -> None:
    """Switching to an empty pile: a pile counts as it is before the switched task goes under it; a
    level (story: the single pile) is offered only if it then holds a task, so the replacement is always
    a new task; with nothing to draw no switch is offered and keeping is automatic (public: pile sizes)."""
    deck = [t for t in SMALL_DECK if t["id"] in {"a1", "a2", "a3", "b1", "c1", *extra}]
    piles = {str(n): [t["id"] for t in deck if t["level"] == n] for n in (1, 2, 3)}  # face-up ones on top
    state = new(
        [["blue-3", "blue-4"], ["green-3", "green-4"], ["yellow-3", "yellow-4"]],
        piles=piles,
        tasks=deck,
        story=story,
    )
    events = act(state, 0, "skip-passing")
    if not sources:
        assert state["phase"] == "play" and {"type": "tasks-kept", "seat": 0, "auto": True} in events
        return
    legal = GAME.legal_moves(state, 0)
    for task_id in state["face_up"]:
        offered = [m for m in legal if m["type"] == "switch-task" and m["task"] == task_id]
        assert [m.get("level") for m in offered] == sources
        for move in offered:
            trial = GAME.replay(state["header"], state["actions"])
            [switched, drawn] = GAME.apply(trial, 0, move)
            assert switched == {"type": "task-switched", "task": task_id}
            assert drawn["task"] != task_id and drawn["task"] in extra and task_id not in trial["face_up"]
    for level in sorted({1, 2, 3} - {s for s in sources if s is not None}) if not story else []:
        with pytest.raises(GameError) as error:
            act(state, 0, "switch-task", task="c1", level=level)
        assert error.value.code == "illegal_move" and "must be a new task" in error.value.message


def test_keeping_the_tasks_changes_nothing() -> None:
    """Phase 4 is optional: keep-tasks goes straight to the trick."""
    state = _three_card_game_small()
    act(state, 0, "skip-passing")
    before = list(state["face_up"])
    act(state, 0, "keep-tasks")
    assert state["face_up"] == before and state["phase"] == "play"


def test_expert_mode_skips_phase4_switch_task() -> None:
    """Expert mode: phase 4 is always skipped."""
    state = new([["blue-3", "blue-4"], ["green-3", "green-4"], ["yellow-3", "yellow-4"]], expert=True)
    act(state, 0, "skip-passing")
    assert state["phase"] == "play"
    assert all(m["type"] == "play" for m in GAME.legal_moves(state, 0))


def _three_card_game_small() -> dict[str, Any]:
    return new(
        [
            ["blue-3", "blue-4", "green-9"],
            ["green-3", "green-4", "blue-9"],
            ["yellow-3", "yellow-4", "yellow-9"],
        ]
    )


def to_play_round(state: dict[str, Any]) -> None:
    """Play one trick by always choosing the first legal card, then stop at the next decision."""
    to_play(state)
    start = state["round"]
    while state["round"] == start and not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        act(state, seat, "play", card=GAME.legal_moves(state, seat)[0]["card"])
    while state["phase"] == "choose-task-level":
        act(
            state,
            state["turn"],
            "choose-task-level",
            level=GAME.legal_moves(state, state["turn"])[0]["level"],
        )
    if state["phase"] == "pass-decision":
        act(state, state["turn"], "skip-passing")


# --------------------------------------------------------------------------- phase 5: play trick

FOLLOW_CASES = [
    ("single lead: follow with its colour", "blue-5", ["blue-3", "blue-9", "green-4"], ["blue-3", "blue-9"]),
    (
        "single lead: a 2 carrying the colour follows",
        "blue-5",
        ["blue-green-2", "blue-yellow-2", "green-4"],
        ["blue-green-2", "blue-yellow-2"],
    ),
    (
        "single lead: a joker may always be played",
        "blue-5",
        ["blue-3", "green-4", "joker-1a"],
        ["blue-3", "joker-1a"],
    ),
    (
        "single lead: holding a joker never obliges",
        "blue-5",
        ["green-4", "yellow-6", "joker-1a"],
        ["green-4", "yellow-6", "joker-1a"],
    ),
    (
        "single lead: nothing to follow, any card",
        "blue-5",
        ["green-4", "yellow-6", "green-yellow-2"],
        ["green-4", "yellow-6", "green-yellow-2"],
    ),
    (
        "2 lead: either of its colours follows",
        "blue-green-2",
        ["blue-3", "green-4", "yellow-6"],
        ["blue-3", "green-4"],
    ),
    (
        "2 lead: any other 2 counts as following",
        "blue-green-2",
        ["yellow-6", "blue-yellow-2", "green-yellow-2"],
        ["blue-yellow-2", "green-yellow-2"],
    ),
    (
        "joker lead frees everyone",
        "joker-1a",
        ["blue-3", "green-4", "yellow-6"],
        ["blue-3", "green-4", "yellow-6"],
    ),
]


@pytest.mark.parametrize(("case", "lead", "hand", "legal"), FOLLOW_CASES, ids=[c[0] for c in FOLLOW_CASES])
def test_ruling4_following(case: str, lead: str, hand: list[str], legal: list[str]) -> None:
    """Ruling 4: who must follow with what, 2s and jokers included."""
    used = [lead, *hand]
    spare = fillers(used, 5)
    state = new([[lead, *spare[:2]], hand, spare[2:5]], tasks=NEVER)
    to_play(state)
    act(state, 0, "play", card=lead)
    assert sorted(m["card"] for m in GAME.legal_moves(state, 1)) == sorted(legal)


def test_ruling4_a_player_who_must_follow_cannot_play_another_colour() -> None:
    """Ruling 4: an off-colour card is an illegal move while you can follow."""
    state = new(
        [
            ["blue-5", "yellow-8", "yellow-9"],
            ["blue-3", "blue-9", "green-4"],
            ["green-5", "green-6", "green-7"],
        ],
        tasks=NEVER,
    )
    to_play(state)
    act(state, 0, "play", card="blue-5")
    with pytest.raises(GameError) as error:
        act(state, 1, "play", card="green-4")
    assert error.value.code == "illegal_move" and "follow" in error.value.message


def test_ruling_a_forced_single_follow_is_the_seats_own_move() -> None:
    """Forced decisions: a player whose hand allows one card (and holds more) is still asked."""
    state = new([["blue-5", "yellow-8"], ["blue-3", "green-4"], ["green-5", "green-6"]], tasks=NEVER)
    to_play(state)
    events = act(state, 0, "play", card="blue-5")
    assert events == [{"type": "card-played", "seat": 0, "card": "blue-5", "round": 1}]
    assert GAME.to_move(state) == [1] and GAME.legal_moves(state, 1) == [{"type": "play", "card": "blue-3"}]
    assert act(state, 1, "play", card="blue-3") == [
        {"type": "card-played", "seat": 1, "card": "blue-3", "round": 1}
    ]
    assert GAME.to_move(state) == [2]


WINNER_CASES = [
    ("highest card of the lead colour", ["blue-5", "blue-9", "blue-7"], 1),
    ("higher cards of other colours don't count", ["blue-5", "green-9", "yellow-8"], 0),
    ("a card of either colour of a 2 lead counts", ["blue-green-2", "green-3", "yellow-9"], 1),
    ("tie between 2s goes to the earlier card", ["blue-green-2", "green-yellow-2", "blue-yellow-2"], 0),
    ("after a joker lead every card qualifies", ["joker-1a", "green-4", "yellow-6"], 2),
    ("a joker carries the lead colour but ranks 1", ["blue-3", "joker-1a", "blue-green-2"], 0),
    ("tie between jokers goes to the earlier card", ["joker-1a", "joker-1b", "joker-1c"], 0),
    ("a 2 beats a joker lead", ["joker-1a", "joker-1b", "blue-green-2"], 2),
]


@pytest.mark.parametrize(("case", "cards", "winner"), WINNER_CASES, ids=[c[0] for c in WINNER_CASES])
def test_ruling5_trick_winner(case: str, cards: list[str], winner: int) -> None:
    """Ruling 5: highest card carrying a lead colour wins (any card after a joker lead); ties: earlier."""
    trick: list[PlayedCard] = [{"seat": seat, "card": card} for seat, card in enumerate(cards)]
    assert trick_winner(trick, TABLE) == winner


def test_ruling5_the_trick_winner_leads_the_next_round() -> None:
    """Ruling 5: the winner becomes lead player (first decision of the next round is theirs)."""
    state = new(
        [["blue-3", "green-3"], ["blue-9", "green-6"], ["blue-4", "yellow-3"]], tasks=NEVER, first_leader=0
    )
    to_play(state)
    plays(state, "blue-3", "blue-9", "blue-4")
    assert state["lead"] == 1 and state["round"] == 2
    assert GAME.to_move(state) == [1] and state["phase"] == "pass-decision"


# --------------------------------------------------------------------------- phase 6: fulfil tasks

SUM_CASES = [
    ("single cards add to their colour", ["blue-5", "blue-9", "green-4"], [14, 4, 0]),
    ("a 2 adds its value to both colours", ["blue-5", "blue-green-2", "yellow-3"], [7, 2, 3]),
    ("a joker adds 1 to all three colours", ["blue-5", "joker-1a", "green-9"], [6, 10, 1]),
    ("three jokers", ["joker-1a", "joker-1b", "joker-1c"], [3, 3, 3]),
    ("three 2s", ["blue-green-2", "blue-yellow-2", "green-yellow-2"], [4, 4, 4]),
]


@pytest.mark.parametrize(("case", "cards", "sums"), SUM_CASES, ids=[c[0] for c in SUM_CASES])
def test_ruling6_colour_sums(case: str, cards: list[str], sums: list[int]) -> None:
    """Ruling 6: a 2 counts for both its colours, a joker for all three."""
    assert colour_sums(cards, TABLE) == sums


def test_ruling6_the_same_sums_fulfil_several_tasks_and_score_their_points() -> None:
    """Ruling 6: every face-up task met by the trick is fulfilled, over-fulfilling included."""
    state = new([["blue-9", "yellow-8"], ["blue-8", "yellow-7"], ["green-3", "yellow-9"]])
    to_play(state)
    events = plays(state, "blue-9", "blue-8", "green-3")
    [won] = [e for e in events if e["type"] == "trick-won"]
    assert won["sums"] == [17, 3, 0] and won["fulfilled"] == ["a1", "b1", "c1"] and won["points"] == 9
    assert state["points"] == 9 and [f["task"] for f in state["fulfilled"]] == ["a1", "b1", "c1"]
    assert state["face_up"] == ["a2", "a3"]


def test_ruling6_over_fulfilling_a_task_fulfils_it() -> None:
    """Ruling 6: "collect each task that you can fulfil (or over-fulfil)": 7 green fulfil "at least 3"."""
    state = new([["blue-9", "yellow-8"], ["green-4", "yellow-7"], ["green-3", "yellow-9"]])
    to_play(state)
    events = plays(state, "blue-9", "green-4", "green-3")
    [won] = [e for e in events if e["type"] == "trick-won"]
    assert won["sums"] == [9, 7, 0] and won["fulfilled"] == ["a1", "a2", "c1"]


def test_phase6_played_cards_go_face_up_on_the_discard_pile() -> None:
    """Phase 6: the trick's cards lie on the discard pile, which every view shows."""
    state = new([["blue-3", "green-3"], ["blue-9", "green-6"], ["blue-4", "yellow-3"]], tasks=NEVER)
    to_play(state)
    plays(state, "blue-3", "blue-9", "blue-4")
    for seat in (0, 1, 2, None):
        assert GAME.view(state, seat)["discard"] == ["blue-3", "blue-9", "blue-4"]
        assert GAME.view(state, seat)["tricks"] == [
            [{"seat": 0, "card": "blue-3"}, {"seat": 1, "card": "blue-9"}, {"seat": 2, "card": "blue-4"}]
        ]


def test_ruling7_expert_mode_tricks_leave_the_game_face_down() -> None:
    """Ruling 7: in expert mode no view shows a played trick afterwards (until the game is over)."""
    state = new(
        [["blue-3", "green-3"], ["blue-9", "green-6"], ["blue-4", "yellow-3"]], tasks=NEVER, expert=True
    )
    act(state, 0, "skip-passing")
    plays(state, "blue-3", "blue-9", "blue-4")
    for seat in (0, 1, 2, None):
        view = GAME.view(state, seat)
        assert view["discard"] is None and view["tricks"] is None
        assert not {"blue-3", "blue-9", "blue-4"} & set(str(view).replace("'", " ").split())
    act(state, 1, "skip-passing")
    plays(state, "green-6", "yellow-3", "green-3")
    assert GAME.is_over(state)
    assert len(GAME.view(state, 0)["tricks"]) == 2


# --------------------------------------------------------------------------- end of game and result


def test_game_ends_after_the_ninth_round_with_all_cards_played() -> None:
    """End of game: after round 9 every card has been played."""
    state = GAME.new_game(3, seed=11)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    assert state["round"] == 9 and state["hands"] == [[], [], []] and len(state["discard"]) == 27
    assert GAME.to_move(state) == [] and GAME.legal_moves(state, 0) == []
    with pytest.raises(GameError) as error:
        GAME.apply(state, 0, {"type": "skip-passing"})
    assert error.value.code == "game_over"


def test_game_goes_on_while_the_draw_pile_can_refill_empty_hands() -> None:
    """End of game: empty hands end the game only once the draw pile is empty too."""
    hands = [["blue-3"], ["blue-9"], ["blue-4"]]
    state = new(hands, fillers(sum(hands, []), 15), tasks=NEVER)
    to_play(state)
    plays(state, "blue-3", "blue-9", "blue-4")
    assert not GAME.is_over(state) and state["round"] == 2
    assert [len(hand) for hand in state["hands"]] == [5, 5, 5] and state["draw"] == []


POINT_BAND_CASES = [
    (0, "A good effort but the World is lost now!", False),
    (19, "A good effort but the World is lost now!", False),
    (20, "There may still be hope - do better next time!", False),
    (29, "There may still be hope - do better next time!", False),
    (30, "Fallen at the final hurdle?! It's only a matter of time before you succeed!", False),
    (39, "Fallen at the final hurdle?! It's only a matter of time before you succeed!", False),
    (40, "Huzzah! You did it! But has the Doc gone forever?", True),
    (49, "Huzzah! You did it! But has the Doc gone forever?", True),
    (50, "The world can live in peace. You made it.", True),
]


@pytest.mark.parametrize(("points", "band", "won"), POINT_BAND_CASES)
def test_result_point_bands_and_the_40_point_threshold(points: int, band: str, won: bool) -> None:
    """End of game: the rulebook's point bands; the team wins with at least 40 points."""
    state = GAME.new_game(3)
    state["points"] = points
    result = GAME.result(state)
    assert result["band"] == band and result["scores"] == [points] * 3
    assert result["winners"] == ([0, 1, 2] if won else [])


STORY_BAND_CASES = [
    (9, "A good effort but the World is lost now!", False),
    (10, "There may still be hope - do better next time!", False),
    (15, "Fallen at the final hurdle?! It's only a matter of time before you succeed!", False),
    (18, "Fallen at the final hurdle?! It's only a matter of time before you succeed!", False),
    (19, "Huzzah! You did it! But has the Doc gone forever?", True),
    (23, "The world can live in peace. You made it.", True),
    (26, "The world can live in peace. You made it.", True),
    (27, "Did you use a game guide?", True),
]


@pytest.mark.parametrize(("count", "band", "won"), STORY_BAND_CASES)
def test_story_mode_only_the_number_of_fulfilled_tasks_counts(count: int, band: str, won: bool) -> None:
    """Story mode: the result is the task count, with the story bands; 19 tasks ('You did it') win."""
    state = GAME.new_game(3, {"story": True})
    state["fulfilled"] = [{"task": "x", "round": 1}] * count
    state["points"] = 99
    result = GAME.result(state)
    assert result["band"] == band and result["scores"] == [count] * 3 and result["tasks_fulfilled"] == count
    assert result["winners"] == ([0, 1, 2] if won else [])


def test_threshold_option_sets_the_points_needed_to_win() -> None:
    """Options: the win threshold (default 40) is configurable."""
    state = GAME.new_game(3, {"threshold": 10})
    state["points"] = 10
    assert GAME.result(state)["winners"] == [0, 1, 2]
    state["points"] = 9
    assert GAME.result(state)["winners"] == []


# --------------------------------------------------------------------------- moves and errors

MALFORMED = [
    None,
    "play",
    {"type": 3},
    {"type": "dance"},
    {"type": "play"},
    {"type": "play", "card": "blue-10"},
    {"type": "play", "card": "blue-3", "extra": 1},
    {"type": "choose-task-level", "level": 4},
    {"type": "choose-task-level", "level": True},
    {"type": "choose-task-level", "level": 1.0},
    {"type": "play", "card": ["blue-3"]},
    {"type": ["play"], "card": "blue-3"},
    {"type": "switch-task", "task": "nope", "level": 1},
    {"type": "pass-card", "card": 7},
    {"type": "skip-passing", "card": "blue-3"},
]


@pytest.mark.parametrize("move", MALFORMED, ids=[str(m) for m in MALFORMED])
def test_malformed_moves_are_rejected_as_malformed(move: object) -> None:
    """Errors: a move that is not a well-formed move of the game is MalformedMove."""
    state = GAME.new_game(3)
    with pytest.raises(GameError) as error:
        GAME.apply(state, 0, move)  # type: ignore[arg-type]
    assert error.value.code == "malformed_move"
    assert state["actions"] == []


def test_listed_moves_are_shared_immutable_values_and_recorded_as_such() -> None:
    """Moves: `legal_moves` lists the game's own immutable move values (a fresh list each time); a
    plain dict equal to one is accepted and the action list records the listed value."""
    state = GAME.new_game(3, seed=7)
    seat = GAME.to_move(state)[0]
    first, second = GAME.legal_moves(state, seat), GAME.legal_moves(state, seat)
    assert first == second and first is not second
    assert all(a is b for a, b in zip(first, second, strict=True))
    with pytest.raises(TypeError, match="immutable"):
        first[0]["type"] = "play"
    GAME.apply(state, seat, dict(first[1]))
    assert state["actions"][-1]["move"] is first[1]


def test_a_bad_seat_is_malformed_and_a_wrong_seat_is_not_your_turn() -> None:
    """Errors: seat outside 0..2 is malformed; a real seat that has no decision gets not-your-turn."""
    state = GAME.new_game(3)
    with pytest.raises(GameError) as error:
        GAME.apply(state, 3, {"type": "skip-passing"})
    assert error.value.code == "malformed_move"
    with pytest.raises(GameError) as error:
        GAME.apply(state, 2, {"type": "skip-passing"})
    assert error.value.code == "not_your_turn"


def test_illegal_moves_say_why() -> None:
    """Errors: well-formed but not allowed now is IllegalMove with a reason and the legal moves."""
    state = GAME.new_game(3, seed=2)
    card = state["hands"][0][0]
    with pytest.raises(GameError) as error:
        GAME.apply(state, 0, {"type": "play", "card": card})
    assert error.value.code == "illegal_move" and "pass-decision" in error.value.message
    assert error.value.details["legal_moves"] == GAME.legal_moves(state, 0)
    GAME.apply(state, 0, {"type": "start-passing"})
    other = state["hands"][1][0]
    with pytest.raises(GameError) as error:
        GAME.apply(state, 0, {"type": "pass-card", "card": other})
    assert error.value.code == "illegal_move" and "not in your hand" in error.value.message


def test_legal_moves_are_exactly_what_apply_accepts() -> None:
    """Moves: every listed move applies on a copy of the state; nothing else does."""
    state = GAME.new_game(3, seed=9)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        for move in legal:
            GAME.apply(GAME.replay(state["header"], state["actions"]), seat, move)
        GAME.apply(state, seat, legal[len(legal) // 2])


# --------------------------------------------------------------------------- views


def test_view_shows_what_the_seat_may_know() -> None:
    """Views: own hand, hand sizes, face-up tasks with text/condition, pile sizes, decision, moves."""
    state = GAME.new_game(3, seed=1)
    view = GAME.view(state, 0)
    assert view["hand"] == state["hands"][0] and view["hand_sizes"] == [5, 5, 5]
    assert [t["id"] for t in view["tasks"]] == state["face_up"]
    assert {"id", "level", "points", "text", "condition"} == set(view["tasks"][0])
    assert "{" not in " ".join(t["text"] for t in view["tasks"])
    assert view["task_piles"] == {"levels": {"1": 6, "2": 8, "3": 8}, "story": None}
    assert view["draw_pile"] == 12 and view["round"] == 1 and view["phase"] == "pass-decision"
    assert view["to_move"] == [0] and view["legal_moves"] == GAME.legal_moves(state, 0)
    assert view["result"] is None and "hands" not in view


def test_spectator_view_has_no_hand_and_no_moves() -> None:
    """Views: a spectator sees no hand, no passed cards and has no moves."""
    view = GAME.view(GAME.new_game(3), None)
    assert view["hand"] is None and view["passed"] is None and view["legal_moves"] == []


def test_story_view_shows_the_single_pile_size() -> None:
    """Views / story mode: the task piles are one pile of the 22 tasks not face up."""
    view = GAME.view(GAME.new_game(3, {"story": True}), 1)
    assert view["task_piles"] == {"levels": {"1": 0, "2": 0, "3": 0}, "story": 22}
