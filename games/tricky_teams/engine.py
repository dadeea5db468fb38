"""Tricky Teams state machine: new games, legal moves, applying moves, tricks, loot, raids, the end.

`apply` runs named stages in order (parse, whose turn, is the move allowed, then the move itself);
a played card runs its own stages: lay it, and once the trick is full score it, hand out the loot,
let the winners take their own cards, and open the next trick, raid or the end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import MutableSequence
from typing import Any, cast

from games.base import (
    Event,
    FrozenDict,
    GameOver,
    IllegalMove,
    InvalidOptions,
    LastListing,
    Move,
    NotYourTurn,
    is_int,
)
from games.base import State as JsonState
from games.tricky_teams.cards import (
    CARD_ID,
    CARD_NUMBER,
    COOK,
    COPIES,
    RANK_OF,
    coins_by_rank,
    hand_ids,
    per_card,
    pile_coins,
    pile_value,
)
from games.tricky_teams.deal import deal_from_seed, hand_sets, red_drummer_leads, validate_deal
from games.tricky_teams.moves import (
    MAX_SEATS,
    choose_leader_moves,
    parse_move,
    plain_play_moves,
    play_moves,
    take_loot_moves,
)
from games.tricky_teams.options import check_seats, normalize_options
from games.tricky_teams.rules import (
    BRINGS_FOG,
    FREES_PEASANTS,
    GOES_FACE_DOWN,
    NO_BACK,
    TEAM_PUT_OUT,
    may_wish,
    playable,
    why_not_playable,
    wish_targets,
    wishes_after_play,
)
from games.tricky_teams.scoring import score_trick
from games.tricky_teams.state import NAME, SCHEMA, Header, PendingLoot, Play, State, new_state
from games.tricky_teams.wire import Wish

__all__ = ["NAME", "SCHEMA"]

_DECISION_WORDS = {
    "play": "play a card",
    "take-loot": "take a loot card",
    "choose-leader": "choose the next leader",
}


# ---------------------------------------------------------------------------- events


def card_played_event(seat: int, card: int, face_down: bool, wish: Wish | None) -> Event:
    """A card was played; a face-down card's id is only under `private` (its player's eyes)."""
    if face_down:
        return {
            "type": "card-played",
            "seat": seat,
            "card": None,
            "face_down": True,
            "wish": wish,
            "private": {"seats": [seat], "card": CARD_ID[card]},
        }
    return {"type": "card-played", "seat": seat, "card": CARD_ID[card], "face_down": False, "wish": wish}


def loot_taken_event(seat: int, card: int, how: str) -> Event:
    """A card went onto `seat`'s loot pile: picked (`choice`), automatic (`auto`) or its own (`own`)."""
    return {"type": "loot-taken", "seat": seat, "card": CARD_ID[card], "how": how}


# What is the same every time, as immutable values made once, by seat and card: a face-up card
# played without a wish (its entry in the trick and its event), an automatic or own loot card.
_FACE_UP_PLAY: list[list[Play]] = [
    [
        cast(Play, FrozenDict({"seat": seat, "card": card, "face_down": False, "wish": None}))
        for card in range(len(CARD_ID))
    ]
    for seat in range(MAX_SEATS)
]
_CARD_PLAYED: list[list[FrozenDict]] = [
    [FrozenDict(card_played_event(seat, card, False, None)) for card in range(len(CARD_ID))]
    for seat in range(MAX_SEATS)
]
_LOOT_TAKEN: dict[str, list[list[FrozenDict]]] = {
    how: [
        [FrozenDict(loot_taken_event(seat, card, how)) for card in range(len(CARD_ID))]
        for seat in range(MAX_SEATS)
    ]
    for how in ("auto", "own")
}


# ---------------------------------------------------------------------------- new games and raids


