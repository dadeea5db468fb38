"""The harness on a real three-master Redis Cluster (issue 25, Cluster for the state that grows).

Started by the test (`core.redis_procs.redis_cluster`), the harness store, the game repository and
the bot registry on the cluster (`redis+cluster://`, through the factory), RQ on the ordinary test
Redis (`RQ_REDIS_URL`: RQ cannot run on a cluster). Every harness write path runs there -- a
tournament's creation and listings, leases, the write-ahead record, results recorded twice, the
standings fold and the bots' own indexes (its second step repeated), owner key rotation, the
feeder, a league with a round -- each script and transaction touching one slot (a cluster refuses
any other), a tournament's keys in one slot and tournaments spread over every master; and a whole
tournament runs there on real worker processes with real HTTP bots.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.cluster import RedisCluster

from core.bot_registry import owner_digest
from core.redis_procs import ClusterGroup, redis_cluster
from harness import challenges, queueing
from harness import tournaments as T
from harness.catalog import list_tournaments
from harness.runner import HarnessContext
from harness.store import encode_decision

from .bot_servers import random_bots
from .conftest import WorkerProcs, delete_rq_keys, wait_for


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterGroup]:
    """A three-master cluster for this module's tests."""
    with redis_cluster() as group:
        yield group


@pytest.fixture()
def prefix() -> str:
    return f"ta-clh:{uuid.uuid4().hex[:8]}:"


@pytest.fixture()
def cctx(
    cluster: ClusterGroup, redis_url: str, prefix: str, queue_name: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HarnessContext]:
    """A harness context with its storage on the cluster and RQ on the test Redis."""
    monkeypatch.setenv("RQ_REDIS_URL", redis_url)
    context = HarnessContext.build(cluster.url, prefix, queue_name)
    assert isinstance(context.store.client, RedisCluster)
    yield context
    delete_rq_keys(redis_url, context)


def _stub_bots(ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch, count: int) -> dict[str, str]:
    """Registry bots never called (results are recorded by the test): bot id -> owner key."""

    def probe(url: str, games: list[str]) -> dict[str, Any]:
        return {"name": "stub", "author": "tests", "version": "1", "games": games}

    monkeypatch.setattr(ctx.bots, "probe", probe)
    out: dict[str, str] = {}
    for n in range(count):
        created = ctx.bots.create(
            f"stub-{n}-{time.monotonic_ns()}", f"http://127.0.0.1:9/{n}", ["tricky-teams", "trick-n-trouble"]
        )
        out[created.bot.id] = created.owner_key
    return out


