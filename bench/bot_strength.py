"""Strength of the bundled bots, engine only (no HTTP): duplicate deals, seat rotation, 95% intervals.

    .venv/bin/python bench/bot_strength.py --deals 200 --workers 2

Tricky Teams (4 seats, 1 raid per game): for each comparison A vs B and each deal, A sits in
every seat once with B in the other three (4 games per deal); the measure is A's coins minus
the mean coins of the B seats, averaged per deal; the interval is mean +- 1.96 standard errors
over deals. Trick 'n Trouble (3 seats, cooperative, a full 9-round game): a team of three A and
a team of three B play the same deal; the measure is the paired difference of team points; also
each team's rate of reaching the 40-point threshold (Wilson 95% interval).

The search bots get a fixed number of determinizations per decision (not a time budget), so
the figures do not depend on the machine's load; the CPU time (process time) of each of their
play decisions with more than one legal move is reported beside the figures (median and mean),
to compare budgets between engine versions on one machine (Trick 'n Trouble: also of its other
decisions with a choice -- task levels, passing, switches -- which its search decides too).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.arena import play_game, policy_player  # noqa: E402
from bots.heuristics import HEURISTIC_POLICIES  # noqa: E402
from bots.policy import Policy, random_policy  # noqa: E402
from bots.trick_n_trouble_search import TrickNTroubleSearch  # noqa: E402
from bots.tricky_teams_search import TrickyTeamsSearch  # noqa: E402

TT_SEATS = 4
SEED_BASE = 1_000_000  # deals of the benchmark: seeds SEED_BASE + 0 .. deals-1 (`--seed-base` moves them)
SEARCH_HOUR = 3600.0


def make_policy(
    name: str, game: str, samples: int, cpu: list[float], other: list[float] | None = None
) -> Policy:
    """A fresh policy for one game (search policies with a fixed number of determinizations, the
    CPU seconds of each of their play decisions with a choice appended to `cpu`, of their other
    decisions with a choice to `other`)."""
    if name == "random":
        return random_policy
    if name == "heuristic":
        return HEURISTIC_POLICIES[game]
    # The sample count decides, never the clock: the search may think an hour (its budget is
    # min(cap_s, fraction * deadline) with a 1 s deadline), so a loaded machine cuts no search short.
    search: Policy
    if game == "tricky-teams":
        search = TrickyTeamsSearch(samples=samples, fraction=SEARCH_HOUR, cap_s=SEARCH_HOUR)
    else:
        search = TrickNTroubleSearch(samples=samples, fraction=SEARCH_HOUR, cap_s=SEARCH_HOUR)

    def timed(message: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        started = time.process_time()
        move = search(message, memory)
        legal = message["legal_moves"]
        if len(legal) > 1:
            spent = time.process_time() - started
            if legal[0]["type"] == "play":
                cpu.append(spent)
            elif other is not None:
                other.append(spent)
        return move

    return timed


def tt_deal(args: tuple[str, str, int, int]) -> dict[str, Any]:
    """One Tricky Teams deal, A rotated through every seat: A's coins minus B's mean, per rotation."""
    a, b, deal, samples = args
    diffs: list[float] = []
    wins: list[float] = []
    cpu: list[float] = []
    for hero in range(TT_SEATS):
        players = [
            policy_player(make_policy(a if s == hero else b, "tricky-teams", samples, cpu))
            for s in range(TT_SEATS)
        ]
        record = play_game(
            "tricky-teams", players, SEED_BASE + deal, {"raids": 1}, match_id=f"bench-{deal}-{hero}"
        )
        scores, winners = record.result["scores"], record.result["winners"]
        diffs.append(scores[hero] - sum(scores[s] for s in range(TT_SEATS) if s != hero) / (TT_SEATS - 1))
        wins.append(1.0 / len(winners) if hero in winners else 0.0)
    return {"diff": statistics.mean(diffs), "win": statistics.mean(wins), "cpu": cpu}


def tnt_deal(args: tuple[str, int, int]) -> dict[str, Any]:
    """One Trick 'n Trouble deal played by a team of three `name` bots."""
    name, deal, samples = args
    cpu: list[float] = []
    other: list[float] = []
    players = [policy_player(make_policy(name, "trick-n-trouble", samples, cpu, other)) for _ in range(3)]
    record = play_game("trick-n-trouble", players, SEED_BASE + deal, {}, match_id=f"bench-{deal}")
    return {"points": record.result["points"], "cpu": cpu, "cpu_other": other}


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% normal interval (1.96 standard errors)."""
    mean = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, mean - half, mean + half


def wilson(successes: int, n: int) -> tuple[float, float, float]:
    """A proportion and its Wilson 95% interval."""
    z = 1.96
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


def cpu_ms(results: list[dict[str, Any]], key: str = "cpu") -> tuple[float, float, int] | None:
    """Median and mean CPU milliseconds of the search play decisions in `results` (`key` "cpu_other":
    its other decisions with a choice), and their count."""
    times = [t for r in results for t in r.get(key, [])]
    if not times:
        return None
    return 1000 * statistics.median(times), 1000 * statistics.mean(times), len(times)


def cpu_note(cpu: tuple[float, float, int] | None) -> str:
    """A markdown cell for `cpu_ms`."""
    return "" if cpu is None else f"{cpu[0]:.1f} / {cpu[1]:.1f} ms ({cpu[2]})"


def run(
    pool: Any, func: Callable[[Any], dict[str, Any]], jobs: list[Any]
) -> tuple[list[dict[str, Any]], float]:
    """Map `func` over `jobs` on the pool; the results in order and the wall time."""
    started = time.perf_counter()
    results = pool.map(func, jobs, chunksize=1)
    seconds = time.perf_counter() - started
    print(f"  {func.__name__} x {len(jobs)}: {seconds:.0f} s", file=sys.stderr, flush=True)
    return results, seconds


def main(argv: list[str] | None = None) -> int:
    """Run the comparisons and print a markdown report (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--tt-samples", type=int, default=40, help="determinizations per Tricky Teams decision"
    )
    parser.add_argument(
        "--tnt-samples",
        type=int,
        default=4,
        help="determinizations per Trick 'n Trouble play, level or switch decision",
    )
    parser.add_argument(
        "--only-tt-search", action="store_true", help="only Tricky Teams search vs 3x heuristic"
    )
    parser.add_argument(
        "--only-tnt-search",
        action="store_true",
        help="only the Trick 'n Trouble search team (for a samples-to-strength curve)",
    )
    parser.add_argument(
        "--seed-base",
        type=int,
        default=SEED_BASE,
        help="first deal's seed (another range confirms a result is not fitted to the default deals)",
    )
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args(argv)
    # A deal is its offset from SEED_BASE (seed SEED_BASE + offset, match id bench-<offset>).
    args.offsets = range(args.seed_base - SEED_BASE, args.seed_base - SEED_BASE + args.deals)
    if args.only_tt_search and args.only_tnt_search:
        parser.error("--only-tt-search and --only-tnt-search exclude each other")
    out: dict[str, Any] = {
        "deals": args.deals,
        "tt_samples": args.tt_samples,
        "tnt_samples": args.tnt_samples,
        "seed_base": args.seed_base,
    }
    lines = [
        f"Deals: {args.deals} (seeds {args.seed_base}..{args.seed_base + args.deals - 1}), "
        f"workers: {args.workers}",
        "",
    ]
    with Pool(args.workers) as pool:
        if args.only_tnt_search:
            return tnt_report(pool, args, lines, out, ("search",))
        lines += [
            "| Tricky Teams (4 seats, 1 raid) | A - mean(B) coins per game | 95% CI | A's win share | time "
            "| search CPU per decision: median / mean (decisions) |",
            "|---|---|---|---|---|---|",
        ]
        comparisons = [("search", "heuristic")]
        if not args.only_tt_search:
            comparisons.insert(0, ("heuristic", "random"))
        for a, b in comparisons:
            jobs = [(a, b, deal, args.tt_samples) for deal in args.offsets]
            results, seconds = run(pool, tt_deal, jobs)
            mean, low, high = interval([r["diff"] for r in results])
            win = statistics.mean(r["win"] for r in results)
            cpu = cpu_ms(results)
            out[f"tt:{a}-vs-{b}"] = {
                "mean": mean,
                "low": low,
                "high": high,
                "win_share": win,
                "seconds": seconds,
                "cpu_ms": cpu,
                "per_deal": [r["diff"] for r in results],
            }
            lines.append(
                f"| {a} vs 3x {b} | {mean:+.2f} | [{low:+.2f}, {high:+.2f}] | {win:.3f} (even: 0.250) "
                f"| {seconds:.0f} s | {cpu_note(cpu)} |"
            )
        if args.only_tt_search:
            return report(lines, out, args.json)
        return tnt_report(pool, args, lines, out, ("random", "heuristic", "search"))


