"""A bot's own records (issue 18): listBotMatches, versions in results, standings per version.

End to end: real Redis, real RQ worker processes, real HTTP bots on loopback, the API app."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest

from api.app import create_app
from harness import tournaments as T
from harness.botrecords import version_summary
from harness.runner import HarnessContext

from .bot_servers import FaultyBotServer, random_bots, submit
from .conftest import WorkerProcs, wait_for
from .test_tournament_e2e import _assert_matches_spec


@pytest.fixture()
def app_client(redis_url: str, key_prefix: str, queue_name: str) -> Any:
    """The API app on the test database, prefix and queue (Flask test client)."""
    config = {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    return create_app(config).test_client()


def _all_pages(client: Any, path: str, limit: int) -> list[dict[str, Any]]:
    """Every match of a listBotMatches query, page by page through `next_cursor`."""
    out: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = f"{path}{'&' if '?' in path else '?'}limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(query)
        assert page.status_code == 200, page.json
        assert len(page.json["matches"]) <= limit
        _assert_matches_spec("BotMatchList", page.json)
        out += page.json["matches"]
        cursor = page.json["next_cursor"]
        if cursor is None:
            return out


def _round_done(ctx: HarnessContext, lid: str, number: int) -> bool:
    rounds = T.league_rounds(ctx, lid)
    return len(rounds) >= number and T.get_tournament(ctx, rounds[number - 1])["status"] == "finished"


@pytest.mark.timeout(240)
def test_a_bots_matches_versions_and_standings_per_version_end_to_end(
    app_client: Any, ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule (issue 18, My bot): every recorded match of a bot is listed by listBotMatches, newest
    first, paged by cursor without loss or repeat, filterable by tournament or league, with its
    seats, opponents, result, faults by code and the version the bot had when it played; results
    record each seat's version, and standings `by=version` give one row per bot version (a bot
    updated between two league rounds has two rows, whose counts add up to its row)."""
    faulty = FaultyBotServer("http500").start()
    try:
        with random_bots(ctx.bots, 2) as bots:
            fid, fkey, faulty.secret = submit(ctx.bots, f"faulty-{time.monotonic_ns()}", faulty.url)
            ids = [fid, *(b for b, _ in bots)]
            keys = [fkey, *(k for _, k in bots)]
            workers.start()
            body = {"game": "tricky-teams", "seats": 3, "entrants": ids, "owner_keys": keys, "deals": 2}
            created = app_client.post("/tournaments", json=body)
            assert created.status_code == 201, created.json
            tid = created.json["tournament_id"]
            wait_for(lambda: T.get_tournament(ctx, tid)["status"] == "finished", 150, "the tournament")
            league = T.create_league(ctx, "tricky-teams", 3, interval_s=3600, deals=1, enqueue=False)
            lid = league["league_id"]
            for bot_id, key in zip(ids, keys, strict=True):
                T.join_league(ctx, lid, bot_id, key)
            assert T.run_league_round(ctx, lid, 1) is not None
            wait_for(lambda: _round_done(ctx, lid, 1), 150, "league round 1")
            faulty.version = "2.0"  # the author ships a new version and updates the bot
            assert ctx.bots.update(fid, fkey, url=faulty.url)["version"] == "2.0"
            assert T.run_league_round(ctx, lid, 2) is not None
            wait_for(lambda: _round_done(ctx, lid, 2), 150, "league round 2")
    finally:
        faulty.stop()
    rounds = T.league_rounds(ctx, lid)
    results = {t: ctx.store.results(t) for t in (tid, *rounds)}
    assert all(r["versions"][r["seats"].index(fid)] == "1" for r in results[tid] + results[rounds[0]])
    assert all(r["versions"][r["seats"].index(fid)] == "2.0" for r in results[rounds[1]])

    listed = _all_pages(app_client, f"/bots/{fid}/matches", limit=4)
    everything = [(t, r["index"]) for t, rs in results.items() for r in rs]
    assert sorted((m["tournament_id"], m["index"]) for m in listed) == sorted(everything)
    assert len(listed) == len(everything) == 6 + 3 + 3
    stamps = [m["recorded_at"] for m in listed]
    assert stamps == sorted(stamps, reverse=True)  # newest first
    assert {m["tournament_id"] for m in listed[:3]} == {rounds[1]}
    for match in listed:
        res = next(r for r in results[match["tournament_id"]] if r["index"] == match["index"])
        seat = res["seats"].index(fid)
        assert match["seats"] == [seat] and match["table"] == res["seats"]
        assert sorted(match["opponents"]) == sorted(ids[1:])
        assert match["status"] == "finished" and match["sealed"] is False
        assert match["version"] == ("2.0" if match["tournament_id"] == rounds[1] else "1")
        assert match["result"]["scores"] == [res["scores"][seat]]
        assert match["result"]["faults_by_code"] == res["fault_codes"][seat]
        assert match["result"]["faults_by_code"].get("http_status", 0) >= 4  # it answers 500 to every move
        assert match["result"]["unrated"] is True
        assert match["league_id"] == (lid if match["tournament_id"] in rounds else None)

    only_t = _all_pages(app_client, f"/bots/{fid}/matches?tournament_id={tid}", limit=100)
    assert sorted(m["index"] for m in only_t) == list(range(6))
    only_l = _all_pages(app_client, f"/bots/{fid}/matches?league_id={lid}", limit=2)
    assert sorted((m["tournament_id"], m["league_round"]) for m in only_l) == sorted(
        [(rounds[0], 1)] * 3 + [(rounds[1], 2)] * 3
    )
    # The faults listed per match add up to the standings' fault table.
    standings = app_client.get(f"/tournaments/{tid}/standings").json
    assert standings["faults"][fid]["by_code"] == dict(
        sum((Counter(m["result"]["faults_by_code"]) for m in only_t), Counter())
    )

    by_version = app_client.get(f"/leagues/{lid}/standings?by=version").json
    _assert_matches_spec("Standings", by_version)
    assert by_version["by"] == "version" and by_version["total_rows"] == 4
    mine = {r["version"]: r for r in by_version["rows"] if r["entrant"] == fid}
    assert set(mine) == {"1", "2.0"} and mine["1"]["games"] == mine["2.0"]["games"] == 3
    whole = next(r for r in app_client.get(f"/leagues/{lid}/standings").json["rows"] if r["entrant"] == fid)
    assert whole["games"] == sum(r["games"] for r in mine.values())
    assert whole["faults"] == sum(r["faults"] for r in mine.values())
    assert whole["unrated_matches"] == sum(r["unrated_matches"] for r in mine.values())
    means = [r["mean_score"] for r in by_version["rows"]]
    assert means == sorted(means, reverse=True)
    assert [r["rank"] for r in by_version["rows"]] == [1, 2, 3, 4]
    t_version = app_client.get(f"/tournaments/{tid}/standings?by=version&limit=2").json
    assert t_version["total_rows"] == 3 and len(t_version["rows"]) == 2


