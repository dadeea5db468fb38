"""Fair-queue feeder bench: the Redis cost of queueing and starting matches at large backlogs.

On a redis-server of its own (a temp dir, a free port; SLOWLOG set to log every command over
`--slowlog-us`), for each backlog size: queue that many matches of one tournament
(`harness.queueing.enqueue_matches`), then a 20-match one behind it, then `--starts` times take
the queue's head and start it (`match_started`: what a match job does first), timing each step;
report the medians and ranges over `--runs`, the slowest Redis command (SLOWLOG), the queue's and
backlog's memory (MEMORY USAGE) and how many of the small tournament's matches were taken within
the first 40 + FEED_K starts (all 20 when the two take turns in blocks of FEED_K). No bots, no
workers: the tournaments are ids only (the feeder reads only a tournament's status, absent here).

    .venv/bin/python bench/queue_bench.py --sizes 20000,100000,300000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import redis

from harness.queueing import FEED_K, enqueue_matches, match_started, queue_for
from harness.runner import HarnessContext
from harness.store import tournament_tag


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if not binary:
        raise SystemExit("redis-server is needed on PATH")
    port = _free_port()
    args = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(workdir), "--save", ""]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 15
    while True:
        try:
            redis.Redis.from_url(url).ping()
            return proc, url
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.05)


def one_run(url: str, size: int, starts: int, slowlog_us: int) -> dict[str, float]:
    """One backlog size on a fresh prefix and queue; the run's figures (ms, bytes)."""
    prefix, queue = f"qb-{uuid.uuid4().hex[:8]}:", f"qb-{uuid.uuid4().hex[:8]}"
    ctx = HarnessContext.build(url, prefix, queue)
    client = ctx.store.client
    client.config_set("slowlog-log-slower-than", slowlog_us)
    client.config_set("slowlog-max-len", 100_000)
    client.slowlog_reset()
    big, small = "big" + uuid.uuid4().hex[:8], "small" + uuid.uuid4().hex[:8]
    t0 = time.perf_counter()
    enqueue_matches(ctx, big, range(size))
    enqueue_big_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    enqueue_matches(ctx, small, range(20))
    enqueue_small_ms = (time.perf_counter() - t0) * 1000
    rq_queue = queue_for(ctx)
    steps, small_taken = [], 0
    for n in range(starts):
        t0 = time.perf_counter()
        head = rq_queue.get_job_ids(0, 1)[0]
        rq_queue.remove(head)
        tid, index = head.rsplit("_", 2)[1:]
        match_started(ctx, tid, int(index))
        steps.append((time.perf_counter() - t0) * 1000)
        if tid == small and n < 40 + FEED_K:
            small_taken += 1
    slow = client.slowlog_get(100_000)
    backlog_key = f"{prefix}feed:{queue}:b:{tournament_tag(big)}"
    backlog_bytes = int(client.memory_usage(backlog_key, samples=0) or 0)
    queue_bytes = int(client.memory_usage(rq_queue.key, samples=0) or 0)
    queue_len = rq_queue.count
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        client.delete(key)
    for job_key in client.scan_iter(match="rq:job:ta_qb-*", count=1000):
        client.delete(job_key)
    client.delete(rq_queue.key)
    return {
        "enqueue_big_ms": enqueue_big_ms,
        "enqueue_small_ms": enqueue_small_ms,
        "start_median_ms": statistics.median(steps),
        "start_max_ms": max(steps),
        "slowest_command_ms": max((e["duration"] for e in slow), default=0) / 1000,
        "backlog_bytes_per_match": backlog_bytes / max(1, size - starts),
        "queue_bytes": queue_bytes,
        "queue_len": queue_len,
        "small_taken": small_taken,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print one line per backlog size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="20000,100000,300000", help="comma-separated backlog sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--starts", type=int, default=1000, help="match starts timed per run")
    parser.add_argument("--slowlog-us", type=int, default=1000, help="SLOWLOG threshold (microseconds)")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="queue-bench-"))
    proc, url = _start_redis(workdir)
    try:
        print(f"load average {os.getloadavg()[0]:.2f} at the start; FEED_K={FEED_K}")
        for size in (int(s) for s in args.sizes.split(",")):
            runs = [one_run(url, size, args.starts, args.slowlog_us) for _ in range(args.runs)]

            def fig(name: str, runs: list[dict[str, float]] = runs) -> str:
                values = sorted(r[name] for r in runs)
                return f"{statistics.median(values):.2f} ({values[0]:.2f}-{values[-1]:.2f})"

            print(
                f"backlog {size:>7}: queue it {fig('enqueue_big_ms')} ms; "
                f"20 more {fig('enqueue_small_ms')} ms; "
                f"a start {fig('start_median_ms')} ms median, {fig('start_max_ms')} ms worst; "
                f"slowest Redis command {fig('slowest_command_ms')} ms; "
                f"backlog {fig('backlog_bytes_per_match')} B/match; RQ queue {fig('queue_len')} jobs; "
                f"small one's matches in the first {40 + FEED_K} starts {fig('small_taken')}"
            )
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
