"""Harness benchmark: a Tricky Teams tournament of the bundled random bots over HTTP, 1 vs 2 workers.

    .venv/bin/python bench/harness_bench.py [--deals 6] [--runs 3] [--cpu-policy batch|normal]
        [--redis-url URL]

Every bot is its own process (`python -m bots.serve random`, submitted through the bots
registry like createBot does); every worker is `trickarena worker` with the given
`--cpu-policy` (batch, the worker's default, or normal). For each worker count the same
tournament (same seed) is run `--runs` times and the medians are printed:

- matches/min and bot decisions/s, from the tournament's first match start to its finish;
- the harness's own time per decision: a match's wall time minus the time spent waiting on
  the bots (HTTP calls included), over its decisions -- engine, Redis writes, WAL, leases;
- the harness's CPU time per decision (the work-horse's process time), with and without the
  CPU spent inside the bot calls (the HTTP client, signing, JSON of the message): the same
  cost without the waiting that a loaded machine adds to wall time;
- the bots' CPU per decision (all bot processes, from /proc): with the worker's CPU it is what
  one decision costs the machine, which bounds how far more workers can scale on few cores;
- the machine's own 2-process scaling, measured right before and right after every run pair
  (their mean): how much more work two CPU-bound processes get done at once than one (2.0 on
  two idle cores). It is the ceiling of the 2-worker speedup in that moment, so the speedup is
  also given as a fraction of it.

Only keys under a fresh prefix and the run's own RQ queue are written, and they are removed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
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

from bench.procfs import cpu_seconds  # noqa: E402
from core.redis_server import ensure_redis  # noqa: E402
from harness.runner import HarnessContext  # noqa: E402
from harness.tournaments import create_tournament, get_tournament  # noqa: E402

GAMES = ["tricky-teams", "trick-n-trouble"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20) -> bool:
    """True once something listens on `port`; False if `proc` exits first or the time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def _serve_bot(port: int, secret: str | None) -> subprocess.Popen[bytes] | None:
    """A random bot serving on `port`, or None (stopped) if it does not come up there."""
    args = [sys.executable, "-m", "bots.serve", "random", "--port", str(port)]
    if secret:
        args += ["--secret", secret]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if _wait_port(port, proc):
        return proc
    proc.kill()
    proc.wait(timeout=10)
    return None


def start_bots(ctx: HarnessContext, count: int, tag: str, procs: list[subprocess.Popen[bytes]]) -> list[str]:
    """Serve and submit `count` random bots (their processes appended to `procs`); their ids.

    Each bot is served unsigned, submitted, then restarted with its signing secret on the same
    port. A free port can be taken by another socket in between (any outgoing connection may get
    it as its local port), so a bot that does not come up is tried again on a new port.
    """
    ids = []
    for i in range(count):
        for attempt in range(5):
            port = _free_port()
            probe = _serve_bot(port, None)
            if probe is None:
                continue
            created = ctx.bots.create(f"bench-random{i}-{tag}-{attempt}", f"http://127.0.0.1:{port}", GAMES)
            probe.terminate()
            probe.wait(timeout=10)
            proc = _serve_bot(port, created.secret)
            if proc is not None:
                procs.append(proc)
                ids.append(created.bot.id)
                break
        else:
            raise RuntimeError(f"bot {i} did not come up on any of 5 ports")
    return ids


def run_once(
    ctx: HarnessContext,
    url: str,
    ids: list[str],
    workers: int,
    deals: int,
    seed: int,
    bot_pids: list[int],
    cpu_policy: str = "batch",
) -> dict[str, float]:
    """One tournament with `workers` worker processes; its figures.

    The workers are started first and the tournament is created once all of them wait on the
    queue, as in operation: otherwise the interpreter start-up of whichever worker comes up last
    (0.02-0.15 s seen) would count as a worker short in the 2-worker figure.
    """
    bot_cpu_before = sum(cpu_seconds(pid) for pid in bot_pids)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harness.cli",
                "worker",
                "--redis-url",
                url,
                "--prefix",
                ctx.store.prefix,
                "--queue",
                ctx.queue_name,
                "--log-level",
                "WARNING",
                "--no-scheduler",
                "--cpu-policy",
                cpu_policy,
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        for _ in range(workers)
    ]
    try:
        queue = Queue(ctx.queue_name, connection=ctx.store.client)
        deadline = time.monotonic() + 60
        while len(Worker.all(queue=queue)) < workers:
            if time.monotonic() > deadline or any(proc.poll() is not None for proc in procs):
                raise RuntimeError("the workers did not come up")
            time.sleep(0.05)
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=deals, deadline_ms=2000, time_bank_ms=5000, seed=seed
        )
        tid = info["tournament_id"]
        while get_tournament(ctx, tid)["status"] != "finished":
            time.sleep(0.2)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)
    bot_cpu_s = sum(cpu_seconds(pid) for pid in bot_pids) - bot_cpu_before
    record = ctx.store.tournament(tid)
    assert record is not None
    elapsed = float(record["finished_at"]) - float(record["started_at"])
    results = ctx.store.results(tid)
    decisions = sum(r["timing"]["decisions"] for r in results)
    harness_s = sum(r["timing"]["wall_s"] - r["timing"]["bot_s"] for r in results)
    bot_s = sum(r["timing"]["bot_s"] for r in results)
    cpu_s = sum(r["timing"]["cpu_s"] for r in results)
    call_cpu_s = sum(r["timing"]["call_cpu_s"] for r in results)
    return {
        "matches": len(results),
        "seconds": elapsed,
        "matches_per_min": len(results) / elapsed * 60,
        "decisions_per_s": decisions / elapsed,
        "overhead_ms_per_decision": harness_s / decisions * 1000,
        "bot_ms_per_decision": bot_s / decisions * 1000,
        "harness_cpu_ms_per_decision": cpu_s / decisions * 1000,
        "harness_cpu_excl_http_client_ms_per_decision": (cpu_s - call_cpu_s) / decisions * 1000,
        "bot_cpu_ms_per_decision": bot_cpu_s / decisions * 1000,
    }


