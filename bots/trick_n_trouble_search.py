"""Trick 'n Trouble `search`: determinized Monte Carlo over the hands of the players still to play.

At a play the bot samples the cards it cannot see (the other hands and the draw pile) from
every card not in its hand, the discard pile, the trick or -- in expert mode, where played tricks
vanish from the view -- its own memory of the tricks it saw. For each sample it scores each of its
cards by the best points the rest of the trick can then reach (the partners are cooperative:
the last player sees the trick and completes what it can, so the best follow is assumed) minus
a small cost for spending strong cards, and plays the best average. The level, passing and
switching decisions use the heuristic. The lookahead is one trick: the points of a trick depend
on its three cards only, and the next hands are refilled from a shuffled pile.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from bots import trick_n_trouble_heuristic
from bots.policy import Memory, Message, Move, budget_s, seeded_rng
from games.trick_n_trouble.cards import Card, card_table, colour_sums, condition
from games.trick_n_trouble.determinize import playable
from games.trick_n_trouble.scoring import task_met

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


def trick_points(tasks: list[dict[str, Any]], cards: list[str], table: dict[str, Card]) -> int:
    """Points of the face-up tasks that a trick of these cards fulfils."""
    sums = colour_sums(cards, table)
    return sum(task["points"] for task in tasks if task_met(condition(task), sums))


def best_completion(
    tasks: list[dict[str, Any]],
    trick: list[str],
    hands: list[list[str]],
    colours: tuple[str, ...],
    table: dict[str, Card],
) -> float:
    """The most points the players still to play (with `hands`, in order) can reach, minus the waste."""
    if not hands:
        return float(trick_points(tasks, trick, table))
    best = float("-inf")
    for card in playable(hands[0], trick, colours):
        value = best_completion(tasks, trick + [card], hands[1:], colours, table)
        best = max(best, value - WASTE_PER_RANK * table[card].value)
    return best


@dataclass
class TrickNTroubleSearch:
    """The search policy; `samples` caps the determinizations, `fraction` the share of the deadline used."""

    samples: int = 300
    fraction: float = 0.5
    cap_s: float = 2.0

    def __call__(self, message: Message, memory: Memory) -> Move:
        """Choose a move for the request, remembering the cards it saw."""
        view, legal = message["view"], message["legal_moves"]
        seen = remember(view, memory)
        rng = seeded_rng(message, "search")
        if len(legal) == 1 or legal[0]["type"] != "play":
            return trick_n_trouble_heuristic.choose(view, legal, rng)
        colours = tuple(view["options"]["colours"])
        table = card_table(colours)
        pool = unseen_cards(view, seen, table)
        me = view["seat"]
        trick = [played["card"] for played in view["trick"]]
        followers = [(me + i) % SEATS for i in range(1, SEATS - len(trick))]
        sizes = view["hand_sizes"]
        totals = [0.0] * len(legal)
        stop = time.monotonic() + budget_s(message, self.fraction, self.cap_s)
        done = 0
        while done < self.samples and (done == 0 or time.monotonic() < stop):
            hands = sample_hands(pool, [sizes[s] for s in followers], rng)
            for i, move in enumerate(legal):
                card = move["card"]
                value = best_completion(view["tasks"], trick + [card], hands, colours, table)
                totals[i] += value - WASTE_PER_RANK * table[card].value
            done += 1
            if not followers:
                break  # the last player sees everything: one evaluation is exact
        best = max(range(len(legal)), key=lambda i: (totals[i], -table[legal[i]["card"]].value, rng.random()))
        chosen: Move = legal[best]
        return chosen


def sample_hands(pool: list[str], sizes: list[int], rng: random.Random) -> list[list[str]]:
    """Random hands of the given sizes from the pool (what is left over is the draw pile)."""
    cards = rng.sample(pool, min(len(pool), sum(sizes)))
    out, start = [], 0
    for size in sizes:
        out.append(cards[start : start + size])
        start += size
    return out
