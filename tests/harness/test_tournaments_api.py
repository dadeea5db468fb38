"""The tournament and league endpoints: error table (nothing written), owner keys, a league over real HTTP."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any, cast

import pytest
import redis
import requests
from werkzeug.serving import make_server

from api.app import create_app
from core.errors import Conflict
from harness.runner import HarnessContext
from harness.tournaments import (
    _league,
    create_league,
    get_league,
    get_tournament,
    join_league,
    league_members,
    league_ratings,
    league_rounds,
    run_league_round,
    tournament_prior,
)

from .bot_servers import FaultyBotServer, random_bots, submit
from .conftest import WorkerProcs, wait_for

VALID_ID = "0123456789abcdef"


@pytest.fixture()
def app_client(redis_url: str, key_prefix: str, queue_name: str) -> Any:
    """The API app on the test database, prefix and queue (Flask test client)."""
    app = create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    )
    return app.test_client()


@pytest.fixture()
def live_api(redis_url: str, key_prefix: str, queue_name: str) -> Iterator[str]:
    """The API served over real HTTP on a loopback port."""
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": key_prefix,
            "TRICKARENA_QUEUE": queue_name,
            "TRICKARENA_MIN_LEAGUE_INTERVAL_S": 1,  # rounds seconds apart, for the test
        }
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _harness_keys(redis_url: str, prefix: str) -> list[bytes]:
    client = redis.Redis.from_url(redis_url)
    return [k for k in client.scan_iter(match=prefix + "*") if k[len(prefix) :].startswith((b"t:", b"l:"))]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("post", "/tournaments", {"game": "nope", "seats": 4, "entrants": [VALID_ID]}, 422, "unknown_game"),
        (
            "post",
            "/tournaments",
            {"game": "tricky-teams", "seats": 9, "entrants": [VALID_ID]},
            422,
            "invalid_seats",
        ),
        (
            "post",
            "/tournaments",
            {"game": "tricky-teams", "seats": 4, "entrants": ["x"]},
            422,
            "validation_error",
        ),
        (
            "post",
            "/tournaments",
            {"game": "tricky-teams", "seats": 4, "entrants": [VALID_ID]},
            404,
            "bot_not_found",
        ),
        (
            "post",
            "/tournaments",
            {"game": "tricky-teams", "seats": 4, "entrants": [VALID_ID, VALID_ID]},
            422,
            "duplicate_entrants",
        ),
        (
            "post",
            "/tournaments",
            {"game": "tricky-teams", "seats": 4, "entrants": [VALID_ID], "deals": 0},
            422,
            "validation_error",
        ),
        ("post", "/tournaments", {"seats": 4, "entrants": [VALID_ID]}, 422, "validation_error"),
        # `options` is the game's options object (GameOptions): anything else is refused, even a falsy one.
        *[
            ("post", path, {**base, "options": bad}, 422, "validation_error")
            for path, base in [
                ("/tournaments", {"game": "tricky-teams", "seats": 4, "entrants": [VALID_ID]}),
                ("/leagues", {"game": "tricky-teams", "seats": 4, "interval_s": 3600}),
            ]
            for bad in cast(tuple[object, ...], (0, [], "raids", None))
        ],
        (
            "post",
            "/leagues",
            {"game": "tricky-teams", "seats": 4, "interval_s": 3600, "options": {"raids": 0}},
            422,
            "invalid_options",
        ),
        ("post", "/tournaments", "{not json", 422, "invalid_json"),
        ("get", "/tournaments/nope", None, 404, "tournament_not_found"),
        ("get", "/tournaments/nope/matches", None, 404, "tournament_not_found"),
        ("get", "/tournaments/nope/standings", None, 404, "tournament_not_found"),
        ("post", "/tournaments/nope/cancel", None, 404, "tournament_not_found"),
        ("post", "/leagues", {"game": "tricky-teams", "seats": 4}, 422, "validation_error"),
        (
            "post",
            "/leagues",
            {"game": "tricky-teams", "seats": 4, "cron": "every day"},
            422,
            "invalid_schedule",
        ),
        ("post", "/leagues", {"game": "tricky-teams", "seats": 4, "interval_s": 0}, 422, "validation_error"),
        ("post", "/leagues", {"game": "nope", "seats": 4, "interval_s": 60}, 422, "unknown_game"),
        ("get", "/leagues/nope", None, 404, "league_not_found"),
        ("get", "/leagues/nope/standings", None, 404, "league_not_found"),
        # the key is asked for before the body is read (docs/api.md, Contract tests)
        ("post", "/leagues/nope/members", {"bot_id": VALID_ID}, 401, "missing_token"),
        ("delete", f"/leagues/nope/members/{VALID_ID}", None, 404, "league_not_found"),
    ],
)
def test_bad_input_gets_a_clear_4xx_and_writes_nothing(
    app_client: Any,
    redis_url: str,
    key_prefix: str,
    method: str,
    path: str,
    body: Any,
    status: int,
    code: str,
) -> None:
    """Rule: bad input -> 4xx JSON with a machine-readable code, never a 500, and nothing written."""
    if isinstance(body, str):
        response = getattr(app_client, method)(path, data=body, content_type="application/json")
    else:
        response = getattr(app_client, method)(path, json=body)
    assert response.status_code == status, response.json
    assert response.json["code"] == code
    assert _harness_keys(redis_url, key_prefix) == []


def test_cancel_needs_the_owner_key_and_stops_the_tournament(
    app_client: Any, ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: cancelTournament takes the owner key createTournament returned; cancelled matches never run."""
    with random_bots(ctx.bots, 2) as bots:
        body = {
            "game": "tricky-teams",
            "seats": 4,
            "entrants": [b for b, _ in bots],
            "deals": 3,
            "owner_keys": [k for _, k in bots],
        }
        created = app_client.post("/tournaments", json=body)
        assert created.status_code == 201, created.json
        tid, key = created.json["tournament_id"], created.json["owner_key"]
        assert created.headers["Location"] == f"/tournaments/{tid}"
        assert app_client.post(f"/tournaments/{tid}/cancel").status_code == 401
        wrong = app_client.post(f"/tournaments/{tid}/cancel", headers={"Authorization": "Bearer nope"})
        assert (wrong.status_code, wrong.json["code"]) == (403, "not_owner")
        ok = app_client.post(f"/tournaments/{tid}/cancel", headers={"Authorization": f"Bearer {key}"})
        assert (ok.status_code, ok.json["status"]) == (200, "cancelled")
        again = app_client.post(f"/tournaments/{tid}/cancel", headers={"Authorization": f"Bearer {key}"})
        assert (again.status_code, again.json["code"]) == (409, "tournament_over")
        workers.start(scheduler=False)
        queue = f"rq:queue:{ctx.queue_name}"
        wait_for(lambda: ctx.store.client.llen(queue) == 0, 60, "the cancelled jobs to drain")
    matches = app_client.get(f"/tournaments/{tid}/matches").json["matches"]
    assert len(matches) == 36 and all(m["status"] == "cancelled" for m in matches)
    assert ctx.store.results(tid) == []


