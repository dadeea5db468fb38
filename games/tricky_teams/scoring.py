"""Scoring a trick: card and team strengths, the winning team, loot order, Thief and Strategist effects."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from games.tricky_teams.cards import PEASANT, PEASANTS, RANK, STRATEGIST, TEAM, THIEF

_STRENGTH = itemgetter("strength")


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


def card_strength(rank: int, cooks: int) -> int:
    """Ruling 5: a card's strength is its rank plus the Cooks lying out before its player (a flag: 0)."""
    return 0 if rank == 0 else rank + cooks


def team_strengths(plays: list[dict[str, Any]]) -> dict[str, int]:
    """Ruling 5/6: each colour team's summed strength, and the Peasants' when a 1 was played."""
    totals: dict[str, int] = {}
    peasants = peasant_cooks = 0
    for play in plays:
        team = TEAM[play["card"]]
        if team is None:  # a white flag stays out of every team
            continue
        totals[team] = totals.get(team, 0) + play["strength"]
        if RANK[play["card"]] == PEASANT:
            peasants += 1
            peasant_cooks += play["strength"] - PEASANT
    if peasants:
        totals[PEASANTS] = peasant_strength(peasants, peasant_cooks)
    return totals


def is_member(card: str, team: str) -> bool:
    """Ruling 6/8: a card is in the winning team by colour, or as a 1 when the Peasants win."""
    return RANK[card] == PEASANT if team == PEASANTS else TEAM[card] == team


def score_trick(
    plays: list[dict[str, Any]], cooks_out: list[int], raid: int, number: int, leader: int
) -> tuple[dict[str, Any], list[list[Any]]]:
    """Reveal and evaluate a complete trick: the scored trick (wire.ScoredTrick) and the own cards.

    Each play of the trick gains its `strength`.  The own cards are [seat, card] pairs in pick order.
    """
    for play in plays:
        play["strength"] = card_strength(RANK[play["card"]], cooks_out[play["seat"]])
    totals = team_strengths(plays)
    team = winning_team(plays, totals)
    members = [play for play in plays if is_member(play["card"], team)]
    loot = [play["card"] for play in plays if not is_member(play["card"], team)]
    thief = next((play["seat"] for play in members if RANK[play["card"]] == THIEF), None)
    strategist = next((play["seat"] for play in members if RANK[play["card"]] == STRATEGIST), None)
    order = loot_order(members, team)
    order_seats = [play["seat"] for play in order]
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
        "next_leader": next_leader(order_seats, thief, strategist),
    }
    return scored, [[play["seat"], play["card"]] for play in order]
