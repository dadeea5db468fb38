"""Standings rules over recorded results, with hand-computed expectations."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.ratings import PROVISIONAL_DEALS, Rating, bootstrap_ci, competitive_events, overlaps, rate
from harness.standings import compute_standings, ratings_from_standings, statistics


def _res(index: int, deal: int, seats: str, scores: list[int], **extra: Any) -> dict[str, Any]:
    top = max(scores)
    out: dict[str, Any] = {
        "index": index,
        "deal": deal,
        "table": 0,
        "rotation": 0,
        "seats": list(seats),
        "scores": scores,
        "winners": [s for s, v in enumerate(scores) if v == top],
        "faults": [0] * len(seats),
        "fault_codes": [{} for _ in seats],
        "unrated": [],
    }
    out.update(extra)
    return out


COMPETITIVE = [
    _res(0, 0, "ABC", [10, 5, 1]),
    _res(1, 0, "BCA", [7, 7, 2]),  # B and C share the win
    _res(2, 1, "CAB", [0, 9, 3], faults=[2, 0, 0], fault_codes=[{"timeout": 2}, {}, {}]),
    _res(3, 1, "ABC", [4, 4, 4]),  # a three-way shared win
]


def _row(doc: dict[str, Any], entrant: str) -> dict[str, Any]:
    return next(r for r in doc["rows"] if r["entrant"] == entrant)


@pytest.mark.parametrize(
    ("entrant", "games", "wins", "shared", "mean"),
    [
        # A: 10, 2, 9, 4 -> wins in 0, 2, 3 (3 shared) ; mean 25/4
        ("A", 4, 3, 1, 25 / 4),
        # B: 5, 7, 3, 4 -> wins in 1 (shared), 3 (shared)
        ("B", 4, 2, 2, 19 / 4),
        # C: 1, 7, 0, 4 -> wins in 1 (shared), 3 (shared)
        ("C", 4, 2, 2, 12 / 4),
    ],
)
def test_games_wins_shared_wins_and_mean(
    entrant: str, games: int, wins: int, shared: int, mean: float
) -> None:
    """Rule: per seat-game counts; a shared win is a win and is also counted as shared."""
    doc = compute_standings(COMPETITIVE, ["A", "B", "C"], cooperative=False, seed=1)
    row = _row(doc, entrant)
    assert (row["games"], row["wins"], row["shared_wins"]) == (games, wins, shared)
    assert row["mean_score"] == pytest.approx(mean)
    assert row["win_rate"] == pytest.approx(wins / games)


def test_standings_sorted_by_mean_score_with_ranks() -> None:
    """Rule: rows sort by mean score, ranks 1..n."""
    doc = compute_standings(COMPETITIVE, ["A", "B", "C"], cooperative=False, seed=1)
    assert [r["entrant"] for r in doc["rows"]] == ["A", "B", "C"]
    assert [r["rank"] for r in doc["rows"]] == [1, 2, 3]
    assert doc["matches"] == 4


def test_head_to_head_matrix() -> None:
    """Rule: h2h[a][b] compares a's and b's scores at every match they shared."""
    h2h = compute_standings(COMPETITIVE, ["A", "B", "C"], cooperative=False, seed=1)["head_to_head"]
    # A vs B: 10>5 win, 2<7 loss, 9>3 win, 4=4 tie
    assert {k: h2h["A"]["B"][k] for k in ("wins", "losses", "ties")} == {"wins": 2, "losses": 1, "ties": 1}
    assert h2h["A"]["B"]["rate"] == pytest.approx(2.5 / 4)
    assert {k: h2h["B"]["A"][k] for k in ("wins", "losses", "ties")} == {"wins": 1, "losses": 2, "ties": 1}
    # B vs C: 5>1, 7=7, 3>0, 4=4
    assert {k: h2h["B"]["C"][k] for k in ("wins", "losses", "ties")} == {"wins": 2, "losses": 0, "ties": 2}


def test_fault_counts_and_unrated_matches() -> None:
    """Rule: faults are summed per entrant, by code and by reason (results from before the reasons
    were recorded count by code only); unrated seats are counted per match."""
    results = [
        *COMPETITIVE,
        _res(
            4,
            2,
            "ABC",
            [1, 2, 3],
            faults=[0, 9, 0],
            fault_codes=[{}, {"http_status": 5, "illegal_move": 4}, {}],
            unrated=[1],
            calls=[20, 9, 20],
            reasons=[{}, {"http_status:401:bad_signature": 5, "illegal_move": 4}, {}],
        ),
    ]
    doc = compute_standings(results, ["A", "B", "C"], cooperative=False, seed=1)
    assert doc["faults"]["C"] == {
        "total": 2,
        "by_code": {"timeout": 2},
        "by_reason": {},
        "unrated_matches": 0,
    }
    assert doc["faults"]["B"] == {
        "total": 9,
        "by_code": {"http_status": 5, "illegal_move": 4},
        "by_reason": {"http_status:401:bad_signature": 5, "illegal_move": 4},
        "unrated_matches": 1,
    }
    assert _row(doc, "B")["unrated_matches"] == 1


def test_unrated_seat_is_left_out_of_the_rating_event() -> None:
    """Rule: a bot over the fault threshold in a match is not rated for that match."""
    events = competitive_events([_res(0, 0, "ABC", [3, 2, 1], unrated=[0])])
    assert events[0].teams == (("B",), ("C",))
    assert competitive_events([_res(0, 0, "ABB", [3, 2, 1], unrated=[0])]) == []


def test_openskill_two_player_update_matches_the_hand_computation() -> None:
    """Rule: ratings are OpenSkill Plackett-Luce; a 1v1 from defaults equals the paper's formulas."""
    ratings = rate(competitive_events([_res(0, 0, "AB", [5, 1])]))
    beta = 25 / 6
    sigma = 25 / 3
    c = math.sqrt(2 * sigma**2 + 2 * beta**2)
    p_a = math.exp(25 / c) / (math.exp(25 / c) + math.exp(25 / c))  # = 0.5
    # Plackett-Luce: winner's omega = sigma^2/c * (1 - p_a); loser's = sigma^2/c * (0 - p_b)
    # rel 1e-4: the library adds tiny stabilising epsilons (kappa) the formulas leave out.
    assert ratings["A"].mu == pytest.approx(25 + sigma**2 / c * (1 - p_a), rel=1e-4)
    assert ratings["B"].mu == pytest.approx(25 - sigma**2 / c * p_a, rel=1e-4)
    # delta = gamma * sigma^2/c^2 * p(1-p) summed over both comparisons of the winner (gamma = sigma/c)
    delta = (sigma / c) * sigma**2 / c**2 * p_a * (1 - p_a)
    assert ratings["A"].sigma == pytest.approx(sigma * math.sqrt(1 - delta), rel=1e-4)
    assert ratings["A"].ordinal == pytest.approx(ratings["A"].mu - 3 * ratings["A"].sigma)