def _result(match: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    seats = match["seats"]
    scores = [rng.randint(0, 8) for _ in seats]
    faults = [rng.choice([0, 0, 1]) for _ in seats]
    return {
        **{k: match[k] for k in ("index", "deal", "table", "rotation", "seats")},
        "scores": scores,
        "winners": [s for s, v in enumerate(scores) if v == max(scores)],
        "faults": faults,
        "fault_codes": [{"timeout": f} if f else {} for f in faults],
        "unrated": [],
        "versions": ["1"] * len(seats),
    }


def _bot_state(ctx: HarnessContext, bots: list[str], tids: list[str]) -> dict[str, Any]:
    """Everything the bots' own indexes hold."""
    store, client = ctx.store, ctx.store.client
    out: dict[str, Any] = {}
    for bot in bots:
        out[bot] = {
            "versions": client.hgetall(store.key_for("bot_versions", bot)),
            "matches": client.zrange(store.key_for("bot_matches", bot), 0, -1, withscores=True),
            "leagues": client.zrange(store.key_for("bot_leagues", bot), 0, -1, withscores=True),
            **{
                tid: client.zrange(
                    store.key_for("bot_scope_matches", bot, f"t:{tid}"), 0, -1, withscores=True
                )
                for tid in tids
            },
        }
    return out


def _slot_of_tournament(ctx: HarnessContext, tid: str, total: int) -> set[int]:
    store, client = ctx.store, ctx.store.client
    keys = [store.key_for(k, tid) for k in ("tournament", "matches", "results", "unindexed", "standings")]
    keys += [store.key_for(k, tid, i) for i in range(total) for k in ("match", "decisions", "lease")]
    keys += [store.scope_key(f"t:{tid}", s) for s in ("live", "rows", "index", "pairs", "stats", "prior")]
    return {int(client.keyslot(k)) for k in keys}  # type: ignore[attr-defined]


def test_every_harness_write_path_runs_on_a_cluster_one_slot_per_tournament_spread_over_masters(
    cctx: HarnessContext, cluster: ClusterGroup, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (issue 25): on a Redis Cluster every harness script and transaction touches one slot --
    a tournament's keys share its slot (tag: its id), tournaments spread over all masters -- and the
    cross-entity writes (listings, the bots' own indexes) are a separate idempotent step: repeated,
    it counts nothing twice."""
    ctx, store = cctx, cctx.store
    owners = _stub_bots(ctx, monkeypatch, 3)
    bots = list(owners)
    rng = random.Random(25)
    tids: list[str] = []
    keys: dict[str, str] = {}
    for n in range(40):  # till tournaments cover every master (9 cover all 3 with p > 0.92)
        if n >= 6 and all(cluster.keys_per_master(f"{prefix}t:{{*").values()):
            break
        info = T.create_tournament(
            ctx, "tricky-teams", 4, bots, enqueue=False, owner_keys=list(owners.values())
        )
        tid = info["tournament_id"]
        tids.append(tid)
        keys[tid] = info["owner_key"]
        total = info["progress"]["total"]
        assert len(_slot_of_tournament(ctx, tid, total)) == 1
        assert store.set_status(tid, "running", only_from=("scheduled",))
        for match in store.match_specs(tid):
            i = int(match["index"])
            token = store.acquire_lease(tid, i, 30_000)
            assert token is not None and store.acquire_lease(tid, i, 30_000) is None
            assert store.claim_game_id(tid, i, f"g-{tid}-{i}") == f"g-{tid}-{i}"
            store.set_bot_versions(tid, i, ["1"] * 4)
            assert store.write_wal_and_renew(
                tid, i, {"step": 1}, token, 30_000, [encode_decision(0, 5, "ok")]
            )
            assert store.renew_lease(tid, i, token, 30_000)
            res = _result(match, rng)
            recorded, completed = store.record_result(tid, i, res, [encode_decision(1, 7, "ok")])
            assert recorded and completed == i + 1
            assert store.record_result(tid, i, res) == (False, i + 1)  # once
            store.release_lease(tid, i, token)
            assert store.match_decisions(tid, i)[1][0][0] == 0
        assert store.game_match(f"g-{tid}-0") == (tid, 0)
        assert T.update_standings(ctx, tid) == total
        assert store.set_status(tid, "finished")
        assert T.compute_statistics(ctx, f"t:{tid}") == total  # its transactions: the scope's slot
        doc = T.get_standings(ctx, tid)
        assert doc["matches"] == total and len(doc["rows"]) == 3 and doc["rows"][0]["score_ci"]
        assert len(T.get_standings(ctx, tid, by="version")["rows"]) == 3
        assert set(T.rating_history(ctx, f"t:{tid}", bots)["series"]) == set(bots)
    # The listings, written after each creation: all tournaments, and each under its owner key.
    assert set(store.list_tournaments(50)) == set(tids)
    assert {t["tournament_id"] for t in list_tournaments(ctx, limit=50).items} == set(tids)
    assert [t["tournament_id"] for t in list_tournaments(ctx, owner_key=keys[tids[0]]).items] == [tids[0]]

    # The bots' own indexes: each match once per bot, the counters equal to the results.
    state = _bot_state(ctx, bots, tids)
    for bot in bots:
        played = [r for tid in tids for r in store.results(tid) if bot in r["seats"]]
        assert len(state[bot]["matches"]) == len(played)
        fields = {k.decode(): v for k, v in state[bot]["versions"].items()}
        assert int(fields["tricky-teams\t1\tm"]) == len(played)
        assert int(fields["tricky-teams\t1\tg"]) == sum(r["seats"].count(bot) for r in played)
    # A fold that died between its transaction and the index step: the step runs again -- nothing
    # is counted twice (every result is due again here, as if none had been written).
    for tid in tids:
        due = {str(r["index"]): 1 for r in store.results(tid)}
        store.client.hset(store.key_for("unindexed", tid), mapping=due)  # type: ignore[arg-type]
        assert store.index_bots(tid, store.tournament(tid)["spec"]) == 0  # type: ignore[index]
        assert store.index_bots(tid, store.tournament(tid)["spec"]) == 0  # type: ignore[index]
    assert _bot_state(ctx, bots, tids) == state
    # A creation repeated (its listing step again): listed once, under the same score.
    before = store.client.zrange(store.key_for("tournament_index"), 0, -1, withscores=True)
    assert not store.create_tournament(tids[0], {}, [])
    assert store.client.zrange(store.key_for("tournament_index"), 0, -1, withscores=True) == before

    # Owner key rotation: the switch on the record, then the listing moved to the new digest.
    rotated = T.rotate_tournament_key(ctx, tids[1], keys[tids[1]])
    assert [t["tournament_id"] for t in list_tournaments(ctx, owner_key=rotated["owner_key"]).items] == [
        tids[1]
    ]
    assert list_tournaments(ctx, owner_key=keys[tids[1]]).items == []

    # Keys spread over all three masters: tournaments' (tagged by their ids) and bots' own (by theirs:
    # of bots named b0..b5, three masters' slots: CRC16 is deterministic).
    assert all(cluster.keys_per_master(f"{prefix}t:{{*").values())
    spec = {"game": "tricky-teams", "league": {"league_id": "lg"}}
    for n in range(3):
        res = {
            "index": n,
            "seats": [f"b{2 * n}", f"b{2 * n + 1}"] * 2,
            "scores": [1, 0, 1, 0],
            "winners": [0, 2],
        }
        assert store.index_results("tx", spec, [(res, n)]) == 1
        assert store.index_results("tx", spec, [(res, n)]) == 0  # once
    per_master = cluster.keys_per_master(f"{prefix}b:{{b*")
    assert len(per_master) == 3 and all(per_master.values()), per_master
    for n in range(6):
        slots = {store.client.keyslot(store.key_for(k, f"b{n}")) for k in ("bot_matches", "bot_versions")}  # type: ignore[attr-defined]
        assert len(slots) == 1


def test_the_feeder_and_a_league_round_run_on_a_cluster(
    cctx: HarnessContext, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (issue 25): the feeder's script touches its tournament's slot only (RQ's jobs on RQ's
    own Redis), and a league's round is in its league's slot: the round's creation, the fold of its
    results into the round's and the league's standings run on a cluster."""
    ctx, store = cctx, cctx.store
    owners = _stub_bots(ctx, monkeypatch, 3)
    bots = list(owners)
    info = T.create_tournament(ctx, "tricky-teams", 4, bots, enqueue=False, owner_keys=list(owners.values()))
    tid, total = info["tournament_id"], info["progress"]["total"]
    queued = queueing.enqueue_matches(ctx, tid, range(total))
    assert len(queued) == queueing.FEED_K
    assert queueing.backlog(ctx, tid) == total - queueing.FEED_K
    assert queueing.waiting(ctx, tid) == queueing.FEED_K
    assert len(queueing.match_started(ctx, tid, 0)) == 1
    assert queueing.sweep_feeder(ctx) == 0
    rq_keys = list(redis.Redis.from_url(redis_url).scan_iter(match=f"rq:job:{queueing.job_id(ctx, tid)}*"))
    assert len(rq_keys) == queueing.FEED_K + 1  # RQ's jobs on RQ's Redis
    queueing.drop_backlog(ctx, tid)
    assert queueing.backlog(ctx, tid) == 0
    assert not store.client.sismember(f"{store.prefix}feed:{ctx.queue_name}:t", tid)

    # A cooperative tournament's standings page (its compositions: a script, out of the pipeline).
    coop = T.create_tournament(
        ctx, "trick-n-trouble", 3, bots, enqueue=False, owner_keys=list(owners.values())
    )
    rng = random.Random(2)
    for match in store.match_specs(coop["tournament_id"]):
        res = _result(match, rng)
        store.record_result(
            coop["tournament_id"], int(match["index"]), {**res, "team_score": 5, "reached": True}
        )
    assert T.update_standings(ctx, coop["tournament_id"]) == coop["progress"]["total"]
    assert T.get_standings(ctx, coop["tournament_id"])["compositions_total"] >= 1

    league = T.create_league(ctx, "tricky-teams", 4, interval_s=3600, enqueue=False)
    lid = league["league_id"]
    for bot, key in owners.items():
        T.join_league(ctx, lid, bot, key)
    round_tid = T.run_league_round(ctx, lid, 1)
    assert round_tid is not None
    assert store.client.keyslot(store.key_for("tournament", round_tid)) == store.client.keyslot(  # type: ignore[attr-defined]
        store.key_for("league", lid)
    )
    rng = random.Random(1)
    for match in store.match_specs(round_tid):
        store.record_result(round_tid, int(match["index"]), _result(match, rng))
    assert T.update_standings(ctx, round_tid) == store.tournament(round_tid)["total"]  # type: ignore[index]
    for bot in bots:
        assert store.client.zrange(store.key_for("bot_leagues", bot), 0, -1) == [lid.encode()]
    assert [t["tournament_id"] for t in list_tournaments(ctx, owner_key=league["owner_key"]).items] == [
        round_tid
    ]
    rotated = T.rotate_league_key(ctx, lid, league["owner_key"])
    assert [t["tournament_id"] for t in list_tournaments(ctx, owner_key=rotated["owner_key"]).items] == [
        round_tid
    ]
    assert store.client.zscore(store.key_for("league_owner_index", owner_digest(rotated["owner_key"])), lid)
    standings = T.league_standings(ctx, lid)
    assert len(standings["rows"]) == 3


@pytest.mark.timeout(240)
def test_a_tournament_runs_on_a_cluster_with_real_workers_and_bots(
    cctx: HarnessContext, cluster: ClusterGroup, redis_url: str, prefix: str, queue_name: str
) -> None:
    """Rule (issue 25): a whole tournament -- feeder, match jobs on RQ's own Redis, games, leases,
    results, standings and the bots' indexes on the cluster -- runs to its end on real workers."""
    ctx = cctx
    workers = WorkerProcs(cluster.url, prefix, queue_name)
    try:
        with random_bots(ctx.bots, 3) as made:
            ids = [bot_id for bot_id, _ in made]
            workers.start(env={"RQ_REDIS_URL": redis_url})
            info = T.create_tournament(ctx, "tricky-teams", 4, ids, deadline_ms=2000, time_bank_ms=2000)
            tid = info["tournament_id"]
            wait_for(
                lambda: T.get_tournament(ctx, tid)["status"] == "finished", 200, "the tournament to finish"
            )
    finally:
        workers.stop_all()
    results = ctx.store.results(tid)
    assert [r["index"] for r in results] == list(range(info["progress"]["total"]))
    for res in results:
        assert ctx.service.load(res["game_id"]).finished
    doc = T.get_standings(ctx, tid)
    assert doc["final"] is True and doc["matches"] == len(results)
    for bot in ids:
        played = sum(1 for r in results if bot in r["seats"])
        assert ctx.store.client.zcard(ctx.store.key_for("bot_scope_matches", bot, f"t:{tid}")) == played


def test_challenges_reserve_and_free_their_slots_on_a_cluster(
    cctx: HarnessContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule (issue 25): a challenge's creation (the reservation script over its bots' and its
    address's in-flight slots, one tag), its record (in its match keys' slot) and its failure (the
    record and the match's keys in one transaction) run on a cluster."""
    ctx, store = cctx, cctx.store
    owners = _stub_bots(ctx, monkeypatch, 2)
    bots, keys = list(owners), list(owners.values())
    limits = challenges.ChallengeLimits(per_person=1)
    first = challenges.create_challenge(ctx, limits, "tricky-teams", 3, [1], bots, None, keys, "10.0.0.1")
    cid = first["challenge_id"]
    record_key = challenges._key(ctx, cid)
    assert {
        store.client.keyslot(k)  # type: ignore[attr-defined]
        for k in (record_key, store.key_for("match", cid, 0), store.key_for("decisions", cid, 0))
    } == {store.client.keyslot(store.key_for("lease", cid, 0))}  # type: ignore[attr-defined]
    with pytest.raises(challenges.TooManyChallenges):
        challenges.create_challenge(ctx, limits, "tricky-teams", 3, [1], bots, None, keys, "10.0.0.1")
    challenges.challenge_error(ctx, cid, "RuntimeError: boom")
    assert store.client.hget(record_key, "status") == b"error"
    again = challenges.create_challenge(ctx, limits, "tricky-teams", 3, [1], bots, None, keys, "10.0.0.1")
    assert cid in [c["challenge_id"] for c in challenges.bot_challenges(ctx, bots[0])]
    assert again["challenge_id"] != cid
