"""The bot author's local commands, before (and without) a platform: no Redis, no workers, no API.

    trickarena bot secret                    a fresh signing secret
    trickarena bot check URL                 try the bot as the platform will (harness.botcheck)
    trickarena play GAME --bot URL [--vs heuristic,random] [--deals N] [--seats N] [--out DIR]

The bot's secret, for `check` and `play`: `--secret-file PATH`, else `$TRICKARENA_BOT_SECRET`,
else the file `$TRICKARENA_BOT_SECRET_FILE` names (`bots.sdk.load_secret`, as the bot reads it);
`--secret S` also works but is deprecated (`ps` shows it).

`play` plays matches between the bot (over HTTP, signed) and bundled bots in this process
(`bots.arena.play_match`, the engine as referee), prints each game and a summary, and writes
each game's replay as the API's getReplay shows it; `trickarena replay upload FILE` puts one on
a running platform for the web viewer.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bots.arena import BotClient, GameRecord, Seat, play_match, replay_document
from bots.bundled import BUNDLED, make_bot
from bots.sdk import SECRET_ENV, SecretError, load_secret, new_secret
from games.registry import GAMES
from harness.botcheck import ANY_ADDRESS, check_bot

WIDTH = 80


def secret_of(args: argparse.Namespace) -> str | None:
    """The signing secret: --secret-file, the environment, or the deprecated --secret."""
    if args.secret is not None and args.secret_file is None:
        print("warning: --secret is deprecated (ps shows it): set $TRICKARENA_BOT_SECRET", file=sys.stderr)
        return str(args.secret)
    try:
        return load_secret(args.secret_file)
    except SecretError as exc:
        raise SystemExit(f"error: bad_secret: {exc}") from None


def add_secret_options(parser: argparse.ArgumentParser) -> None:
    """--secret-file and the deprecated --secret."""
    parser.add_argument(
        "--secret-file", default=None, metavar="PATH", help=f"the bot's secret (default ${SECRET_ENV})"
    )
    parser.add_argument("--secret", default=None, help=f"deprecated: ps shows it; use ${SECRET_ENV}")


def cmd_bot_secret(args: argparse.Namespace) -> int:
    """Print a fresh signing secret."""
    print(new_secret())
    return 0


def cmd_bot_check(args: argparse.Namespace) -> int:
    """Check a bot; exit 0 when nothing would fail in a match, 1 otherwise."""
    report = check_bot(
        args.url,
        secret_of(args),
        policy=ANY_ADDRESS,
        deadline_ms=args.deadline_ms,
        time_bank_ms=args.time_bank_ms,
        wait_s=args.wait_s,
    )
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print("\n".join(report.lines(WIDTH)))
    return 0 if report.ok else 1


def _opponents(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(BUNDLED))
    if unknown or not names:
        raise SystemExit(f"error: unknown_bot: --vs takes bundled bots among {', '.join(sorted(BUNDLED))}")
    return names


def _seat_count(args: argparse.Namespace, opponents: list[str]) -> int:
    game = GAMES[args.game]
    if args.seats is not None:
        if args.seats not in game.seat_counts:
            raise SystemExit(f"error: invalid_seats: {args.game} is played by {list(game.seat_counts)} seats")
        return int(args.seats)
    wanted = 1 + len(opponents)
    return wanted if wanted in game.seat_counts else game.showcase_seats


def _summary_row(record: GameRecord, seat: int, cooperative: bool) -> tuple[str, str, int, float]:
    scores = record.result["scores"]
    mine = scores[seat]
    if cooperative:
        outcome = "won" if seat in record.result.get("winners", []) else "lost"
        score = f"{mine} (team)"
    else:
        best_other = max(s for i, s in enumerate(scores) if i != seat)
        outcome = "won" if seat in record.result.get("winners", []) else "lost"
        score = f"{mine} vs {best_other}"
    slowest = max(record.latencies[seat], default=0.0) * 1000
    return score, outcome, len(record.faults[seat]), slowest


def cmd_play(args: argparse.Namespace) -> int:
    """Play `--deals` games of GAME between the bot and bundled bots; exit 1 if the bot faulted."""
    game = GAMES[args.game]
    opponents = _opponents(args.vs)
    seats = _seat_count(args, opponents)
    options = json.loads(args.options) if args.options else None
    secret = secret_of(args)
    if secret is None:
        print(
            f"warning: no secret (${SECRET_ENV} or --secret-file): a bot that checks signatures "
            "refuses every move",
            file=sys.stderr,
        )
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    console = Console(width=WIDTH)
    table = Table(title=f"{args.game}: your bot vs {', '.join(opponents)}", title_justify="left")
    for col in ("deal", "seed", "seat", "score", "result", "faults", "slowest"):
        table.add_column(col, justify="left" if col in ("score", "result") else "right")
    games: list[dict[str, Any]] = []
    notes: list[str] = []
    latencies: list[float] = []
    with BotClient(args.bot, secret) as client:
        for deal in range(args.deals):
            seed = args.seed + deal
            mine = deal % seats
            others = iter(opponents * seats)
            players: list[Seat] = [client if s == mine else make_bot(next(others)) for s in range(seats)]
            record = play_match(
                args.game, players, seed, options, match_id=f"local-{seed}", deadline_ms=args.deadline_ms
            )
            score, outcome, faults, slowest = _summary_row(record, mine, game.cooperative)
            table.add_row(
                str(deal + 1), str(seed), str(mine), score, outcome, str(faults), f"{slowest:.0f} ms"
            )
            path = out_dir / f"{args.game}-{seed}-seat{mine}.json"
            doc = replay_document(args.game, record, f"local-{args.game}-{seed}-{mine}")
            path.write_text(json.dumps(doc))
            notes += [n for n in dict.fromkeys(record.notes[mine]) if n not in notes]
            latencies += record.latencies[mine]
            games.append(
                {
                    "seed": seed,
                    "seat": mine,
                    "result": record.result,
                    "faults": record.faults[mine],
                    "replay": str(path),
                }
            )
    faults = sum(len(g["faults"]) for g in games)
    decisions = len(latencies)
    if args.json:
        print(
            json.dumps({"game": args.game, "seats": seats, "games": games, "faults": faults, "notes": notes})
        )
        return 0 if faults == 0 else 1
    console.print(table)
    wins = sum(g["seat"] in g["result"].get("winners", []) for g in games)
    median = statistics.median(latencies) * 1000 if latencies else 0.0
    console.print(
        f"{wins} of {len(games)} won; {decisions} decisions, median answer {median:.0f} ms; "
        f"{faults} fault(s)."
    )
    for note in notes[:5]:
        console.print(f"  {note}", markup=False)
    if faults:
        console.print("Faulty moves were replaced by the first legal one: `trickarena bot check` says why.")
    console.print(f"Replays in {out_dir}/ (`trickarena replay upload FILE`: the web viewer).")
    return 0 if faults == 0 else 1


def add_local_commands(sub: Any, bsub: Any) -> None:
    """`trickarena play` and `trickarena bot secret | check`."""
    secret = bsub.add_parser("secret", help="print a fresh signing secret")
    secret.set_defaults(func=cmd_bot_secret)
    check = bsub.add_parser("check", help="try a bot as the platform will, and say what is wrong")
    check.add_argument("url")
    add_secret_options(check)
    check.add_argument("--deadline-ms", type=int, default=1000)
    check.add_argument("--time-bank-ms", type=int, default=5000)
    check.add_argument(
        "--wait-s", type=float, default=5.0, help="how long a bot just started may take to come up (5)"
    )
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=cmd_bot_check)
    play = sub.add_parser("play", help="play your bot locally against bundled bots, write replays")
    play.add_argument("game", choices=sorted(GAMES))
    play.add_argument("--bot", required=True, metavar="URL", help="your bot's URL")
    play.add_argument("--vs", default="random", help="bundled opponents, comma-separated (default random)")
    play.add_argument("--seats", type=int, default=None, help="default: 1 + opponents, else the showcase")
    play.add_argument("--deals", type=int, default=1)
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--deadline-ms", type=int, default=1000)
    play.add_argument("--options", default=None, help="game options as JSON (default: the game's)")
    play.add_argument("--out", default="replays", help="where the replay files go (default ./replays)")
    add_secret_options(play)
    play.add_argument("--json", action="store_true", help="print one JSON summary")
    play.set_defaults(func=cmd_play)
