"""Concurrency: the compare-and-set applies a contested turn exactly once; versions only go up."""

from __future__ import annotations

import copy
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from core.repository import GameRepository, StaleWrite
from games.registry import get_game
from tests.api.conftest import LiveServer, auth, create, make_app, tokens_of

SUBMITTERS = 100


def test_100_concurrent_submissions_of_one_turn_apply_once(live_server: LiveServer) -> None:
    """Rule: 100 simultaneous posts of the same move over real HTTP: exactly one 200, the other 99 get 409."""
    base = live_server.url
    created = requests.post(
        f"{base}/games", json={"game": "tricky-teams", "seats": 4, "seed": 3}, timeout=10
    ).json()
    game_id, tokens = created["game_id"], tokens_of(created)
    seat = requests.get(f"{base}/games/{game_id}", timeout=10).json()["view"]["to_move"][0]
    move = requests.get(f"{base}/games/{game_id}/legal-moves", headers=auth(tokens[seat]), timeout=10).json()[
        "legal_moves"
    ][0]
    barrier = threading.Barrier(SUBMITTERS)
    versions: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        with requests.Session() as session:
            while not stop.is_set():
                versions.append(session.get(f"{base}/games/{game_id}", timeout=10).json()["version"])

    def submit(_: int) -> tuple[int, str]:
        with requests.Session() as session:
            barrier.wait(timeout=30)
            response = session.post(
                f"{base}/games/{game_id}/moves", json=move, headers=auth(tokens[seat]), timeout=30
            )
            return response.status_code, response.json()["code"] if response.status_code != 200 else "ok"

    watcher = threading.Thread(target=watch)
    watcher.start()
    with ThreadPoolExecutor(SUBMITTERS) as pool:
        results = list(pool.map(submit, range(SUBMITTERS)))
    stop.set()
    watcher.join(timeout=30)
    statuses = [status for status, _ in results]
    assert statuses.count(200) == 1, results
    assert statuses.count(409) == SUBMITTERS - 1, results
    assert {code for _, code in results if code != "ok"} <= {
        "not_your_turn",
        "version_conflict",
        "seat_moved_meanwhile",
    }
    final = requests.get(f"{base}/games/{game_id}", timeout=10).json()
    assert final["version"] == 2
    # Only the setup (version 1) and the one applied move (version 2) are in the log.
    events = requests.get(f"{base}/games/{game_id}/events?since=1", timeout=10).json()["events"]
    assert [e["version"] for e in events] == [2] * len(events) and len(events) >= 1
    assert versions == sorted(versions), "a reader never sees the version go down"


@settings(max_examples=15, deadline=None)
@given(plan=st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=30))
def test_version_only_goes_up_and_stale_writes_change_nothing(
    redis_url: str, plan: list[tuple[int, bool]]
) -> None:
    """Invariant: a write with a stale expected version is refused and leaves state and events untouched."""
    import uuid

    repo = GameRepository.from_url(redis_url, prefix=f"ta-test:{uuid.uuid4().hex[:12]}:")
    game_id = "00000000000000aa"
    try:
        repo.create(game_id, "tricky-teams", 4, 1, {"n": 0, "actions": []}, {})
        expected_events = 0
        version = 1
        for lag, final in plan:
            claimed = version - lag
            state: dict[str, Any] = {"n": claimed, "actions": [{"n": a} for a in range(claimed)]}
            if lag == 0:
                new = repo.commit(game_id, claimed, state, [{"type": "x", "n": claimed}], False)
                assert new == version + 1
                version, expected_events = new, expected_events + 1
            else:
                try:
                    repo.commit(game_id, claimed, state, [{"type": "x"}], final)
                    raise AssertionError("a stale write must fail")
                except StaleWrite as exc:
                    assert exc.current == version
            stored, events = repo.load_with_events(game_id)
            assert stored.version == version and len(events) == expected_events
            n = version - 1 if version > 1 else 0
            assert stored.state == {"n": n, "actions": [{"n": a} for a in range(n)]}
    finally:
        repo.client.delete(*[repo.key_for(kind, game_id) for kind in ("game", "events", "actions")])


def test_concurrent_joins_of_one_seat_give_it_once(live_server: LiveServer) -> None:
    """Rule: claiming an open seat is atomic: of 20 simultaneous joins of seat 1 exactly one gets it."""
    base = live_server.url
    created = requests.post(
        f"{base}/games", json={"game": "trick-n-trouble", "seats": 3, "open_seats": [1, 2]}, timeout=10
    ).json()
    barrier = threading.Barrier(20)

    def join(_: int) -> int:
        barrier.wait(timeout=30)
        return requests.post(
            f"{base}/games/{created['game_id']}/join", json={"seat": 1}, timeout=30
        ).status_code

    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(join, range(20)))
    assert statuses.count(201) == 1 and statuses.count(409) == 19
    game = requests.get(f"{base}/games/{created['game_id']}", timeout=10).json()
    assert game["open_seats"] == [2] and game["version"] == 2


