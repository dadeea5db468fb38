"""Measure the Trick 'n Trouble task deck: score distributions of random and heuristic teams.

Usage: .venv/bin/python bench/tnt_balance.py [--games 1000] [--procs 2] [--modes normal ...] [--no-write]

Plays `--games` seeded games (seeds 0..N-1) per mode (normal, expert, story, expert+story)
for a team of three random players and a team of three heuristic players, then writes a table
per mode and a histogram PNG per mode next to the markdown file (under docs/rules/img/).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.trick_n_trouble_heuristic import choose  # noqa: E402
from games.trick_n_trouble import GAME  # noqa: E402
from games.trick_n_trouble.engine import POINT_BANDS, STORY_BANDS  # noqa: E402

MODES: dict[str, dict[str, bool]] = {
    "normal": {},
    "expert": {"expert": True},
    "story": {"story": True},
    "expert+story": {"expert": True, "story": True},
}
TEAMS = ("random", "heuristic")


def play(task: tuple[str, str, int]) -> tuple[str, str, int, int, int]:
    """Play one seeded game; return (mode, team, seed, points, tasks fulfilled)."""
    mode, team, seed = task
    state = GAME.new_game(3, MODES[mode], seed)
    rng = random.Random(seed * 7919 + 17)
    while not GAME.is_over(state):
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        if team == "random":
            move = rng.choice(legal)
        else:
            move = choose(GAME.view(state, seat), legal, rng)
        GAME.apply(state, seat, move)
    result = GAME.result(state)
    return mode, team, seed, result["points"], result["tasks_fulfilled"]


def band_table(values: list[int], bands: tuple[tuple[int, str], ...]) -> list[tuple[str, int]]:
    """How many games fall into each rulebook band (lowest band first)."""
    floors = sorted(floor for floor, _ in bands)
    labels = []
    for i, floor in enumerate(floors):
        top = floors[i + 1] - 1 if i + 1 < len(floors) else None
        labels.append(
            (floor, f"{floor}+" if top is None else (f"{floor}" if top == floor else f"{floor}-{top}"))
        )
    counts = Counter(max(f for f in floors if v >= f) for v in values)
    return [(label, counts.get(floor, 0)) for floor, label in labels]


def summary(values: list[int]) -> dict[str, float]:
    """Median, mean, quartiles, min and max."""
    q = statistics.quantiles(values, n=4)
    return {
        "median": statistics.median(values),
        "mean": statistics.fmean(values),
        "q1": q[0],
        "q3": q[2],
        "min": min(values),
        "max": max(values),
    }


def histogram(path: Path, mode: str, data: dict[str, list[int]], story: bool) -> None:
    """One PNG: both teams' distributions of the mode's score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2))
    top = max(max(values) for values in data.values())
    bins = range(0, top + 2)
    for team, values in data.items():
        ax.hist(values, bins=bins, alpha=0.55, label=team, align="left")
    ax.set_xlabel("tasks fulfilled" if story else "points")
    ax.set_ylabel("games")
    ax.set_title(f"Trick 'n Trouble, {mode} mode")
    edges = [floor for floor, _ in (STORY_BANDS if story else POINT_BANDS) if floor > 0]
    for edge in edges:
        ax.axvline(edge - 0.5, color="grey", linewidth=0.6, linestyle=":")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main() -> None:
    """Run the simulation and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--out", default="docs/rules/trick-n-trouble-balance.md")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    parser.add_argument("--no-write", action="store_true", help="print the tables only (for tuning)")
    args = parser.parse_args()
    if args.modes != list(MODES):
        args.no_write = True
    jobs = [(mode, team, seed) for mode in args.modes for team in TEAMS for seed in range(args.games)]
    started = time.perf_counter()
    with Pool(max(1, min(2, args.procs))) as pool:
        rows = pool.map(play, jobs, chunksize=50)
    elapsed = time.perf_counter() - started
    points: dict[tuple[str, str], list[int]] = {}
    tasks: dict[tuple[str, str], list[int]] = {}
    for mode, team, _seed, pts, count in rows:
        points.setdefault((mode, team), []).append(pts)
        tasks.setdefault((mode, team), []).append(count)
    lines = report(args, points, tasks, elapsed, len(jobs))
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        out = Path(args.out)
        img = out.parent / "img"
        img.mkdir(parents=True, exist_ok=True)
        for mode in MODES:
            story = "story" in mode
            source = tasks if story else points
            histogram(
                img / f"tnt-balance-{mode.replace('+', '-')}.png",
                mode,
                {team: source[(mode, team)] for team in TEAMS},
                story,
            )
        out.write_text(HEADER + text)


HEADER = """# Trick 'n Trouble: task deck balance

Produced by `bench/tnt_balance.py` (re-run it to refresh this file and the images). Each
mode plays the same seeds (0 .. N-1) for a team of three random players (uniform legal moves)
and a team of three heuristic players (`bots/trick_n_trouble_heuristic.py`, rules of thumb
aimed at the face-up tasks). Story modes are scored by fulfilled tasks (the rulebook's story
bands), the others by points. The deck is `games/trick_n_trouble/tasks.json` (see
[trick-n-trouble.md](trick-n-trouble.md)).

Goals of issue 3: the heuristic team's median in the rulebook's 30-39 or 40-49 band, the random
team's clearly below, and story mode's 27 tasks possible but rare. "Possible" is pinned by
`tests/games/test_trick_n_trouble_deck.py::test_story_mode_all_27_tasks_are_possible`: an explicit
deal on which a perfect team fulfils all 27 tasks (story and expert+story). "Rare" is the
27-task count below.

