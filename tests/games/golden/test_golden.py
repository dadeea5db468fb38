"""The regression oracle: every configuration's fingerprint equals the committed one.

A difference means the engines now behave differently somewhere in 60 seeded games (a legal-move
list, an event, a view, a refusal, a result). A deliberate rule change regenerates the file in
its own commit (`python -m tests.games.golden.fingerprint --write`); a speed-up never does.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from games.registry import GAMES
from tests.games.golden.fingerprint import CONFIGS, FILE, SEEDS, fingerprint_game

COMMITTED: dict[str, str] = json.loads(FILE.read_text())


def test_every_game_and_configuration_is_fingerprinted() -> None:
    """Rule: the oracle covers every registered game, each of its seat counts, and nothing else."""
    assert set(CONFIGS) == set(GAMES)
    for name, configs in CONFIGS.items():
        assert {seats for _, seats, _ in configs} == set(GAMES[name].seat_counts)
    assert set(COMMITTED) == {
        f"{name}/{label}" for name, configs in CONFIGS.items() for label, _, _ in configs
    }


@pytest.mark.parametrize(
    ("name", "label", "seats", "options"),
    [(name, label, seats, options) for name, configs in CONFIGS.items() for label, seats, options in configs],
)
def test_engine_behaviour_matches_the_golden_fingerprint(
    name: str, label: str, seats: int, options: dict[str, object] | None
) -> None:
    """Rule: legal moves, events, views, refusals and results of seeded games are unchanged."""
    digest = hashlib.sha256()
    for seed in SEEDS:
        digest.update(fingerprint_game(GAMES[name], seats, options, seed).encode())
    assert digest.hexdigest() == COMMITTED[f"{name}/{label}"]
