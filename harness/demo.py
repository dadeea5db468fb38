"""A seeded game of Tricky Teams between random players, printed trick by trick (the first `make run`)."""

from __future__ import annotations

import argparse
import random

from games.tricky_teams import GAME as TRICKY_TEAMS
from harness.narrate import Narrator


def play_demo(seed: int, seats: int, raids: int) -> list[str]:
    """Play one seeded random game and return the printable lines."""
    game = TRICKY_TEAMS
    state = game.new_game(seats, {"raids": raids}, seed=seed)
    rng = random.Random(seed)
    teams: dict[str, str] = game.view(state, None)["teams"]
    narrator = Narrator(teams)
    narrator.lines.append(f"Tricky Teams, {seats} random players, seed {seed}, {raids} raid(s)")
    narrator.feed_all(game.setup_events(state))
    while not game.is_over(state):
        seat = game.to_move(state)[0]
        move = rng.choice(game.legal_moves(state, seat))
        narrator.feed_all(game.apply(state, seat, move))
    lines = narrator.lines
    result = game.result(state)
    lines.append(f"Final coins {result['scores']}; winner(s): seats {result['winners']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Entry point: print a seeded demo game."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--raids", type=int, default=4)
    args = parser.parse_args(argv)
    print("\n".join(play_demo(args.seed, args.seats, args.raids)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
