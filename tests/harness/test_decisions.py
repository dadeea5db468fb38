"""Per-decision records end to end (issue 18, "see why"): real RQ workers, real HTTP bots on loopback,
the match detail and the standings read through the API."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from api.app import create_app
from bots.bundled import make_bot
from bots.sdk import BotServer
from harness.faults import describe, fault_flag, fault_reason
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament

from .bot_servers import FaultyBotServer, random_bots, submit

DEADLINE_MS = 1000


def _auth(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def _detail(client: Any, tid: str, index: int, key: str | None = None) -> dict[str, Any]:
    answer = client.get(f"/tournaments/{tid}/matches/{index}", headers=_auth(key))
    assert answer.status_code == 200, answer.get_json()
    body: dict[str, Any] = answer.get_json()
    return body


def _of(detail: dict[str, Any], bot_id: str) -> list[dict[str, Any]]:
    return [d for d in detail["decisions"] if d["bot_id"] == bot_id]


@pytest.mark.timeout(240)
def test_decisions_show_why_a_bot_faulted_to_its_owner_only_and_flag_it(
    ctx: HarnessContext, workers: Any, redis_url: str, key_prefix: str, queue_name: str
) -> None:
    """Rule: every bot call leaves a decision record (seat, bot, game version, latency, outcome,
    fallback); a bot with a wrong secret shows its 401 answer to its owner only (to the tournament
    owner after the end, never before), a timing-out bot shows `timeout`, fallback moves are marked,
    and a bot faulting on most calls is flagged in the standings with the reason in plain words."""
    app = create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    )
    client = app.test_client()
    tag = uuid.uuid4().hex[:6]
    # The SDK's random bot, run with a secret that is not the one the platform signs with.
    wrong = BotServer(make_bot("random"), "not-the-secret").start()
    hang = FaultyBotServer("hang").start()
    try:
        wrong_id, wrong_owner, _secret = submit(ctx.bots, f"wrongsecret-{tag}", wrong.url)
        hang_id, _hang_owner, hang_secret = submit(ctx.bots, f"hang-{tag}", hang.url)
        hang.secret = hang_secret
        with random_bots(ctx.bots, 2, prefix=f"good{tag}") as good:
            (good_id, good_owner), (other_id, _) = good
            ids = [wrong_id, hang_id, good_id, other_id]
            workers.start()
            info = create_tournament(
                ctx, "tricky-teams", 4, ids, deals=1, deadline_ms=DEADLINE_MS, time_bank_ms=0, seed=5
            )
            tid, t_owner = info["tournament_id"], info["owner_key"]
            total = info["progress"]["total"]

            # Live: a fault's record is stored with its write-ahead record, at once.
            seen_live = False
            deadline = time.monotonic() + 120
            while get_tournament(ctx, tid)["status"] != "finished":
                assert time.monotonic() < deadline, "the tournament did not finish"
                mine = _detail(client, tid, 0, wrong_owner)
                if mine["sealed"] and any(d["status"] == 401 for d in mine["decisions"]):
                    # Sealed: the seated bot's owner reads what its bot said; nobody else's words.
                    assert mine["details_shown"] == [wrong_id] and not mine["withheld"]
                    assert any("bad_signature" in (d["detail"] or "") for d in _of(mine, wrong_id))
                    assert all(d["detail"] is None for d in mine["decisions"] if d["bot_id"] != wrong_id)
                    # Neither the tournament's owner nor anyone without a seated bot reads the live
                    # decisions or tallies: their order hints at the deal played at other tables.
                    for outsider in (_detail(client, tid, 0, t_owner), _detail(client, tid, 0)):
                        assert outsider["sealed"] and outsider["withheld"]
                        assert outsider["decisions"] == [] and outsider["details_shown"] == []
                        assert all(s["faults"] is None for s in outsider["seats"])
                    seen_live = True
                time.sleep(0.05)
            assert seen_live, "no fault record was readable while the tournament ran"
    finally:
        wrong.stop()
        hang.stop()

    for index in range(total):
        anyone = _detail(client, tid, index)
        assert anyone["status"] == "finished" and not anyone["sealed"]
        names = {s["bot_id"]: s["name"] for s in anyone["seats"]}
        assert names[wrong_id] == f"wrongsecret-{tag}" and names[hang_id] == f"hang-{tag}"
        game = ctx.service.load(anyone["game_id"])
        actions = game.state["actions"]
        # One record per move of the game, in order, with the version the move made.
        assert len(anyone["decisions"]) == len(actions)
        for d, action in zip(anyone["decisions"], actions, strict=True):
            assert d["seat"] == action["seat"]
            assert d["bot_id"] == anyone["seats"][d["seat"]]["bot_id"]
        assert [d["version"] for d in anyone["decisions"]] == list(range(2, len(actions) + 2))
        # The wrong secret: 401 on every call it was asked (threshold 3: four), then not asked.
        wrong_calls = _of(anyone, wrong_id)
        asked = [d for d in wrong_calls if d["outcome"] != "not_asked"]
        assert len(asked) == 4
        assert all(d["outcome"] == "http_status" and d["status"] == 401 and d["fallback"] for d in asked)
        assert all(
            d["fallback"] and d["latency_ms"] is None for d in wrong_calls if d["outcome"] == "not_asked"
        )
        assert all(d["detail"] is None for d in anyone["decisions"])  # no key: no bot's words
        # The hanging bot: timeouts, each past the deadline, replaced by fallbacks.
        hangs = [d for d in _of(anyone, hang_id) if d["outcome"] != "not_asked"]
        assert len(hangs) == 4
        assert all(d["outcome"] == "timeout" and d["status"] is None and d["fallback"] for d in hangs)
        assert all(d["latency_ms"] >= DEADLINE_MS - 50 for d in hangs)
        # The good bots: their own moves, with their latency.
        for d in _of(anyone, good_id) + _of(anyone, other_id):
            assert d["outcome"] == "ok" and not d["fallback"] and isinstance(d["latency_ms"], int)
        seat_of = {s["bot_id"]: s for s in anyone["seats"]}
        assert seat_of[wrong_id]["faults"]["by_reason"] == {"http_status:401:bad_signature": 4}
        assert (
            seat_of[wrong_id]["faults"]["flag"]["reason"]
            == "every request answered 401 bad_signature: is the secret right?"
        )
        assert seat_of[good_id]["faults"]["flag"] is None

        # The bot's owner reads its answers, and only its own bot's.
        mine = _detail(client, tid, index, wrong_owner)
        assert mine["details_shown"] == [wrong_id]
        bodies = [d["detail"] for d in _of(mine, wrong_id) if d["status"] == 401]
        assert len(bodies) == 4 and all('"code":"bad_signature"' in b.replace(" ", "") for b in bodies)
        assert all(d["detail"] is None for d in _of(mine, hang_id))
        # Another owner's key shows nothing of the wrong-secret bot.
        theirs = _detail(client, tid, index, good_owner)
        assert theirs["details_shown"] == [good_id]
        assert all(d["detail"] is None for d in _of(theirs, wrong_id))
        # After the end, the tournament's owner reads every bot's answers (the timeout's text too).
        owner = _detail(client, tid, index, t_owner)
        assert set(owner["details_shown"]) == set(ids)
        assert all("bad_signature" in d["detail"] for d in _of(owner, wrong_id) if d["status"] == 401)
        assert all(d["detail"] for d in _of(owner, hang_id) if d["outcome"] == "timeout")

    # Keys and indices that do not fit: clear 4xx answers.
    stranger = client.get(f"/tournaments/{tid}/matches/0", headers=_auth("not-a-key-of-anything"))
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "not_owner"
    missing = client.get(f"/tournaments/{tid}/matches/{total}")
    assert missing.status_code == 404 and missing.get_json()["code"] == "match_not_found"
    unknown = client.get("/tournaments/0123456789abcdef/matches/0")
    assert unknown.status_code == 404 and unknown.get_json()["code"] == "tournament_not_found"
    bad_auth = client.get(f"/tournaments/{tid}/matches/0", headers={"Authorization": "Basic x"})
    assert bad_auth.status_code == 401 and bad_auth.get_json()["code"] == "invalid_authorization"

    # The standings flag the two faulting bots, with their dominant fault in plain words.
    rows = {r["entrant"]: r for r in client.get(f"/tournaments/{tid}/standings").get_json()["rows"]}
    assert rows[wrong_id]["flag"] == {
        "reason": "every request answered 401 bad_signature: is the secret right?",
        "fault": "http_status:401:bad_signature",
        "share": 1.0,
    }
    assert rows[hang_id]["flag"]["fault"] == "timeout"
    assert rows[hang_id]["flag"]["reason"].startswith("every request timed out: ")
    assert rows[good_id]["flag"] is None and rows[other_id]["flag"] is None


def test_fault_reasons_read_as_plain_advice() -> None:
    """Rule: one function maps a fault reason to plain words; a bot is flagged only when more than
    half of its calls faulted, by its dominant reason."""
    body = '{"code": "bad_signature", "message": "signature does not match the body"}'
    assert fault_reason("http_status", 401, body) == "http_status:401:bad_signature"
    assert fault_reason("http_status", 500, "<html>") == "http_status:500"
    assert fault_reason("timeout", None, "no answer") == "timeout"
    assert describe("http_status:401:bad_signature") == ("answered 401 bad_signature", "is the secret right?")
    assert describe("connection_error")[1] == "is the bot running and reachable at its URL?"
    assert fault_flag(10, 5, {"timeout": 5}) is None  # half is not most
    flag = fault_flag(10, 6, {"timeout": 2, "illegal_move": 4})
    assert flag is not None and flag["fault"] == "illegal_move"
    assert (
        flag["reason"]
        == "4 of 10 requests answered a move that is not legal: answer one of legal_moves, unchanged"
    )
