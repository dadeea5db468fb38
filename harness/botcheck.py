"""`trickarena bot check`: try a bot the way the platform will use it, and say in plain words what
is wrong before it costs a tournament.

The check sends a signed `GET /`, then for every game the bot declares a `/start`, `/move` for a
sample of every decision type (`decision_type`, the view's `phase` and the optional fields of its
moves: e.g. Tricky Teams' `choose-leader`, `play`, `play+wish` (a Hypnotist's wish),
`take-loot`) and `/end`, from real positions reached with the game's own engine. It calls the bot
through the harness's own client (`harness.bot_client.BotClient`, over `core.outbound`'s pinned
session), so an answer passes here exactly when the match runner would accept it; it also checks
that a request with a wrong signature is refused, as the protocol asks.

Time is judged by the match runner's own policy (`core.timing.TimePolicy`): the samples of a game
draw on one time bank, as one seat's moves of a match do (each call bounded by the deadline plus
what is left of the bank, an answer past it a timeout), and the answer times are then played
through a whole game's worth of decisions (`game_decisions`: how many of each type a seat makes in
a game): a bot whose answers would use up the bank over a game fails, as it would fault in a
match. After the first timeout of a decision type, its other samples are skipped (each would wait
for the deadline too), so a slow bot fails in seconds, not minutes.

For the API (`POST /bots/{id}/check`): `check_registered(ctx, bot_id, owner_key)` checks a stored
bot with its stored secret under the operator's address policy; `CheckReport.to_dict()` is the
answer's body. `budget_s` bounds a whole check: it never starts a call that could end past the
budget, and says so in a finding instead.
"""

from __future__ import annotations

import http.client
import ipaddress
import random
import statistics
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from marshmallow import ValidationError

from bots.protocol import DEFAULT_TOLERANCE_S, BotInfoSchema, FaultCode
from core.bot_registry import PROBE_TIMEOUT_S, BotDeleted
from core.outbound import AddressPolicy, BotSession, OutboundError, Response
from core.timing import DEFAULT, TimePolicy
from games.registry import GAMES
from harness.bot_client import BotClient, move_request
from harness.runner import HarnessContext

PEEK_BYTES = 512  # how much of an answer the report quotes
SAMPLES_PER_DECISION = 2
SAMPLE_GAMES = 4  # random games played per seat count to find every decision type

OK, WARNING, ERROR = "ok", "warning", "error"

# Every address: the person running `trickarena bot check` names the URL themselves.
ANY_ADDRESS = AddressPolicy(
    (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))  # noqa: S104 (not a bind)
)

# What the SDK's 401 codes mean for the person who runs the bot.
SIGNATURE_HINTS = {
    "bad_signature": "is the secret right? The bot must run with the secret the platform signs with",
    "no_secret": "the bot runs without a secret: start it with $TRICKARENA_BOT_SECRET set",
    "stale_signature": f"is the bot's clock right? Signatures {DEFAULT_TOLERANCE_S} s off are refused",
    "missing_signature": "the bot did not see the X-TrickArena-Signature/-Timestamp headers",
    "bad_timestamp": "the bot could not read X-TrickArena-Timestamp (unix seconds)",
}
STATUS_HINTS = {
    400: "the bot could not read the platform's request: compare its parsing with docs/bot-protocol.md",
    404: "a bot must answer GET /, POST /start, POST /move and POST /end (is the URL's path right?)",
    405: "a bot must accept POST on /start, /move and /end",
    500: "the bot failed on this request: look at its log",
}


