"""End to end: real Redis, real RQ worker processes, real HTTP bots on loopback."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from typing import Any

import jsonschema_rs
import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

from api.openapi_gen import spec_yaml
from games.registry import get_game
from harness.runner import HarnessContext
from harness.standings import compute_standings
from harness.tournaments import create_tournament, get_standings, get_tournament, list_matches

from .bot_servers import FaultyBotServer, random_bots, submit_faulty
from .conftest import WorkerProcs, wait_for


def _assert_matches_spec(component: str, value: Any) -> None:
    """`value` is valid for the openapi.yaml component `component` (the answer the API would send)."""
    components = yaml.safe_load(spec_yaml())["components"]
    document = {"$ref": f"#/components/schemas/{component}", "components": components}
    errors = [
        f"{e.instance_path}: {e.message}"
        for e in jsonschema_rs.Draft202012Validator(document).iter_errors(value)
    ]
    assert errors == [], (component, errors[:5])


def _finished(ctx: HarnessContext, tid: str) -> bool:
    return bool(get_tournament(ctx, tid)["status"] == "finished")


def _check_recorded_once_and_consistent(ctx: HarnessContext, tid: str) -> list[dict[str, Any]]:
    """Every match has exactly one result, equal to what its game in Redis says."""
    info = get_tournament(ctx, tid)
    results = ctx.store.results(tid)
    total = info["progress"]["total"]
    assert info["progress"]["completed"] == total == len(results)
    assert [r["index"] for r in results] == list(range(total))
    engine = get_game(info["game"])
    for res in results:
        stored = ctx.service.load(res["game_id"])  # the game is in Redis, viewable via the games API
        assert stored.finished
        truth = engine.result(stored.state)
        assert res["scores"] == truth["scores"] and res["winners"] == truth["winners"]
        spectator = ctx.service.view(res["game_id"], None)
        assert spectator["status"] == "finished"
    return results


@pytest.mark.timeout(180)
def test_full_tricky_teams_tournament_completes_with_correct_standings(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: a round robin of Tricky Teams (3 bots, 4 seats) runs on real workers to correct standings."""
    with random_bots(ctx.bots, 3) as bots:
        ids = [bot_id for bot_id, _ in bots]
        workers.start()
        workers.start()
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=1, deadline_ms=2000, time_bank_ms=2000, seed=11
        )
        tid = info["tournament_id"]
        assert info["progress"]["total"] == 12  # AAAB, AABB, ABBB x 4 rotations
        wait_for(lambda: _finished(ctx, tid), 150, "the tournament to finish")
    results = _check_recorded_once_and_consistent(ctx, tid)
    doc = get_standings(ctx, tid)
    assert doc["final"] is True
    # The answers of getTournamentStandings and getTournament: typed matrices, faults and options.
    _assert_matches_spec("Standings", doc)
    assert doc["head_to_head"] and doc["faults"]
    _assert_matches_spec("Tournament", get_tournament(ctx, tid))
    # Correct standings: recomputed independently from the games' own results.
    seat_games = Counter(bot for r in results for bot in r["seats"])
    wins = Counter(r["seats"][s] for r in results for s in r["winners"])
    for row in doc["rows"]:
        assert row["games"] == seat_games[row["entrant"]] == 16
        assert row["wins"] == wins[row["entrant"]]
        assert row["faults"] == 0
    expected = compute_standings(results, ids, cooperative=False, seed=11)
    assert [r["entrant"] for r in doc["rows"]] == [r["entrant"] for r in expected["rows"]]
    matches = list_matches(ctx, tid)
    assert all(m["status"] == "finished" and m["game_id"] for m in matches)


