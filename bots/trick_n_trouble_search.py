"""Trick 'n Trouble `search`: determinized Monte Carlo over the hands of the players still to play.

At a play the bot samples the cards it cannot see (the other hands and the draw pile) from
every card not in its hand, the discard pile, the trick or -- in expert mode, where played tricks
vanish from the view -- its own memory of the tricks it saw, and builds the game that sample makes
(`determinize.state_from_view`). For each sample it plays each of its cards on a copy of that game
(`GAME.clone`, `GAME.apply_unchecked`) and follows it with the best the rest of the trick can do
(the partners are cooperative: the last player sees the trick and completes what it can, so the
best follow is assumed): the points the trick scores, minus a small cost for every card spent
(strong cards are worth keeping for later tasks). It plays the best average. The level, passing
and switching decisions use the heuristic. The lookahead is one trick: the points of a trick depend
on its three cards only, and the next hands are refilled from a shuffled pile.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bots import trick_n_trouble_heuristic
from bots.policy import THINK_CAP_S, THINK_SHARE, Memory, Message, Move, ThinkClock, seeded_rng
from games.base import State
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import LEVELS, Card, card_table
from games.trick_n_trouble.determinize import state_from_view, unknown_tasks

SEATS = 3
# Cost per rank of spending a card: strong cards are worth keeping for later tasks.
WASTE_PER_RANK = 0.15


def remember(view: dict[str, Any], memory: Memory) -> set[str]:
    """Cards this seat has seen played (kept per match: expert mode hides finished tricks)."""
    seen: set[str] = memory.setdefault("seen", set())
    seen.update(played["card"] for played in view["trick"])
    seen.update(view.get("discard") or [])
    return seen


def unseen_cards(view: dict[str, Any], seen: set[str], table: dict[str, Card]) -> list[str]:
    """Every card that may be in another hand or the draw pile."""
    known = set(view["hand"]) | seen | {played["card"] for played in view["trick"]}
    return [card for card in table if card not in known]


def sample_state(view: dict[str, Any], pool: list[str], rng: random.Random) -> State:
    """A game consistent with the view: the other hands and the draw pile dealt at random from `pool`."""
    me = view["seat"]
    cards = list(pool)
    rng.shuffle(cards)
    hands, start = [], 0
    for seat, size in enumerate(view["hand_sizes"]):
        if seat == me:
            hands.append(list(view["hand"]))
        else:
            hands.append(cards[start : start + size])
            start += size
    piles = unknown_tasks(view) or ({"story": []} if view["options"]["story"] else dict.fromkeys(LEVELS, []))
    return state_from_view(view, hands, cards[start:], {key: list(pile) for key, pile in piles.items()})


def completion(state: State, view: dict[str, Any], table: dict[str, Card]) -> float:
    """The best the players after the viewing seat can make of the trick in `state`: the points it
    scores, less the waste of the cards they spend (automatic last cards included).

    `state` is the caller's throwaway copy: the last follow-up is played on it, the others on clones.
    """
    if state["round"] != view["round"] or GAME.is_over(state):  # the trick is scored
        followers = state["tricks"][-1][len(view["trick"]) + 1 :]
        spent = sum(table[played["card"]].value for played in followers)
        scored: int = state["points"] - view["points"]
        return scored - WASTE_PER_RANK * spent
    seat = GAME.to_move(state)[0]
    best = float("-inf")
    moves = GAME.legal_moves(state, seat)
    last = len(moves) - 1
    for i, move in enumerate(moves):
        copy = state if i == last else GAME.clone(state)
        GAME.apply_unchecked(copy, seat, move)
        best = max(best, completion(copy, view, table))
    return best


@dataclass
class TrickNTroubleSearch:
    """The search policy; `samples` caps the determinizations, `fraction` the share of the deadline it
    thinks (`bots.policy.ThinkClock`: wall and CPU time), at most `cap_s`."""

    samples: int = 300
    fraction: float = THINK_SHARE
    cap_s: float = THINK_CAP_S

    def __call__(self, message: Message, memory: Memory) -> Move:
        """Choose a move for the request, remembering the cards it saw."""
        view, legal = message["view"], message["legal_moves"]
        seen = remember(view, memory)
        rng = seeded_rng(message, "search")
        if len(legal) == 1 or legal[0]["type"] != "play":
            return trick_n_trouble_heuristic.choose(view, legal, rng)
        table = card_table(tuple(view["options"]["colours"]))
        pool = unseen_cards(view, seen, table)
        me = view["seat"]
        followers = SEATS - 1 - len(view["trick"])
        totals = [0.0] * len(legal)
        done = 0
        with ThinkClock.thinking(message, self.fraction, self.cap_s) as clock:
            while done < self.samples and not clock.over():
                state = sample_state(view, pool, rng)
                for i, move in enumerate(legal):
                    copy = state if i == len(legal) - 1 else GAME.clone(state)  # not used after
                    GAME.apply_unchecked(copy, me, move)
                    totals[i] += completion(copy, view, table) - WASTE_PER_RANK * table[move["card"]].value
                done += 1
                if not followers:
                    break  # the last player sees everything: one evaluation is exact
        if not done:  # no time for a single sample (a very busy bot): the heuristic answers
            return trick_n_trouble_heuristic.choose(view, legal, rng)
        best = max(range(len(legal)), key=lambda i: (totals[i], -table[legal[i]["card"]].value, rng.random()))
        chosen: Move = legal[best]
        return chosen
