"""The web pages: tournaments, leagues and a game viewer, plain HTML/CSS/JS served by the API.

The pages are static files (`static/`); they read the public games API (getGame, the event
stream) and a few read-only JSON documents under `/web/data/` that assemble what one page shows
in one request (a tournament with a page of its standings, its rating lines and a window of its
matches; the frames of a finished game re-simulated from its replay). The data routes are outside
openapi.yaml on purpose: they are the pages' private backend, not part of the API contract.

Every data document is bounded whatever the history behind it: a standings page of at most
`harness.tournaments.STANDINGS_PAGE_MAX` rows (``offset``, ``limit``; by default
`STANDINGS_PAGE_DEFAULT`), rating lines for the page's
first `CHART_LINES` entrants (at most `harness.standings.HISTORY_POINTS` points each), at most
`MAX_MATCH_WINDOW` matches (``matches_offset``, ``matches_limit``, by default `MATCH_WINDOW`),
a bot's page at most `harness.botrecords.MAX_PAGE` matches and its latest
`harness.botrecords.LEAGUES_SHOWN` leagues,
the latest `ROUNDS_SHOWN` rounds of a league. The home page reads the public listings
(listTournaments, listLeagues: names, games, statuses and counts, a bounded page each).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, request, send_from_directory

from api.bot_records_api import CURSOR_PATTERN
from api.context import app_context
from api.schemas import GAME_ID_PATTERN
from core.bot_registry import BotNotFound
from core.errors import ServiceError
from core.service import GameService
from games.base import GameError
from games.registry import get_game
from harness import botrecords
from harness import tournaments as t
from harness.ratings import Rating, competitive_events, cooperative_events, rate
from harness.runner import HarnessContext

if TYPE_CHECKING:
    from api.blueprint_util import Api

STATIC = Path(__file__).resolve().parent / "static"
MAX_FRAMES = 5000  # a finished game has a few hundred actions; this bounds a pathological one
CHART_LINES = 12
MATCH_WINDOW = 50
MAX_MATCH_WINDOW = 200
ROUNDS_SHOWN = 20
ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")

bp = Blueprint("web", __name__, url_prefix="/web")


def _service() -> GameService:
    return app_context().service


def _context() -> HarnessContext:
    """The app's harness context (the same pool and settings as every other route)."""
    return app_context().harness


def _check_id(value: str) -> str:
    if not value or len(value) > 64 or not set(value) <= ID_CHARS:
        abort(404)
    return value


def _not_found(message: str) -> Response:
    response = jsonify({"code": "not_found", "message": message})
    response.status_code = 404
    return response


# -- pages ----------------------------------------------------------------------------------------
@bp.get("/")
def index() -> Response:
    """The home page: tournaments and leagues."""
    return send_from_directory(STATIC, "index.html")


# Pages with an id in their path: the page reads the id from its own URL.
ID_PAGES = {
    "tournaments": "tournament.html",
    "leagues": "league.html",
    "games": "viewer.html",
    "bots": "bot.html",
}


@bp.get("/<kind>/<ident>")
def id_page(kind: str, ident: str) -> Response:
    """A tournament (standings, chart, heat map, matches), a league, a bot, or the game viewer."""
    page = ID_PAGES.get(kind)
    if page is None:
        abort(404)
    _check_id(ident)
    return send_from_directory(STATIC, page)


@bp.get("/static/<path:name>")
def static_file(name: str) -> Response:
    """The pages' CSS and JS."""
    return send_from_directory(STATIC, name, max_age=300)


# -- data -----------------------------------------------------------------------------------------
def _names(ctx: HarnessContext, ids: list[str]) -> dict[str, str]:
    """Bot id -> name (the id for an unknown bot), in one round trip."""
    unique = list(dict.fromkeys(ids))
    pipe = ctx.bots.client.pipeline(transaction=False)
    for bot_id in unique:
        pipe.hget(ctx.bots.key_for("bot", bot_id), "name")
    return {b: (n.decode() if n is not None else b) for b, n in zip(unique, pipe.execute(), strict=True)}


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    """A bounded integer query argument (the default when absent or not a number)."""
    try:
        value = int(request.args.get(name, default))
    except ValueError:
        value = default
    return max(low, min(high, value))


