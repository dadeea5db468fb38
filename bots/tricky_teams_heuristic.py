"""Rules of thumb a good human uses in Tricky Teams, as a pure `choose(view, legal_moves, rng)`.

- Late in a trick, join or challenge with the card that makes the winning team yours, preferring
  a Thief (takes all the loot), a Cook (lies out and strengthens the rest of the raid) or a
  Countess (comes back as 2 coins); the weakest card that still wins otherwise.
- When you can't win, dump what costs least as loot: a flag, then a low plain card; never throw
  away a Countess, a Thief or a Strategist if anything else is legal.
- Add a Peasant to a Peasant uprising that would win; wish with a Hypnotist that the next player
  plays the weakest team out (their card becomes loot).
- Loot: the most coins first. Strategist: lead yourself.
"""

from __future__ import annotations

import random
from typing import Any

from games.tricky_teams import score_plays
from games.tricky_teams.cards import (
    COOK,
    COUNTESS,
    FLAG,
    FOOL,
    PEASANT,
    RANK,
    STRATEGIST,
    TEAM,
    TEAMS,
    THIEF,
)
from games.tricky_teams.wire import TrickPlay

Move = dict[str, Any]
View = dict[str, Any]

# What losing a card as loot costs (coins plus how useful it is to keep for later tricks).
KEEP_VALUE: dict[int, float] = {
    0: 0.0,
    1: 1.3,
    2: 2.2,
    3: 2.0,
    4: 1.4,
    5: 3.5,
    6: 1.5,
    7: 1.3,
    8: 1.2,
    9: 2.2,
    10: 1.6,
}
# Bonus for winning with a card whose ability pays off in the winning team.
WIN_BONUS: dict[int, float] = {THIEF: 3.0, COOK: 1.5, COUNTESS: 1.0, STRATEGIST: 0.5}


def coin_of(card: str, coins: dict[str, int]) -> int:
    """Coins the card is worth on a loot pile."""
    return int(coins[str(RANK[card])])


def visible_outcome(view: View, card: str, seat: int) -> dict[str, Any] | None:
    """Score the trick as if it ended after `seat` plays `card` (face-down cards unknown: ignored)."""
    cooks = [len(p["cooks"]) for p in view["players"]]
    plays: list[TrickPlay] = [
        {"seat": p["seat"], "card": p["card"], "face_down": p["face_down"], "wish": p["wish"]}
        for p in view["trick"]
        if p["card"] is not None
    ]
    plays.append({"seat": seat, "card": card, "face_down": False, "wish": None})
    if all(TEAM[p["card"]] is None for p in view["trick"] if p["card"] is not None) and TEAM[card] is None:
        return None  # only flags: nobody wins anything
    return dict(score_plays(plays, cooks))


def trick_value(view: View, coins: dict[str, int]) -> int:
    """Coins lying in the current trick (face-down cards count as one coin)."""
    return sum(1 if p["card"] is None else coin_of(p["card"], coins) for p in view["trick"])


def play_score(view: View, move: Move, seat: int, remaining: int, coins: dict[str, int]) -> float:
    """How good playing `move` looks now: expected gain if it wins minus the cost if it is lost."""
    card = move["card"]
    rank = RANK[card]
    keep = KEEP_VALUE[rank]
    if card == FLAG:
        return 0.1 - 0.1 * remaining  # a flag costs nothing: a fine dump, a poor lead
    outcome = visible_outcome(view, card, seat)
    if outcome is None:
        return -keep
    if seat not in outcome["winners"]:
        return -keep - 0.05 * rank  # a lost card becomes someone else's loot
    share = trick_value(view, coins) / max(1, len(outcome["winners"]))
    if outcome["thief"] == seat:
        share = float(trick_value(view, coins))
    gain = share + coin_of(card, coins) + WIN_BONUS.get(rank, 0.0)
    # Later players may still overturn the trick: trust a win less the more seats are to come
    # and the thinner its margin.
    first = 1.0 / (1.0 + remaining)
    holds = first + (1.0 - first) * min(1.0, _margin(outcome) / 10.0)
    return holds * gain - (1.0 - holds) * keep


def _margin(outcome: dict[str, Any]) -> float:
    values = sorted(outcome["strengths"].values(), reverse=True)
    return float(values[0] - values[1]) if len(values) > 1 else float(values[0])


def choose_wish(view: View, move: Move, seat: int, legal: list[Move]) -> Move:
    """A Hypnotist's best wish: the next player must play the weakest team out (or another team)."""
    wishes = [m for m in legal if m.get("card") == move["card"] and "wish" in m]
    if not wishes:
        return move
    target = min({m["wish"]["seat"] for m in wishes}, key=lambda s: (s - seat) % view["seats"])
    my_team = TEAM[move["card"]]
    outcome = visible_outcome(view, move["card"], seat)
    strengths = outcome["strengths"] if outcome else {}
    losing = [t for t in TEAMS if t != my_team and t in strengths]
    team = min(losing, key=lambda t: strengths[t]) if losing else next(t for t in TEAMS if t != my_team)
    for m in wishes:
        if m["wish"] == {"seat": target, "team": team}:
            return m
    return move


def choose_play(view: View, legal: list[Move], rng: random.Random) -> Move:
    """The best-looking card by `play_score`, a random tie-break; Hypnotists get a wish."""
    seat: int = view["seat"]
    coins = view["options"]["coins"]
    remaining = view["seats"] - len(view["trick"]) - 1
    plain = [m for m in legal if "wish" not in m]
    if not view["trick"]:
        return choose_lead(view, plain, rng)
    best = max(plain, key=lambda m: (play_score(view, m, seat, remaining, coins), rng.random()))
    if RANK[best["card"]] == 4 and remaining > 0:
        return choose_wish(view, best, seat, legal)
    return best


def choose_lead(view: View, legal: list[Move], rng: random.Random) -> Move:
    """Lead a strong plain card of the longest team (others must challenge a strong start)."""
    hand = [m["card"] for m in legal]
    length = {t: sum(1 for c in hand if TEAM[c] == t) for t in TEAMS}

    def lead_value(move: Move) -> tuple[float, float]:
        card = move["card"]
        rank = RANK[card]
        if card == FLAG:
            return (-5.0, rng.random())
        special = rank in (THIEF, COUNTESS, STRATEGIST, COOK, FOOL, PEASANT)
        return (rank + length[TEAM[card] or "red"] - (6 if special else 0), rng.random())

    return max(legal, key=lead_value)


def choose(view: View, legal_moves: list[Move], rng: random.Random) -> Move:
    """Pick one of `legal_moves` for the seat whose `view` this is."""
    kind = legal_moves[0]["type"]
    if kind == "play":
        return choose_play(view, legal_moves, rng)
    if kind == "take-loot":
        coins = view["options"]["coins"]
        return max(legal_moves, key=lambda m: (coin_of(m["card"], coins), RANK[m["card"]], rng.random()))
    own = [m for m in legal_moves if m.get("seat") == view["seat"]]
    return own[0] if own else legal_moves[0]
