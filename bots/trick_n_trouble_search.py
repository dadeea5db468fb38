"""Trick 'n Trouble `search`: determinized Monte Carlo with a two-trick lookahead; it also chooses
the task levels to draw and the tasks to switch.

At a decision the bot samples the cards it cannot see (the other hands and the draw pile) from
every card not in its hand, the discard pile, the trick or -- in expert mode, where played tricks
vanish from the view -- its own memory of the tricks it saw, shuffles the task piles it cannot
see, and builds the game that sample makes (`determinize.state_from_view`).

- A play: for each sample it plays each of its cards on a copy of that game (`GAME.clone`,
  `GAME.apply_unchecked`) and follows it with the best the rest of the trick can do (the partners
  are cooperative: the last player sees the trick and completes what it can, so the best follow
  is assumed): the points the trick scores, minus a small cost for every card spent. Then the
  sampled game goes on to the next round (the preferred level drawn, no passing, the tasks kept,
  the hands refilled from the sampled pile) and the best the next trick can score in that known
  world is added (`next_trick`: every lead and legal follow, its points less the waste of its
  cards): a card is worth keeping when the next trick needs it. It plays the best average.
- A task level to draw, or a task to switch (or keep): each option is applied to each sample and
  scored by the best the next trick can then make (`next_trick`): the tasks the team's cards can
  reach. Ties go to the heuristic's choice.

Passing uses the heuristic (it skips). Which task fulfils a trick's sums in the lookahead is the
heuristic's `task_deficit`, cached per task condition and sums.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots import trick_n_trouble_heuristic
from bots.policy import THINK_CAP_S, THINK_SHARE, Memory, Message, Move, ThinkClock, seeded_rng
from games.base import State
from games.trick_n_trouble import GAME
from games.trick_n_trouble.cards import LEVELS, Card, card_table, edition
from games.trick_n_trouble.determinize import state_from_view, unknown_tasks

# Cost per rank of spending a card: strong cards are worth keeping for later tasks.
WASTE_PER_RANK = 0.15
# The same cost in the next trick's estimate (`next_trick`).
NEXT_WASTE = 0.15
# The decisions searched besides plays: a level to draw a task from, a task to switch or keep.
SETUP_DECISIONS = frozenset({"choose-task-level", "keep-tasks", "switch-task"})


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
    orders = {key: list(pile) for key, pile in piles.items()}
    if not view["options"]["story"]:  # the level piles' order is hidden (story: kept in deck order)
        for pile in orders.values():
            rng.shuffle(pile)
    return state_from_view(view, hands, cards[start:], orders)


def completion(state: State, view: dict[str, Any], table: dict[str, Card]) -> tuple[float, State]:
    """The best the players after the viewing seat can make of the trick in `state`: the points it
    scores, less the waste of the cards they spend (automatic last cards included).

    `state` is the caller's throwaway copy: the last follow-up is played on it, the others on clones.
    """
    if state["round"] != view["round"] or GAME.is_over(state):  # the trick is scored
        followers = state["tricks"][-1][len(view["trick"]) + 1 :]
        spent = sum(table[played["card"]].value for played in followers)
        scored: int = state["points"] - view["points"]
        return scored - WASTE_PER_RANK * spent, state
    seat = GAME.to_move(state)[0]
    best: tuple[float, State] = (float("-inf"), state)
    moves = GAME.legal_moves(state, seat)
    last = len(moves) - 1
    for i, move in enumerate(moves):
        copy = state if i == last else GAME.clone(state)
        GAME.apply_unchecked(copy, seat, move)
        found = completion(copy, view, table)
        if found[0] > best[0]:
            best = found
    return best


def setup_round(state: State) -> None:
    """Take the next round's decisions before its trick as a quick rule: refill the preferred
    level, no passing, keep the tasks."""
    while not GAME.is_over(state) and state["phase"] != "play":
        seat = GAME.to_move(state)[0]
        moves = GAME.legal_moves(state, seat)
        kinds = {move["type"]: move for move in moves}
        if "choose-task-level" in kinds:
            level = trick_n_trouble_heuristic.preferred_level([move["level"] for move in moves])
            move = next(move for move in moves if move["level"] == level)
        else:
            move = kinds.get("skip-passing") or kinds.get("keep-tasks") or moves[0]
        GAME.apply_unchecked(state, seat, move)


# Whether a task is met by colour sums (the heuristic's `task_deficit` is 0), by the task's condition
# as the game reads it (`Edition.conditions`, hashable) and the sums: shared by every decision.
_MET: dict[tuple[Any, tuple[int, int, int]], bool] = {}
_MET_SIZE = 1 << 16  # about 35,000 are met in 20 games (27 tasks, the sums of three cards)


def task_met(condition: Any, task: dict[str, Any], sums: tuple[int, int, int]) -> bool:
    """Whether sums fulfil the task (cached in `_MET`)."""
    key = (condition, sums)
    met = _MET.get(key)
    if met is None:
        if len(_MET) >= _MET_SIZE:
            _MET.clear()
        met = _MET[key] = trick_n_trouble_heuristic.task_deficit(task, list(sums)) == 0
    return met


def next_trick(state: State, table: dict[str, Card]) -> float:
    """The best the next trick can score in this (fully known) world: its points less the waste of
    its cards, over every lead and legal follow; 0 when a hand is down to its last card."""
    setup_round(state)
    if GAME.is_over(state) or min(len(hand) for hand in state["hands"]) < 2:
        return 0.0
    tables = edition(state["header"]["options"])
    face_up = [(tables.conditions[task_id], tables.tasks[task_id]) for task_id in state["face_up"]]
    leader = GAME.to_move(state)[0]
    best = 0.0
    for lead in GAME.legal_moves(state, leader):
        copy = GAME.clone(state)
        GAME.apply_unchecked(copy, leader, lead)
        second = GAME.to_move(copy)[0]
        seconds = GAME.legal_moves(copy, second)
        GAME.apply_unchecked(copy, second, seconds[0])
        thirds = [table[move["card"]] for move in GAME.legal_moves(copy, GAME.to_move(copy)[0])]
        first = table[lead["card"]]
        for a in (table[move["card"]] for move in seconds):
            for b in thirds:
                sums = (
                    first.adds[0] + a.adds[0] + b.adds[0],
                    first.adds[1] + a.adds[1] + b.adds[1],
                    first.adds[2] + a.adds[2] + b.adds[2],
                )
                value = -NEXT_WASTE * (first.value + a.value + b.value)
                for condition, task in face_up:
                    met = _MET.get((condition, sums))
                    if met is None:
                        met = task_met(condition, task, sums)
                    if met:
                        value += task["points"]
                if value > best:
                    best = value
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
        kind = legal[0]["type"]
        table = card_table(tuple(view["options"]["colours"]))
        pool = unseen_cards(view, seen, table)
        if len(legal) > 1 and kind in SETUP_DECISIONS and unknown_tasks(view) is not None:
            # (a custom task deck: the piles' tasks are unknown, the heuristic decides)
            return self.setup(message, view, legal, pool, table, rng)
        if len(legal) == 1 or kind != "play":
            return trick_n_trouble_heuristic.choose(view, legal, rng)

        def value(after: State, move: Move) -> float:
            points, later = completion(after, view, table)
            return points + (next_trick(later, table) - WASTE_PER_RANK * table[move["card"]].value)

        totals = self.sampled_totals(message, view, legal, pool, rng, value)
        if totals is None:  # no time for a single sample (a very busy bot): the heuristic answers
            return trick_n_trouble_heuristic.choose(view, legal, rng)
        best = max(range(len(legal)), key=lambda i: (totals[i], -table[legal[i]["card"]].value, rng.random()))
        chosen: Move = legal[best]
        return chosen

    def sampled_totals(
        self,
        message: Message,
        view: dict[str, Any],
        legal: list[Move],
        pool: list[str],
        rng: random.Random,
        value: Callable[[State, Move], float],
    ) -> list[float] | None:
        """Each legal move's total `value` (of the sampled game after it) over as many sampled
        worlds as the budget and the think clock allow; None if not a single one fitted."""
        me = view["seat"]
        totals = [0.0] * len(legal)
        done = 0
        with ThinkClock.thinking(message, self.fraction, self.cap_s) as clock:
            while done < self.samples and not clock.over():
                state = sample_state(view, pool, rng)
                for i, move in enumerate(legal):
                    copy = state if i == len(legal) - 1 else GAME.clone(state)  # not used after
                    GAME.apply_unchecked(copy, me, move)
                    totals[i] += value(copy, move)
                done += 1
        return totals if done else None

    def setup(
        self,
        message: Message,
        view: dict[str, Any],
        legal: list[Move],
        pool: list[str],
        table: dict[str, Card],
        rng: random.Random,
    ) -> Move:
        """A task level to draw or a task to switch: each option scored by the best the next trick
        can then make in each sampled world (`next_trick`)."""
        totals = self.sampled_totals(
            message, view, legal, pool, rng, lambda after, _move: next_trick(after, table)
        )
        if totals is None:
            return trick_n_trouble_heuristic.choose(view, legal, rng)
        heuristic = trick_n_trouble_heuristic.choose(view, legal, random.Random(0))
        best = max(range(len(legal)), key=lambda i: (totals[i], legal[i] == heuristic, rng.random()))
        chosen: Move = legal[best]
        return chosen