@pytest.mark.timeout(180)
def test_full_trick_n_trouble_tournament_cross_play(ctx: HarnessContext, workers: WorkerProcs) -> None:
    """Rule: every Trick 'n Trouble team composition plays the same deals; cross-play standings."""
    with random_bots(ctx.bots, 2) as bots:
        ids = [bot_id for bot_id, _ in bots]
        workers.start()
        info = create_tournament(
            ctx, "trick-n-trouble", 3, ids, deals=2, deadline_ms=2000, time_bank_ms=2000, seed=5
        )
        tid = info["tournament_id"]
        assert info["progress"]["total"] == 16  # (AAA + 3 AAB + 3 ABB + BBB) x 2 deals
        wait_for(lambda: _finished(ctx, tid), 150, "the tournament to finish")
    results = _check_recorded_once_and_consistent(ctx, tid)
    deal_seeds: dict[int, set[int]] = {}
    for m in ctx.store.match_specs(tid):
        deal_seeds.setdefault(m["deal"], set()).add(m["deal_seed"])
    assert all(len(s) == 1 for s in deal_seeds.values())  # same hands for every composition
    doc = get_standings(ctx, tid)
    _assert_matches_spec("Standings", doc)  # cross-play cells and compositions, typed
    assert doc["cross_play"] and doc["compositions"]
    assert {tuple(c["members"]) for c in doc["compositions"]} == {
        tuple(sorted(t))
        for t in ([ids[0]] * 3, [ids[0], ids[0], ids[1]], [ids[0], ids[1], ids[1]], [ids[1]] * 3)
    }
    a, b = ids
    self_a = [r["team_score"] for r in results if set(r["seats"]) == {a}]
    assert doc["cross_play"][a][a]["mean"] == pytest.approx(sum(self_a) / len(self_a))
    for row in doc["rows"]:
        assert row["threshold_rate"] is not None and row["games"] == 24


