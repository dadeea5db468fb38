"""Search-bot help: a full state consistent with one seat's view and a guess of the hidden cards.

Pure functions (no I/O).  The caller (a bot) samples the hidden hands and the face-down cards of
the current trick; `state_from_view` builds a state the engine can play on from there with the
engine's own constructors: a new state, the hands as dealt sets, and the current trick laid card
by card (so teams out, fog and wishes follow from the rules).  The rebuilt game ends after the
current raid, loot piles start empty (so the final `result` scores are the coins won from this
point on, plus the Cooks already lying out) and the action list is empty (the state is for
playouts, not for replay).
"""

from __future__ import annotations

from typing import Any, cast

from games.base import State as JsonState
from games.base import View
from games.tricky_teams.cards import CARD_NUMBER
from games.tricky_teams.deal import hand_sets
from games.tricky_teams.engine import lay_card, start_trick
from games.tricky_teams.state import new_state
from games.tricky_teams.wire import ScoredTrick


def state_from_view(view: View, hands: list[list[str]], face_down: dict[int, str]) -> JsonState:
    """A playable state: `view`'s public facts, `hands` for every seat, `face_down[i]` for trick play i."""
    seats: int = view["seats"]
    options = {"raids": view["raid"], "coins": dict(view["options"]["coins"])}
    state = new_state({"seats": seats, "options": options, "seed": 0, "deal": None})  # type: ignore[typeddict-item]
    trick = [
        (play, play["card"] if play["card"] is not None else face_down[i])
        for i, play in enumerate(view["trick"])
    ]
    held = [list(hand) for hand in hands]
    for play, card in trick:  # the trick's cards were in their players' hands
        held[play["seat"]].append(card)
    state["raid"] = view["raid"]
    state["hands"] = hand_sets(held)
    state["cooks"] = [[CARD_NUMBER[card] for card in player["cooks"]] for player in view["players"]]
    state["trick_number"] = view["trick_number"] - 1
    start_trick(state, view["leader"])
    for play, card in trick:
        lay_card(state, play["seat"], CARD_NUMBER[card], play["wish"])
    state["phase"] = view["phase"]
    state["turn"] = view["to_move"][0] if view["to_move"] else None
    last = view["last_trick"]
    if last is not None:
        state["last_trick"] = _copy_last(last)
        pending = view["pending_loot"]
        if pending is not None:
            order: list[int] = pending["order"]
            plays = {play["seat"]: play["card"] for play in last["plays"]}
            state["pending"] = {
                "cards": [CARD_NUMBER[card] for card in pending["cards"]],
                "order": list(order),
                "index": order.index(pending["next"]),
                "own": [[seat, CARD_NUMBER[plays[seat]]] for seat in last["winners"]],
            }
    return cast(JsonState, state)


def _copy_last(last: dict[str, Any]) -> ScoredTrick:
    out: Any = dict(last)
    out["plays"] = [dict(play) for play in last["plays"]]
    out["winners"] = list(last["winners"])
    out["loot"] = list(last["loot"])
    out["strengths"] = dict(last["strengths"])
    copy: ScoredTrick = out
    return copy
