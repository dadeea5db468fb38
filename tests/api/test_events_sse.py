"""Events: the log since a version, and the same as server-sent events with Last-Event-ID resumption."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import requests
from flask.testing import FlaskClient

from tests.api.conftest import LiveServer, auth, create, play_out, tokens_of


def _read_sse(response: requests.Response) -> list[tuple[str, str | None, Any]]:
    """(event name, id, data) of every message until the server closes the stream."""
    out: list[tuple[str, str | None, Any]] = []
    name, ident, data = "message", None, list[str]()
    for line in response.iter_lines(decode_unicode=True):
        assert isinstance(line, str)  # decoded: text/event-stream has an encoding
        if line == "":
            if data:
                out.append((name, ident, json.loads("\n".join(data))))
            name, ident, data = "message", None, []
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("id: "):
            ident = line[4:]
        elif line.startswith("data: "):
            data.append(line[6:])
    return out


def test_events_since_a_version(client: FlaskClient) -> None:
    """Rule: getGameEvents returns exactly the events of versions above `since`, oldest first."""
    created = create(client, "trick-n-trouble", 3, seed=8)
    game_id = created["game_id"]
    final = play_out([client], game_id, tokens_of(created), random.Random(8))
    everything = client.get(f"/games/{game_id}/events").get_json()["events"]
    assert [e["version"] for e in everything] == sorted(e["version"] for e in everything)
    assert everything[-1]["version"] == final["version"]
    later = client.get(f"/games/{game_id}/events?since=10").get_json()["events"]
    assert later == [e for e in everything if e["version"] > 10]


def test_stream_of_a_finished_game_replays_then_ends(live_server: LiveServer, client: FlaskClient) -> None:
    """Rule: the stream sends every event with its id, then an `end` event when the game is over."""
    created = create(client, "trick-n-trouble", 3, seed=6)
    game_id = created["game_id"]
    play_out([client], game_id, tokens_of(created), random.Random(6))
    expected = client.get(f"/games/{game_id}/events").get_json()["events"]
    with requests.get(
        f"{live_server.url}/games/{game_id}/events/stream", stream=True, timeout=10
    ) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        messages = _read_sse(response)
    assert [m[2] for m in messages if m[0] == "game-event"] == expected
    assert [m[1] for m in messages if m[0] == "game-event"] == [e["id"] for e in expected]
    assert messages[-1][0] == "end" and messages[-1][2]["reason"] == "finished"
    # Resume after the fifth event: the stream starts with the sixth.
    resume = expected[4]["id"]
    headers = {"Last-Event-ID": resume}
    url = f"{live_server.url}/games/{game_id}/events/stream"
    with requests.get(url, headers=headers, stream=True, timeout=10) as response:
        resumed = [m[2] for m in _read_sse(response) if m[0] == "game-event"]
    assert resumed == expected[5:]


def test_live_stream_delivers_new_moves_and_ends_by_itself(
    live_server: LiveServer, client: FlaskClient
) -> None:
    """Rule: a live reader gets each move's events; the stream closes after its timeout."""
    created = create(client, "tricky-teams", 4, seed=2)
    game_id, tokens = created["game_id"], tokens_of(created)

    def move_soon() -> None:
        time.sleep(0.5)
        seat = client.get(f"/games/{game_id}").get_json()["view"]["to_move"][0]
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()[
            "legal_moves"
        ]
        assert (
            client.post(f"/games/{game_id}/moves", json=legal[0], headers=auth(tokens[seat])).status_code
            == 200
        )

    mover = threading.Thread(target=move_soon)
    started = time.monotonic()
    url = f"{live_server.url}/games/{game_id}/events/stream?timeout=2"
    with requests.get(url, stream=True, timeout=10) as response:
        mover.start()
        messages = _read_sse(response)
    mover.join()
    elapsed = time.monotonic() - started
    events = [m for m in messages if m[0] == "game-event"]
    # First the setup already in the log (version 1), then the move made while listening.
    assert [m[2]["version"] for m in events] == [1] * 5 + [2] * (len(events) - 5) and len(events) > 5
    assert messages[-1][0] == "end" and messages[-1][2]["reason"] == "timeout"
    assert 1.5 < elapsed < 6, "the stream lives about `timeout` seconds, never forever"


def test_stream_is_redacted_per_reader(live_server: LiveServer, client: FlaskClient) -> None:
    """Rule: the stream applies the same view rules: private parts only for the seats they belong to."""
    created = create(client, "tricky-teams", 3, seed=12, options={"raids": 1})
    game_id, tokens = created["game_id"], tokens_of(created)
    rng = random.Random(12)
    for _ in range(25):
        seat = client.get(f"/games/{game_id}").get_json()["view"]["to_move"][0]
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()[
            "legal_moves"
        ]
        client.post(f"/games/{game_id}/moves", json=rng.choice(legal), headers=auth(tokens[seat]))
    url = f"{live_server.url}/games/{game_id}/events/stream?timeout=0"
    for reader in [None, 0, 1, 2]:
        headers = auth(tokens[reader]) if reader is not None else {}
        with requests.get(url, headers=headers, stream=True, timeout=10) as response:
            events = [m[2]["event"] for m in _read_sse(response) if m[0] == "game-event"]
        for event in events:
            if "private" in event:
                assert reader in event["private"]["seats"]
    assert requests.get(url, headers=auth("bad"), timeout=10).status_code == 403


def test_stream_ends_promptly_when_the_game_ends_meanwhile(
    live_server: LiveServer, client: FlaskClient
) -> None:
    """Rule: a reader blocked on a live game sees its last events and `end: finished` when it ends."""
    created = create(client, "trick-n-trouble", 3, seed=31)
    game_id, tokens = created["game_id"], tokens_of(created)
    rng = random.Random(31)

    def finish() -> None:
        time.sleep(0.5)
        play_out([client], game_id, tokens, rng)

    finisher = threading.Thread(target=finish)
    url = f"{live_server.url}/games/{game_id}/events/stream?timeout=30"
    started = time.monotonic()
    with requests.get(url, stream=True, timeout=40) as response:
        finisher.start()
        messages = _read_sse(response)
    finisher.join()
    assert messages[-1][0] == "end" and messages[-1][2]["reason"] == "finished"
    expected = client.get(f"/games/{game_id}/events").get_json()["events"]
    # Same events in the same order; those sent while the game was live were redacted then.
    assert [m[2]["id"] for m in messages if m[0] == "game-event"] == [e["id"] for e in expected]
    assert time.monotonic() - started < 25, "the end is noticed well before the stream's timeout"


def test_the_log_starts_at_creation_with_the_setup_events(client: FlaskClient) -> None:
    """Rule: version 1 carries the setup (first deal); a seat's own dealt hand is only in its log."""
    created = create(client, "tricky-teams", 4, seed=21)
    game_id, tokens = created["game_id"], tokens_of(created)
    spectator = client.get(f"/games/{game_id}/events").get_json()["events"]
    assert [e["event"]["type"] for e in spectator] == ["raid-started"] + ["hand-dealt"] * 4
    assert all(e["version"] == 1 and "private" not in e["event"] for e in spectator)
    for token in tokens.values():
        mine = client.get(f"/games/{game_id}/events", headers=auth(token)).get_json()["events"]
        hand = client.get(f"/games/{game_id}", headers=auth(token)).get_json()["view"]["hand"]
        private = [e["event"]["private"] for e in mine if "private" in e["event"]]
        assert [sorted(p["hand"]) for p in private] == [sorted(hand)]
