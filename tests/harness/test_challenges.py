"""Challenges (issue 28): people against bots open to challenges, through the API, a real RQ worker and
real HTTP bots: the limits, the owner's off switch, the idle timeout, and what a person may read."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests
from werkzeug.serving import make_server

from api.app import create_app
from harness.challenges import bot_challenges, challenge_error
from harness.runner import HarnessContext

from .bot_servers import random_bots
from .conftest import WorkerProcs, wait_for


def _app(redis_url: str, key_prefix: str, queue_name: str, **limits: int) -> Any:
    return create_app(
        {
            "REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": key_prefix,
            "TRICKARENA_QUEUE": queue_name,
            "TRICKARENA_CHALLENGE_LIMITS": limits,
        }
    )


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """The API over real HTTP on a loopback port."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def live_api(redis_url: str, key_prefix: str, queue_name: str) -> Iterator[str]:
    """The API over real HTTP with the default challenge limits."""
    with serve(_app(redis_url, key_prefix, queue_name)) as url:
        yield url


def _private_leaks(events: list[dict[str, Any]], reader: int) -> list[dict[str, Any]]:
    return [
        r
        for r in events
        if r["event"].get("private") is not None and reader not in r["event"]["private"].get("seats", [])
    ]


def _check_person_view(api: str, game_id: str, token: str, seat: int) -> dict[str, Any]:
    """What the person reads is exactly its seat's view: no other hand, no other loot, no private event."""
    headers = {"Authorization": f"Bearer {token}"}
    game: dict[str, Any] = requests.get(f"{api}/games/{game_id}", headers=headers, timeout=10).json()
    if game["status"] == "finished":
        return game
    view = game["view"]
    assert game["seat"] == seat and view["seat"] == seat
    assert "hands" not in view
    if view["game"] == "tricky-teams":
        for player in view["players"]:
            if player["seat"] != seat:
                assert "loot" not in player and player.get("hand") is None
    events = requests.get(f"{api}/games/{game_id}/events", headers=headers, timeout=10).json()["events"]
    assert _private_leaks(events, seat) == []
    for record in events:
        event = record["event"]
        if event["type"] == "card-played" and event.get("face_down") and event["seat"] != seat:
            assert event["card"] is None
    return game


def _play_person(api: str, game_id: str, token: str, seat: int, timeout_s: float = 120) -> None:
    """The person plays the first legal move whenever it is their turn, until the game is over."""
    headers = {"Authorization": f"Bearer {token}"}
    state: dict[str, Any] = {}

    def step() -> bool:
        game = _check_person_view(api, game_id, token, seat)
        state["game"] = game
        if game["status"] == "finished":
            return True
        legal = game["view"]["legal_moves"]
        if legal:
            answer = requests.post(
                f"{api}/games/{game_id}/moves",
                json=legal[0],
                headers={**headers, "If-Match": f'"{game["version"]}"'},
                timeout=10,
            )
            assert answer.status_code in (200, 409, 412), answer.text
        return False

    wait_for(step, timeout_s, "the challenge game to finish", poll=0.05)


