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
from core.timing import DEFAULT, TimePolicy
from games.registry import GAMES
from harness.botcheck import ANY_ADDRESS, check_bot
from harness.faults import add_reason, describe, fault_reason
from harness.narrate import Narrator, wrap

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


def add_time_options(parser: argparse.ArgumentParser, policy: TimePolicy = DEFAULT) -> None:
    """`--deadline-ms` and `--time-bank-ms`, defaulting to the time policy's numbers (`core.timing`):
    one declaration for `tournament run`, `bot check` and `play`."""
    parser.add_argument(
        "--deadline-ms",
        type=int,
        default=policy.deadline_ms,
        help=f"time per move in ms, as in a match ({policy.deadline_ms})",
    )
    parser.add_argument(
        "--time-bank-ms",
        type=int,
        default=policy.time_bank_ms,
        help=f"extra ms per seat per match, spent by answers over the deadline ({policy.time_bank_ms})",
    )


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


def latency_ms(latencies: list[float]) -> dict[str, float]:
    """Median, 95th percentile and maximum of answer times (seconds) in ms; zeros for none."""
    if not latencies:
        return {"median": 0.0, "p95": 0.0, "max": 0.0}
    ms = sorted(x * 1000 for x in latencies)
    p95 = statistics.quantiles(ms, n=20, method="inclusive")[18] if len(ms) > 1 else ms[0]
    return {"median": round(statistics.median(ms), 1), "p95": round(p95, 1), "max": round(ms[-1], 1)}


def seat_names(seats: int, mine: int, opponents: list[str]) -> list[str]:
    """Who sits where, as the trick-by-trick lines name them: `you(1)`, `heuristic(2)`, ..."""
    others = iter(opponents * seats)
    return [f"you({s})" if s == mine else f"{next(others)}({s})" for s in range(seats)]


def narrate_game(game_name: str, record: GameRecord, names: list[str]) -> list[str]:
    """The game trick by trick (harness.narrate) and its result, from the record's events."""
    teams = GAMES[game_name].view(record.state, None).get("teams", {})
    narrator = Narrator(teams, names.__getitem__)
    lines = narrator.feed_all(event for batch in record.events for event in batch)
    result = record.result
    scores = ", ".join(f"{names[s]} {score}" for s, score in enumerate(result["scores"]))
    winners = ", ".join(names[s] for s in result.get("winners", [])) or "nobody"
    lines.append(f"Result: {scores}; won by {winners}")
    if result.get("band"):
        lines.append(f"  {result['band']}")
    return lines