def test_match_list_is_paged_and_bounded(app_client: Any, ctx: HarnessContext) -> None:
    """Rule: listTournamentMatches answers at most `limit` (default 100, max 500) matches by index
    from `offset`, with `next_offset` until the last page; the pages cover every match once."""
    with random_bots(ctx.bots, 4) as bots:
        body = {
            "game": "tricky-teams",
            "seats": 4,
            "entrants": [b for b, _ in bots],
            "deals": 40,
            "owner_keys": [k for _, k in bots],
            "start_at": "2999-01-01T00:00:00Z",
        }
        created = app_client.post("/tournaments", json=body)
        assert created.status_code == 201, created.json
        tid = created.json["tournament_id"]
        total = created.json["progress"]["total"]
        assert total > 100
        first = app_client.get(f"/tournaments/{tid}/matches").json
        assert (len(first["matches"]), first["offset"], first["limit"]) == (100, 0, 100)
        assert (first["total"], first["next_offset"]) == (total, 100)
        seen: list[int] = []
        offset: int | None = 0
        while offset is not None:
            page = app_client.get(f"/tournaments/{tid}/matches?offset={offset}&limit=37").json
            assert len(page["matches"]) <= 37
            seen += [m["index"] for m in page["matches"]]
            offset = page["next_offset"]
        assert seen == list(range(total))
        for bad in ("limit=501", "limit=0", "offset=-1", "limit=x"):
            answer = app_client.get(f"/tournaments/{tid}/matches?{bad}")
            assert (answer.status_code, answer.json["code"]) == (422, "validation_error"), bad


