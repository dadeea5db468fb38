// A typed client reads a tournament: it serves two bots itself (typed by the spec's `webhooks`, the
// bot protocol), submits them (createBot), runs a tournament of one game between them on the
// platform's workers (createTournament, getTournament) and reads its standings typed
// (getTournamentStandings: rows, head-to-head or cross-play, compositions, faults), every answer
// checked against the spec (Ajv). tests/contract/test_contract.py runs it:
// `node build/src/tournament.js <base url> <spec.json> <game>`.
// Rule: no casts and no `any` here: the generated types do the work (tsc --strict checks it).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths, webhooks } from "../generated/schema.js";
import { SpecValidator } from "./validate.js";

type Schemas = components["schemas"];
type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
// What the platform sends a bot and what the bot answers: the spec's webhooks.
type BotInfo = Json<webhooks["botInfo"]["get"]["responses"][200]>;
type MoveRequest = Json<NonNullable<webhooks["botMove"]["post"]["requestBody"]>>;
type MoveAnswer = Json<webhooks["botMove"]["post"]["responses"][200]>;
type EndRequest = Json<NonNullable<webhooks["botEnd"]["post"]["requestBody"]>>;

const [base = "", specPath = "", game = ""] = process.argv.slice(2);
// The game argument narrowed to the spec's enum of game names (createTournament takes no other).
const GAMES: readonly Schemas["GameName"][] = ["tricky-teams", "trick-n-trouble"];
const which: Schemas["GameName"] = GAMES.find((name) => name === game) ?? fail("the game argument", game);
const validator = new SpecValidator(specPath);
const checkAnswers: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const text = await response.clone().text();
    const body: unknown = text === "" ? null : JSON.parse(text);
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0] ?? "";
    validator.check({ method: request.method, path: schemaPath, status: response.status, contentType, body });
    return undefined;
  },
};
const api = createClient<paths>({ baseUrl: base });
api.use(checkAnswers);

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

const isMoveRequest = (value: unknown): value is MoveRequest =>
  validator.matches(validator.component("BotMoveRequest"), value);
const isEndRequest = (value: unknown): value is EndRequest =>
  validator.matches(validator.component("BotEndRequest"), value);

// One bot: GET / says what it plays; /move answers the first legal move; /start and /end are noted.
let moves = 0;
let ends = 0;
async function serveBot(name: string): Promise<string> {
  const info: BotInfo = { name, author: "contract test", version: "1", games: [which], protocol: "1" };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      let answer: BotInfo | MoveAnswer | { ok: boolean } = { ok: true };
      if (request.method === "GET") answer = info;
      else if (request.url === "/move") {
        const message: unknown = JSON.parse(text);
        if (!isMoveRequest(message)) throw new Error(`not a BotMoveRequest: ${text.slice(0, 500)}`);
        const [first] = message.legal_moves; // a Move, as the game listed it
        if (first === undefined) throw new Error("no legal move");
        answer = { move: first };
        moves += 1;
      } else if (request.url === "/end") {
        const message: unknown = JSON.parse(text);
        if (!isEndRequest(message)) throw new Error(`not a BotEndRequest: ${text.slice(0, 500)}`);
        const scores: number[] = message.result.scores; // a GameResult of either game has scores
        if (scores.length === 0) throw new Error("no scores");
        ends += 1;
      }
      const body = JSON.stringify(answer);
      response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

async function submitted(name: string) {
  const url = await serveBot(name);
  const { data, error } = await api.POST("/bots", { body: { name, url, games: [which] } });
  if (data === undefined) fail("createBot", error);
  return { id: data.bot.id, key: data.owner_key };
}

const suffix = Math.floor(Math.random() * 1e9).toString(36);
const bots = [await submitted(`alpha-${suffix}`), await submitted(`beta-${suffix}`)];
const seats = which === "tricky-teams" ? 4 : 3;
const options: Schemas["GameOptions"] = which === "tricky-teams" ? { raids: 1 } : { threshold: 10 };
const { data: created, error } = await api.POST("/tournaments", {
  body: {
    game: which,
    seats,
    entrants: bots.map((b) => b.id),
    owner_keys: bots.map((b) => b.key),
    deals: 1,
    deadline_ms: 5000,
    options,
  },
});
if (created === undefined) fail("createTournament", error);
const path = { tournament_id: created.tournament_id };

let status = created.status;
const deadline = Date.now() + 150_000;
while (status !== "finished") {
  if (Date.now() > deadline) throw new Error(`tournament still ${status}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const { data: tournament, error: missing } = await api.GET("/tournaments/{tournament_id}", { params: { path } });
  if (tournament === undefined) fail("getTournament", missing);
  status = tournament.status;
  // The options as given, typed: narrowed to one game's by the option named.
  const given: Schemas["GameOptions"] = tournament.options;
  if ("raids" in given && given.raids !== 1) throw new Error("raids");
  if ("threshold" in given && given.threshold !== 10) throw new Error("threshold");
}

const { data: standings, error: noStandings } = await api.GET("/tournaments/{tournament_id}/standings", {
  params: { path, query: { offset: 0, limit: 10 } },
});
if (standings === undefined) fail("getTournamentStandings", noStandings);
const rows: Schemas["StandingsRow"][] = standings.rows;
const [a, b] = rows.map((row) => row.entrant);
if (a === undefined || b === undefined || rows.length !== 2) throw new Error("two rows");
const games = rows.reduce((sum, row) => sum + row.games, 0);
const faults = bots.reduce((sum, bot) => sum + (standings.faults[bot.id]?.total ?? 0), 0);
let matrix: string;
if (standings.cooperative) {
  const cell: Schemas["CrossPlayCell"] | undefined = standings.cross_play?.[a]?.[b];
  const teams: Schemas["Composition"][] = standings.compositions ?? [];
  if (cell === undefined || teams.length === 0) throw new Error("cross-play and compositions");
  matrix = `cross-play ${a.slice(0, 4)}+${b.slice(0, 4)}: ${cell.games} games, mean ${cell.mean}; ${teams.length} compositions`;
} else {
  const cell: Schemas["HeadToHeadCell"] | undefined = standings.head_to_head?.[a]?.[b];
  if (cell === undefined) throw new Error("head-to-head");
  matrix = `head-to-head ${cell.wins}-${cell.losses}-${cell.ties}`;
}
if (moves === 0 || ends === 0 || faults !== 0) throw new Error(`moves ${moves}, ends ${ends}, faults ${faults}`);
console.log(
  `${which}: ${standings.matches} matches, ${games} seat-games, ${matrix}, mu ${rows[0]?.rating.mu.toFixed(1)}; ` +
    `${moves} moves served; ${validator.checked} answers valid`,
);
process.exit(0);
