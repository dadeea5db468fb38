"""The Trick 'n Trouble state machine: a round is the rulebook's phases in order (`ROUND`), and
`apply` is an ordered list of named stages, as Battlesnake's rulesets are: the `CHECKS` in order
(a well-formed move, of the seat that decides, among those offered), then the `STAGES` (the
decision, its record, the decisions the engine takes itself).  `apply_unchecked` runs the
`STAGES` alone, for a move `legal_moves` listed.

Randomness is used only at setup (deal.py: the seed shuffles the cards and the three task piles;
story mode stacks the piles, it does not shuffle them); after that the game is deterministic, so
the state needs no random-generator state and `replay` just re-applies the actions.

Only decisions whose single option is public are automatic (`automatic_move`, event
``"auto": true``): drawing a task when only one level has tasks left (and every story-mode
fill), passing or playing the last card in a hand, keeping the tasks when no switch is possible.
A decision that has one option only because of the cards in a hand -- a forced follow with
more cards in hand -- is an ordinary decision: the seat sends the move, it is recorded as an
action and its ``card-played`` event looks exactly like a chosen play's (rulebook: "You may not
tell anyone the cards you have or don't have in your hand").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from games.base import Event, GameOver, IllegalMove, InvalidOptions, LastListing, Move, NotYourTurn, State
from games.trick_n_trouble.cards import Edition, edition
from games.trick_n_trouble.deal import check_deal, deal_game
from games.trick_n_trouble.moves import HAND_DECISIONS, OPTIONS, parse_move, why_illegal
from games.trick_n_trouble.options import SEATS, check_seats, is_int, normalize_options
from games.trick_n_trouble.rules import (
    FACE_UP_TASKS,
    draw_task,
    fill_hands,
    fill_levels,
    pass_card,
    play_card,
    switch_sources,
    switch_task,
)
from games.trick_n_trouble.scoring import POINT_BANDS as POINT_BANDS
from games.trick_n_trouble.scoring import STORY_BANDS as STORY_BANDS
from games.trick_n_trouble.scoring import result as final_result
from games.trick_n_trouble.scoring import score_trick
from games.trick_n_trouble.state import NAME as NAME
from games.trick_n_trouble.state import TnTState

# A phase of the round: does what it can by itself; True when it stops (a seat decides, or the end).
Phase = Callable[[TnTState, Edition, list[Event]], bool]
# A decision: what the move does, taken by its seat (auto: by the engine, its only option public).
Decision = Callable[[TnTState, int, Move, Edition, list[Event], bool], None]


def new_game(
    seats: int, options: dict[str, Any] | None = None, seed: int | None = None, deal: Any = None
) -> State:
    """Set up a game for 3 seats; seed None means 0; raises InvalidOptions / InvalidDeal."""
    check_seats(seats)
    opts = normalize_options(options)
    if seed is None:
        seed = 0
    if not is_int(seed):
        raise InvalidOptions("seed must be an integer")
    check_deal(deal)
    return cast(State, deal_game({"seats": SEATS, "options": opts, "seed": seed, "deal": deal}))


def setup_events(state: State) -> list[Event]:
    """The setup as events: face-up tasks and the lead (public), each seat's dealt hand (private)."""
    fresh = deal_game(state["header"])
    events: list[Event] = [{"type": "game-started", "lead": fresh["lead"], "face_up": list(fresh["face_up"])}]
    for seat, hand in enumerate(fresh["hands"]):
        private = {"seats": [seat], "hand": list(hand)}
        events.append({"type": "hand-dealt", "seat": seat, "size": len(hand), "private": private})
    return events


# ------------------------------------------------------------------------------- the round's phases


def _wait(state: TnTState, phase: str) -> bool:
    """The lead player decides next (`phase` names the decision)."""
    state["phase"], state["turn"] = phase, state["lead"]
    return True


