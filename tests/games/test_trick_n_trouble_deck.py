"""The shipped task deck: story mode's 27 tasks are possible (an explicit deal that fulfils all of them)."""

from __future__ import annotations

from typing import Any

import pytest

from games.trick_n_trouble import GAME
from games.trick_n_trouble.tasks import builtin_deck

# The card each seat plays in rounds 1..9; leads go 0, 0, 0, 0, 1, 2, 1, 1, 1 (each trick's winner).
PLAYS = [
    [
        "blue-9",
        "green-9",
        "yellow-9",
        "joker-1a",
        "yellow-6",
        "green-6",
        "green-yellow-2",
        "blue-4",
        "blue-5",
    ],
    [
        "blue-8",
        "green-8",
        "yellow-5",
        "blue-7",
        "joker-1b",
        "yellow-8",
        "blue-green-2",
        "green-5",
        "yellow-7",
    ],
    [
        "blue-3",
        "green-3",
        "yellow-4",
        "green-7",
        "blue-6",
        "joker-1c",
        "blue-yellow-2",
        "green-4",
        "yellow-3",
    ],
]
# Who leads the rounds whose hands are filled (2..5): the order in which the draw pile is dealt.
FILL_LEADS = [0, 0, 0, 1]
FACE_UP = {"1": ["l1-1", "l1-7", "l1-2"], "2": ["l2-1"], "3": ["l3-1"]}
STORY_PILE = [
    "l2-2",
    "l3-2",
    "l2-3",
    "l3-3",
    "l2-8",
    "l1-3",
    "l2-4",
    "l3-4",
    "l3-9",
    "l1-4",
    "l2-9",
    "l3-5",
    "l2-5",
    "l1-5",
    "l1-8",
    "l1-9",
    "l2-6",
    "l3-6",
    "l1-6",
    "l2-7",
    "l3-7",
    "l3-8",
]


def all_tasks_deal() -> dict[str, Any]:
    """Hands hold the cards of rounds 1-5; the draw pile brings each seat its card of rounds 6-9."""
    draw = [
        PLAYS[(lead + i) % 3][round_index]
        for round_index, lead in zip(range(5, 9), FILL_LEADS, strict=True)
        for i in range(3)
    ]
    piles = {}
    for level, first in FACE_UP.items():
        ids = [t["id"] for t in builtin_deck() if str(t["level"]) == level]
        piles[level] = first + [t for t in ids if t not in first]
    return {"hands": [plays[:5] for plays in PLAYS], "draw": draw, "tasks": piles, "story": STORY_PILE}


@pytest.mark.parametrize("expert", [False, True], ids=["story", "expert+story"])
def test_story_mode_all_27_tasks_are_possible(expert: bool) -> None:
    """Balance: the shipped deck lets a perfect team fulfil all 27 tasks ('Did you use a game guide?')."""
    state = GAME.new_game(3, {"story": True, "expert": expert}, deal=all_tasks_deal())
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        phase = state["phase"]
        move = {"pass-decision": {"type": "skip-passing"}, "switch-task": {"type": "keep-tasks"}}.get(
            phase, {"type": "play", "card": PLAYS[seat][state["round"] - 1]}
        )
        GAME.apply(state, seat, move)
    result = GAME.result(state)
    assert result["tasks_fulfilled"] == 27 and result["band"] == "Did you use a game guide?"
    assert result["winners"] == [0, 1, 2]