@pytest.mark.timeout(240)
def test_fault_injecting_bots_cannot_stop_or_corrupt_a_tournament(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: slow, hanging, 500, garbage, illegal and refused bots fault; the tournament still finishes."""
    faulty = {
        name: FaultyBotServer(name, delay_s=0.35).start()
        for name in ("slow", "hang", "http500", "garbage", "illegal")
    }
    gone = FaultyBotServer("refused").start()
    tag = ctx.store.prefix[8:20]
    try:
        with random_bots(ctx.bots, 1, "good") as ((good, _),):
            ids = {"good": good}
            for name, server in faulty.items():
                ids[name] = submit_faulty(ctx.bots, server, f"{name}-{tag}")
            ids["refused"] = submit_faulty(ctx.bots, gone, f"refused-{tag}")
            gone.stop()  # submitted while it listened; now nothing does: connection refused
            workers.start()
            workers.start()
            order = list(ids.values())
            info = create_tournament(
                ctx,
                "tricky-teams",
                4,
                order,
                deals=1,
                deadline_ms=200,
                time_bank_ms=300,
                seed=3,
                max_tables=5,
                fault_threshold=3,
            )
            tid = info["tournament_id"]
            assert info["progress"]["total"] == 20
            wait_for(lambda: _finished(ctx, tid), 220, "the tournament to finish")
    finally:
        for server in faulty.values():
            server.stop()
    _check_recorded_once_and_consistent(ctx, tid)
    doc = get_standings(ctx, tid)
    by_code = {name: doc["faults"][bot_id]["by_code"] for name, bot_id in ids.items()}
    expected_code = {
        "slow": "timeout",
        "hang": "timeout",
        "http500": "http_status",
        "garbage": "malformed_body",
        "illegal": "illegal_move",
        "refused": "connection_error",
    }
    assert by_code["good"] == {}
    for name, code in expected_code.items():
        assert code in by_code[name], (name, by_code[name])
        assert doc["faults"][ids[name]]["unrated_matches"] >= 1, name
    rows = {r["entrant"]: r for r in doc["rows"]}
    assert rows[ids["good"]]["unrated_matches"] == 0
    # The fault was told to the bot on its next request.
    assert "http_status" in faulty["http500"].faults_told
    assert "illegal_move" in faulty["illegal"].faults_told


@pytest.mark.timeout(240)
def test_sigkill_of_a_worker_mid_match_loses_nothing(ctx: HarnessContext, workers: WorkerProcs) -> None:
    """Rule: a worker SIGKILLed with several matches in flight -> every one of its jobs is found
    abandoned (their heartbeats stop with it), retried and resumed; every result lands once."""
    servers = [FaultyBotServer("slow", delay_s=0.01).start() for _ in range(4)]
    try:
        ids = [
            submit_faulty(ctx.bots, s, f"steady{i}-{ctx.store.prefix[8:20]}") for i, s in enumerate(servers)
        ]
        victim_name = f"victim-{ctx.queue_name}"
        victim = workers.start(name=victim_name)
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=2, deadline_ms=1000, time_bank_ms=1000, seed=8
        )
        tid = info["tournament_id"]
        total = info["progress"]["total"]
        assert total == 8
        mid: list[int] = []

        def victim_mid_matches() -> bool:
            mid[:] = []
            for index in workers.current_matches(victim_name):
                game_id = ctx.store.match_runtime(tid, index).get("game_id")
                if game_id and ctx.service.load(game_id).version > 30:
                    mid.append(index)
            return len(mid) >= 2

        wait_for(victim_mid_matches, 60, "the victim worker to be mid-match in two matches", poll=0.05)
        workers.sigkill(victim)
        workers.start()  # the survivor: finds the victim's jobs abandoned and retries them
        wait_for(lambda: _finished(ctx, tid), 200, "the tournament to finish after the kill")
    finally:
        for server in servers:
            server.stop()
    results = _check_recorded_once_and_consistent(ctx, tid)
    assert len(results) == total
    resumed = {r["index"] for r in results if r["timing"]["resumed"]}
    assert set(mid) <= resumed, (mid, resumed)  # every match the victim was in the middle of
    killed = [r for r in results if r["timing"]["resumed"]]
    assert all(r["decisions"] == len(ctx.service.load(r["game_id"]).state["actions"]) for r in killed)
    assert sum(r["decisions"] for r in results) == sum(
        len(ctx.service.load(r["game_id"]).state["actions"]) for r in results
    )


@pytest.mark.timeout(120)
def test_a_match_that_cannot_be_played_is_recorded_as_an_error_and_the_tournament_finishes(
    ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: an internal failure (here the match's game is gone from Redis) exhausts the retries,
    is recorded once as an error, stays out of the standings, and the tournament still finishes."""
    with random_bots(ctx.bots, 2) as bots:
        ids = [bot_id for bot_id, _ in bots]
        info = create_tournament(ctx, "trick-n-trouble", 3, ids, deals=1, seed=6, enqueue=False)
        tid = info["tournament_id"]
        ctx.store.claim_game_id(tid, 0, "ffffffffffffffff")  # a game that does not exist (expired)
        from harness.queueing import enqueue_matches

        enqueue_matches(ctx, tid, range(info["progress"]["total"]))
        workers.start(scheduler=False)
        wait_for(lambda: _finished(ctx, tid), 100, "the tournament to finish")
    matches = list_matches(ctx, tid)
    assert matches[0]["status"] == "error" and "game" in matches[0]["error"].lower()
    assert all(m["status"] == "finished" for m in matches[1:])
    doc = get_standings(ctx, tid)
    assert doc["matches"] == len(matches) - 1
    record = ctx.store.tournament(tid)
    assert record is not None and record["completed"] == record["total"] == len(matches)


@pytest.mark.timeout(120)
def test_killing_a_workers_process_group_stops_its_matches(ctx: HarnessContext, workers: WorkerProcs) -> None:
    """Rule (operations.md, Stopping): a worker runs its matches as threads, not child processes,
    so SIGKILL to its process group stops every match it was playing."""
    servers = [FaultyBotServer("slow", delay_s=0.05).start() for _ in range(3)]
    try:
        ids = [
            submit_faulty(ctx.bots, s, f"slowpoke{i}-{ctx.store.prefix[8:20]}") for i, s in enumerate(servers)
        ]
        name = f"grouped-{ctx.queue_name}"
        worker = workers.start(scheduler=False, name=name)  # no scheduler: no child process at all
        info = create_tournament(
            ctx, "tricky-teams", 3, ids, deals=1, deadline_ms=1000, time_bank_ms=1000, seed=5
        )
        tid = info["tournament_id"]

        def versions() -> dict[int, int]:
            out = {}
            for index in range(info["progress"]["total"]):
                game_id = ctx.store.match_runtime(tid, index).get("game_id")
                if game_id:
                    out[index] = ctx.service.load(game_id).version
            return out

        wait_for(lambda: sum(v > 3 for v in versions().values()) >= 2, 60, "two matches under way", poll=0.05)
        assert len(workers.current_matches(name)) >= 2  # several matches in flight in one process
        assert workers.children(worker) == []  # ... and no work-horse: they are its threads
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        at_kill = versions()
        time.sleep(1.0)  # a live match moves every ~50 ms
        assert versions() == at_kill
    finally:
        for server in servers:
            server.stop()
