"""The engines' regression oracle: a fingerprint of seeded games, as python-chess checks perft.

For every game, seat count and option set below, seeded random games are played to the end; at
every step the fingerprint takes in every seat's legal moves, the move played, its events, every
seat's and the spectator's view, and the answers (error class, code, message, details) to a set
of malformed and illegal moves; at the end the result and a replay of the actions. One SHA-256
per configuration is committed in `fingerprints.json`; `test_golden.py` recomputes them.

Regenerate only when a ruling deliberately changes behaviour, in its own commit:
`.venv/bin/python -m tests.games.golden.fingerprint --write`.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

from games.base import Game, GameError
from games.registry import GAMES

FILE = Path(__file__).with_name("fingerprints.json")
SEEDS = range(6)
# game -> [(label, seats, options)]: every seat count, the option sets that change the rules.
CONFIGS: dict[str, list[tuple[str, int, dict[str, Any] | None]]] = {
    "tricky-teams": [
        *[(f"{n}-seats", n, None) for n in (3, 4, 5, 6)],
        ("4-seats-1-raid-flat-coins", 4, {"raids": 1, "coins": {"1": 1, "10": 1}}),
    ],
    "trick-n-trouble": [
        ("normal", 3, None),
        ("expert", 3, {"expert": True}),
        ("story", 3, {"story": True}),
        ("expert-story", 3, {"expert": True, "story": True}),
        ("renamed-colours", 3, {"colours": ["red", "white", "black"], "threshold": 30}),
    ],
}
# Moves no game accepts: malformed shapes and values.
JUNK: list[Any] = [
    None,
    [],
    {},
    {"type": "fly"},
    {"type": "play"},
    {"type": "play", "card": "purple-99"},
    {"type": "play", "card": 7},
    {"type": "play", "card": "x", "extra": 1},
]


def _dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr).encode()


def _answer(game: Game, state: dict[str, Any], seat: int, move: Any) -> Any:
    """What `apply` says to `move` on a copy of `state` (the copy is thrown away)."""
    trial = copy.deepcopy(state)
    try:
        events = game.apply(trial, seat, move)
    except GameError as exc:
        return [type(exc).__name__, exc.code, exc.message, exc.details]
    except Exception as exc:  # an engine that crashes on junk: part of the behaviour to pin
        return ["crash", type(exc).__name__]
    return ["accepted", events]


def fingerprint_game(game: Game, seats: int, options: dict[str, Any] | None, seed: int) -> str:
    """SHA-256 over everything observable in one seeded random game."""
    digest = hashlib.sha256()
    state = game.new_game(seats, options, seed=seed)
    digest.update(_dump(game.setup_events(state)))
    rng = random.Random(seed)
    steps = 0
    while not game.is_over(state):
        legal = {s: game.legal_moves(state, s) for s in range(seats)}
        digest.update(_dump(legal))
        digest.update(_dump([game.view(state, s) for s in [*range(seats), None]]))
        to_move = game.to_move(state)
        seat = to_move[0]
        if steps % 7 == 0:  # bad moves now and then: the refusals are behaviour too
            idle = next((s for s in range(seats) if not legal[s]), None)
            probes: list[tuple[int, Any]] = [(seat, junk) for junk in JUNK]
            if idle is not None and legal[seat]:
                probes.append((idle, legal[seat][0]))
            for probe_seat, move in probes:
                digest.update(_dump(_answer(game, state, probe_seat, move)))
        move = rng.choice(legal[seat])
        events = game.apply(state, seat, move)
        digest.update(_dump([seat, move, events]))
        steps += 1
    digest.update(_dump([game.view(state, s) for s in [*range(seats), None]]))
    digest.update(_dump(game.result(state)))
    digest.update(_dump(_answer(game, state, 0, {"type": "play", "card": "x"})))
    replayed = game.replay(state["header"], state["actions"])
    assert _dump(replayed) == _dump(state), "replay reproduces the state"
    return digest.hexdigest()


def fingerprints() -> dict[str, str]:
    """Configuration label -> SHA-256 over its seeded games."""
    out = {}
    for name, configs in CONFIGS.items():
        game = GAMES[name]
        for label, seats, options in configs:
            digest = hashlib.sha256()
            for seed in SEEDS:
                digest.update(fingerprint_game(game, seats, options, seed).encode())
            out[f"{name}/{label}"] = digest.hexdigest()
    return out


def main() -> None:
    """Print the fingerprints, or write them with --write."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {FILE.name}")
    args = parser.parse_args()
    now = fingerprints()
    if args.write:
        FILE.write_text(json.dumps(now, indent=2, sort_keys=True) + "\n")
    print(json.dumps(now, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
