"""Scoring tricks: team strengths, ties, Peasants, Cooks, loot distribution, Thief, Strategist, the next lead.

Each row: (rule id, hands, moves, expectations).  Expectation keys are fields of the last scored
trick (`winning_team`, `strengths` (a subset), `winners` (pick order), `loot`, `thief`, ...) or of
the state: `phase`, `turn`, `leader`, `piles` (seat -> sorted loot pile), `cooks` (seat -> cooks).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.tricky_teams import GAME
from tests.games.test_tricky_teams_support import new, of_type, pad, piles, run

STATE_KEYS = {"phase", "turn", "leader", "piles", "cooks", "scores"}

BASIC = ["0 red-5", "1 blue-6", "2 red-10", "3 blue-8"]
COOK_HANDS = [["red-3", "green-4"], ["blue-5", "red-9"], ["red-10", "yellow-9"], ["blue-6", "green-5"]]
COOK_MOVES = [
    "0 red-3",
    "1 blue-5",
    "2 red-10",
    "3 blue-6",
    "2 take blue-6",
    "2 yellow-9",
    "3 green-5",
    "0 green-4",
    "1 red-9",
]
PEASANT_COOK_HANDS = [
    ["red-3", "red-1"],
    ["blue-5", "blue-1"],
    ["red-10", "yellow-9"],
    ["green-6", "yellow-3"],
]
PEASANT_COOK_MOVES = [
    "0 red-3",
    "1 blue-5",
    "2 red-10",
    "3 green-6",
    "2 take blue-5",
    "2 yellow-9",
    "3 yellow-3",
    "0 red-1",
    "1 blue-1",
]
FOUR_SINGLE = [["red-5"], ["blue-6"], ["red-10"], ["blue-8"]]

TRICKS: list[tuple[str, list[list[str]], list[str], dict[str, Any]]] = [
    (
        "ruling_5_team_strength_is_sum_and_strongest_team_wins",
        FOUR_SINGLE,
        BASIC,
        {
            "winning_team": "red",
            "strengths": {"red": 15, "blue": 14},
            "winners": [2, 0],
            "loot": ["blue-6", "blue-8"],
            "phase": "take-loot",
            "turn": 2,
        },
    ),
    (
        "ruling_8_strongest_card_picks_first_then_own_cards",
        FOUR_SINGLE,
        [*BASIC, "2 take blue-8"],
        {"piles": {0: ["blue-6", "red-5"], 2: ["blue-8", "red-10"], 1: [], 3: []}},
    ),
    (
        "ruling_10_strongest_card_of_winning_team_leads",
        [["red-5", "red-6"], ["blue-6", "blue-5"], ["red-10", "red-9"], ["blue-8", "blue-10"]],
        [*BASIC, "2 take blue-8"],
        {"next_leader": 2, "leader": 2, "turn": 2, "phase": "play"},
    ),
    (
        "ruling_7_tie_goes_to_first_to_reach_the_value",
        [["blue-6"], ["red-10"], ["blue-4"], ["green-8"]],
        ["0 blue-6", "1 red-10", "2 blue-4", "3 green-8"],
        {"strengths": {"blue": 10, "red": 10}, "winning_team": "red", "winners": [1]},
    ),
    (
        "ruling_7_tie_leading_team_reached_first",
        [["blue-10"], ["red-6"], ["red-4"], ["green-8"]],
        ["0 blue-10", "1 red-6", "2 red-4", "3 green-8"],
        {"strengths": {"blue": 10, "red": 10}, "winning_team": "blue", "winners": [0]},
    ),
    (
        "ruling_7_tie_with_cook_strength_goes_to_first_to_reach",
        [["red-3", "green-8"], ["blue-5", "yellow-9"], ["red-9", "red-2"], ["blue-6", "blue-3"]],
        ["0 red-3", "1 blue-5", "2 red-9", "3 blue-6", "2 take blue-6", "2 lead 0"]
        + ["0 green-8", "1 yellow-9", "2 red-2", "3 blue-3"],
        {"strengths": {"green": 9, "yellow": 9}, "winning_team": "green", "winners": [0], "phase": "over"},
    ),
    (
        "ruling_7_face_down_cards_count_in_play_order",
        [["red-7"], ["blue-10"], ["red-3"], ["green-2"]],
        ["0 red-7", "1 blue-10", "2 red-3", "3 green-2"],
        {"strengths": {"red": 10, "blue": 10}, "winning_team": "blue", "winners": [1]},
    ),
    (
        "ruling_24_colour_team_with_a_peasant_wins_and_the_1_is_a_member",
        [["red-1"], ["blue-5"], ["red-9"], ["blue-3"]],
        ["0 red-1", "1 blue-5", "2 red-9", "3 blue-3", "2 take blue-5"],
        {
            "strengths": {"red": 10, "blue": 8, "peasants": 1},
            "winning_team": "red",
            "winners": [2, 0],
            "loot": ["blue-5", "blue-3"],
            "piles": {0: ["blue-3", "red-1"], 2: ["blue-5", "red-9"], 1: [], 3: []},
        },
    ),
    (
        "ruling_15_lone_peasant_wins_a_tie_its_colour_team_would_lose",
        [["red-3", "red-1"], ["blue-2", "flag-0"], ["red-10", "green-2"]],
        ["0 red-3", "1 blue-2", "2 red-10", "2 green-2", "0 red-1", "1 flag-0"],
        {
            "strengths": {"green": 2, "red": 2, "peasants": 2},
            "winning_team": "peasants",
            "winners": [0],
            "piles": {0: ["flag-0", "green-2", "red-1", "red-3"]},
        },
    ),
    (
        "sole_winner_takes_all_loot_automatically",
        [["red-10"], ["blue-5"], ["green-6"], ["yellow-8"]],
        ["0 red-10", "1 blue-5", "2 green-6", "3 yellow-8"],
        {"winners": [0], "piles": {0: ["blue-5", "green-6", "red-10", "yellow-8"]}},
    ),
    (
        "ruling_6_peasants_line_up_side_by_side",
        [["red-1"], ["blue-1"], ["green-10"], ["yellow-8"]],
        ["0 red-1", "1 blue-1", "2 green-10", "3 yellow-8"],
        {
            "strengths": {"red": 1, "blue": 1, "green": 10, "yellow": 8, "peasants": 11},
            "winning_team": "peasants",
            "winners": [1, 0],
            "loot": ["green-10", "yellow-8"],
            "turn": 1,
        },
    ),
    (
        "ruling_6_last_peasant_played_is_strongest_and_leads",
        [["red-1", "red-5"], ["blue-1", "blue-5"], ["green-10", "green-5"], ["yellow-8", "yellow-5"]],
        ["0 red-1", "1 blue-1", "2 green-10", "3 yellow-8", "1 take green-10"],
        {"next_leader": 1, "leader": 1, "piles": {1: ["blue-1", "green-10"], 0: ["red-1", "yellow-8"]}},
    ),
    (
        "ruling_6_peasants_win_ties",
        [["red-1"], ["blue-1"], ["yellow-5"], ["yellow-6"]],
        ["0 red-1", "1 blue-1", "2 yellow-5", "3 yellow-6"],
        {"strengths": {"yellow": 11, "peasants": 11}, "winning_team": "peasants", "winners": [1, 0]},
    ),
    (
        "ruling_6_peasants_take_their_colour_mates_as_loot",
        [["red-1"], ["blue-1"], ["red-10"], ["yellow-5"]],
        ["0 red-1", "1 blue-1", "2 red-10", "3 yellow-5"],
        {
            "strengths": {"red": 11, "peasants": 11},
            "winning_team": "peasants",
            "loot": ["red-10", "yellow-5"],
        },
    ),
    (
        "lone_peasant_is_a_peasant_team",
        [["red-1"], ["flag-0"], ["flag-0"]],
        ["0 red-1", "1 flag-0", "2 flag-0"],
        {
            "strengths": {"red": 1, "peasants": 1},
            "winning_team": "peasants",
            "piles": {0: ["flag-0", "flag-0", "red-1"]},
        },
    ),
    (
        "ruling_6_peasants_lose_to_a_stronger_team",
        [["red-1"], ["blue-1"], ["green-10"], ["green-5"]],
        ["0 red-1", "1 blue-1", "2 green-10", "3 green-5"],
        {"winning_team": "green", "winners": [2, 3], "loot": ["red-1", "blue-1"]},
    ),
    (
        "ruling_6_four_peasants_make_1111",
        [["red-1"], ["blue-1"], ["green-1"], ["yellow-1"]],
        ["0 red-1", "1 blue-1", "2 green-1", "3 yellow-1"],
        {"extra": 1, "strengths": {"peasants": 1111}, "winners": [3, 2, 1, 0], "loot": [], "leader": 3},
    ),
    (
        "ruling_8_thief_takes_all_the_loot_and_leads",
        [["red-2"], ["blue-5"], ["red-10"], ["blue-6"]],
        ["0 red-2", "1 blue-5", "2 red-10", "3 blue-6"],
        {
            "extra": 1,
            "thief": 0,
            "next_leader": 0,
            "piles": {0: ["blue-5", "blue-6", "red-2"], 2: ["red-10"]},
        },
    ),
    (
        "special_case_2_thief_leads_with_nothing_to_steal",
        [["red-2"], ["red-5"], ["red-10"], ["red-6"]],
        ["0 red-2", "1 red-5", "2 red-10", "3 red-6"],
        {"extra": 1, "loot": [], "thief": 0, "leader": 0},
    ),
    (
        "thief_in_a_weaker_team_has_no_effect",
        [["red-2"], ["blue-10"], ["red-5"], ["blue-6"]],
        ["0 red-2", "1 blue-10", "2 red-5", "3 blue-6"],
        {"winning_team": "blue", "thief": None, "winners": [1, 3], "phase": "take-loot", "turn": 1},
    ),
    (
        "special_case_2_and_9_strategist_chooses_over_thief",
        [["red-9"], ["blue-5"], ["red-2"], ["blue-6"]],
        ["0 red-9", "1 blue-5", "2 red-2", "3 blue-6"],
        {
            "extra": 1,
            "winning_team": "red",
            "thief": 2,
            "strategist": 0,
            "next_leader": None,
            "phase": "choose-leader",
            "turn": 0,
            "piles": {2: ["blue-5", "blue-6", "red-2"], 0: ["red-9"]},
        },
    ),
    (
        "ruling_10_strategist_chooses_any_seat",
        [["red-9"], ["blue-5"], ["red-2"], ["blue-6"]],
        ["0 red-9", "1 blue-5", "2 red-2", "3 blue-6", "0 lead 3"],
        {"extra": 1, "next_leader": 3, "leader": 3, "turn": 3, "phase": "play"},
    ),
    (
        "strategist_in_last_trick_of_raid_does_not_choose",
        [["red-9"], ["blue-5"], ["red-2"], ["blue-6"]],
        ["0 red-9", "1 blue-5", "2 red-2", "3 blue-6"],
        {"phase": "over", "next_leader": None},
    ),
    (
        "ruling_9_cook_lies_out_and_strengthens_later_cards",
        COOK_HANDS,
        COOK_MOVES,
        {"cooks": {0: ["red-3"]}, "strengths": {"yellow": 9, "green": 10, "red": 9}, "winning_team": "green"},
    ),
    (
        "special_case_3_equal_strength_earlier_card_picks_first",
        COOK_HANDS,
        COOK_MOVES,
        {"winners": [3, 0], "next_leader": 3, "phase": "take-loot", "turn": 3, "extra": 1},
    ),
    (
        "ruling_17_no_next_leader_while_the_raids_last_trick_hands_out_loot",
        COOK_HANDS,
        COOK_MOVES,
        {"winners": [3, 0], "next_leader": None, "phase": "take-loot", "turn": 3},
    ),
    (
        "ruling_13_cooks_join_the_loot_pile_at_raid_end",
        COOK_HANDS,
        [*COOK_MOVES, "3 take red-9"],
        {
            "phase": "over",
            "cooks": {0: []},
            "piles": {0: ["blue-5", "green-4", "red-3", "yellow-9"]},
            "scores": [5, 0, 2, 3],
        },
    ),
    (
        "special_case_1_and_3_cook_raises_peasant_team",
        PEASANT_COOK_HANDS,
        PEASANT_COOK_MOVES,
        {
            "strengths": {"yellow": 12, "red": 2, "peasants": 12},
            "winning_team": "peasants",
            "winners": [1, 0],
        },
    ),
    (
        "cook_taken_as_loot_goes_face_down_onto_pile",
        PEASANT_COOK_HANDS,
        [*PEASANT_COOK_MOVES, "1 take yellow-3"],
        {"cooks": {1: []}, "piles": {1: ["blue-1", "yellow-3"]}},
    ),
    (
        "ruling_8_loot_goes_round_after_round",
        [["red-10"], ["blue-5"], ["red-6"], ["green-5"], ["yellow-5"]],
        ["0 red-10", "1 blue-5", "2 red-6", "3 green-5", "4 yellow-5", "0 take green-5", "2 take blue-5"],
        {"winners": [0, 2], "piles": {0: ["green-5", "red-10", "yellow-5"], 2: ["blue-5", "red-6"]}},
    ),
    (
        "ruling_8_flags_are_loot",
        [["red-5"], ["flag-0"], ["red-6"]],
        ["0 red-5", "1 flag-0", "2 red-6"],
        {
            "strengths": {"red": 11},
            "loot": ["flag-0"],
            "piles": {2: ["flag-0", "red-6"], 0: ["red-5"], 1: []},
        },
    ),
    (
        "identical_flags_left_are_taken_automatically",
        [["red-10"], ["flag-0"], ["red-5"], ["flag-0"], ["red-6"], ["blue-5"]],
        ["0 red-10", "1 flag-0", "2 red-5", "3 flag-0", "4 red-6", "5 blue-5", "0 take blue-5"],
        {
            "winners": [0, 4, 2],
            "piles": {0: ["blue-5", "red-10"], 4: ["flag-0", "red-6"], 2: ["flag-0", "red-5"]},
        },
    ),
    (
        "ruling_12_face_down_thief_keeps_her_ability",
        [["red-7"], ["red-2"], ["blue-5"], ["blue-3"]],
        ["0 red-7", "1 red-2", "2 blue-5", "3 blue-3"],
        {
            "extra": 1,
            "winning_team": "red",
            "thief": 1,
            "leader": 1,
            "piles": {1: ["blue-3", "blue-5", "red-2"], 0: ["red-7"]},
        },
    ),
]


def _check(state: dict[str, Any], expected: dict[str, Any]) -> None:
    last = state["last_trick"]
    for key, want in expected.items():
        if key == "piles":
            assert {s: sorted(piles(state, "loot")[s]) for s in want} == want
        elif key == "cooks":
            assert {s: piles(state, "cooks")[s] for s in want} == want
        elif key == "scores":
            assert GAME.result(state)["scores"] == want
        elif key in STATE_KEYS:
            assert state[key] == want, key
        elif key == "strengths":
            assert {t: last["strengths"].get(t) for t in want} == want
        else:
            assert last[key] == want, key


@pytest.mark.parametrize(
    ("hands", "moves", "expected"),
    [pytest.param(h, m, e, id=rule) for rule, h, m, e in TRICKS],
)
def test_trick_scoring(hands: list[list[str]], moves: list[str], expected: dict[str, Any]) -> None:
    """The scored trick and the state after it match the rule."""
    state = new(pad(hands, moves, expected.get("extra", 0)))
    run(state, moves)
    _check(state, {k: v for k, v in expected.items() if k != "extra"})


def test_ruling_12_face_down_cards_are_revealed_when_the_trick_is_scored() -> None:
    """The trick-won event and the last trick show every face-down card."""
    state = new([["red-7"], ["blue-5"], ["green-2"], ["yellow-10"]])
    events = run(state, ["0 red-7", "1 blue-5", "2 green-2", "3 yellow-10"])
    won = of_type(events, "trick-won")[0]
    assert [p["card"] for p in won["plays"]] == ["red-7", "blue-5", "green-2", "yellow-10"]
    assert [p["face_down"] for p in won["plays"]] == [False, True, True, True]
    assert GAME.view(state, None)["last_trick"]["plays"][1]["card"] == "blue-5"


def test_loot_choice_lists_each_distinct_card_once() -> None:
    """A pick offers every distinct loot card; the two identical flags are one move."""
    state = new([["red-10"], ["flag-0"], ["red-5"], ["flag-0"], ["red-6"], ["blue-5"]])
    run(state, ["0 red-10", "1 flag-0", "2 red-5", "3 flag-0", "4 red-6", "5 blue-5"])
    assert GAME.legal_moves(state, 0) == [
        {"type": "take-loot", "card": "blue-5"},
        {"type": "take-loot", "card": "flag-0"},
    ]
    assert GAME.view(state, 0)["pending_loot"] == {
        "cards": ["blue-5", "flag-0", "flag-0"],
        "order": [0, 4, 2],
        "next": 0,
    }
