"""Which cards a seat may play now: the basic rules (lead, challenge, join) and the abilities that bend them.

Ruling 3, in order: (a) a binding Hypnotist wish; (b) otherwise the fog, the lead, challenge or
join, each falling back to "any card" when the seat cannot comply.  Always allowed in (b): a Fool,
a flag, and a Peasant once a Peasant is in the trick.  A flag is never allowed under (a).
"""

from __future__ import annotations

from typing import Any

from games.tricky_teams.cards import FLAG, FOOL, PEASANT, RANK, TEAM


def fool_always_playable(card: str) -> bool:
    """The Fool (6) may ALWAYS be played, even against a Hypnotist's wish (special case 4 and 6)."""
    return RANK[card] == FOOL


def flag_always_playable(card: str) -> bool:
    """A white flag may always be played, except against a binding wish (special case 0 and 4)."""
    return card == FLAG


def peasant_follows_peasant(card: str, peasant_out: bool) -> bool:
    """Once a 1 is in the trick, another 1 may always be played (not against a binding wish)."""
    return peasant_out and RANK[card] == PEASANT


def challenges(card: str, team: str) -> bool:
    """Ruling 3b: with one team out, a card of another colour challenges it (a flag is no team)."""
    return TEAM[card] is not None and TEAM[card] != team


def joins(card: str, teams: tuple[str, ...]) -> bool:
    """Ruling 3b: with two or more teams out, a card of one of them joins."""
    return TEAM[card] in teams


def complies(card: str, out: tuple[str, ...]) -> bool:
    """Ruling 3b: one team out, the card must challenge; two or more, it must join."""
    return challenges(card, out[0]) if len(out) == 1 else joins(card, out)


def free_in_basic_rules(card: str, peasant_out: bool) -> bool:
    """Ruling 3b: a Fool, a flag, and a 1 once a 1 is out may always be played (no wish binding)."""
    return (
        fool_always_playable(card) or flag_always_playable(card) or peasant_follows_peasant(card, peasant_out)
    )


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
    return [card for card in hand if TEAM[card] == team or fool_always_playable(card)]


def playable_cards(state: dict[str, Any], seat: int) -> list[str]:
    """Every card `seat` may play now (a flag may appear twice; callers dedupe adjacent flags).

    Ruling 3, in order: (a) a binding wish; (b) the lead and any play once a face-down card is out
    are free (ruling 12); else the cards that comply or are free, or the whole hand if none complies.
    """
    hand: list[str] = state["hands"][seat]
    team = wished_team(state["wishes"], seat)
    if team is not None:
        forced = hypnotist_wish_binds(hand, team)
        if forced is not None:
            return forced
    out = tuple(state["out"])
    if not out or state["down"]:
        return hand[:]
    if not any(complies(card, out) for card in hand):
        return hand[:]
    peasant_out = state["ones"] > 0
    return [card for card in hand if complies(card, out) or free_in_basic_rules(card, peasant_out)]


def may_play(state: dict[str, Any], seat: int, card: str) -> bool:
    """Whether `card` (held by `seat`) is a legal play now."""
    return card in playable_cards(state, seat)


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
