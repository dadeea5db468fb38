"""Which cards may be played: lead, challenge, join, Fools, flags, Peasants, Hypnotist wishes, fog.

Each row: (rule id, hands, moves played so far, seat to check, exactly the cards it may play).
"""

from __future__ import annotations

import pytest

from games.tricky_teams import GAME
from tests.games.test_tricky_teams_support import legal_cards, new, pad, run

P4 = [["red-5", "blue-3", "green-6"], ["red-2", "blue-7", "yellow-10"], ["red-9", "green-4"], ["yellow-1"]]

LEGAL_PLAYS = [
    # Lead: any card.
    (
        "ruling_3b_lead_any_card",
        [["red-5", "blue-3", "green-6"], ["red-2"], ["red-9"], ["yellow-1"]],
        [],
        0,
        {"red-5", "blue-3", "green-6"},
    ),
    # Challenge: one team out -> another team; a 1 is not free before a 1 is out.
    (
        "ruling_3b_must_challenge",
        [["red-5"], ["red-2", "red-1", "blue-3", "yellow-10"], ["red-9"], ["green-2"]],
        ["0 red-5"],
        1,
        {"blue-3", "yellow-10"},
    ),
    (
        "ruling_3b_peasant_of_another_team_challenges",
        [["red-5"], ["red-2", "blue-1"], ["red-9"], ["green-2"]],
        ["0 red-5"],
        1,
        {"blue-1"},
    ),
    (
        "ruling_3b_cannot_challenge_plays_any_card",
        [["red-5"], ["red-2", "red-3"], ["red-9"], ["green-2"]],
        ["0 red-5"],
        1,
        {"red-2", "red-3"},
    ),
    (
        "ruling_4_challenge_obligation_passes_on",
        [["red-5", "red-10"], ["red-2", "red-3"], ["red-4", "green-7"], ["green-2", "red-1"]],
        ["0 red-5", "1 red-2"],
        2,
        {"green-7"},
    ),
    (
        "ruling_4_challenge_obligation_passes_on_over_several_seats",
        [["red-5", "red-10"], ["red-2", "red-3"], ["red-4", "red-6"], ["red-1", "green-2"], ["blue-9"]],
        ["0 red-5", "1 red-2", "2 red-4"],
        3,
        {"green-2"},
    ),
    # Join: two or more teams out -> one of them; else any card, and later seats may join that team.
    (
        "ruling_3b_must_join",
        [["red-5"], ["blue-3"], ["red-2", "green-4", "yellow-9"], ["green-2"]],
        ["0 red-5", "1 blue-3"],
        2,
        {"red-2"},
    ),
    (
        "ruling_3b_cannot_join_plays_any_card",
        [["red-5"], ["blue-3"], ["green-4", "yellow-9"], ["green-2"]],
        ["0 red-5", "1 blue-3"],
        2,
        {"green-4", "yellow-9"},
    ),
    (
        "third_team_can_be_joined",
        [["red-5"], ["blue-3"], ["green-4"], ["green-2", "yellow-3"]],
        ["0 red-5", "1 blue-3", "2 green-4"],
        3,
        {"green-2"},
    ),
    # Fool (6): always playable, even when challenging or joining.
    (
        "ruling_3b_fool_always_playable_when_challenging",
        [["red-5"], ["red-6", "blue-3"], ["red-9"], ["green-2"]],
        ["0 red-5"],
        1,
        {"red-6", "blue-3"},
    ),
    (
        "ruling_3b_fool_always_playable_when_joining",
        [["red-5"], ["blue-3"], ["yellow-6", "red-2", "green-9"], ["green-2"]],
        ["0 red-5", "1 blue-3"],
        2,
        {"yellow-6", "red-2"},
    ),
    # White flag (0): only with 3/6 players; always playable; no team (ruling 2).
    (
        "ruling_3b_flag_always_playable",
        [["red-5", "red-4"], ["flag-0", "blue-3"], ["red-9", "green-1"]],
        ["0 red-5"],
        1,
        {"flag-0", "blue-3"},
    ),
    (
        "ruling_2_flag_lead_puts_no_team_out",
        [["flag-0", "red-4"], ["red-3", "blue-4"], ["red-2", "green-5"]],
        ["0 flag-0"],
        1,
        {"red-3", "blue-4"},
    ),
    (
        "ruling_2_flag_is_no_team_challenge_continues",
        [["flag-0", "red-4"], ["red-3", "blue-4"], ["red-2", "green-5"]],
        ["0 flag-0", "1 red-3"],
        2,
        {"green-5"},
    ),
    (
        "flag_held_twice_is_one_move",
        [["red-5", "red-4"], ["flag-0", "flag-0"], ["red-9", "green-1"]],
        ["0 red-5"],
        1,
        {"flag-0"},
    ),
    # Peasants (1): once a 1 is out, a 1 may always be played.
    (
        "ruling_3b_peasant_may_follow_a_peasant",
        [["red-1"], ["blue-5"], ["red-3", "yellow-1", "green-4"], ["green-2"]],
        ["0 red-1", "1 blue-5"],
        2,
        {"red-3", "yellow-1"},
    ),
    # Hypnotist (4) wishes, ruling 3a and 11.
    (
        "ruling_3a_wish_binds_over_challenge",
        [["red-4"], ["red-2", "blue-3", "green-6"], ["red-9"], ["green-2"]],
        ["0 red-4 >1 red"],
        1,
        {"red-2", "green-6"},
    ),
    (
        "special_case_0_and_4_no_flag_under_wish",
        [["red-4", "red-3"], ["blue-2", "flag-0", "green-3"], ["red-9", "red-10"]],
        ["0 red-4 >1 blue"],
        1,
        {"blue-2"},
    ),
    (
        "special_case_4_and_6_fool_under_wish",
        [["red-4"], ["blue-2", "yellow-6", "green-3"], ["red-9"], ["red-1"]],
        ["0 red-4 >1 blue"],
        1,
        {"blue-2", "yellow-6"},
    ),
    (
        "ruling_3a_wish_binding_forbids_free_peasant",
        [["red-1"], ["blue-4"], ["green-5", "yellow-1"], ["green-2"]],
        ["0 red-1", "1 blue-4 >2 green"],
        2,
        {"green-5"},
    ),
    (
        "ruling_3a_wish_for_team_not_held_falls_back_to_basic_rules",
        [["red-4"], ["red-2", "blue-3"], ["red-9"], ["green-2"]],
        ["0 red-4 >1 yellow"],
        1,
        {"blue-3"},
    ),
    (
        "ruling_11_later_wish_replaces_earlier",
        [["red-4"], ["blue-4"], ["green-3", "yellow-5"], ["green-2"]],
        ["0 red-4 >2 green", "1 blue-4 >2 yellow"],
        2,
        {"yellow-5"},
    ),
    (
        "ruling_11_wishes_for_different_seats_both_bind",
        [["red-4"], ["blue-4"], ["green-3", "yellow-5"], ["green-2", "yellow-2"]],
        ["0 red-4 >2 green", "1 blue-4 >3 yellow", "2 green-3"],
        3,
        {"yellow-2"},
    ),
    (
        "ruling_11_wish_binds_in_fog",
        [["red-7"], ["blue-4"], ["green-3", "yellow-5", "red-10"], ["green-2"]],
        ["0 red-7", "1 blue-4 >2 green"],
        2,
        {"green-3"},
    ),
    (
        "special_case_4_and_7_face_down_hypnotist_wishes",
        [["red-7"], ["blue-4"], ["red-10"], ["green-5", "yellow-10"]],
        ["0 red-7", "1 blue-4 >3 green", "2 red-10"],
        3,
        {"green-5"},
    ),
    # Fog Witch (7), ruling 12.
    (
        "ruling_12_first_face_down_card_must_obey",
        [["blue-7"], ["blue-5", "green-3"], ["red-9"], ["green-2"]],
        ["0 blue-7"],
        1,
        {"green-3"},
    ),
    (
        "ruling_12_any_card_once_face_down_is_out",
        [["blue-7"], ["green-3"], ["blue-2", "green-9", "yellow-1"], ["green-2"]],
        ["0 blue-7", "1 green-3"],
        2,
        {"blue-2", "green-9", "yellow-1"},
    ),
    (
        "ruling_12_face_up_drummer_keeps_rules",
        [["blue-7"], ["yellow-8"], ["blue-2", "green-3"], ["green-2"]],
        ["0 blue-7", "1 yellow-8"],
        2,
        {"blue-2"},
    ),
]


