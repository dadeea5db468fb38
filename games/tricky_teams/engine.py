"""Tricky Teams state machine: new games, legal moves, applying moves, tricks, loot, raids, the end.

The state is a plain JSON dict (see games/base.py).  Besides the header and the action list it
keeps small public aggregates of the current trick (`out`, `down`, `fog`, `ones`, `wishes`) so
that legal moves are computed without rescanning the trick.
"""

from __future__ import annotations

from typing import Any

from games.base import FrozenDict, GameOver, IllegalMove, InvalidOptions, NotYourTurn, is_int
from games.tricky_teams.cards import (
    COOK,
    DRUMMER,
    FOG_WITCH,
    HYPNOTIST,
    PEASANT,
    RANK,
    SORT_KEY,
    TEAM,
    TEAMS,
    pile_coins,
)
from games.tricky_teams.deal import deal_from_seed, red_drummer_leads, validate_deal
from games.tricky_teams.moves import parse_move
from games.tricky_teams.options import check_seats, normalize_options
from games.tricky_teams.rules import may_play, playable_cards, why_not_playable
from games.tricky_teams.scoring import score_trick

SCHEMA = 1
NAME = "tricky-teams"
State = dict[str, Any]
Event = dict[str, Any]

# Cards whose play moves need more than one dict: Hypnotists (wishes) and the flag (possibly held twice).
_HYPNOTISTS_AND_FLAG = frozenset(card for card in RANK if RANK[card] in (HYPNOTIST, 0))


def wish_targets(seats: int, leader: int, played: int) -> list[int]:
    """Ruling 11: the seats still to play in this trick after the one now playing (`played` are out)."""
    return [(leader + i) % seats for i in range(played + 1, seats)]


# The play moves of a Hypnotist by seats, leader, cards already in the trick and card: the plain
# play, then a wish for every wish target and every team, in that order.
_HYPNOTIST_PLAYS: dict[int, list[list[dict[str, tuple[FrozenDict, ...]]]]] = {
    seats: [
        [
            {
                card: (FrozenDict({"type": "play", "card": card}),)
                + tuple(
                    FrozenDict(
                        {"type": "play", "card": card, "wish": FrozenDict({"seat": target, "team": team})}
                    )
                    for target in wish_targets(seats, leader, played)
                    for team in TEAMS
                )
                for card in RANK
                if RANK[card] == HYPNOTIST
            }
            for played in range(seats)
        ]
        for leader in range(seats)
    ]
    for seats in range(3, 7)
}
_DRUMMERS = frozenset(card for card in RANK if RANK[card] == DRUMMER)
# Every move, plain card-played event and automatic loot-taken event as an immutable value:
# legal_moves and apply hand out these instead of building a dict each time.
_PLAY_MOVE: dict[str, FrozenDict] = {card: FrozenDict({"type": "play", "card": card}) for card in RANK}
_LOOT_MOVE: dict[str, FrozenDict] = {card: FrozenDict({"type": "take-loot", "card": card}) for card in RANK}
_FACE_UP_EVENT: list[dict[str, FrozenDict]] = [
    {
        card: FrozenDict(
            {"type": "card-played", "seat": seat, "card": card, "face_down": False, "wish": None}
        )
        for card in RANK
    }
    for seat in range(6)
]
_LOOT_TAKEN: dict[str, list[dict[str, FrozenDict]]] = {
    how: [
        {card: FrozenDict({"type": "loot-taken", "seat": seat, "card": card, "how": how}) for card in RANK}
        for seat in range(6)
    ]
    for how in ("auto", "own")
}
_LEADER_MOVE: tuple[FrozenDict, ...] = tuple(
    FrozenDict({"type": "choose-leader", "seat": seat}) for seat in range(6)
)
_LEADER_MOVES: dict[int, tuple[FrozenDict, ...]] = {seats: _LEADER_MOVE[:seats] for seats in range(7)}
_DECISION_WORDS = {
    "play": "play a card",
    "take-loot": "take a loot card",
    "choose-leader": "choose the next leader",
}