def fault_lines(calls: list[dict[str, Any]], notes: list[str]) -> list[str]:
    """The bot's faults by reason in plain words (harness.faults), the first few faulty moves, and
    what went wrong with `/start` and `/end`. `calls` are the bot's own decisions, each with its deal."""
    faulty = [c for c in calls if c["outcome"] != "ok"]
    if not faulty and not notes:
        return [f"Your bot's faults: none in {len(calls)} decisions."]
    reasons: dict[str, int] = {}
    for call in faulty:
        add_reason(reasons, fault_reason(call["outcome"], call["status"], call["detail"]))
    lines = [
        f"Your bot's faults: {len(faulty)} in {len(calls)} decisions, each replaced by the first legal move:"
    ]
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        what, advice = describe(reason)
        lines.append(f"  {count} x {what}: {advice}")
    for call in faulty[:5]:
        lines.append(
            f"  deal {call['deal']}, move {call['version'] - 1}: {call['outcome']}"
            f"{' ' + str(call['status']) if call['status'] else ''} after {call['latency_ms']} ms"
        )
    lines += [f"  {note}" for note in notes[:5]]
    return lines


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
        table.add_column(col, justify="left" if col in ("score", "result") else "right", overflow="fold")
    games: list[dict[str, Any]] = []
    notes: list[str] = []
    latencies: list[float] = []
    calls: list[dict[str, Any]] = []
    story = not (args.json or args.quiet)
    with BotClient(args.bot, secret) as client:
        for deal in range(args.deals):
            seed = args.seed + deal
            mine = deal % seats
            others = iter(opponents * seats)
            players: list[Seat] = [client if s == mine else make_bot(next(others)) for s in range(seats)]
            # The match runner's time policy (core.timing): deadline plus a bank per seat and match.
            clock = TimePolicy(args.deadline_ms, args.time_bank_ms).clock(seats)
            record = play_match(args.game, players, seed, options, match_id=f"local-{seed}", clock=clock)
            score, outcome, faults, slowest = _summary_row(record, mine, game.cooperative)
            table.add_row(
                str(deal + 1), str(seed), str(mine), score, outcome, str(faults), f"{slowest:.0f} ms"
            )
            names = seat_names(seats, mine, opponents)
            path = out_dir / f"{args.game}-{seed}-seat{mine}.json"
            doc = replay_document(args.game, record, f"local-{args.game}-{seed}-{mine}")
            # For the viewer (`replay view`, uploadReplay): who sat where, which seat was the author's
            # bot, and each decision's latency and outcome (getTournamentMatch's `decisions`).
            doc.update(players=names, your_seat=mine, decisions=record.calls)
            path.write_text(json.dumps(doc))
            notes += [n for n in dict.fromkeys(record.notes[mine]) if n not in notes]
            latencies += record.latencies[mine]
            calls += [{**c, "deal": deal + 1} for c in record.calls if c["seat"] == mine]
            games.append(
                {
                    "seed": seed,
                    "seat": mine,
                    "result": record.result,
                    "faults": record.faults[mine],
                    "replay": str(path),
                }
            )
            if story:
                head = f"Deal {deal + 1} of {args.deals}: {game.title}, seed {seed}, you are seat {mine}"
                lines = [head, *narrate_game(args.game, record, names)]
                lines.append(f"Your bot: {faults} fault(s), slowest answer {slowest:.0f} ms; replay {path}")
                print("\n".join(wrap(lines, WIDTH)) + "\n", flush=True)
    faults = sum(len(g["faults"]) for g in games)
    decisions = len(latencies)
    times = latency_ms(latencies)
    if args.json:
        summary = {"game": args.game, "seats": seats, "games": games, "faults": faults, "notes": notes}
        print(json.dumps({**summary, "latency_ms": times}))
        return 0 if faults == 0 else 1
    if story:
        print("\n".join(wrap(fault_lines(calls, notes), WIDTH)))
        print(
            f"Your bot's answer times over {decisions} decisions: median {times['median']:.0f} ms, "
            f"p95 {times['p95']:.0f} ms, max {times['max']:.0f} ms\n"
        )
    console.print(table)
    wins = sum(g["seat"] in g["result"].get("winners", []) for g in games)
    console.print(
        f"{wins} of {len(games)} won; {decisions} decisions, median answer {times['median']:.0f} ms; "
        f"{faults} fault(s).",
        markup=False,
    )
    if not story:
        for note in notes[:5]:
            console.print(f"  {note}", markup=False)
    if faults and not story:
        console.print("Faulty moves were replaced by the first legal one: `trickarena bot check` says why.")
    console.print(
        f"Replays in {out_dir}/: `trickarena replay view FILE` shows one in the web viewer, no platform "
        "needed.",
        markup=False,
    )
    return 0 if faults == 0 else 1


def add_local_commands(sub: Any, bsub: Any) -> None:
    """`trickarena play` and `trickarena bot secret | check`."""
    secret = bsub.add_parser("secret", help="print a fresh signing secret")
    secret.set_defaults(func=cmd_bot_secret)
    check = bsub.add_parser("check", help="try a bot as the platform will, and say what is wrong")
    check.add_argument("url", metavar="URL", help="the bot's base URL")
    add_secret_options(check)
    add_time_options(check)
    check.add_argument(
        "--wait-s", type=float, default=5.0, help="how long a bot just started may take to come up (5)"
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(func=cmd_bot_check)
    play = sub.add_parser("play", help="play your bot locally against bundled bots, write replays")
    play.add_argument(
        "game", choices=sorted(GAMES), metavar="GAME", help=f"the game: {', '.join(sorted(GAMES))}"
    )
    play.add_argument("--bot", required=True, metavar="URL", help="your bot's URL")
    play.add_argument("--vs", default="random", help="bundled opponents, comma-separated (default random)")
    play.add_argument("--seats", type=int, default=None, help="default: 1 + opponents, else the showcase")
    play.add_argument(
        "--deals", type=int, default=1, help="games to play; your bot changes seat each time (1)"
    )
    play.add_argument("--seed", type=int, default=1, help="the first game's seed, then +1 per game (1)")
    add_time_options(play)
    play.add_argument("--options", default=None, help="game options as JSON (default: the game's)")
    play.add_argument("--out", default="replays", help="where the replay files go (default ./replays)")
    add_secret_options(play)
    play.add_argument("--json", action="store_true", help="print one JSON summary")
    play.add_argument(
        "--quiet", "-q", action="store_true", help="one row per deal instead of each game trick by trick"
    )
    play.set_defaults(func=cmd_play)