def new_game(
    seats: int, options: dict[str, Any] | None = None, seed: int | None = None, deal: Any = None
) -> JsonState:
    """Create a game and deal its first raid (seed None means seed 0; the API always passes one).

    The game is its JSON state (games.base.State): the typed `State` is that same dict.
    """
    seats = check_seats(seats)
    opts = normalize_options(seats, options)
    if seed is None:
        seed = 0
    elif not is_int(seed):
        raise InvalidOptions(f"seed must be an integer, not {seed!r}")
    header: Header = {
        "seats": seats,
        "options": opts,  # type: ignore[typeddict-item]
        "seed": seed,
        "deal": None if deal is None else validate_deal(seats, deal),
    }
    state = new_state(header)
    start_raid(state, [])
    return cast(JsonState, state)


def setup_events(state: State) -> list[Event]:
    """The first raid's deal as events (raid-started, one private hand-dealt per seat)."""
    events: list[Event] = []
    start_raid(new_state(state["header"]), events)
    return events


def start_raid(state: State, events: Events) -> None:
    """Deal the next raid (raid 1 from an explicit deal if given) and give the lead to the red 8."""
    header = state["header"]
    seats = state["seats"]
    raid = state["raid"] + 1
    deal = header["deal"]
    if raid == 1 and deal is not None:
        hands = hand_sets(deal["hands"])
        leader: int | None = deal["first_leader"]
    else:
        hands = deal_from_seed(seats, header["seed"], raid)
        leader = red_drummer_leads(hands)
    assert leader is not None  # a seeded deal deals the red 8; an explicit one names the leader
    state["raid"] = raid
    state["hands"] = hands
    state["cooks"] = [[] for _ in range(seats)]
    state["loot"] = [[] for _ in range(seats)]
    state["trick_number"] = 0
    start_trick(state, leader)
    events.append(
        {
            "type": "raid-started",
            "raid": raid,
            "leader": leader,
            "eights": [hand_ids(h & NO_BACK) for h in hands],
        }
    )
    for seat, hand in enumerate(hands):
        cards = hand_ids(hand)
        events.append(
            {
                "type": "hand-dealt",
                "seat": seat,
                "size": len(cards),
                "private": {"seats": [seat], "hand": cards},
            }
        )


def start_trick(state: State, leader: int) -> None:
    """Open the next trick of the raid, led by `leader`."""
    state["trick_number"] += 1
    state["leader"] = leader
    state["turn"] = leader
    state["phase"] = "play"


# ---------------------------------------------------------------------------- whose turn, which moves


def to_move(state: State) -> list[int]:
    """The seat with a decision now, as a list (empty once the game is over)."""
    turn = state["turn"]
    return [] if turn is None else [turn]


def is_over(state: State) -> bool:
    """True after the last raid has been scored."""
    return state["phase"] == "over"


# What `legal_moves` listed last: `apply` takes one of those values for that state version unchecked.
LISTED = LastListing()


def legal_moves(state: State, seat: int) -> list[FrozenDict]:
    """Every move `seat` may make now, exactly as `apply` accepts it (empty when not its turn)."""
    if seat != state["turn"] or type(seat) is not int:  # turn is None once the game is over
        return []
    phase = state["phase"]
    if phase == "play":
        return LISTED.remember(state, seat, play_moves(state, seat))
    if phase == "take-loot":
        pending = state["pending"]
        assert pending is not None
        return LISTED.remember(state, seat, take_loot_moves(pending["cards"]))
    return LISTED.remember(state, seat, choose_leader_moves(state["seats"]))


# ---------------------------------------------------------------------------- applying a move


def apply(state: State, seat: int, move: Move) -> list[Event]:
    """Apply one move for `seat` in place and return its events; raises on malformed or illegal moves.

    The stages, in order: parse the move (MalformedMove), check it (GameOver, NotYourTurn, then
    IllegalMove), make it (`apply_unchecked`).  The action list records the engine's own
    immutable move value, never the caller's `move`.
    """
    if LISTED.listed(state, seat, move):  # a value listed for this state version: checked by the listing
        return apply_unchecked(state, seat, move)
    parsed = parse_move(move, state["seats"])
    check_move(state, seat, parsed)
    return apply_unchecked(state, seat, parsed)


