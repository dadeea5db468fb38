"""The shipped task deck: over-fulfilling always counts, and story mode's 27 tasks are possible."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import InvalidOptions
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import builtin_deck, condition
from games.trick_n_trouble.options import validate_deck
from games.trick_n_trouble.scoring import task_met
from tests.games.test_trick_n_trouble_support import SMALL_DECK

# A colour's sum in one trick is at most 9 + 8 + 7 = 24.
SUM_GRID = list(itertools.product(range(25), repeat=3))
UNIT_STEPS = ([1, 0, 0], [0, 1, 0], [0, 0, 1])


@pytest.mark.parametrize("task", builtin_deck(), ids=[t["id"] for t in builtin_deck()])
def test_ruling_over_fulfilling_always_counts_for_every_shipped_task(task: dict[str, Any]) -> None:
    """Over-fulfilling (rulebook: "fulfil (or over-fulfil)"): for every trick sum vector s, if s fulfils
    the task so does s plus one in any colour -- hence every componentwise larger vector does."""
    met = condition(task)
    for sums in SUM_GRID:
        if task_met(met, list(sums)):
            for step in UNIT_STEPS:
                assert task_met(met, [a + b for a, b in zip(sums, step, strict=True)]), (task["id"], sums)
    assert any(task_met(met, list(sums)) for sums in SUM_GRID), "every shipped task can be fulfilled"


def test_ruling_shipped_tasks_ask_only_for_minimums() -> None:
    """Over-fulfilling: no shipped clause has an upper bound (the former l2-8 "no green at all" and
    l3-8 "exactly 10 yellow" are replaced by minimum-only tasks of about the same difficulty)."""
    clauses = [clause for task in builtin_deck() for clause in task["condition"]]
    assert all(set(clause) == {"colour", "min"} for clause in clauses)
    texts = {t["id"]: t["text"] for t in builtin_deck()}
    assert texts["l2-8"] == "At least 10 in one colour and at least 4 in another"
    assert texts["l3-8"] == "At least 10 {2} and at least 5 {0}"


REPLACEMENT_CASES = [
    # (task, sums, fulfilled?)
    ("l2-8", [10, 4, 0], True),
    ("l2-8", [0, 4, 12], True),
    ("l2-8", [10, 3, 3], False),
    ("l2-8", [24, 0, 0], False),
    ("l2-8", [9, 9, 9], False),
    ("l3-8", [5, 0, 10], True),
    ("l3-8", [9, 9, 17], True),
    ("l3-8", [4, 9, 17], False),
    ("l3-8", [9, 0, 9], False),
]


@pytest.mark.parametrize(("task_id", "sums", "met"), REPLACEMENT_CASES)
def test_ruling_replacement_tasks_mean_what_their_texts_say(task_id: str, sums: list[int], met: bool) -> None:
    """Over-fulfilling: l2-8 is "at least 10 in one colour and at least 4 in another", l3-8 "at least 10
    yellow and at least 5 blue" (default colours); more in any colour never undoes them."""
    [task] = [t for t in builtin_deck() if t["id"] == task_id]
    assert task_met(condition(task), sums) == met


selectors = st.sampled_from([0, 1, 2, "every", "any", "two"])
clauses = st.fixed_dictionaries(
    {"colour": selectors, "min": st.integers(0, 40)}, optional={"max": st.integers(0, 40)}
)
tasks = st.builds(
    lambda level, points, condition: {
        "id": "gen",
        "level": level,
        "points": points,
        "text": "generated",
        "condition": condition,
    },
    st.integers(1, 3),
    st.integers(0, 9),
    st.lists(clauses, min_size=1, max_size=6),
)
sums = st.lists(st.integers(0, 40), min_size=3, max_size=3)


@settings(max_examples=300, deadline=None)
@given(task=tasks, low=sums, more=sums)
def test_property_ruling_every_valid_replacement_task_is_monotone(
    task: dict[str, Any], low: list[int], more: list[int]
) -> None:
    """Over-fulfilling: a replacement task with an upper bound is refused; any task a replacement deck
    may hold (it passes validation) is monotone: if sums s fulfil it, every s' >= s does too."""
    try:
        [checked] = validate_deck([*SMALL_DECK, task])[-1:]
    except InvalidOptions as error:
        assert any("max" in clause for clause in task["condition"])
        assert "'max' is not allowed: over-fulfilling always counts" in error.message
        return
    high = [a + b for a, b in zip(low, more, strict=True)]
    assert not task_met(condition(checked), low) or task_met(condition(checked), high)


