"""The `trickarena` commands that speak to the platform over its HTTP API (`openapi.yaml`).

    trickarena bot add --name N --url U --game G ... [--open] [--secret-from-env | --secret-file PATH]
    trickarena bot list [--game G] [--all] | show ID | update ID ... | delete ID
    trickarena bot check-registered ID   the platform calls the registered bot (checkBot)
    trickarena bot rotate-key ID [--owner-key] [--secret] [--secret-file PATH]
    trickarena tournament create --game G --seats N --entrant ID ... [--name N] [--follow]
    trickarena tournament list [--game G] [--status S] [--league ID] | show ID | follow ID | cancel ID
    trickarena league create --game G --seats N (--interval-s S | --cron C) [--name N]
    trickarena league list [--game G] [--status S]
    trickarena league show ID | follow ID | join ID BOT | leave ID BOT | pause ID | resume ID | delete ID
    trickarena replay upload FILE        a replay `trickarena play` wrote, replayed into the API
    trickarena replay view FILE          the same in the web viewer on loopback, no platform needed

Where the API is: `--api URL`, else `$TRICKARENA_API`, else `api = "..."` in the config file
(`$TRICKARENA_CONFIG`, default `~/.config/trickarena/config.toml`), else http://127.0.0.1:8000
(what `make run` serves). Owner keys: `$TRICKARENA_OWNER_KEY`, else the keys file beside the config
file (`keys.toml`, mode 0600), where `bot add`, `tournament create` and `league create` keep the
keys the API shows once. An error is one line, `error: <code>: <message>` (the API's JSON error), and
exit status 2; tables fit 80 columns.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
import time
import tomllib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any

import requests
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from bots.sdk import SECRET_ENV, SECRET_FILE_ENV, SecretError, load_secret
from games.registry import GAMES
from harness import replayview, terminal

DEFAULT_API = "http://127.0.0.1:8000"
API_ENV = "TRICKARENA_API"
CONFIG_ENV = "TRICKARENA_CONFIG"
OWNER_KEY_ENV = "TRICKARENA_OWNER_KEY"
TIMEOUT_S = 30.0
WIDTH = 80
ENDED = ("finished", "cancelled")


def short_name(game: str) -> str:
    """A game's initials from its declared title ("Trick 'n Trouble" -> "TnT"), for narrow tables;
    a game this installation does not know keeps its name."""
    if game not in GAMES:
        return game
    words = (word.strip("'") for word in GAMES[game].title.split())
    return "".join(word[0] for word in words if word)


class CliError(Exception):
    """A refused command: printed as one line, `error: <code>: <message>`, exit status 2."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------- configuration


def config_path() -> Path:
    """The config file: `$TRICKARENA_CONFIG`, else `$XDG_CONFIG_HOME/trickarena/config.toml`."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "trickarena" / "config.toml"


def keys_path() -> Path:
    """The keys file the CLI writes, beside the config file."""
    return config_path().with_name("keys.toml")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CliError("bad_config", f"cannot read {path}: {exc}") from None


def api_url(args: argparse.Namespace) -> str:
    """`--api`, `$TRICKARENA_API`, the config file's `api`, or the default."""
    chosen = getattr(args, "api", None) or os.environ.get(API_ENV) or _read_toml(config_path()).get("api")
    return str(chosen or DEFAULT_API).rstrip("/")


def api_configured(args: argparse.Namespace) -> bool:
    """Whether the user named an API (option, variable or config file)."""
    return bool(getattr(args, "api", None) or os.environ.get(API_ENV) or _read_toml(config_path()).get("api"))


def owner_key(kind: str, ident: str) -> str | None:
    """The owner key of a bot, tournament or league: `$TRICKARENA_OWNER_KEY`, else the keys file."""
    key = os.environ.get(OWNER_KEY_ENV)
    if key:
        return key
    value = _read_toml(keys_path()).get(kind, {}).get(ident)
    return str(value) if value else None


def save_owner_key(kind: str, ident: str, key: str) -> Path:
    """Keep an owner key the API showed once in the keys file (created with mode 0600)."""
    path = keys_path()
    data = _read_toml(path)
    data.setdefault(kind, {})[ident] = key
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# Owner keys kept by `trickarena` (the API shows each once). Keep this file private."]
    for section in sorted(data):
        lines.append(f"\n[{section}]")
        lines += [f"{json.dumps(str(k))} = {json.dumps(str(v))}" for k, v in sorted(data[section].items())]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def write_secret_file(path: str, secret: str) -> None:
    """Write a bot's signing secret alone to `path` (mode 0600), for `--secret-file`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(secret + "\n")


# --------------------------------------------------------------------------- HTTP


class Api:
    """JSON calls to the API; a refusal or an unreachable API is a CliError with the API's code."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.session = requests.Session()
        self.session.headers["Accept"] = "application/json"

    def call(self, method: str, path: str, body: Any = None, key: str | None = None, **params: Any) -> Any:
        """One request; the decoded JSON answer of a 2xx."""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        query = {k: v for k, v in params.items() if v is not None}
        try:
            resp = self.session.request(
                method, self.base + path, json=body, headers=headers, params=query, timeout=TIMEOUT_S
            )
        except requests.RequestException as exc:
            reason = type(exc).__name__
            raise CliError(
                "api_unreachable",
                f"cannot reach the API at {self.base} ({reason}): is the platform running "
                f"(`make run`)? Set --api or ${API_ENV}",
            ) from None
        try:
            data = resp.json()
        except ValueError:
            data = None
        if resp.status_code >= 400:
            if isinstance(data, dict) and "code" in data:
                raise CliError(str(data["code"]), str(data.get("message", "")) + _details(data))
            raise CliError(f"http_{resp.status_code}", f"{method} {path} answered {resp.status_code}")
        return data