def new_game(
    seats: int,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    deal: dict[str, Any] | None = None,
) -> State:
    """Create a game and deal its first raid (seed None means seed 0; the API always passes one)."""
    seats = check_seats(seats)
    opts = normalize_options(seats, options)
    if seed is None:
        seed = 0
    elif not is_int(seed):
        raise InvalidOptions(f"seed must be an integer, not {seed!r}")
    normalized_deal = validate_deal(seats, deal) if deal is not None else None
    state = undealt_state({"seats": seats, "options": opts, "seed": seed, "deal": normalized_deal})
    start_raid(state, [])
    return state


def setup_events(state: State) -> list[Event]:
    """The first raid's deal as events (raid-started, one private hand-dealt per seat)."""
    events: list[Event] = []
    start_raid(undealt_state(state["header"]), events)
    return events


def undealt_state(header: dict[str, Any]) -> State:
    """A game's state before its first deal: the header and empty hands, piles and trick."""
    seats: int = header["seats"]
    state: State = {
        "schema": SCHEMA,
        "game": NAME,
        "header": header,
        "actions": [],
        "seats": seats,
        "raid": 0,
        "trick_number": 0,
        "phase": "play",
        "turn": None,
        "leader": None,
        "hands": [[] for _ in range(seats)],
        "trick": [],
        "out": [],
        "down": False,
        "fog": False,
        "ones": 0,
        "wishes": [],
        "cooks": [[] for _ in range(seats)],
        "loot": [[] for _ in range(seats)],
        "coins": [],
        "pending": None,
        "last_trick": None,
    }
    return state


def start_raid(state: State, events: list[Event]) -> None:
    """Deal the next raid (raid 1 from an explicit deal if given) and give the lead to the red 8."""
    header = state["header"]
    seats: int = state["seats"]
    raid = state["raid"] + 1
    deal = header["deal"]
    if raid == 1 and deal is not None:
        hands = [list(hand) for hand in deal["hands"]]
        leader = deal["first_leader"]
    else:
        hands = deal_from_seed(seats, header["seed"], raid)
        leader = red_drummer_leads(hands)
    state["raid"] = raid
    state["hands"] = hands
    state["cooks"] = [[] for _ in range(seats)]
    state["loot"] = [[] for _ in range(seats)]
    state["trick_number"] = 0
    start_trick(state, leader)
    eights = []
    for hand in hands:
        # The 8s (Drummers) a seat holds, in hand order: public, they have no card back.
        held = _DRUMMERS.intersection(hand)
        eights.append(sorted(held, key=SORT_KEY.__getitem__) if len(held) > 1 else list(held))
    events.append({"type": "raid-started", "raid": raid, "leader": leader, "eights": eights})
    for seat, hand in enumerate(hands):
        events.append(
            {
                "type": "hand-dealt",
                "seat": seat,
                "size": len(hand),
                "private": {"seats": [seat], "hand": list(hand)},
            }
        )


def start_trick(state: State, leader: int) -> None:
    """Open the next trick of the raid, led by `leader`."""
    state["trick_number"] += 1
    state["leader"] = leader
    state["turn"] = leader
    state["phase"] = "play"


def to_move(state: State) -> list[int]:
    """The seat with a decision now, as a list (empty once the game is over)."""
    return [] if state["phase"] == "over" else [state["turn"]]


def is_over(state: State) -> bool:
    """True after the last raid has been scored."""
    return state["phase"] == "over"  # type: ignore[no-any-return]


def seats_after(state: State) -> list[int]:
    """Seats still to play in the current trick after the seat now playing (Hypnotist wish targets)."""
    return wish_targets(state["seats"], state["leader"], len(state["trick"]))


