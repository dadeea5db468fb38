"""Moves, events and action entries as shared immutable values (games.base.FrozenDict).

The Tricky Teams engine lists the same FrozenDict for the same move on every call and shares
its plain card-played / loot-taken events and action-list entries.  These tests pin what makes
that safe: a shared value refuses every change, equals and serialises like the plain dict, and
whatever a caller changes in the moves it was handed never reaches the game.  Events are
read-only by contract (games/base.py): they may share parts with the state.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import FrozenDict
from games.tricky_teams import GAME

MUTATIONS = [
    ("set an item", lambda d: d.__setitem__("type", "x")),
    ("delete an item", lambda d: d.__delitem__("type")),
    ("update", lambda d: d.update(card="red-1")),
    ("pop", lambda d: d.pop("type")),
    ("popitem", lambda d: d.popitem()),
    ("clear", lambda d: d.clear()),
    ("setdefault", lambda d: d.setdefault("wish", None)),
    ("merge in place", lambda d: d.__ior__({"card": "red-1"})),
]


@pytest.mark.parametrize("how, mutate", MUTATIONS, ids=[name for name, _ in MUTATIONS])
def test_frozen_dict_refuses_every_change(how: str, mutate: Any) -> None:
    """A listed move is an immutable value: every way of changing a dict raises TypeError."""
    move = FrozenDict({"type": "play", "card": "red-8"})
    with pytest.raises(TypeError, match="immutable"):
        mutate(move)
    assert move == {"type": "play", "card": "red-8"}


def test_frozen_dict_is_the_plain_dict_on_the_wire() -> None:
    """Equal to the plain dict, the same JSON through json and orjson, and a plain dict from copy()."""
    wish = FrozenDict({"type": "play", "card": "blue-4", "wish": FrozenDict({"seat": 2, "team": "red"})})
    plain = {"type": "play", "card": "blue-4", "wish": {"seat": 2, "team": "red"}}
    assert wish == plain and plain == wish
    assert json.dumps(wish) == json.dumps(plain)
    assert orjson.dumps(wish) == orjson.dumps(plain)
    changed = wish.copy()
    assert type(changed) is dict
    changed["card"] = "blue-5"
    assert wish["card"] == "blue-4"


def test_frozen_dict_copies_and_pickles_as_itself() -> None:
    """copy/deepcopy give the value itself (it cannot change); pickling round-trips to an equal FrozenDict."""
    move = FrozenDict({"type": "play", "card": "blue-4", "wish": FrozenDict({"seat": 2, "team": "red"})})
    assert copy.copy(move) is move
    assert copy.deepcopy({"m": move})["m"] is move
    again = pickle.loads(pickle.dumps(move))
    assert again == move and type(again) is FrozenDict and type(again["wish"]) is FrozenDict


def test_frozen_dict_holds_only_immutable_values() -> None:
    """A FrozenDict cannot hide a mutable part (a list or plain dict) that would make sharing unsafe."""
    with pytest.raises(TypeError, match="scalars and FrozenDicts"):
        FrozenDict({"seats": [0, 1]})
    with pytest.raises(TypeError, match="scalars and FrozenDicts"):
        FrozenDict({"wish": {"seat": 1, "team": "red"}})


def test_legal_moves_are_shared_immutable_values() -> None:
    """Tricky Teams lists the same move object on every call, and it refuses changes."""
    state = GAME.new_game(4, None, seed=7)
    seat = GAME.to_move(state)[0]
    first, second = GAME.legal_moves(state, seat), GAME.legal_moves(state, seat)
    assert first == second and first is not second  # the list is the caller's own
    assert all(a is b for a, b in zip(first, second, strict=True))
    with pytest.raises(TypeError):
        first[0]["card"] = "flag-0"
    first.clear()  # changing the list changes nothing for the next caller
    assert GAME.legal_moves(state, seat) == second


def _scribble(value: Any) -> None:
    """Change every plain dict and list in `value` (in place, recursively); frozen parts refuse and stay."""
    if isinstance(value, FrozenDict):
        for part in value.values():
            _scribble(part)
        return
    if isinstance(value, dict):
        for part in list(value.values()):
            _scribble(part)
        value["scribbled"] = True
    elif isinstance(value, list):
        for part in value:
            _scribble(part)
        value.append("scribbled")


def _play(seats: int, seed: int, scribble: bool) -> tuple[dict[str, Any], list[str]]:
    rng = random.Random(seed)
    state = GAME.new_game(seats, {"raids": 2}, seed=seed)
    log = []
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        move = moves[rng.randrange(len(moves))]
        log.append(json.dumps([move, GAME.apply(state, seat, move)], sort_keys=True))
        if scribble:
            _scribble(moves)
    return state, log


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.sampled_from([3, 4, 5, 6]), seed=st.integers(min_value=0, max_value=2**32))
def test_changing_listed_moves_never_reaches_the_game(seats: int, seed: int) -> None:
    """Shared moves are safe: a caller scribbling over every move list it gets plays the same game."""
    clean, clean_log = _play(seats, seed, scribble=False)
    scribbled, scribbled_log = _play(seats, seed, scribble=True)
    assert scribbled_log == clean_log
    assert json.dumps(scribbled, sort_keys=True) == json.dumps(clean, sort_keys=True)
    # The state, shared action entries included, still round-trips through JSON and replays.
    assert json.loads(json.dumps(scribbled)) == scribbled
    assert GAME.replay(scribbled["header"], scribbled["actions"]) == scribbled


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.sampled_from([3, 4, 5, 6]), seed=st.integers(min_value=0, max_value=2**32))
def test_an_event_handed_out_twice_is_frozen(seats: int, seed: int) -> None:
    """Events are read-only values: any event object apply returns more than once refuses changes."""
    rng = random.Random(seed)
    state = GAME.new_game(seats, {"raids": 2}, seed=seed)
    seen: dict[int, dict[str, Any]] = {}  # keeps every event alive, so ids are not reused
    shared = 0
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        for event in GAME.apply(state, seat, moves[rng.randrange(len(moves))]):
            if id(event) in seen:
                assert type(event) is FrozenDict, event
                shared += 1
            seen[id(event)] = event
    assert shared > 0  # the plain card-played and loot-taken events are shared


def test_plain_and_frozen_moves_apply_alike() -> None:
    """A move submitted as a plain dict (as JSON arrives) and as the listed FrozenDict give the same game."""
    plain_state = GAME.new_game(3, {"raids": 1}, seed=11)
    frozen_state = GAME.new_game(3, {"raids": 1}, seed=11)
    rng = random.Random(11)
    while not GAME.is_over(frozen_state):
        seat = GAME.to_move(frozen_state)[0]
        moves = GAME.legal_moves(frozen_state, seat)
        move = moves[rng.randrange(len(moves))]
        plain = json.loads(json.dumps(move))
        assert type(plain) is dict
        assert GAME.apply(plain_state, seat, plain) == GAME.apply(frozen_state, seat, move)
    assert plain_state == frozen_state


@pytest.mark.parametrize("name", ["tricky-teams", "trick-n-trouble"])
def test_a_listed_value_is_its_own_parse_and_a_foreign_one_is_parsed_in_full(name: str) -> None:
    """`apply` takes a move value the engine listed as itself (recorded as that very object); a value
    listed for a larger table (a seat this game does not have) is refused like its plain copy."""
    from games.base import GameError
    from games.registry import get_game

    game = get_game(name)
    seats = min(game.seat_counts)
    state = game.new_game(seats, seed=4)
    seat = game.to_move(state)[0]
    move = game.legal_moves(state, seat)[0]
    game.apply(state, seat, move)
    assert state["actions"][-1]["move"] is move
    if name != "tricky-teams":
        return
    big = game.new_game(
        6,
        {"raids": 1},
        seed=1,
        deal={
            "hands": [["blue-4"], ["red-1"], ["red-2"], ["red-3"], ["red-5"], ["red-6"]],
            "first_leader": 0,
        },
    )
    foreign = next(m for m in game.legal_moves(big, 0) if m.get("wish", {}).get("seat") == 5)
    small = game.new_game(
        4,
        {"raids": 1},
        seed=1,
        deal={"hands": [["blue-4"], ["red-1"], ["red-2"], ["red-3"]], "first_leader": 0},
    )
    answers = []
    for value in (foreign, json.loads(json.dumps(foreign))):
        with pytest.raises(GameError) as refused:
            game.apply(copy.deepcopy(small), 0, value)
        answers.append(refused.value.to_dict())
    assert answers[0] == answers[1] and answers[0]["code"] == "malformed_move"
