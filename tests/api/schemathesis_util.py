"""Running schemathesis against an app in-process, with real ids and keys: the setup the games, bots and
tournaments suites share.

Every check schemathesis has runs (`--checks all`): not_a_server_error, status_code / content_type /
response_headers / response_schema conformance, positive_data_acceptance, negative_data_rejection,
use_after_free, ensure_resource_availability, ignored_auth, missing_required_header,
unsupported_method, allow_header_conformance, max_response_time (no limit set), and
object_level_authorization (it needs two configured users to do anything; our keys are per resource,
and `ignored_auth` probes each with no key and with a wrong one). One check of ours is added:
`schema_valid_data_is_not_called_invalid` (below).

Generated ids rarely name anything, so `RealWorld` holds ids and keys of things that exist (games
with their seat tokens, bots served on loopback with their owner keys, tournaments, leagues) and an
auth provider puts them into most generated requests: the resource's id in the path (unless that path
is the negative part of the case), the key that owns it as Bearer (explicit auth, so `ignored_auth`
probes the same request with no key and with a wrong one), and real bot ids, keys and URLs into
request bodies where the schema leaves them free (unless the body is the negative part). What the run
creates (by createGame, createBot, ... and the stateful phase's links) joins the world.
"""

from __future__ import annotations

import collections
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES
from schemathesis.core.parameters import ParameterLocation
from schemathesis.engine import Status, events, from_schema
from schemathesis.generation.meta import TestPhase
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

from games.registry import GAMES

# positive_data_acceptance: what a schema-valid request may be answered besides 2xx/3xx.  A JSON
# Schema cannot say "this id exists" (404) or "still exists" (410, a deleted bot), "this key is the
# owner's" (401, 403), "legal now" or "your turn", "that name is free", "the tournament is still
# running" (409), "the game is still at version 7" (412), "this move is legal", "this URL is a live
# bot", "this cron fires" (422: rule answers, told apart from schema answers by
# `schema_valid_data_is_not_called_invalid`), or "the last check of this bot was 10 s ago" (429,
# checkBot's per-bot limit; the clients' rate limits are off in tests).
POSITIVE_EXPECTED = ["2xx", "3xx", "401", "403", "404", "409", "410", "412", "422", "429"]

# negative_data_rejection: schemathesis's refusals, and 412: postMove reads If-Match once the body is
# a valid move (a malformed one is 422 whatever If-Match says), so a 412 answers a case whose only
# invalid part is its If-Match header: a refusal that writes nothing, as a 422 would be.
NEGATIVE_EXPECTED = [*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "412"]

# Error codes that mean "the request does not fit the contract": a schema-valid request must never
# get one (a 422 to valid data must be a rule's answer, never a shape complaint; docs/api.md,
# Contract tests).
SCHEMA_CODES = frozenset(
    {
        "bad_request",
        "invalid_json",
        "json_too_deep",
        "number_out_of_range",
        "validation_error",
        "unknown_game",
        "body_too_large",
        "malformed_move",  # a schema-valid move the engine refuses is `illegal_move` (#26 row 9)
    }
)

KINDS = {
    "game_id": "games",
    "bot_id": "bots",
    "tournament_id": "tournaments",
    "league_id": "leagues",
    "challenge_id": "challenges",
}
# Share of generated requests that get a real id and key (the rest keep what was generated: 404s,
# 401s and 403s are exercised too).
REAL_SHARE = 0.85


