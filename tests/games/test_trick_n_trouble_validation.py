"""Bad options, bad replacement task decks and bad explicit deals are rejected with clear reasons."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import GameError, InvalidDeal, InvalidOptions
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import builtin_deck
from tests.games.test_trick_n_trouble_support import DECK, SMALL_DECK, task


def test_shipped_deck_has_nine_tasks_per_level_with_points_rising_by_level() -> None:
    """Task deck: 27 tasks, 9 per level, every level-2 task worth more than every level-1 task, etc."""
    deck = builtin_deck()
    assert len(deck) == 27 and len({t["id"] for t in deck}) == 27
    by_level = {level: [t["points"] for t in deck if t["level"] == level] for level in (1, 2, 3)}
    assert [len(points) for points in by_level.values()] == [9, 9, 9]
    assert max(by_level[1]) < min(by_level[2]) and max(by_level[2]) < min(by_level[3])
    GAME.new_game(3, {"tasks": deck})


def test_options_default_and_schema() -> None:
    """Options: defaults are normal mode, 40 points, blue/green/yellow, shipped deck, seat 0 leads."""
    assert GAME.default_options(3) == {
        "expert": False,
        "story": False,
        "threshold": 40,
        "story_threshold": 19,
        "colours": ["blue", "green", "yellow"],
        "tasks": None,
        "first_leader": 0,
    }
    schema = GAME.options_schema()
    assert set(schema["properties"]) == set(GAME.default_options(3))
    assert GAME.seat_counts == (3,) and GAME.name == "trick-n-trouble"


def test_ruling_options_schema_clauses_have_only_a_minimum() -> None:
    """Over-fulfilling: the options schema of a replacement task's clause knows `colour` and `min` only
    (`min` required, nothing else allowed), like the validation that refuses a `max`."""
    tasks = GAME.options_schema()["properties"]["tasks"]["oneOf"][1]["items"]
    clause = tasks["properties"]["condition"]["items"]
    assert set(clause["properties"]) == {"colour", "min"} and clause["required"] == ["colour", "min"]
    assert (
        clause["additionalProperties"] is False and "over-fulfilling always counts" in clause["description"]
    )


BAD_OPTIONS = [
    ({"expert": "yes"}, "expert must be true or false"),
    ({"story": 1}, "story must be true or false"),
    ({"threshold": -1}, "threshold must be a non-negative integer"),
    ({"threshold": 4.5}, "threshold must be a non-negative integer"),
    ({"colours": ["red", "white"]}, "three colour names"),
    ({"colours": ["red", "red", "blue"]}, "distinct"),
    ({"colours": ["Red", "white", "blue"]}, "lowercase"),
    ({"colours": ["joker", "white", "blue"]}, "other than 'joker'"),
    ({"colours": ["red-ish", "white", "blue"]}, "lowercase"),
    ({"first_leader": 3}, "first_leader"),
    ({"speed": 2}, "unknown options ['speed']"),
]


@pytest.mark.parametrize(("options", "reason"), BAD_OPTIONS, ids=[r for _, r in BAD_OPTIONS])
def test_bad_options_are_rejected_with_a_clear_reason(options: dict[str, Any], reason: str) -> None:
    """Options: each bad value is InvalidOptions naming the problem."""
    with pytest.raises(InvalidOptions, match=None) as error:
        GAME.new_game(3, options)
    assert reason in error.value.message


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_trick_n_trouble_is_for_three_seats_only(seats: int) -> None:
    """Seats: the game is played by exactly 3."""
    with pytest.raises(InvalidOptions, match="exactly 3"):
        GAME.new_game(seats)


def _with(index: int, **changes: Any) -> list[dict[str, Any]]:
    deck = [dict(t) for t in SMALL_DECK]
    deck[index].update(changes)
    return deck


BAD_DECKS = [
    ("not a list", {"id": "x"}, "tasks must be a list of at most 100"),
    ("not an object", ["x", *SMALL_DECK], "tasks[0]: a task must be an object"),
    (
        "missing key",
        [{k: v for k, v in SMALL_DECK[0].items() if k != "points"}, *SMALL_DECK[1:]],
        "a task has exactly the keys",
    ),
    ("bad id", _with(0, id="Bad Id"), "id must be"),
    ("duplicate ids", _with(1, id="a1"), "duplicate ids ['a1']"),
    ("level 4", _with(0, level=4), "level must be 1, 2 or 3"),
    ("negative points", _with(0, points=-1), "points must be a non-negative integer"),
    ("bad placeholder", _with(0, text="At least 5 {3}"), "placeholders"),
    ("format spec", _with(0, text="{0:>100000000}"), "placeholders"),
    ("stray brace", _with(0, text="At least 5 {0"), "placeholders"),
    ("text too long", _with(0, text="x" * 201), "1 to 200 characters"),
    ("too many clauses", _with(0, condition=[{"colour": 0, "min": 1}] * 7), "1 to 6 clauses"),
    ("too many tasks", SMALL_DECK * 13, "at most 100 task objects"),
    ("empty condition", _with(0, condition=[]), "condition must be a list of 1 to 6 clauses"),
    ("bad colour", _with(0, condition=[{"colour": "red", "min": 1}]), "colour must be 0, 1, 2"),
    ("colour 3", _with(0, condition=[{"colour": 3, "min": 1}]), "colour must be 0, 1, 2"),
    ("no min", _with(0, condition=[{"colour": 0}]), "a clause needs 'min'"),
    ("negative min", _with(0, condition=[{"colour": 0, "min": -2}]), "'min' must be a non-negative integer"),
    ("boolean min", _with(0, condition=[{"colour": 0, "min": True}]), "'min' must be a non-negative integer"),
    (
        "an upper bound",
        _with(0, condition=[{"colour": 1, "max": 0}]),
        "'max' is not allowed: over-fulfilling",
    ),
    (
        "exactly",
        _with(6, condition=[{"colour": 1, "min": 3, "max": 3}]),
        "task 'c1' clause 0: 'max' is not allowed",
    ),
    ("unknown clause key", _with(0, condition=[{"colour": 0, "min": 5, "at": 1}]), "unknown clause keys"),
    (
        "too few level-1 tasks",
        [t for t in SMALL_DECK if t["id"] not in ("a1", "a2")],
        "setup flips 3 task(s) of level 1, the deck has 2",
    ),
    ("no level-3 task", [t for t in SMALL_DECK if t["level"] != 3], "setup flips 1 task(s) of level 3"),
]


@pytest.mark.parametrize(("case", "deck", "reason"), BAD_DECKS, ids=[c[0] for c in BAD_DECKS])
def test_bad_replacement_deck_is_rejected_with_a_clear_reason(case: str, deck: Any, reason: str) -> None:
    """Task deck option: a bad replacement deck is InvalidOptions saying what is wrong."""
    with pytest.raises(InvalidOptions) as error:
        GAME.new_game(3, {"tasks": deck})
    assert reason in error.value.message


def test_a_replacement_deck_is_used_for_the_game() -> None:
    """Task deck option: a valid replacement deck supplies the face-up tasks and the piles."""
    deck = [*SMALL_DECK, task("a5", 1, 2, "At least 3 in two colours", {"colour": "two", "min": 3})]
    state = GAME.new_game(3, {"tasks": deck}, seed=3)
    assert set(state["face_up"]) | {t for pile in state["piles"].values() for t in pile} == {
        t["id"] for t in deck
    }


FULL_HANDS = [DECK[0:5], DECK[5:10], DECK[10:15]]
BAD_DEALS = [
    ("not an object", ["x"], "a deal must be an object"),
    ("unknown key", {"hands": FULL_HANDS, "jokers": 3}, "unknown deal keys ['jokers']"),
    ("two hands", {"hands": FULL_HANDS[:2]}, "one list of cards per seat"),
    ("unequal hands", {"hands": [DECK[0:5], DECK[5:10], DECK[10:14]]}, "same size"),
    ("six cards", {"hands": [DECK[0:6], DECK[6:12], DECK[12:18]]}, "same size, 1 to 5"),
    ("empty hands", {"hands": [[], [], []]}, "same size, 1 to 5"),
    (
        "unknown card",
        {"hands": [DECK[0:4] + ["blue-10"], DECK[5:10], DECK[10:15]]},
        "unknown cards ['blue-10']",
    ),
    ("card twice", {"hands": [DECK[0:5], DECK[4:9], DECK[10:15]]}, "more than once: ['blue-7']"),
    ("card in hand and draw", {"hands": FULL_HANDS, "draw": DECK[14:26]}, "more than once"),
    ("draw runs out mid-fill", {"hands": FULL_HANDS, "draw": DECK[15:17]}, "runs out while filling"),
    ("draw without hands", {"draw": DECK[15:]}, "needs 'hands'"),
    ("task pile incomplete", {"tasks": {"1": ["l1-1"]}}, "must list each level-1 task once"),
    ("unknown level", {"tasks": {"4": []}}, "levels '1', '2', '3'"),
    ("story order", {"story": []}, "deal 'story' is not accepted: story mode stacks the level piles"),
]


@pytest.mark.parametrize(("case", "deal", "reason"), BAD_DEALS, ids=[c[0] for c in BAD_DEALS])
def test_bad_deals_are_rejected_with_a_clear_reason(case: str, deal: Any, reason: str) -> None:
    """Explicit deals: each bad deal is InvalidDeal naming the problem."""
    with pytest.raises(InvalidDeal) as error:
        GAME.new_game(3, deal=deal)
    assert reason in error.value.message


def test_ruling_story_pile_order_comes_from_the_level_piles_of_the_deal() -> None:
    """Explicit deals / story mode: the story pile is the stack of the deal's level piles (level 1 on
    top); a separate 'story' order is refused -- even one equal to that stack -- saying to use 'tasks'."""
    piles = {
        str(level): [t["id"] for t in builtin_deck() if t["level"] == level][::-1] for level in (1, 2, 3)
    }
    state = GAME.new_game(3, {"story": True}, deal={"tasks": piles})
    assert state["story"] == piles["1"][3:] + piles["2"][1:] + piles["3"][1:]
    for options in ({"story": True}, {}):
        with pytest.raises(InvalidDeal, match="give the order of the story pile with deal 'tasks'"):
            GAME.new_game(3, options, deal={"tasks": piles, "story": state["story"]})


def test_a_full_explicit_deal_fixes_hands_draw_pile_and_task_piles() -> None:
    """Explicit deals: hands, draw pile order and every task pile's order are used as given."""
    piles = {
        str(level): [t["id"] for t in builtin_deck() if t["level"] == level][::-1] for level in (1, 2, 3)
    }
    state = GAME.new_game(3, deal={"hands": FULL_HANDS, "draw": DECK[15:][::-1], "tasks": piles}, seed=8)
    assert state["hands"] == FULL_HANDS and state["draw"] == DECK[15:][::-1]
    assert state["face_up"] == piles["1"][:3] + [piles["2"][0], piles["3"][0]]
    assert state["piles"] == {"1": piles["1"][3:], "2": piles["2"][1:], "3": piles["3"][1:]}
    assert GAME.replay(state["header"], []) == state


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=12) | st.sampled_from(DECK),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
option_values: st.SearchStrategy[dict[str, Any]] = st.just({}) | st.dictionaries(
    st.sampled_from(sorted(GAME.default_options(3))), json_values, max_size=4
)
deal_values = st.none() | st.dictionaries(
    st.sampled_from(["hands", "draw", "tasks", "story", "x"]), json_values
)
move_values = json_values | st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "pass-card", "choose-task-level", "switch-task", "keep-tasks"])},
    optional={"card": json_values, "level": json_values, "task": json_values, "extra": json_values},
)


@settings(max_examples=80, deadline=None)
@given(options=option_values, deal=deal_values, seed=st.integers() | st.none(), moves=st.lists(move_values))
def test_any_json_input_is_either_accepted_or_a_game_error(
    options: dict[str, Any], deal: Any, seed: int | None, moves: list[Any]
) -> None:
    """Robustness: whatever JSON the API passes in, the engine answers with a state or a GameError."""
    try:
        state = GAME.new_game(3, options, seed, deal)
    except GameError:
        return
    for move in moves:
        try:
            GAME.apply(state, GAME.to_move(state)[0], move)
        except GameError:
            pass
    assert GAME.replay(state["header"], state["actions"]) == state