def test_same_bot_in_two_seats_sums_its_updates() -> None:
    """Rule: a bot filling several seats gets the sum of its per-seat mu updates."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    seat0, seat1, seat2 = model.rate([[model.rating()], [model.rating()], [model.rating()]], scores=[5, 5, 1])
    both = rate(competitive_events([_res(0, 0, "AAB", [5, 5, 1])]))
    assert both["A"].mu == pytest.approx(25 + (seat0[0].mu - 25) + (seat1[0].mu - 25))
    assert both["A"].sigma == pytest.approx(min(seat0[0].sigma, seat1[0].sigma))
    assert both["B"].mu == pytest.approx(seat2[0].mu)


def test_prior_ratings_carry_over() -> None:
    """Rule: a league's ratings are the prior of its next round."""
    doc = compute_standings(COMPETITIVE, ["A", "B", "C"], cooperative=False, seed=1)
    carried = ratings_from_standings(doc)
    again = compute_standings(COMPETITIVE, ["A", "B", "C"], cooperative=False, seed=1, prior=carried)
    assert _row(again, "A")["rating"]["sigma"] < _row(doc, "A")["rating"]["sigma"]


COOPERATIVE = [
    _res(0, 0, "AAA", [30, 30, 30], team_score=30, reached=False, winners=[]),
    _res(1, 0, "AAB", [45, 45, 45], team_score=45, reached=True, winners=[0, 1, 2]),
    _res(2, 0, "BBB", [50, 50, 50], team_score=50, reached=True, winners=[0, 1, 2]),
    _res(3, 1, "AAA", [20, 20, 20], team_score=20, reached=False, winners=[]),
    _res(4, 1, "AAB", [40, 40, 40], team_score=40, reached=True, winners=[0, 1, 2]),
    _res(5, 1, "BBB", [44, 44, 44], team_score=44, reached=True, winners=[0, 1, 2]),
]