# The card each seat plays in rounds 1..9; leads go 0, 2, 2, 1, 2, 1, 2, 1, 1 (each trick's winner).
# Story mode stacks the piles, so the level-3 tasks come last: the early tricks spend small cards on
# levels 1-2 (and the face-up l3-1), the last two fulfil four and five level-3 tasks.
PLAYS = [
    [
        "blue-3",
        "blue-yellow-2",
        "yellow-4",
        "joker-1c",
        "yellow-5",
        "blue-7",
        "joker-1b",
        "yellow-9",
        "yellow-8",
    ],
    [
        "blue-6",
        "yellow-3",
        "yellow-6",
        "joker-1a",
        "green-7",
        "green-3",
        "green-9",
        "blue-5",
        "blue-9",
    ],
    [
        "blue-8",
        "blue-4",
        "green-yellow-2",
        "blue-green-2",
        "green-5",
        "green-4",
        "green-6",
        "yellow-7",
        "green-8",
    ],
]
# Who leads the rounds whose hands are filled (2..5): the order in which the draw pile is dealt.
FILL_LEADS = [2, 2, 1, 2]
# Each level's pile, top first: the first 3 / 1 / 1 are the setup's face-up tasks, the rest is
# stacked into the story pile (level 1 on top) in the order the tricks need them.
PILES = {
    "1": ["l1-1", "l1-6", "l1-9", "l1-2", "l1-5", "l1-8", "l1-3", "l1-7", "l1-4"],
    "2": ["l2-1", "l2-7", "l2-6", "l2-8", "l2-9", "l2-2", "l2-3", "l2-4", "l2-5"],
    "3": ["l3-1", "l3-2", "l3-3", "l3-5", "l3-8", "l3-4", "l3-6", "l3-7", "l3-9"],
}

FULFILLED_BY_ROUND = [
    ["l1-1", "l2-1", "l3-1"],
    ["l1-9", "l1-5"],
    ["l1-3", "l1-7"],
    ["l1-8", "l1-4", "l2-7"],
    ["l1-6", "l1-2", "l2-6", "l2-8"],
    ["l2-9", "l2-4"],
    ["l2-2", "l3-2"],
    ["l2-3", "l2-5", "l3-3", "l3-8"],
    ["l3-5", "l3-4", "l3-6", "l3-7", "l3-9"],
]


def all_tasks_deal() -> dict[str, Any]:
    """Hands hold the cards of rounds 1-5; the draw pile brings each seat its card of rounds 6-9."""
    draw = [
        PLAYS[(lead + i) % 3][round_index]
        for round_index, lead in zip(range(5, 9), FILL_LEADS, strict=True)
        for i in range(3)
    ]
    return {"hands": [plays[:5] for plays in PLAYS], "draw": draw, "tasks": PILES}


@pytest.mark.parametrize("expert", [False, True], ids=["story", "expert+story"])
def test_story_mode_all_27_tasks_are_possible(expert: bool) -> None:
    """Balance: the shipped deck lets a perfect team fulfil all 27 tasks ('Did you use a game guide?'),
    even with the piles stacked level 1 on top; every trick's fulfilled tasks are pinned."""
    state = GAME.new_game(3, {"story": True, "expert": expert}, deal=all_tasks_deal())
    levels = {task["id"]: task["level"] for task in builtin_deck()}
    assert [levels[t] for t in state["story"]] == [1] * 6 + [2] * 8 + [3] * 8
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        phase = state["phase"]
        move = {"pass-decision": {"type": "skip-passing"}, "switch-task": {"type": "keep-tasks"}}.get(
            phase, {"type": "play", "card": PLAYS[seat][state["round"] - 1]}
        )
        GAME.apply(state, seat, move)
    by_round = [[e["task"] for e in state["fulfilled"] if e["round"] == r] for r in range(1, 10)]
    assert by_round == FULFILLED_BY_ROUND
    result = GAME.result(state)
    assert result["tasks_fulfilled"] == 27 and result["band"] == "Did you use a game guide?"
    assert result["winners"] == [0, 1, 2]
