"""The `trickarena` command: workers, tournaments, bots, and `run` (the platform demo).

    trickarena worker [--queue Q] [--burst] [--cpu-policy batch|normal] [--max-in-flight N]
                                                       an RQ worker with the scheduler
    trickarena tournament run --game G --seats N --entrant ID ... [--workers K]
    trickarena tournament show ID
    trickarena bot add --name N --url U --game G ...   submit a bot (like createBot)
    trickarena run [--short]                           the whole platform (harness.platform)

The bot author's commands: `bot secret`, `bot check URL`, `play GAME --bot URL` (local, no
platform: harness.localplay); `bot list|show|update|delete`, `tournament create|follow|cancel`,
`league ...`, `replay upload` over the HTTP API (harness.client_cli, `--api URL`); `replay view
FILE` (the web viewer on loopback for a replay file, no platform: harness.replayview). `bot add`
and `tournament show` speak to the API too, unless given `--redis-url` (or `$REDIS_URL` is set and
no API is named): then, like `worker` and `tournament run`, they read REDIS_URL,
TRICKARENA_KEY_PREFIX and TRICKARENA_QUEUE (or the options). `trickarena --version` says which
version is installed; a command group given no command lists its commands.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from importlib import metadata
from typing import Any

import redis

from core.errors import ServiceError
from core.redis_factory import WORKER_RETRY, rq_client, rq_url
from core.telemetry import LOG_FORMAT_ENV, configure_logging
from core.timing import DEFAULT as TIMING
from harness import client_cli, localplay, platform, terminal
from harness.jobs import (
    CPU_POLICIES,
    DEFAULT_MAX_IN_FLIGHT,
    MAX_IN_FLIGHT_ENV,
    HarnessQueue,
    HarnessWorker,
    max_in_flight_from_env,
    parse_max_in_flight,
    set_cpu_policy,
)
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_standings, get_tournament

log = logging.getLogger("trickarena.worker")

ENV_DEFAULTS = {
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "TRICKARENA_KEY_PREFIX": "ta:",
    "TRICKARENA_QUEUE": "trickarena",
}


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis-url", default=None, help="Redis URL (default $REDIS_URL)")
    parser.add_argument("--prefix", default=None, help="key prefix (default $TRICKARENA_KEY_PREFIX or ta:)")
    parser.add_argument(
        "--queue", default=None, help="RQ queue name (default $TRICKARENA_QUEUE or trickarena)"
    )


def _apply_env(args: argparse.Namespace) -> None:
    # Jobs build their context from the environment, so options are exported before anything runs.
    for option, var in (
        ("redis_url", "REDIS_URL"),
        ("prefix", "TRICKARENA_KEY_PREFIX"),
        ("queue", "TRICKARENA_QUEUE"),
    ):
        value = getattr(args, option, None)
        if value:
            os.environ[var] = value
        os.environ.setdefault(var, ENV_DEFAULTS[var])


# Waits between attempts to reach Redis again after an outage (then the last one, repeated).
OUTAGE_BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)


def wait_for_redis(connection: Any, backoff: float) -> float:
    """Sleep and ping until Redis answers; the back-off to use after the next outage."""
    delay = backoff
    while True:
        time.sleep(delay)
        try:
            connection.ping()
            return OUTAGE_BACKOFF_S[0]
        except (redis.ConnectionError, redis.TimeoutError):
            delay = next((b for b in OUTAGE_BACKOFF_S if b > delay), OUTAGE_BACKOFF_S[-1])
            log.warning("redis still unavailable; retrying in %.1f s", delay)


def cmd_worker(args: argparse.Namespace) -> int:
    """Run an RQ worker (with the scheduler unless --no-scheduler) on the harness queue."""
    _apply_env(args)
    os.environ["TRICKARENA_HEARTBEAT_GRACE"] = str(args.heartbeat_grace)

    if args.cpu_policy not in CPU_POLICIES:  # only a bad $TRICKARENA_WORKER_CPU_POLICY gets here
        message = f"--cpu-policy must be one of {', '.join(CPU_POLICIES)}"
        error = {"code": "invalid_cpu_policy", "message": message}
        print(json.dumps(error), file=sys.stderr)
        return 2
    max_in_flight = args.max_in_flight
    if max_in_flight is None:
        try:
            max_in_flight = max_in_flight_from_env()
        except ValueError as exc:  # a bad $TRICKARENA_MAX_IN_FLIGHT
            print(json.dumps({"code": "invalid_max_in_flight", "message": str(exc)}), file=sys.stderr)
            return 2
    set_cpu_policy(args.cpu_policy)
    if os.environ.get(LOG_FORMAT_ENV) == "json":
        # Before RQ sets up logging: it adds its own plain handlers only where none is in place,
        # so its lines ("started with PID", "Job OK", the scheduler's) come out as JSON too.
        configure_logging("json")
    HarnessWorker.heartbeat_grace_s = args.heartbeat_grace
    # A job a dead worker dequeued but never registered is rescued after the same grace.
    HarnessQueue.rescue_grace_s = args.heartbeat_grace
    # RQ's own client (RQ_REDIS_URL, default REDIS_URL), retried like a worker's storage client.
    connection = rq_client(rq_url(), WORKER_RETRY)
    backoff = OUTAGE_BACKOFF_S[0]
    while True:
        worker = HarnessWorker(
            [os.environ["TRICKARENA_QUEUE"]],
            connection=connection,
            maintenance_interval=args.maintenance_interval,
            job_monitoring_interval=args.monitor_interval,
            worker_ttl=max(30, args.maintenance_interval + 16),
            name=args.name,
            max_in_flight=max_in_flight,
        )
        try:
            worker.work(with_scheduler=not args.no_scheduler, burst=args.burst, logging_level=args.log_level)
            return 0
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            # Redis went away (a restart, a network blip): RQ's loop gives up, we don't. The job
            # that was running is abandoned in RQ's registry and retried (it resumes from the game
            # saved in Redis); this process waits for Redis and works on under the same name.
            log.warning("redis unavailable (%s); retrying in %.1f s", exc, backoff)
        backoff = wait_for_redis(connection, backoff)
        with contextlib.suppress(redis.RedisError):
            worker.register_death()  # type: ignore[no-untyped-call]  # our old registration: free the name


def _context() -> Any:

    return HarnessContext.from_env()


def _spawn_workers(count: int) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen(
            [sys.executable, "-m", "harness.cli", "worker", "--log-level", "WARNING"],
            env=dict(os.environ),
            start_new_session=True,
        )
        for _ in range(count)
    ]


def cmd_tournament_run(args: argparse.Namespace) -> int:
    """Create a tournament and follow it to the end."""
    _apply_env(args)

    ctx = _context()
    start_at = datetime.fromisoformat(args.start_at) if args.start_at else None
    try:
        info = create_tournament(
            ctx,
            args.game,
            args.seats,
            args.entrant,
            deals=args.deals,
            deadline_ms=args.deadline_ms,
            time_bank_ms=args.time_bank_ms,
            seed=args.seed,
            start_at=start_at,
            max_tables=args.max_tables,
        )
    except ServiceError as exc:
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return 2
    workers = _spawn_workers(args.workers)
    try:
        names = terminal.bot_names(ctx, info["entrants"])
        final = terminal.follow(ctx, [info["tournament_id"]], names, timeout_s=args.timeout)[0]
    finally:
        for proc in workers:
            proc.send_signal(signal.SIGTERM)
        for proc in workers:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    # On its own line: the live display may leave the cursor after its last line.
    doc = get_standings(ctx, final["tournament_id"])
    print("\n" + "\n".join(terminal.summary(final, doc, names, None)))
    return 0 if final["status"] == "finished" else 1


def cmd_tournament_show(args: argparse.Namespace) -> int:
    """Print a tournament's status and standings."""
    _apply_env(args)

    ctx = _context()
    try:
        info = get_tournament(ctx, args.tournament_id)
    except ServiceError as exc:
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"tournament": info, "standings": get_standings(ctx, args.tournament_id)}))
        return 0
    console = terminal.console()
    p = info["progress"]
    console.print(
        f"[bold]{info['game']}[/] tournament {info['tournament_id']}: {info['status']}, "
        f"{p['completed']}/{p['total']} matches"
    )
    doc = get_standings(ctx, args.tournament_id)
    names = terminal.bot_names(ctx, info["entrants"])
    console.print(terminal.standings_view(doc, names, terminal.standings_title(info)))
    console.print(_matrix_table(doc, names))
    return 0


