"""Scoring a trick: card and team strengths, the winning team, loot order, Thief and Strategist effects.

`score_plays` is the same scoring for bots, on plays in their wire form (card ids).
"""

from __future__ import annotations

from functools import partial

from games.tricky_teams.cards import (
    CARD_ID,
    CARD_NUMBER,
    PEASANT,
    PEASANTS,
    RANK_OF,
    STRATEGIST,
    TEAM_OF,
    TEAMS,
    THIEF,
    per_card,
)
from games.tricky_teams.state import Play
from games.tricky_teams.wire import ScoredPlay, ScoredTrick, TrickPlay, WinningTeam


def card_strength(card: int, cooks: int) -> int:
    """Ruling 5: rank plus the Cooks lying out before the card's player; a flag has none (ruling 20)."""
    return 0 if TEAM_OF[card] is None else RANK_OF[card] + cooks


def peasant_strength(peasants: int, cooks_of_members: int) -> int:
    """Ruling 6: the 1s side by side (1, 11, 111, 1111) plus one per Cook lying out before each member."""
    return int("1" * peasants) + cooks_of_members


def is_member(card: int, team: str) -> bool:
    """Rulings 6, 8 and 24: a card is in the winning team by its colour, and every 1 is a Peasant."""
    return RANK_OF[card] == PEASANT if team == PEASANTS else TEAM_OF[card] == team


def team_strengths(plays: list[Play], strengths: list[int], cooks: list[int]) -> dict[WinningTeam, int]:
    """Ruling 5/6: each colour team's summed strength, and the Peasants' when a 1 was played."""
    totals: dict[WinningTeam, int] = {}
    peasants = peasant_cooks = 0
    for play, strength in zip(plays, strengths, strict=True):
        team = TEAM_OF[play["card"]]
        if team is None:  # a white flag is in no team
            continue
        totals[team] = totals.get(team, 0) + strength
        if IS_PEASANT[play["card"]]:
            peasants += 1
            peasant_cooks += cooks[play["seat"]]
    if peasants:
        totals[PEASANTS] = peasant_strength(peasants, peasant_cooks)
    return totals


def peasants_win_ties(tied: list[WinningTeam]) -> bool:
    """Ruling 6: a Peasant team wins every tie it is part of."""
    return PEASANTS in tied


def first_to_reach_wins_tie(
    plays: list[Play], strengths: list[int], tied: list[WinningTeam], value: int
) -> WinningTeam:
    """Ruling 7: among tied colour teams, the one whose running total reached the value first wins."""
    running: dict[str, int] = {}
    for play, strength in zip(plays, strengths, strict=True):
        team = TEAM_OF[play["card"]]
        if team is not None and team in tied:
            running[team] = running.get(team, 0) + strength
            if running[team] >= value:
                return team
    raise AssertionError("a tied team always reaches its own total")


def winning_team(plays: list[Play], strengths: list[int], totals: dict[WinningTeam, int]) -> WinningTeam:
    """The strongest team of the trick, ties broken by rulings 6 and 7."""
    best = max(totals.values())
    tied: list[WinningTeam] = []
    for team, value in totals.items():
        if value == best:
            tied.append(team)
    if len(tied) == 1:
        return tied[0]
    if peasants_win_ties(tied):
        return PEASANTS
    return first_to_reach_wins_tie(plays, strengths, tied, best)


def loot_order(members: list[int], strengths: list[int], team: str) -> list[int]:
    """Ruling 8: strongest card chooses first, equal strength by play order; Peasants: the last 1 first.

    `members` are the winning cards' places in the trick, in play order.
    """
    if team == PEASANTS:
        return members[::-1]
    # sorted() is stable even with reverse=True, so equal strengths keep their play order.
    return sorted(members, key=strengths.__getitem__, reverse=True)


def next_leader(
    winners: list[int], thief: int | None, strategist: int | None, last_of_raid: bool = False
) -> int | None:
    """Ruling 10: the Strategist chooses (None: still to choose), else the Thief, else the strongest
    card; ruling 17: after the raid's last trick nobody leads (None; the next raid opens with red-8)."""
    if last_of_raid or strategist is not None:
        return None
    if thief is not None:
        return thief
    return winners[0]


# The per-card rules above, tabulated: strength by the Cooks lying out (there are four Cooks) and
# card, membership by winning team and card.
STRENGTH: tuple[tuple[int, ...], ...] = tuple(
    per_card(partial(card_strength, cooks=cooks)) for cooks in range(5)
)
IS_MEMBER: dict[str, tuple[bool, ...]] = {
    team: per_card(partial(is_member, team=team)) for team in (*TEAMS, PEASANTS)
}
IS_PEASANT = IS_MEMBER[PEASANTS]


def score_trick(
    plays: list[Play], cooks: list[int], raid: int, number: int, leader: int, last_of_raid: bool = False
) -> tuple[ScoredTrick, list[int], list[list[int]]]:
    """Reveal and evaluate a complete trick (`cooks`: how many Cooks lie out before each seat;
    `last_of_raid`: the hands are empty after it).

    Returns the scored trick in its wire form (every card revealed), the loot in play order and
    the winners' own cards as [seat, card] pairs in pick order.
    """
    strengths: list[int] = []
    for play in plays:
        strengths.append(STRENGTH[cooks[play["seat"]]][play["card"]])
    totals = team_strengths(plays, strengths, cooks)
    team = winning_team(plays, strengths, totals)
    member = IS_MEMBER[team]
    scored_plays: list[ScoredPlay] = []
    members: list[int] = []
    loot: list[int] = []
    loot_ids: list[str] = []
    thief = strategist = None
    place = 0
    for play in plays:
        card = play["card"]
        scored_plays.append(
            {
                "seat": play["seat"],
                "card": CARD_ID[card],
                "face_down": play["face_down"],
                "wish": play["wish"],
                "strength": strengths[place],
            }
        )
        if member[card]:
            members.append(place)
            rank = RANK_OF[card]
            if rank == THIEF:
                thief = play["seat"]
            elif rank == STRATEGIST:
                strategist = play["seat"]
        else:
            loot.append(card)
            loot_ids.append(CARD_ID[card])
        place += 1
    own: list[list[int]] = []
    winners: list[int] = []
    for place in loot_order(members, strengths, team):
        seat = plays[place]["seat"]
        own.append([seat, plays[place]["card"]])
        winners.append(seat)
    scored: ScoredTrick = {
        "raid": raid,
        "number": number,
        "leader": leader,
        "plays": scored_plays,
        "strengths": totals,
        "winning_team": team,
        "winners": winners,
        "loot": loot_ids,
        "thief": thief,
        "strategist": strategist,
        "next_leader": next_leader(winners, thief, strategist, last_of_raid),
    }
    return scored, loot, own


def score_plays(plays: list[TrickPlay], cooks: list[int]) -> ScoredTrick:
    """The trick of `plays` scored as if it were complete, for a bot weighing a card: card ids, hidden
    cards (None) left out; `cooks` counts the Cooks lying out before each seat."""
    trick: list[Play] = [
        {
            "seat": play["seat"],
            "card": CARD_NUMBER[play["card"]],
            "face_down": play["face_down"],
            "wish": play["wish"],
        }
        for play in plays
        if play["card"] is not None
    ]
    return score_trick(trick, cooks, 0, 0, trick[0]["seat"])[0]
