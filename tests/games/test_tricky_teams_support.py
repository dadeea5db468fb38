"""Shared helpers for the Tricky Teams tests: explicit-deal games and a compact move notation.

Move notation (one string per move): ``"0 red-5"`` seat 0 plays red-5; ``"1 blue-4 >2 green"``
seat 1 plays a Hypnotist wishing green from seat 2; ``"2 take red-5"`` seat 2 takes red-5 from
the loot; ``"3 lead 1"`` seat 3 (a Strategist) names seat 1 to lead.
"""

from __future__ import annotations

from typing import Any

from games.tricky_teams import GAME
from games.tricky_teams.cards import CARD_ID, hand_ids, ids


def new(
    hands: list[list[str]], first_leader: int | None = 0, raids: int = 1, **options: Any
) -> dict[str, Any]:
    """A game of len(hands) seats with an explicit first-raid deal (seed 7 for later raids)."""
    deal: dict[str, Any] = {"hands": hands}
    if first_leader is not None and not any("red-8" in hand for hand in hands):
        deal["first_leader"] = first_leader
    return GAME.new_game(len(hands), {"raids": raids, **options}, seed=7, deal=deal)


def hands(state: dict[str, Any]) -> list[list[str]]:
    """Every seat's hand as card ids in hand order (the state keeps each hand as a set of numbers)."""
    return [hand_ids(hand) for hand in state["hands"]]


def piles(state: dict[str, Any], key: str) -> list[list[str]]:
    """Every seat's loot pile (`loot`) or Cooks lying out (`cooks`) as card ids, in the order taken."""
    return [ids(cards) for cards in state[key]]


def trick_cards(state: dict[str, Any]) -> list[str]:
    """The cards of the current trick as card ids, face-down ones included."""
    return [CARD_ID[play["card"]] for play in state["trick"]]


def parse(text: str) -> tuple[int, dict[str, Any]]:
    """Turn one move of the compact notation into (seat, move)."""
    parts = text.split()
    seat = int(parts[0])
    if parts[1] == "take":
        return seat, {"type": "take-loot", "card": parts[2]}
    if parts[1] == "lead":
        return seat, {"type": "choose-leader", "seat": int(parts[2])}
    move: dict[str, Any] = {"type": "play", "card": parts[1]}
    if len(parts) == 4:
        move["wish"] = {"seat": int(parts[2].lstrip(">")), "team": parts[3]}
    return seat, move


def run(state: dict[str, Any], moves: list[str] | tuple[str, ...]) -> list[dict[str, Any]]:
    """Apply moves in notation, checking each is listed by legal_moves; return all events."""
    events: list[dict[str, Any]] = []
    for text in moves:
        seat, move = parse(text)
        assert move in GAME.legal_moves(state, seat), f"{text!r} not in {GAME.legal_moves(state, seat)}"
        events.extend(GAME.apply(state, seat, move))
    return events


def legal_cards(state: dict[str, Any], seat: int) -> set[str]:
    """The cards `seat` may play now (wishes ignored)."""
    return {m["card"] for m in GAME.legal_moves(state, seat) if m["type"] == "play"}


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The events of one type, in order."""
    return [e for e in events if e["type"] == kind]


def random_game(seats: int, seed: int, choices: list[int] | None = None) -> dict[str, Any]:
    """Play a whole seeded game with moves picked by `choices` (cycled) or by the seed."""
    import random

    rng = random.Random(seed)
    state = GAME.new_game(seats, {"raids": 2}, seed=seed)
    step = 0
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        pick = choices[step % len(choices)] if choices else rng.randrange(len(moves))
        GAME.apply(state, seat, moves[pick % len(moves)])
        step += 1
    return state


def pad(hands: list[list[str]], moves: list[str] | tuple[str, ...], extra: int = 0) -> list[list[str]]:
    """Fill every hand up to the largest (plus `extra`) with unused cards of the team its seat plays first.

    Scenario tables list only the cards that matter; a same-team filler never opens a new way to
    challenge or join for a scripted seat, so the scripted moves stay legal.
    """
    from games.tricky_teams.cards import TEAM, TEAM_CARDS

    used = {card for hand in hands for card in hand}
    first_team: dict[int, str | None] = {}
    for text in moves:
        seat, move = parse(text)
        if move["type"] == "play":
            first_team.setdefault(seat, TEAM[move["card"]])
    size = max(len(hand) for hand in hands) + extra
    out = []
    for seat, hand in enumerate(hands):
        hand = list(hand)
        team = first_team.get(seat)
        spare = [
            c for c in TEAM_CARDS if c not in used and c != "red-8" and (team is None or TEAM[c] == team)
        ]
        while len(hand) < size:
            hand.append(spare.pop())
            used.add(hand[-1])
        out.append(hand)
    return out
