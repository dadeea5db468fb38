"""Three view details a bot reads between tricks (issue 26 row 10), on the issue's own deal: 4 seats,
2 raids, seed 7, hands red-8 / red-5 / blue-3 / green-2 (one trick in raid 1).

- ruling 17: after the raid's last trick nobody leads: `last_trick.next_leader` is null from the
  moment it is scored, also while its loot is handed out (it named the strongest card's seat);
- `teams_out` is the current trick's (ruling 2), as the view's description now says;
- `last_trick` is the last scored trick of the game, its `raid` saying which (so in raid 2 it is
  raid 1's last trick until raid 2's first is scored), as the description now says.
"""

from __future__ import annotations

from typing import Any

from core.wire.tricky_teams import TTViewSchema
from games.tricky_teams import GAME
from tests.games.test_tricky_teams_support import new, run

HANDS = [["red-8"], ["red-5"], ["blue-3"], ["green-2"]]


def raid_one_played() -> dict[str, Any]:
    """The issue's game with raid 1's only trick played (its loot still to hand out)."""
    state = new(HANDS, raids=2)
    run(state, ["0 red-8", "1 red-5", "2 blue-3", "3 green-2"])
    return state


def views(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Every seat's view and the spectator's."""
    return [GAME.view(state, seat) for seat in (*range(4), None)]


def test_ruling_17_no_next_leader_while_the_raids_last_trick_hands_out_loot() -> None:
    """Rule 17: while the raid's last trick hands out its loot, every view's `last_trick.next_leader`
    is null (the next raid is led by red-8), and so is the `trick-won` event's."""
    state = new(HANDS, raids=2)
    events = run(state, ["0 red-8", "1 red-5", "2 blue-3", "3 green-2"])
    assert state["phase"] == "take-loot"
    won = [event for event in events if event["type"] == "trick-won"]
    assert won and won[-1]["next_leader"] is None
    for view in views(state):
        assert view["last_trick"]["raid"] == 1 and view["last_trick"]["next_leader"] is None


def test_teams_out_are_the_current_tricks_and_last_trick_names_its_raid() -> None:
    """Rule 2 / the view's descriptions: in raid 2, after its first card, `teams_out` holds that card's
    team only (the current trick's), and `last_trick` is raid 1's last trick with `raid` 1."""
    state = raid_one_played()
    while state["phase"] == "take-loot":
        seat = state["turn"]
        GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    assert state["raid"] == 2 and state["phase"] == "play"
    for view in views(state):
        assert view["teams_out"] == [] and view["last_trick"]["raid"] == 1
    seat = state["turn"]
    first = next(m for m in GAME.legal_moves(state, seat) if m["type"] == "play")
    GAME.apply(state, seat, first)
    team = first["card"].split("-")[0]
    for view in views(state):
        assert view["teams_out"] == [team] and view["last_trick"]["raid"] == 1


def test_the_view_descriptions_say_what_the_engine_does() -> None:
    """Rule: the wire schema (openapi.yaml, docs/bot-views.md) describes `teams_out` as the current
    trick's and `last_trick` as the game's last scored trick with its raid."""
    fields = TTViewSchema().fields
    assert "current trick" in fields["teams_out"].metadata["description"]
    assert "this raid's tricks" not in fields["teams_out"].metadata["description"]
    assert "previous raid's last trick" in fields["last_trick"].metadata["description"]
