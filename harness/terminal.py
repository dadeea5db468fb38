"""The one terminal renderer: a standings table and progress bars that follow tournaments live.

Used by `trickarena tournament run|show|follow` and by `make run`, so both show the same columns
and markers, and fit an 80-column terminal: rank, bot (`≈` when its interval overlaps another's,
i.e. not yet separated), games, wins, the score (mean coins, or the team score of a cooperative
game), its 95% interval, the OpenSkill ordinal the table is ordered by, and faults. Under the table,
each faulting bot's faults by reason in plain words (`harness.faults.explain_counts`); when a
tournament ends, `summary` says in words who won, the standings, the faults and where the web page
is.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from harness.faults import explain_counts
from harness.runner import HarnessContext
from harness.tournaments import get_standings, get_tournament

NOT_SEPARATED = "≈"
ENDED = ("finished", "cancelled")


def standings_title(info: dict[str, Any]) -> str:
    """ "<game> — standings (final|live)"."""
    return f"{info['game']} — standings ({'final' if info['status'] == 'finished' else 'live'})"


def standings_table(doc: dict[str, Any], names: dict[str, str], title: str) -> Table:
    """A standings document as a table (see the module docstring for the columns)."""
    coop = bool(doc.get("cooperative"))
    table = Table(title=title, title_justify="left", expand=False)
    score = "team score" if coop else "mean coins"
    for col in ("#", "bot", "games", "wins", score, "95% interval", "ordinal", "faults"):
        table.add_column(col, justify="left" if col == "bot" else "right", overflow="fold")
    for row in doc.get("rows", []):
        ci = row.get("score_ci")
        mean = row.get("mean_score")
        table.add_row(
            str(row["rank"]),
            names.get(row["entrant"], row["entrant"]) + ("" if row.get("separated") else f" {NOT_SEPARATED}"),
            str(row["games"]),
            str(row["wins"]),
            f"{mean:.2f}" if mean is not None else "-",
            f"{ci[0]:.1f}–{ci[1]:.1f}" if ci else "-",
            f"{row['rating']['ordinal']:.2f}",
            str(row["faults"]),
        )
    table.caption = f"{NOT_SEPARATED} : interval overlaps another's (not yet separated)"
    return table


def fault_reasons(doc: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Each faulting bot of a standings document with its faults by reason in plain words, in
    standings order: ``"sleepy: 96 faults: 96 timed out: is the bot slow, ...?"``."""
    lines = []
    faults = doc.get("faults") or {}
    for row in doc.get("rows", []):
        entry = faults.get(row["entrant"]) or {}
        total = int(entry.get("total", row.get("faults", 0)))
        if not total:
            continue
        # Results from before the reasons were recorded: their bare fault codes.
        counted = entry.get("by_reason") or entry.get("by_code") or {}
        words = "; ".join(explain_counts(counted)) or "see the tournament's match decisions"
        lines.append(f"{names.get(row['entrant'], row['entrant'])}: {total} fault(s): {words}")
    return lines


def standings_view(doc: dict[str, Any], names: dict[str, str], title: str) -> Group:
    """The standings table and, under it, the faults by reason (`fault_reasons`)."""
    reasons = fault_reasons(doc, names)
    parts: list[Any] = [standings_table(doc, names, title)]
    if reasons:
        parts.append(Text("Faults, by reason:\n" + "\n".join(f"  {line}" for line in reasons)))
    return Group(*parts)


def summary(
    info: dict[str, Any], doc: dict[str, Any], names: dict[str, str], page: str | None, width: int = 80
) -> list[str]:
    """A tournament at its end in words: status, winner, standings, faults with their reasons, and
    its web page (`page`, when known), in lines of at most `width` columns."""
    p = info["progress"]
    name = info.get("name") or f"{info['game']} tournament"
    played = f"{p['completed']} of {p['total']} matches played"
    lines = [f"{name} ({info['tournament_id']}): {info['status']}, {played}."]
    rows = doc.get("rows", [])
    score = "team score" if doc.get("cooperative") else "mean coins"

    def mean(row: dict[str, Any]) -> str:
        return f"{row['mean_score']:.2f}" if row.get("mean_score") is not None else "-"

    if rows and rows[0].get("games"):
        top = rows[0]
        tied = [r for r in rows if r.get("mean_score") == top.get("mean_score")]
        who = " and ".join(names.get(r["entrant"], r["entrant"]) for r in tied)
        lines.append(f"Winner: {who}, {score} {mean(top)} over {top['games']} game(s).")
    lines.append(
        "Standings: "
        + ", ".join(
            f"{r['rank']}. {names.get(r['entrant'], r['entrant'])} ({mean(r)}, {r['wins']} win(s))"
            for r in rows
        )
        + "."
    )
    reasons = fault_reasons(doc, names)
    lines += ["Faults:", *(f"  {line}" for line in reasons)] if reasons else ["Faults: none."]
    if page:
        lines.append(f"Web page: {page}")
    # At most `width` columns (a URL is never broken); continuation lines indented.
    return [
        part
        for line in lines
        for part in textwrap.wrap(
            line, width, subsequent_indent=" " * (len(line) - len(line.lstrip()) + 4), break_long_words=False
        )
    ]


def console() -> Console:
    """A console for the terminal; piped or logged output gets a fixed 100 columns."""
    out = Console()
    return out if out.is_terminal else Console(width=100)


def bot_names(ctx: HarnessContext, ids: Sequence[str]) -> dict[str, str]:
    """Bot id -> name (the id itself for an unknown bot)."""
    out = {}
    for bot_id in ids:
        record = ctx.bot(bot_id)
        out[bot_id] = record.name if record else bot_id
    return out


def follow(
    ctx: HarnessContext,
    tids: Sequence[str],
    names: dict[str, str],
    *,
    poll_s: float = 0.5,
    timeout_s: float | None = None,
    check: Callable[[], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> list[dict[str, Any]]:
    """Progress bars and live standings until every tournament has ended (or `timeout_s`).

    `check` runs every poll and may raise to stop (make run: a child process died). Returns the
    tournaments' last records.
    """
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    )
    infos = [get_tournament(ctx, tid) for tid in tids]
    tasks = {
        i["tournament_id"]: progress.add_task(f"{i['game']:<16}", total=i["progress"]["total"]) for i in infos
    }
    started = time.monotonic()
    with Live(Group(progress), refresh_per_second=4, console=console()) as live:
        while True:
            infos = [get_tournament(ctx, tid) for tid in tids]
            tables = []
            for info in infos:
                progress.update(tasks[info["tournament_id"]], completed=info["progress"]["completed"])
                doc = get_standings(ctx, info["tournament_id"])
                tables.append(standings_view(doc, names, standings_title(info)))
            live.update(Group(progress, *tables))
            if all(i["status"] in ENDED for i in infos):
                return infos
            if timeout_s is not None and time.monotonic() - started > timeout_s:
                return infos
            if check is not None:
                check()
            sleep(poll_s)