def check_move(state: State, seat: int, move: FrozenDict) -> None:
    """The game is on, `seat` has the decision, the move is of that decision and the rules allow it."""
    phase = state["phase"]
    if seat != state["turn"] or type(seat) is not int:
        if phase == "over":
            raise GameOver("the game is over")
        raise NotYourTurn(
            f"it is seat {state['turn']}'s turn to {_DECISION_WORDS[phase]}, not seat {seat!r}'s"
        )
    kind = move["type"]
    if kind != phase:
        raise IllegalMove(f"you must {_DECISION_WORDS[phase]} now, not {kind}")
    if kind == "play":
        card = CARD_NUMBER[move["card"]]
        if not state["hands"][seat] & COPIES[card]:
            raise IllegalMove(f"you do not hold {CARD_ID[card]}")
        if not playable(state, seat) & COPIES[card]:
            raise IllegalMove(why_not_playable(state, seat), details={"card": CARD_ID[card]})
        wish = move.get("wish")
        if wish is not None:
            hypnotist_may_wish(state, card, wish)
    elif kind == "take-loot":
        pending = state["pending"]
        assert pending is not None
        if CARD_NUMBER[move["card"]] not in pending["cards"]:
            left = sorted(CARD_ID[card] for card in pending["cards"])
            raise IllegalMove(f"{move['card']} is not in the loot; left: {left}")


def hypnotist_may_wish(state: State, card: int, wish: Wish) -> None:
    """Ruling 11: only a Hypnotist wishes, and only from a seat that plays after it in this trick."""
    if not may_wish(card):
        raise IllegalMove(f"only a Hypnotist (4) may wish; {CARD_ID[card]} is not one")
    targets = wish_targets(state)
    if wish["seat"] not in targets:
        raise IllegalMove(f"a wish must name a seat still to play after you in this trick: {targets}")


# Where the rules append a move's events: a list (`apply`, `apply_unchecked`), or for `push` a
# queue that keeps none.
Events = MutableSequence[Event]
NO_EVENTS: Events = deque(maxlen=0)


def apply_unchecked(state: State, seat: int, move: Move) -> list[Event]:
    """Make a move that `legal_moves` listed for `seat`, without parsing or checking it.

    The same rules as `apply` and the same state afterwards: the move is recorded in the action
    list as given, so give the listed (immutable) value.
    """
    events: list[Event] = []
    push(state, seat, move, events)
    return events


def push(state: State, seat: int, move: Move, events: Events = NO_EVENTS) -> None:
    """`apply_unchecked` for playouts: the same rules and the same state afterwards, its events
    appended to `events` and by default not kept (python-chess's `push` beside `push_uci`).

    The move is one `legal_moves` or `playout_moves` listed; the rule it runs is that of its type
    (a card played, a loot card taken, a leader chosen), and it is recorded in the action list.
    A playout values the state it ends in (`coins_won`).
    """
    kind = move["type"]
    if kind == "play":
        play(state, seat, CARD_NUMBER[move["card"]], move.get("wish"), events)
    elif kind == "take-loot":
        take_loot(state, seat, CARD_NUMBER[move["card"]], events)
    else:
        choose_leader(state, seat, move["seat"], events)
    state["actions"].append({"seat": seat, "move": move})


def playout_moves(state: State, seat: int) -> list[FrozenDict]:
    """The moves a random playout picks from: `legal_moves` without a Hypnotist's wishes (its plain
    play stays), not remembered for `apply` (give them to `push` or `apply_unchecked`)."""
    if seat != state["turn"] or type(seat) is not int:
        return []
    phase = state["phase"]
    if phase == "play":
        return plain_play_moves(state, seat)
    if phase == "take-loot":
        pending = state["pending"]
        assert pending is not None
        return take_loot_moves(pending["cards"])
    return choose_leader_moves(state["seats"])


