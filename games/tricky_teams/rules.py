"""Which cards a seat may play now: the basic rules (lead, challenge, join) and the abilities that bend them.

Ruling 3, in order: (a) a binding Hypnotist wish; (b) otherwise the fog, the lead, challenge or
join, each falling back to "any card" when the seat cannot comply.  Always allowed in (b): a Fool,
a flag, and a Peasant once a Peasant is in the trick.  A flag is never allowed under (a).

Legal moves are computed at every decision, so the per-card answers are precomputed tables.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from games.tricky_teams.cards import FLAG, FOOL, PEASANT, RANK, TEAM, TEAMS


def fool_always_playable(card: str) -> bool:
    """The Fool (6) may ALWAYS be played, even against a Hypnotist's wish (special case 4 and 6)."""
    return RANK[card] == FOOL


def flag_always_playable(card: str) -> bool:
    """A white flag may always be played, except against a binding wish (special case 0 and 4)."""
    return card == FLAG


def peasant_follows_peasant(card: str, peasant_out: bool) -> bool:
    """Once a 1 is in the trick, another 1 may always be played (not against a binding wish)."""
    return peasant_out and RANK[card] == PEASANT


# Per-card tables: a Fool; free in rule (b) without / with a Peasant out; challenges a team; joins
# a set of teams.
_FOOL: dict[str, bool] = {c: fool_always_playable(c) for c in RANK}
_FREE: dict[str, bool] = {c: fool_always_playable(c) or flag_always_playable(c) for c in RANK}
_FREE_OR_PEASANT: dict[str, bool] = {c: _FREE[c] or peasant_follows_peasant(c, True) for c in RANK}
_CHALLENGES: dict[str, dict[str, bool]] = {
    team: {c: TEAM[c] is not None and TEAM[c] != team for c in RANK} for team in TEAMS
}
# Keyed by the teams out exactly as the state lists them (in the order they came out), so that a
# lookup needs only tuple(out): every ordering of 2 to 4 teams is a key (60 keys).
_JOINS: dict[tuple[str, ...], dict[str, bool]] = {
    out: {c: TEAM[c] in out for c in RANK}
    for size in range(2, len(TEAMS) + 1)
    for out in permutations(TEAMS, size)
}
# The rule that applies with the teams out (one team: challenge; two or more: join), by tuple(out).
_COMPLIES: dict[tuple[str, ...], dict[str, bool]] = {(team,): _CHALLENGES[team] for team in TEAMS} | _JOINS
# "Complies" and "complies or is free" (without / with a Peasant in the trick) per teams out, as
# bound lookups so that filtering a hand runs in C: list(filter(COMPLIES_OR_FREE[False][key], hand)).
# Public because the engine's hot paths inline playable_cards / may_play with them.
COMPLIES: dict[tuple[str, ...], Any] = {out: table.__getitem__ for out, table in _COMPLIES.items()}
COMPLIES_OR_FREE: dict[bool, dict[tuple[str, ...], Any]] = {
    ones: {out: {c: table[c] or free[c] for c in RANK}.__getitem__ for out, table in _COMPLIES.items()}
    for ones, free in ((False, _FREE), (True, _FREE_OR_PEASANT))
}


def wished_team(wishes: list[dict[str, Any]], seat: int) -> str | None:
    """The team a Hypnotist's wish demands from `seat` in this trick (a later wish replaced earlier ones)."""
    for wish in wishes:
        if wish["seat"] == seat:
            team: str = wish["team"]
            return team
    return None


def hypnotist_wish_binds(hand: list[str], team: str) -> list[str] | None:
    """Ruling 3a / 11: holding the wished team, play that team or a Fool (never a flag); else None."""
    # Loops, not generators or comprehensions: their set-up costs more than a hand this short.
    for card in hand:
        if TEAM[card] == team:
            break
    else:
        return None
    forced = []
    for card in hand:
        if TEAM[card] == team or _FOOL[card]:  # _FOOL is fool_always_playable as a table
            forced.append(card)
    return forced


def playable_cards(state: dict[str, Any], seat: int) -> list[str]:
    """Every card `seat` may play now (a flag may appear twice; callers dedupe adjacent flags).

    With one team out the seat must challenge (play another team), with two or more it must join
    (play one of them); if it holds no such card it may play any card.  Runs at every decision, so
    the hand is filtered in C through the per-card tables.
    """
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
        return hand[:]
    key = tuple(out)
    cards = list(filter(COMPLIES_OR_FREE[state["ones"] > 0][key], hand))
    # Every card complies or is free: that is the whole hand either way.  Else the seat must
    # comply if it can; if none of its cards complies it may play any card.
    if len(cards) == len(hand) or any(map(COMPLIES[key], cards)):
        return cards
    return hand[:]


def may_play(state: dict[str, Any], seat: int, card: str) -> bool:
    """Whether `card` (held by `seat`) is a legal play now: `playable_cards` for one card."""
    hand: list[str] = state["hands"][seat]
    if state["wishes"]:
        team = wished_team(state["wishes"], seat)
        if team is not None:
            for held in hand:
                if TEAM[held] == team:
                    return TEAM[card] == team or _FOOL[card]  # fool_always_playable as a table
    out: list[str] = state["out"]
    if not out or state["down"]:
        return True
    key = tuple(out)
    # A card that neither complies nor is free is legal only when the seat cannot comply at all.
    return bool(COMPLIES_OR_FREE[state["ones"] > 0][key](card)) or not any(map(COMPLIES[key], hand))


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