def legal_moves(state: State, seat: int) -> list[dict[str, Any]]:
    """Every move `seat` may make now, exactly as `apply` accepts it (empty when not its turn)."""
    if state["turn"] != seat or type(seat) is not int:  # turn is None once the game is over
        return []
    phase = state["phase"]
    if phase == "play":
        cards = playable_cards(state, seat)
        if _HYPNOTISTS_AND_FLAG.isdisjoint(cards):
            return list(map(_PLAY_MOVE.__getitem__, cards))
        return _play_moves_with_wishes(state, cards)
    if phase == "take-loot":
        return list(map(_LOOT_MOVE.__getitem__, sorted(set(state["pending"]["cards"]))))
    return list(_LEADER_MOVES[state["seats"]])


def _play_moves_with_wishes(state: State, cards: list[str]) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = []
    previous = None
    hypnotist_plays = _HYPNOTIST_PLAYS[state["seats"]][state["leader"]][len(state["trick"])]
    for card in cards:
        if card == previous:  # the two identical flags are one move
            continue
        previous = card
        if RANK[card] == HYPNOTIST:
            moves.extend(hypnotist_plays[card])
        else:
            moves.append(_PLAY_MOVE[card])
    return moves


def apply(state: State, seat: int, move: dict[str, Any]) -> list[Event]:
    """Apply one move for `seat` in place and return its events; raises on malformed or illegal moves.

    The stages, in order: parse the move (MalformedMove), check the game is on and it is the seat's
    turn (GameOver, NotYourTurn), check the decision (IllegalMove), then play it.  The action list
    records the parsed copy, never the caller's `move`.
    """
    parsed = parse_move(move, state["seats"])
    phase = state["phase"]
    if seat != state["turn"] or type(seat) is not int:
        if phase == "over":
            raise GameOver("the game is over")
        raise NotYourTurn(
            f"it is seat {state['turn']}'s turn to {_DECISION_WORDS[phase]}, not seat {seat!r}'s"
        )
    kind = parsed["type"]
    if kind != phase:
        raise IllegalMove(f"you must {_DECISION_WORDS[phase]} now, not {kind}")
    if kind == "play":
        events = play(state, seat, parsed)
    elif kind == "take-loot":
        events = take_loot(state, seat, parsed["card"])
    else:
        events = choose_leader(state, seat, parsed["seat"])
    state["actions"].append({"seat": seat, "move": parsed})
    return events


def play(state: State, seat: int, move: dict[str, Any]) -> list[Event]:
    """Check a play against the rules and put the card into the trick."""
    card: str = move["card"]
    if card not in state["hands"][seat]:
        raise IllegalMove(f"you do not hold {card}")
    if not may_play(state, seat, card):
        raise IllegalMove(why_not_playable(state, seat, card), details={"card": card})
    wish = move.get("wish")
    if wish is not None:
        hypnotist_may_wish(state, card, wish)
    return play_card(state, seat, card, wish)


def hypnotist_may_wish(state: State, card: str, wish: dict[str, Any]) -> None:
    """Ruling 11: only a Hypnotist wishes, and only from a seat that plays after it in this trick."""
    if RANK[card] != HYPNOTIST:
        raise IllegalMove(f"only a Hypnotist (4) may wish; {card} is not one")
    targets = seats_after(state)
    if wish["seat"] not in targets:
        raise IllegalMove(f"a wish must name a seat still to play after you in this trick: {targets}")


