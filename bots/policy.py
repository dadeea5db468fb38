"""What a bundled bot's per-game policy is: a function of the move request and the match memory."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

Move = dict[str, Any]
Message = dict[str, Any]
# Per-match memory a policy may keep between calls (it must stay correct when calls were missed).
Memory = dict[str, Any]
Policy = Callable[[Message, Memory], Move]


def seeded_rng(message: Message, salt: str = "") -> random.Random:
    """An RNG seeded from the match id, the seat and the situation: same request, same choice."""
    view = message.get("view", {})
    situation = json.dumps(view, sort_keys=True, separators=(",", ":"), default=str)
    key = f"{message.get('match_id')}|{message.get('seat')}|{salt}|{situation}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def random_policy(message: Message, memory: Memory) -> Move:
    """Uniformly random legal move, reproducible from match id + seat + view."""
    legal: list[Move] = message["legal_moves"]
    return legal[seeded_rng(message).randrange(len(legal))]


def budget_s(message: Message, fraction: float = 0.5, cap_s: float = 2.0) -> float:
    """How long a search may think: a fraction of the per-move deadline, never past the cap."""
    deadline_ms = float(message.get("deadline_ms") or 1000)
    return max(0.005, min(cap_s, fraction * deadline_ms / 1000.0))


def move_key(move: Move) -> str:
    """A canonical string of a move, to compare moves and key statistics."""
    return json.dumps(move, sort_keys=True, separators=(",", ":"))