def _matrix_table(doc: dict[str, Any], names: dict[str, str]) -> Any:
    """Head-to-head win rates (row vs column), or cross-play mean team scores (cooperative)."""
    from rich.table import Table

    coop = bool(doc.get("cooperative"))
    matrix = doc["cross_play"] if coop else doc["head_to_head"]
    order = [row["entrant"] for row in doc["rows"]]
    title = (
        "Cross-play: mean team score (diagonal: self-play)"
        if coop
        else "Head-to-head: row's score rate vs column"
    )
    table = Table(title=title)
    table.add_column("", overflow="fold")
    for bot_id in order:
        table.add_column(names.get(bot_id, bot_id), justify="right", overflow="fold")
    for a in order:
        cells = []
        for b in order:
            cell = matrix.get(a, {}).get(b)
            value = (cell or {}).get("mean" if coop else "rate")
            cells.append("-" if value is None else (f"{value:.1f}" if coop else f"{value:.0%}"))
        table.add_row(names.get(a, a), *cells)
    return table


def cmd_bot_add(args: argparse.Namespace) -> int:
    """Submit a bot to the registry (as createBot does); prints its id, owner key and secret once."""
    _apply_env(args)

    ctx = _context()
    try:
        created = ctx.bots.create(args.name, args.url, args.game)
    except ServiceError as exc:
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return 2
    print(json.dumps({"bot_id": created.bot.id, "owner_key": created.owner_key, "secret": created.secret}))
    return 0