# A fixed pure-Python workload; the child waits for a common start time, then prints its start and end.
_SPIN = """
import sys, time
start_at = float(sys.argv[1])
while time.time() < start_at:
    time.sleep(0.001)
began = time.time()
total = 0
for i in range(8_000_000):
    total += i * i % 7
print(began, time.time())
"""


def machine_scaling() -> float:
    """How much faster this machine does 2 CPU-bound processes' work at once than 1's, right now.

    The ceiling for 2 workers over 1 (a worker, its bots and Redis are CPU-bound processes): 2.0
    on two idle cores, less when the cores are shared with other tenants or each other.
    """

    def spans(count: int) -> float:
        start_at = time.time() + 0.3  # after every child has started its interpreter
        children = [
            subprocess.Popen([sys.executable, "-c", _SPIN, str(start_at)], stdout=subprocess.PIPE, text=True)
            for _ in range(count)
        ]
        stamps = [tuple(map(float, child.communicate()[0].split())) for child in children]
        return max(end for _, end in stamps) - min(began for began, _ in stamps)

    return 2 * spans(1) / spans(2)


def cleanup(client: redis.Redis, prefix: str, queue: str) -> None:
    """Delete this run's keys only (its prefix, its queue, its job ids)."""
    job_prefix = ("ta_" + prefix).replace(":", "-").encode()
    doomed = list(client.scan_iter(match=prefix + "*", count=1000))
    doomed += [
        k for k in client.scan_iter(match="rq:*", count=1000) if queue.encode() in k or job_prefix in k
    ]
    for start in range(0, len(doomed), 500):
        client.delete(*doomed[start : start + 500])


def tear_down(bot_procs: list[subprocess.Popen[bytes]], ctx: HarnessContext, queue: str, handle: Any) -> None:
    """Stop the run's bots, delete its keys and queue, stop Redis if the run started it."""
    for proc in bot_procs:
        proc.terminate()
        proc.wait(timeout=10)
    cleanup(ctx.store.client, ctx.store.prefix, queue)
    handle.stop()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a JSON summary (medians) plus every run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument(
        "--cpu-policy", choices=("batch", "normal"), default="batch", help="the workers' --cpu-policy"
    )
    args = parser.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the bots, workers and keys of the run are always cleaned up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    handle = ensure_redis(args.redis_url)
    url = handle.url.rsplit("/", 1)[0] + "/14"
    tag = uuid.uuid4().hex[:8]
    prefix, queue = f"ta-bench:{tag}:", f"ta-bench-{tag}"
    ctx = HarnessContext.build(url, prefix, queue)
    load_at_start = os.getloadavg()
    bot_procs: list[subprocess.Popen[bytes]] = []
    runs: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    scaling: list[float] = []
    try:
        ids = start_bots(ctx, args.bots, tag, bot_procs)
        for run in range(args.runs):
            before = machine_scaling()
            for workers in (1, 2):
                figures = run_once(
                    ctx,
                    url,
                    ids,
                    workers,
                    args.deals,
                    seed=run + 1,
                    bot_pids=[p.pid for p in bot_procs],
                    cpu_policy=args.cpu_policy,
                )
                runs[workers].append(figures)
                print(json.dumps({"workers": workers, "run": run, **figures}), flush=True)
            # The machine's scaling moves within seconds: bracket the pair and take the mean.
            after = machine_scaling()
            scaling.append((before + after) / 2)
            print(json.dumps({"run": run, "machine_2_process_scaling": [before, after]}), flush=True)
    finally:
        tear_down(bot_procs, ctx, queue, handle)
    summary: dict[str, Any] = {}
    for workers, figures in runs.items():
        summary[f"{workers}_worker"] = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
    one, two = summary["1_worker"], summary["2_worker"]
    summary["speedup_2_vs_1"] = two["matches_per_min"] / one["matches_per_min"]
    # Each 2-worker run follows its 1-worker run: their ratio sees the same background load.
    pairs = [b["matches_per_min"] / a["matches_per_min"] for a, b in zip(runs[1], runs[2], strict=True)]
    summary["speedup_2_vs_1_per_run"] = pairs
    summary["speedup_2_vs_1_median_of_runs"] = statistics.median(pairs)
    summary["machine_2_process_scaling_per_run"] = scaling
    summary["machine_2_process_scaling"] = statistics.median(scaling)
    summary["speedup_vs_machine_scaling"] = statistics.median(
        p / m for p, m in zip(pairs, scaling, strict=True)
    )
    summary["cpu_policy"] = args.cpu_policy
    summary["load_average_at_end"] = os.getloadavg()
    summary["load_average_at_start"] = load_at_start
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