def test_bots_seats_played_by_a_worker_people_by_their_tokens(
    live_api: str, ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Issue 28: createChallenge seats a person against open bots (by name); a real worker plays the
    bots over HTTP through the runner; the person moves with the seat token and reads only its own
    seat's view; getChallenge shows answer times and the result, unrated; the bot's page lists it."""
    with random_bots(ctx.bots, 2) as bots:
        for bot_id, key in bots:
            ctx.bots.update(bot_id, key, open_to_challenges=True)
        names = [ctx.bots.record(b).name for b, _ in bots]
        workers.start(scheduler=False)
        for game, seats, options in (("trick-n-trouble", 3, {}), ("tricky-teams", 3, {"raids": 1})):
            answer = requests.post(
                f"{live_api}/challenges",
                json={"game": game, "seats": seats, "people": [1], "bots": names, "options": options},
                timeout=30,
            )
            assert answer.status_code == 201, answer.text
            created = answer.json()
            assert [t["seat"] for t in created["tokens"]] == [1] and created["rated"] is False
            assert [p["kind"] for p in created["players"]] == ["bot", "person", "bot"]
            _play_person(live_api, created["game_id"], created["tokens"][0]["token"], 1)
            cid = created["challenge_id"]

            def recorded(cid: str = cid) -> bool:
                status: str = requests.get(f"{live_api}/challenges/{cid}", timeout=10).json()["status"]
                return status == "finished"

            wait_for(
                recorded,
                30,
                "the challenge to be recorded",
            )
            done = requests.get(f"{live_api}/challenges/{cid}", timeout=10).json()
            assert "tokens" not in done and done["result"]["scores"]
            for player in done["players"]:
                assert player["moves"] > 0 and player["mean_ms"] is not None
                assert player["idle_timeouts"] == 0
            assert done["players"][0]["name"] == names[0]
            listed = bot_challenges(ctx, bots[0][0])
            assert cid in [c["challenge_id"] for c in listed]


def test_absent_person_gets_the_fallback_after_the_idle_timeout(
    redis_url: str, key_prefix: str, queue_name: str, ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Issue 28: a person who does not move within the idle timeout gets the fallback move; after
    three in a row the seat is absent and the game plays to its end without waiting."""
    app = _app(redis_url, key_prefix, queue_name, idle_s=1)
    with random_bots(ctx.bots, 1) as bots, serve(app) as live_api:
        ctx.bots.update(bots[0][0], bots[0][1], open_to_challenges=True)
        workers.start(scheduler=False)
        answer = requests.post(
            f"{live_api}/challenges",
            json={
                "game": "tricky-teams",
                "seats": 3,
                "people": [0],
                "bots": [bots[0][0]] * 2,
                "options": {"raids": 1},
            },
            timeout=30,
        )
        assert answer.status_code == 201, answer.text
        cid = answer.json()["challenge_id"]
        wait_for(
            lambda: requests.get(f"{live_api}/challenges/{cid}", timeout=10).json()["status"] == "finished",
            60,
            "the challenge to finish without its person",
        )
        done = requests.get(f"{live_api}/challenges/{cid}", timeout=10).json()
        person = done["players"][0]
        assert person["idle_timeouts"] > 0 and person["moves"] == 0
        assert done["idle_s"] == 1


def test_limits_and_the_owners_off_switch(
    redis_url: str, key_prefix: str, queue_name: str, ctx: HarnessContext
) -> None:
    """Issue 28 / docs/operations.md Limits: a closed bot is refused without its owner key (403
    challenges_off); in-flight caps per person (address) and per bot, and the hourly caps per
    address and per owner key, answer 429 with Retry-After; bad seats 422, unknown bots 404."""
    app = _app(
        redis_url, key_prefix, queue_name, per_person=1, per_bot=2, per_address_per_hour=3, per_key_per_hour=1
    )
    with random_bots(ctx.bots, 2) as bots:
        (open_id, open_key), (closed_id, closed_key) = bots
        ctx.bots.update(open_id, open_key, open_to_challenges=True)
        ctx.bots.update(closed_id, closed_key, open_to_challenges=False)

        def post(address: str, **body: Any) -> Any:
            client = app.test_client()
            return client.post(
                "/challenges",
                json={"game": "tricky-teams", "seats": 3, **body},
                environ_base={"REMOTE_ADDR": address},
            )

        answer = post("10.0.0.1", bots=[closed_id, open_id])
        assert answer.status_code == 403 and answer.get_json()["code"] == "challenges_off"
        assert post("10.0.0.1", bots=["no-such-bot", open_id]).status_code == 404
        answer = post("10.0.0.1", bots=[open_id])
        assert answer.status_code == 422 and answer.get_json()["code"] == "invalid_seats"
        answer = post("10.0.0.1", bots=[open_id, open_id], people=[3])
        assert answer.status_code == 422
        # With its owner key a closed bot plays (the key counts toward its own hourly cap).
        answer = post("10.0.0.2", bots=[closed_id, closed_id], owner_keys=[closed_key])
        assert answer.status_code == 201, answer.get_json()
        answer = post("10.0.0.3", bots=[closed_id, open_id], owner_keys=[closed_key])
        assert answer.status_code == 429 and answer.get_json()["details"]["per"] == "owner key"
        # One challenge in flight per person (address).
        assert post("10.0.0.4", bots=[open_id, open_id]).status_code == 201
        answer = post("10.0.0.4", bots=[open_id, open_id])
        assert answer.status_code == 429 and answer.get_json()["code"] == "too_many_challenges"
        assert int(answer.headers["Retry-After"]) > 0
        # Two in flight per bot: the open bot plays at 10.0.0.4 and (now) 10.0.0.5.
        assert post("10.0.0.5", bots=[open_id, open_id]).status_code == 201
        answer = post("10.0.0.6", bots=[open_id, open_id])
        assert answer.status_code == 429 and answer.get_json()["code"] == "bot_busy"
        # Three an hour per address, refused ones included: 10.0.0.4 made two, a third is refused
        # by the in-flight cap, the fourth by the hourly one.
        assert post("10.0.0.4", bots=[open_id, open_id]).status_code == 429
        answer = post("10.0.0.4", bots=[open_id, open_id])
        assert answer.status_code == 429 and answer.get_json()["code"] == "rate_limited"


def test_a_challenge_resumes_on_another_worker_after_its_worker_dies(
    live_api: str, ctx: HarnessContext, workers: WorkerProcs
) -> None:
    """Issue 28 / docs/harness.md Challenges: a challenge's run is a MatchRun (lease, WAL, resume): its
    worker killed while it waits for the person, RQ retries the job on another worker, which resumes
    the same game once the dead run's lease expires and plays the bots' seats to the end."""
    with random_bots(ctx.bots, 1) as bots:
        ctx.bots.update(bots[0][0], bots[0][1], open_to_challenges=True)
        first = workers.start(scheduler=False)
        answer = requests.post(
            f"{live_api}/challenges",
            json={"game": "trick-n-trouble", "seats": 3, "people": [0], "bots": [bots[0][0]] * 2},
            timeout=30,
        )
        assert answer.status_code == 201, answer.text
        created = answer.json()
        cid = created["challenge_id"]
        lease = ctx.store.key_for("lease", cid, 0)
        wait_for(lambda: bool(ctx.store.client.exists(lease)), 30, "the first worker to take the challenge")
        workers.sigkill(first)
        workers.start(scheduler=False)
        _play_person(live_api, created["game_id"], created["tokens"][0]["token"], 0, timeout_s=180)
        wait_for(
            lambda: requests.get(f"{live_api}/challenges/{cid}", timeout=10).json()["status"] == "finished",
            60,
            "the resumed challenge to be recorded",
        )
        done = requests.get(f"{live_api}/challenges/{cid}", timeout=10).json()
        assert done["result"] is not None and all(p["moves"] > 0 for p in done["players"][1:])


def test_a_challenge_whose_run_fails_for_good_is_marked_and_frees_its_slots(
    redis_url: str, key_prefix: str, queue_name: str, ctx: HarnessContext
) -> None:
    """Issue 28 / docs/operations.md Limits: when a challenge's job has no retries left
    (`harness.jobs.challenge_failed`), the challenge reads `error` with the reason and its in-flight
    slots are freed at once (the person may start another)."""
    app = _app(redis_url, key_prefix, queue_name, per_person=1)
    with random_bots(ctx.bots, 1) as bots:
        ctx.bots.update(bots[0][0], bots[0][1], open_to_challenges=True)
        client = app.test_client()
        body = {"game": "tricky-teams", "seats": 3, "bots": [bots[0][0]] * 2}
        first = client.post("/challenges", json=body)
        assert first.status_code == 201
        assert client.post("/challenges", json=body).get_json()["code"] == "too_many_challenges"
        challenge_error(ctx, first.get_json()["challenge_id"], "RuntimeError: boom")
        failed = client.get(f"/challenges/{first.get_json()['challenge_id']}").get_json()
        assert failed["status"] == "error" and failed["error"] == "RuntimeError: boom"
        assert client.post("/challenges", json=body).status_code == 201


def test_an_unknown_bot_is_a_404_whose_details_the_spec_describes(
    redis_url: str, key_prefix: str, queue_name: str
) -> None:
    """Rule (docs/api.md, errors): createChallenge naming no bot answers 404 `bot_not_found` with
    `details.bot` (the id or name asked for), a field of the spec's ErrorDetails (schemathesis found
    the answer outside the schema, which allows no other field)."""
    app = _app(redis_url, key_prefix, queue_name)
    answer = app.test_client().post(
        "/challenges", json={"game": "tricky-teams", "bots": ["[", "x"], "seats": 3}
    )
    assert answer.status_code == 404
    body = answer.get_json()
    assert body["code"] == "bot_not_found" and body["details"] == {"bot": "["}
    spec = app.test_client().get("/openapi.json").get_json()
    assert set(body["details"]) <= set(spec["components"]["schemas"]["ErrorDetails"]["properties"])
