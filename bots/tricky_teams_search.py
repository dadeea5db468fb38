"""Tricky Teams `search`: determinized Monte Carlo (perfect-information rollouts over sampled deals).

At each play the bot samples the hidden cards consistently with everything its seat knows --
its hand and loot, every card played this raid (remembered per match from `last_trick`), the 8s
in other hands (they have no back), Cooks lying out, and the voids that plays revealed (a seat
that failed to challenge, join or obey a wish holds none of those teams) -- and builds the game
that sample makes (`determinize.state_from_view`). It then scores every candidate move on the
same samples by a random playout a few tricks deep on a copy of that game (`GAME.clone`, then
`GAME.push` of `GAME.playout_moves`: the unchecked apply without events), valued by the coins each
seat won in it (`GAME.coins_won` after minus before), and plays the best average of (own coins -
mean coins of the others). The candidates' playouts on one sample draw the same random numbers
(common random numbers, `Replay`): they differ by the candidate more than by luck, which makes the
comparison sharper for about 1% more CPU (at 30 samples, over three heuristic bots: +1.99 coins a
game against +1.73 with independent playouts on the benchmark's deals, +1.81 against +1.51 on 200
others). Missed calls only lose information: the sampler then spreads the unknown cards over a
larger pool and stays consistent.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol

from bots import tricky_teams_heuristic
from bots.policy import THINK_CAP_S, THINK_SHARE, Memory, Message, Move, ThinkClock, seeded_rng
from games.base import State
from games.tricky_teams import GAME
from games.tricky_teams.cards import FLAG, FOOL, PEASANT, RANK, TEAM, TEAMS, full_deck
from games.tricky_teams.determinize import state_from_view

# --------------------------------------------------------------------------- what the seat knows


def remember(view: dict[str, Any], memory: Memory) -> None:
    """Store the last scored trick (all cards revealed) under its raid and number."""
    last = view.get("last_trick")
    tricks: dict[str, list[dict[str, Any]]] = memory.setdefault("tricks", {})
    if last is not None:
        tricks[f"{last['raid']}:{last['number']}"] = [
            {"seat": p["seat"], "card": p["card"], "face_down": p["face_down"], "wish": p["wish"]}
            for p in last["plays"]
        ]
    # Older raids are of no more use.
    for key in [k for k in tricks if int(k.split(":", 1)[0]) != view["raid"]]:
        del tricks[key]


def raid_tricks(view: dict[str, Any], memory: Memory) -> list[list[dict[str, Any]]]:
    """The remembered scored tricks of the current raid, in order."""
    tricks: dict[str, list[dict[str, Any]]] = memory.get("tricks", {})
    keys = sorted((int(k.split(":")[1]), k) for k in tricks if int(k.split(":")[0]) == view["raid"])
    return [tricks[k] for _, k in keys]


def infer_voids(plays: list[dict[str, Any]], seats: int, voids: dict[int, set[str]]) -> None:
    """Add to `voids` the teams each seat showed it lacks in one trick (plays in order; card None: hidden)."""
    out: list[str] = []
    down = False
    ones = 0
    wishes: dict[int, str] = {}
    for play in plays:
        seat, card = play["seat"], play["card"]
        if card is None:  # somebody else's face-down card: nothing to learn, but the fog is down
            down = True
            wishes.pop(seat, None)
            if play["wish"] is not None:
                wishes[play["wish"]["seat"]] = play["wish"]["team"]
            continue
        team, rank = TEAM[card], RANK[card]
        wished = wishes.pop(seat, None)
        obeyed = wished is not None and (team == wished or rank == FOOL)
        if wished is not None and not obeyed:
            voids[seat].add(wished)  # a binding wish is obeyed whenever possible
        # An obeyed wish overrides challenge and join: the play says nothing about the rest.
        basic = not obeyed and out and not down
        if basic and card != FLAG and rank != FOOL and not (ones and rank == PEASANT):
            if len(out) == 1 and team == out[0]:
                voids[seat].update(t for t in TEAMS if t != out[0])  # failed to challenge
            elif len(out) > 1 and team not in out:
                voids[seat].update(out)  # failed to join
        if play["face_down"]:
            down = True
        elif team is not None and team not in out:
            out.append(team)
        ones += rank == PEASANT
        if play["wish"] is not None:
            wishes[play["wish"]["seat"]] = play["wish"]["team"]


@dataclass
class Knowledge:
    """What one seat knows now: the unseen pool, how many hidden cards each seat holds, voids."""

    pool: list[str]
    needs: dict[int, int]  # seat -> hidden hand cards (its 8s excluded)
    known: dict[int, list[str]]  # seat -> cards known to be in its hand (its 8s; own hand)
    hidden_plays: list[int]  # indices of face-down trick plays the seat cannot see
    voids: dict[int, set[str]]


def knowledge(view: dict[str, Any], memory: Memory) -> Knowledge:
    """Everything the seat can deduce about the hidden cards from its view and memory."""
    seats, me = view["seats"], view["seat"]
    tricks = raid_tricks(view, memory)
    voids: dict[int, set[str]] = {s: set() for s in range(seats)}
    for plays in tricks:
        infer_voids(plays, seats, voids)
    infer_voids(view["trick"], seats, voids)
    located: Counter[str] = Counter(view["hand"])
    located.update(p["card"] for p in view["trick"] if p["card"] is not None)
    known: dict[int, list[str]] = {me: list(view["hand"])}
    needs: dict[int, int] = {}
    for player in view["players"]:
        if player["seat"] != me:
            located.update(player["eights"])
            known[player["seat"]] = list(player["eights"])
            needs[player["seat"]] = player["hand_size"] - len(player["eights"])
    played: Counter[str] = Counter(card["card"] for plays in tricks for card in plays)
    # My loot and the Cooks lying out were played this raid: a subset of the remembered tricks
    # when memory is complete, the only trace of them when calls were missed.
    seen_elsewhere: Counter[str] = Counter(view["players"][me].get("loot") or [])
    for player in view["players"]:
        seen_elsewhere.update(player["cooks"])
    located.update(played | seen_elsewhere)
    pool = list((Counter(full_deck(seats)) - located).elements())
    hidden = [i for i, p in enumerate(view["trick"]) if p["card"] is None]
    return Knowledge(pool, needs, known, hidden, voids)


def sample_hidden(
    k: Knowledge, rng: random.Random, tries: int = 20
) -> tuple[list[list[str]], dict[int, str]]:
    """Hands for every seat and the face-down cards, drawn from the pool respecting the voids."""
    for attempt in range(tries + 1):
        respect_voids = attempt < tries  # last resort: drop the voids rather than fail
        pool = list(k.pool)
        rng.shuffle(pool)
        face_down = {index: pool.pop() for index in k.hidden_plays if pool}
        hands = {seat: list(cards) for seat, cards in k.known.items()}

        voids = k.voids if respect_voids else {seat: set() for seat in k.voids}

        def allowed(seat: int, card: str, voids: dict[int, set[str]] = voids) -> bool:
            return TEAM[card] is None or TEAM[card] not in voids[seat]

        order = sorted(k.needs, key=lambda s: sum(1 for c in pool if allowed(s, c)))
        ok = True
        for seat in order:
            chosen = [c for c in pool if allowed(seat, c)][: k.needs[seat]]
            if len(chosen) < k.needs[seat]:
                ok = False
                break
            for card in chosen:
                pool.remove(card)
            hands[seat].extend(chosen)
        if ok and len(face_down) == len(k.hidden_plays):
            return [hands[s] for s in sorted(hands)], face_down
    raise ValueError("no consistent deal: the pool is too small")


# --------------------------------------------------------------------------- playouts

DRAWS = 24  # random numbers shared by the candidates' playouts of one sample (a 4-seat playout takes <= 22)


class Chance(Protocol):
    """Where a playout draws its random numbers: `random.Random` or a `Replay`."""

    def random(self) -> float: ...


class Replay:
    """The same random numbers for every candidate's playout of one sample (common random numbers:
    the candidates are compared on the same luck as far as it goes), then fresh ones from `rng`."""

    __slots__ = ("random",)

    def __init__(self, draws: list[float], rng: random.Random) -> None:
        self.random = chain(draws, iter(rng.random, 2.0)).__next__  # rng.random is never 2.0


def playout(
    state: State, seats: int, me: int, laid: int, rng: Chance, horizon: int, before: list[int]
) -> float:
    """Random play after a candidate play (`laid`: the cards in its trick with it) for `horizon`
    more tricks or to the raid's end: the coins `me` won since `before` (`GAME.coins_won` of the
    position searched) minus the mean of the others'.

    Each decision is a uniformly random move of `GAME.playout_moves` (a Hypnotist without a wish),
    made with `GAME.push`; a trick counts once the next one starts (its loot handed out).
    """
    to_move, moves_of, push = GAME.to_move, GAME.playout_moves, GAME.push
    trick_won = laid == seats
    started = 0
    first = True  # a trick the candidate completed whose successor started with it counts no more
    pick = rng.random
    while turn := to_move(state):  # nobody moves once the game is over
        seat = turn[0]
        moves = moves_of(state, seat)
        if moves[0]["type"] == "play":
            if trick_won and not first:  # the next trick starts
                started += 1
                if started > horizon:
                    break
            laid = laid % seats + 1  # every seat lays one card per trick
            trick_won = laid == seats
        first = False
        push(state, seat, moves[int(pick() * len(moves))])
    won = [after - was for after, was in zip(GAME.coins_won(state), before, strict=True)]
    return won[me] - (sum(won) - won[me]) / (seats - 1)


def candidates(view: dict[str, Any], legal: list[Move]) -> list[Move]:
    """The moves worth searching: every plain move, wishes only towards the next player."""
    nxt = (view["seat"] + 1) % view["seats"]
    return [m for m in legal if "wish" not in m or m["wish"]["seat"] == nxt]


@dataclass
class TrickyTeamsSearch:
    """The search policy; `samples` caps the determinizations, `fraction` the share of the deadline it
    thinks (`bots.policy.ThinkClock`: wall and CPU time), at most `cap_s`; `crn`: the candidates'
    playouts on a sample share their random numbers (off: each draws its own)."""

    samples: int = 400
    fraction: float = THINK_SHARE
    cap_s: float = THINK_CAP_S
    horizon: int = 3
    crn: bool = True

    def __call__(self, message: Message, memory: Memory) -> Move:
        """Choose a move for the request, remembering what it shows for later calls."""
        view, legal = message["view"], message["legal_moves"]
        remember(view, memory)
        rng = seeded_rng(message, "search")
        if len(legal) == 1 or legal[0]["type"] == "take-loot":
            return tricky_teams_heuristic.choose(view, legal, rng)
        moves = candidates(view, legal)
        places = [legal.index(move) for move in moves]
        k = knowledge(view, memory)
        totals = [0.0] * len(moves)
        me, seats = view["seat"], view["seats"]
        laid = len(view["trick"]) + 1  # the cards in the candidate's trick with it
        done = 0
        with ThinkClock.thinking(message, self.fraction, self.cap_s) as clock:
            while done < self.samples and not clock.over():
                hands, face_down = sample_hidden(k, rng)
                root = state_from_view(view, hands, face_down)
                listed = GAME.legal_moves(root, me)  # equal to `legal`: the engine's own values
                before = GAME.coins_won(root)
                draws = [rng.random() for _ in range(DRAWS)] if self.crn else []
                for i, place in enumerate(places):
                    state = GAME.clone(root)
                    GAME.push(state, me, listed[place])
                    chance = Replay(draws, rng) if self.crn else rng
                    totals[i] += playout(state, seats, me, laid, chance, self.horizon, before)
                done += 1
        if not done:  # no time for a single sample (a very busy bot): the heuristic answers
            return tricky_teams_heuristic.choose(view, legal, rng)
        best = max(range(len(moves)), key=lambda i: (totals[i], -i))
        return moves[best]
