"""Setup, options, deals, raids, coins, the end of the game, move errors and views."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.base import GameOver, IllegalMove, InvalidDeal, InvalidOptions, MalformedMove, NotYourTurn
from games.registry import get_game
from games.tricky_teams import GAME, wire
from tests.games.test_tricky_teams_support import hands, new, run


def test_registered_under_its_name() -> None:
    """The registry serves the engine as 'tricky-teams' for 3 to 6 players."""
    game = get_game("tricky-teams")
    assert game is GAME
    assert game.seat_counts == (3, 4, 5, 6)
    assert GAME.options_schema()["properties"]["raids"]["default"] == 4


@pytest.mark.parametrize(("seats", "size", "flags"), [(3, 14, 2), (4, 10, 0), (5, 8, 0), (6, 7, 2)])
def test_deal_sizes_and_flags_only_with_3_and_6(seats: int, size: int, flags: int) -> None:
    """14/10/8/7 cards per hand; the two white flags only with three and six players."""
    state = GAME.new_game(seats, seed=11)
    assert [len(h) for h in hands(state)] == [size] * seats
    cards = Counter(c for h in hands(state) for c in h)
    assert cards["flag-0"] == flags
    assert sum(cards.values()) == 40 + flags


def test_same_seed_same_deal_and_raids_differ() -> None:
    """Deals depend only on the seed and the raid number."""
    a, b = GAME.new_game(4, seed=5), GAME.new_game(4, seed=5)
    assert a == b
    assert GAME.new_game(4, seed=6)["hands"] != a["hands"]
    assert GAME.new_game(4, seed=None) == GAME.new_game(4, seed=0)


def test_seeded_deals_are_those_of_random_shuffle() -> None:
    """A raid's deal is `random.Random(f"{seed}:{raid}").shuffle` of the canonical deck, split evenly,
    so a seed keeps giving the same game (stored games replay)."""
    import random

    from games.tricky_teams.cards import full_deck, hand_ids, hand_size, sort_hand
    from games.tricky_teams.deal import deal_from_seed

    for seats in (3, 4, 5, 6):
        size = hand_size(seats)
        for seed in (0, 1, 7, 12345, -3, 2**40):
            for raid in (1, 2, 4):
                deck = full_deck(seats)
                random.Random(f"{seed}:{raid}").shuffle(deck)
                expected = [sort_hand(deck[i * size : (i + 1) * size]) for i in range(seats)]
                assert [hand_ids(hand) for hand in deal_from_seed(seats, seed, raid)] == expected


def test_ruling_1_red_drummer_leads_every_raid() -> None:
    """The first trick of each raid is led by whoever holds red-8 (explicit deal and seeded raids)."""
    state = new([["red-5"], ["red-8"], ["blue-3"], ["green-2"]], raids=3)
    assert state["turn"] == 1
    run(state, ["1 red-8", "2 blue-3", "3 green-2", "0 red-5", "1 take blue-3"])
    assert state["raid"] == 2
    assert "red-8" in hands(state)[state["turn"]]
    assert [len(h) for h in hands(state)] == [10] * 4  # later raids are full deals from the seed


def test_first_leader_when_nobody_holds_red_8() -> None:
    """An explicit deal without red-8 names the first leader."""
    state = GAME.new_game(
        4, seed=1, deal={"hands": [["red-5"], ["red-9"], ["blue-3"], ["green-2"]], "first_leader": 2}
    )
    assert GAME.to_move(state) == [2]


BAD_DEALS: list[tuple[str, int, Any, str]] = [
    ("not_an_object", 4, [["red-5"]], "must be an object"),
    ("unknown_field", 4, {"hands": [["red-5"]] * 4, "x": 1}, "unknown deal field"),
    ("wrong_number_of_hands", 4, {"hands": [["red-5"], ["red-6"]]}, "list of 4 hands"),
    ("unequal_sizes", 4, {"hands": [["red-5", "red-8"], ["red-6"], ["red-7"], ["red-9"]]}, "same size"),
    ("empty_hands", 4, {"hands": [[], [], [], []]}, "1 to 10 cards"),
    (
        "too_many_cards",
        4,
        {"hands": [[f"red-{i}" for i in range(1, 11)] + ["blue-1"], [], [], []]},
        "same size",
    ),
    ("unknown_card", 4, {"hands": [["red-11"], ["red-8"], ["red-7"], ["red-9"]]}, "unknown card 'red-11'"),
    ("duplicate_card", 4, {"hands": [["red-5"], ["red-5"], ["red-8"], ["red-9"]]}, "dealt 2 times"),
    (
        "flag_with_4_players",
        4,
        {"hands": [["flag-0"], ["red-5"], ["red-8"], ["red-9"]]},
        "only used with 3 or 6",
    ),
    ("three_flags", 3, {"hands": [["flag-0"], ["flag-0"], ["flag-0"]], "first_leader": 0}, "dealt 3 times"),
    ("card_not_a_string", 4, {"hands": [[5], ["red-5"], ["red-8"], ["red-9"]]}, "list of card ids"),
    ("no_red_8_no_first_leader", 4, {"hands": [["red-5"], ["red-6"], ["red-7"], ["red-9"]]}, "first_leader"),
    (
        "first_leader_out_of_range",
        4,
        {"hands": [["red-5"], ["red-6"], ["red-7"], ["red-9"]], "first_leader": 4},
        "seat from 0 to 3",
    ),
    (
        "ruling_1_first_leader_contradicts_red_8",
        4,
        {"hands": [["red-5"], ["red-8"], ["red-7"], ["red-9"]], "first_leader": 0},
        "seat 1 holds red-8",
    ),
]


@pytest.mark.parametrize(
    ("seats", "deal", "reason"), [pytest.param(s, d, r, id=i) for i, s, d, r in BAD_DEALS]
)
def test_bad_deals_are_rejected_with_a_reason(seats: int, deal: Any, reason: str) -> None:
    """Every malformed explicit deal raises InvalidDeal saying what is wrong."""
    with pytest.raises(InvalidDeal, match=reason):
        GAME.new_game(seats, seed=1, deal=deal)


BAD_OPTIONS: list[tuple[str, Any, Any, str]] = [
    ("two_players", 2, None, "3, 4, 5 or 6"),
    ("seven_players", 7, None, "3, 4, 5 or 6"),
    ("unknown_option", 4, {"speed": 1}, "unknown option"),
    ("raids_zero", 4, {"raids": 0}, "raids must be"),
    ("raids_bool", 4, {"raids": True}, "raids must be"),
    ("coins_unknown_rank", 4, {"coins": {"11": 3}}, "unknown rank"),
    ("coins_negative", 4, {"coins": {"5": -1}}, "integer from 0"),
    ("coins_not_object", 4, {"coins": [1]}, "must be an object"),
    ("options_not_object", 4, [1], "must be a JSON object"),
]


@pytest.mark.parametrize(
    ("seats", "options", "reason"), [pytest.param(s, o, r, id=i) for i, s, o, r in BAD_OPTIONS]
)
def test_bad_options_are_rejected(seats: int, options: Any, reason: str) -> None:
    """Invalid seat counts and options raise InvalidOptions with the reason."""
    with pytest.raises(InvalidOptions, match=reason):
        GAME.new_game(seats, options, seed=1)


def test_default_coin_table_countess_two_flag_zero() -> None:
    """One coin per card, two for a Countess (5), none for a white flag; partial overrides merge."""
    coins = GAME.default_options(4)["coins"]
    assert coins["5"] == 2 and coins["0"] == 0 and coins["10"] == 1 and coins["1"] == 1
    state = GAME.new_game(4, {"coins": {"10": 3}}, seed=1)
    assert state["header"]["options"]["coins"] == {**coins, "10": 3}


def test_countess_scores_two_and_flag_scores_nothing() -> None:
    """The raid's coins count the loot pile with the coin table (3 players: a flag is loot worth 0)."""
    state = new([["red-5"], ["flag-0"], ["red-6"]])
    run(state, ["0 red-5", "1 flag-0", "2 red-6"])
    assert GAME.result(state)["scores"] == [2, 0, 1]