@pytest.mark.parametrize(
    ("hands", "moves", "seat", "expected"),
    [pytest.param(h, m, s, e, id=rule) for rule, h, m, s, e in LEGAL_PLAYS],
)
def test_legal_plays(hands: list[list[str]], moves: list[str], seat: int, expected: set[str]) -> None:
    """The seat to move may play exactly the expected cards, and nobody else may move."""
    state = new(pad(hands, moves))
    run(state, moves)
    assert GAME.to_move(state) == [seat]
    assert legal_cards(state, seat) == expected
    for other in range(len(hands)):
        if other != seat:
            assert GAME.legal_moves(state, other) == []


def test_hypnotist_lists_every_wish_for_later_seats() -> None:
    """A Hypnotist's play is listed without a wish and with every team for every seat still to play."""
    state = new([["red-4"], ["blue-2"], ["green-4"], ["yellow-4"]])
    moves = GAME.legal_moves(state, 0)
    wishes = [m["wish"] for m in moves if "wish" in m]
    assert {"type": "play", "card": "red-4"} in moves
    assert len(wishes) == 3 * 4
    assert {w["seat"] for w in wishes} == {1, 2, 3}
    run(state, ["0 red-4", "1 blue-2", "2 green-4 >3 red"])
    assert GAME.legal_moves(state, 3) == [{"type": "play", "card": "yellow-4"}]  # last seat: no one to wish