def test_cooperative_mean_score_and_threshold_rate() -> None:
    """Rule (Trick 'n Trouble): per seat-game mean team score, and the rate of reaching the threshold."""
    doc = compute_standings(COOPERATIVE, ["A", "B"], cooperative=True, seed=1)
    a, b = _row(doc, "A"), _row(doc, "B")
    # A sits 3+2+3+2 = 10 seat-games: 30*3 + 45*2 + 20*3 + 40*2 = 320
    assert a["games"] == 10 and a["mean_score"] == pytest.approx(32.0)
    assert a["threshold_rate"] == pytest.approx(4 / 10)
    # B: 1 + 3 + 1 + 3 = 8 seat-games: 45 + 150 + 40 + 132 = 367
    assert b["games"] == 8 and b["mean_score"] == pytest.approx(367 / 8)
    assert b["threshold_rate"] == pytest.approx(1.0)
    assert [r["entrant"] for r in doc["rows"]] == ["B", "A"]
    assert b["rating"]["mu"] > a["rating"]["mu"]


def test_cross_play_matrix_and_compositions() -> None:
    """Rule (cross-play): [a][b] mean of games with both; the diagonal is self-play."""
    doc = compute_standings(COOPERATIVE, ["A", "B"], cooperative=True, seed=1)
    cp = doc["cross_play"]
    assert cp["A"]["A"] == {"games": 2, "mean": 25.0}
    assert cp["B"]["B"] == {"games": 2, "mean": 47.0}
    assert cp["A"]["B"] == {"games": 2, "mean": 42.5}
    comps = {tuple(c["members"]): c for c in doc["compositions"]}
    assert comps[("A", "A", "B")]["mean_score"] == pytest.approx(42.5)
    assert comps[("A", "A", "A")]["threshold_rate"] == 0.0


@settings(max_examples=30, deadline=None)
@given(
    clusters=st.lists(st.lists(st.floats(-50, 50), min_size=1, max_size=4), min_size=2, max_size=8),
    seed=st.integers(0, 1000),
)
def test_bootstrap_interval_brackets_the_mean_and_is_deterministic(
    clusters: list[list[float]], seed: int
) -> None:
    """Property: the CI lies within the data range, is seeded (repeatable), and lo <= hi."""
    ci = bootstrap_ci(clusters, seed, resamples=200)
    assert ci is not None
    values = [v for c in clusters for v in c]
    assert min(values) - 1e-9 <= ci[0] <= ci[1] <= max(values) + 1e-9
    assert ci == bootstrap_ci(clusters, seed, resamples=200)


def test_separation_flags() -> None:
    """Rule: entrants whose intervals overlap are flagged as not yet separated."""
    assert overlaps((1, 3), (2, 4)) and not overlaps((1, 2), (3, 4)) and overlaps(None, (1, 2))
    results = [_res(i, i, "AB", [10 + i % 2, 0 + i % 3]) for i in range(12)]
    doc = compute_standings(results, ["A", "B"], cooperative=False, seed=1, resamples=300)
    assert _row(doc, "A")["separated"] and _row(doc, "B")["separated"]
    close = [_res(i, i, "AB", [i % 3, (i + 1) % 3]) for i in range(12)]
    doc = compute_standings(close, ["A", "B"], cooperative=False, seed=1, resamples=300)
    assert _row(doc, "A")["not_separated_from"] == ["B"]