def test_coin_table_override_changes_scores() -> None:
    """A game's options may override the coin table."""
    state = new([["red-5"], ["flag-0"], ["red-6"]], coins={"0": 4, "5": 1})
    run(state, ["0 red-5", "1 flag-0", "2 red-6"])
    assert GAME.result(state)["scores"] == [1, 0, 5]


def test_game_ends_after_the_last_raid_and_ties_share_the_win() -> None:
    """After the last raid the game is over, nobody moves, and equal totals share the victory."""
    state = new([["red-10"], ["blue-10"], ["red-5"], ["blue-5"]], raids=1)
    events = run(state, ["0 red-10", "1 blue-10", "2 red-5", "3 blue-5", "0 take blue-10"])
    assert GAME.is_over(state) and GAME.to_move(state) == []
    result = GAME.result(state)
    assert result["scores"] == [2, 0, 4, 0] and result["winners"] == [2]
    assert [e["type"] for e in events][-2:] == ["raid-ended", "game-ended"]
    tie = new([["red-1"], ["blue-1"], ["green-1"], ["yellow-1"]], raids=1)
    run(tie, ["0 red-1", "1 blue-1", "2 green-1", "3 yellow-1"])
    assert GAME.result(tie)["scores"] == [1, 1, 1, 1]
    assert GAME.result(tie)["winners"] == [0, 1, 2, 3]
    assert GAME.legal_moves(tie, 0) == []