def play_card(state: State, seat: int, card: str, wish: dict[str, Any] | None) -> list[Event]:
    """Move `card` from the hand into the trick, update teams out, fog and wishes; score a full trick."""
    state["hands"][seat].remove(card)
    rank = RANK[card]
    # Ruling 12: after a Fog Witch every card of the trick goes face down, except the Drummers (8s).
    face_down = state["fog"] and rank != DRUMMER
    trick: list[dict[str, Any]] = state["trick"]
    event: Event
    if wish is not None:
        wish = {"seat": wish["seat"], "team": wish["team"]}
        trick.append({"seat": seat, "card": card, "face_down": face_down, "wish": wish})
    else:
        trick.append({"seat": seat, "card": card, "face_down": face_down, "wish": None})
    if face_down:
        state["down"] = True
        event = {
            "type": "card-played",
            "seat": seat,
            "card": None,
            "face_down": True,
            "wish": wish,
            "private": {"seats": [seat], "card": card},
        }
    else:
        team = TEAM[card]
        if team is not None:
            out: list[str] = state["out"]
            if team not in out:
                out.append(team)
        if wish is None:
            event = _FACE_UP_EVENT[seat][card]
        else:
            event = {"type": "card-played", "seat": seat, "card": card, "face_down": False, "wish": wish}
    if rank == PEASANT:
        state["ones"] += 1
    elif rank == FOG_WITCH:
        state["fog"] = True
    if wish is not None or state["wishes"]:
        update_wishes(state, seat, wish)
    events = [event]
    seats: int = state["seats"]
    if len(trick) == seats:
        finish_trick(state, events)
    else:
        state["turn"] = (seat + 1) % seats
    return events


def update_wishes(state: State, seat: int, wish: dict[str, Any] | None) -> None:
    """Ruling 11: a played seat's wish is spent; a later wish for the same seat replaces the earlier one."""
    target = None if wish is None else wish["seat"]
    kept = []
    for w in state["wishes"]:
        if w["seat"] != seat and w["seat"] != target:
            kept.append(w)
    if wish is not None:
        kept.append({"seat": target, "team": wish["team"], "by": seat})
    state["wishes"] = kept


def finish_trick(state: State, events: list[Event]) -> None:
    """Reveal and score the full trick, then start handing out the loot."""
    trick = state["trick"]
    summary, own = score_trick(
        trick, list(map(len, state["cooks"])), state["raid"], state["trick_number"], state["leader"]
    )
    state["last_trick"] = summary
    # The trick's aggregates start afresh.
    state["trick"] = []
    state["out"] = []
    state["down"] = False
    state["fog"] = False
    state["ones"] = 0
    state["wishes"] = []
    events.append({"type": "trick-won", **summary})
    thief = summary["thief"]
    winners = summary["winners"]
    if not thief_takes_all(thief, winners):
        state["pending"] = {"cards": list(summary["loot"]), "order": winners, "index": 0, "own": own}
        distribute_loot(state, events)
        return
    # One seat takes the whole loot: no choice to wait for and no pending record (most tricks).
    seat = winners[0] if thief is None else thief
    loot = summary["loot"]
    if loot:
        state["loot"][seat].extend(loot)
        taken = _LOOT_TAKEN["auto"][seat]
        for card in loot:
            events.append(taken[card])
    winners_take_own_cards(state, events, own)
    after_trick(state, events)


def thief_takes_all(thief: int | None, winners: list[int]) -> bool:
    """Ruling 8: with a Thief in the winning team, or a sole winner, all loot goes to one seat."""
    return thief is not None or len(winners) == 1


def single_choice(cards: list[str]) -> bool:
    """A pick with only one distinct card left (one card, or the two identical flags) is automatic."""
    return cards.count(cards[0]) == len(cards)


def distribute_loot(state: State, events: list[Event]) -> None:
    """Hand out loot round after round, stopping at the first real choice; then everyone's own card.

    Only for two or more pickers: finish_trick hands a Thief's or a sole winner's loot over at once.
    """
    pending = state["pending"]
    cards: list[str] = pending["cards"]
    if cards:
        order: list[int] = pending["order"]
        while cards:
            picker = order[pending["index"] % len(order)]
            if not single_choice(cards):
                state["phase"] = "take-loot"
                state["turn"] = picker
                return
            card = cards.pop(0)
            state["loot"][picker].append(card)
            pending["index"] += 1
            events.append(_LOOT_TAKEN["auto"][picker][card])
    winners_take_own_cards(state, events, pending["own"])
    state["pending"] = None
    after_trick(state, events)