def start_round(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """A new round, led by the last trick's winner: nobody has decided to pass or passed yet."""
    state["round"] += 1
    state["passing"] = None
    state["passed"] = [None] * SEATS
    state["received"] = [None] * SEATS
    events.append({"type": "round-started", "round": state["round"], "lead": state["lead"]})
    return False


def fill_tasks(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 1 (ruling 2): while fewer than five tasks lie face up and tasks are left, the lead player
    chooses a level to draw from; story mode draws the top of the single pile, no choice."""
    story = state["story"]
    while len(state["face_up"]) < FACE_UP_TASKS:
        if story is None:
            return bool(fill_levels(state)) and _wait(state, "choose-task-level")
        if not story:
            break
        draw_task(state, None, tables, events, auto=True)
    return False


def fill_up_hands(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 2 (ruling 3), automatic."""
    fill_hands(state, tables, events)
    return False


def decide_passing(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 3 (ruling 1): the lead player decides whether the round passes cards."""
    return _wait(state, "pass-decision")


def pass_cards(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 3 (ruling 1), when the round passes: the lead player passes first."""
    return _wait(state, "pass-card")


def switch_tasks(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 4 (ruling 2): the lead player may switch a task; expert mode skips the phase."""
    return not state["header"]["options"]["expert"] and _wait(state, "switch-task")


def play_trick(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 5: the lead player plays first."""
    return _wait(state, "play")


def fulfil_tasks(state: TnTState, tables: Edition, events: list[Event]) -> bool:
    """Phase 6: score the trick; the game ends once the hands and the draw pile are empty."""
    score_trick(state, tables, events)
    if any(state["hands"]) or state["draw"]:
        return False
    state["phase"], state["turn"] = "over", None
    state["result"] = final_result(state)
    events.append({"type": "game-over", "result": state["result"]})
    return True


# The round, in the rulebook's order (the setup plays round 1's phases 1 and 2).
ROUND: tuple[Phase, ...] = (
    start_round,
    fill_tasks,
    fill_up_hands,
    decide_passing,
    pass_cards,
    switch_tasks,
    play_trick,
    fulfil_tasks,
)


def continue_round(state: TnTState, tables: Edition, events: list[Event], phase: Phase) -> None:
    """Run the phases in order from `phase` (on into the next round) until one stops."""
    index = ROUND.index(phase)
    while not ROUND[index](state, tables, events):
        index = (index + 1) % len(ROUND)


# ----------------------------------------------------------------------------------- the decisions


def choose_task_level(
    state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event], auto: bool
) -> None:
    """Phase 1: draw from the chosen level, then go on filling."""
    draw_task(state, move["level"], tables, events, auto)
    continue_round(state, tables, events, fill_tasks)


def start_or_skip_passing(
    state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event], auto: bool
) -> None:
    """Phase 3: the round passes (`start-passing`: the lead player passes first) or nobody passes
    (`skip-passing`: on to phase 4)."""
    passing = move["type"] == "start-passing"
    state["passing"] = passing
    events.append({"type": "passing-started" if passing else "passing-skipped", "seat": seat})
    continue_round(state, tables, events, pass_cards if passing else switch_tasks)


def give_card(
    state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event], auto: bool
) -> None:
    """Phase 3: pass a card to the left; the seat on the left passes next, until the lead player
    has received one."""
    left = pass_card(state, seat, move["card"], tables, events, auto)
    if left == state["lead"]:
        continue_round(state, tables, events, switch_tasks)
    else:
        state["turn"] = left


def switch(state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event], auto: bool) -> None:
    """Phase 4: switch a task, then play."""
    switch_task(state, move["task"], move.get("level"), tables, events)
    continue_round(state, tables, events, play_trick)


def keep_tasks(
    state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event], auto: bool
) -> None:
    """Phase 4: keep the tasks as they are, then play."""
    events.append({"type": "tasks-kept", "seat": seat, "auto": auto})
    continue_round(state, tables, events, play_trick)


def play(state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event], auto: bool) -> None:
    """Phase 5: play a card; the next seat clockwise plays, until the trick is complete."""
    play_card(state, seat, move["card"], events)
    if len(state["trick"]) == SEATS:
        continue_round(state, tables, events, fulfil_tasks)
    else:
        state["turn"] = (seat + 1) % SEATS


DECISIONS: dict[str, Decision] = {
    "choose-task-level": choose_task_level,
    "start-passing": start_or_skip_passing,
    "skip-passing": start_or_skip_passing,
    "pass-card": give_card,
    "switch-task": switch,
    "keep-tasks": keep_tasks,
    "play": play,
}


def automatic_move(state: TnTState, tables: Edition) -> Move | None:
    """Ruling (forced decisions): the move the engine takes itself, or None if the seat decides.

    A decision is automatic only when its having a single option follows from public
    information: one non-empty level to draw a task from, a switch that no pile allows (only
    `keep-tasks`), passing or playing the last card in a hand (hand sizes are public).  A play
    forced by the cards in a hand of two or more -- a single card to follow with -- stays the
    seat's decision, so nobody learns what the hand does not hold.
    """
    seat = state["turn"]
    phase = state["phase"]
    if seat is None or phase == "pass-decision":  # to pass or not: always two options
        return None
    if phase in HAND_DECISIONS and len(state["hands"][seat]) != 1:  # a hand of two or more
        return None
    if phase == "switch-task" and state["face_up"] and switch_sources(state):  # a switch is possible
        return None
    moves = OPTIONS[phase](state, seat, tables)
    return moves[0] if len(moves) == 1 else None


