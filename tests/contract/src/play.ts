// A typed client generated from openapi.yaml (openapi-typescript) plays a whole game of each game
// through openapi-fetch against a running server, and checks every answer against the spec (Ajv).
// tests/contract/test_contract.py runs it: `node build/src/play.js <base url> <spec.json> <game>`.
// Rule: no casts and no `any` here: the generated types do the work (tsc --strict checks it).
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "../generated/schema.js";
import { SpecValidator } from "./validate.js";

type Schemas = components["schemas"];
type TrickyTeamsMove = Schemas["TrickyTeamsMove"];
type TrickNTroubleMove = Schemas["TrickNTroubleMove"];
type AnyMove = paths["/games/{game_id}/moves"]["post"]["requestBody"]["content"]["application/json"];

const [base = "", specPath = "", which = ""] = process.argv.slice(2);
const validator = new SpecValidator(specPath);
let seed = 7;

// Every answer is checked against the operation's declared response (status and media type).
const checkAnswers: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0] ?? "";
    if (contentType === "text/event-stream") return undefined;
    const text = await response.clone().text();
    const body: unknown = text === "" ? null : JSON.parse(text);
    validator.check({ method: request.method, path: schemaPath, status: response.status, contentType, body });
    return undefined;
  },
};

function client(token?: string) {
  const made = createClient<paths>({
    baseUrl: base,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
  made.use(checkAnswers);
  return made;
}

const anonymous = client();

function pick<T>(items: readonly T[]): T {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  const item = items[seed % items.length];
  if (item === undefined) throw new Error("nothing to pick from");
  return item;
}

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

async function created(body: Schemas["NewGame"]) {
  const { data, error } = await anonymous.POST("/games", { body });
  if (data === undefined) fail("createGame", error);
  return { id: data.game_id, seats: new Map(data.tokens.map((t) => [t.seat, client(t.token)])) };
}

// The stream of a finished game: every message's data validates against the SSE message schema.
async function streamed(id: string): Promise<number> {
  const { data, error } = await anonymous.GET("/games/{game_id}/events/stream", {
    params: { path: { game_id: id }, query: { since: 0, timeout: 1 } },
    parseAs: "text",
  });
  if (data === undefined) fail("streamGameEvents", error);
  let messages = 0;
  for (const block of data.split("\n\n")) {
    const fields = new Map(block.split("\n").filter((l) => !l.startsWith(":")).map((l) => [l.split(": ")[0], l.slice(l.indexOf(": ") + 2)]));
    const payload = fields.get("data");
    if (payload === undefined) continue;
    const event = fields.get("event");
    validator.validate(validator.component(event === "end" ? "StreamEnd" : "EventRecord"), JSON.parse(payload), "SSE data");
    messages += 1;
  }
  return messages;
}

async function playTrickyTeams(): Promise<string> {
  const game = await created({ game: "tricky-teams", seats: 4, seed: 42, options: { raids: 1 } });
  let moves = 0;
  for (;;) {
    const { data: state, error } = await anonymous.GET("/games/{game_id}", { params: { path: { game_id: game.id } } });
    if (state === undefined) fail("getGame", error);
    if (state.game !== "tricky-teams") throw new Error(`a ${state.game} game`);
    const view: Schemas["TrickyTeamsView"] = state.view; // narrowed by `game`: no cast
    if (state.status === "finished") break;
    const seat = view.to_move[0];
    const player = seat === undefined ? undefined : game.seats.get(seat);
    if (player === undefined) throw new Error("nobody to move");
    const { data: legal, error: refused } = await player.GET("/games/{game_id}/legal-moves", {
      params: { path: { game_id: game.id } },
    });
    if (legal === undefined) fail("listLegalMoves", refused);
    if (legal.game !== "tricky-teams") throw new Error("legal moves of another game");
    const move: TrickyTeamsMove = pick(legal.legal_moves);
    const ifMatch = `"${state.version}"`;
    if (moves % 2 === 0) {
      // The game's own operation: its body takes only Tricky Teams moves, its answer is its game.
      const { data: after, error: bad } = await player.POST("/games/{game_id}/tricky-teams/moves", {
        params: { path: { game_id: game.id }, header: { "If-Match": ifMatch } },
        body: move,
      });
      if (after === undefined) fail(`postTrickyTeamsMove ${JSON.stringify(move)}`, bad);
      const phase: Schemas["TrickyTeamsView"]["phase"] = after.view.phase;
      if (!["play", "take-loot", "choose-leader", "over"].includes(phase)) throw new Error(phase);
    } else {
      // A listed move is assignable to postMove's body as it is.
      const generic: AnyMove = move;
      const { data: after, error: bad } = await player.POST("/games/{game_id}/moves", {
        params: { path: { game_id: game.id }, header: { "If-Match": ifMatch } },
        body: generic,
      });
      if (after === undefined) fail("postMove", bad);
    }
    moves += 1;
  }
  const { data: events } = await anonymous.GET("/games/{game_id}/events", {
    params: { path: { game_id: game.id }, query: { since: 0 } },
  });
  if (events === undefined || events.game !== "tricky-teams") throw new Error("getGameEvents");
  const kinds = new Set(events.events.map((record) => describeTrickyTeams(record.event)));
  const { data: replay } = await anonymous.GET("/games/{game_id}/replay", { params: { path: { game_id: game.id } } });
  if (replay === undefined || replay.game !== "tricky-teams") throw new Error("getReplay");
  if (replay.actions.length !== moves || replay.result.scores.length !== 4 || replay.header.options.raids !== 1) {
    throw new Error("the replay does not match the game");
  }
  await checkErrors(game.id, game.seats);
  return `tricky-teams: ${moves} moves, ${kinds.size} event types, ${await streamed(game.id)} stream messages`;
}

// Exhaustive over the game's event types: a new event type is a compile error here.
function describeTrickyTeams(event: Schemas["TrickyTeamsEvent"]): string {
  switch (event.type) {
    case "card-played":
      return `${event.seat} played ${event.card ?? "face down"}`;
    case "trick-won":
      return `${event.winning_team} won trick ${event.number}`;
    case "loot-taken":
    case "cook-laid-out":
      return `${event.seat} took ${event.card}`;
    case "leader-chosen":
      return `${event.leader} leads`;
    case "raid-ended":
      return `raid ${event.raid}: ${event.totals.join(" ")}`;
    case "raid-started":
      return `raid ${event.raid}`;
    case "hand-dealt":
      return `${event.seat} got ${event.size} cards`;
    case "game-ended":
      return `winners ${event.result.winners.join(" ")}`;
    case "seat-joined":
      return `${event.seat} joined`;
  }
}

async function playTrickNTrouble(): Promise<string> {
  const game = await created({ game: "trick-n-trouble", seats: 3, seed: 42, open_seats: [2] });
  // An empty body claims the lowest open seat: `seat` is optional in the generated body type.
  const { data: joined, error } = await anonymous.POST("/games/{game_id}/join", {
    params: { path: { game_id: game.id } },
    body: {},
  });
  if (joined === undefined) fail("joinGame", error);
  game.seats.set(joined.seat, client(joined.token));
  let moves = 0;
  for (;;) {
    const { data: state, error: unread } = await anonymous.GET("/games/{game_id}", { params: { path: { game_id: game.id } } });
    if (state === undefined) fail("getGame", unread);
    if (state.game !== "trick-n-trouble") throw new Error(`a ${state.game} game`);
    if (state.status === "finished") break;
    const seat = state.view.to_move[0];
    const player = seat === undefined ? undefined : game.seats.get(seat);
    if (player === undefined) throw new Error("nobody to move");
    const { data: legal, error: refused } = await player.GET("/games/{game_id}/legal-moves", {
      params: { path: { game_id: game.id } },
    });
    if (legal === undefined) fail("listLegalMoves", refused);
    if (legal.game !== "trick-n-trouble") throw new Error("legal moves of another game");
    const move: TrickNTroubleMove = pick(legal.legal_moves);
    const { data: after, error: bad } = await player.POST("/games/{game_id}/trick-n-trouble/moves", {
      params: { path: { game_id: game.id }, header: { "If-Match": `"${state.version}"` } },
      body: move,
    });
    if (after === undefined) fail(`postTrickNTroubleMove ${JSON.stringify(move)}`, bad);
    const options: Schemas["TrickNTroubleViewOptions"] = after.view.options;
    if (options.colours.length !== 3) throw new Error("three colours");
    moves += 1;
  }
  const { data: events } = await anonymous.GET("/games/{game_id}/events", { params: { path: { game_id: game.id } } });
  if (events === undefined || events.game !== "trick-n-trouble") throw new Error("getGameEvents");
  const kinds = new Set(events.events.map((record) => record.event.type));
  const { data: replay } = await anonymous.GET("/games/{game_id}/replay", { params: { path: { game_id: game.id } } });
  if (replay === undefined || replay.game !== "trick-n-trouble") throw new Error("getReplay");
  if (replay.actions.length !== moves || replay.result.band === "") throw new Error("the replay does not match");
  return `trick-n-trouble: ${moves} moves, ${kinds.size} event types, ${await streamed(game.id)} stream messages`;
}

// Typed errors: the code is an enum, the details typed.
async function checkErrors(id: string, seats: Map<number, ReturnType<typeof client>>): Promise<void> {
  const player = seats.get(0);
  if (player === undefined) throw new Error("seat 0");
  const late = await player.POST("/games/{game_id}/moves", {
    params: { path: { game_id: id } },
    body: { type: "play", card: "red-5" },
  });
  const code: Schemas["Error"]["code"] | undefined = late.error?.code;
  if (code !== "game_over") throw new Error(`expected game_over, got ${code}`);
  const wrong = await player.POST("/games/{game_id}/trick-n-trouble/moves", {
    params: { path: { game_id: id } },
    body: { type: "keep-tasks" },
  });
  if (wrong.error?.code !== "wrong_game" || wrong.error.details?.game !== "tricky-teams") {
    throw new Error(`expected wrong_game, got ${JSON.stringify(wrong.error)}`);
  }
  const unchanged = await anonymous.GET("/games/{game_id}", {
    params: { path: { game_id: id }, header: { "If-None-Match": wrong.response.headers.get("ETag") ?? '"0"' } },
  });
  if (![200, 304].includes(unchanged.response.status)) throw new Error("getGame with If-None-Match");
}

// Compile-time rules (never run): tsc fails if any of these type-checks.
export function typeRules(view: Schemas["TrickyTeamsView"], state: Schemas["Game"]): void {
  // @ts-expect-error a Trick 'n Trouble move is not a Tricky Teams move
  const wrongGame: TrickyTeamsMove = { type: "keep-tasks" };
  // @ts-expect-error the Tricky Teams move operation takes no Trick 'n Trouble move
  void anonymous.POST("/games/{game_id}/tricky-teams/moves", { params: { path: { game_id: "0" } }, body: { type: "keep-tasks" } });
  // @ts-expect-error a misspelled field of the view
  const misspelled = view.hnad;
  // @ts-expect-error the envelope's view is a union until narrowed by `game`
  const unnarrowed: Schemas["TrickyTeamsView"] = state.view;
  // @ts-expect-error error codes are an enum
  const unknownCode: Schemas["Error"]["code"] = "no_such_code";
  void [wrongGame, misspelled, unnarrowed, unknownCode];
}

const games: Record<string, () => Promise<string>> = {
  "tricky-teams": playTrickyTeams,
  "trick-n-trouble": playTrickNTrouble,
};
const play = games[which];
if (play === undefined) throw new Error(`unknown game ${which}`);
console.log(`${await play()}; ${validator.checked} answers valid`);
