"""Scoring a trick: card and team strengths, the winning team, loot order, Thief and Strategist effects.

These run once per trick on at most six cards, so they favour few passes over tiny helpers.
"""

from __future__ import annotations

from typing import Any

from games.tricky_teams.cards import COOK, PEASANT, PEASANTS, RANK, STRATEGIST, TEAM, THIEF


def strengths_with_cooks(plays: list[dict[str, Any]], cooks_out: list[int]) -> list[int]:
    """Ruling 5: a card's strength is its rank plus its player's Cooks lying out (a flag stays out: 0)."""
    return [0 if TEAM[p["card"]] is None else RANK[p["card"]] + cooks_out[p["seat"]] for p in plays]


def colour_team_strengths(plays: list[dict[str, Any]], strengths: list[int]) -> dict[str, int]:
    """Ruling 5: a colour team's strength is the sum of its cards' strengths (flags are no team)."""
    totals: dict[str, int] = {}
    for play, strength in zip(plays, strengths, strict=True):
        team = TEAM[play["card"]]
        if team is not None:
            totals[team] = totals.get(team, 0) + strength
    return totals


def peasant_strength(peasants: int, cooks_of_members: int) -> int:
    """Ruling 6: the 1s side by side (1, 11, 111, 1111) plus one per Cook lying out before each member."""
    return int("1" * peasants) + cooks_of_members


def peasants_win_ties(tied: list[str]) -> bool:
    """Ruling 6: a Peasant team wins every tie it is part of."""
    return PEASANTS in tied


def first_to_reach_wins_tie(
    plays: list[dict[str, Any]], strengths: list[int], tied: list[str], value: int
) -> str:
    """Ruling 7: among tied colour teams, the one whose running total reached the value first wins."""
    running: dict[str, int] = {}
    for play, strength in zip(plays, strengths, strict=True):
        team = TEAM[play["card"]]
        if team is not None and team in tied:
            running[team] = running.get(team, 0) + strength
            if running[team] >= value:
                return team
    raise AssertionError("a tied team always reaches its own total")


def winning_team(plays: list[dict[str, Any]], strengths: list[int], totals: dict[str, int]) -> str:
    """The strongest team of the trick, ties broken by rulings 6 and 7."""
    best = max(totals.values())
    tied = [team for team, value in totals.items() if value == best]
    if len(tied) == 1:
        return tied[0]
    if peasants_win_ties(tied):
        return PEASANTS
    return first_to_reach_wins_tie(plays, strengths, tied, best)


def team_members(plays: list[dict[str, Any]], team: str) -> list[int]:
    """Indices (play order) of the cards in `team`; every 1 is also a Peasant (ruling 6)."""
    if team == PEASANTS:
        return [i for i, p in enumerate(plays) if RANK[p["card"]] == PEASANT]
    return [i for i, p in enumerate(plays) if TEAM[p["card"]] == team]


def loot_order(members: list[int], strengths: list[int], team: str) -> list[int]:
    """Ruling 8: strongest card chooses first, equal strength by play order; Peasants: the last 1 first."""
    if team == PEASANTS:
        return members[::-1]
    # sorted() is stable even with reverse=True, so equal strengths keep their play order.
    return sorted(members, key=strengths.__getitem__, reverse=True)


def abilities_in_team(plays: list[dict[str, Any]], members: list[int]) -> dict[int, int]:
    """Rank -> seat for the winning team's cards (a colour team holds each rank at most once)."""
    return {RANK[plays[i]["card"]]: plays[i]["seat"] for i in members}


def next_leader(order_seats: list[int], thief: int | None, strategist: int | None) -> int | None:
    """Ruling 10: the Strategist chooses (None: still to choose), else the Thief, else the strongest card."""
    if strategist is not None:
        return None
    if thief is not None:
        return thief
    return order_seats[0]


def cook_lies_out(card: str) -> bool:
    """Ruling 9: a Cook in the winning team lies out in front of its player instead of joining the loot."""
    return RANK[card] == COOK


def score_trick(plays: list[dict[str, Any]], cooks_out: list[int]) -> dict[str, Any]:
    """Reveal and evaluate a complete trick: strengths, winning team, pick order, loot, Thief, Strategist.

    The trick's play dicts are reused (each gains its `strength`): the caller discards the trick.
    """
    strengths = strengths_with_cooks(plays, cooks_out)
    totals = colour_team_strengths(plays, strengths)
    peasants = [p["seat"] for p in plays if RANK[p["card"]] == PEASANT]
    if peasants:
        totals[PEASANTS] = peasant_strength(len(peasants), sum(cooks_out[s] for s in peasants))
    team = winning_team(plays, strengths, totals)
    members = team_members(plays, team)
    order = loot_order(members, strengths, team)
    abilities = abilities_in_team(plays, members)
    thief = abilities.get(THIEF)
    strategist = abilities.get(STRATEGIST)
    order_seats = [plays[i]["seat"] for i in order]
    for play, strength in zip(plays, strengths, strict=True):
        play["strength"] = strength
    return {
        "plays": plays,
        "strengths": totals,
        "winning_team": team,
        "winners": order_seats,
        "loot": [p["card"] for i, p in enumerate(plays) if i not in members],
        "thief": thief,
        "strategist": strategist,
        "next_leader": next_leader(order_seats, thief, strategist),
        "own": [[plays[i]["seat"], plays[i]["card"]] for i in order],
    }
