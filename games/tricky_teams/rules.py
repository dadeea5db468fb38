"""Which cards a seat may play now: the basic rules (lead, challenge, join) and the abilities that bend them.

Ruling 3, in order: (a) a binding Hypnotist wish; (b) otherwise the fog, the lead, challenge or
join, each falling back to "any card" when the seat cannot comply.  Always allowed in (b): a Fool,
a flag, and a Peasant once a Peasant is in the trick.  A flag is never allowed under (a).
"""

from __future__ import annotations

from typing import Any

from games.tricky_teams.cards import FLAG, FOOL, PEASANT, RANK, TEAM

# Cards that rule (b) always allows regardless of the teams out: every Fool and the flag.
_FREE: dict[str, bool] = {card: RANK[card] == FOOL or card == FLAG for card in RANK}
_IS_PEASANT: dict[str, bool] = {card: RANK[card] == PEASANT for card in RANK}


def wished_team(wishes: list[dict[str, Any]], seat: int) -> str | None:
    """The team a Hypnotist's wish demands from `seat` in this trick (a later wish replaced earlier ones)."""
    for wish in wishes:
        if wish["seat"] == seat:
            team: str = wish["team"]
            return team
    return None


def hypnotist_wish_binds(hand: list[str], team: str) -> list[str] | None:
    """Ruling 3a / 11: holding the wished team, play that team or a Fool (never a flag); else None."""
    if not any(TEAM[card] == team for card in hand):
        return None
    return [card for card in hand if TEAM[card] == team or RANK[card] == FOOL]


def must_challenge(hand: list[str], team_out: str) -> list[str] | None:
    """Only one team out: play another team if you hold one (None: you cannot, so any card)."""
    challengers = [card for card in hand if TEAM[card] is not None and TEAM[card] != team_out]
    return challengers or None


def must_join(hand: list[str], teams_out: list[str]) -> list[str] | None:
    """Two or more teams out: play one of them if you hold one (None: you cannot, so any card)."""
    joiners = [card for card in hand if TEAM[card] in teams_out]
    return joiners or None


def always_playable(hand: list[str], required: list[str], peasant_out: bool) -> list[str]:
    """Add to the required cards every Fool and flag, and every Peasant once a Peasant is out."""
    if peasant_out:
        return [card for card in hand if card in required or _FREE[card] or _IS_PEASANT[card]]
    return [card for card in hand if card in required or _FREE[card]]


def may_play(state: dict[str, Any], seat: int, card: str) -> bool:
    """Whether `card` (held by `seat`) is a legal play now: `playable_cards` for one card, allocation-free."""
    hand: list[str] = state["hands"][seat]
    if state["wishes"]:
        team = wished_team(state["wishes"], seat)
        if team is not None and any(TEAM[c] == team for c in hand):
            return TEAM[card] == team or RANK[card] == FOOL
    out: list[str] = state["out"]
    if not out or state["down"]:
        return True
    team_of_card = TEAM[card]
    if len(out) == 1:
        if team_of_card is not None and team_of_card != out[0]:
            return True
    elif team_of_card in out:
        return True
    if _FREE[card] or (state["ones"] and _IS_PEASANT[card]):
        return True
    # The card neither challenges nor joins: legal only when the seat cannot comply at all.
    return (must_challenge(hand, out[0]) if len(out) == 1 else must_join(hand, out)) is None


def playable_cards(state: dict[str, Any], seat: int) -> list[str]:
    """Every card `seat` may play now (a flag may appear twice; callers dedupe adjacent flags)."""
    hand: list[str] = state["hands"][seat]
    if state["wishes"]:
        team = wished_team(state["wishes"], seat)
        if team is not None:
            forced = hypnotist_wish_binds(hand, team)
            if forced is not None:
                return forced
    out: list[str] = state["out"]
    # The lead (no team out) and any play once a face-down card is out are free (ruling 12).
    if not out or state["down"]:
        return list(hand)
    required = must_challenge(hand, out[0]) if len(out) == 1 else must_join(hand, out)
    if required is None:
        return list(hand)
    return always_playable(hand, required, state["ones"] > 0)


def why_not_playable(state: dict[str, Any], seat: int, card: str) -> str:
    """A human reason why `card` is not a legal play for `seat` now (card is in the hand)."""
    hand: list[str] = state["hands"][seat]
    team = wished_team(state["wishes"], seat)
    if team is not None and hypnotist_wish_binds(hand, team) is not None:
        by = next(w["by"] for w in state["wishes"] if w["seat"] == seat)
        return (
            f"hypnotist's wish binds: seat {by} wished {team} from you and you hold {team} (or play a Fool)"
        )
    out: list[str] = state["out"]
    if len(out) == 1:
        return f"must challenge: only {out[0]} is out and you hold another team"
    return f"must join: {', '.join(out)} are out and you hold one of them"