@dataclass
class Finding:
    """One step of the check: what was sent, how it went, and what to do about it."""

    step: str
    severity: str  # ok | warning | error
    message: str
    elapsed_ms: float | None = None
    fault: str | None = None  # the FaultCode the runner would record, if any
    status: int | None = None  # the bot's HTTP status, when it answered
    body: str | None = None  # the first bytes of a refused or unusable answer

    def to_dict(self) -> dict[str, Any]:
        """JSON form (None fields left out)."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class CheckReport:
    """Every finding of one check, in order."""

    url: str
    info: dict[str, Any] | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing would fail in a match (warnings allowed)."""
        return all(f.severity != ERROR for f in self.findings)

    def add(self, step: str, severity: str, message: str, **extra: Any) -> Finding:
        """Append a finding."""
        finding = Finding(step, severity, message, **extra)
        self.findings.append(finding)
        return finding

    def to_dict(self) -> dict[str, Any]:
        """JSON form: `ok`, counts, the bot's info and every finding."""
        return {
            "url": self.url,
            "ok": self.ok,
            "errors": sum(f.severity == ERROR for f in self.findings),
            "warnings": sum(f.severity == WARNING for f in self.findings),
            "info": self.info,
            "findings": [f.to_dict() for f in self.findings],
        }

    def lines(self, width: int = 80) -> list[str]:
        """The report as text lines of at most `width` columns, then a verdict.

        A passed step is a line (`ok`, its time, the step, what it did; wrapped, never cut); a
        warning or a problem is followed by its explanation, wrapped and indented.
        """
        mark = {OK: "ok  ", WARNING: "warn", ERROR: "FAIL"}
        out = []
        for f in self.findings:
            took = f"{f.elapsed_ms:>5.0f} ms" if f.elapsed_ms is not None else " " * 8
            head = f"{mark[f.severity]} {took}  {f.step}"
            if f.severity == OK:
                out += textwrap.wrap(f"{head}: {f.message}", width, subsequent_indent=" " * 6)
                continue
            out += textwrap.wrap(head, width, subsequent_indent=" " * 6)
            out += textwrap.wrap(f.message, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
        errors = sum(f.severity == ERROR for f in self.findings)
        warnings = sum(f.severity == WARNING for f in self.findings)
        verdict = (
            f"{errors} problem(s), {warnings} warning(s): the bot is not ready"
            if errors
            else f"all good ({warnings} warning(s)): the bot answers as the platform expects"
        )
        out += textwrap.wrap(verdict, width)
        return out


# --------------------------------------------------------------------------- transport


class _Peek:
    """The status and first bytes of the last answer a RecordingSession read."""

    status: int | None = None
    body: bytes = b""


def _peeking_response(peek: _Peek) -> type[http.client.HTTPResponse]:
    class PeekingResponse(http.client.HTTPResponse):
        """http.client's response, copying its status and first bytes into `peek` as they are read."""

        def begin(self) -> None:
            super().begin()
            peek.status, peek.body = self.status, b""

        def read1(self, n: int = -1) -> bytes:
            chunk = super().read1(n)
            if len(peek.body) < PEEK_BYTES:
                peek.body += chunk[: PEEK_BYTES - len(peek.body)]
            return chunk

    return PeekingResponse


class RecordingSession(BotSession):
    """The runner's pinned, bounded session, also keeping what the bot answered (`peek`): a refused
    or unusable answer is reported with its status and first bytes."""

    def __init__(self, url: str, secret: str | None, policy: AddressPolicy | None) -> None:
        super().__init__(url, secret=secret, policy=policy)
        self.peek = _Peek()
        self._conn.response_class = _peeking_response(self.peek)

    def request(self, method: str, path: str, payload: Any = None, timeout_s: float = 5.0) -> Response:
        """`BotSession.request`, the peek cleared first."""
        self.peek.status, self.peek.body = None, b""
        return super().request(method, path, payload, timeout_s)


class CheckClient(BotClient):
    """The harness's bot client (its answer validation, its faults) over a RecordingSession."""

    def __init__(self, url: str, secret: str | None, policy: AddressPolicy | None) -> None:
        super().__init__(url, secret, policy)
        self.recording: RecordingSession | None = None
        if self._session is not None:
            self._session.close()
            self.recording = RecordingSession(url, secret, policy)
            self._session = self.recording

    def answer_of_last(self) -> tuple[int | None, bytes]:
        """The status and first bytes of the last answer (None, b"" if there was none)."""
        if self.recording is None:
            return None, b""
        return self.recording.peek.status, self.recording.peek.body


# --------------------------------------------------------------------------- plain words


def _quote(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    return text if len(text) <= 160 else text[:157] + "..."


def explain_status(status: int | None, body: bytes) -> str:
    """ "answered 401 bad_signature: is the secret right?" from a refused answer's status and body."""
    code = message = None
    try:
        parsed = orjson.loads(body)
        if isinstance(parsed, dict):
            code, message = parsed.get("code"), parsed.get("message")
    except orjson.JSONDecodeError:
        pass
    said = f" {code}" if isinstance(code, str) else (f" ({_quote(body)!r})" if body else "")
    hint = SIGNATURE_HINTS.get(code) if isinstance(code, str) else None
    if hint is None and status is not None:
        hint = STATUS_HINTS.get(status if status < 500 else 500)
    if hint is None and isinstance(message, str):
        hint = message
    if status is not None and 300 <= status < 400:
        hint = "redirects are never followed: give the bot's final URL"
    return f"answered {status}{said}" + (f": {hint}" if hint else "")


def explain_fault(
    fault: str, detail: str, status: int | None, body: bytes, url: str, timeout_ms: float
) -> str:
    """A fault code (`bots.protocol.FaultCode`) in plain words, with what to do about it."""
    if fault == FaultCode.HTTP_STATUS:
        return explain_status(status, body)
    if fault == FaultCode.CONNECTION_ERROR:
        return f"could not connect ({detail}): is the bot running and listening at {url}?"
    if fault == FaultCode.TIMEOUT:
        return f"no complete answer within {timeout_ms:.0f} ms: the bot is too slow, or hangs"
    if fault == FaultCode.RESPONSE_TOO_LARGE:
        return "the answer is over 256 KiB: answer with the move alone"
    if fault == FaultCode.MALFORMED_BODY:
        return f'the answer is not JSON {{"move": {{...}}}}; it began {_quote(body)!r}'
    if fault == FaultCode.ILLEGAL_MOVE:
        return (
            f"answered {_quote(body)}, which is not one of the legal moves: answer one of "
            "`legal_moves` verbatim (same fields, same values)"
        )
    if fault == FaultCode.FORBIDDEN_ADDRESS or fault == "invalid_url":
        return f"{detail}: the platform will not call this URL"
    return f"{fault}: {detail}"


# --------------------------------------------------------------------------- samples


@dataclass
class Sample:
    """A real position of a game at which a seat must decide: the runner's `/move` message fields."""

    game: str
    phase: str
    seats: int
    seat: int
    options: dict[str, Any]
    view: dict[str, Any]
    legal_moves: list[dict[str, Any]]
    match_id: str
    decision: str = ""  # its decision type (`decision_type`): the phase, `play+wish` say


def decision_type(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> str:
    """A decision's type as the check samples it (and docs/bot-views.md shows it): the view's
    `phase` (else its legal moves' types), plus `+field` for each optional field that some legal
    moves of one `type` carry and others not (Tricky Teams' Hypnotist `wish`: `play+wish`)."""
    phase = str(view.get("phase") or "/".join(sorted({str(m.get("type")) for m in legal_moves})))
    some: dict[str, set[str]] = {}  # per move type: the fields some of its moves have
    every: dict[str, set[str]] = {}  # and those all of them have
    for move in legal_moves:
        kind = str(move.get("type"))
        some.setdefault(kind, set()).update(move)
        every[kind] = every[kind] & set(move) if kind in every else set(move)
    extra = {k for kind, fields in some.items() for k in fields - every[kind]}
    return phase + "".join(f"+{k}" for k in sorted(extra))


def decision_samples(game_name: str, per_decision: int = SAMPLES_PER_DECISION, seed: int = 1) -> list[Sample]:
    """Up to `per_decision` positions of every decision type of a game (`decision_type`), reached by
    random legal play over every seat count, with the engine's public API (`new_game`,
    `legal_moves`, `apply`, `view`)."""
    return _sample_games(game_name, per_decision, seed, GAMES[game_name].quick_options)[0]


def game_decisions(game_name: str, seed: int = 1) -> dict[str, float]:
    """How many decisions of each type (`decision_type`) one seat makes in a game with the game's
    default options, on average over random games, at the seat count where a seat decides most: the
    whole game's worth of answers that one time bank must cover."""
    return _sample_games(game_name, 0, seed, {})[1]


def _sample_games(
    game_name: str, per_decision: int, seed: int, game_options: Mapping[str, Any]
) -> tuple[list[Sample], dict[str, float]]:
    """Random games with `game_options`: up to `per_decision` samples of each decision type, and
    how many decisions of each type a seat makes in a game (`game_decisions`)."""
    game = GAMES[game_name]
    rng = random.Random(seed)
    found: dict[str, list[Sample]] = {}
    most: dict[str, float] = {}
    for seats in game.seat_counts:
        counts: dict[str, int] = {}
        for n in range(SAMPLE_GAMES):
            options = dict(game_options)
            state = game.new_game(seats, options or None, seed=rng.randrange(2**31))
            match_id = f"check-{game_name}-{seats}-{n}"
            while not game.is_over(state):
                seat = game.to_move(state)[0]
                legal = game.legal_moves(state, seat)
                view = game.view(state, seat)
                kind = decision_type(view, legal)
                counts[kind] = counts.get(kind, 0) + 1
                bucket = found.setdefault(kind, [])
                # The first of a type, and later ones at random: a lead and a follow, say.
                if len(bucket) < per_decision and (not bucket or rng.random() < 0.1):
                    phase = str(view.get("phase") or kind)
                    bucket.append(Sample(game_name, phase, seats, seat, options, view, legal, match_id, kind))
                game.apply(state, seat, rng.choice(legal))
        per_seat = {kind: n / (SAMPLE_GAMES * seats) for kind, n in counts.items()}
        if sum(per_seat.values()) > sum(most.values()):
            most = per_seat
    return [s for bucket in found.values() for s in bucket], most


# --------------------------------------------------------------------------- the check


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


class _Checker:
    def __init__(
        self,
        url: str,
        secret: str | None,
        policy: AddressPolicy | None,
        timing: TimePolicy,
        budget_s: float | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.secret = secret
        self.policy = policy
        self.timing = timing
        self.deadline_ms = timing.deadline_ms
        self.time_bank_ms = timing.time_bank_ms
        self.report = CheckReport(self.url)
        self.forged_checked = False
        self.notified: dict[str, int] = {}
        self.budget_s = budget_s
        self.started = time.monotonic()
        self.stopped = False

    def out_of_time(self, timeout_s: float) -> bool:
        """Whether a call of up to `timeout_s` could end past the budget; the first time, a finding."""
        if self.budget_s is None:
            return False
        if not self.stopped and time.monotonic() - self.started + timeout_s <= self.budget_s:
            return False
        if not self.stopped:
            self.stopped = True
            self.report.add(
                "time budget",
                ERROR,
                f"the check stopped after {time.monotonic() - self.started:.0f} s: the next call could "
                f"take it past its {self.budget_s:.0f} s budget (the bot answers too slowly to check "
                "everything)",
            )
        return True

    def call(
        self, client: CheckClient, step: str, method: str, path: str, payload: Any, timeout_s: float
    ) -> tuple[Any, Finding | None]:
        """One call; (the decoded answer or None, the error finding if it failed)."""
        session = client.recording
        if session is None:  # the URL itself is refused (invalid, forbidden address)
            return None, self.report.add(step, ERROR, explain_fault(*self._setup_fault(), 0.0))
        if self.out_of_time(timeout_s):
            return None, self.report.findings[-1]
        started = time.monotonic()
        try:
            answer = session.request(method, path, payload, timeout_s)
            return answer.json(), None
        except OutboundError as exc:
            status, body = client.answer_of_last()
            message = explain_fault(str(exc.code), exc.message, status, body, self.url, timeout_s * 1000)
            return None, self.report.add(
                step,
                ERROR,
                message,
                elapsed_ms=_ms(time.monotonic() - started),
                fault=str(exc.code),
                status=status,
                body=_quote(body) if body else None,
            )

    def _setup_fault(self) -> tuple[str, str, int | None, bytes, str]:
        try:
            RecordingSession(self.url, self.secret, self.policy).close()
        except OutboundError as exc:
            return str(exc.code), exc.message, None, b"", self.url
        return FaultCode.CONNECTION_ERROR.value, "cannot reach the bot", None, b"", self.url

    def wait_until_up(self, client: CheckClient, wait_s: float) -> None:
        """Give a bot that is still starting up to `wait_s` seconds to accept a connection."""
        deadline = time.monotonic() + wait_s
        while client.recording is not None and time.monotonic() < deadline:
            try:
                client.recording.request("GET", "/", None, PROBE_TIMEOUT_S)
                return
            except OutboundError as exc:
                if exc.code != FaultCode.CONNECTION_ERROR:
                    return
            time.sleep(0.2)

    def info(self, client: CheckClient, games: list[str] | None) -> list[str]:
        """GET /: the bot's info, checked as at submission; the known games it declares."""
        started = time.monotonic()
        body, failed = self.call(client, "GET /", "GET", "/", None, PROBE_TIMEOUT_S)
        if failed is not None:
            return []
        elapsed = _ms(time.monotonic() - started)
        try:
            info = BotInfoSchema().load(body)
        except ValidationError as exc:
            self.report.add(
                "GET /",
                ERROR,
                f"the answer is not a bot info ({orjson.dumps(exc.messages).decode()}); expected "
                '{"name", "author", "version", "games": [...], "protocol": "1"}',
                elapsed_ms=elapsed,
            )
            return []
        self.report.info = info
        known = [g for g in info["games"] if g in GAMES]
        unknown = sorted(set(info["games"]) - set(GAMES))
        self.report.add(
            "GET /",
            OK,
            f"{info['name']} {info['version']} by {info['author'] or 'anonymous'}, plays "
            f"{', '.join(info['games'])}",
            elapsed_ms=elapsed,
        )
        if unknown:
            self.report.add(
                "GET /", WARNING, f"declares games the platform does not play: {', '.join(unknown)}"
            )
        for game in sorted(set(games or []) - set(info["games"])):
            self.report.add("GET /", ERROR, f"does not list {game}, which it is registered for")
        if not known:
            self.report.add("GET /", ERROR, f"declares none of the games played here: {', '.join(GAMES)}")
        return known

    def forged(self, sample: Sample) -> None:
        """A /move signed with another secret must be refused (else anyone could play the bot's seats)."""
        wait_s = self.timing.notify_timeout_ms / 1000
        if self.out_of_time(wait_s):
            return
        forger = CheckClient(self.url, (self.secret or "") + "-not-the-secret", self.policy)
        try:
            if forger.recording is None:
                return
            message = self.move_message(sample, None)
            try:
                forger.recording.request("POST", "/move", message, wait_s)
            except OutboundError as exc:
                status, _ = forger.answer_of_last()
                if exc.code == FaultCode.HTTP_STATUS and status is not None and 400 <= status < 500:
                    self.report.add("POST /move (wrong signature)", OK, f"refused with {status}, as it must")
                    return
                if exc.code == FaultCode.CONNECTION_ERROR:
                    self.report.add(
                        "POST /move (wrong signature)", OK, "refused (the bot closed the connection)"
                    )
                    return
                self.report.add("POST /move (wrong signature)", WARNING, f"failed: {exc.message}")
                return
            self.report.add(
                "POST /move (wrong signature)",
                WARNING,
                "accepted a request signed with another secret: a bot must check every signature "
                "(docs/bot-protocol.md, Signatures)",
            )
        finally:
            forger.close()

    def move_message(
        self, sample: Sample, previous: dict[str, Any] | None, bank_ms: int | None = None
    ) -> dict[str, Any]:
        return move_request(
            sample.match_id,
            sample.game,
            sample.seat,
            sample.view,
            sample.legal_moves,
            self.deadline_ms,
            self.time_bank_ms if bank_ms is None else bank_ms,
            previous,
        )

    def notify(self, client: CheckClient, path: str, message: dict[str, Any], game: str) -> bool:
        """POST /start or /end (the runner ignores the answer, but a refusal tells what is wrong);
        a success is counted, not reported one by one."""
        timeout_s = self.timing.notify_timeout_s()
        _answer, failed = self.call(client, f"POST {path} ({game})", "POST", path, message, timeout_s)
        if failed is None:
            self.notified[path] = self.notified.get(path, 0) + 1
        return failed is None

    def game(self, client: CheckClient, game: str) -> None:
        """/start, /move for every sample, /end, match by match; a refused /start ends the game's
        check (every other call would be refused the same way). The game's samples draw on one
        time bank (`_GameClock`), then a whole game's answers are projected through it."""
        samples = decision_samples(game)
        by_match: dict[tuple[str, int], list[Sample]] = {}
        for sample in samples:
            by_match.setdefault((sample.match_id, sample.seat), []).append(sample)
        if not self.forged_checked:
            self.forged_checked = True
            self.forged(samples[0])
        self.notified = {}
        clock = _GameClock(self.timing.time_bank_ms)
        for (match_id, seat), group in by_match.items():
            first = group[0]
            start = {
                "match_id": match_id,
                "game": game,
                "seat": seat,
                "seats": first.seats,
                "options": first.options,
                "deadline_ms": self.deadline_ms,
                "time_bank_ms": self.time_bank_ms,
                "opponents": [],
            }
            if not self.notify(client, "/start", start, game) or self.stopped:
                return
            previous: dict[str, Any] | None = None
            for sample in group:
                if sample.decision in clock.timed_out:
                    clock.skipped[sample.decision] = clock.skipped.get(sample.decision, 0) + 1
                    continue
                if self.out_of_time(self.timing.move_timeout_s(clock.bank_ms)):
                    return
                previous = self.move(client, sample, previous, clock)
            end = {"match_id": match_id, "game": game, "seat": seat, "result": {}, "view": None, "faults": 0}
            self.notify(client, "/end", end, game)
        self.report.add(
            f"POST /start, /end ({game})",
            OK,
            f"answered {self.notified.get('/start', 0)} starts and {self.notified.get('/end', 0)} ends",
        )
        if clock.skipped:
            self.report.add(
                f"not asked ({game})",
                WARNING,
                f"{sum(clock.skipped.values())} more sample(s) of {', '.join(clock.skipped)}: these "
                "decision types timed out already, and each would wait for the deadline again",
            )
        self.project(game, clock)

    def project(self, game: str, clock: _GameClock) -> None:
        """A whole game's answers at the times measured (each decision type at its median) through
        one seat's bank, as a match plays them: an error if one would time out."""
        if clock.timed_out or not clock.answers:
            return  # a timeout is reported already; with no answer there is nothing to project
        counts = game_decisions(game)
        times = {kind: statistics.median(values) for kind, values in clock.answers.items()}
        known = [kind for kind in counts if kind in times]
        total = round(sum(counts[kind] for kind in known))
        # A game's decisions, interleaved as they come (every type in proportion), slowest first
        # within a round: the order does not change whether the bank runs out, only where.
        rounds = {kind: range(round(counts[kind])) for kind in known}
        sequence = sorted(
            (i / counts[kind], -times[kind], times[kind]) for kind in known for i in rounds[kind]
        )
        answers = [elapsed for _, _, elapsed in sequence]
        over = sum(self.timing.over_ms(t) for t in answers)
        step = f"time over a game ({game})"
        found = self.timing.first_timeout(answers)
        if found is not None:
            index, bank = found
            self.report.add(
                step,
                ERROR,
                f"a seat decides about {total} times a game; at the answer times measured (median "
                f"{max(times.values()) * 1000:.0f} ms for the slowest decision type), answers past the "
                f"{self.deadline_ms} ms deadline use up the {self.time_bank_ms} ms time bank by decision "
                f"{index + 1}, which then times out with {bank} ms left: in a match every later slow "
                "answer is a timeout fault. Answer within the deadline (is the bot slow?)",
                fault=FaultCode.TIMEOUT.value,
            )
        elif over:
            self.report.add(
                step,
                WARNING,
                f"a seat decides about {total} times a game; at the answer times measured, slow answers "
                f"would take about {over} ms of the {self.time_bank_ms} ms time bank: no timeout, but "
                "little room on a loaded machine",
            )

    def move(
        self, client: CheckClient, sample: Sample, previous: dict[str, Any] | None, clock: _GameClock
    ) -> dict[str, Any]:
        """One /move through the runner's validation, bounded as the runner bounds it (deadline plus
        what is left of the bank); the `previous` the next request carries."""
        step = f"POST /move ({sample.game}, {sample.decision}, {sample.seats} seats)"
        bank = clock.bank_ms
        timeout_s = self.timing.move_timeout_s(bank)
        answer = client.move(self.move_message(sample, previous, bank), sample.legal_moves, timeout_s)
        elapsed = _ms(answer.elapsed_s)
        clock.bank_ms = self.timing.charge(bank, answer.elapsed_s)
        if answer.fault is not None:
            status, body = client.answer_of_last()
            detail = "" if answer.fault != FaultCode.CONNECTION_ERROR else "connection failed"
            message = explain_fault(answer.fault, detail, status, body, self.url, timeout_s * 1000)
            if answer.fault == FaultCode.TIMEOUT:
                clock.timed_out.add(sample.decision)
                message = (
                    f"timed out: no complete answer within {timeout_s * 1000:.0f} ms (the {self.deadline_ms} "
                    f"ms deadline plus the {bank} ms left of the {self.time_bank_ms} ms time bank): a "
                    "timeout fault in a match. Is the bot slow, or does it hang?"
                )
            self.report.add(
                step,
                ERROR,
                message,
                elapsed_ms=elapsed,
                fault=answer.fault,
                status=status,
                body=_quote(body) if body else None,
            )
            return {"status": "replaced", "fault": answer.fault}
        clock.answers.setdefault(sample.decision, []).append(answer.elapsed_s)
        if elapsed > self.deadline_ms:
            self.report.add(
                step,
                WARNING,
                f"took {elapsed:.0f} ms, over the {self.deadline_ms} ms deadline: {bank - clock.bank_ms} ms "
                f"of the time bank spent, {clock.bank_ms} ms of {self.time_bank_ms} left; once it is "
                "used up, a slow answer is a timeout fault",
                elapsed_ms=elapsed,
            )
        elif self.timing.is_slow(answer.elapsed_s):
            self.report.add(
                step,
                WARNING,
                f"took {elapsed:.0f} ms, over {self.timing.slow_share:.0%} of the {self.deadline_ms} ms "
                "deadline: a loaded machine may push it past",
                elapsed_ms=elapsed,
            )
        else:
            self.report.add(step, OK, f"played {orjson.dumps(answer.move).decode()}", elapsed_ms=elapsed)
        return {"status": "accepted", "fault": None}


@dataclass
class _GameClock:
    """One game's samples as one seat's moves of a match: the bank left, the answer times by
    decision type, the types that timed out and the samples skipped after."""

    bank_ms: int
    answers: dict[str, list[float]] = field(default_factory=dict)
    timed_out: set[str] = field(default_factory=set)
    skipped: dict[str, int] = field(default_factory=dict)


def check_bot(
    url: str,
    secret: str | None,
    *,
    policy: AddressPolicy | None = None,
    games: list[str] | None = None,
    deadline_ms: int = DEFAULT.deadline_ms,
    time_bank_ms: int = DEFAULT.time_bank_ms,
    wait_s: float = 0.0,
    budget_s: float | None = None,
) -> CheckReport:
    """Check the bot at `url` as the platform would call it, signing with `secret`.

    `policy` is the outbound address policy (default: the operator's, `TRICKARENA_ALLOWED_NETWORKS`;
    the CLI passes `ANY_ADDRESS`); `games`, the games the bot is registered for (each must be in its
    `GET /`); `wait_s`, how long a bot that refuses connections may take to come up (the CLI's
    check right after starting a bot); `deadline_ms` and `time_bank_ms`, the match's (default: the
    configured ones, `core.timing`); `budget_s`, the most the whole check may take (None: no
    bound but each call's own; the API's check passes one). Never raises for anything the bot does:
    every problem is a finding.
    """
    checker = _Checker(url, secret, policy, TimePolicy(deadline_ms, time_bank_ms), budget_s)
    client = CheckClient(checker.url, secret, policy)
    try:
        checker.wait_until_up(client, wait_s)
        known = checker.info(client, games)
        if known and secret is None:
            checker.report.add(
                "POST /start, /move, /end",
                ERROR,
                "not checked: no secret to sign with (set $TRICKARENA_BOT_SECRET, or --secret-file, "
                "to the secret the bot runs with)",
            )
            return checker.report
        for game in known:
            if not checker.stopped:
                checker.game(client, game)
    finally:
        client.close()
    return checker.report


def check_registered(
    ctx: HarnessContext, bot_id: str, owner_key: str | None, budget_s: float | None = None
) -> CheckReport:
    """`POST /bots/{id}/check`: the stored bot checked with its stored secret and registered games,
    under the operator's address policy, within `budget_s`. Raises the registry's ServiceErrors (401
    without the owner key, 403 with another, 404, 409 for a deleted bot)."""
    bot = ctx.bots.authorize(bot_id, owner_key)
    if bot.status == "deleted":
        raise BotDeleted(f"bot {bot_id!r} was deleted")
    return check_bot(bot.url, bot.secret, policy=ctx.policy, games=bot.games, budget_s=budget_s)