# ------------------------------------------------------------------------------------------- apply


def seat_decides(state: TnTState, seat: int, move: Move, tables: Edition) -> Move:
    """No move once the game has ended; only the seat in turn decides."""
    if seat != state["turn"]:
        if state["phase"] == "over":
            raise GameOver("the game is over")
        raise NotYourTurn(f"it is seat {state['turn']}'s turn ({state['phase']})")
    return move


def offered(state: TnTState, seat: int, move: Move, tables: Edition) -> Move:
    """The move must be one the decision offers; it is recorded as the offered value."""
    moves = OPTIONS[state["phase"]](state, seat, tables)
    try:
        return moves[moves.index(move)]
    except ValueError:
        raise IllegalMove(why_illegal(state, seat, move, moves), details={"legal_moves": moves}) from None


def take_decision(state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event]) -> None:
    """What the move does (and the phases it completes)."""
    DECISIONS[move["type"]](state, seat, move, tables, events, False)


def record_action(state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event]) -> None:
    """The action list holds the seats' decisions, enough to replay the game."""
    state["actions"].append({"seat": seat, "move": move})


def take_automatic_decisions(
    state: TnTState, seat: int, move: Move, tables: Edition, events: list[Event]
) -> None:
    """Take every decision whose single option is public (`automatic_move`)."""
    while (auto := automatic_move(state, tables)) is not None:
        turn = state["turn"]
        assert turn is not None  # an automatic decision is a seat's
        DECISIONS[auto["type"]](state, turn, auto, tables, events, True)


CHECKS: tuple[Callable[[TnTState, int, Move, Edition], Move], ...] = (parse_move, seat_decides, offered)
STAGES: tuple[Callable[[TnTState, int, Move, Edition, list[Event]], None], ...] = (
    take_decision,
    record_action,
    take_automatic_decisions,
)


def apply(state: State, seat: int, move: Move) -> list[Event]:
    """Apply `move` for `seat` in place and return the events; raise on a bad move (in this order:
    MalformedMove, GameOver, NotYourTurn, IllegalMove)."""
    s: TnTState = state  # type: ignore[assignment]  # the typed view of the same dict, no call
    tables = edition(s["header"]["options"])
    if not LISTED.listed(state, seat, move):  # a value listed for this state version was checked
        for check in CHECKS:
            move = check(s, seat, move, tables)
    events: list[Event] = []
    for stage in STAGES:
        stage(s, seat, move, tables, events)
    return events


def apply_unchecked(state: State, seat: int, move: Move) -> list[Event]:
    """`apply` for a move that `legal_moves` listed for `seat`: no parsing, no checks; the same state
    afterwards, the same events."""
    s: TnTState = state  # type: ignore[assignment]
    tables = edition(s["header"]["options"])
    events: list[Event] = []
    for stage in STAGES:
        stage(s, seat, move, tables, events)
    return events


# ------------------------------------------------------------------------------ asking the state


# What `legal_moves` listed last: `apply` takes one of those values for that state version unchecked.
LISTED = LastListing()


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every move `seat` may make now, exactly as `apply` accepts it; [] if none."""
    s: TnTState = state  # type: ignore[assignment]
    phase = s["phase"]
    if phase == "over" or seat != s["turn"]:
        return []
    return LISTED.remember(state, seat, OPTIONS[phase](s, seat, edition(s["header"]["options"])))


def to_move(state: State) -> list[int]:
    """The seat that decides now ([] once the game is over)."""
    return [] if state["phase"] == "over" else [state["turn"]]


def is_over(state: State) -> bool:
    """True once hands and draw pile are empty (after the ninth round with the full deck)."""
    return bool(state["phase"] == "over")


def result(state: State) -> dict[str, Any]:
    """Team points (story mode: tasks) for every seat, winners, and the rulebook's band."""
    return final_result(cast(TnTState, state))


def replay(header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
    """Rebuild a state from its header and action list."""
    state = new_game(header["seats"], header["options"], header["seed"], header["deal"])
    for action in actions:
        apply(state, action["seat"], action["move"])
    return state
