"""Random-playout benchmark of every registered engine, with OpenSpiel hearts and RLCard bridge as peers.

Usage: .venv/bin/python bench/engine_bench.py [--seconds 2] [--runs 5] [--seats 4]
       .venv/bin/python bench/engine_bench.py --opcodes tricky-teams [--games 5]

Every decision calls the engine's `legal_moves` and applies a uniformly random one of them; a
game counts from `new_game` to its end.  Each figure is the median of `--runs` timed runs of
about `--seconds` of CPU time each, pinned to one CPU core.  Rates are per CPU second of this
process (`time.process_time`), so other load on a shared machine does not count against an
engine; the wall-clock rate is printed beside it.  Peers whose package is missing are reported as
such, never estimated.  A stub game whose calls do nothing (`LoopFloor`) times the loop itself:
its share of every engine's and peer's decision is printed.

`--opcodes GAME` says where a decision's time goes instead, independent of the machine's load:
the bytecodes each function runs per decision (`sys.settrace` opcode events) over the same loop
of `--games` seeded games, after a warm-up game.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from games.registry import GAMES

# The bench loop alone, over a stub game (`LoopFloor`).
LOOP_FLOOR = "bench loop (stub game)"
# A playout function plays whole games for about `seconds` of CPU time; returns (decisions, games, cpu, wall).
Playout = Callable[[float, int], tuple[int, int, float, float]]


def timed_playouts(play_game: Callable[[random.Random, int], int]) -> Playout:
    """Wrap a one-game player (rng, game seed) -> decisions into a timed playout loop."""

    def run(seconds: float, seed: int) -> tuple[int, int, float, float]:
        """Play whole games for about `seconds` of CPU time; count decisions and games."""
        rng = random.Random(seed)
        decisions = games = 0
        wall = time.perf_counter()
        start = time.process_time()
        deadline = start + seconds
        while time.process_time() < deadline:
            decisions += play_game(rng, seed * 1_000_003 + games)
            games += 1
        return decisions, games, time.process_time() - start, time.perf_counter() - wall

    return run


def engine_playout(name: str, seats: int) -> Playout:
    """Random playouts of a registered game, `legal_moves` at every decision."""
    return timed_playouts(engine_playout_game(name, seats))


def engine_playout_game(name: str, seats: int) -> Callable[[random.Random, int], int]:
    """One random game of a registered game, `legal_moves` at every decision, as a function."""
    return playout_game(GAMES[name], seats)


class LoopFloor:
    """A stub game whose calls do nothing but count: the bench loop's own cost per decision.

    Every decision of every engine and of hearts pays this loop (the Python calls, `randrange`),
    so it bounds the ratio to hearts from above whatever the engine costs (docs/performance.md).
    """

    MOVES: tuple[dict[str, str], ...] = tuple({"type": "play", "card": str(card)} for card in range(8))

    def new_game(self, seats: int, options: None, seed: int) -> dict[str, int]:
        """A game of 52 decisions."""
        return {"decisions": 0}

    def is_over(self, state: dict[str, int]) -> bool:
        """Over after 52 decisions."""
        return state["decisions"] >= 52

    def to_move(self, state: dict[str, int]) -> list[int]:
        """Seat 0 always."""
        return [0]

    def legal_moves(self, state: dict[str, int], seat: int) -> tuple[dict[str, str], ...]:
        """The same eight moves."""
        return self.MOVES

    def apply(self, state: dict[str, int], seat: int, move: dict[str, str]) -> list[Any]:
        """Count the decision."""
        state["decisions"] += 1
        return []


def playout_game(game: Any, seats: int) -> Callable[[random.Random, int], int]:
    """One random game of `game` (a registered game or `LoopFloor`), `legal_moves` at every decision."""

    def play_game(rng: random.Random, game_seed: int) -> int:
        """One random game from `new_game` to its end; returns the number of decisions."""
        decisions = 0
        state = game.new_game(seats, None, game_seed)
        while not game.is_over(state):
            for seat in game.to_move(state):
                moves = game.legal_moves(state, seat)
                if moves:
                    game.apply(state, seat, moves[rng.randrange(len(moves))])
                    decisions += 1
                    break
        return decisions

    return play_game


def opcodes_per_decision(name: str, seats: int, games: int) -> tuple[int, Counter[str]]:
    """Decisions of `games` seeded random games of the bench loop, and the bytecodes each function ran."""
    play_game = engine_playout_game(name, seats)
    play_game(random.Random(0), 10**9)  # warm-up: import-time and first-call tables are not counted
    counts: Counter[str] = Counter()

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            code = frame.f_code
            counts[f"{Path(code.co_filename).name}:{code.co_name}"] += 1
        return tracer

    decisions = 0
    sys.settrace(tracer)
    try:
        for game_seed in range(games):
            decisions += play_game(random.Random(game_seed), game_seed)
    finally:
        sys.settrace(None)
    return decisions, counts


def openspiel_hearts_playout() -> Playout | str:
    """Random playouts of OpenSpiel's C++ hearts through pyspiel (chance nodes sampled, not counted)."""
    try:
        import pyspiel
    except ImportError as exc:
        return f"open-spiel not installed ({exc})"
    game = pyspiel.load_game("hearts")

    def play_game(rng: random.Random, game_seed: int) -> int:
        """One random hearts game; returns the number of player decisions."""
        decisions = 0
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
                decisions += 1
        return decisions

    return timed_playouts(play_game)


