"""Any game's players, wherever it is opened (issue 24, item 2): getGamePlayers names each seat's bot
with its faults, reasons and latencies (withheld from non-owners while the tournament is live), the
owner of a seated bot watches its seat live (getGameSeatView), spectators keep the sealed rule, and
streamGamePlayers tells of every change. Real RQ workers, real HTTP bots on loopback, real Redis."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament, list_matches
from tests.api.conftest import create, play_out, tokens_of

from .bot_servers import delayed_bots, owned_faulty_bot
from .conftest import wait_for


def _auth(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def _players(client: FlaskClient, gid: str, key: str | None = None) -> dict[str, Any]:
    answer = client.get(f"/games/{gid}/players", headers=_auth(key))
    assert answer.status_code == 200, answer.get_json()
    body: dict[str, Any] = answer.get_json()
    return body


def _sse(client: FlaskClient, url: str) -> list[tuple[str, Any]]:
    """(event, data) of every message of a stream until the server closes it."""
    answer = client.get(url, buffered=False)
    assert answer.status_code == 200, answer.get_data()
    assert answer.headers["Content-Type"].startswith("text/event-stream")
    text = b"".join(answer.response).decode()  # type: ignore[arg-type]
    answer.close()
    out = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != ":")
        if "data" in lines:
            out.append((lines.get("event", "message"), json.loads(lines["data"])))
    return out


@pytest.mark.timeout(180)
def test_any_game_names_its_players_faults_and_latencies_and_owners_watch_their_seat(
    ctx: HarnessContext, workers: Any, redis_url: str, key_prefix: str, queue_name: str
) -> None:
    """Rule (#24 item 2): a match's game id alone finds its tournament, match and seats' bots (the
    `g:<gid>:match` pointer); while the tournament is live anyone reads the names, only the owner of
    a seated bot its faults and latencies, the owner reads that seat's view (and no other seat's),
    a spectator still gets 409 `game_sealed`; once it has ended everyone reads faults with reasons
    in plain words and latencies; the players stream sends each change and ends when watchable."""
    app = create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    )
    client = app.test_client()
    # The flaky bot answers 500 to every third request.
    with (
        owned_faulty_bot(ctx.bots, "flaky", f"flaky-{key_prefix[-7:-1]}") as (flaky_id, flaky_owner),
        delayed_bots(ctx.bots, 3, 0.03, "steady") as steady,
    ):
        workers.start()
        info = create_tournament(
            ctx, "tricky-teams", 4, [flaky_id, *steady], deals=1, deadline_ms=2000, seed=3, max_tables=1
        )
        tid = info["tournament_id"]
        wait_for(lambda: list_matches(ctx, tid, 0, 1)[0]["game_id"] is not None, 60, "match 0's game")
        match = list_matches(ctx, tid, 0, 1)[0]
        gid, seats = match["game_id"], match["seats"]
        mine = seats.index(flaky_id)
        assert ctx.store.game_match(gid) == (tid, 0)

        # Live, anyone: names and where the game belongs; no faults, latencies or decisions.
        public = _players(client, gid)
        assert public["source"] == "tournament" and public["tournament_id"] == tid
        assert public["match_index"] == 0 and public["sealed"] and public["withheld"]
        assert [p["bot_id"] for p in public["players"]] == seats
        assert public["players"][mine]["name"].startswith("flaky-")
        assert all(p["faults"] is None and p["latency"] is None for p in public["players"])
        assert not any(p["yours"] for p in public["players"]) and public["decisions"] == []
        # The spectators' rule is kept: the game itself stays sealed while the tournament runs.
        sealed = client.get(f"/games/{gid}")
        assert sealed.status_code == 409 and sealed.get_json()["code"] == "game_sealed"
        # The flaky bot's owner: its seat marked, every seat's tallies and answer times.
        owned = _players(client, gid, flaky_owner)
        assert [p["yours"] for p in owned["players"]] == [s == mine for s in range(4)]
        assert not owned["withheld"] and all(p["latency"] is not None for p in owned["players"])
        # A key that owns nothing here reads what anyone reads (no 403 on a page that keeps a key).
        assert _players(client, gid, "not-a-key")["withheld"]

        # The owner watches its bot's seat live: exactly that seat's view, no other seat's.
        view = client.get(f"/games/{gid}/seats/{mine}/view", headers=_auth(flaky_owner))
        assert view.status_code == 200, view.get_json()
        assert view.get_json()["seat"] == mine and "hand" in view.get_json()["view"]
        other = client.get(f"/games/{gid}/seats/{(mine + 1) % 4}/view", headers=_auth(flaky_owner))
        assert other.status_code == 403 and other.get_json()["code"] == "not_owner"
        assert client.get(f"/games/{gid}/seats/{mine}/view").get_json()["code"] == "missing_token"
        nine = client.get(f"/games/{gid}/seats/9/view", headers=_auth(flaky_owner))
        assert nine.status_code == 404 and nine.get_json()["code"] == "seat_not_found"

        # The stream: the public document at once, again at each move, until its timeout.
        live = _sse(client, f"/games/{gid}/players/stream?timeout=2")
        versions = [d["version"] for e, d in live if e == "players"]
        assert len(versions) >= 2 and versions == sorted(versions), versions
        assert all(d["withheld"] for e, d in live if e == "players")
        assert live[-1] == ("end", {"reason": "timeout"}) or live[-1][1]["version"] > versions[0]

        wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 120, "the tournament's end")

    # Ended: everyone reads faults, their reasons in plain words, and latencies.
    done = _players(client, gid)
    assert done["status"] == "finished" and not done["sealed"] and not done["withheld"]
    flaky_seat = done["players"][mine]
    assert flaky_seat["faults"]["total"] > 0 and flaky_seat["faults"]["by_code"] == {
        "http_status": flaky_seat["faults"]["total"]
    }
    assert flaky_seat["reasons"] and "answered 500" in flaky_seat["reasons"][0]
    for p in done["players"]:
        assert p["latency"]["timed"] > 0 and p["latency"]["max_ms"] >= p["latency"]["median_ms"] >= 0
    assert client.get(f"/games/{gid}").status_code == 200
    ended = _sse(client, f"/games/{gid}/players/stream?timeout=5")
    assert [e for e, _ in ended] == ["players", "end"] and ended[-1][1] == {"reason": "finished"}

    # A game of no match: numbered seats, no seat view for an owner key.
    other_game = client.post("/games", json={"game": "trick-n-trouble", "seats": 3}).get_json()["game_id"]
    plain = _players(client, other_game)
    assert plain["source"] == "game" and [p["name"] for p in plain["players"]] == [
        "Seat 0",
        "Seat 1",
        "Seat 2",
    ]
    refused = client.get(f"/games/{other_game}/seats/0/view", headers=_auth(flaky_owner))
    assert refused.status_code == 404 and refused.get_json()["code"] == "not_a_match_game"
    assert client.get("/games/g-nosuchgame/players").status_code == 404


def test_an_uploaded_replay_file_is_read_with_its_names_and_faults_or_refused(
    redis_url: str, key_prefix: str, queue_name: str
) -> None:
    """Rule (#24 item 2): the viewer's upload (`POST /web/data/replays`) reads a replay file as
    `trickarena play` writes it: the game, its frames, the file's seat names with the author's seat
    marked and each seat's faults (reasons in plain words) and answer times from its decisions, the
    bots' own answers (`detail`) dropped; a file that is not a replay, or a seat the game has not,
    is refused with 422 (`bad_replay`), nothing stored."""
    app = create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    )
    client = app.test_client()
    created = create(client, "trick-n-trouble", 3, seed=8)
    play_out([client], created["game_id"], tokens_of(created), random.Random(8))
    replay = client.get(f"/games/{created['game_id']}/replay").get_json()
    decisions = [
        {"seat": 0, "version": 2, "latency_ms": 2100, "outcome": "timeout", "fallback": True, "status": None,
         "detail": "my hand was red-7"},
        {"seat": 1, "version": 3, "latency_ms": 12, "outcome": "ok", "fallback": False, "status": None},
    ]  # fmt: skip
    body = {**replay, "players": ["slow", "you(1)", "random"], "your_seat": 1, "decisions": decisions}
    answer = client.post("/web/data/replays?seat=1", data=json.dumps(body), content_type="application/json")
    assert answer.status_code == 200, answer.get_json()
    assert "red-7" not in answer.get_data(as_text=True)
    doc = answer.get_json()
    assert doc["game"]["status"] == "finished" and len(doc["frames"]["frames"]) == len(replay["actions"]) + 1
    players = doc["players"]["players"]
    assert [p["name"] for p in players] == ["slow", "you(1)", "random"]
    assert [p["yours"] for p in players] == [False, True, False]
    assert players[0]["reasons"] == [
        "1 timed out: is the bot slow, blocked, or answering after its deadline_ms?"
    ]
    assert players[1]["latency"] == {"timed": 1, "mean_ms": 12, "median_ms": 12, "max_ms": 12}
    for bad, code in (({"game": "chess"}, "bad_replay"), ({**body, "actions": [{"seat": 9}]}, "bad_replay")):
        refused = client.post("/web/data/replays", json=bad)
        assert refused.status_code == 422 and refused.get_json()["code"] == code
    assert client.post("/web/data/replays?seat=7", json=body).status_code == 422