def test_ruling_12_fog_witch_forces_face_down_except_drummers() -> None:
    """After a 7 every later card is face down, except 8s; the 7 itself stays face up."""
    state = new([["red-7"], ["blue-5"], ["yellow-8"], ["green-2"]])
    events = run(state, ["0 red-7", "1 blue-5", "2 yellow-8"])
    assert [e["face_down"] for e in events] == [False, True, False]
    assert [p["face_down"] for p in state["trick"]] == [False, True, False]


def test_ruling_11_wishes_are_public_and_spent_after_playing() -> None:
    """Ruling 11: wishes show as {seat, team, by} to everyone and disappear once the target plays."""
    state = new([["red-4", "red-5"], ["blue-2", "blue-5"], ["green-4", "green-5"], ["yellow-4", "yellow-5"]])
    run(state, ["0 red-4 >2 green"])
    assert GAME.view(state, None)["wishes"] == [{"seat": 2, "team": "green", "by": 0}]
    assert GAME.view(state, 3)["wishes"] == [{"seat": 2, "team": "green", "by": 0}]
    run(state, ["1 blue-2", "2 green-4"])
    assert GAME.view(state, None)["wishes"] == []


def test_a_single_legal_card_is_still_the_players_decision() -> None:
    """Ruling 23: plays are never automatic; a seat with one legal card must still submit it."""
    state = new([["red-5", "red-6"], ["red-2", "blue-3"], ["red-9", "red-10"], ["green-2", "green-3"]])
    run(state, ["0 red-5"])
    assert GAME.legal_moves(state, 1) == [{"type": "play", "card": "blue-3"}]
    assert GAME.to_move(state) == [1] and state["trick"][-1]["seat"] == 0
