"""Standings and scheduling benchmark: read latency at 100 / 1,000 / 5,000 stored results, and
the time to schedule a 1,000-member league round.

    .venv/bin/python bench/standings_bench.py [--sizes 100,1000,5000] [--entrants 16] [--requests 60]
        [--members 1000] [--schedule-runs 20] [--http] [--redis-url URL] [--rate-limits off] [--json FILE]

**Standings.** A Tricky Teams tournament (4 seats, `--entrants` stub bots: registry records
whose URL is never called) and a league of the same bots are filled with synthetic results,
recorded the way the workers record them: `HarnessStore.record_result`, then
`finalize_if_complete` (which folds the result into the standings; its wall time and this
process's CPU per result are reported too), the statistics job run once at the end of each size
(as the background job would). At each size the API answers are timed: `getTournamentStandings`,
the tournament's web data page, `getLeagueStandings` and the league's web data page
(`--requests` each, interleaved, after 5 warm-ups), through Flask's test client, or with `--http`
over real HTTP to the app served by werkzeug in a thread. Reported per endpoint: median, range
(min-max), p90, the median CPU of this process per request (less sensitive to a busy machine
than wall time), and the answer's size. For comparison, the cost of what a request did before the
live standings: the standings recomputed from every stored result (`compute_standings`), timed
once per size.

**Scheduling.** `make_schedule` of a `--members`-member field (rating pairing, `auto`) at 3, 4
and 6 seats, `--schedule-runs` times each (median, range), and one whole league round of that
many members (`run_league_round`: registry reads, scheduling, storing, queueing the matches on
the bench's own RQ queue, which nothing works). That round is then played with synthetic results
(the fold per result reported), the statistics job timed once for the round and for the league
(what the background job costs per change for a field that size), and the league's and the
round's pages timed as above.

Keys go to Redis database 14 (`--redis-url`) under a fresh prefix, with an RQ queue of their own;
all are removed at the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api.app import create_app  # noqa: E402
from harness import tournaments as T  # noqa: E402
from harness.queueing import job_id  # noqa: E402
from harness.runner import HarnessContext  # noqa: E402
from harness.scheduling import make_schedule  # noqa: E402
from harness.standings import compute_standings  # noqa: E402

BENCH_DB = 14


def stub_bots(ctx: HarnessContext, count: int, game: str = "tricky-teams") -> list[tuple[str, str]]:
    """Registry bots never called: (id, owner key). The URL probe is stubbed on this context."""
    ctx.bots.probe = lambda url, games: {"name": "stub", "author": "bench", "version": "1", "games": games}  # type: ignore[method-assign]
    out = []
    for i in range(count):
        name = f"bench-{i}-{uuid.uuid4().hex[:6]}"
        created = ctx.bots.create(name, f"http://127.0.0.1:9/{name}", [game])  # a URL each (url_taken)
        out.append((created.bot.id, created.owner_key))
    return out


def fake_result(match: dict[str, Any], i: int) -> dict[str, Any]:
    """A deterministic Tricky Teams-like result: coins per seat, winners, an occasional fault."""
    scores = [((i * 7 + s * 13 + len(b)) * 2654435761 >> 7) % 23 for s, b in enumerate(match["seats"])]
    top = max(scores)
    faults = [1 if (i + s) % 97 == 0 else 0 for s in range(len(scores))]
    return {
        **{k: match[k] for k in ("index", "deal", "table", "rotation", "seats")},
        "scores": scores,
        "winners": [s for s, v in enumerate(scores) if v == top],
        "faults": faults,
        "fault_codes": [{"timeout": f} if f else {} for f in faults],
        "unrated": [],
    }


class Filler:
    """Records results into a tournament and a league (round after round) up to a target count."""

    def __init__(self, ctx: HarnessContext, bots: list[tuple[str, str]], deals: int) -> None:
        self.ctx = ctx
        ids = [b for b, _ in bots]
        info = T.create_tournament(ctx, "tricky-teams", 4, ids, deals=deals, max_tables=60, enqueue=False)
        self.tid = info["tournament_id"]
        self.specs = ctx.store.match_specs(self.tid)
        self.recorded = 0
        league = T.create_league(ctx, "tricky-teams", 4, interval_s=3600, max_tables=60, enqueue=False)
        self.lid = league["league_id"]
        for bot_id, key in bots:
            T.join_league(ctx, self.lid, bot_id, key)
        self.round_no = 0
        self.round_tid = ""
        self.round_specs: list[dict[str, Any]] = []
        self.round_at = 0
        self.league_recorded = 0
        self.fold_s: list[float] = []
        self.fold_cpu_s: list[float] = []

    def _record(self, tid: str, match: dict[str, Any], i: int) -> None:
        self.ctx.store.record_result(tid, int(match["index"]), fake_result(match, i))
        started, cpu = time.perf_counter(), time.process_time()
        T.finalize_if_complete(self.ctx, tid)
        self.fold_s.append(time.perf_counter() - started)
        self.fold_cpu_s.append(time.process_time() - cpu)

    def fill(self, target: int) -> None:
        while self.recorded < min(target, len(self.specs)):
            self._record(self.tid, self.specs[self.recorded], self.recorded)
            self.recorded += 1
        while self.league_recorded < target:
            if self.round_at >= len(self.round_specs):
                self.round_no += 1
                created = T.run_league_round(self.ctx, self.lid, self.round_no)
                assert created, self.ctx.store.client.get(
                    self.ctx.store.key_for("round", self.lid, self.round_no)
                )
                self.round_tid = created
                self.round_specs = self.ctx.store.match_specs(created)
                self.round_at = 0
            self._record(self.round_tid, self.round_specs[self.round_at], self.league_recorded)
            self.round_at += 1
            self.league_recorded += 1
        T.compute_statistics(self.ctx, f"t:{self.tid}")
        T.compute_statistics(self.ctx, f"l:{self.lid}")


def timed(get: Callable[[str], tuple[int, int]], paths: dict[str, str], requests: int) -> dict[str, Any]:
    """Interleaved timings of each path: median, range, p90 (ms) and the answer's size."""
    times: dict[str, list[float]] = {name: [] for name in paths}
    cpu: dict[str, list[float]] = {name: [] for name in paths}
    sizes: dict[str, int] = {}
    for round_no in range(requests + 5):
        for name, path in paths.items():
            started, cpu_started = time.perf_counter(), time.process_time()
            status, size = get(path)
            elapsed, cpu_used = time.perf_counter() - started, time.process_time() - cpu_started
            assert status == 200, (path, status)
            sizes[name] = size
            if round_no >= 5:
                times[name].append(elapsed * 1000)
                cpu[name].append(cpu_used * 1000)
    out = {}
    for name, values in times.items():
        values.sort()
        out[name] = {
            "median_ms": round(statistics.median(values), 2),
            "min_ms": round(values[0], 2),
            "max_ms": round(values[-1], 2),
            "p90_ms": round(values[int(0.9 * (len(values) - 1))], 2),
            # This process's CPU (the app and its Redis client; with --http the client's too).
            "cpu_median_ms": round(statistics.median(cpu[name]), 2),
            "bytes": sizes[name],
        }
    return out


