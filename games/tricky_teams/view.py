"""Per-seat and spectator views: the only path by which hidden cards leave the engine."""

from __future__ import annotations

from typing import Any

from games.tricky_teams.cards import DRUMMER, RANK, TEAM_NAMES
from games.tricky_teams.engine import legal_moves, result, to_move

TEAM_DISPLAY = {team: name for team, name in TEAM_NAMES.items()}


def drummers_have_no_back(hand: list[str]) -> list[str]:
    """The 8s in a hand: they have no card back, so everyone sees them."""
    return [card for card in hand if RANK[card] == DRUMMER]


def view(state: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) may know now; after the end everything is revealed."""
    over = state["phase"] == "over"
    seats: int = state["seats"]
    if seat is not None and not (type(seat) is int and 0 <= seat < seats):
        seat = None  # an unknown seat sees no more than a spectator
    options = state["header"]["options"]
    players = []
    for s in range(seats):
        hand = state["hands"][s]
        player: dict[str, Any] = {
            "seat": s,
            "hand_size": len(hand),
            "eights": drummers_have_no_back(hand),
            "cooks": list(state["cooks"][s]),
            "loot_size": len(state["loot"][s]),
            "coins": [raid[s] for raid in state["coins"]],
            "total": sum(raid[s] for raid in state["coins"]),
        }
        if over or s == seat:
            player["loot"] = list(state["loot"][s])
        players.append(player)
    phase = state["phase"]
    pending = state["pending"]
    return {
        "game": state["game"],
        "seats": seats,
        "seat": seat,
        "options": {"raids": options["raids"], "coins": dict(options["coins"])},
        "teams": dict(TEAM_DISPLAY),
        "raid": state["raid"],
        "raids": options["raids"],
        "trick_number": state["trick_number"],
        "phase": phase,
        "to_move": to_move(state),
        "decision": None if over else phase,
        "leader": state["leader"],
        "hand": None if seat is None else list(state["hands"][seat]),
        "players": players,
        "trick": [_trick_play(play, seat, over) for play in state["trick"]],
        "wishes": [dict(wish) for wish in state["wishes"]],
        "teams_out": list(state["out"]),
        "fog": state["fog"],
        "pending_loot": None
        if pending is None
        else {
            "cards": sorted(pending["cards"]),
            "order": list(pending["order"]),
            "next": pending["order"][pending["index"] % len(pending["order"])],
        },
        "last_trick": _copy_trick(state["last_trick"]),
        "legal_moves": [] if seat is None else legal_moves(state, seat),
        "result": result(state) if over else None,
    }


def _trick_play(play: dict[str, Any], seat: int | None, over: bool) -> dict[str, Any]:
    # A face-down card shows only to its player; 8s are never face down (ruling 12).
    hidden = play["face_down"] and play["seat"] != seat and not over
    wish = play["wish"]
    return {
        "seat": play["seat"],
        "card": None if hidden else play["card"],
        "face_down": play["face_down"],
        "wish": None if wish is None else dict(wish),
    }


def _copy_trick(trick: dict[str, Any] | None) -> dict[str, Any] | None:
    if trick is None:
        return None
    out = dict(trick)
    out["plays"] = [dict(p, wish=None if p["wish"] is None else dict(p["wish"])) for p in trick["plays"]]
    out["strengths"] = dict(trick["strengths"])
    out["winners"] = list(trick["winners"])
    out["loot"] = list(trick["loot"])
    return out