def _details(error: dict[str, Any]) -> str:
    details = error.get("details")
    if not details or not isinstance(details, dict):
        return ""
    text = json.dumps(details, separators=(", ", ": "))
    return f" ({text if len(text) <= 200 else text[:197] + '...'})"


def _console() -> Console:
    out = Console()
    return out if out.is_terminal and out.width <= WIDTH else Console(width=WIDTH)


# The API's times in Unix seconds (a bot's record); everything `--json` prints has ISO 8601 times.
UNIX_TIME_FIELDS = frozenset({"created", "updated", "deleted", "owner_key_issued", "secret_issued"})


def iso_times(data: Any) -> Any:
    """`data` with every Unix time of `UNIX_TIME_FIELDS` as an ISO 8601 string (UTC), as the API's
    tournaments and leagues already give theirs."""
    if isinstance(data, dict):
        return {
            key: (
                datetime.fromtimestamp(value, UTC).isoformat()
                if key in UNIX_TIME_FIELDS and isinstance(value, int | float) and not isinstance(value, bool)
                else iso_times(value)
            )
            for key, value in data.items()
        }
    if isinstance(data, list):
        return [iso_times(item) for item in data]
    return data


def _print_json(data: Any) -> None:
    print(json.dumps(iso_times(data), indent=2))


def _need_key(kind: str, ident: str) -> str:
    key = owner_key(kind, ident)
    if key is None:
        raise CliError(
            "missing_owner_key",
            f"no owner key for {kind} {ident}: set ${OWNER_KEY_ENV}, or run this where `trickarena "
            f"{kind} {'add' if kind == 'bot' else 'create'}` kept it ({keys_path()})",
        )
    return key


def _when(stamp: Any) -> str:
    if isinstance(stamp, int | float):
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
    return str(stamp or "-")[:16].replace("T", " ")


# --------------------------------------------------------------------------- bots


def _bot_table(bots: Iterable[dict[str, Any]]) -> Table:
    table = Table(title="Bots", title_justify="left")
    for col in ("id", "name", "version", "games", "status", "open"):
        table.add_column(col, overflow="fold")
    for bot in bots:
        games = ", ".join(short_name(g) for g in bot["games"])
        table.add_row(
            bot["id"], bot["name"], bot["version"], games, bot["status"], "yes" if bot.get("open") else "no"
        )
    return table


BOT_ID = re.compile(r"[0-9a-f]{16}")
PAGE = 100  # listBots' largest page


def pages(api: Api, path: str, items: str, **filters: Any) -> Iterable[dict[str, Any]]:
    """Every item a cursor-paged listing (listBots, listTournaments, listLeagues) gives with these
    filters, page after page (following `next_cursor`)."""
    cursor: str | None = None
    while True:
        page = api.call("GET", path, limit=PAGE, cursor=cursor, **filters)
        yield from page[items]
        cursor = page.get("next_cursor")
        if cursor is None:
            return


def all_bots(api: Api, **filters: Any) -> Iterable[dict[str, Any]]:
    """Every bot listBots lists with these filters."""
    return pages(api, "/bots", "bots", **filters)


def bot_id(api: Api, ref: str) -> str:
    """A bot id from an id or a bot's name (names are unique)."""
    if BOT_ID.fullmatch(ref):
        return ref
    for bot in all_bots(api, status="any"):
        if str(bot["name"]).casefold() == ref.casefold():
            return str(bot["id"])
    raise CliError("bot_not_found", f"no bot with the id or name {ref!r}")


def _own_secret(args: argparse.Namespace) -> str | None:
    """The secret `--secret-from-env` sends: what the bot itself reads (`bots.sdk.load_secret`)."""
    if not args.secret_from_env:
        return None
    if args.secret_file:
        raise CliError(
            "conflicting_options",
            "--secret-file writes a secret the platform makes; with --secret-from-env the platform "
            "uses yours: give one of them",
        )
    try:
        secret = load_secret()
    except SecretError as exc:
        raise CliError("bad_secret", str(exc)) from None
    if not secret:
        raise CliError(
            "missing_secret",
            f"--secret-from-env: set ${SECRET_ENV} (e.g. to `trickarena bot secret`), or "
            f"${SECRET_FILE_ENV} to a file holding it",
        )
    return secret


