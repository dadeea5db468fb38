"""API throughput/latency vs the bare Flask+Redis floor, and Redis memory per finished game.

    .venv/bin/python bench/api_bench.py [--seconds 15] [--runs 3] [--connections 32]
    .venv/bin/python bench/api_bench.py cpu      # CPU per request, API vs floor, one at a time
    .venv/bin/python bench/api_bench.py cpu --json-logs   # the same with JSON access logs on
    .venv/bin/python bench/api_bench.py instr [--games 4] [--keep DIR]   # instructions per request

`instr` counts instructions (valgrind --tool=callgrind; load-independent, unlike CPU time on a
shared machine) of the `cpu` mode's in-process loop: for the API and for the floor a run with
the requests and a run with only the first game's worth of them (start-up, planning, creating
the games and the first, warming requests: the same in both), the difference divided by the
requests in between.  With `--keep` the four callgrind.out files stay in DIR for
`callgrind_annotate --inclusive=yes`.

Both servers run under gunicorn (gthread) with the same settings; a separate driver process
opens `--connections` keep-alive HTTP connections.  Against the API each connection plays its
own 4-seat, 4-raid Tricky Teams games by random legal moves, planned beforehand with the engine
(same seed as the server's game) so that the driver does no engine work while it is timed and
every timed request is a postMove (the server validates each move; any non-200 aborts the run).
Against the floor each
connection POSTs to an endpoint that GETs one JSON value from Redis, changes it and SETs it.
Requests finishing in the first `--warmup` seconds are not counted.  Each run also reports the
cores used meanwhile by the server's processes, the driver and Redis (CPU seconds per second).
Redis memory per finished game is MEMORY USAGE of the games the API runs finished.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.procfs import tree_cpu_seconds  # noqa: E402

BENCH_DB = 14  # our own database number on a shared Redis; keys also carry a fresh prefix


def floor_app() -> Any:
    """The floor: a bare Flask endpoint that GETs one JSON value from Redis, changes it, SETs it back."""
    import redis
    from flask import Flask, jsonify

    app = Flask("floor")
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    prefix = os.environ["TRICKARENA_KEY_PREFIX"]

    @app.post("/floor/<int:slot>")
    def floor(slot: int) -> Any:
        key = f"{prefix}floor:{slot}"
        raw = client.get(key)
        doc = json.loads(raw) if raw else {"n": 0}
        doc["n"] += 1
        client.set(key, json.dumps(doc))
        return jsonify(doc)

    return app


# ------------------------------------------------------------------------------------------ driver


class Connection:
    """One keep-alive HTTP/1.1 connection with JSON helpers."""

    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=30)

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any, float]:
        """POST JSON; returns (status, parsed body, seconds)."""
        payload = json.dumps(body).encode()
        started = time.perf_counter()
        self.conn.request(
            "POST", path, body=payload, headers={"Content-Type": "application/json", **(headers or {})}
        )
        response = self.conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None, time.perf_counter() - started


def plan_games(rng: random.Random, games: int) -> list[tuple[int, list[tuple[int, dict[str, Any]]]]]:
    """Whole games played with the engine beforehand: (seed, [(seat, move), ...]) by random legal moves.

    Planned before the timed window so the driver spends no engine time while it is measured
    (on a 2-core machine the driver's CPU would otherwise be taken from the server).
    """
    from games.registry import get_game

    engine = get_game("tricky-teams")
    plans = []
    for _ in range(games):
        seed = rng.randrange(2**31)
        state = engine.new_game(4, None, seed=seed)
        moves = []
        while not engine.is_over(state):
            seat = rng.choice(engine.to_move(state))
            move = rng.choice(engine.legal_moves(state, seat))
            engine.apply(state, seat, move)
            moves.append((seat, move))
        plans.append((seed, moves))
    return plans


def _drive_api(
    conn: Connection,
    plans: list[tuple[int, list[tuple[int, dict[str, Any]]]]],
    until: float,
    warm: float,
    out: dict[str, Any],
) -> None:
    # A plan replays as a fresh game (same seed, new id) when a fast connection has used them all.
    for seed, moves in itertools.cycle(plans):
        if time.monotonic() >= until:
            return
        status, created, _ = conn.post("/games", {"game": "tricky-teams", "seats": 4, "seed": seed})
        if status != 201:
            raise RuntimeError(f"createGame -> {status}: {created}")
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        path = f"/games/{created['game_id']}/moves"
        for seat, move in moves:
            if time.monotonic() >= until:
                return
            status, body, elapsed = conn.post(path, move, {"Authorization": f"Bearer {tokens[seat]}"})
            if status != 200:
                raise RuntimeError(f"postMove -> {status}: {body}")
            if time.monotonic() >= warm:
                out["latencies"].append(elapsed)
        out["final_latencies"].append(elapsed)  # the move that ends a game also compacts it
        out["finished"].append(created["game_id"])


def _drive_floor(conn: Connection, slot: int, until: float, warm: float, out: dict[str, Any]) -> None:
    while time.monotonic() < until:
        status, body, elapsed = conn.post(f"/floor/{slot}", {})
        if status != 200:
            raise RuntimeError(f"floor -> {status}: {body}")
        if time.monotonic() >= warm:
            out["latencies"].append(elapsed)


def drive(target: str, port: int, connections: int, seconds: float, warmup: float) -> dict[str, Any]:
    """Run `connections` threads against one server; requests/s and latency percentiles after warmup."""
    # ~190 moves a game; plan for up to 3,000 moves/s (planning happens before the clock starts)
    per_connection = 2 + int((seconds + warmup) * 3000 / connections / 190)
    plans = (
        [plan_games(random.Random(i * 7919), per_connection) for i in range(connections)]
        if target == "api"
        else []
    )
    start = time.monotonic()
    warm, until = start + warmup, start + warmup + seconds
    results: list[dict[str, Any]] = [
        {"latencies": [], "final_latencies": [], "finished": [], "error": None} for _ in range(connections)
    ]

    def run(i: int) -> None:
        conn = Connection("127.0.0.1", port)
        try:
            if target == "api":
                _drive_api(conn, plans[i], until, warm, results[i])
            else:
                _drive_floor(conn, i, until, warm, results[i])
        except Exception as exc:  # reported, and the run fails below
            results[i]["error"] = repr(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    errors = [r["error"] for r in results if r["error"]]
    if errors:
        raise RuntimeError(f"{len(errors)} connections failed: {errors[:3]}")
    latencies = sorted(x for r in results for x in r["latencies"])
    finals = [x for r in results for x in r.get("final_latencies", [])]
    return {
        "requests": len(latencies),
        "rps": len(latencies) / seconds,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p90_ms": 1000 * latencies[int(len(latencies) * 0.90)],
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "final_move_p50_ms": 1000 * statistics.median(finals) if finals else None,
        "finished": [g for r in results for g in r["finished"]],
    }


# ------------------------------------------------------------------------------------ CPU per request


def _in_process(url: str, prefix: str, json_logs: bool = False) -> tuple[Any, Any]:
    """The API and the floor as WSGI apps in this process, on the bench's Redis database."""
    import logging

    from api.app import create_app

    os.environ.setdefault("REDIS_URL", url)
    os.environ.setdefault("TRICKARENA_KEY_PREFIX", prefix)
    os.environ.setdefault("TRICKARENA_RATE_LIMITS", "off")  # as in the bench's servers
    if json_logs:
        os.environ["TRICKARENA_LOG_FORMAT"] = "json"
    api = create_app({"REDIS_URL": url, "TRICKARENA_KEY_PREFIX": prefix})
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and getattr(handler, "_trickarena", False):
            handler.setStream(open(os.devnull, "w"))  # noqa: SIM115 (lives as long as the process)
    return api, floor_app()


def _wsgi_call(app: Any, path: str, body: Any, headers: dict[str, str]) -> tuple[str, float]:
    """One POST through the app's WSGI callable: (status line, process CPU seconds)."""
    from werkzeug.datastructures import Headers
    from werkzeug.test import EnvironBuilder

    environ = EnvironBuilder(
        path=path,
        method="POST",
        data=json.dumps(body),
        content_type="application/json",
        headers=Headers(headers),
    ).get_environ()
    status: list[str] = []
    started = time.process_time()
    b"".join(app(environ, lambda s, h, e=None: status.append(s)))
    return status[0], time.process_time() - started


def _created_games(
    api: Any, games: int
) -> list[tuple[str, dict[int, str], list[tuple[int, dict[str, Any]]]]]:
    """`games` planned games created through the API: (game id, tokens by seat, planned moves)."""
    client = api.test_client()
    out = []
    for seed, planned in plan_games(random.Random(5), games):
        created = client.post("/games", json={"game": "tricky-teams", "seats": 4, "seed": seed}).get_json()
        out.append((created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}, planned))
    return out