def test_raids_option_sets_the_number_of_raids() -> None:
    """A game lasts exactly `raids` raids, each scored separately."""
    state = GAME.new_game(5, {"raids": 2}, seed=3)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    assert len(GAME.result(state)["coins_per_raid"]) == 2
    assert GAME.view(state, None)["players"][0]["coins"] == [r[0] for r in state["coins"]]


MOVE_ERRORS: list[tuple[str, list[str], int, Any, type[Exception], str]] = [
    ("malformed_not_an_object", [], 0, "red-5", MalformedMove, "object"),
    ("malformed_unknown_type", [], 0, {"type": "pass"}, MalformedMove, "unknown move type"),
    (
        "malformed_unknown_field",
        [],
        0,
        {"type": "play", "card": "red-5", "x": 1},
        MalformedMove,
        "unknown field",
    ),
    ("malformed_unknown_card", [], 0, {"type": "play", "card": "red-11"}, MalformedMove, "card id"),
    ("malformed_card_not_string", [], 0, {"type": "play", "card": 5}, MalformedMove, "card id"),
    (
        "malformed_wish_team",
        [],
        0,
        {"type": "play", "card": "red-4", "wish": {"seat": 1, "team": "pink"}},
        MalformedMove,
        "wish.team",
    ),
    (
        "malformed_wish_shape",
        [],
        0,
        {"type": "play", "card": "red-4", "wish": {"seat": 1}},
        MalformedMove,
        "exactly",
    ),
    (
        "malformed_wish_seat",
        [],
        0,
        {"type": "play", "card": "red-4", "wish": {"seat": 9, "team": "red"}},
        MalformedMove,
        "seat from 0 to 3",
    ),
    ("malformed_leader_seat_type", [], 0, {"type": "choose-leader", "seat": "1"}, MalformedMove, "seat"),
    (
        "malformed_take_loot_with_wish",
        [],
        0,
        {"type": "take-loot", "card": "red-5", "wish": None},
        MalformedMove,
        "unknown field",
    ),
    ("illegal_card_not_held", [], 0, {"type": "play", "card": "green-9"}, IllegalMove, "do not hold green-9"),
    (
        "illegal_must_challenge",
        ["0 red-5"],
        1,
        {"type": "play", "card": "red-2"},
        IllegalMove,
        "must challenge",
    ),
    (
        "illegal_must_join",
        ["0 red-5", "1 blue-3"],
        2,
        {"type": "play", "card": "green-5"},
        IllegalMove,
        "must join",
    ),
    (
        "illegal_wish_binds",
        ["0 red-4 >1 red"],
        1,
        {"type": "play", "card": "blue-3"},
        IllegalMove,
        "wish binds",
    ),
    (
        "illegal_wish_from_non_hypnotist",
        [],
        0,
        {"type": "play", "card": "red-5", "wish": {"seat": 1, "team": "red"}},
        IllegalMove,
        "only a Hypnotist",
    ),
    (
        "illegal_wish_for_earlier_seat",
        ["0 red-5"],
        1,
        {"type": "play", "card": "blue-4", "wish": {"seat": 0, "team": "red"}},
        IllegalMove,
        "still to play",
    ),
    (
        "illegal_wrong_decision",
        [],
        0,
        {"type": "take-loot", "card": "red-5"},
        IllegalMove,
        "must play a card",
    ),
    ("not_your_turn", [], 1, {"type": "play", "card": "red-2"}, NotYourTurn, "seat 0's turn"),
]
ERROR_HANDS = [
    ["red-5", "red-4", "green-4"],
    ["red-2", "blue-3", "blue-4"],
    ["red-9", "green-4", "yellow-9"],
    ["green-2", "green-3", "yellow-1"],
]


