"""Scoring a trick: card and team strengths, the winning team, loot order, Thief and Strategist effects."""

from __future__ import annotations

from typing import Any

from games.tricky_teams.cards import COOK, FLAG, PEASANT, PEASANTS, RANK, STRATEGIST, TEAM, THIEF


def cook_bonus(rank: int, cooks_out: int) -> int:
    """Ruling 5: a card's strength is its rank plus its player's Cooks lying out (from earlier tricks)."""
    return rank + cooks_out


def card_strengths(plays: list[dict[str, Any]], cooks_out: list[int]) -> list[int]:
    """Strength of every card of the trick in play order (a flag stays out of the trick: 0)."""
    return [0 if p["card"] == FLAG else cook_bonus(RANK[p["card"]], cooks_out[p["seat"]]) for p in plays]


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
        if team in tied:
            assert team is not None
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
    return sorted(members, key=lambda i: (-strengths[i], i))


def thief_in_team(plays: list[dict[str, Any]], members: list[int]) -> int | None:
    """Ruling 8 / 10: the seat of a Thief (2) in the winning team, who takes all loot and leads."""
    for i in members:
        if RANK[plays[i]["card"]] == THIEF:
            seat: int = plays[i]["seat"]
            return seat
    return None


def strategist_in_team(plays: list[dict[str, Any]], members: list[int]) -> int | None:
    """Ruling 10: the seat of a Strategist (9) in the winning team, who chooses the next leader."""
    for i in members:
        if RANK[plays[i]["card"]] == STRATEGIST:
            seat: int = plays[i]["seat"]
            return seat
    return None


def next_leader(order_seats: list[int], thief: int | None, strategist: int | None) -> int | None:
    """Ruling 10: the Strategist chooses (None: still to choose), else the Thief, else the strongest card."""
    if strategist is not None:
        return None
    if thief is not None:
        return thief
    return order_seats[0]


def cooks_lie_out(plays: list[dict[str, Any]], members: list[int]) -> list[int]:
    """Ruling 9: indices of Cooks in the winning team; they lie out in front of their player."""
    return [i for i in members if RANK[plays[i]["card"]] == COOK]


def score_trick(plays: list[dict[str, Any]], cooks_out: list[int]) -> dict[str, Any]:
    """Reveal and evaluate a complete trick: strengths, winning team, pick order, loot, Thief, Strategist."""
    strengths = card_strengths(plays, cooks_out)
    totals = colour_team_strengths(plays, strengths)
    peasants = [p["seat"] for p in plays if RANK[p["card"]] == PEASANT]
    if peasants:
        totals[PEASANTS] = peasant_strength(len(peasants), sum(cooks_out[s] for s in peasants))
    team = winning_team(plays, strengths, totals)
    members = team_members(plays, team)
    order = loot_order(members, strengths, team)
    in_team = set(members)
    thief = thief_in_team(plays, members)
    strategist = strategist_in_team(plays, members)
    order_seats = [plays[i]["seat"] for i in order]
    return {
        "plays": [
            {
                "seat": p["seat"],
                "card": p["card"],
                "face_down": p["face_down"],
                "wish": p["wish"],
                "strength": s,
            }
            for p, s in zip(plays, strengths, strict=True)
        ],
        "strengths": totals,
        "winning_team": team,
        "winners": order_seats,
        "loot": [p["card"] for i, p in enumerate(plays) if i not in in_team],
        "thief": thief,
        "strategist": strategist,
        "next_leader": next_leader(order_seats, thief, strategist),
        "own": [[plays[i]["seat"], plays[i]["card"]] for i in order],
    }