def rlcard_bridge_playout() -> Playout | str:
    """Random playouts of RLCard's (pure Python) bridge at the game level: legal actions every decision."""
    try:
        import rlcard
    except ImportError as exc:
        return f"rlcard not installed ({exc})"
    game = rlcard.make("bridge", config={"seed": 0}).game

    def play_game(rng: random.Random, game_seed: int) -> int:
        """One random bridge deal (auction and play); returns the number of decisions."""
        decisions = 0
        game.init_game()
        while not game.is_over():
            actions = game.judger.get_legal_actions()
            game.step(actions[rng.randrange(len(actions))])
            decisions += 1
        return decisions

    return timed_playouts(play_game)


def measure_all(playouts: dict[str, Playout], seconds: float, runs: int) -> dict[str, dict[str, Any]]:
    """Per CPU second medians for every playout, the runs interleaved (round r of every playout, then r+1).

    Interleaving exposes engines and peers to the same background load, so the per-round ratios
    are steadier than ratios of separately measured medians on a shared machine.
    """
    for playout in playouts.values():
        playout(min(0.3, seconds), 999)  # warm-up
    rates: dict[str, list[tuple[float, float, float]]] = {name: [] for name in playouts}
    for run in range(runs):
        for name, playout in playouts.items():
            decisions, games, cpu, wall = playout(seconds, run)
            rates[name].append((decisions / cpu, games / cpu, decisions / wall))
    return {
        name: {
            "decisions_per_s": statistics.median(r[0] for r in rs),
            "games_per_s": statistics.median(r[1] for r in rs),
            "wall_decisions_per_s": statistics.median(r[2] for r in rs),
            "runs": [round(r[0]) for r in rs],
        }
        for name, rs in rates.items()
    }


def pin_to_one_core() -> str:
    """Pin this process to one CPU so that the figures are single-core figures."""
    if hasattr(os, "sched_setaffinity"):
        core = sorted(os.sched_getaffinity(0))[-1]
        os.sched_setaffinity(0, {core})
        return f"pinned to CPU {core}"
    return "not pinned (no sched_setaffinity)"


def main() -> None:
    """Run every registered engine and the peers; print a table with ratios to the peers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed run")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per engine (median reported)")
    parser.add_argument("--seats", type=int, default=4, help="players per game (if the game allows it)")
    parser.add_argument("--opcodes", metavar="GAME", help="bytecodes per decision by function, of one game")
    parser.add_argument("--games", type=int, default=5, help="with --opcodes: seeded games traced")
    args = parser.parse_args()
    if args.opcodes:
        counts = GAMES[args.opcodes].seat_counts
        seats = args.seats if args.seats in counts else counts[0]
        decisions, ops = opcodes_per_decision(args.opcodes, seats, args.games)
        print(f"{args.opcodes} ({seats}p): {sum(ops.values()) / decisions:.0f} bytecodes per decision")
        for function, count in ops.most_common(30):
            print(f"{count / decisions:8.1f}  {function}")
        return
    load = "/".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    print(
        f"engine bench: {pin_to_one_core()}, {args.runs} runs x {args.seconds:.1f} CPU s, median; load {load}"
    )
    engines: dict[str, Playout] = {}
    for name in sorted(GAMES):
        counts = GAMES[name].seat_counts
        seats = args.seats if args.seats in counts else counts[0]
        engines[f"{name} ({seats}p)"] = engine_playout(name, seats)
    peers: dict[str, Playout] = {}
    for name, playout in {
        "openspiel hearts (C++)": openspiel_hearts_playout(),
        "rlcard bridge (Python)": rlcard_bridge_playout(),
    }.items():
        if isinstance(playout, str):
            print(f"{name}: NOT MEASURED: {playout}")
        else:
            peers[name] = playout
    loop_floor = timed_playouts(playout_game(LoopFloor(), 4))
    results = measure_all({**engines, **peers, LOOP_FLOOR: loop_floor}, args.seconds, args.runs)
    print(f"{'engine':<28}{'decisions/s':>14}{'games/s':>11}{'wall dec/s':>13}  runs (decisions/CPU s)")
    for name, res in results.items():
        print(
            f"{name:<28}{res['decisions_per_s']:>14,.0f}{res['games_per_s']:>11,.1f}"
            f"{res['wall_decisions_per_s']:>13,.0f}  {res['runs']}"
        )
    floor = results.pop(LOOP_FLOOR)["decisions_per_s"]
    print(f"{LOOP_FLOOR}: {floor:,.0f} decisions/s; its share of a decision:", end="")
    print("".join(f" {name} {res['decisions_per_s'] / floor:.0%}," for name, res in results.items())[:-1])
    for name in engines:
        for peer in peers:
            paired = [a / b for a, b in zip(results[name]["runs"], results[peer]["runs"], strict=True)]
            print(
                f"{name} / {peer}: {statistics.median(paired):.2f}x decisions/s "
                f"(median of per-round ratios {', '.join(f'{x:.2f}' for x in paired)})"
            )


if __name__ == "__main__":
    main()
