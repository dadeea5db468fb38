"""Fair queues: tournaments queued together take turns, so a small one is not stuck behind a big one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.queueing import queue_for
from harness.runner import HarnessContext
from harness.tournaments import cancel_tournament, create_tournament, get_tournament

from .bot_servers import delayed_bots
from .conftest import WorkerProcs, wait_for


@pytest.fixture()
def five_bots(ctx: HarnessContext) -> Iterator[list[str]]:
    """Five bots that answer every move after 100 ms (real bots are that slow or slower)."""
    with delayed_bots(ctx.bots, 5, 0.1, "fair") as ids:
        yield ids


def _queued_tournaments(ctx: HarnessContext) -> list[str]:
    """The tournament id of every waiting match job, in queue order."""
    return [job_id.rsplit("_", 2)[1] for job_id in queue_for(ctx).get_job_ids()]


def test_matches_queued_behind_another_tournament_take_turns_with_it(
    ctx: HarnessContext, five_bots: list[str]
) -> None:
    """Rule: queuing a tournament re-orders the waiting jobs round-robin by tournament, each
    tournament's matches still in their own order; a third tournament joins the rotation."""
    big = create_tournament(ctx, "tricky-teams", 4, five_bots, deals=25)["tournament_id"]
    assert _queued_tournaments(ctx) == [big] * 500
    small = create_tournament(ctx, "tricky-teams", 4, five_bots, deals=1)["tournament_id"]
    order = _queued_tournaments(ctx)
    assert order[:40] == [big, small] * 20 and order[40:] == [big] * 480
    ids = queue_for(ctx).get_job_ids()
    assert [int(j.rsplit("_", 1)[1]) for j in ids if small in j] == list(range(20))
    assert [int(j.rsplit("_", 1)[1]) for j in ids if big in j] == list(range(500))
    third = create_tournament(ctx, "tricky-teams", 4, five_bots[:4], deals=2)["tournament_id"]
    assert _queued_tournaments(ctx)[:24] == [big, small, third] * 8


def _duration(ctx: HarnessContext, tid: str) -> float:
    record = ctx.store.tournament(tid)
    assert record is not None and record["status"] == "finished"
    return float(record["finished_at"]) - float(record["created_at"])


@pytest.mark.timeout(240)
def test_a_small_tournament_behind_a_500_match_one_finishes_within_twice_its_time_alone(
    ctx: HarnessContext, workers: WorkerProcs, five_bots: list[str]
) -> None:
    """Rule (issue 16): a 20-match tournament queued right behind a 500-match one, on the same
    worker, finishes within 2x the time it takes alone (100 ms bots, one worker)."""
    workers.start(scheduler=False, extra=["--max-in-flight", "48"])
    options = {"raids": 1}

    def run_small() -> str:
        tid = create_tournament(ctx, "tricky-teams", 4, five_bots, deals=1, options=options)["tournament_id"]
        wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 120, "the small tournament")
        return str(tid)

    alone = _duration(ctx, run_small())
    big = create_tournament(ctx, "tricky-teams", 4, five_bots, deals=25, options=options)
    assert big["progress"]["total"] == 500
    behind = _duration(ctx, run_small())
    assert get_tournament(ctx, big["tournament_id"])["progress"]["completed"] < 500  # still at it
    cancel_tournament(ctx, big["tournament_id"], big["owner_key"])  # the rest are not played
    print(f"small tournament alone {alone:.1f} s, behind 500 matches {behind:.1f} s")
    assert behind <= 2 * alone, (alone, behind)