def _play(api: Any, game: tuple[str, dict[int, str], list[tuple[int, dict[str, Any]]]]) -> tuple[float, int]:
    """Post every planned move of one created game: (process CPU seconds, moves)."""
    game_id, tokens, planned = game
    spent = 0.0
    for seat, move in planned:
        status, cpu = _wsgi_call(
            api, f"/games/{game_id}/moves", move, {"Authorization": f"Bearer {tokens[seat]}"}
        )
        if not status.startswith("200"):
            raise RuntimeError(f"postMove -> {status}")
        spent += cpu
    return spent, len(planned)


def cpu_per_request(url: str, prefix: str, games: int = 3, json_logs: bool = False) -> dict[str, float]:
    """Process CPU per postMove and per floor request, in-process through WSGI, one at a time.

    Unlike throughput on a shared 2-core machine this hardly depends on what else runs; with
    the server saturated, the API/floor requests/s ratio cannot beat the CPU ratio.  With
    `json_logs` the API writes its JSON access line per request (to /dev/null), as under
    `make run` and docker-compose.
    """
    api, floor = _in_process(url, prefix, json_logs)
    api_cpu, moves = 0.0, 0
    for game in _created_games(api, games):
        spent, played = _play(api, game)
        api_cpu, moves = api_cpu + spent, moves + played
    floor_cpu = sum(_wsgi_call(floor, "/floor/0", {}, {})[1] for _ in range(moves))
    return {
        "api_cpu_us": 1e6 * api_cpu / moves,
        "floor_cpu_us": 1e6 * floor_cpu / moves,
        "cpu_ratio": floor_cpu / api_cpu,
    }