def _show_new_secret(secret: str, secret_file: str | None, verb: str) -> None:
    """Hand a secret the platform made to the user: into `secret_file`, else printed once."""
    if secret_file:
        write_secret_file(secret_file, secret)
        print(f"signing secret written to {secret_file}: {verb} the bot with")
        print(f"  {SECRET_FILE_ENV}={secret_file}  (or {SECRET_ENV} set to its content)")
    else:
        print(f"signing secret (shown once): {verb} the bot with {SECRET_ENV} set to")
        print(f"  {secret}")


def cmd_bot_add(args: argparse.Namespace) -> int:
    """createBot; keeps the owner key in the keys file. The secret: the bot's own (--secret-from-env),
    else the platform's, written to --secret-file (or printed)."""
    body: dict[str, Any] = {"name": args.name, "url": args.url, "games": args.game}
    if args.open:
        body["open"] = True
    own = _own_secret(args)
    if own is not None:
        body["secret"] = own
    created = Api(api_url(args)).call("POST", "/bots", body)
    bot = created["bot"]
    kept = save_owner_key("bot", bot["id"], created["owner_key"])
    if args.json:
        _print_json(created)
        return 0
    print(f"registered {bot['name']} as bot {bot['id']} ({bot['url']})")
    print(f"owner key kept in {kept}")
    if own is not None:
        print("the platform signs with the secret the bot runs with: no restart needed")
    else:
        _show_new_secret(created["secret"], args.secret_file, "restart")
    return 0


def cmd_bot_check_registered(args: argparse.Namespace) -> int:
    """checkBot: the platform calls the registered bot as a match would; exit 1 on problems."""
    api = Api(api_url(args))
    ident = bot_id(api, args.bot_id)
    report = api.call("POST", f"/bots/{ident}/check", key=_need_key("bot", ident))
    if args.json:
        _print_json(report)
        return 0 if report["ok"] else 1
    marks = {"ok": "ok  ", "warning": "warn", "error": "FAIL"}
    for finding in report["findings"]:
        took = f"{finding['elapsed_ms']:>5.0f} ms" if "elapsed_ms" in finding else " " * 8
        line = f"{marks.get(finding['severity'], '?   ')} {took}  {finding['step']}: {finding['message']}"
        print("\n".join(textwrap.wrap(line, WIDTH, subsequent_indent=" " * 6)))
    verdict = "all good" if report["ok"] else "the bot is not ready"
    print(f"{report['errors']} problem(s), {report['warnings']} warning(s): {verdict}")
    return 0 if report["ok"] else 1


def cmd_bot_rotate_key(args: argparse.Namespace) -> int:
    """rotateBotKeys: a new owner key (kept in the keys file) and/or signing secret."""
    rotate = [name for name, wanted in (("owner_key", args.owner_key), ("secret", args.secret)) if wanted]
    if not rotate:
        raise CliError("nothing_to_rotate", "give --owner-key, --secret or both")
    api = Api(api_url(args))
    ident = bot_id(api, args.bot_id)
    rotated = api.call("POST", f"/bots/{ident}/keys", {"rotate": rotate}, key=_need_key("bot", ident))
    if "owner_key" in rotated:
        kept = save_owner_key("bot", ident, rotated["owner_key"])
    if args.json:
        _print_json(rotated)
        return 0
    if "owner_key" in rotated:
        print(f"new owner key kept in {kept}; the old one no longer works")
    if "secret" in rotated:
        _show_new_secret(rotated["secret"], args.secret_file, "restart")
        print("matches started from now on are signed with it")
    return 0


def cmd_bot_list(args: argparse.Namespace) -> int:
    """listBots, every page."""
    bots = list(all_bots(Api(api_url(args)), game=args.game, status="any" if args.all else None))
    if args.json:
        _print_json(bots)
    else:
        _console().print(_bot_table(bots))
    return 0


def cmd_bot_show(args: argparse.Namespace) -> int:
    """getBot."""
    api = Api(api_url(args))
    bot = api.call("GET", f"/bots/{bot_id(api, args.bot_id)}")
    if args.json:
        _print_json(bot)
    else:
        _console().print(_bot_table([bot]))
        print(f"url: {bot['url']}  author: {bot['author'] or '-'}  created: {_when(bot['created'])}")
    return 0


