"""A seeded game of Tricky Teams between random players, printed trick by trick (the first `make run`)."""

from __future__ import annotations

import argparse
import random
from typing import Any

from games.tricky_teams import GAME as TRICKY_TEAMS


def describe_trick(event: dict[str, Any], teams: dict[str, str]) -> str:
    """One line per scored trick: who played what, team strengths, the winners and the loot."""
    plays = ", ".join(
        f"seat {p['seat']}: {p['card']}{' (face down)' if p['face_down'] else ''}" for p in event["plays"]
    )
    strengths = ", ".join(f"{teams.get(t, t)} {s}" for t, s in sorted(event["strengths"].items()))
    won = event["winning_team"]
    winner = teams.get(won, won) if isinstance(won, str) else won
    loot = ", ".join(event["loot"]) or "nothing"
    return (
        f"  trick {event['number']:>2}: {plays}\n"
        f"            strengths {strengths} -> {winner} win (seats {event['winners']}), loot: {loot}"
    )


def play_demo(seed: int, seats: int, raids: int) -> list[str]:
    """Play one seeded random game and return the printable lines."""
    game = TRICKY_TEAMS
    state = game.new_game(seats, {"raids": raids}, seed=seed)
    rng = random.Random(seed)
    teams: dict[str, str] = game.view(state, None)["teams"]
    lines = [f"Tricky Teams, {seats} random players, seed {seed}, {raids} raid(s)"]
    while not game.is_over(state):
        seat = game.to_move(state)[0]
        move = rng.choice(game.legal_moves(state, seat))
        for event in game.apply(state, seat, move):
            if event["type"] == "raid-started":
                lines.append(f"Raid {event['raid']} (led by seat {event['leader']})")
            elif event["type"] == "trick-won":
                lines.append(describe_trick(event, teams))
            elif event["type"] == "raid-ended":
                lines.append(f"  coins this raid {event['coins']}, totals {event['totals']}")
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