@schemathesis.check
def schema_valid_data_is_not_called_invalid(ctx: Any, response: Any, case: Any) -> bool | None:
    """A positive (schema-valid) case must not be refused with a code that says it is malformed."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or is_unexpected_http_status_case(case):
        return None
    if not 400 <= response.status_code < 500 or "json" not in response.headers.get("content-type", [""])[0]:
        return None
    try:
        code = response.json().get("code")
    except (ValueError, AttributeError):
        return None
    if code in SCHEMA_CODES:
        raise AssertionError(f"schema-valid data refused as malformed: {response.status_code} {code}")
    return None


@dataclass
class RealWorld:
    """Things that exist, with the keys that own them, for generated requests to address."""

    games: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # id -> (game, seat tokens)
    bots: dict[str, str] = field(default_factory=dict)  # id -> owner key
    bot_urls: list[str] = field(default_factory=list)  # loopback bots that answer GET /
    tournaments: dict[str, str] = field(default_factory=dict)  # id -> owner key
    leagues: dict[str, str] = field(default_factory=dict)  # id -> owner key
    challenges: dict[str, str] = field(default_factory=dict)  # id -> "" (no key owns a challenge)
    rng: random.Random = field(default_factory=lambda: random.Random(17))

    def pool(self, kind: str) -> dict[str, Any]:
        """The ids of one kind (`games`, `bots`, `tournaments`, `leagues`) with what owns them."""
        pool: dict[str, Any] = getattr(self, kind)
        return pool

    def key_of(self, kind: str, ident: str) -> str | None:
        """The key that owns `ident` (a random seat's token for a game), None for an unknown id."""
        owned = self.pool(kind).get(ident)
        if owned is None:
            return None
        if kind == "games":
            tokens: list[str] = owned[1]
            return self.rng.choice(tokens) if tokens else None
        key: str = owned
        return key

    def pick(self, kind: str, path: str) -> str | None:
        """A real id of `kind` (a game of the game named in `path`, if it names one), or None."""
        ids = list(self.pool(kind))
        if kind == "games":
            named = [g for g in GAMES if f"/{g}/" in path]
            ids = [i for i in ids if not named or self.games[i][0] in named]
        return self.rng.choice(ids) if ids else None

    def learn(self, operation_id: str, status: int, body: Any) -> None:
        """Add what a successful create, join or key rotation answered."""
        if not isinstance(body, dict) or not 200 <= status < 300:
            return
        if operation_id == "createGame":
            self.games[body["game_id"]] = (body["game"], [t["token"] for t in body["tokens"]])
        elif operation_id == "joinGame" and body["game_id"] in self.games:
            self.games[body["game_id"]][1].append(body["token"])
        elif operation_id in ("createBot", "rotateBotKeys") and body.get("owner_key"):
            self.bots[body["bot"]["id"]] = body["owner_key"]
        elif operation_id == "createTournament":
            self.tournaments[body["tournament_id"]] = body["owner_key"]
        elif operation_id == "rotateTournamentKey":
            self.tournaments[body["tournament"]["tournament_id"]] = body["owner_key"]
        elif operation_id == "createLeague":
            self.leagues[body["league_id"]] = body["owner_key"]
        elif operation_id == "rotateLeagueKey":
            self.leagues[body["league"]["league_id"]] = body["owner_key"]
        elif operation_id == "createChallenge":
            self.challenges[body["challenge_id"]] = ""


@dataclass
class _Choice:
    path: dict[str, Any]
    body: dict[str, Any]
    key: str | None


def _secured(case: Any) -> bool:
    security = case.operation.definition.raw.get("security")
    return bool(security) and all(requirement for requirement in security)


def _optional_key(case: Any) -> bool:
    security = case.operation.definition.raw.get("security") or []
    return any(not requirement for requirement in security) and any(security)


class RealIdsAndKeys:
    """schemathesis auth provider: puts real ids into paths and bodies and the owning key as Bearer."""

    def __init__(self, world: RealWorld) -> None:
        self.world = world

    def get(self, case: Any, ctx: Any) -> _Choice | None:
        """What to put into this case; None leaves the generated request as it is."""
        world, meta = self.world, case.meta
        if world.rng.random() > REAL_SHARE:
            return None
        negative_path = meta is not None and meta.is_negative_at(ParameterLocation.PATH)
        negative_body = meta is not None and meta.is_negative_at(ParameterLocation.BODY)
        stateful = meta is not None and meta.phase.name == TestPhase.STATEFUL
        params = dict(case.path_parameters or {})
        choice = _Choice({}, {}, None)
        for name in params:
            kind = KINDS.get(name)
            if kind is None or negative_path or stateful:
                continue  # a stateful case's ids come from the links: keep them
            ident = world.pick(kind, case.operation.path)
            if ident is not None:
                choice.path[name] = ident
        if "index" in params and not (negative_path or stateful):
            choice.path["index"] = world.rng.randrange(3)  # a tournament's first matches exist
        params.update(choice.path)
        body = case.body if isinstance(case.body, dict) and not negative_body else None
        if body is not None:
            choice.body = _real_body(world, case.operation.definition.raw.get("operationId", ""), body)
        owner: tuple[str, str] | None = None
        bot = choice.body.get("bot_id") or (body or {}).get("bot_id") or params.get("bot_id")
        if bot is not None and "league_id" in params:
            owner = ("bots", bot)  # league membership: the bot's owner key
        else:
            for name, value in params.items():
                if name in KINDS:
                    owner = (KINDS[name], value)
        if owner is not None:
            choice.key = world.key_of(*owner)
        elif _secured(case) or _optional_key(case):
            kind = case.operation.path.strip("/").split("/")[0]
            if kind in KINDS.values() and world.pool(kind):
                choice.key = world.key_of(kind, world.rng.choice(list(world.pool(kind))))
        if not (_secured(case) or _optional_key(case)):
            choice.key = None
        if not choice.path and not choice.body and choice.key is None:
            return None
        return choice

    def set(self, case: Any, choice: _Choice, ctx: Any) -> None:
        """Apply the choice to the case."""
        if choice.path:
            case.path_parameters = {**(case.path_parameters or {}), **choice.path}
        if choice.body:
            case.body = {**case.body, **choice.body}
        if choice.key is not None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {choice.key}"}


def _real_body(world: RealWorld, operation_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """Real values for the body fields that name things (a live bot's URL, real bots with their keys)
    or that only some values of the schema's make work (a table size the game is played at, a cron
    that fires), so that generated creations succeed too."""
    rng = world.rng
    real: dict[str, Any] = {}
    if "url" in body and world.bot_urls and re.search(r"Bot$", operation_id):
        real["url"] = rng.choice(world.bot_urls)
    if isinstance(body.get("entrants"), list) and world.bots:
        entrants = rng.sample(list(world.bots), min(len(body["entrants"]), len(world.bots)))
        real.update(entrants=entrants, owner_keys=sorted({world.bots[b] for b in entrants}))
    if "bot_id" in body and world.bots:
        real["bot_id"] = rng.choice(list(world.bots))
    if body.get("game") in GAMES and isinstance(body.get("seats"), int):
        real["seats"] = rng.choice(list(GAMES[body["game"]].seat_counts))
    if isinstance(body.get("cron"), str):
        real["cron"] = "17 3 * * *"
    if operation_id == "createChallenge" and body.get("game") in GAMES and world.bots:
        # a person at seat 0 and (open) bots at the others
        seats = rng.choice(list(GAMES[body["game"]].seat_counts))
        real.update(seats=seats, people=[0], bots=[rng.choice(list(world.bots)) for _ in range(seats - 1)])
    return real


@dataclass
class SchemathesisRun:
    """What one run found: cases per phase and per operation, answers, failed checks, engine errors."""

    cases: collections.Counter[str] = field(default_factory=collections.Counter)
    cases_by_operation: collections.Counter[str] = field(default_factory=collections.Counter)
    statuses: collections.Counter[tuple[str, int]] = field(default_factory=collections.Counter)
    modes: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    checks: collections.Counter[str] = field(default_factory=collections.Counter)
    positive_codes: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def report(self) -> str:
        """Cases per phase and operation, answers per operation and the checks run (pytest -s shows it)."""
        lines = [f"cases per phase {dict(self.cases)}, total {sum(self.cases.values())}"]
        for label, count in sorted(self.cases_by_operation.items()):
            answers = {s: n for (op, s), n in sorted(self.statuses.items()) if op == label}
            modes = {m: n for (op, m), n in sorted(self.modes.items()) if op == label}
            refusals = {c: n for (op, c), n in sorted(self.positive_codes.items()) if op == label and c}
            lines.append(f"  {label}: {count} cases {modes}, answers {answers}, to valid data {refusals}")
        lines.append(f"  checks run: {dict(sorted(self.checks.items()))}")
        return "\n".join(lines)


def run_schemathesis(
    base_url: str,
    operations: Sequence[str],
    max_examples: int,
    world: RealWorld | None = None,
    phases: Sequence[str] | None = None,
    expected_statuses: Sequence[str] = POSITIVE_EXPECTED,
) -> SchemathesisRun:
    """Every schemathesis check over `operations` of the /openapi.json the API at `base_url` serves (over
    real HTTP; all phases unless given)."""
    loaded = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    # (`operation_id=` would also take every operation whose id starts with one of these)
    schema = loaded.include(operation_id_regex=f"^({'|'.join(sorted(operations))})$")
    config = schema.config
    config.checks.update(included_check_names=["all"])
    config.checks.positive_data_acceptance.expected_statuses = list(expected_statuses)
    config.checks.negative_data_rejection.expected_statuses = NEGATIVE_EXPECTED
    config.generation.update(max_examples=max_examples)
    if phases is not None:
        config.phases.update(phases=list(phases))
    if world is not None:
        schema.auth.providers.append(RealIdsAndKeys(world))
        schema.hook("after_call")(_learner(world))
    run = SchemathesisRun()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            _record(run, event)
        elif isinstance(event, events.NonFatalError):
            run.errors.append(f"{event.label}: {event.value!r}")
        elif isinstance(event, events.FatalError):
            run.errors.append(f"fatal: {event.exception!r}")
    return run


def _learner(world: RealWorld) -> Callable[[Any, Any, Any], None]:
    def after_call(context: Any, case: Any, response: Any) -> None:
        try:
            body = response.json()
        except ValueError:
            return
        operation_id = case.operation.definition.raw.get("operationId", "")
        world.learn(operation_id, response.status_code, body)

    after_call.__name__ = "after_call"
    return after_call


def _record(run: SchemathesisRun, event: Any) -> None:
    recorder = event.recorder
    run.cases[str(event.phase).rsplit(".", 1)[-1].lower()] += len(recorder.cases)
    for case_id, node in recorder.cases.items():
        case = node.value
        label = case.operation.label
        run.cases_by_operation[label] += 1
        if case.meta is not None:
            run.modes[(label, str(case.meta.generation.mode.value))] += 1
        interaction = recorder.interactions.get(case_id)
        # (the checks' own probes, OPTIONS for one, are recorded too: count the case's request only)
        if interaction is not None and interaction.response is not None:
            if interaction.request.method.upper() == case.method.upper():
                run.statuses[(label, interaction.response.status_code)] += 1
                if case.meta is not None and case.meta.generation.mode.is_positive:
                    run.positive_codes[(label, _code(interaction.response))] += 1
    for case_id, checks in recorder.checks.items():
        for check in checks:
            run.checks[check.name] += 1
            if check.status == Status.FAILURE:
                run.failures.append(_describe(recorder, case_id, check))


def _code(response: Any) -> str:
    """The error code of an answer ("" for a success or a body that is not an error)."""
    if response.status_code < 400:
        return ""
    try:
        body = json.loads(response.content)
    except ValueError:
        return str(response.status_code)
    return f"{response.status_code} {body.get('code')}" if isinstance(body, dict) else ""


def _describe(recorder: Any, case_id: str, check: Any) -> str:
    case = recorder.cases[case_id].value
    interaction = recorder.interactions.get(case_id)
    status = interaction.response.status_code if interaction and interaction.response else None
    text = interaction.response.content[:300] if interaction and interaction.response else b""
    info = check.failure_info.failure if check.failure_info else None
    request = f"{case.method} {case.formatted_path} headers={case.headers!r} body={case.body!r}"
    return f"{check.name} on {case.operation.label}: {request} -> {status} {text!r}: {info}"


def assert_every_operation_covered(run: SchemathesisRun, operations: Sequence[str], minimum: int) -> None:
    """Each operation got `minimum` cases, positive and negative ones, and answered 2xx at least once."""
    labels = {label for label in run.cases_by_operation if not label.startswith("Stateful")}
    assert len(labels) == len(operations), sorted(labels)
    for label in labels:
        assert run.cases_by_operation[label] >= minimum, (label, run.cases_by_operation[label])
        assert run.modes[(label, "positive")] and run.modes[(label, "negative")], label
        assert any(200 <= s < 300 for (op, s) in run.statuses if op == label), (label, run.report())