@pytest.mark.parametrize(
    ("moves", "seat", "move", "error", "reason"),
    [pytest.param(m, s, mv, e, r, id=i) for i, m, s, mv, e, r in MOVE_ERRORS],
)
def test_move_errors(moves: list[str], seat: int, move: Any, error: type[Exception], reason: str) -> None:
    """Malformed moves, illegal moves and moves out of turn raise their own errors, state untouched."""
    hands = [list(h) for h in ERROR_HANDS]
    hands[2] = ["red-9", "green-5", "yellow-9"]
    state = new(hands)
    run(state, moves)
    before = GAME.view(state, None), list(state["actions"])
    with pytest.raises(error, match=reason):
        GAME.apply(state, seat, move)
    assert (GAME.view(state, None), state["actions"]) == before


def test_illegal_loot_pick_and_game_over() -> None:
    """Taking a card that is not in the loot is illegal; any move after the end raises GameOver."""
    state = new([["red-5"], ["blue-6"], ["red-10"], ["blue-8"]])
    run(state, ["0 red-5", "1 blue-6", "2 red-10", "3 blue-8"])
    with pytest.raises(IllegalMove, match="not in the loot"):
        GAME.apply(state, 2, {"type": "take-loot", "card": "red-5"})
    run(state, ["2 take blue-6"])
    with pytest.raises(GameOver):
        GAME.apply(state, 0, {"type": "play", "card": "red-5"})


def test_null_wish_is_a_plain_play() -> None:
    """A play with "wish": null is accepted and recorded as the plain play."""
    state = new([["red-4"], ["blue-2"], ["green-4"], ["yellow-4"]])
    GAME.apply(state, 0, {"type": "play", "card": "red-4", "wish": None})
    assert state["actions"] == [{"seat": 0, "move": {"type": "play", "card": "red-4"}}]


# ---- views -------------------------------------------------------------------------------------


def test_view_shows_own_hand_sizes_and_drummers_only() -> None:
    """A seat sees its own sorted hand, everyone's hand size and the 8s in every hand, nothing else."""
    state = new(
        [
            ["red-5", "blue-8", "red-1"],
            ["red-8", "green-8", "blue-2"],
            ["red-9", "green-4", "yellow-9"],
            ["green-2", "green-3", "yellow-1"],
        ]
    )
    view = GAME.view(state, 0)
    assert view["hand"] == ["red-1", "red-5", "blue-8"]
    assert [p["hand_size"] for p in view["players"]] == [3, 3, 3, 3]
    assert [p["eights"] for p in view["players"]] == [["blue-8"], ["red-8", "green-8"], [], []]
    assert view["decision"] == "play" and view["to_move"] == [1]
    assert view["legal_moves"] == [] and GAME.view(state, 1)["legal_moves"] == GAME.legal_moves(state, 1)
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal_moves"] == []
    assert "loot" not in spectator["players"][0]


def test_view_hides_face_down_cards_from_others() -> None:
    """A face-down card shows only to its player; the event's public part hides it too."""
    state = new([["red-7", "red-5"], ["blue-5", "blue-6"], ["green-2", "green-6"], ["yellow-10", "yellow-6"]])
    events = run(state, ["0 red-7", "1 blue-5"])
    played = events[-1]
    assert played["card"] is None and played["face_down"] is True
    assert played["private"] == {"seats": [1], "card": "blue-5"}
    assert GAME.view(state, 1)["trick"][1]["card"] == "blue-5"
    for seat in (0, 2, 3, None):
        assert GAME.view(state, seat)["trick"][1] == {
            "seat": 1,
            "card": None,
            "face_down": True,
            "wish": None,
        }
    assert GAME.view(state, 2)["teams_out"] == ["red"] and GAME.view(state, 2)["fog"] is True


