"""Tournaments and leagues by name, and listed a page at a time (listTournaments, listLeagues) with
filters and owner keys, against a real Redis and real HTTP bots on loopback (issue 17)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from harness import catalog
from harness.runner import HarnessContext
from harness.tournaments import join_league, run_league_round

from .bot_servers import random_bots


@pytest.fixture()
def client(redis_url: str, key_prefix: str, queue_name: str) -> FlaskClient:
    """The API app on the test database, prefix and queue (Flask test client)."""
    app = create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    )
    return app.test_client()


@pytest.fixture()
def bots(ctx: HarnessContext) -> Iterator[list[tuple[str, str]]]:
    """Three real random bots on loopback, registered: [(bot id, owner key)]."""
    with random_bots(ctx.bots, 3, prefix="lst") as made:
        yield made


def bearer(key: str) -> dict[str, str]:
    """The Authorization header of an owner key."""
    return {"Authorization": f"Bearer {key}"}


def new_tournament(
    client: FlaskClient, bots: list[tuple[str, str]], game: str = "tricky-teams", **extra: Any
) -> dict[str, Any]:
    """createTournament with every bot (and its key), asserting 201."""
    seats = 4 if game == "tricky-teams" else 3
    body = {
        "game": game,
        "seats": seats,
        "entrants": [b for b, _ in bots],
        "owner_keys": [k for _, k in bots],
        "start_at": "2999-01-01T00:00:00Z",  # nothing is played: only the records matter here
        **extra,
    }
    answer = client.post("/tournaments", json=body)
    assert answer.status_code == 201, answer.get_json()
    created: dict[str, Any] = answer.get_json()
    return created


def new_league(client: FlaskClient, game: str = "trick-n-trouble", **extra: Any) -> dict[str, Any]:
    """createLeague, asserting 201."""
    seats = 4 if game == "tricky-teams" else 3
    answer = client.post("/leagues", json={"game": game, "seats": seats, "interval_s": 3600, **extra})
    assert answer.status_code == 201, answer.get_json()
    created: dict[str, Any] = answer.get_json()
    return created


def every_page(
    client: FlaskClient, path: str, key: str, limit: int, cursor: str | None = None
) -> list[list[str]]:
    """The ids of every page of a listing from `cursor` (None: the first page), following next_cursor."""
    pages: list[list[str]] = []
    while True:
        query = f"{path}?limit={limit}" + (f"&cursor={cursor}" if cursor is not None else "")
        answer = client.get(query)
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        pages.append([item[f"{key}_id"] for item in body[f"{key}s"]])
        cursor = body["next_cursor"]
        if cursor is None:
            return pages


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "name",
    ["Friday night", "a", "x" * 80, "Ligue d'été ☀ 2026", "round-robin #3 (open)"],
)
def test_a_tournament_keeps_the_name_it_was_created_with(
    client: FlaskClient, bots: list[tuple[str, str]], name: str
) -> None:
    """Rule: createTournament's `name` (1-80 characters) is the tournament's, in getTournament and
    in the listing."""
    created = new_tournament(client, bots, name=name)
    assert created["name"] == name
    assert client.get(f"/tournaments/{created['tournament_id']}").get_json()["name"] == name
    listed = client.get("/tournaments").get_json()["tournaments"]
    assert [(t["tournament_id"], t["name"]) for t in listed] == [(created["tournament_id"], name)]


@pytest.mark.parametrize(
    "name",
    ["", " leading", "trailing ", "x" * 81, "tab\tinside", "new\nline", "bell\x07", "del\x7f", " ", 7],
)
@pytest.mark.parametrize("path", ["/tournaments", "/leagues"])
def test_names_outside_the_rule_are_refused_and_nothing_is_written(
    client: FlaskClient, ctx: HarnessContext, name: Any, path: str
) -> None:
    """Rule: a name that is empty, longer than 80 characters, has a control character or white
    space at either end is 422 validation_error (`details` names `name`); nothing is stored."""
    if path == "/tournaments":
        body: dict[str, Any] = {"game": "tricky-teams", "seats": 4, "entrants": ["0123456789abcdef"]}
    else:
        body = {"game": "tricky-teams", "seats": 4, "interval_s": 3600}
    answer = client.post(path, json={**body, "name": name})
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["code"] == "validation_error"
    assert "name" in answer.get_json()["details"]["json"]
    assert ctx.store.client.zcard(ctx.store.key_for("tournament_index")) == 0
    assert ctx.store.client.zcard(ctx.store.key_for("league_index")) == 0


def test_without_a_name_tournaments_and_leagues_are_named_after_game_and_id(
    client: FlaskClient, bots: list[tuple[str, str]]
) -> None:
    """Rule: the default names are `<game> tournament <6 first digits of id>` and `<game> league <...>`."""
    created = new_tournament(client, bots)
    tid = created["tournament_id"]
    assert created["name"] == f"tricky-teams tournament {tid[:6]}"
    league = new_league(client)
    lid = league["league_id"]
    assert league["name"] == f"trick-n-trouble league {lid[:6]}"
    assert client.get(f"/leagues/{lid}").get_json()["name"] == league["name"]


def test_league_rounds_are_named_after_the_league_and_a_rename_names_later_rounds(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]]
) -> None:
    """Rule: a league round is named `<league name> · round <n>`; updateLeague renames the league
    (getLeague, listLeagues) and the rounds created from then on."""
    league = new_league(client, name="Nightly")
    lid, key = league["league_id"], league["owner_key"]
    for bot_id, bot_key in bots:
        join_league(ctx, lid, bot_id, bot_key)
    first = run_league_round(ctx, lid, 1)
    assert first is not None
    assert client.get(f"/tournaments/{first}").get_json()["name"] == "Nightly · round 1"
    client.post(f"/tournaments/{first}/cancel", headers=bearer(key))
    renamed = client.patch(f"/leagues/{lid}", json={"name": "Weekly"}, headers=bearer(key))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Weekly"
    bad = client.patch(f"/leagues/{lid}", json={"name": "x" * 81}, headers=bearer(key))
    assert bad.status_code == 422 and client.get(f"/leagues/{lid}").get_json()["name"] == "Weekly"
    assert [x["name"] for x in client.get("/leagues").get_json()["leagues"]] == ["Weekly"]
    second = run_league_round(ctx, lid, 2)
    assert second is not None
    names = {
        t["tournament_id"]: t["name"]
        for t in client.get(f"/tournaments?league={lid}").get_json()["tournaments"]
    }
    assert names == {first: "Nightly · round 1", second: "Weekly · round 2"}


# --------------------------------------------------------------------------- listings


def test_tournaments_are_listed_newest_first_with_what_the_index_page_shows(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]]
) -> None:
    """Rule: listTournaments gives id, name, game, seats, status, entrant count and the first
    entrants by name, practice, progress and creation time, newest first."""
    older = new_tournament(client, bots, name="older")
    newer = new_tournament(client, bots[:2], game="trick-n-trouble", name="newer", seed=7)
    body = client.get("/tournaments").get_json()
    assert body["next_cursor"] is None
    first, second = body["tournaments"]
    assert (first["tournament_id"], second["tournament_id"]) == (
        newer["tournament_id"],
        older["tournament_id"],
    )
    assert first == {
        "tournament_id": newer["tournament_id"],
        "name": "newer",
        "game": "trick-n-trouble",
        "seats": 3,
        "status": "scheduled",
        "entrants_total": 2,
        "entrants": [{"bot_id": b, "name": ctx.bots.get(b)["name"]} for b, _ in bots[:2]],
        "practice": True,
        "progress": {"total": newer["progress"]["total"], "completed": 0, "fraction": 0.0},
        "created_at": newer["created_at"],
    }
    assert second["entrants_total"] == 3 and second["practice"] is False


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ["t3", "t2", "t1", "round"]),
        ("?game=tricky-teams", ["t3", "t1"]),
        ("?game=trick-n-trouble", ["t2", "round"]),
        ("?status=cancelled", ["t2"]),
        ("?status=scheduled", ["t3", "t1", "round"]),
        ("?status=finished", []),
        ("?game=tricky-teams&status=cancelled", []),
        ("?league={lid}", ["round"]),
        ("?league=0123456789abcdef", []),
        ("?game=no-such-game", []),
    ],
)
def test_tournament_filters(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]], query: str, expected: list[str]
) -> None:
    """Rule: listTournaments filters by game, status and league, together."""
    league = new_league(client)
    lid = league["league_id"]
    for bot_id, bot_key in bots:
        join_league(ctx, lid, bot_id, bot_key)
    ids = {"round": run_league_round(ctx, lid, 1)}
    ids["t1"] = new_tournament(client, bots)["tournament_id"]
    t2 = new_tournament(client, bots, game="trick-n-trouble")
    ids["t2"] = t2["tournament_id"]
    ids["t3"] = new_tournament(client, bots)["tournament_id"]
    assert client.post(f"/tournaments/{ids['t2']}/cancel", headers=bearer(t2["owner_key"])).status_code == 200
    answer = client.get("/tournaments" + query.format(lid=lid))
    assert answer.status_code == 200, answer.get_json()
    assert [t["tournament_id"] for t in answer.get_json()["tournaments"]] == [ids[n] for n in expected]


def test_an_owner_key_lists_only_what_it_owns(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]]
) -> None:
    """Rule: with `Authorization: Bearer <owner key>` a listing shows only what that key owns: a
    tournament's key that tournament, a league's key the league and its rounds; another key nothing;
    a header that is not Bearer is 401."""
    mine = new_tournament(client, bots)
    new_tournament(client, bots)
    league = new_league(client)
    new_league(client)
    lid = league["league_id"]
    join_league(ctx, lid, bots[0][0], bots[0][1])
    rounds = [run_league_round(ctx, lid, 1)]
    client.post(f"/tournaments/{rounds[0]}/cancel", headers=bearer(league["owner_key"]))
    rounds.insert(0, run_league_round(ctx, lid, 2))
    by_tournament_key = client.get("/tournaments", headers=bearer(mine["owner_key"])).get_json()
    assert [t["tournament_id"] for t in by_tournament_key["tournaments"]] == [mine["tournament_id"]]
    by_league_key = client.get("/tournaments", headers=bearer(league["owner_key"])).get_json()
    assert [t["tournament_id"] for t in by_league_key["tournaments"]] == rounds
    leagues = client.get("/leagues", headers=bearer(league["owner_key"])).get_json()["leagues"]
    assert [x["league_id"] for x in leagues] == [lid]
    assert leagues[0]["members_total"] == 1 and leagues[0]["rounds_total"] == 2
    for path in ("/tournaments", "/leagues"):
        nothing = client.get(path, headers=bearer("x" * 32)).get_json()
        assert nothing == {path[1:]: [], "next_cursor": None}
        refused = client.get(path, headers={"Authorization": "Basic abc"})
        assert refused.status_code == 401 and refused.get_json()["code"] == "invalid_authorization"


def test_pages_follow_the_cursor_and_see_every_item_once_while_new_ones_arrive(
    client: FlaskClient, bots: list[tuple[str, str]]
) -> None:
    """Rule: following next_cursor visits every tournament once, newest first, `limit` at a time,
    even when tournaments are created between two pages (they belong before the first page)."""
    made = [new_tournament(client, bots)["tournament_id"] for _ in range(5)]
    first = client.get("/tournaments?limit=2").get_json()
    assert [t["tournament_id"] for t in first["tournaments"]] == made[::-1][:2]
    new_tournament(client, bots)  # arrives between pages
    rest = every_page(client, "/tournaments", "tournament", 2, first["next_cursor"])
    seen = [t["tournament_id"] for t in first["tournaments"]] + [t for page in rest for t in page]
    assert seen == made[::-1]
    assert all(len(page) <= 2 for page in rest)


def test_leagues_are_listed_newest_first_and_filtered(client: FlaskClient) -> None:
    """Rule: listLeagues gives id, name, game, status, member and round counts, schedule, next round
    and creation time, newest first; filters by game and status; pages follow the cursor."""
    made = [
        new_league(client, name="A"),
        new_league(client, game="tricky-teams", name="B"),
        new_league(client, name="C", cron="0 12 * * *", interval_s=None),
    ]
    deleted = client.delete(f"/leagues/{made[0]['league_id']}", headers=bearer(made[0]["owner_key"]))
    assert deleted.status_code == 200
    body = client.get("/leagues").get_json()
    assert [x["name"] for x in body["leagues"]] == ["C", "B", "A"]
    c = body["leagues"][0]
    assert c == {
        "league_id": made[2]["league_id"],
        "name": "C",
        "game": "trick-n-trouble",
        "seats": 3,
        "status": "active",
        "members_total": 0,
        "rounds_total": 0,
        "schedule": {"cron": "0 12 * * *"},
        "next_at": made[2]["next_at"],
        "created_at": made[2]["created_at"],
    }
    cases = {
        "?game=tricky-teams": ["B"],
        "?status=deleted": ["A"],
        "?status=active&game=trick-n-trouble": ["C"],
        "?status=paused": [],
    }
    for query, names in cases.items():
        assert [x["name"] for x in client.get(f"/leagues{query}").get_json()["leagues"]] == names, query
    assert every_page(client, "/leagues", "league", 1) == [[m["league_id"]] for m in made[::-1]]


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        f"limit={catalog.PAGE_MAX + 1}",
        "cursor=-1",
        "cursor=abc",
        "cursor=1234567890",
        "status=done",
        "game=",
    ],
)
@pytest.mark.parametrize("path", ["/tournaments", "/leagues"])
def test_listing_queries_outside_their_bounds_are_422(client: FlaskClient, path: str, query: str) -> None:
    """Rule: a page larger than 100, a cursor that is not one, an unknown status or an empty game
    are 422 validation_error, as a malformed league id is for listTournaments."""
    answer = client.get(f"{path}?{query}")
    assert answer.status_code == 422, (query, answer.get_json())
    assert answer.get_json()["code"] == "validation_error"
    answer = client.get("/tournaments?league=XYZ")
    assert answer.status_code == 422, (query, answer.get_json())
    assert answer.get_json()["code"] == "validation_error"


def test_a_page_reads_a_bounded_number_of_records_whatever_the_filters_skip(ctx: HarnessContext) -> None:
    """Rule: one page reads at most SCAN_BUDGET stored tournaments (leagues alike): a filter that
    matches none of 1.2 x that many answers an empty page with a cursor, and the pages end."""
    total = catalog.SCAN_BUDGET * 6 // 5
    spec = {"game": "tricky-teams", "seats": 4, "entrants": ["0123456789abcdef"]}
    for n in range(total):
        assert ctx.store.create_tournament(f"{n:016x}", spec, [])
    first = catalog.list_tournaments(ctx, game="trick-n-trouble")
    assert first.items == [] and first.next_cursor == total - catalog.SCAN_BUDGET
    last = catalog.list_tournaments(ctx, game="trick-n-trouble", cursor=first.next_cursor)
    assert last.items == [] and last.next_cursor is None
    everything = catalog.list_tournaments(ctx, limit=catalog.PAGE_MAX)
    assert len(everything.items) == catalog.PAGE_MAX
    assert everything.items[0]["tournament_id"] == f"{total - 1:016x}"
    assert everything.items[0]["name"] == "tricky-teams tournament 000000"  # stored without a name


def test_a_repeated_round_firing_repairs_the_listings_a_dead_creation_left_out(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]]
) -> None:
    """Rule (issue 25, two-step writes): a league round's own transaction is followed by its
    listings (`t:index`, its owner's) and its place in the league's rounds; when a worker dies
    between them, the job's retry (the same round fired again) writes what is missing, once."""
    league = new_league(client, name="Repair")
    lid = league["league_id"]
    for bot_id, bot_key in bots:
        join_league(ctx, lid, bot_id, bot_key)
    tid = run_league_round(ctx, lid, 1)
    assert tid is not None
    store = ctx.store
    owner = store.client.hget(store.key_for("league", lid), "owner")
    assert isinstance(owner, bytes)
    owner_index = store.key_for("tournament_owner_index", owner.decode())
    rounds = store.key_for("rounds", lid)
    # What a worker that died right after the round's own transaction leaves.
    store.client.zrem(store.key_for("tournament_index"), tid)
    store.client.zrem(owner_index, tid)
    store.client.lrem(rounds, 0, tid)
    assert run_league_round(ctx, lid, 1) is None  # the round is not created again
    assert store.client.zscore(store.key_for("tournament_index"), tid) is not None
    assert store.client.zscore(owner_index, tid) is not None
    assert store.client.lrange(rounds, 0, -1) == [tid.encode()]
    assert run_league_round(ctx, lid, 1) is None
    assert store.client.lrange(rounds, 0, -1) == [tid.encode()]  # never twice
    listed = client.get(f"/tournaments?league={lid}").get_json()["tournaments"]
    assert [t["tournament_id"] for t in listed] == [tid]