def cmd_bot_update(args: argparse.Namespace) -> int:
    """updateBot with the bot's owner key."""
    body: dict[str, Any] = {}
    if args.name:
        body["name"] = args.name
    if args.url:
        body["url"] = args.url
    if args.game:
        body["games"] = args.game
    if args.open is not None:
        body["open"] = args.open
    if not body:
        raise CliError("nothing_to_update", "give --name, --url, --game, --open or --closed")
    api = Api(api_url(args))
    ident = bot_id(api, args.bot_id)
    bot = api.call("PATCH", f"/bots/{ident}", body, key=_need_key("bot", ident))
    if args.json:
        _print_json(bot)
    else:
        _console().print(_bot_table([bot]))
    return 0


def cmd_bot_delete(args: argparse.Namespace) -> int:
    """deleteBot with the bot's owner key."""
    api = Api(api_url(args))
    ident = bot_id(api, args.bot_id)
    bot = api.call("DELETE", f"/bots/{ident}", key=_need_key("bot", ident))
    if args.json:
        _print_json(bot)
    else:
        print(f"deleted bot {bot['id']} ({bot['name']})")
    return 0


# --------------------------------------------------------------------------- tournaments


def _names(api: Api, ids: Iterable[str]) -> dict[str, str]:
    out = {}
    for bot_id in ids:
        try:
            out[bot_id] = str(api.call("GET", f"/bots/{bot_id}")["name"])
        except CliError:
            out[bot_id] = bot_id
    return out


def _tournament_line(info: dict[str, Any]) -> str:
    p = info["progress"]
    return (
        f"{info['game']} tournament {info['tournament_id']}: {info['status']}, "
        f"{p['completed']}/{p['total']} matches"
    )


def _entrant_keys(entrants: list[str]) -> list[str]:
    keys = [owner_key("bot", bot_id) for bot_id in entrants]
    return sorted({k for k in keys if k})


