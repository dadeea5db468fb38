"""The bundled bots (`random`, `heuristic`, `search`), each serving both games."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from bots.policy import Memory, Message, Move, Policy, random_policy
from bots.sdk import Bot

GAME_NAMES = ("tricky-teams", "trick-n-trouble")
MAX_MATCHES_REMEMBERED = 256


class BundledBot(Bot):
    """A bot dispatching each request to its policy for the request's game, with per-match memory."""

    author = "Trick Arena"
    version = "1.0"

    def __init__(self, name: str, policies: Mapping[str, Policy]) -> None:
        self.name = name
        self.games = tuple(policies)
        self._policies = dict(policies)
        # Bounded so a bot serving many matches never grows without limit; LRU order.
        self._memory: OrderedDict[str, Memory] = OrderedDict()

    def memory_for(self, match_id: str) -> Memory:
        """The memory of one match (created on first use, also when /start was missed)."""
        memory = self._memory.get(match_id)
        if memory is None:
            memory = {}
            self._memory[match_id] = memory
            while len(self._memory) > MAX_MATCHES_REMEMBERED:
                self._memory.popitem(last=False)
        else:
            self._memory.move_to_end(match_id)
        return memory

    def start(self, message: dict[str, Any]) -> None:
        """Fresh memory for the match."""
        self._memory.pop(message["match_id"], None)
        self.memory_for(message["match_id"])

    def move(self, message: Message) -> Move:
        """Ask the game's policy; fall back to the first legal move for a game it doesn't play."""
        policy = self._policies.get(message["game"])
        if policy is None:
            return dict(message["legal_moves"][0])
        return policy(message, self.memory_for(message["match_id"]))

    def end(self, message: dict[str, Any]) -> None:
        """Forget the match."""
        self._memory.pop(message["match_id"], None)


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