def client_for(app: Any, http: bool) -> tuple[Callable[[str], tuple[int, int]], Callable[[], None]]:
    """A GET function (status, body size) through the test client, or real HTTP; and a stopper."""
    if not http:
        client = app.test_client()

        def get(path: str) -> tuple[int, int]:
            answer = client.get(path)
            return answer.status_code, len(answer.data)

        return get, lambda: None
    import requests
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    session = requests.Session()
    base = f"http://127.0.0.1:{server.server_port}"

    def get_http(path: str) -> tuple[int, int]:
        answer = session.get(base + path, timeout=30)
        return answer.status_code, len(answer.content)

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return get_http, stop


def bench_standings(ctx: HarnessContext, app: Any, args: argparse.Namespace) -> dict[str, Any]:
    sizes = sorted(int(s) for s in args.sizes.split(","))
    bots = stub_bots(ctx, args.entrants)
    per_deal = 60 * 4
    filler = Filler(ctx, bots, deals=-(-max(sizes) // per_deal))
    get, stop = client_for(app, args.http)
    out: dict[str, Any] = {"entrants": args.entrants, "transport": "http" if args.http else "test client"}
    try:
        for size in sizes:
            filler.fold_s.clear()
            filler.fold_cpu_s.clear()
            filler.fill(size)
            paths = {
                "getTournamentStandings": f"/tournaments/{filler.tid}/standings",
                "web tournament data": f"/web/data/tournaments/{filler.tid}",
                "getLeagueStandings": f"/leagues/{filler.lid}/standings",
                "web league data": f"/web/data/leagues/{filler.lid}",
            }
            row: dict[str, Any] = {"results": size, "league_rounds": filler.round_no}
            row["endpoints"] = timed(get, paths, args.requests)
            fold = sorted(filler.fold_s)
            row["fold_per_result_ms"] = {
                "median": round(1000 * statistics.median(fold), 2),
                "p90": round(1000 * fold[int(0.9 * (len(fold) - 1))], 2),
                "cpu_median": round(1000 * statistics.median(filler.fold_cpu_s), 2),
            }
            results = ctx.store.results(filler.tid)
            started = time.perf_counter()
            compute_standings(results, [b for b, _ in bots], False, 1)
            row["recompute_from_scratch_ms"] = round(1000 * (time.perf_counter() - started), 1)
            out[str(size)] = row
            print(json.dumps(row), flush=True)
    finally:
        stop()
    return out


def bench_scheduling(ctx: HarnessContext, args: argparse.Namespace) -> dict[str, Any]:
    field = [f"m{i:05d}" for i in range(args.members)]
    out: dict[str, Any] = {"members": args.members}
    for seats in (3, 4, 6):
        values = []
        for run in range(args.schedule_runs):
            started = time.perf_counter()
            matches = make_schedule(field, seats, 1, seed=run, pairing="auto")
            values.append(1000 * (time.perf_counter() - started))
        values.sort()
        out[f"{seats} seats"] = {
            "matches": len(matches),
            "median_ms": round(statistics.median(values), 1),
            "min_ms": round(values[0], 1),
            "max_ms": round(values[-1], 1),
        }
        print(json.dumps({f"schedule {seats} seats": out[f"{seats} seats"]}), flush=True)
    bots = stub_bots(ctx, args.members)
    league = T.create_league(ctx, "tricky-teams", 4, interval_s=3600, enqueue=False)
    for bot_id, key in bots:
        T.join_league(ctx, league["league_id"], bot_id, key)
    started = time.perf_counter()
    tid = T.run_league_round(ctx, league["league_id"], 1)
    out["league_round_s"] = round(time.perf_counter() - started, 2)
    assert tid is not None
    out["league_id"], out["round_id"] = league["league_id"], tid
    played = {b for m in ctx.store.match_specs(tid) for b in m["seats"]}
    out["league_round_matches"] = T.get_tournament(ctx, tid)["progress"]["total"]
    out["every_member_plays"] = played == {b for b, _ in bots}
    # Play the round (synthetic results, folded in as the workers would), then time what the
    # background job does per change for a field this size, and the pages.
    fold = []
    for i, match in enumerate(ctx.store.match_specs(tid)):
        ctx.store.record_result(tid, int(match["index"]), fake_result(match, i))
        started = time.perf_counter()
        T.finalize_if_complete(ctx, tid)
        fold.append(time.perf_counter() - started)
    out["fold_per_result_ms"] = round(1000 * statistics.median(fold), 2)
    for scope in (f"t:{tid}", f"l:{league['league_id']}"):
        started = time.perf_counter()
        cpu = time.process_time()
        T.compute_statistics(ctx, scope)
        out[f"statistics_{scope[0]}_s"] = round(time.perf_counter() - started, 2)
        out[f"statistics_{scope[0]}_cpu_s"] = round(time.process_time() - cpu, 2)
    print(json.dumps({"league round": out}), flush=True)
    return out


def bench_big_pages(
    app: Any, ctx: HarnessContext, lid: str, tid: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Page latency of a league (and its round) of `--members` members."""
    get, stop = client_for(app, args.http)
    try:
        return timed(
            get,
            {
                "getLeagueStandings (big)": f"/leagues/{lid}/standings",
                "web league data (big)": f"/web/data/leagues/{lid}",
                "getTournamentStandings (big round)": f"/tournaments/{tid}/standings",
            },
            args.requests,
        )
    finally:
        stop()


def cleanup(ctx: HarnessContext, url: str, prefix: str, queue: str) -> None:
    """Remove our keys: the prefix's, and RQ's of our queue and our jobs (ids `job_id(ctx, ...)`)."""
    client = redis.Redis.from_url(url)
    jobs = job_id(ctx).encode()
    doomed = [k for k in client.scan_iter(match=prefix + "*", count=1000)]
    doomed += [k for k in client.scan_iter(match="rq:*", count=1000) if queue.encode() in k or jobs in k]
    for start in range(0, len(doomed), 500):
        client.delete(*doomed[start : start + 500])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--entrants", type=int, default=16)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--schedule-runs", type=int, default=20)
    parser.add_argument("--http", action="store_true", help="real HTTP to the app served in a thread")
    parser.add_argument("--redis-url", default=f"redis://127.0.0.1:6379/{BENCH_DB}")
    parser.add_argument("--skip-scheduling", action="store_true")
    parser.add_argument(
        "--rate-limits", default=None, help="the app's TRICKARENA_RATE_LIMITS (default: its own, as deployed)"
    )
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args()
    prefix = f"ta-bench16:{uuid.uuid4().hex[:8]}:"
    queue = f"ta-bench16-{uuid.uuid4().hex[:8]}"
    ctx = HarnessContext.build(args.redis_url, prefix, queue)
    config: dict[str, Any] = {
        "REDIS_URL": args.redis_url,
        "TRICKARENA_KEY_PREFIX": prefix,
        "TRICKARENA_QUEUE": queue,
    }
    if args.rate_limits is not None:
        config["TRICKARENA_RATE_LIMITS"] = args.rate_limits
    app = create_app(config)
    report: dict[str, Any] = {"load_before": open("/proc/loadavg").read().split()[:3]}
    try:
        report["standings"] = bench_standings(ctx, app, args)
        if not args.skip_scheduling:
            report["scheduling"] = sched = bench_scheduling(ctx, args)
            report["big_pages"] = bench_big_pages(app, ctx, sched["league_id"], sched["round_id"], args)
            print(json.dumps({"big pages": report["big_pages"]}), flush=True)
    finally:
        cleanup(ctx, args.redis_url, prefix, queue)
    report["load_after"] = open("/proc/loadavg").read().split()[:3]
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