def tnt_report(
    pool: Any, args: argparse.Namespace, lines: list[str], out: dict[str, Any], names: tuple[str, ...]
) -> int:
    """Trick 'n Trouble teams of each named bot on the same deals, and the paired differences."""
    lines += [
        "",
        "| Trick 'n Trouble team (3 seats, 9 rounds) | mean points | median | reaches 40 | 95% CI "
        "| time | search CPU per play decision: median / mean (decisions) "
        "| per level, pass or switch decision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    points: dict[str, list[float]] = {}
    for name in names:
        results, seconds = run(pool, tnt_deal, [(name, deal, args.tnt_samples) for deal in args.offsets])
        points[name] = [float(r["points"]) for r in results]
        rate, low, high = wilson(sum(p >= 40 for p in points[name]), len(points[name]))
        mean = statistics.mean(points[name])
        cpu = cpu_ms(results)
        other = cpu_ms(results, "cpu_other")
        out[f"tnt:{name}"] = {
            "mean": mean,
            "median": statistics.median(points[name]),
            "rate40": rate,
            "rate_low": low,
            "rate_high": high,
            "seconds": seconds,
            "cpu_ms": cpu,
            "cpu_ms_other": other,
        }
        lines.append(
            f"| {name} | {mean:.1f} | {statistics.median(points[name]):.0f} | {rate:.1%} "
            f"| [{low:.1%}, {high:.1%}] | {seconds:.0f} s | {cpu_note(cpu)} | {cpu_note(other)} |"
        )
    lines += [
        "",
        "| Trick 'n Trouble, paired by deal | mean difference in points | 95% CI |",
        "|---|---|---|",
    ]
    for a, b in (("heuristic", "random"), ("search", "heuristic")):
        if a not in points or b not in points:
            continue
        mean, low, high = interval([x - y for x, y in zip(points[a], points[b], strict=True)])
        out[f"tnt:{a}-vs-{b}"] = {"mean": mean, "low": low, "high": high}
        lines.append(f"| {a} - {b} | {mean:+.2f} | [{low:+.2f}, {high:+.2f}] |")
    return report(lines, out, args.json)


def report(lines: list[str], out: dict[str, Any], path: Path | None) -> int:
    """Print the markdown report and write the raw figures to `path` if given."""
    print("\n".join(lines))
    if path:
        path.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
