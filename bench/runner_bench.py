"""Runner benchmark: the harness's CPU per decision against its floor, same bots, same Redis, same run.

    .venv/bin/python bench/runner_bench.py [--bot-delay-ms 20,100] [--runs 3] [--matches 64]
        [--floor-decisions 3000] [--floor-threads 64] [--bots 4] [--redis-url URL] [--json FILE]

The **floor** is what no runner can do without, per decision: one signed keep-alive HTTP POST of a
real `/move` body (a seat's view and its legal moves, taken from seeded Tricky Teams games played
by the engine up front, so no engine work is in the loop) to the bot, its JSON answer parsed, and
one Redis `EVAL` writing a state-sized value (the size of a stored Tricky Teams state) and a
version: `core.outbound.BotSession` (the platform's own pinned client: the stack's floor, not a
competitor's) and redis-py. It runs in a process of its own (this script with `--floor`),
`--floor-threads` threads (default: the worker's 64 matches in flight) each with its own
sessions, and its CPU (every thread: `time.process_time`) is divided by the decisions it made; the
part spent inside the HTTP calls (`time.thread_time` around each) is reported apart.

The **runner** is a real `trickarena worker` process (`bench/harness_bench.py`'s `run_once`) playing
a Tricky Teams tournament of 4 seats between the same bot processes (the bundled random bot
behind a `--bot-delay-ms` sleep), with the worker's default concurrency. Its CPU per decision
counts everything the worker does (RQ, heartbeats, the engine's legal moves, apply and views,
Redis commits, decision records, the outbound calls); its matches' own threads' CPU and the part of
it inside the bot calls (the runner's `call_cpu_s`) are reported apart, so the gap to the floor
splits into the calls, the rest of a decision, and what the worker does besides its matches.

Each run measures the floor and the runner back to back for every delay; printed per run and as
medians and ranges: the runner's and the floor's CPU ms per decision, their ratio (the issue's goal
is <= 1.5), the runner's achieved/ideal (its CPU seconds per second: 1.0 when CPU binds) and its
decisions/s against the latency ideal (min(64, matches) slots / bot delay: the
worker's default in-flight bound all waiting on bots), with the load average.

Only keys under a fresh prefix and the run's own RQ queue are written, and they are removed.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bench import harness_bench as hb  # noqa: E402
from core.outbound import BotSession  # noqa: E402
from core.redis_server import ensure_redis  # noqa: E402
from core.timing import DEFAULT  # noqa: E402
from games import GAMES  # noqa: E402
from harness.bot_client import move_request  # noqa: E402
from harness.runner import HarnessContext  # noqa: E402

GAME = "tricky-teams"
SEATS = 4

# The floor's one Redis write per decision: a compare-and-set of a version and a state-sized value.
_FLOOR_EVAL = """
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 's', ARGV[1])
return v
"""


def move_bodies(games: int = 4) -> list[dict[str, Any]]:
    """Real `/move` bodies: every decision of `games` seeded Tricky Teams games of random moves."""
    game = GAMES[GAME]
    bodies: list[dict[str, Any]] = []
    for seed in range(1, games + 1):
        rng = random.Random(seed)
        state = game.new_game(SEATS, None, seed=seed)
        while not game.is_over(state):
            seat = game.to_move(state)[0]
            legal = game.legal_moves(state, seat)
            view = game.view(state, seat)
            bodies.append(
                move_request(
                    "bench", GAME, seat, view, legal, DEFAULT.deadline_ms, DEFAULT.time_bank_ms, None
                )
            )
            game.apply(state, seat, rng.choice(legal))
    return bodies


def state_size() -> int:
    """Bytes of a stored Tricky Teams state halfway through a game (what a commit writes)."""
    game = GAMES[GAME]
    state = game.new_game(SEATS, None, seed=1)
    rng = random.Random(1)
    for _ in range(40):
        seat = game.to_move(state)[0]
        game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    return len(json.dumps({k: v for k, v in state.items() if k != "actions"}, default=str))


def serve_floor(config: dict[str, Any]) -> int:
    """The floor loop (this script with --floor): reads its config as JSON from stdin, prints one
    JSON line of figures when `decisions` decisions are made."""
    bodies = move_bodies()
    blob = b"x" * state_size()
    client = redis.Redis.from_url(config["redis_url"])
    script = client.register_script(_FLOOR_EVAL)
    key = config["prefix"] + "floor"
    bots: list[tuple[str, str]] = [tuple(b) for b in config["bots"]]
    remaining = [int(config["decisions"])]
    lock = threading.Lock()

    http_cpu = [0.0] * int(config["threads"])

    def loop(index: int) -> None:
        sessions = [BotSession(url, secret=secret) for url, secret in bots]
        n = index
        while True:
            with lock:
                if remaining[0] <= 0:
                    break
                remaining[0] -= 1
            body = bodies[n % len(bodies)]
            before = time.thread_time()
            sessions[n % len(sessions)].request("POST", "/move", body, 5.0).json()
            http_cpu[index] += time.thread_time() - before
            script(keys=[f"{key}:{index}"], args=[blob])
            n += 1
        for session in sessions:
            session.close()

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(int(config["threads"]))]
    cpu_before, start = time.process_time(), time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu, elapsed = time.process_time() - cpu_before, time.monotonic() - start
    decisions = int(config["decisions"])
    print(
        json.dumps(
            {
                "floor_cpu_ms_per_decision": cpu / decisions * 1000,
                "floor_call_cpu_ms_per_decision": sum(http_cpu) / decisions * 1000,
                "floor_decisions_per_s": decisions / elapsed,
            }
        ),
        flush=True,
    )
    return 0


def run_floor(
    url: str, prefix: str, bots: list[tuple[str, str]], args: argparse.Namespace
) -> dict[str, float]:
    """The floor in its own process; its figures."""
    config = {
        "redis_url": url,
        "prefix": prefix,
        "bots": bots,
        "decisions": args.floor_decisions,
        "threads": args.floor_threads,
    }
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--floor"],
        input=json.dumps(config),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def start_fleet(
    ctx: HarnessContext, count: int, delay_ms: float, tag: str
) -> tuple[list[str], list[tuple[str, str]], list[hb.BotProc]]:
    """`count` delayed random bots, served and submitted: (ids, (url, secret) pairs, processes)."""
    ids, pairs, procs = [], [], []
    for i in range(count):
        bot = hb.BotProc(delay_ms)
        procs.append(bot)
        created = ctx.bots.create(f"runner-bench{i}-{delay_ms:g}ms-{tag}", bot.url, [GAME])
        bot.sign(created.secret)
        ids.append(created.bot.id)
        pairs.append((bot.url, created.secret))
    return ids, pairs, procs


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print every run as a JSON line, then the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot-delay-ms", default="20,100", help="comma-separated bot delays (ms)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matches", type=int, default=192, help="matches of the runner's tournament")
    parser.add_argument("--floor-decisions", type=int, default=3000)
    parser.add_argument("--floor-threads", type=int, default=hb.DEFAULT_IN_FLIGHT)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--json", default=None, help="also write the summary and every run to this file")
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor:
        return serve_floor(json.loads(sys.stdin.read()))
    delays = [float(d) for d in args.bot_delay_ms.split(",")]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    handle = ensure_redis(args.redis_url)
    url = handle.url.rsplit("/", 1)[0] + "/14"
    tag = uuid.uuid4().hex[:8]
    prefix, queue = f"ta-bench:{tag}:", f"ta-bench-{tag}"
    ctx = HarnessContext.build(url, prefix, queue)
    # harness_bench's run_once reads these of its own arguments.
    worker_args = argparse.Namespace(cpu_policy="batch", max_in_flight=None)
    runs: dict[str, list[dict[str, float]]] = {}
    procs: list[hb.BotProc] = []
    try:
        fleets = {}
        for delay in delays:
            ids, pairs, started = start_fleet(ctx, args.bots, delay, tag)
            fleets[delay] = (ids, pairs)
            procs += started
        for run in range(args.runs):
            for delay in delays:
                ids, pairs = fleets[delay]
                floor = run_floor(url, prefix, pairs, args)
                runner = hb.run_once(
                    ctx, url, ids, 1, args.matches, seed=run + 1, args=worker_args, servers=[ctx.store.client]
                )
                # The latency ideal: every match slot the tournament can fill (the worker's default
                # in-flight bound, or fewer matches) waiting on a bot all the time.
                slots = min(hb.DEFAULT_IN_FLIGHT, args.matches)
                ideal = slots / (delay / 1000) if delay else float("inf")
                figures = {
                    **floor,
                    "runner_cpu_ms_per_decision": runner["worker_cpu_ms_per_decision"],
                    "match_cpu_ms_per_decision": runner["match_cpu_ms_per_decision"],
                    "call_cpu_ms_per_decision": runner["call_cpu_ms_per_decision"],
                    "ratio": runner["worker_cpu_ms_per_decision"] / floor["floor_cpu_ms_per_decision"],
                    "achieved_over_ideal_cpu": runner["achieved_over_ideal"],
                    "decisions_per_s": runner["decisions_per_s"],
                    "latency_ideal_fraction": runner["decisions_per_s"] / ideal,
                    "in_flight_mean": runner["in_flight_mean"],
                    "load_before": runner["load_before"],
                    "load_after": runner["load_after"],
                }
                case = f"{delay:g}ms"
                runs.setdefault(case, []).append(figures)
                print(json.dumps({"case": case, "run": run, **figures}), flush=True)
    finally:
        hb.tear_down(procs, ctx, queue, handle)
    summary = {"results": {key: hb.summarise(figures) for key, figures in runs.items()}}
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "runs": runs}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
