"""Play one game between bots with the engine as the referee (in-process policies or HTTP bots).

This is the small local driver used by the bot tests and the strength benchmark; the tournament
harness has its own match runner with the same message shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.policy import Memory, Message, Move, Policy, move_key
from bots.protocol import FaultCode, MoveStatus
from games.base import State
from games.registry import get_game
from harness.outbound import BotSession, OutboundError

Player = Callable[[Message], Move]


@dataclass
class GameRecord:
    """How a game went: the final state, the engine's result and every fault per seat."""

    state: State
    result: dict[str, Any]
    decisions: int
    faults: dict[int, list[str]] = field(default_factory=dict)


def policy_player(policy: Policy) -> Player:
    """An in-process player: `policy` with its own per-match memory."""
    memory: Memory = {}
    return lambda message: policy(message, memory)


def http_player(session: BotSession, timeout_s: float = 5.0) -> Player:
    """A player that asks a bot over the signed HTTP protocol."""

    def play(message: Message) -> Move:
        answer = session.post_json("/move", message, timeout_s)
        if not isinstance(answer, dict) or not isinstance(answer.get("move"), dict):
            raise OutboundError(FaultCode.MALFORMED_BODY, 'answer is not {"move": {...}}')
        move: Move = answer["move"]
        return move

    return play


def play_game(
    game_name: str,
    players: Sequence[Player],
    seed: int,
    options: dict[str, Any] | None = None,
    deal: dict[str, Any] | None = None,
    match_id: str | None = None,
    deadline_ms: int = 1000,
) -> GameRecord:
    """Play to the end; a faulty answer is replaced by the first legal move and reported next time."""
    game = get_game(game_name)
    state = game.new_game(len(players), options, seed=seed, deal=deal)
    match_id = match_id or f"{game_name}:{seed}"
    previous: dict[int, dict[str, Any]] = {}
    faults: dict[int, list[str]] = {seat: [] for seat in range(len(players))}
    decisions = 0
    while not game.is_over(state):
        seat = game.to_move(state)[0]
        legal = game.legal_moves(state, seat)
        message: Message = {
            "match_id": match_id,
            "game": game_name,
            "seat": seat,
            "view": game.view(state, seat),
            "legal_moves": legal,
            "deadline_ms": deadline_ms,
            "time_bank_ms": 0,
            "previous": previous.get(seat),
        }
        fault: str | None = None
        try:
            move = players[seat](message)
            if move_key(move) not in {move_key(m) for m in legal}:
                fault = FaultCode.ILLEGAL_MOVE
        except OutboundError as exc:
            fault = exc.code
        if fault is not None:
            faults[seat].append(str(fault))
            move = legal[0]
        previous[seat] = {
            "status": MoveStatus.REPLACED if fault else MoveStatus.ACCEPTED,
            "fault": None if fault is None else str(fault),
        }
        game.apply(state, seat, move)
        decisions += 1
    return GameRecord(state, game.result(state), decisions, faults)


def play_http_match(
    game_name: str,
    sessions: Sequence[BotSession],
    seed: int,
    options: dict[str, Any] | None = None,
    match_id: str | None = None,
    deadline_ms: int = 1000,
) -> GameRecord:
    """One match over the bot protocol: `/start` to each seat, `/move` per decision, `/end` with result."""
    match_id = match_id or f"{game_name}:{seed}"
    timeout_s = deadline_ms / 1000.0 + 1.0
    base = {"match_id": match_id, "game": game_name}
    for seat, session in enumerate(sessions):
        session.post_json(
            "/start",
            {
                **base,
                "seat": seat,
                "seats": len(sessions),
                "options": options or {},
                "deadline_ms": deadline_ms,
                "time_bank_ms": 0,
            },
            timeout_s,
        )
    players = [http_player(session, timeout_s) for session in sessions]
    record = play_game(game_name, players, seed, options, match_id=match_id, deadline_ms=deadline_ms)
    for seat, session in enumerate(sessions):
        session.post_json(
            "/end",
            {**base, "seat": seat, "result": record.result, "faults": len(record.faults[seat])},
            timeout_s,
        )
    return record