def instr_child(url: str, prefix: str, target: str, games: int, full: bool) -> int:
    """One callgrind run's work: start-up, the planned games created, the first game's moves (or as
    many floor requests), and with `full` every other game's moves (or as many floor requests)
    too.  Returns the requests made after the first game's worth."""
    api, floor = _in_process(url, prefix)
    created = _created_games(api, games)
    warm = len(created[0][2])
    rest = sum(len(g[2]) for g in created[1:])
    if target == "api":
        _play(api, created[0])
        for game in created[1:] if full else []:
            _play(api, game)
    else:
        for _ in range(warm + (rest if full else 0)):
            status, _cpu = _wsgi_call(floor, f"/floor/{0}", {}, {})
            if not status.startswith("200"):
                raise RuntimeError(f"floor -> {status}")
    return rest


def _callgrind_total(path: Path) -> int:
    """The instructions a callgrind.out file counted (its `totals:` or `summary:` line)."""
    for line in path.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def instructions_per_request(games: int, keep: Path | None) -> dict[str, Any]:
    """Instructions per postMove and per floor request under callgrind, and their ratio (see `instr`)."""
    import tempfile

    out_dir = keep or Path(tempfile.mkdtemp(prefix="api-instr-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = {}
    for target in ("api", "floor"):
        for full in (False, True):
            name = f"{target}-{'full' if full else 'base'}"
            cmd = [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out_dir / ('callgrind.out.' + name)}",
                sys.executable,
                str(Path(__file__).resolve()),
                "instr-child",
                "--target",
                target,
                "--games",
                str(games),
            ] + (["--full"] if full else [])
            # One hash seed for every run: the same dict and set layouts, so the runs' start-ups match.
            env = {**os.environ, "PYTHONHASHSEED": "0"}
            runs[name] = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
    requests = {}
    for name, proc in runs.items():
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"{name} failed:\n{stderr[-2000:]}")
        requests[name] = int(stdout.strip().splitlines()[-1])
    total = {name: _callgrind_total(out_dir / f"callgrind.out.{name}") for name in runs}
    n = requests["api-full"]
    api = (total["api-full"] - total["api-base"]) / n
    floor = (total["floor-full"] - total["floor-base"]) / n
    return {
        "requests": n,
        "api_instructions_per_request": round(api),
        "floor_instructions_per_request": round(floor),
        "instr_ratio": api / floor,
        "totals": total,
        "callgrind_files": str(out_dir) if keep else None,
    }