def test_list_bot_matches_refuses_bad_input_with_a_clear_4xx(app_client: Any, ctx: HarnessContext) -> None:
    """Rule: listBotMatches answers an unknown bot, tournament or league with 404 and a bad query (a
    limit over 100, a forged cursor) with 422, each with its code; nothing is written."""
    with random_bots(ctx.bots, 1) as bots:
        bot_id = bots[0][0]
        before = sorted(ctx.store.client.keys(ctx.store.prefix + "*"))
        cases = [
            ("/bots/0123456789abcdef/matches", 404, "bot_not_found"),
            ("/bots/nope/matches", 404, "bot_not_found"),
            (f"/bots/{bot_id}/matches?tournament_id=feedfeedfeedfeed", 404, "tournament_not_found"),
            (f"/bots/{bot_id}/matches?league_id=feedfeedfeedfeed", 404, "league_not_found"),
            # both filters are taken (docs/api.md, Contract tests): an unknown one is still 404
            (f"/bots/{bot_id}/matches?tournament_id=a&league_id=b", 404, "tournament_not_found"),
            (f"/bots/{bot_id}/matches?limit=101", 422, "validation_error"),
            (f"/bots/{bot_id}/matches?cursor=12;DROP", 422, "validation_error"),
        ]
        for path, status, code in cases:
            answer = app_client.get(path)
            assert (answer.status_code, answer.json["code"]) == (status, code), path
        empty = app_client.get(f"/bots/{bot_id}/matches")
        assert empty.status_code == 200 and empty.json == {"matches": [], "next_cursor": None}
        assert sorted(ctx.store.client.keys(ctx.store.prefix + "*")) == before


