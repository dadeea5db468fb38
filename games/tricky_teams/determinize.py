"""Search-bot help: a full state consistent with one seat's view and a guess of the hidden cards.

Pure functions (no I/O).  The caller (a bot) samples the hidden hands and the face-down cards of
the current trick; `state_from_view` assembles a state the engine can play on from there.  The
rebuilt game ends after the current raid, loot piles start empty (so the final `result` scores
are the coins won from this point on, plus the Cooks already lying out) and the action list is
empty (the state is for playouts, not for replay).
"""

from __future__ import annotations

from typing import Any

from games.tricky_teams.cards import PEASANT, RANK
from games.tricky_teams.engine import SCHEMA


def state_from_view(
    view: dict[str, Any], hands: list[list[str]], face_down: dict[int, str]
) -> dict[str, Any]:
    """A playable state: `view`'s public facts, `hands` for every seat, `face_down[i]` for trick play i."""
    seats: int = view["seats"]
    trick = []
    for index, play in enumerate(view["trick"]):
        card = play["card"] if play["card"] is not None else face_down[index]
        wish = play["wish"]
        trick.append(
            {
                "seat": play["seat"],
                "card": card,
                "face_down": play["face_down"],
                "wish": None if wish is None else dict(wish),
            }
        )
    options = {"raids": view["raid"], "coins": dict(view["options"]["coins"])}
    last = view["last_trick"]
    state: dict[str, Any] = {
        "schema": SCHEMA,
        "game": "tricky-teams",
        "header": {"seats": seats, "options": options, "seed": 0, "deal": None},
        "actions": [],
        "seats": seats,
        "raid": view["raid"],
        "trick_number": view["trick_number"],
        "phase": view["phase"],
        "turn": view["to_move"][0] if view["to_move"] else None,
        "leader": view["leader"],
        "hands": [list(hand) for hand in hands],
        "trick": trick,
        "out": list(view["teams_out"]),
        "down": any(play["face_down"] for play in trick),
        "fog": view["fog"],
        "ones": sum(1 for play in trick if RANK[play["card"]] == PEASANT),
        "wishes": [dict(wish) for wish in view["wishes"]],
        "cooks": [list(player["cooks"]) for player in view["players"]],
        "loot": [[] for _ in range(seats)],
        "coins": [],
        "pending": None,
        "last_trick": None if last is None else _copy_last(last),
    }
    pending = view["pending_loot"]
    if pending is not None and last is not None:
        order: list[int] = pending["order"]
        plays = {play["seat"]: play["card"] for play in last["plays"]}
        state["pending"] = {
            "cards": list(pending["cards"]),
            "order": list(order),
            "index": order.index(pending["next"]),
            "own": [[seat, plays[seat]] for seat in last["winners"]],
        }
    return state


def _copy_last(last: dict[str, Any]) -> dict[str, Any]:
    out = dict(last)
    out["plays"] = [dict(play) for play in last["plays"]]
    out["winners"] = list(last["winners"])
    out["loot"] = list(last["loot"])
    out["strengths"] = dict(last["strengths"])
    return out