def _in_flight(text: str) -> int:
    try:
        return parse_max_in_flight(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `trickarena`."""
    parser = argparse.ArgumentParser(prog="trickarena", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = client_cli.subcommands(parser, "command")

    worker = sub.add_parser("worker", help="run an RQ worker with the scheduler")
    _common(worker)
    worker.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    worker.add_argument("--no-scheduler", action="store_true", help="run no RQ scheduler in this worker")
    worker.add_argument(
        "--heartbeat-grace",
        type=int,
        default=int(os.environ.get("TRICKARENA_HEARTBEAT_GRACE", 60)),
        help="seconds after a missed heartbeat (or, for a job its dead worker dequeued but never"
        " started, after maintenance first saw it) before a job counts as abandoned",
    )
    worker.add_argument(
        "--maintenance-interval", type=int, default=30, help="seconds between checks for abandoned jobs"
    )
    worker.add_argument("--monitor-interval", type=int, default=10, help="seconds between job heartbeats")
    worker.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING or ERROR (INFO)")
    worker.add_argument("--name", default=None, help="worker name (default: random)")
    worker.add_argument(
        "--cpu-policy",
        choices=("batch", "normal"),
        default=os.environ.get("TRICKARENA_WORKER_CPU_POLICY", "batch"),
        help="Linux scheduling policy of the worker and its work-horses (default batch: SCHED_BATCH)",
    )
    worker.add_argument(
        "--max-in-flight",
        type=_in_flight,
        default=None,
        help=f"jobs (matches) run at once, one thread each (${MAX_IN_FLIGHT_ENV}, {DEFAULT_MAX_IN_FLIGHT})",
    )
    worker.set_defaults(func=cmd_worker)

    tournament = sub.add_parser("tournament", help="create, follow and show tournaments")
    tsub = client_cli.subcommands(tournament, "tcommand")
    run = tsub.add_parser("run", help="create a tournament and follow it")
    _common(run)
    run.add_argument("--game", required=True, help="the game's name")
    run.add_argument("--seats", type=int, required=True, help="seats per table")
    run.add_argument("--entrant", action="append", required=True, help="bot id (repeat)")
    run.add_argument("--deals", type=int, default=2, help="deals per match (2)")
    localplay.add_time_options(run, TIMING)
    run.add_argument("--seed", type=int, default=None, help="a practice tournament's seed")
    run.add_argument("--start-at", default=None, help="ISO time to start (default now)")
    run.add_argument("--max-tables", type=int, default=60, help="most tables played at once (60)")
    run.add_argument("--workers", type=int, default=0, help="also run this many workers while following")
    run.add_argument("--timeout", type=float, default=None, help="stop following after this many seconds")
    run.set_defaults(func=cmd_tournament_run)
    show = tsub.add_parser("show", help="show a tournament's standings")
    _common(show)
    show.add_argument("tournament_id", metavar="TOURNAMENT_ID", help="the tournament's id")
    show.add_argument("--api", default=None, help="the API's URL (default: the API, unless --redis-url)")
    show.add_argument("--json", action="store_true", help="print JSON instead of tables")
    show.set_defaults(func=client_cli.api_or_redis(client_cli.cmd_tournament_show, cmd_tournament_show))
    client_cli.add_tournament_commands(tsub)

    bot = sub.add_parser("bot", help="bots (the same registry as the API's createBot)")
    bsub = client_cli.subcommands(bot, "bcommand")
    add = bsub.add_parser("add", help="register a bot")
    _common(add)
    add.add_argument("--name", required=True, help="a unique display name")
    add.add_argument("--url", required=True, help="the bot's base URL, which the platform calls")
    add.add_argument("--game", action="append", required=True, help="a game it plays (repeat)")
    client_cli.add_bot_add_options(add)
    add.set_defaults(func=client_cli.api_or_redis(client_cli.cmd_bot_add, cmd_bot_add))
    client_cli.add_bot_commands(bsub)
    localplay.add_local_commands(sub, bsub)
    client_cli.add_league_and_replay_commands(sub)

    platform.add_run_arguments(sub.add_parser("run", help=platform.RUN_HELP))
    return parser


def version() -> str:
    """The installed trick-arena distribution's version."""
    try:
        return metadata.version("trick-arena")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `trickarena` console script."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return client_cli.run(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