How the deck was tuned (seeds 0..299 per step, heuristic team): a first deck with harder
thresholds (at least 10 / 16 / 20 of a colour by level) gave the heuristic team a median of about
20 points and 6 tasks, barely above random; lowering every threshold by roughly a third (7 / 12 /
16, pairs 3 / 5 / 7, every colour 1 / 2 / 4) lifted it to 14-15 tasks. Points then set the band:
2 / 4 / 7 put the improved heuristic at 53 (50+ band); 1 / 3 / 5 at 35; 2 / 3 / 5 (shipped) at
44 in normal mode, with random play near 20. Story mode's 27 tasks need every trick to fulfil
three tasks in the right order, which no simulated game came close to (best 22-24 with a
perfect-information beam search over a few seeds).

Issue 13 changed the deck and story mode; this report is the re-run after those changes (same
seeds, same heuristic). Over-fulfilling always counts, so the two tasks that more cards could break
were replaced: l2-8 "no green at all, and at least 10 in one colour" by "at least 10 in one colour
and at least 4 in another", l3-8 "exactly 10 yellow" by "at least 10 yellow and at least 5 blue".
Candidates were compared by how often the heuristic team fulfils the task and by the medians (1000
seeds, normal and expert): old l2-8 was fulfilled in 74% / 68% of the games (normal / expert); "at
least 8 green and at least 4 yellow" (about as likely as the old task for a random trick) only in
58% / 54%, and it pulled the expert median down to 39, out of the 40-49 band; so did every
green/yellow pair tried (8/3, 7/4, 7/5, 9/2, with l3-8 at 10 yellow and 3 to 5 blue). "At least 10 in one
colour and at least 4 in another" (86% / 77%) puts the medians back at 44 / 41, the old deck's means
within 0.3 points. The new l3-8 is fulfilled about as rarely as the old one (7% / 9% against 1% / 9%).

Story mode now stacks the three piles (level 1 on top) instead of shuffling them. That mostly helps
the teams that can't switch tasks away: measured once with the new deck and a shuffled story pile,
the heuristic team's median was 16 tasks in story and 12 in expert+story, random play's 7 and 8;
stacked, they are 15 and 16 for the heuristic and 9 and 11 for random play (table below). Our
reading: with the easy tasks first, a hard task no longer blocks a face-up slot for many rounds
(what switching cures, and expert mode can't switch); the level-3 tasks all come at the end, when
few cards are left, which costs story mode (with switching) about one task of median.

Reading the summary: in normal and expert mode the heuristic team's median lies in the 40-49 band
and random play's in 20-29. In both story modes the heuristic's median task count lies in the
15-18 band; random play's is in 0-9 (story) and 10-14 (expert+story), clearly below. No game reached
27 tasks (possible, see the test above; the best is 23). The `wins` column counts games reaching
the win threshold (40 points; story: 19 tasks).

"""


def report(
    args: argparse.Namespace,
    points: dict[tuple[str, str], list[int]],
    tasks: dict[tuple[str, str], list[int]],
    elapsed: float,
    games: int,
) -> list[str]:
    """The markdown lines of the report."""
    lines = [
        f"Command: `.venv/bin/python bench/tnt_balance.py --games {args.games} --procs {args.procs}`",
        "",
        f"{games} games in {elapsed:.1f} s.",
        "",
    ]
    lines += [
        "## Summary",
        "",
        "| mode | scored by | random median | heuristic median | heuristic band | 27-task games |",
        "|---|---|---|---|---|---|",
    ]
    for mode in args.modes:
        story = "story" in mode
        source = tasks if story else points
        bands = STORY_BANDS if story else POINT_BANDS
        medians = {team: statistics.median(source[(mode, team)]) for team in TEAMS}
        band = next(text for floor, text in bands if medians["heuristic"] >= floor)
        perfect = sum(1 for v in tasks[(mode, "heuristic")] + tasks[(mode, "random")] if v >= 27)
        lines.append(
            f"| {mode} | {'tasks' if story else 'points'} | {medians['random']:g} "
            f"| {medians['heuristic']:g} | {band} | {perfect if story else '-'} |"
        )
    lines.append("")
    for mode in args.modes:
        story = "story" in mode
        lines += [f"## {mode}", ""]
        lines += [
            "| team | median points | mean points | q1-q3 | min-max | median tasks | mean tasks "
            "| max tasks | wins |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for team in TEAMS:
            p = summary(points[(mode, team)])
            t = summary(tasks[(mode, team)])
            wins = sum(1 for v in (tasks if story else points)[(mode, team)] if v >= (19 if story else 40))
            lines.append(
                f"| {team} | {p['median']:g} | {p['mean']:.1f} | {p['q1']:g}-{p['q3']:g} "
                f"| {p['min']:g}-{p['max']:g} | {t['median']:g} | {t['mean']:.1f} | {t['max']:g} "
                f"| {100 * wins / len(points[(mode, team)]):.1f}% |"
            )
        lines.append("")
        bands = STORY_BANDS if story else POINT_BANDS
        source = tasks if story else points
        lines += [f"| {'tasks' if story else 'points'} band | random | heuristic |", "|---|---|---|"]
        random_bands = band_table(source[(mode, "random")], bands)
        heuristic_bands = band_table(source[(mode, "heuristic")], bands)
        for (label, r), (_, h) in zip(random_bands, heuristic_bands, strict=True):
            lines.append(f"| {label} | {r} | {h} |")
        lines += ["", f"![{mode}](img/tnt-balance-{mode.replace('+', '-')}.png)", ""]
    return lines


if __name__ == "__main__":
    main()