REPEATS = 120


def _repeated_decision(game: str, seats: int, seed: int) -> tuple[list[tuple[int, Any]], int, Any]:
    """First-legal moves from `seed` up to a move after which the same seat has that same move again.

    Trick 'n Trouble seed 2 reaches one after 25 such moves: the lead player draws a task
    (`choose-task-level`) and, with fewer than five tasks face up, draws again.
    """
    engine = get_game(game)
    state = engine.new_game(seats, None, seed=seed)
    prefix: list[tuple[int, Any]] = []
    while not engine.is_over(state):
        seat = next(s for s in range(seats) if engine.legal_moves(state, s))
        move = engine.legal_moves(state, seat)[0]
        after = engine.clone(state) if hasattr(engine, "clone") else copy.deepcopy(state)
        engine.apply(after, seat, move)
        if move in engine.legal_moves(after, seat):
            return prefix, seat, move
        engine.apply(state, seat, move)
        prefix.append((seat, move))
    raise AssertionError("no repeated decision in this game")


def test_120_identical_submissions_of_a_repeated_decision_apply_once(live_server: LiveServer) -> None:
    """Rule (api.md, Versions): a retry after a lost race never applies a move to a decision the same
    seat reached only through its own earlier move: 120 identical posts apply exactly once."""
    base = live_server.url
    prefix, seat, move = _repeated_decision("trick-n-trouble", 3, 2)
    assert move == {"type": "choose-task-level", "level": 1}, (seat, move, len(prefix))
    created = requests.post(
        f"{base}/games", json={"game": "trick-n-trouble", "seats": 3, "seed": 2}, timeout=10
    ).json()
    game_id, tokens = created["game_id"], tokens_of(created)
    with requests.Session() as session:
        for s, m in prefix:
            answer = session.post(
                f"{base}/games/{game_id}/moves", json=m, headers=auth(tokens[s]), timeout=10
            )
            assert answer.status_code == 200, answer.json()
    before = requests.get(f"{base}/games/{game_id}", timeout=10).json()["version"]
    barrier = threading.Barrier(REPEATS)

    def submit(_: int) -> tuple[int, str]:
        with requests.Session() as session:
            barrier.wait(timeout=60)
            response = session.post(
                f"{base}/games/{game_id}/moves", json=move, headers=auth(tokens[seat]), timeout=60
            )
            return response.status_code, response.json()["code"] if response.status_code != 200 else "ok"

    with ThreadPoolExecutor(REPEATS) as pool:
        results = list(pool.map(submit, range(REPEATS)))
    statuses = [status for status, _ in results]
    assert statuses.count(200) == 1, results
    assert statuses.count(409) == REPEATS - 1, results
    assert {code for _, code in results if code != "ok"} <= {
        "seat_moved_meanwhile",
        "version_conflict",
        "duplicate_move",
    }
    after = requests.get(f"{base}/games/{game_id}", timeout=10).json()
    assert after["version"] == before + 1
    drawn = [
        e
        for e in requests.get(f"{base}/games/{game_id}/events?since={before}", timeout=10).json()["events"]
        if e["event"]["type"] == "task-drawn"
    ]
    assert len(drawn) == 1, drawn


def test_a_repeat_of_the_seats_latest_move_needs_if_match_within_the_window(
    redis_url: str, key_prefix: str
) -> None:
    """Rule (api.md, Versions): without If-Match, a move equal to the seat's own move that made the
    current version, within TRICKARENA_DUPLICATE_WINDOW_MS, is 409 duplicate_move and writes
    nothing; with If-Match naming the current version, or after the window, it applies."""
    prefix, seat, move = _repeated_decision("trick-n-trouble", 3, 2)
    for window_ms, pause_s, expect in ((60_000, 0.0, 409), (150, 0.3, 200)):
        client = make_app(redis_url, key_prefix, TRICKARENA_DUPLICATE_WINDOW_MS=window_ms).test_client()
        created = create(client, "trick-n-trouble", 3, seed=2)
        game_id, tokens = created["game_id"], tokens_of(created)
        for s, m in prefix:
            assert client.post(f"/games/{game_id}/moves", json=m, headers=auth(tokens[s])).status_code == 200
        first = client.post(f"/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
        assert first.status_code == 200
        time.sleep(pause_s)
        again = client.post(f"/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
        assert again.status_code == expect, again.get_json()
        if expect == 409:
            assert again.get_json()["code"] == "duplicate_move"
            assert again.get_json()["details"] == {"version": first.get_json()["version"]}
            assert client.get(f"/games/{game_id}").get_json()["version"] == first.get_json()["version"]
            confirmed = client.post(
                f"/games/{game_id}/moves",
                json=move,
                headers={**auth(tokens[seat]), "If-Match": f'"{first.get_json()["version"]}"'},
            )
            assert confirmed.status_code == 200, confirmed.get_json()
