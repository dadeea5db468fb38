"""The `heuristic` bot's policies: rule-of-thumb `choose(view, legal_moves, rng)` functions per game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bots import tricky_teams_heuristic
from bots.policy import Memory, Message, Move, Policy, seeded_rng
from games.trick_n_trouble import GAME as TRICK_N_TROUBLE
from games.tricky_teams import GAME as TRICKY_TEAMS


def from_choose(choose: Callable[[dict[str, Any], list[Move], Any], Move]) -> Policy:
    """Adapt a pure `choose(view, legal_moves, rng)` to a policy (seeded from match, seat and view)."""

    def policy(message: Message, memory: Memory) -> Move:
        return choose(message["view"], message["legal_moves"], seeded_rng(message, "heuristic"))

    return policy


def _tnt_choose(view: dict[str, Any], legal: list[Move], rng: Any) -> Move:
    # The Trick 'n Trouble engineer's function, served as is (imported lazily: it may be rewritten).
    from bots import trick_n_trouble_heuristic

    return trick_n_trouble_heuristic.choose(view, legal, rng)


HEURISTIC_POLICIES: dict[str, Policy] = {
    TRICKY_TEAMS.name: from_choose(tricky_teams_heuristic.choose),
    TRICK_N_TROUBLE.name: from_choose(_tnt_choose),
}
