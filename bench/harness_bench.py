"""Harness benchmark: Tricky Teams tournaments of bundled bots over HTTP, by bot delay and workers.

    .venv/bin/python bench/harness_bench.py [--bot-delay-ms 0,20,100] [--workers 1,2] [--runs 3]
        [--max-in-flight N] [--matches-per-slot 4] [--min-matches 8] [--bots 4]
        [--cpu-policy batch|normal] [--redis-url URL] [--topology single|cluster] [--json FILE]
        [--baseline-root DIR --baseline-matches 256,12,8]

Every bot is its own process: the bundled `random` bot served by the bot SDK (`bots.sdk.BotServer`)
behind a wrapper that sleeps `--bot-delay-ms` before answering each `/move` (this script run
with `--serve-bot`), submitted through the bots registry like createBot does. Every worker is a
real `trickarena worker` process (`--no-scheduler`, the given `--cpu-policy`, and
`--max-in-flight` when given: without it the worker's default applies, and an older worker
without the option can be measured too). The API is not involved: workers talk to Redis and the
bots only. For each delay, run and worker count, a fresh tournament (full Tricky Teams games,
4 seats, 2 s deadline) of `max(min-matches, matches-per-slot x workers x in-flight)` matches is
played to the end, the workers started first. Reported per run, and as medians and ranges:

- **matches/min** and **decisions/s**, from the tournament's start to its finish;
- **in flight**: matches running at once (RQ's started-job registry, sampled every 0.25 s), mean;
- **achieved/ideal**: what the workers did against what they could do if never idle. A worker
  process runs Python, so it can keep at most one core busy; "ideal" is its matches/min with
  that core always busy at the CPU cost per match it showed, so the ratio is the worker's CPU
  seconds per second (its own, its threads' and reaped children's, from /proc), per worker;
- the worker's CPU per decision (everything: RQ, heartbeats, engine, Redis and HTTP clients)
  and the matches' own CPU per decision (their threads: the runner's work);
- the Redis server's commands (those a Lua script runs included) and CPU per match (INFO; only
  meaningful on a Redis of the bench's own, `--redis-url`, since it counts every client);
- the load average before and after (on Linux it counts runnable threads: 64 matches in flight
  are up to 64 of them).

With `--baseline-root DIR` (a checkout of an earlier commit, e.g. `git worktree add DIR <rev>`)
every run is followed by the same run with the workers started from DIR (its code, this
script's bots and Redis), playing `--baseline-matches` matches (one count per delay: an old
worker plays one match at a time, so it needs fewer to fill its time), and the ratio of the two
matches/min is reported per pair: the same minutes, the same load, so the ratio is the figure.

With `--topology cluster` the games, bots and tournaments live on a real three-master Redis
Cluster the bench starts for itself (`core.redis_procs.redis_cluster`), RQ on the single Redis
(`RQ_REDIS_URL`, which the workers inherit); the Redis figures then add up every master and RQ's
server. **Redis ops/s** is that server's (or those servers') commands per second of the run.

Only keys under a fresh prefix and the run's own RQ queue are written, and they are removed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import redis
from rq import Queue, Worker

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.redis_procs import redis_cluster  # noqa: E402
from core.redis_server import ensure_redis  # noqa: E402
from harness.runner import HarnessContext  # noqa: E402
from harness.tournaments import create_tournament, get_tournament  # noqa: E402

GAMES = ["tricky-teams", "trick-n-trouble"]
DEFAULT_IN_FLIGHT = 64  # the worker's default (harness.jobs.DEFAULT_MAX_IN_FLIGHT)


# -- the delayed bot (this script with --serve-bot) ------------------------------------------------
def serve_delayed_bot(name: str, delay_ms: float) -> int:
    """Serve bundled bot `name`, each /move answered after `delay_ms`, on a free loopback port.

    Prints the port, then reads the signing secret from stdin (the registry issues it only after
    probing `GET /`, which needs no secret) and serves signed requests until stdin closes.
    """
    from bots.bundled import make_bot
    from bots.sdk import Bot, BotServer

    inner = make_bot(name)

    class Delayed(Bot):
        def info(self) -> dict[str, Any]:
            return inner.info()

        def start(self, message: dict[str, Any]) -> None:
            inner.start(message)

        def move(self, message: dict[str, Any]) -> dict[str, Any]:
            time.sleep(delay_ms / 1000)
            return inner.move(message)

        def end(self, message: dict[str, Any]) -> None:
            inner.end(message)

    server = BotServer(Delayed(), None).start()
    print(server.port, flush=True)
    secret = sys.stdin.readline().strip()
    server.server.endpoint.secret = secret or None
    print("signed", flush=True)
    sys.stdin.read()  # until the bench closes our stdin (or ends us)
    server.stop()
    return 0


class BotProc:
    """One delayed bot process."""

    def __init__(self, delay_ms: float) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--serve-bot",
                "random",
                "--delay-ms",
                str(delay_ms),
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}"

    def sign(self, secret: str) -> None:
        """Hand the bot its signing secret (it then checks every request)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(secret + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "signed"

    def stop(self) -> None:
        """Close its stdin, then make sure it is gone."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def start_bots(ctx: HarnessContext, count: int, delay_ms: float, tag: str) -> tuple[list[str], list[BotProc]]:
    """`count` delayed random bots, served and submitted; (their ids, their processes)."""
    ids, procs = [], []
    for i in range(count):
        bot = BotProc(delay_ms)
        procs.append(bot)
        created = ctx.bots.create(f"bench-random{i}-{delay_ms:g}ms-{tag}", bot.url, GAMES)
        bot.sign(created.secret)
        ids.append(created.bot.id)
    return ids, procs


# -- measuring -------------------------------------------------------------------------------------
def worker_cpu_seconds(pid: int) -> float:
    """CPU seconds of a worker: its own (every thread), its reaped children's and its live ones'."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    total = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                children = fh.read().split()
        except FileNotFoundError:
            continue  # a job thread that just ended
        for child in children:
            try:
                total += worker_cpu_seconds(int(child))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return total


def redis_stats(servers: list[redis.Redis]) -> tuple[int, float]:
    """(commands processed, CPU seconds used) by the Redis servers so far, added up."""
    commands, cpu_s = 0, 0.0
    for client in servers:
        stats, cpu = client.info("stats"), client.info("cpu")
        commands += int(stats["total_commands_processed"])
        cpu_s += float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
    return commands, cpu_s


def start_workers(
    ctx: HarnessContext, url: str, count: int, cpu_policy: str, max_in_flight: int | None, root: Path = ROOT
) -> list[subprocess.Popen[bytes]]:
    """`count` `trickarena worker` processes of the code at `root`, once all of them listen on the queue."""
    args = [sys.executable, "-m", "harness.cli", "worker", "--redis-url", url, "--prefix", ctx.store.prefix]
    args += [
        "--queue",
        ctx.queue_name,
        "--log-level",
        "WARNING",
        "--no-scheduler",
        "--cpu-policy",
        cpu_policy,
    ]
    if max_in_flight is not None:
        args += ["--max-in-flight", str(max_in_flight)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    procs = [subprocess.Popen(args, cwd=root, env=env, start_new_session=True) for _ in range(count)]
    queue = Queue(ctx.queue_name, connection=ctx.rq_connection)
    deadline = time.monotonic() + 60
    while len(Worker.all(queue=queue)) < count:
        if time.monotonic() > deadline or any(proc.poll() is not None for proc in procs):
            raise RuntimeError("the workers did not come up")
        time.sleep(0.05)
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM (warm stop), then SIGKILL to the group of any that is still there after 30 s."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def run_once(
    ctx: HarnessContext,
    url: str,
    ids: list[str],
    workers: int,
    matches: int,
    seed: int,
    args: argparse.Namespace,
    servers: list[redis.Redis],
    baseline: bool = False,
) -> dict[str, float]:
    """One tournament of `matches` matches on `workers` fresh worker processes; its figures."""
    if baseline:
        procs = start_workers(ctx, url, workers, args.cpu_policy, None, Path(args.baseline_root))
    else:
        procs = start_workers(ctx, url, workers, args.cpu_policy, args.max_in_flight)
    queue = Queue(ctx.queue_name, connection=ctx.rq_connection)
    load_before = os.getloadavg()[0]
    try:
        redis_before = redis_stats(servers)
        cpu_before = sum(worker_cpu_seconds(p.pid) for p in procs)
        per_deal = min(math.comb(len(ids), 4), 60) * 4  # tables (max_tables 60) x 4 rotations
        deals = math.ceil(matches / per_deal)
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=deals, deadline_ms=2000, time_bank_ms=5000, seed=seed
        )
        tid = info["tournament_id"]
        in_flight: list[int] = []
        while get_tournament(ctx, tid)["status"] != "finished":
            record = ctx.store.tournament(tid)
            if record is not None and record["status"] == "running":
                in_flight.append(queue.started_job_registry.count)
            time.sleep(0.25)
        cpu_s = sum(worker_cpu_seconds(p.pid) for p in procs) - cpu_before
        redis_after = redis_stats(servers)
    finally:
        stop_workers(procs)
    record = ctx.store.tournament(tid)
    assert record is not None
    elapsed = float(record["finished_at"]) - float(record["started_at"])
    results = ctx.store.results(tid)
    decisions = sum(r["decisions"] for r in results)
    match_cpu_s = sum(r["timing"]["cpu_s"] for r in results)
    call_cpu_s = sum(r["timing"]["call_cpu_s"] for r in results)
    return {
        "matches": len(results),
        "seconds": elapsed,
        "matches_per_min": len(results) / elapsed * 60,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_match": decisions / len(results),
        "in_flight_mean": statistics.fmean(in_flight) if in_flight else 0.0,
        "in_flight_max": max(in_flight, default=0),
        "achieved_over_ideal": cpu_s / elapsed / workers,
        "worker_cpu_ms_per_decision": cpu_s / decisions * 1000,
        "match_cpu_ms_per_decision": match_cpu_s / decisions * 1000,
        # Of which inside the bot calls (HTTP client, signing, JSON of the message and the answer).
        "call_cpu_ms_per_decision": call_cpu_s / decisions * 1000,
        # The whole Redis server's: meaningful with a Redis of the bench's own (--redis-url).
        "redis_commands_per_match": (redis_after[0] - redis_before[0]) / len(results),
        "redis_cpu_ms_per_match": (redis_after[1] - redis_before[1]) / len(results) * 1000,
        "redis_ops_per_s": (redis_after[0] - redis_before[0]) / elapsed,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def cleanup(client: redis.Redis, prefix: str, queue: str) -> None:
    """Delete this run's keys only (its prefix, its queue, its job ids)."""
    job_prefix = ("ta_" + prefix).replace(":", "-").encode()
    doomed = list(client.scan_iter(match=prefix + "*", count=1000))
    doomed += [
        k for k in client.scan_iter(match="rq:*", count=1000) if queue.encode() in k or job_prefix in k
    ]
    for start in range(0, len(doomed), 500):
        client.delete(*doomed[start : start + 500])


def tear_down(bots: list[BotProc], ctx: HarnessContext, queue: str, handle: Any) -> None:
    """Stop the run's bots, delete its keys and queue, stop Redis if the run started it."""
    for bot in bots:
        bot.stop()
    cleanup(ctx.rq_connection, ctx.store.prefix, queue)
    if ctx.rq is None:  # the storage is RQ's server: its keys are there
        cleanup(ctx.store.client, ctx.store.prefix, queue)
    handle.stop()


def summarise(figures: list[dict[str, float]]) -> dict[str, Any]:
    """Median and range of every figure over the runs."""
    return {
        key: {
            "median": statistics.median(f[key] for f in figures),
            "range": [min(f[key] for f in figures), max(f[key] for f in figures)],
        }
        for key in figures[0]
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print every run as a JSON line, then the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot-delay-ms", default="0,20,100", help="comma-separated bot delays (ms)")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-in-flight", type=int, default=None, help="the workers' --max-in-flight")
    parser.add_argument("--matches-per-slot", type=float, default=4.0)
    parser.add_argument("--min-matches", type=int, default=8)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument(
        "--topology", choices=("single", "cluster"), default="single", help="where games and tournaments live"
    )
    parser.add_argument("--cpu-policy", choices=("batch", "normal"), default="batch")
    parser.add_argument("--json", default=None, help="also write the summary and every run to this file")
    parser.add_argument(
        "--baseline-root", default=None, help="also run every case with this checkout's workers"
    )
    parser.add_argument("--baseline-matches", default="256,12,8", help="baseline matches, one per delay")
    parser.add_argument("--serve-bot", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--delay-ms", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_bot:
        return serve_delayed_bot(args.serve_bot, args.delay_ms)
    delays = [float(d) for d in args.bot_delay_ms.split(",")]
    baseline_matches = dict(zip(delays, (int(m) for m in args.baseline_matches.split(",")), strict=False))
    worker_counts = [int(w) for w in args.workers.split(",")]
    # SIGTERM unwinds like Ctrl-C, so the bots, workers and keys of the run are always cleaned up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    handle = ensure_redis(args.redis_url)
    url = handle.url.rsplit("/", 1)[0] + "/14"
    tag = uuid.uuid4().hex[:8]
    prefix, queue = f"ta-bench:{tag}:", f"ta-bench-{tag}"
    topology = contextlib.ExitStack()
    if args.topology == "cluster":
        cluster = topology.enter_context(redis_cluster())
        os.environ["RQ_REDIS_URL"] = url  # RQ on the single server; the workers inherit it
        url = cluster.url
        servers = [server.client() for server in cluster.servers]
    ctx = HarnessContext.build(url, prefix, queue)
    if args.topology == "single":
        servers = [ctx.store.client]
    else:
        servers.append(ctx.rq_connection)
    slots = args.max_in_flight or DEFAULT_IN_FLIGHT
    runs: dict[str, list[dict[str, float]]] = {}
    bots: list[BotProc] = []
    try:
        fleets = {}
        for delay in delays:  # every delay's bots up front: each run then goes through all delays
            fleets[delay], procs = start_bots(ctx, args.bots, delay, tag)
            bots += procs
        for run in range(args.runs):
            for delay in delays:
                ids = fleets[delay]
                for workers in worker_counts:
                    matches = max(args.min_matches, math.ceil(args.matches_per_slot * workers * slots))
                    figures = run_once(
                        ctx, url, ids, workers, matches, seed=run + 1, args=args, servers=servers
                    )
                    case = f"{delay:g}ms_{workers}w"
                    if args.baseline_root:
                        base = run_once(
                            ctx,
                            url,
                            ids,
                            workers,
                            baseline_matches[delay],
                            run + 1,
                            args,
                            servers,
                            baseline=True,
                        )
                        runs.setdefault(case + "_baseline", []).append(base)
                        print(json.dumps({"case": case + "_baseline", "run": run, **base}), flush=True)
                        figures["over_baseline"] = figures["matches_per_min"] / base["matches_per_min"]
                    runs.setdefault(case, []).append(figures)
                    print(json.dumps({"case": case, "run": run, **figures}), flush=True)
    finally:
        tear_down(bots, ctx, queue, handle)
        topology.close()
    summary = {
        "topology": args.topology,
        "max_in_flight": args.max_in_flight,
        "cpu_policy": args.cpu_policy,
        "results": {key: summarise(figures) for key, figures in runs.items()},
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "runs": runs}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