def test_view_after_the_end_reveals_loot_piles_and_result() -> None:
    """Once the game is over every loot pile is shown, with the result."""
    state = new([["red-5"], ["blue-6"], ["red-10"], ["blue-8"]])
    run(state, ["0 red-5", "1 blue-6", "2 red-10", "3 blue-8", "2 take blue-8"])
    view = GAME.view(state, None)
    assert view["phase"] == "over" and view["decision"] is None
    assert view["players"][2]["loot"] == ["blue-8", "red-10"]
    assert view["result"] == GAME.result(state)


def test_view_lists_cooks_lying_out_and_own_loot() -> None:
    """Cooks lying out are public; a seat sees its own loot pile, others only its size."""
    state = new([["red-3", "green-4"], ["blue-5", "red-9"], ["red-10", "yellow-9"], ["blue-6", "green-5"]])
    run(state, ["0 red-3", "1 blue-5", "2 red-10", "3 blue-6", "2 take blue-6"])
    view = GAME.view(state, 1)
    assert view["players"][0]["cooks"] == ["red-3"]
    assert view["players"][0]["loot_size"] == 1 and "loot" not in view["players"][0]
    assert GAME.view(state, 0)["players"][0]["loot"] == ["blue-5"]
    assert view["last_trick"]["winning_team"] == "red"


# ---- wire shapes -------------------------------------------------------------------------------

EVENT_SHAPES = {
    "card-played": wire.CardPlayedEvent,
    "trick-won": wire.TrickWonEvent,
    "loot-taken": wire.LootTakenEvent,
    "cook-laid-out": wire.CookLaidOutEvent,
    "leader-chosen": wire.LeaderChosenEvent,
    "raid-ended": wire.RaidEndedEvent,
    "raid-started": wire.RaidStartedEvent,
    "hand-dealt": wire.HandDealtEvent,
    "game-ended": wire.GameEndedEvent,
}


def _keys_match(obj: dict[str, Any], shape: Any) -> None:
    keys = set(obj)
    assert shape.__required_keys__ <= keys <= shape.__required_keys__ | shape.__optional_keys__, (shape, keys)


def test_views_and_events_match_the_wire_typeddicts() -> None:
    """Every view, player entry, scored trick and event has exactly the keys wire.py declares."""
    state = GAME.new_game(3, {"raids": 2}, seed=4)
    seen: set[str] = set()
    step = 0
    while True:
        for seat in (None, 0, 1, 2):
            view = GAME.view(state, seat)
            _keys_match(view, wire.View)
            for player in view["players"]:
                _keys_match(player, wire.PlayerView)
            if view["last_trick"] is not None:
                _keys_match(view["last_trick"], wire.ScoredTrick)
            if view["result"] is not None:
                _keys_match(view["result"], wire.Result)
        if GAME.is_over(state):
            break
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        for event in GAME.apply(state, seat, moves[(step * 7) % len(moves)]):
            _keys_match(event, EVENT_SHAPES[event["type"]])
            seen.add(event["type"])
        step += 1
    assert seen >= set(EVENT_SHAPES) - {"leader-chosen"}


def test_a_bool_or_unknown_seat_is_no_seat() -> None:
    """True is not seat 1: it gets no moves, cannot move, and sees what a spectator sees."""
    state = new([["red-5"], ["red-8"], ["blue-3"], ["green-2"]])
    assert GAME.to_move(state) == [1]
    assert GAME.legal_moves(state, True) == []
    with pytest.raises(NotYourTurn):
        GAME.apply(state, True, {"type": "play", "card": "red-8"})
    assert GAME.view(state, True) == GAME.view(state, None)
    assert GAME.view(state, 9) == GAME.view(state, None)


@pytest.mark.parametrize("seed", ["7", 1.5, True])
def test_seed_must_be_an_integer(seed: Any) -> None:
    """A seed that is not an int is rejected (None means 0)."""
    with pytest.raises(InvalidOptions, match="seed must be an integer"):
        GAME.new_game(4, None, seed)
