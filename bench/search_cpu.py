"""CPU per sample of the Tricky Teams search, on fixed decisions, to compare code versions.

    .venv/bin/python bench/search_cpu.py --record /tmp/decisions.json           # once
    .venv/bin/python bench/search_cpu.py --decisions /tmp/decisions.json --samples 40

`--record` plays seeded 4-seat, 1-raid games of four heuristic bots and saves every play decision
with a choice (the request and the seat's memory, as JSON). Without it, the search decides each
saved request afresh with a fixed number of determinizations (never the clock) and the CPU time
(process time) is printed per decision and per sample. Run it from checkouts of two versions of
the code, alternating (`cd` into each, with the same decisions file), to compare them in one run
on a shared machine: the requests are wire JSON, the same for every version.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))  # the checkout run from, not necessarily this file's

from bots.arena import play_game, policy_player  # noqa: E402
from bots.heuristics import HEURISTIC_POLICIES  # noqa: E402
from bots.tricky_teams_search import TrickyTeamsSearch, remember  # noqa: E402

SEED_BASE = 2_000_000
HOUR = 3600.0


def record(games: int) -> list[Any]:
    """[request, memory] of every play decision with a choice in `games` seeded heuristic games."""
    heuristic = HEURISTIC_POLICIES["tricky-teams"]
    found: list[Any] = []

    def player(message: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        legal = message["legal_moves"]
        if len(legal) > 1 and legal[0]["type"] == "play":
            found.append(json.loads(json.dumps([message, memory])))
        remember(message["view"], memory)
        return heuristic(message, memory)

    for game in range(games):
        players = [policy_player(player) for _ in range(4)]
        play_game("tricky-teams", players, SEED_BASE + game, {"raids": 1}, match_id=f"cpu-{game}")
    return found


def main() -> int:
    """Record decisions, or time the search on recorded ones."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", type=Path, help="write the decisions of --games games here")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--decisions", type=Path, help="time the search on these decisions")
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    if args.record:
        decisions = record(args.games)
        args.record.write_text(json.dumps(decisions))
        print(f"{len(decisions)} decisions written to {args.record}")
        return 0
    if not args.decisions:
        parser.error("give --record FILE or --decisions FILE")
    decisions = json.loads(args.decisions.read_text())
    search = TrickyTeamsSearch(samples=args.samples, fraction=HOUR, cap_s=HOUR)
    total = 0.0
    for message, memory in decisions:
        memory = copy.deepcopy(memory)
        started = time.process_time()
        search(message, memory)
        total += time.process_time() - started
    per_decision = total / len(decisions)
    print(
        f"{len(decisions)} decisions x {args.samples} samples: {1000 * per_decision:.2f} ms per decision, "
        f"{1e6 * per_decision / args.samples:.0f} us per sample"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