@pytest.mark.timeout(180)
def test_league_fires_on_its_schedule_over_http(
    live_api: str, ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Rule: a league runs rounds on its interval (RQ scheduler), once each, and carries ratings over."""
    with random_bots(ctx.bots, 2) as bots:
        created = requests.post(
            f"{live_api}/leagues",
            json={
                "game": "trick-n-trouble",
                "seats": 3,
                "interval_s": 6,
                "deadline_ms": 2000,
                "name": "weekly",
            },
            timeout=10,
        )
        assert created.status_code == 201, created.text
        lid = created.json()["league_id"]
        for bot_id, owner_key in bots:
            no_key = requests.post(f"{live_api}/leagues/{lid}/members", json={"bot_id": bot_id}, timeout=10)
            assert no_key.status_code == 401
            joined = requests.post(
                f"{live_api}/leagues/{lid}/members",
                json={"bot_id": bot_id},
                headers={"Authorization": f"Bearer {owner_key}"},
                timeout=10,
            )
            assert joined.status_code == 200, joined.text
        assert requests.get(f"{live_api}/leagues/{lid}", timeout=10).json()["members"] == [b for b, _ in bots]
        workers.start()

        def round_finished(n: int) -> bool:
            rounds = requests.get(f"{live_api}/leagues/{lid}", timeout=10).json()["rounds"]
            if len(rounds) < n:
                return False
            info = requests.get(f"{live_api}/tournaments/{rounds[n - 1]}", timeout=10).json()
            return bool(info["status"] == "finished")

        wait_for(lambda: round_finished(1), 90, "league round 1 to fire and finish")
        carried = league_ratings(ctx, lid)
        assert set(carried) == {b for b, _ in bots}
        assert run_league_round(ctx, lid, 1) is None  # a round is created once, whoever fires it again
        wait_for(lambda: round_finished(2), 90, "league round 2 to fire and finish")
        league = requests.get(f"{live_api}/leagues/{lid}", timeout=10).json()
        assert tournament_prior(ctx, league["rounds"][1]) == carried  # round 2 starts from round 1's end
        standings = requests.get(f"{live_api}/leagues/{lid}/standings", timeout=10).json()
        assert standings["rounds"] >= 2
        assert {r["entrant"] for r in standings["rows"]} == {b for b, _ in bots}
        leaving_id, leaving_key = bots[0]
        left = requests.delete(
            f"{live_api}/leagues/{lid}/members/{leaving_id}",
            headers={"Authorization": f"Bearer {leaving_key}"},
            timeout=10,
        )
        assert left.status_code == 200 and leaving_id not in left.json()["members"]


def test_a_league_round_is_created_once_and_a_too_small_round_is_skipped(ctx: HarnessContext) -> None:
    """Rule: firing a round twice creates one tournament; too few members skip the round, not the league."""
    from harness.tournaments import create_league, get_league, join_league

    league = create_league(ctx, "tricky-teams", 4, interval_s=3600)
    lid = league["league_id"]
    with random_bots(ctx.bots, 2) as bots:
        join_league(ctx, lid, bots[0][0], bots[0][1])
        assert run_league_round(ctx, lid, 1) is None  # one member: skipped
        assert ctx.store.client.get(ctx.store.key_for("round", lid, 1)) == b"skipped:too_few_members"
        join_league(ctx, lid, bots[1][0], bots[1][1])
        first = run_league_round(ctx, lid, 2)
        again = run_league_round(ctx, lid, 2)
    assert first == f"{lid}r2" and again is None
    info = get_league(ctx, lid)
    assert info["rounds"] == [first] and info["next_round"] == 3
    assert ctx.store.tournament(first) is not None


def test_get_league_names_only_the_latest_rounds(
    ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: getLeague names at most ROUNDS_LISTED rounds, the latest, oldest first, and counts them
    all in `rounds_total`: a league that runs for months keeps a bounded answer."""
    from harness import tournaments

    league = tournaments.create_league(ctx, "tricky-teams", 4, interval_s=3600)
    lid, owner = league["league_id"], league["owner_key"]
    played = []
    with random_bots(ctx.bots, 2) as bots:
        for bot, key in bots:
            tournaments.join_league(ctx, lid, bot, key)
        for number in (1, 2, 3):
            played.append(run_league_round(ctx, lid, number))
            tournaments.cancel_tournament(ctx, f"{lid}r{number}", owner)  # the next round may start
    assert played == [f"{lid}r1", f"{lid}r2", f"{lid}r3"]
    monkeypatch.setattr(tournaments, "ROUNDS_LISTED", 2)
    info = tournaments.get_league(ctx, lid)
    assert (info["rounds"], info["rounds_total"]) == (played[1:], 3)


@pytest.mark.parametrize(
    ("schedule", "reason"),
    [
        ({"interval_s": 59}, "between 60"),
        ({"cron": "0 0 31 2 *"}, "never fires"),  # February 31st
        ({"cron": "* * * * * *"}, "1 s apart"),  # every second (six fields)
        ({"cron": "* * * * * */30"}, "30 s apart"),  # croniter's sixth field is the second
        ({"cron": "not a cron"}, "not a valid cron"),
    ],
)
def test_league_schedules_closer_than_the_minimum_or_never_firing_are_refused(
    app_client: Any, schedule: dict[str, Any], reason: str
) -> None:
    """Rule (issue 17): rounds are at least TRICKARENA_MIN_LEAGUE_INTERVAL_S (60 s) apart; a cron
    that never fires or fires more often is 422 invalid_schedule, and nothing is written."""
    answer = app_client.post("/leagues", json={"game": "tricky-teams", "seats": 4, **schedule})
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["code"] == "invalid_schedule"
    assert reason in answer.get_json()["message"]


@pytest.mark.parametrize("schedule", [{"interval_s": 60}, {"cron": "* * * * *"}, {"cron": "0 0 29 2 *"}])
def test_league_schedules_at_the_minimum_are_accepted(app_client: Any, schedule: dict[str, Any]) -> None:
    """Rule: every minute is the shortest schedule; a cron that fires once in four years is fine."""
    answer = app_client.post("/leagues", json={"game": "tricky-teams", "seats": 4, **schedule})
    assert answer.status_code == 201, answer.get_json()


def test_a_league_is_full_at_its_member_cap(ctx: HarnessContext) -> None:
    """Rule (issue 17): a league takes at most max_members (64 by default): 409 league_full."""
    league = create_league(ctx, "trick-n-trouble", 3, interval_s=3600, enqueue=False)
    lid = league["league_id"]
    ctx.store.client.hset(
        ctx.store.key_for("league", lid), "spec", json.dumps({**_spec(ctx, lid), "max_members": 1})
    )
    with random_bots(ctx.bots, 2) as bots:
        (first, key1), (second, key2) = bots
        join_league(ctx, lid, first, key1)
        join_league(ctx, lid, first, key1)  # joining again is no new member
        with pytest.raises(Conflict) as full:
            join_league(ctx, lid, second, key2)
    assert full.value.code == "league_full" and full.value.details == {"max": 1}
    assert league_members(ctx, lid) == [first]


def test_a_round_due_while_the_previous_one_plays_is_skipped(ctx: HarnessContext) -> None:
    """Rule (harness.md, Leagues): rounds never overlap; a round due while the previous round still
    plays is skipped (recorded as skipped:previous_round_running) and the league goes on."""
    league = create_league(ctx, "trick-n-trouble", 3, interval_s=3600, enqueue=False)
    lid = league["league_id"]
    with random_bots(ctx.bots, 1) as bots:
        join_league(ctx, lid, bots[0][0], bots[0][1])
        assert run_league_round(ctx, lid, 1) == f"{lid}r1"  # created, queued, not played (no worker)
        assert get_tournament(ctx, f"{lid}r1")["status"] in ("scheduled", "running")
        assert run_league_round(ctx, lid, 2) is None
    skipped = ctx.store.client.get(ctx.store.key_for("round", lid, 2))
    assert skipped == b"skipped:previous_round_running"
    assert league_rounds(ctx, lid) == [f"{lid}r1"]
    assert int(get_league(ctx, lid)["next_round"]) == 3


def _spec(ctx: HarnessContext, lid: str) -> dict[str, Any]:
    return dict(_league(ctx, lid)["spec"])


def test_entering_a_bot_needs_its_owner_key_unless_it_is_open_to_challenges(
    app_client: Any, ctx: HarnessContext, redis_url: str, key_prefix: str
) -> None:
    """Rule (issue 17): nobody makes the platform call someone else's bot: createTournament needs
    each entrant's owner key (403 entrant_not_authorized, nothing written) unless its owner has
    marked it open to challenges."""
    with random_bots(ctx.bots, 2) as bots:
        (mine, my_key), (theirs, their_key) = bots
        body = {"game": "tricky-teams", "seats": 4, "entrants": [mine, theirs], "owner_keys": [my_key]}
        refused = app_client.post("/tournaments", json=body)
        assert refused.status_code == 403, refused.json
        assert refused.json["code"] == "entrant_not_authorized"
        assert refused.json["details"] == {"bot_id": theirs}
        assert _harness_keys(redis_url, key_prefix) == []
        assert app_client.post("/tournaments", json={**body, "owner_keys": []}).status_code == 403
        opened = app_client.patch(
            f"/bots/{theirs}", json={"open": True}, headers={"Authorization": f"Bearer {their_key}"}
        )
        assert opened.status_code == 200 and opened.json["open"] is True
        assert app_client.get(f"/bots/{mine}").json["open"] is False
        accepted = app_client.post("/tournaments", json=body)
        assert accepted.status_code == 201, accepted.json
        both = app_client.post("/tournaments", json={**body, "entrants": [mine, theirs], "owner_keys": []})
        assert both.status_code == 403 and both.json["details"] == {"bot_id": mine}


def test_create_tournament_refuses_entrants_that_do_not_answer_and_says_which(
    app_client: Any, ctx: HarnessContext, redis_url: str, key_prefix: str
) -> None:
    """Rule (issue 18): createTournament asks every entrant `GET /` (signed, concurrently, 2 s
    each) before it stores anything; if any does not answer, 422 `entrants_unreachable` names each
    such bot with its fault code and what happened, and nothing is written. League rounds are not
    checked this way."""
    broken = FaultyBotServer("slow").start()
    gone = FaultyBotServer("slow").start()
    try:
        with random_bots(ctx.bots, 1) as bots:
            ((good, good_key),) = bots
            broken_id, broken_key, broken.secret = submit(
                ctx.bots, f"broken-{uuid.uuid4().hex[:6]}", broken.url
            )
            gone_id, gone_key, _ = submit(ctx.bots, f"gone-{uuid.uuid4().hex[:6]}", gone.url)
            gone.stop()
            broken.hello_status = 503
            body = {
                "game": "tricky-teams",
                "seats": 4,
                "entrants": [good, broken_id, gone_id],
                "owner_keys": [good_key, broken_key, gone_key],
            }
            started = time.monotonic()
            refused = app_client.post("/tournaments", json=body)
            assert time.monotonic() - started < 5
            assert refused.status_code == 422, refused.json
            assert refused.json["code"] == "entrants_unreachable"
            why = {u["bot_id"]: u["code"] for u in refused.json["details"]["unreachable"]}
            assert why == {broken_id: "http_status", gone_id: "connection_error"}
            assert "503" in refused.json["details"]["unreachable"][0]["message"]
            assert _harness_keys(redis_url, key_prefix) == []
            broken.hello_status = 200
            alone = app_client.post("/tournaments", json={**body, "entrants": [good, broken_id]})
            assert alone.status_code == 201, alone.json
            # A league round with a member that is down is still created (its seats fault instead).
            league = app_client.post(
                "/leagues", json={"game": "tricky-teams", "seats": 4, "interval_s": 3600}
            )
            lid = league.json["league_id"]
            join_league(ctx, lid, gone_id, gone_key)
            join_league(ctx, lid, good, good_key)
            assert run_league_round(ctx, lid, 1) == f"{lid}r1"
    finally:
        broken.stop()


def test_a_league_belongs_to_its_creator_who_can_pause_resume_reschedule_and_delete_it(
    app_client: Any, ctx: HarnessContext
) -> None:
    """Rule (issue 17): createLeague returns an owner key (shown once); with it, and only with it,
    the league is paused, resumed, renamed, rescheduled or deleted, and its rounds cancelled."""
    created = app_client.post("/leagues", json={"game": "trick-n-trouble", "seats": 3, "interval_s": 3600})
    assert created.status_code == 201, created.json
    lid, key = created.json["league_id"], created.json["owner_key"]
    assert "owner_key" not in app_client.get(f"/leagues/{lid}").json
    mine = {"Authorization": f"Bearer {key}"}
    assert app_client.patch(f"/leagues/{lid}", json={"status": "paused"}).status_code == 401
    other = app_client.patch(
        f"/leagues/{lid}", json={"status": "paused"}, headers={"Authorization": "Bearer " + "x" * 32}
    )
    assert (other.status_code, other.json["code"]) == (403, "not_owner")
    paused = app_client.patch(f"/leagues/{lid}", json={"status": "paused", "name": "weekly"}, headers=mine)
    assert paused.status_code == 200 and (paused.json["status"], paused.json["name"]) == ("paused", "weekly")
    assert run_league_round(ctx, lid, 1) is None  # a paused league plays no round
    too_often = app_client.patch(f"/leagues/{lid}", json={"interval_s": 5}, headers=mine)
    assert (too_often.status_code, too_often.json["code"]) == (422, "invalid_schedule")
    resumed = app_client.patch(
        f"/leagues/{lid}", json={"status": "active", "cron": "0 12 * * *"}, headers=mine
    )
    assert resumed.status_code == 200, resumed.json
    assert resumed.json["status"] == "active" and resumed.json["schedule"] == {"cron": "0 12 * * *"}
    assert resumed.json["next_at"].endswith("12:00:00+00:00")
    assert app_client.patch(f"/leagues/{lid}", json={}, headers=mine).status_code == 422
    deleted = app_client.delete(f"/leagues/{lid}", headers=mine)
    assert deleted.status_code == 200 and deleted.json["status"] == "deleted"
    again = app_client.patch(f"/leagues/{lid}", json={"status": "active"}, headers=mine)
    assert (again.status_code, again.json["code"]) == (409, "league_deleted")
    assert run_league_round(ctx, lid, 1) is None


def test_the_league_owner_cancels_a_league_round(app_client: Any, ctx: HarnessContext) -> None:
    """Rule (issue 17): a league round belongs to the league's owner: its key cancels the round."""
    created = app_client.post("/leagues", json={"game": "trick-n-trouble", "seats": 3, "interval_s": 3600})
    lid, key = created.json["league_id"], created.json["owner_key"]
    with random_bots(ctx.bots, 1) as bots:
        join_league(ctx, lid, bots[0][0], bots[0][1])
        tid = run_league_round(ctx, lid, 1)
        assert tid == f"{lid}r1"
        refused = app_client.post(
            f"/tournaments/{tid}/cancel", headers={"Authorization": f"Bearer {bots[0][1]}"}
        )
        assert (refused.status_code, refused.json["code"]) == (403, "not_owner")
        cancelled = app_client.post(f"/tournaments/{tid}/cancel", headers={"Authorization": f"Bearer {key}"})
        assert cancelled.status_code == 200 and cancelled.json["status"] == "cancelled"


def test_a_league_owner_adds_bots_open_to_challenges_and_their_owners_flag_turns_it_off(
    app_client: Any, ctx: HarnessContext
) -> None:
    """Rule (issue 24 §8): open to challenges means open to leagues too. The league's owner key adds a
    bot that is open (createTournament's rule, `BotRegistry.may_enter`), not one that is closed (403
    `entrant_not_authorized`: that one still needs its own owner key). The bot owner's flag turns it
    off: a bot its owner did not join plays no round once closed; the league's key takes it out."""
    created = app_client.post("/leagues", json={"game": "tricky-teams", "seats": 3, "interval_s": 3600})
    lid = created.json["league_id"]
    league_key = {"Authorization": f"Bearer {created.json['owner_key']}"}
    with random_bots(ctx.bots, 3) as bots:
        (guest, guest_key), (stays, stays_key), (closed, closed_key) = bots
        for bot_id, key in ((guest, guest_key), (stays, stays_key)):
            opened = app_client.patch(
                f"/bots/{bot_id}", json={"open": True}, headers={"Authorization": f"Bearer {key}"}
            )
            assert opened.status_code == 200 and opened.json["open"] is True
        for bot_id in (guest, stays):
            joined = app_client.post(f"/leagues/{lid}/members", json={"bot_id": bot_id}, headers=league_key)
            assert joined.status_code == 200, joined.json
        refused = app_client.post(f"/leagues/{lid}/members", json={"bot_id": closed}, headers=league_key)
        assert (refused.status_code, refused.json["code"]) == (403, "entrant_not_authorized")
        assert refused.json["details"] == {"bot_id": closed}
        assert league_members(ctx, lid) == [guest, stays]
        own = app_client.post(
            f"/leagues/{lid}/members",
            json={"bot_id": closed},
            headers={"Authorization": f"Bearer {closed_key}"},
        )
        assert own.status_code == 200 and own.json["members"] == [guest, stays, closed]
        # The guest's owner closes it: it sits out the next round, and cannot be added again.
        shut = app_client.patch(
            f"/bots/{guest}", json={"open": False}, headers={"Authorization": f"Bearer {guest_key}"}
        )
        assert shut.status_code == 200 and shut.json["open"] is False
        again = app_client.post(f"/leagues/{lid}/members", json={"bot_id": guest}, headers=league_key)
        assert (again.status_code, again.json["code"]) == (403, "entrant_not_authorized")
        tid = run_league_round(ctx, lid, 1)
        assert tid is not None
        record = ctx.store.tournament(tid)
        assert record is not None and sorted(record["spec"]["entrants"]) == sorted([stays, closed])
        # A bot its owner joined itself keeps playing whatever its flag; the league's key takes any out.
        removed = app_client.delete(f"/leagues/{lid}/members/{guest}", headers=league_key)
        assert removed.status_code == 200 and removed.json["members"] == [stays, closed]
        stranger = app_client.delete(
            f"/leagues/{lid}/members/{stays}", headers={"Authorization": f"Bearer {closed_key}"}
        )
        assert (stranger.status_code, stranger.json["code"]) == (403, "not_owner")
