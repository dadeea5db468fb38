"""bench/engine_bench.py: the bench loop over a stub game is the same loop the engines are timed in."""

from __future__ import annotations

import random

from bench.engine_bench import LoopFloor, engine_playout_game, playout_game
from games.registry import GAMES


def test_loop_floor_runs_the_engines_loop_over_a_stub_game() -> None:
    """Issue 27, Engines row: the loop floor is `playout_game`, the engines' own loop, over 52
    do-nothing decisions, and every registered game plays to its end in that same loop."""
    assert playout_game(LoopFloor(), 4)(random.Random(0), 0) == 52
    for name, game in GAMES.items():
        assert engine_playout_game(name, game.seat_counts[0])(random.Random(1), 1) > 0
