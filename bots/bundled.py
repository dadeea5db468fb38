"""The bundled bots (`random`, `heuristic`, `search`), each serving both games."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from bots.policy import Memory, Message, Move, Policy, random_policy
from bots.sdk import Bot
from games.registry import GAMES

GAME_NAMES = tuple(sorted(GAMES))  # the random bot plays every game the rules package declares
MAX_MATCHES_REMEMBERED = 256


class BundledBot(Bot):
    """A bot dispatching each request to its policy for the request's game, with per-match memory."""

    author = "Trick Arena"
    version = "1.0"

    def __init__(self, name: str, policies: Mapping[str, Policy]) -> None:
        self.name = name
        self.games = tuple(policies)
        self._policies = dict(policies)
        # Bounded so a bot serving many matches never grows without limit; LRU order. The server
        # is threaded (several matches at once), so the table itself is guarded by a lock.
        self._memory: OrderedDict[str, Memory] = OrderedDict()
        self._lock = threading.Lock()

    def memory_for(self, match_id: str, seat: int = 0) -> Memory:
        """The memory of one seat in one match (created on first use, also when /start was missed)."""
        with self._lock:
            return self._memory_locked(_key(match_id, seat))

    def _memory_locked(self, key: str) -> Memory:
        memory = self._memory.get(key)
        if memory is None:
            memory = {}
            self._memory[key] = memory
            while len(self._memory) > MAX_MATCHES_REMEMBERED:
                self._memory.popitem(last=False)
        else:
            self._memory.move_to_end(key)
        return memory

    def start(self, message: dict[str, Any]) -> None:
        """Fresh memory for the match."""
        with self._lock:
            key = _key(message["match_id"], message["seat"])
            self._memory.pop(key, None)
            self._memory_locked(key)

    def move(self, message: Message) -> Move:
        """Ask the game's policy; fall back to the first legal move for a game it doesn't play."""
        policy = self._policies.get(message["game"])
        if policy is None:
            return dict(message["legal_moves"][0])
        return policy(message, self.memory_for(message["match_id"], message["seat"]))

    def end(self, message: dict[str, Any]) -> None:
        """Forget the match."""
        with self._lock:
            self._memory.pop(_key(message["match_id"], message["seat"]), None)


def _key(match_id: str, seat: int) -> str:
    # A bot may fill several seats of one match (fewer entrants than seats): one memory per seat.
    return f"{match_id}#{seat}"


def _random() -> BundledBot:
    return BundledBot("random", {game: random_policy for game in GAME_NAMES})


def _heuristic() -> BundledBot:
    from bots.heuristics import HEURISTIC_POLICIES

    return BundledBot("heuristic", HEURISTIC_POLICIES)


def _search() -> BundledBot:
    from bots.search import SEARCH_POLICIES

    return BundledBot("search", SEARCH_POLICIES)


BUNDLED: dict[str, Callable[[], BundledBot]] = {"random": _random, "heuristic": _heuristic, "search": _search}


def make_bot(name: str) -> BundledBot:
    """A fresh instance of the bundled bot called `name`; KeyError names the known ones."""
    try:
        factory = BUNDLED[name]
    except KeyError:
        raise KeyError(f"unknown bundled bot {name!r}; known: {sorted(BUNDLED)}") from None
    return factory()
