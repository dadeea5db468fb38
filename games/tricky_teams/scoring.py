"""Scoring a trick: card and team strengths, the winning team, loot order, Thief and Strategist effects.

These run once per trick on at most six cards, so they favour few passes over tiny helpers.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from games.tricky_teams.cards import PEASANT, PEASANTS, RANK, STRATEGIST, TEAM, THIEF

_STRENGTH = itemgetter("strength")
# (team, rank) by card: one lookup where the trick loop would make two.
_TEAM_RANK: dict[str, tuple[str | None, int]] = {card: (TEAM[card], RANK[card]) for card in RANK}


def peasant_strength(peasants: int, cooks_of_members: int) -> int:
    """Ruling 6: the 1s side by side (1, 11, 111, 1111) plus one per Cook lying out before each member."""
    return int("1" * peasants) + cooks_of_members


def peasants_win_ties(tied: list[str]) -> bool:
    """Ruling 6: a Peasant team wins every tie it is part of."""
    return PEASANTS in tied


def first_to_reach_wins_tie(plays: list[dict[str, Any]], tied: list[str], value: int) -> str:
    """Ruling 7: among tied colour teams, the one whose running total reached the value first wins."""
    running: dict[str, int] = {}
    for play in plays:
        team = TEAM[play["card"]]
        if team is not None and team in tied:
            running[team] = running.get(team, 0) + play["strength"]
            if running[team] >= value:
                return team
    raise AssertionError("a tied team always reaches its own total")


def winning_team(plays: list[dict[str, Any]], totals: dict[str, int]) -> str:
    """The strongest team of the trick, ties broken by rulings 6 and 7."""
    best = max(totals.values())
    tied = [team for team, value in totals.items() if value == best]
    if len(tied) == 1:
        return tied[0]
    if peasants_win_ties(tied):
        return PEASANTS
    return first_to_reach_wins_tie(plays, tied, best)


def loot_order(members: list[dict[str, Any]], team: str) -> list[dict[str, Any]]:
    """Ruling 8: strongest card chooses first, equal strength by play order; Peasants: the last 1 first."""
    if team == PEASANTS:
        return members[::-1]
    # sorted() is stable even with reverse=True, so equal strengths keep their play order.
    return sorted(members, key=_STRENGTH, reverse=True)


def next_leader(order_seats: list[int], thief: int | None, strategist: int | None) -> int | None:
    """Ruling 10: the Strategist chooses (None: still to choose), else the Thief, else the strongest card."""
    if strategist is not None:
        return None
    if thief is not None:
        return thief
    return order_seats[0]


def score_trick(
    plays: list[dict[str, Any]], cooks_out: list[int], raid: int, number: int, leader: int
) -> tuple[dict[str, Any], list[list[Any]]]:
    """Reveal and evaluate a complete trick: the scored trick (wire.ScoredTrick) and the own cards.

    Runs once per trick, so it makes one pass for the strengths and one for the winning team, with
    the rule helpers above inlined.  The trick's play dicts are reused (each gains its `strength`):
    the caller discards the trick.  The own cards are [seat, card] pairs in pick order.
    """
    totals: dict[str, int] = {}
    peasants = peasant_cooks = 0
    for play in plays:
        team, rank = _TEAM_RANK[play["card"]]
        if team is None:  # a white flag stays out of the trick
            play["strength"] = 0
            continue
        cooks = cooks_out[play["seat"]]
        strength = play["strength"] = rank + cooks  # ruling 5: rank plus the player's Cooks lying out
        if team in totals:
            totals[team] += strength
        else:
            totals[team] = strength
        if rank == PEASANT:
            peasants += 1
            peasant_cooks += cooks
    if peasants:
        totals[PEASANTS] = peasant_strength(peasants, peasant_cooks)
    values = list(totals.values())
    best = max(values)
    if values.count(best) == 1:  # no tie: the first (only) team with the best value
        team = list(totals)[values.index(best)]  # cheaper than a generator over the items
    else:
        team = winning_team(plays, totals)
    # Membership: every 1 is also a Peasant (ruling 6); a flag is in no team, so it is always loot.
    members: list[dict[str, Any]] = []
    loot: list[str] = []
    thief = strategist = None
    if team == PEASANTS:  # no Thief or Strategist is a Peasant
        for play in plays:
            card = play["card"]
            if RANK[card] == PEASANT:
                members.append(play)
            else:
                loot.append(card)
    else:
        for play in plays:
            card = play["card"]
            member_team, rank = _TEAM_RANK[card]
            if member_team == team:
                members.append(play)
                if rank == THIEF:  # ruling 8/10: takes all the loot and gets the lead
                    thief = play["seat"]
                elif rank == STRATEGIST:  # ruling 10: chooses the next leader, Thief or not
                    strategist = play["seat"]
            else:
                loot.append(card)
    # loot_order(members, team), inlined (it runs after every trick); a sole winner needs no sort.
    if team == PEASANTS:
        order = members[::-1]
    elif len(members) == 1:
        order = members
    else:
        order = sorted(members, key=_STRENGTH, reverse=True)
    order_seats: list[int] = []
    own: list[list[Any]] = []
    for play in order:
        seat = play["seat"]
        order_seats.append(seat)
        own.append([seat, play["card"]])
    scored = {
        "raid": raid,
        "number": number,
        "leader": leader,
        "plays": plays,
        "strengths": totals,
        "winning_team": team,
        "winners": order_seats,
        "loot": loot,
        "thief": thief,
        "strategist": strategist,
        # next_leader(order_seats, thief, strategist), inlined (it runs after every trick)
        "next_leader": None if strategist is not None else order_seats[0] if thief is None else thief,
    }
    return scored, own
