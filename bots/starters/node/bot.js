#!/usr/bin/env node
// A Trick Arena bot in plain Node.js: no dependencies, one file (docs/bot-protocol.md).
//
//   TRICKARENA_BOT_SECRET=... node bot.js               serve on 8001, the SDK's bot port (PORT=N for another;
//                                                       secret also: TRICKARENA_BOT_SECRET_FILE)
//   node bot.js --self-test                             check the signing code against the test vector
//
// It answers GET / with its info, checks the signature of every POST, and answers /move with a
// legal move (the first of the view's legal moves: replace `choose` with your strategy).
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const http = require("node:http");

const INFO = {
  name: "node-starter",
  author: "anonymous",
  version: "0.1",
  games: ["tricky-teams", "trick-n-trouble"],
  protocol: "1",
};
const TOLERANCE_S = 300; // a signature more than this far from our clock is refused
const MAX_BODY = 1024 * 1024;

// The strategy: the view carries the seat's legal moves; answer one of them, unchanged.
function choose(view, legalMoves) {
  const moves = Array.isArray(view.legal_moves) && view.legal_moves.length ? view.legal_moves : legalMoves;
  return moves[0];
}

// hex HMAC-SHA256(secret, timestamp + "." + body), body being the exact bytes received.
function signature(secret, timestamp, body) {
  const mac = crypto.createHmac("sha256", secret);
  mac.update(Buffer.concat([Buffer.from(`${timestamp}.`, "ascii"), body]));
  return "sha256=" + mac.digest("hex");
}

// null when the request is signed with `secret` and fresh, else [code, message].
function verify(secret, headers, body, nowS) {
  const ts = headers["x-trickarena-timestamp"];
  const sig = headers["x-trickarena-signature"];
  if (!ts || !sig) return ["missing_signature", "X-TrickArena-Signature and X-TrickArena-Timestamp are required"];
  if (!/^[0-9]{1,12}$/.test(ts)) return ["bad_timestamp", "X-TrickArena-Timestamp must be unix seconds"];
  if (Math.abs(nowS - Number(ts)) > TOLERANCE_S) return ["stale_signature", "timestamp too far from now"];
  const expected = Buffer.from(signature(secret, ts, body));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    return ["bad_signature", "signature does not match the body"];
  }
  return null;
}

function loadSecret() {
  if (process.env.TRICKARENA_BOT_SECRET) return process.env.TRICKARENA_BOT_SECRET;
  const file = process.env.TRICKARENA_BOT_SECRET_FILE;
  if (!file) return null;
  const secret = fs.readFileSync(file, "utf8").trim();
  if (!secret) throw new Error(`the secret file ${file} is empty`);
  return secret;
}

function reply(res, status, payload) {
  const data = Buffer.from(JSON.stringify(payload));
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": data.length });
  res.end(data);
}

function handle(secret, req, res, body) {
  const path = req.url.split("?")[0];
  if (path === "/") {
    if (req.method === "GET" || req.method === "HEAD") return reply(res, 200, INFO);
    return reply(res, 405, { code: "method_not_allowed", message: "/ accepts GET" });
  }
  if (!["/start", "/move", "/end"].includes(path)) {
    return reply(res, 404, { code: "not_found", message: "the bot protocol has /, /start, /move, /end" });
  }
  if (req.method !== "POST") return reply(res, 405, { code: "method_not_allowed", message: `${path} accepts POST` });
  if (!secret) return reply(res, 401, { code: "no_secret", message: "this bot has no signing secret yet" });
  const refused = verify(secret, req.headers, body, Date.now() / 1000);
  if (refused) return reply(res, 401, { code: refused[0], message: refused[1] });
  let message;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch (err) {
    return reply(res, 400, { code: "malformed_request", message: "body is not JSON" });
  }
  if (path !== "/move") return reply(res, 200, { ok: true });
  if (!message || typeof message.view !== "object" || !Array.isArray(message.legal_moves)) {
    return reply(res, 400, { code: "malformed_request", message: "expected view and legal_moves" });
  }
  return reply(res, 200, { move: choose(message.view, message.legal_moves) });
}

function serve() {
  const secret = loadSecret();
  const port = Number(process.env.PORT || 8001); // the SDK's bot port (the platform's own is 8000)
  const host = process.env.HOST || "127.0.0.1";
  if (typeof choose !== "function" || choose.length !== 2) {
    console.error("choose must be a function (view, legalMoves) returning one of legalMoves");
    process.exit(1);
  }
  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reply(res, 413, { code: "body_too_large", message: `request body over ${MAX_BODY} bytes` });
        req.destroy();
      } else {
        chunks.push(chunk);
      }
    });
    req.on("end", () => {
      if (size > MAX_BODY) return;
      try {
        handle(secret, req, res, Buffer.concat(chunks));
      } catch (err) {
        console.error(err);
        reply(res, 500, { code: "internal_error", message: "the bot failed to answer" });
      }
    });
  });
  server.keepAliveTimeout = 60000; // the platform keeps one connection per match
  server.on("error", (err) => {
    if (err.code !== "EADDRINUSE") throw err;
    console.error(`port ${port} on ${host} is already in use: stop what runs there, or PORT=N node bot.js`);
    process.exit(1);
  });
  server.listen(port, host, () => {
    console.log(`${INFO.name} serving on http://${host}:${port} (signature check ${secret ? "on" : "pending"})`);
  });
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
}

// The test vector of docs/bot-protocol.md (also checked there against the platform's own code).
const VECTOR = {
  secret: "whsec-test-vector-1",
  timestamp: "1764430000",
  body: '{"match_id":"m-42","game":"tricky-teams","seat":2}',
  signature: "sha256=b4924353d3c6570167b5866875b0f5801e1bd156280065d22047e8ca0b5a1388",
};

function selfTest() {
  const body = Buffer.from(VECTOR.body, "utf8");
  const headers = { "x-trickarena-timestamp": VECTOR.timestamp, "x-trickarena-signature": VECTOR.signature };
  const now = Number(VECTOR.timestamp);
  const checks = [
    ["signature", signature(VECTOR.secret, VECTOR.timestamp, body) === VECTOR.signature],
    ["verify accepts", verify(VECTOR.secret, headers, body, now) === null],
    ["verify refuses another secret", (verify("other", headers, body, now) || [])[0] === "bad_signature"],
    ["verify refuses a changed body", (verify(VECTOR.secret, headers, Buffer.from(VECTOR.body + " "), now) || [])[0] === "bad_signature"],
    ["verify refuses a stale timestamp", (verify(VECTOR.secret, headers, body, now + 301) || [])[0] === "stale_signature"],
    ["verify refuses missing headers", (verify(VECTOR.secret, {}, body, now) || [])[0] === "missing_signature"],
  ];
  let failed = 0;
  for (const [name, ok] of checks) {
    console.log(`${ok ? "ok  " : "FAIL"} ${name}`);
    if (!ok) failed += 1;
  }
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (process.argv.includes("--self-test")) selfTest();
else serve();
