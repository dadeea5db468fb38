"""Per-seat and spectator views: the only path by which hidden cards leave the engine."""

from __future__ import annotations

from typing import Any

from games.base import Event, redact_event
from games.tricky_teams.cards import CARD_ID, TEAM_NAMES, hand_ids, ids
from games.tricky_teams.engine import is_over, legal_moves, next_picker, result, to_move
from games.tricky_teams.rules import NO_BACK, teams_out
from games.tricky_teams.state import Play, State
from games.tricky_teams.wire import ScoredTrick


def seen_in_hand(hand: int) -> list[str]:
    """The cards of a hand that everyone sees: those with no card back (ruling 12)."""
    return hand_ids(hand & NO_BACK)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) may know now; after the end everything is revealed."""
    over = state["phase"] == "over"
    seats = state["seats"]
    if seat is not None and not (type(seat) is int and 0 <= seat < seats):
        seat = None  # an unknown seat sees no more than a spectator
    options = state["header"]["options"]
    players = []
    hands, cooks, loot, raids = state["hands"], state["cooks"], state["loot"], state["coins"]
    for s in range(seats):
        hand = hands[s]
        coins = [raid[s] for raid in raids]
        player: dict[str, Any] = {
            "seat": s,
            "hand_size": hand.bit_count(),
            "eights": seen_in_hand(hand),
            "cooks": ids(cooks[s]),
            "loot_size": len(loot[s]),
            "coins": coins,
            "total": sum(coins),
        }
        if over or s == seat:
            player["loot"] = ids(loot[s])
        players.append(player)
    phase = state["phase"]
    pending = state["pending"]
    return {
        "game": state["game"],
        "seats": seats,
        "seat": seat,
        "options": {"raids": options["raids"], "coins": dict(options["coins"])},
        "teams": dict(TEAM_NAMES),
        "raid": state["raid"],
        "raids": options["raids"],
        "trick_number": state["trick_number"],
        "phase": phase,
        "to_move": to_move(state),
        "decision": None if over else phase,
        "leader": state["leader"],
        "hand": None if seat is None else hand_ids(state["hands"][seat]),
        "players": players,
        "trick": [_trick_play(play, seat, over) for play in state["trick"]],
        "wishes": [dict(wish) for wish in state["wishes"]],
        "teams_out": teams_out(state["trick"]),
        "fog": state["fog"],
        "pending_loot": None
        if pending is None
        else {
            "cards": sorted(ids(pending["cards"])),
            "order": list(pending["order"]),
            "next": next_picker(pending),
        },
        "last_trick": _copy_trick(state["last_trick"]),
        "legal_moves": [] if seat is None else legal_moves(state, seat),
        "result": result(state) if over else None,
    }


def _trick_play(play: Play, seat: int | None, over: bool) -> dict[str, Any]:
    # A face-down card shows only to its player; 8s are never face down (ruling 12).
    hidden = play["face_down"] and play["seat"] != seat and not over
    wish = play["wish"]
    return {
        "seat": play["seat"],
        "card": None if hidden else CARD_ID[play["card"]],
        "face_down": play["face_down"],
        "wish": None if wish is None else dict(wish),
    }


def _copy_trick(trick: ScoredTrick | None) -> dict[str, Any] | None:
    if trick is None:
        return None
    out: dict[str, Any] = dict(trick)
    out["plays"] = [dict(p, wish=None if p["wish"] is None else dict(p["wish"])) for p in trick["plays"]]
    out["strengths"] = dict(trick["strengths"])
    out["winners"] = list(trick["winners"])
    out["loot"] = list(trick["loot"])
    return out


def event_view(state: State, event: Event, seat: int | None) -> Event:
    """A logged event as `seat` may read it: private parts only for their seats until the end."""
    return redact_event(event, seat, is_over(state))