def _options(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CliError("invalid_options", f"--options must be a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise CliError("invalid_options", "--options must be a JSON object")
    return value


def cmd_tournament_create(args: argparse.Namespace) -> int:
    """createTournament with the entrants' owner keys this CLI knows; --follow to watch it."""
    api = Api(api_url(args))
    entrants = [bot_id(api, ref) for ref in args.entrant]
    body: dict[str, Any] = {
        "game": args.game,
        "seats": args.seats,
        "entrants": entrants,
        "deals": args.deals,
        "owner_keys": _entrant_keys(entrants),
    }
    for name, value in (
        ("deadline_ms", args.deadline_ms),
        ("time_bank_ms", args.time_bank_ms),
        ("name", args.name),
        ("seed", args.seed),
        ("start_at", args.start_at),
        ("options", _options(args.options)),
    ):
        if value is not None:
            body[name] = value
    created = api.call("POST", "/tournaments", body)
    tid = created["tournament_id"]
    save_owner_key("tournament", tid, created["owner_key"])
    if args.json and not args.follow:
        _print_json(created)
        return 0
    print(f"created {_tournament_line(created)}")
    print(f"watch it: {api.base}/web/tournaments/{tid}")
    if args.follow:
        return _follow_tournament(api, tid, args.timeout, args.json)
    return 0


def _standings_view(api: Api, info: dict[str, Any], names: dict[str, str]) -> RenderableType:
    """The standings table and each faulting bot's faults by reason in plain words (harness.terminal)."""
    doc = api.call("GET", f"/tournaments/{info['tournament_id']}/standings")
    return terminal.standings_view(doc, names, terminal.standings_title(info))


def _show(
    args: argparse.Namespace,
    kind: str,
    ident: str,
    line: Callable[[dict[str, Any]], str],
    table: Callable[[Api, dict[str, Any]], RenderableType],
) -> int:
    """A tournament's or league's record and standings: one line and a table, or their JSON."""
    api = Api(api_url(args))
    record = api.call("GET", f"/{kind}s/{ident}")
    if args.json:
        _print_json({kind: record, "standings": api.call("GET", f"/{kind}s/{ident}/standings")})
        return 0
    console = _console()
    console.print(line(record))
    console.print(table(api, record))
    return 0


def cmd_tournament_show(args: argparse.Namespace) -> int:
    """getTournament and its standings."""

    def table(api: Api, info: dict[str, Any]) -> RenderableType:
        return _standings_view(api, info, _names(api, info["entrants"]))

    return _show(args, "tournament", args.tournament_id, _tournament_line, table)


def _follow(
    fetch: Callable[[], tuple[str, int, int, RenderableType | None, bool]],
    timeout_s: float | None,
    poll_s: float = 1.0,
) -> bool:
    """Redraw a progress bar and a table until `fetch` says it ended (or `timeout_s`); True if ended."""
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn())
    task = progress.add_task("", total=None)
    started = time.monotonic()
    with Live(Group(progress), console=_console(), refresh_per_second=4) as live:
        while True:
            label, done, total, table, ended = fetch()
            progress.update(task, description=label, completed=done, total=total)
            live.update(Group(progress, *([table] if table is not None else [])))
            if ended:
                return True
            if timeout_s is not None and time.monotonic() - started > timeout_s:
                return False
            time.sleep(poll_s)


def _follow_tournament(api: Api, tid: str, timeout_s: float | None, as_json: bool = False) -> int:
    """Follow a tournament live; at the end, a summary in words (`harness.terminal.summary`: winner,
    standings, faults with their reasons, the web page), or with `as_json` one JSON line."""
    names: dict[str, str] = {}
    final: dict[str, Any] = {}

    def fetch() -> tuple[str, int, int, RenderableType | None, bool]:
        info = api.call("GET", f"/tournaments/{tid}")
        final.update(info)
        if not names:
            names.update(_names(api, info["entrants"]))
        p = info["progress"]
        return (
            info["game"],
            p["completed"],
            p["total"],
            _standings_view(api, info, names),
            info["status"] in ENDED,
        )

    _follow(fetch, timeout_s)
    # On its own line: the live display may leave the cursor after its last line.
    if as_json:
        print("\n" + json.dumps({"tournament_id": tid, "status": final.get("status")}))
    else:
        doc = api.call("GET", f"/tournaments/{tid}/standings")
        print("\n" + "\n".join(terminal.summary(final, doc, names, f"{api.base}/web/tournaments/{tid}")))
    return 0 if final.get("status") == "finished" else 1


def cmd_tournament_follow(args: argparse.Namespace) -> int:
    """Progress and live standings until the tournament ends; exit 0 when it finished."""
    return _follow_tournament(Api(api_url(args)), args.tournament_id, args.timeout, args.json)


def _print_listing(
    args: argparse.Namespace,
    what: str,
    filters: dict[str, Any],
    columns: tuple[str, ...],
    row: Callable[[dict[str, Any]], tuple[str, ...]],
) -> int:
    """The first --limit items of listTournaments or listLeagues (`what`), as JSON or a table."""
    found = list(islice(pages(Api(api_url(args)), f"/{what}", what, **filters), args.limit))
    if args.json:
        _print_json(found)
        return 0
    table = Table(title=f"{what.capitalize()}, newest first", title_justify="left")
    for col in columns:
        table.add_column(col, overflow="fold")
    for item in found:
        table.add_row(*row(item))
    _console().print(table)
    return 0


def cmd_tournament_list(args: argparse.Namespace) -> int:
    """listTournaments, newest first: the first --limit of them."""

    def row(t: dict[str, Any]) -> tuple[str, ...]:
        done = f"{t['progress']['completed']}/{t['progress']['total']}"
        return (
            t["tournament_id"],
            t["name"],
            short_name(t["game"]),
            t["status"],
            str(t["entrants_total"]),
            done,
        )

    filters = {"game": args.game, "status": args.status, "league": args.league}
    return _print_listing(
        args, "tournaments", filters, ("id", "name", "game", "status", "bots", "matches"), row
    )


def cmd_tournament_cancel(args: argparse.Namespace) -> int:
    """cancelTournament with the tournament's owner key."""
    tid = args.tournament_id
    info = Api(api_url(args)).call("POST", f"/tournaments/{tid}/cancel", key=_need_key("tournament", tid))
    if args.json:
        _print_json(info)
    else:
        print(_tournament_line(info))
    return 0


# --------------------------------------------------------------------------- leagues


def cmd_league_list(args: argparse.Namespace) -> int:
    """listLeagues, newest first: the first --limit of them."""

    def row(league: dict[str, Any]) -> tuple[str, ...]:
        counts = str(league["members_total"]), str(league["rounds_total"])
        return (
            league["league_id"],
            league["name"],
            short_name(league["game"]),
            league["status"],
            *counts,
            _when(league["next_at"]),
        )

    columns = ("id", "name", "game", "status", "bots", "rounds", "next round")
    return _print_listing(args, "leagues", {"game": args.game, "status": args.status}, columns, row)


def _league_line(league: dict[str, Any]) -> str:
    name = f" {league['name']!r}" if league.get("name") else ""
    return (
        f"{league['game']} league{name} {league['league_id']}: {league['status']}, "
        f"{len(league['members'])} member(s), {league['rounds_total']} round(s), "
        f"next {_when(league['next_at'])}"
    )


def cmd_league_create(args: argparse.Namespace) -> int:
    """createLeague; keeps its owner key."""
    body: dict[str, Any] = {
        "game": args.game,
        "seats": args.seats,
        "deals": args.deals,
    }
    for name, value in (
        ("name", args.name),
        ("deadline_ms", args.deadline_ms),
        ("time_bank_ms", args.time_bank_ms),
        ("interval_s", args.interval_s),
        ("cron", args.cron),
        ("options", _options(args.options)),
    ):
        if value is not None:
            body[name] = value
    api = Api(api_url(args))
    created = api.call("POST", "/leagues", body)
    save_owner_key("league", created["league_id"], created["owner_key"])
    if args.json:
        _print_json(created)
    else:
        print(f"created {_league_line(created)}")
        print(f"watch it: {api.base}/web/leagues/{created['league_id']}")
    return 0


def _league_standings(api: Api, league: dict[str, Any]) -> RenderableType:
    doc = api.call("GET", f"/leagues/{league['league_id']}/standings")
    names = _names(api, [row["entrant"] for row in doc.get("rows", [])])
    return terminal.standings_view(doc, names, f"{league['game']} — league standings")


def cmd_league_show(args: argparse.Namespace) -> int:
    """getLeague and its standings over every round."""
    return _show(args, "league", args.league_id, _league_line, _league_standings)


def cmd_league_follow(args: argparse.Namespace) -> int:
    """Rounds played and live standings, until --timeout (or Ctrl-C, or the league is deleted)."""
    api = Api(api_url(args))

    def fetch() -> tuple[str, int, int, RenderableType | None, bool]:
        league = api.call("GET", f"/leagues/{args.league_id}")
        rounds = league["rounds_total"]
        return (
            f"league rounds (next {_when(league['next_at'])})",
            rounds,
            max(rounds, 1),
            _league_standings(api, league),
            league["status"] == "deleted",
        )

    try:
        _follow(fetch, args.timeout, poll_s=2.0)
    except KeyboardInterrupt:
        pass
    return 0


def _league_change(args: argparse.Namespace, method: str, path: str, body: Any, key: str) -> int:
    league = Api(api_url(args)).call(method, path, body, key=key)
    if args.json:
        _print_json(league)
    else:
        print(_league_line(league))
    return 0


def cmd_league_pause(args: argparse.Namespace) -> int:
    """updateLeague status paused (the league's owner key)."""
    lid = args.league_id
    return _league_change(args, "PATCH", f"/leagues/{lid}", {"status": "paused"}, _need_key("league", lid))


def cmd_league_resume(args: argparse.Namespace) -> int:
    """updateLeague status active (the league's owner key)."""
    lid = args.league_id
    return _league_change(args, "PATCH", f"/leagues/{lid}", {"status": "active"}, _need_key("league", lid))


def cmd_league_delete(args: argparse.Namespace) -> int:
    """deleteLeague (the league's owner key)."""
    lid = args.league_id
    return _league_change(args, "DELETE", f"/leagues/{lid}", None, _need_key("league", lid))


def _member_key(ident: str, lid: str) -> str:
    """The key that joins or takes out a league member: the bot's owner key if kept, else the
    league's (which joins only a bot open to challenges)."""
    key = owner_key("bot", ident) or owner_key("league", lid)
    if key is None:
        raise CliError(
            "missing_owner_key",
            f"no owner key for bot {ident} nor for league {lid}: set ${OWNER_KEY_ENV}, or run this where "
            f"`trickarena bot add` or `trickarena league create` kept it ({keys_path()})",
        )
    return key


def cmd_league_join(args: argparse.Namespace) -> int:
    """joinLeague (the bot's owner key, or the league's for a bot open to challenges)."""
    ident = bot_id(Api(api_url(args)), args.bot_id)
    key = _member_key(ident, args.league_id)
    return _league_change(args, "POST", f"/leagues/{args.league_id}/members", {"bot_id": ident}, key)


def cmd_league_leave(args: argparse.Namespace) -> int:
    """leaveLeague (the bot's owner key, or the league's)."""
    ident = bot_id(Api(api_url(args)), args.bot_id)
    key = _member_key(ident, args.league_id)
    return _league_change(args, "DELETE", f"/leagues/{args.league_id}/members/{ident}", None, key)


# --------------------------------------------------------------------------- replays


def cmd_replay_upload(args: argparse.Namespace) -> int:
    """Replay a local replay file into the API (createGame with its seed and options, then its moves
    with the seat tokens), so that the web viewer shows it; prints the viewer's URL."""
    try:
        with open(args.file, "rb") as fh:
            replay = json.load(fh)
        header, actions = replay["header"], replay["actions"]
        body = {"game": replay["game"], "seats": header["seats"], "seed": header["seed"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CliError("bad_replay", f"{args.file} is not a replay file: {exc!r}") from None
    if header.get("options"):
        body["options"] = header["options"]
    if header.get("deal"):
        body["deal"] = header["deal"]
    api = Api(api_url(args))
    created = api.call("POST", "/games", body)
    gid = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    for action in actions:
        api.call("POST", f"/games/{gid}/moves", action["move"], key=tokens[action["seat"]])
    print(f"{api.base}/web/games/{gid}")
    # The game rebuilt through the API has numbered seats; the file has the names, the author's
    # seat and every decision's time and fault: the viewer's page opens the file itself.
    print(
        f"names, your seat, faults and answer times: open {args.file} on {api.base}/web/replay",
        file=sys.stderr,
    )
    return 0


# --------------------------------------------------------------------------- the parser


def subcommands(parser: argparse.ArgumentParser, dest: str) -> Any:
    """The commands under `parser` (argparse's subparsers). Without one, `parser` names them
    ("choose a command: create, list, ...") rather than argparse's "required: <dest>"."""
    sub = parser.add_subparsers(dest=dest, metavar="COMMAND", title="commands", help="one of these:")

    def choose(args: argparse.Namespace) -> int:
        parser.error(f"choose a command: {', '.join(sub.choices)}")

    parser.set_defaults(func=choose)
    return sub


def add_api_option(parser: argparse.ArgumentParser) -> None:
    """`--api URL` and `--json` on a command that calls the API."""
    parser.add_argument("--api", default=None, help=f"the API's URL (${API_ENV}, config file, {DEFAULT_API})")
    parser.add_argument("--json", action="store_true", help="print the API's JSON instead of a table")


def _match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=sorted(GAMES), help="the game")
    parser.add_argument("--seats", type=int, required=True, help="seats per table")
    parser.add_argument("--deals", type=int, default=1, help="deals per match (1)")
    # Left out of the request unless given: the API's configured time policy (core.timing) applies.
    parser.add_argument("--deadline-ms", type=int, default=None, help="per move (default: the API's)")
    parser.add_argument("--time-bank-ms", type=int, default=None, help="per seat and match (the API's)")
    parser.add_argument("--options", default=None, help="game options as JSON, e.g. '{\"raids\": 1}'")


def _bot_command(
    bsub: Any, name: str, text: str, func: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    """`bot NAME BOT` calling the API: its parser, with --api, --json and the bot's id or name."""
    command: argparse.ArgumentParser = bsub.add_parser(name, help=text)
    add_api_option(command)
    command.add_argument("bot_id", metavar="BOT", help="bot id or name")
    command.set_defaults(func=func)
    return command


def add_bot_commands(bsub: Any) -> None:
    """bot list | show | update | delete (`bot add` is wired by harness.cli, beside the Redis one)."""
    listing = bsub.add_parser("list", help="the registered bots")
    add_api_option(listing)
    listing.add_argument("--game", default=None, help="only bots playing this game")
    listing.add_argument("--all", action="store_true", help="deleted bots too")
    listing.set_defaults(func=cmd_bot_list)
    _bot_command(bsub, "show", "one bot", cmd_bot_show)
    update = _bot_command(
        bsub, "update", "rename, move, change games or openness (owner key)", cmd_bot_update
    )
    update.add_argument("--name", default=None, help="the new name")
    update.add_argument("--url", default=None, help="the new URL (the platform checks it answers)")
    update.add_argument("--game", action="append", default=None, help="the new game list (repeat)")
    opened = update.add_mutually_exclusive_group()
    opened.add_argument("--open", dest="open", action="store_true", default=None, help="open to challenges")
    opened.add_argument("--closed", dest="open", action="store_false", help="entered only with its key")
    _bot_command(bsub, "delete", "delete a bot (owner key); its results stay", cmd_bot_delete)
    check_help = "the platform calls the registered bot as a match would (owner key)"
    _bot_command(bsub, "check-registered", check_help, cmd_bot_check_registered)
    rotate_help = "a new owner key and/or signing secret (owner key)"
    rotate = _bot_command(bsub, "rotate-key", rotate_help, cmd_bot_rotate_key)
    rotate.add_argument("--owner-key", action="store_true", help="a new owner key (kept in the keys file)")
    rotate.add_argument("--secret", action="store_true", help="a new signing secret")
    rotate.add_argument(
        "--secret-file", default=None, metavar="PATH", help="write the new secret there (mode 0600)"
    )


def add_bot_add_options(add: argparse.ArgumentParser) -> None:
    """The API's options of `bot add` (beside the Redis ones harness.cli keeps)."""
    add_api_option(add)
    add.add_argument("--open", action="store_true", help="open to challenges: anyone may enter it")
    add.add_argument(
        "--secret-from-env",
        action="store_true",
        help=f"sign with the bot's own secret (${SECRET_ENV} or the file ${SECRET_FILE_ENV} names): "
        "no restart",
    )
    add.add_argument(
        "--secret-file",
        default=None,
        metavar="PATH",
        help="write the secret the platform makes there (mode 0600)",
    )


def add_tournament_commands(tsub: Any) -> None:
    """tournament create | follow | cancel (`show` is wired by harness.cli, beside the Redis one)."""
    create = tsub.add_parser("create", help="create a tournament through the API")
    add_api_option(create)
    _match_options(create)
    create.add_argument("--entrant", action="append", required=True, help="bot id or name (repeat)")
    create.add_argument("--name", default=None, help="the tournament's name (default: the API's)")
    create.add_argument("--seed", type=int, default=None, help="a practice tournament's seed")
    create.add_argument("--start-at", default=None, help="ISO time to start (default now)")
    create.add_argument("--follow", action="store_true", help="then follow it to the end")
    create.add_argument("--timeout", type=float, default=None, help="stop following after this many seconds")
    create.set_defaults(func=cmd_tournament_create)
    follow = tsub.add_parser("follow", help="progress and live standings until it ends")
    add_api_option(follow)
    follow.add_argument("tournament_id", metavar="TOURNAMENT_ID", help="the tournament's id")
    follow.add_argument("--timeout", type=float, default=None, help="stop following after this many seconds")
    follow.set_defaults(func=cmd_tournament_follow)
    listing = tsub.add_parser("list", help="tournaments, newest first")
    add_api_option(listing)
    listing.add_argument("--game", default=None, help="only this game's")
    listing.add_argument("--status", default=None, help="scheduled, running, finished or cancelled")
    listing.add_argument("--league", default=None, help="only this league's rounds")
    listing.add_argument("--limit", type=int, default=20, help="how many to show (20)")
    listing.set_defaults(func=cmd_tournament_list)
    cancel = tsub.add_parser("cancel", help="cancel a tournament (its owner key)")
    add_api_option(cancel)
    cancel.add_argument("tournament_id", metavar="TOURNAMENT_ID", help="the tournament's id")
    cancel.set_defaults(func=cmd_tournament_cancel)


def add_league_and_replay_commands(sub: Any) -> None:
    """`trickarena league ...` and `trickarena replay upload`."""
    league = sub.add_parser("league", help="leagues through the API")
    lsub = subcommands(league, "lcommand")
    create = lsub.add_parser("create", help="create a league on a schedule")
    add_api_option(create)
    _match_options(create)
    create.add_argument("--name", default=None, help="the league's name (default: the API's)")
    when = create.add_mutually_exclusive_group(required=True)
    when.add_argument("--interval-s", type=int, default=None, help="a round every this many seconds")
    when.add_argument("--cron", default=None, help="a round at these cron times")
    create.set_defaults(func=cmd_league_create)
    listing = lsub.add_parser("list", help="leagues, newest first")
    add_api_option(listing)
    listing.add_argument("--game", default=None, help="only this game's")
    listing.add_argument("--status", default=None, help="active, paused or deleted (default: any)")
    listing.add_argument("--limit", type=int, default=20, help="how many to show (20)")
    listing.set_defaults(func=cmd_league_list)
    for name, func, text in (
        ("show", cmd_league_show, "a league and its standings"),
        ("follow", cmd_league_follow, "rounds and live standings"),
        ("pause", cmd_league_pause, "no more rounds until resumed (owner key)"),
        ("resume", cmd_league_resume, "rounds again (owner key)"),
        ("delete", cmd_league_delete, "delete the league (owner key); its results stay"),
    ):
        command = lsub.add_parser(name, help=text)
        add_api_option(command)
        command.add_argument("league_id", metavar="LEAGUE_ID", help="the league's id")
        if name == "follow":
            command.add_argument(
                "--timeout", type=float, default=None, help="stop following after this many seconds"
            )
        command.set_defaults(func=func)
    for name, func, text in (
        (
            "join",
            cmd_league_join,
            "enter a bot from the next round on (its owner key, or the league's if it is open)",
        ),
        ("leave", cmd_league_leave, "take a bot out (its owner key, or the league's)"),
    ):
        command = lsub.add_parser(name, help=text)
        add_api_option(command)
        command.add_argument("league_id", metavar="LEAGUE_ID", help="the league's id")
        command.add_argument("bot_id", metavar="BOT", help="bot id or name")
        command.set_defaults(func=func)
    replay = sub.add_parser("replay", help="replays that `trickarena play` wrote")
    rsub = subcommands(replay, "rcommand")
    upload = rsub.add_parser("upload", help="replay a file into the API and print the viewer's URL")
    add_api_option(upload)
    upload.add_argument("file", metavar="FILE", help="a replay file `trickarena play` wrote")
    upload.set_defaults(func=cmd_replay_upload)
    replayview.add_view_command(rsub)


def use_redis(args: argparse.Namespace) -> bool:
    """The commands that also exist over Redis (`bot add`, `tournament show`) use it when asked:
    `--redis-url`, or `$REDIS_URL` set and no API named."""
    if getattr(args, "redis_url", None):
        return True
    return bool(os.environ.get("REDIS_URL")) and not api_configured(args)


def api_or_redis(
    api_command: Callable[[argparse.Namespace], int], redis_command: Callable[[argparse.Namespace], int]
) -> Callable[[argparse.Namespace], int]:
    """A command that goes to Redis directly under `use_redis`, else to the API."""

    def command(args: argparse.Namespace) -> int:
        return redis_command(args) if use_redis(args) else api_command(args)

    return command


def run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command: a CliError is one line on stderr and exit status 2, never a traceback."""
    try:
        return func(args)
    except CliError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