def coins_won(state: State) -> list[int]:
    """Each seat's coins so far: the raids counted, and in a raid still on its loot pile and the
    Cooks lying out before it, at the game's coin values (what the raid's end will count)."""
    totals = coin_totals(state)
    if state["phase"] != "over":
        by_rank = coins_by_rank(state["header"]["options"]["coins"])
        for seat, (pile, cooks) in enumerate(zip(state["loot"], state["cooks"], strict=True)):
            totals[seat] += pile_value(pile + cooks, by_rank)
    return totals


# ---------------------------------------------------------------------------- a card is played


def play(state: State, seat: int, card: int, wish: Wish | None, events: Events) -> None:
    """Lay the card into the trick; a full trick is scored, else the next seat plays."""
    events.append(lay_card(state, seat, card, wish))
    seats = state["seats"]
    if len(state["trick"]) == seats:
        finish_trick(state, events)
    else:
        state["turn"] = (seat + 1) % seats


def lay_card(state: State, seat: int, card: int, wish: Wish | None) -> Event:
    """Move `card` from the hand into the trick: face down in the fog (ruling 12), its team out
    (ruling 2), the fog it brings (12), the 1s it frees (3b), the wishes it spends or makes (11)."""
    hands = state["hands"]
    held = hands[seat] & COPIES[card]  # the card's bit, or both flags' bits
    hands[seat] ^= held & -held
    face_down = GOES_FACE_DOWN[state["fog"]][card]
    if face_down or wish is not None:
        if wish is not None:
            wish = {"seat": wish["seat"], "team": wish["team"]}
        state["trick"].append({"seat": seat, "card": card, "face_down": face_down, "wish": wish})
        event = card_played_event(seat, card, face_down, wish)
    else:
        state["trick"].append(_FACE_UP_PLAY[seat][card])
        event = _CARD_PLAYED[seat][card]
    state["out"] |= TEAM_PUT_OUT[face_down][card]
    if face_down:
        state["down"] = True
    if BRINGS_FOG[card]:
        state["fog"] = True
    if FREES_PEASANTS[card]:
        state["peasant_out"] = True
    if wish is not None or state["wishes"]:
        state["wishes"] = wishes_after_play(state["wishes"], seat, wish)
    return event


# ---------------------------------------------------------------------------- a trick is full


def finish_trick(state: State, events: Events) -> None:
    """Reveal and score the full trick, clear it, and hand out the loot."""
    leader = state["leader"]
    assert leader is not None
    scored, loot, own = score_trick(
        state["trick"],
        list(map(len, state["cooks"])),
        state["raid"],
        state["trick_number"],
        leader,
        raid_over(state),
    )
    state["last_trick"] = scored
    state["trick"] = []
    state["out"] = 0
    state["down"] = False
    state["fog"] = False
    state["peasant_out"] = False
    state["wishes"] = []
    events.append({"type": "trick-won", **scored})
    seat = takes_all_loot(scored["thief"], scored["winners"])
    if seat is not None:
        state["loot"][seat] += loot
        events += map(_LOOT_TAKEN["auto"][seat].__getitem__, loot)
        winners_take_own_cards(state, events, own)
        after_trick(state, events)
    else:
        state["pending"] = {"cards": loot, "order": scored["winners"], "index": 0, "own": own}
        distribute_loot(state, events)


def takes_all_loot(thief: int | None, winners: list[int]) -> int | None:
    """Ruling 8: a Thief in the winning team takes all the loot, as does a sole winner (None: the
    winners pick in turn)."""
    if thief is not None:
        return thief
    return winners[0] if len(winners) == 1 else None


def next_picker(pending: PendingLoot) -> int:
    """Ruling 8: the winners pick one loot card each in their order, round after round."""
    order = pending["order"]
    return order[pending["index"] % len(order)]


