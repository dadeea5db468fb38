"""The web pages' data routes: bad input gets a clear 4xx JSON, and the invariants they rest on.

Properties (hypothesis): the rating chart ends exactly at the ratings the standings table shows;
the frames of a replay are the engine's own views of the re-simulated game, one per action,
hiding exactly what the chosen seat may not see.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.web import rating_history
from games.registry import get_game
from harness.standings import compute_standings
from tests.ops.conftest import GAME_SEATS, Arena, Served, new_game


@pytest.mark.parametrize(
    "path, status, code",
    [
        ("/web/data/tournaments/ffffffffffffffff", 404, "not_found"),
        ("/web/data/leagues/ffffffffffffffff", 404, "not_found"),
        ("/web/data/tournaments/bad%20id", 404, None),
        ("/web/data/games/not-a-game-id/frames", 404, "not_found"),
        ("/web/data/games/ffffffffffffffff/frames", 404, None),
        ("/web/nothing-here/abc", 404, None),
        ("/web/tournaments/" + "a" * 65, 404, None),
    ],
)
def test_bad_ids_get_a_json_404(served: Served, path: str, status: int, code: str | None) -> None:
    """Rule: an unknown or malformed id is a 404 with a JSON error body, never a 500."""
    answer = requests.get(served.base + path, timeout=10)
    assert answer.status_code == status
    body = answer.json()
    assert isinstance(body.get("code"), str) and body.get("message")
    if code is not None:
        assert body["code"] == code


@pytest.mark.parametrize("seat", ["abc", "-1", "4", "99", "1.5"])
def test_a_bad_perspective_is_a_422(arena: Arena, seat: str) -> None:
    """Rule: `seat` must be spectator, all, or a seat of the game."""
    gid = arena.games["tricky-teams"]
    url = f"{arena.served.base}/web/data/games/{gid}/frames"
    answer = requests.get(url, params={"seat": seat}, timeout=10)
    assert answer.status_code == 422 and answer.json()["code"]


def test_frames_of_a_running_game_are_refused(served: Served) -> None:
    """Rule: no frames (which reveal hands) before the game is over: 409 game_not_over."""
    gid = new_game(served.base, "trick-n-trouble")["game_id"]
    answer = requests.get(f"{served.base}/web/data/games/{gid}/frames?seat=all", timeout=10)
    assert answer.status_code == 409 and answer.json()["code"] == "game_not_over"


results_strategy = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=4, max_size=4),
        st.lists(st.integers(min_value=0, max_value=30), min_size=4, max_size=4),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None)
@given(results_strategy)
def test_the_rating_chart_ends_at_the_standings_ratings(matches: list[tuple[list[str], list[int]]]) -> None:
    """Property: the last point of every bot's line is the mu/ordinal of its standings row."""
    results = []
    for index, (seats, scores) in enumerate(matches):
        best = max(scores)
        results.append(
            {
                "index": index,
                "deal": index // 2,
                "table": 0,
                "rotation": 0,
                "seats": seats,
                "scores": scores,
                "winners": [i for i, s in enumerate(scores) if s == best],
                "faults": [0] * 4,
                "fault_codes": [{}] * 4,
                "unrated": [],
            }
        )
    entrants = ["a", "b", "c"]
    doc = compute_standings(results, entrants, cooperative=False, seed=1, resamples=50)
    history = rating_history(results, cooperative=False, prior={})
    for row in doc["rows"]:
        series = history["series"].get(row["entrant"])
        if series is None:  # never played: the default rating, no line
            continue
        assert len(series) == history["events"] + 1
        assert series[-1]["mu"] == pytest.approx(row["rating"]["mu"])
        assert series[-1]["ordinal"] == pytest.approx(row["rating"]["ordinal"])


def _play_random(served: Served, game: str, seed: int) -> str:
    """A whole game over HTTP by random legal moves; its id."""
    created = new_game(served.base, game, seed=seed)
    gid = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    rng = random.Random(seed)
    session = requests.Session()
    while True:
        doc = session.get(f"{served.base}/games/{gid}", timeout=10).json()
        if doc["status"] == "finished":
            return str(gid)
        seat = doc["view"]["to_move"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = session.get(f"{served.base}/games/{gid}/legal-moves", headers=auth, timeout=10).json()
        move = rng.choice(legal["legal_moves"])
        sent = {**auth, "If-Match": f'"{doc["version"]}"'}  # a repeated own move is no duplicate
        assert session.post(f"{served.base}/games/{gid}/moves", json=move, headers=sent, timeout=10).ok


@pytest.mark.parametrize("perspective", ["spectator", "0", "2", "all"])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(sorted(GAME_SEATS)), seed=st.integers(min_value=0, max_value=10_000))
def test_frames_are_the_engines_views_of_the_replayed_game(
    served: Served, game: str, seed: int, perspective: str
) -> None:
    """Property: one frame per action plus the start, each exactly engine.view(state, seat)."""
    gid = _play_random(served, game, seed)
    replay = requests.get(f"{served.base}/games/{gid}/replay", timeout=10).json()
    doc: dict[str, Any] = requests.get(
        f"{served.base}/web/data/games/{gid}/frames", params={"seat": perspective}, timeout=30
    ).json()
    engine = get_game(game)
    seats = GAME_SEATS[game]
    readers: list[int | None] = [None]
    if perspective == "all":
        readers = list(range(seats))
    elif perspective != "spectator":
        readers = [int(perspective)]
    assert doc["perspectives"] == readers
    assert len(doc["frames"]) == len(replay["actions"]) + 1
    state = engine.replay(replay["header"], [])
    for step, frame in enumerate(doc["frames"]):
        if step:
            action = replay["actions"][step - 1]
            assert frame["action"] == action
            engine.apply(state, action["seat"], action["move"])
        assert frame["views"] == [engine.view(state, reader) for reader in readers]
    assert doc["result"] == replay["result"]