def _by() -> str:
    """The standings' `by` argument: ``version`` (a row per bot version) or ``bot`` (the default)."""
    return "version" if request.args.get("by") == "version" else "bot"


def rating_history(results: list[dict[str, Any]], cooperative: bool, prior: dict[str, Any]) -> dict[str, Any]:
    """Each entrant's OpenSkill mu/ordinal after every rating event, from scratch (the reference the
    stored, thinned lines of `harness.tournaments.rating_history` end at; the pages read those)."""

    ordered = sorted(results, key=lambda r: int(r["index"]))
    events = cooperative_events(ordered) if cooperative else competitive_events(ordered)
    ratings: dict[str, Rating] = {b: Rating(mu, sigma) for b, (mu, sigma) in prior.items()}
    series: dict[str, list[dict[str, float]]] = {}
    bots = sorted({b for ev in events for team in ev.teams for b in team} | set(ratings))
    for bot in bots:
        start = ratings.get(bot, Rating())
        series[bot] = [{"mu": start.mu, "ordinal": start.ordinal}]
    for event in events:
        ratings = rate([event], ratings)
        for bot in bots:
            now = ratings.get(bot, Rating())
            series[bot].append({"mu": now.mu, "ordinal": now.ordinal})
    return {"events": len(events), "series": series}


@bp.get("/data/tournaments/<tid>")
def tournament_data(tid: str) -> Response:
    """What the tournament page shows: a page of standings, its rating lines, a window of matches."""

    _check_id(tid)
    ctx = _context()
    try:
        info = t.get_tournament(ctx, tid)
    except t.TournamentNotFound:
        return _not_found(f"no tournament {tid}")
    offset = _int_arg("offset", 0, 0, 1_000_000)
    limit = _int_arg("limit", t.STANDINGS_PAGE_DEFAULT, 1, t.STANDINGS_PAGE_MAX)
    standings = t.get_standings(ctx, tid, offset, limit, _by())
    bots = list(dict.fromkeys(r["entrant"] for r in standings["rows"]))
    total = int(info["progress"]["total"])
    m_offset = _int_arg("matches_offset", 0, 0, max(0, total - 1))
    m_limit = _int_arg("matches_limit", MATCH_WINDOW, 1, MAX_MATCH_WINDOW)
    matches = t.list_matches(ctx, tid, m_offset, m_limit, {"status": info["status"], "total": total})
    info["entrants_total"] = len(info["entrants"])
    info["entrants"] = bots
    return jsonify(
        {
            "tournament": info,
            "names": _names(ctx, [*bots, *(b for m in matches for b in m["seats"])]),
            "standings": standings,
            "history": t.rating_history(ctx, f"t:{tid}", bots[:CHART_LINES]),
            "matches": matches,
            "matches_window": {"offset": m_offset, "limit": m_limit, "total": total},
        }
    )


@bp.get("/data/leagues/<lid>")
def league_data(lid: str) -> Response:
    """The league, a page of its standings over every round, its rating lines and latest rounds."""

    _check_id(lid)
    ctx = _context()
    try:
        info = t.league_overview(ctx, lid, rounds=ROUNDS_SHOWN)
    except t.LeagueNotFound:
        return _not_found(f"no league {lid}")
    offset = _int_arg("offset", 0, 0, 1_000_000)
    limit = _int_arg("limit", t.STANDINGS_PAGE_DEFAULT, 1, t.STANDINGS_PAGE_MAX)
    standings = t.league_standings(ctx, lid, offset, limit, _by())
    bots = list(dict.fromkeys(r["entrant"] for r in standings["rows"]))
    return jsonify(
        {
            "league": info,
            "names": _names(ctx, bots),
            "standings": standings,
            "rounds": info.pop("latest_rounds"),
            "history": t.rating_history(ctx, f"l:{lid}", bots[:CHART_LINES]),
        }
    )