def test_an_interval_from_too_few_deals_is_provisional_and_separates_no_one() -> None:
    """Rule: an interval over fewer than PROVISIONAL_DEALS (10) deals is marked provisional and
    separates its entrant from no one, however far apart the means (two deals of 10 against 0 gave
    a precise-looking interval before); from 10 deals on the same data separate. The live
    statistics (`statistics`) and the from-scratch standings agree."""
    assert PROVISIONAL_DEALS == 10
    for deals, provisional in ((2, True), (PROVISIONAL_DEALS - 1, True), (PROVISIONAL_DEALS, False)):
        results = [_res(i, i // 2, "AB", [10 + i % 2, i % 3]) for i in range(2 * deals)]
        doc = compute_standings(results, ["A", "B"], cooperative=False, seed=1, resamples=300)
        for row in doc["rows"]:
            assert row["score_ci"] is not None and row["provisional"] is provisional
            assert row["separated"] is not provisional
        lo_a, hi_a = _row(doc, "A")["score_ci"]
        lo_b, hi_b = _row(doc, "B")["score_ci"]
        assert hi_b < lo_a  # the intervals themselves are apart: only provisional keeps them together
        clusters = {b: {"d": [[d, 0.0, 2] for d in range(deals)], "v": None} for b in "AB"}
        clusters["A"]["d"] = [[d, 21.0, 2] for d in range(deals)]
        clusters["B"]["d"] = [[d, float(d % 3), 2] for d in range(deals)]
        stats = statistics(["A", "B"], clusters, seed=1, resamples=300)
        assert stats["A"]["pv"] is provisional and stats["A"]["nc"] == (1 if provisional else 0)


def test_one_value_has_no_interval() -> None:
    """Rule: with a single game there is no interval and nothing is separated."""
    assert bootstrap_ci([[3.0]], seed=1) is None
    doc = compute_standings([_res(0, 0, "AB", [2, 1])], ["A", "B"], cooperative=False, seed=1)
    assert _row(doc, "A")["score_ci"] is None and not _row(doc, "A")["separated"]
    assert Rating().ordinal == pytest.approx(0.0)


@st.composite
def _competitive_results(draw: st.DrawFn) -> tuple[list[str], list[dict[str, Any]]]:
    entrants = ["A", "B", "C", "D"][: draw(st.integers(2, 4))]
    results = []
    for index in range(draw(st.integers(1, 12))):
        seats = draw(st.lists(st.sampled_from(entrants), min_size=3, max_size=4))
        scores = draw(st.lists(st.integers(0, 20), min_size=len(seats), max_size=len(seats)))
        results.append(_res(index, index // 2, "".join(seats), scores))
    return entrants, results


@settings(max_examples=40, deadline=None)
@given(data=_competitive_results())
def test_standings_invariants(data: tuple[list[str], list[dict[str, Any]]]) -> None:
    """Properties: seat-games add up, every match has a winner, h2h is antisymmetric, CIs bracket means."""
    entrants, results = data
    doc = compute_standings(results, entrants, cooperative=False, seed=2, resamples=100)
    rows = {r["entrant"]: r for r in doc["rows"]}
    assert sum(r["games"] for r in rows.values()) == sum(len(r["seats"]) for r in results)
    assert sum(r["wins"] for r in rows.values()) >= len(results)
    assert all(r["shared_wins"] <= r["wins"] <= r["games"] for r in rows.values())
    h2h = doc["head_to_head"]
    for a in entrants:
        for b in entrants:
            if a != b:
                assert h2h[a][b]["wins"] == h2h[b][a]["losses"] and h2h[a][b]["ties"] == h2h[b][a]["ties"]
    for row in rows.values():
        if row["score_ci"] is not None:
            lo, hi = row["score_ci"]
            assert lo - 1e-9 <= row["mean_score"] <= hi + 1e-9 or row["games"] < 3
    assert [r["rank"] for r in doc["rows"]] == list(range(1, len(entrants) + 1))