# ------------------------------------------------------------------------------------- orchestration


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(
    app_spec: str, env: dict[str, str], workers: int, threads: int
) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    args = [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--worker-class",
        "gthread",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--pythonpath",
        f"{ROOT},{ROOT / 'bench'}",
        "--log-level",
        "warning",
        app_spec,
    ]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{app_spec} did not start")


def _settle(pids: list[int], timeout: float = 60.0) -> None:
    """Wait until the servers have booted: their processes idle (under 5% of a core) for a second.

    gunicorn binds its port before its workers have imported the app, so without this the
    first timed run (the floor's) would share the machine with the API workers' start-up.
    """
    deadline = time.monotonic() + timeout
    before = sum(map(tree_cpu_seconds, pids))
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = sum(map(tree_cpu_seconds, pids))
        if now - before < 0.05:
            return
        before = now


def _drive_in_subprocess(target: str, port: int, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "drive",
        "--target",
        target,
        "--port",
        str(port),
        "--connections",
        str(args.connections),
        "--seconds",
        str(args.seconds),
        "--warmup",
        str(args.warmup),
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the {target} driver failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the driver subprocesses)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _redis_cpu(url: str) -> float:
    """The Redis server's CPU seconds so far (INFO cpu): all of its clients', ours among them."""
    import redis

    info = redis.Redis.from_url(url).info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def _delete_prefix(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    for i in range(0, len(keys), 500):
        client.delete(*keys[i : i + 500])


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or, with `drive`, be the driver process)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "mode", nargs="?", default="bench", choices=["bench", "drive", "cpu", "instr", "instr-child"]
    )
    parser.add_argument("--target", choices=["api", "floor"], default="api")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--json-logs", action="store_true", help="cpu mode: with the JSON access log on")
    parser.add_argument("--games", type=int, default=4, help="instr mode: games played (the first warms up)")
    parser.add_argument("--keep", type=Path, default=None, help="instr mode: keep the callgrind files here")
    parser.add_argument("--full", action="store_true", help="instr-child: every game, not only the first")
    args = parser.parse_args(argv)
    if args.mode == "drive":
        print(json.dumps(drive(args.target, args.port, args.connections, args.seconds, args.warmup)))
        return 0

    if args.mode == "instr":
        print(json.dumps(instructions_per_request(args.games, args.keep), indent=2))
        return 0

    import redis

    from core.redis_server import ensure_redis
    from core.repository import GameRepository

    handle = ensure_redis()
    url = f"{handle.url.rsplit('/', 1)[0]}/{BENCH_DB}"
    prefix = f"ta-bench:{uuid.uuid4().hex[:8]}:"
    if args.mode == "instr-child":
        try:
            print(instr_child(url, prefix, args.target, args.games, args.full))
        finally:
            _delete_prefix(url, prefix)
            handle.stop()
        return 0
    if args.mode == "cpu":
        try:
            load_before = os.getloadavg()[0]
            result: dict[str, Any] = dict(cpu_per_request(url, prefix, json_logs=args.json_logs))
            result["load_average"] = [load_before, os.getloadavg()[0]]
            print(json.dumps(result, indent=2))
        finally:
            _delete_prefix(url, prefix)
            handle.stop()
        return 0
    env = {**os.environ, "REDIS_URL": url, "TRICKARENA_KEY_PREFIX": prefix, "PYTHONPATH": str(ROOT)}
    # One driver address sends thousands of moves a second: the per-address rate limit would answer
    # 429. The bench measures the API without it unless TRICKARENA_RATE_LIMITS is set (their cost:
    # docs/operations.md, Rate limits).
    env.setdefault("TRICKARENA_RATE_LIMITS", "off")
    servers = {
        "api": _serve("api.app:create_app()", env, args.workers, args.threads),
        "floor": _serve("api_bench:floor_app()", env, args.workers, args.threads),
    }
    _settle([proc.pid for proc, _port in servers.values()])
    runs: dict[str, list[dict[str, Any]]] = {"api": [], "floor": []}
    finished: list[str] = []
    try:
        for run in range(args.runs):
            for target in ("floor", "api"):  # alternate so drift in machine load hits both
                # Where the cores went during the run: the server's processes, the driver's, Redis'.
                started, server_cpu = time.monotonic(), tree_cpu_seconds(servers[target][0].pid)
                driver_cpu, redis_cpu = _children_cpu(), _redis_cpu(url)
                load_before = os.getloadavg()[0]
                result = _drive_in_subprocess(target, servers[target][1], args)
                wall = time.monotonic() - started
                result["load"] = [load_before, os.getloadavg()[0]]
                result["cores"] = {
                    "server": (tree_cpu_seconds(servers[target][0].pid) - server_cpu) / wall,
                    "driver": (_children_cpu() - driver_cpu) / wall,
                    "redis": (_redis_cpu(url) - redis_cpu) / wall,
                }
                finished += result.pop("finished")
                runs[target].append(result)
                cores = " ".join(f"{k} {v:.2f}" for k, v in result["cores"].items())
                print(
                    f"run {run + 1} {target:5}: {result['rps']:8.1f} req/s  p50 {result['p50_ms']:6.2f} ms  "
                    f"p90 {result['p90_ms']:6.2f} ms  p99 {result['p99_ms']:6.2f} ms  "
                    f"({result['requests']} requests"
                    + (
                        f", game-ending moves p50 {result['final_move_p50_ms']:.1f} ms)"
                        if target == "api"
                        else ")"
                    )
                    + f"  cores used: {cores}  load {result['load'][0]:.1f}-{result['load'][1]:.1f}",
                    flush=True,
                )
        repo = GameRepository(redis.Redis.from_url(url), prefix=prefix)
        sizes = [repo.memory_usage(game_id) for game_id in finished]
        blobs = [int(repo.client.hstrlen(repo.key_for("game", game_id), "z")) for game_id in finished]
    finally:
        for proc, _port in servers.values():
            proc.terminate()
            proc.wait(timeout=15)
        _delete_prefix(url, prefix)
        handle.stop()

    def med(target: str, key: str) -> float:
        values: list[float] = [r[key] for r in runs[target]]
        return statistics.median(values)

    summary: dict[str, Any] = {
        "api_moves_per_s": med("api", "rps"),
        "api_p50_ms": med("api", "p50_ms"),
        "api_p99_ms": med("api", "p99_ms"),
        "floor_rps": med("floor", "rps"),
        "floor_p50_ms": med("floor", "p50_ms"),
        "floor_p99_ms": med("floor", "p99_ms"),
    }
    summary["rps_ratio"] = summary["api_moves_per_s"] / summary["floor_rps"]
    summary["p99_ratio"] = summary["api_p99_ms"] / summary["floor_p99_ms"]
    # Each API run follows its floor run: their ratios see the same background load.
    pairs = list(zip(runs["floor"], runs["api"], strict=True))
    summary["rps_ratio_per_run"] = [api["rps"] / floor["rps"] for floor, api in pairs]
    summary["p99_ratio_per_run"] = [api["p99_ms"] / floor["p99_ms"] for floor, api in pairs]
    summary["cores_median"] = {
        target: {
            part: statistics.median(r["cores"][part] for r in runs[target])
            for part in runs[target][0]["cores"]
        }
        for target in ("floor", "api")
    }
    # Server CPU per request (the cores its processes used over its requests/s), API over floor.
    summary["server_cpu_ratio_per_run"] = [
        (api["cores"]["server"] / api["rps"]) / (floor["cores"]["server"] / floor["rps"])
        for floor, api in pairs
    ]
    summary["server_cpu_ratio_median_of_runs"] = statistics.median(summary["server_cpu_ratio_per_run"])
    summary["load_average_per_run"] = [[floor["load"], api["load"]] for floor, api in pairs]
    summary["rps_ratio_median_of_runs"] = statistics.median(summary["rps_ratio_per_run"])
    summary["p99_ratio_median_of_runs"] = statistics.median(summary["p99_ratio_per_run"])
    summary["finished_games"] = len(sizes)
    summary["memory_per_finished_game_bytes_median"] = statistics.median(sizes) if sizes else None
    summary["memory_per_finished_game_bytes_max"] = max(sizes) if sizes else None
    summary["compressed_final_blob_bytes_median"] = statistics.median(blobs) if blobs else None
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