@bp.get("/data/bots/<bot_id>")
def bot_data(bot_id: str) -> Response:
    """What a bot's page shows: the bot, its results per version, a page of its matches (newest
    first, `matches_limit`, `cursor`), the tournaments of that page whose standings flag it (most of
    its calls faulted, and why) and its rating line in each of its latest leagues."""

    _check_id(bot_id)
    ctx = _context()
    try:
        bot = ctx.bots.get(bot_id)
    except BotNotFound:
        return _not_found(f"no bot {bot_id}")
    limit = _int_arg("matches_limit", botrecords.DEFAULT_PAGE, 1, botrecords.MAX_PAGE)
    cursor = request.args.get("cursor") or None
    if cursor is not None and not re.fullmatch(CURSOR_PATTERN, cursor):
        cursor = None
    page = botrecords.bot_matches(ctx, bot_id, limit=limit, cursor=cursor)
    leagues = []
    for lid in botrecords.bot_leagues(ctx, bot_id):
        try:
            info = t.league_overview(ctx, lid, rounds=0)
        except t.LeagueNotFound:
            continue
        history = t.rating_history(ctx, f"l:{lid}", [bot_id])
        leagues.append(
            {
                "league_id": lid,
                "name": info.get("name"),
                "game": info["game"],
                "events": history["events"],
                "points": history["series"].get(bot_id, []),
            }
        )
    others = [b for m in page.matches for b in m["table"]]
    return jsonify(
        {
            "bot": bot,
            "versions": botrecords.version_summary(ctx, bot_id),
            "matches": page.matches,
            "next_cursor": page.next_cursor,
            "leagues": leagues,
            "flags": botrecords.tournament_flags(ctx, bot_id, [m["tournament_id"] for m in page.matches]),
            "names": _names(ctx, [bot_id, *others]),
        }
    )


def _perspectives(seats: int, raw: str | None) -> list[int | None]:
    if raw in (None, "", "spectator"):
        return [None]
    if raw == "all":
        return list(range(seats))
    try:
        seat = int(raw)
    except ValueError:
        abort(422)
    if not 0 <= seat < seats:
        abort(422)
    return [seat]


@bp.get("/data/games/<gid>/frames")
def game_frames(gid: str) -> Response:
    """A finished game re-simulated from its replay: the views after every action.

    `seat` is `spectator` (default), a seat number, or `all` (one view per seat per frame).
    Views of a finished game are computed from its replay, which the API only gives out once
    the game is over, so no hidden card of a running game leaves through here.
    """

    if not re.fullmatch(GAME_ID_PATTERN.strip("^$"), gid):
        return _not_found(f"no game {gid}")

    try:
        replay = _service().replay(gid)
    except ServiceError as error:
        response = jsonify(error.to_dict())
        response.status_code = error.status
        return response
    engine = get_game(replay["game"])
    perspectives = _perspectives(int(replay["seats"]), request.args.get("seat"))
    header, actions = replay["header"], replay["actions"][:MAX_FRAMES]
    try:
        state = engine.replay(header, [])
    except GameError as exc:
        return jsonify({"code": exc.code, "message": exc.message}), 409  # type: ignore[return-value]
    frames = [{"step": 0, "action": None, "views": [engine.view(state, p) for p in perspectives]}]
    for step, action in enumerate(actions, start=1):
        engine.apply(state, int(action["seat"]), action["move"])
        views = [engine.view(state, p) for p in perspectives]
        frames.append({"step": step, "action": action, "views": views})
    return jsonify(
        {
            "game_id": gid,
            "game": replay["game"],
            "seats": replay["seats"],
            "perspectives": perspectives,
            "result": replay["result"],
            "frames": frames,
        }
    )


def init_app(app: Flask) -> None:
    """Serve the pages under /web and send / to them."""
    app.register_blueprint(bp)

    if "/" not in {rule.rule for rule in app.url_map.iter_rules()}:
        app.add_url_rule("/", endpoint="web_root", view_func=lambda: current_app.redirect("/web/"))


def register(_api: Api, app: Flask) -> None:
    """Hook for the app factory's optional modules."""
    init_app(app)