def winners_take_own_cards(state: State, events: list[Event], own: list[list[Any]]) -> None:
    """Ruling 8/9: each winner takes their own card; a winning Cook lies out in front of its player."""
    loot = state["loot"]
    for seat, card in own:
        if RANK[card] == COOK:  # ruling 9: a winning Cook lies out in front of its player
            state["cooks"][seat].append(card)
            events.append({"type": "cook-laid-out", "seat": seat, "card": card})
        else:
            loot[seat].append(card)
            events.append(_LOOT_TAKEN["own"][seat][card])


def take_loot(state: State, seat: int, card: str) -> list[Event]:
    """A winner picks one loot card onto their pile."""
    pending = state["pending"]
    if card not in pending["cards"]:
        raise IllegalMove(f"{card} is not in the loot; left: {sorted(pending['cards'])}")
    pending["cards"].remove(card)
    pending["index"] += 1
    state["loot"][seat].append(card)
    events: list[Event] = [{"type": "loot-taken", "seat": seat, "card": card, "how": "choice"}]
    distribute_loot(state, events)
    return events


def choose_leader(state: State, seat: int, leader: int) -> list[Event]:
    """Ruling 10: the Strategist's player names any seat to lead the next trick."""
    state["last_trick"]["next_leader"] = leader
    start_trick(state, leader)
    return [{"type": "leader-chosen", "seat": seat, "leader": leader}]


def after_trick(state: State, events: list[Event]) -> None:
    """End the raid when hands are empty; else let the Strategist choose or open the next trick."""
    last = state["last_trick"]
    if not state["hands"][0]:
        last["next_leader"] = None
        end_raid(state, events)
    elif last["strategist"] is not None:
        state["phase"] = "choose-leader"
        state["turn"] = last["strategist"]
    else:
        start_trick(state, last["next_leader"])


def cooks_join_loot(state: State) -> None:
    """Ruling 13: at the end of a raid the Cooks lying out go onto their player's loot pile."""
    for seat, cooks in enumerate(state["cooks"]):
        state["loot"][seat].extend(cooks)
        cooks.clear()


def end_raid(state: State, events: list[Event]) -> None:
    """Count each loot pile's coins, then deal the next raid or end the game."""
    cooks_join_loot(state)
    table = state["header"]["options"]["coins"]
    coins = []
    for pile in state["loot"]:
        coins.append(pile_coins(pile, table))
    state["coins"].append(coins)
    totals = coin_totals(state)
    events.append({"type": "raid-ended", "raid": state["raid"], "coins": coins, "totals": totals})
    if state["raid"] >= state["header"]["options"]["raids"]:
        state["phase"] = "over"
        state["turn"] = None
        events.append({"type": "game-ended", "result": result(state)})
    else:
        start_raid(state, events)


def coin_totals(state: State) -> list[int]:
    """Each seat's coins summed over the raids counted so far."""
    totals = [0] * state["seats"]
    for raid in state["coins"]:
        for seat, coins in enumerate(raid):
            totals[seat] += coins
    return totals


def result(state: State) -> dict[str, Any]:
    """Coin totals per seat, the winners (most coins; ties share the win) and the coins of every raid."""
    seats: int = state["seats"]
    scores = coin_totals(state)
    best = max(scores)
    return {
        "scores": scores,
        "winners": [seat for seat in range(seats) if scores[seat] == best],
        "coins_per_raid": [list(raid) for raid in state["coins"]],
        "final": is_over(state),
    }


def replay(header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
    """Rebuild a state from its header and action list (every state is reproducible this way)."""
    state = new_game(header["seats"], header["options"], header["seed"], header["deal"])
    for action in actions:
        apply(state, action["seat"], action["move"])
    return state