def single_choice(cards: list[int]) -> bool:
    """A pick with only one distinct card left (one card, or the two identical flags) is automatic."""
    return cards.count(cards[0]) == len(cards)


def distribute_loot(state: State, events: Events) -> None:
    """Ruling 8: winners pick round after round, stopping at the first real choice; then own cards."""
    pending = state["pending"]
    assert pending is not None
    cards = pending["cards"]
    while cards:
        picker = next_picker(pending)
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


def winners_take_own_cards(state: State, events: Events, own: list[list[int]]) -> None:
    """Ruling 8/9: each winner takes their own card; a winning Cook lies out in front of its player."""
    for seat, card in own:
        if COOK_LIES_OUT[card]:
            state["cooks"][seat].append(card)
            events.append({"type": "cook-laid-out", "seat": seat, "card": CARD_ID[card]})
        else:
            state["loot"][seat].append(card)
            events.append(_LOOT_TAKEN["own"][seat][card])


def cook_lies_out(card: int) -> bool:
    """Ruling 9: a Cook of the winning team lies out in front of its player until the raid ends."""
    return RANK_OF[card] == COOK


COOK_LIES_OUT = per_card(cook_lies_out)


def take_loot(state: State, seat: int, card: int, events: Events) -> None:
    """A winner picks one loot card onto their pile; the hand-out goes on."""
    pending = state["pending"]
    assert pending is not None
    pending["cards"].remove(card)
    pending["index"] += 1
    state["loot"][seat].append(card)
    events.append(loot_taken_event(seat, card, "choice"))
    distribute_loot(state, events)


def choose_leader(state: State, seat: int, leader: int, events: Events) -> None:
    """Ruling 10: the Strategist's player names any seat to lead the next trick."""
    last = state["last_trick"]
    assert last is not None
    state["last_trick"] = {**last, "next_leader": leader}
    start_trick(state, leader)
    events.append({"type": "leader-chosen", "seat": seat, "leader": leader})


def after_trick(state: State, events: Events) -> None:
    """End the raid when the hands are empty; else let the Strategist choose or open the next trick."""
    last = state["last_trick"]
    assert last is not None
    if raid_over(state):
        end_raid(state, events)
    elif last["strategist"] is not None:
        state["phase"] = "choose-leader"
        state["turn"] = last["strategist"]
    else:
        leader = last["next_leader"]
        assert leader is not None
        start_trick(state, leader)


def raid_over(state: State) -> bool:
    """Ruling 13: a raid ends when the hands are empty (they empty together)."""
    return not state["hands"][0]


# ---------------------------------------------------------------------------- the end of a raid


def cooks_join_loot(state: State) -> None:
    """Ruling 13: at the end of a raid the Cooks lying out go onto their player's loot pile."""
    for seat, cooks in enumerate(state["cooks"]):
        state["loot"][seat].extend(cooks)
        cooks.clear()


def end_raid(state: State, events: Events) -> None:
    """Count each loot pile's coins, then deal the next raid or end the game."""
    cooks_join_loot(state)
    table = state["header"]["options"]["coins"]
    coins = [pile_coins(pile, table) for pile in state["loot"]]
    state["coins"].append(coins)
    events.append({"type": "raid-ended", "raid": state["raid"], "coins": coins, "totals": coin_totals(state)})
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
    scores = coin_totals(state)
    best = max(scores)
    return {
        "scores": scores,
        "winners": [seat for seat in range(state["seats"]) if scores[seat] == best],
        "coins_per_raid": [list(raid) for raid in state["coins"]],
        "final": is_over(state),
    }


def replay(header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
    """Rebuild a state from its header and action list (every state is reproducible this way)."""
    state = cast(State, new_game(header["seats"], header["options"], header["seed"], header["deal"]))
    for action in actions:
        apply(state, action["seat"], action["move"])
    return state