def test_a_live_tournaments_matches_are_listed_sealed_and_practice_is_left_out_of_the_version_summary(
    app_client: Any, ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (fair play): a match of a tournament still running is listed once its result is folded
    in, marked `sealed` and with nothing the running tournament hides (no seed, no cards: the
    fields listTournamentMatches shows); practice tournaments stay out of the bot's per-version
    summary (docs/harness.md, Fair play), while their matches are listed as `practice`."""
    monkeypatch.setattr(
        ctx.bots, "probe", lambda url, games: {"name": "s", "author": "", "version": "7", "games": games}
    )
    ids = [
        ctx.bots.create(
            f"stub-{i}-{time.monotonic_ns()}", f"http://127.0.0.1:9/stub-{i}", ["tricky-teams"]
        ).bot.id
        for i in range(3)
    ]
    rng = random.Random(4)
    for seed in (None, 5):  # a real tournament, then a practice one
        info = T.create_tournament(ctx, "tricky-teams", 3, ids, deals=2, seed=seed, enqueue=False)
        tid = info["tournament_id"]
        for match in ctx.store.match_specs(tid)[:2]:
            scores = [rng.randint(0, 9) for _ in match["seats"]]
            result = {
                **{k: match[k] for k in ("index", "deal", "table", "rotation", "seats")},
                "scores": scores,
                "winners": [s for s, v in enumerate(scores) if v == max(scores)],
                "faults": [0, 1, 0],
                "fault_codes": [{}, {"timeout": 1}, {}],
                "unrated": [],
                "versions": ["7", "7", "7"],
                "game_id": "g" * 16,
            }
            ctx.store.record_result(tid, match["index"], result)
        T.update_standings(ctx, tid)
        listed = app_client.get(f"/bots/{ids[0]}/matches?tournament_id={tid}").json["matches"]
        assert len(listed) == 2 and all(m["sealed"] for m in listed)
        assert all(m["practice"] is (seed is not None) for m in listed)
        text = str(listed)
        assert "seed" not in text and "view" not in text and "hand" not in text
    summary = version_summary(ctx, ids[0])
    assert [(r["game"], r["version"], r["matches"]) for r in summary] == [("tricky-teams", "7", 2)]


def test_a_bots_all_time_match_index_keeps_only_its_latest_entries(
    ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (issue 25, bounded memory): a bot's all-time and per-league match indexes keep its
    latest BOT_INDEX_CAP matches (older entries dropped as results are folded); a tournament's own
    index keeps all of its matches."""
    from harness import store as store_module

    monkeypatch.setattr(store_module, "BOT_INDEX_CAP", 5)
    store = ctx.store
    spec = {"game": "tricky-teams", "league": {"league_id": "lg1"}}
    results = [
        {"index": i, "seats": ["a", "b", "c", "d"], "scores": [1, 0, 1, 0], "winners": [0, 2]}
        for i in range(8)
    ]
    for start in (0, 4):
        now_us = int(time.time() * 1e6)
        for position, res in enumerate(results[start : start + 4]):
            store.index_results("t1", spec, [(res, now_us + position)])
    latest = [f"t1:{i}".encode() for i in range(3, 8)]
    assert store.client.zrange(store.key_for("bot_matches", "a"), 0, -1) == latest
    assert store.client.zrange(store.key_for("bot_scope_matches", "b", "l:lg1"), 0, -1) == latest
    assert store.client.zcard(store.key_for("bot_scope_matches", "c", "t:t1")) == 8
