"""What a bundled bot's per-game policy is: a function of the move request and the match memory."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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


# How long a bundled search bot thinks on a move, from the platform's time policy as every request
# states it (`deadline_ms`; docs/bots.md, Time): this share of the deadline in wall time, and of
# that at most `CPU_OF_WALL` in the thread's CPU time. The wall bound keeps the answer on time
# when the machine is busy (other processes, other matches' requests in this bot's threads): the
# search is cut short, the answer is not late; the CPU bound keeps the bot's own demand on the
# machine small when it is idle. The other three quarters of the deadline are the margin for
# reading the request, the last sample, answering, the network and a loaded machine.
THINK_SHARE = 0.25
CPU_OF_WALL = 0.6
THINK_CAP_S = 2.0
# One search at a time in a bot process: its threads share one interpreter lock, so searches side
# by side only slow each other down, and a request whose search is over would then wait behind all
# the others still sampling to answer. A request that cannot start its search within its own
# budget is answered by the heuristic (docs/bots.md, Time).
_SEARCH_SLOT = threading.Lock()


def budget_s(message: Message, fraction: float = THINK_SHARE, cap_s: float = THINK_CAP_S) -> float:
    """How long a search may think (wall time): a share of the per-move deadline, at most the cap."""
    deadline_ms = float(message.get("deadline_ms") or 1000)
    return max(0.005, min(cap_s, fraction * deadline_ms / 1000.0))


@dataclass
class ThinkClock:
    """A search's time on one move: over once the wall time or this thread's CPU time since it
    started reaches its bound (`budget_s`, and `CPU_OF_WALL` of it in CPU time)."""

    wall_stop: float
    cpu_stop: float
    granted: bool = True  # whether the search got the process's search slot in time

    @classmethod
    def start(cls, message: Message, fraction: float = THINK_SHARE, cap_s: float = THINK_CAP_S) -> ThinkClock:
        """The clock of a move request, started now."""
        wall = budget_s(message, fraction, cap_s)
        return cls(time.monotonic() + wall, time.thread_time() + CPU_OF_WALL * wall)

    @classmethod
    @contextmanager
    def thinking(
        cls, message: Message, fraction: float = THINK_SHARE, cap_s: float = THINK_CAP_S
    ) -> Iterator[ThinkClock]:
        """The clock of a move request, started now, holding the process's search slot (waited for
        within the wall budget: the wait counts against it); `over()` at once if the slot did not
        come in time."""
        clock = cls.start(message, fraction, cap_s)
        clock.granted = _SEARCH_SLOT.acquire(timeout=max(0.0, clock.wall_stop - time.monotonic()))
        try:
            yield clock
        finally:
            if clock.granted:
                _SEARCH_SLOT.release()

    def over(self) -> bool:
        """Whether the search must answer now."""
        return not self.granted or time.monotonic() >= self.wall_stop or time.thread_time() >= self.cpu_stop


def move_key(move: Move) -> str:
    """A canonical string of a move, to compare moves and key statistics."""
    return json.dumps(move, sort_keys=True, separators=(",", ":"))
