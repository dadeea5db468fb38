// The play page (/web/play): a person's seat at a table of bots (createChallenge), played with the
// mouse or the keyboard. The page reads only its own seat's view (getGame with its seat token) and
// offers exactly the moves that view lists (`legal_moves`): it computes no rule itself. It follows
// the game over the event stream (the spectator's, as a signal to read its own view again).
"use strict";

const $ = (id) => document.getElementById(id);
const BUNDLED = ["heuristic", "search", "random"];
const S = {types: [], open: [], cid: null, token: null, seat: null, gid: null, game: null, view: null,
           challenge: null, source: null, busy: false, choosing: null, lastChallengeRead: 0, poll: null};

const auth = () => ({"Authorization": `Bearer ${S.token}`});
const nameOf = (seat) => {
  if (seat === S.seat) return "You";
  const p = S.challenge && S.challenge.players[seat];
  return p ? p.name : `Seat ${seat}`;
};
const teamName = (t) => TA.TT_TEAMS[t] || t;

// ---- setup -----------------------------------------------------------------------------------------
async function loadOpenBots() {
  const out = [];
  let cursor = null;
  for (let page = 0; page < 5; page++) {
    const q = new URLSearchParams({limit: "100"});
    if (cursor) q.set("cursor", cursor);
    const d = await TA.json(`/bots?${q}`);
    out.push(...d.bots.filter((b) => b.open && b.status !== "deleted"));
    cursor = d.next_cursor;
    if (!cursor) break;
  }
  return out;
}

function defaultOpponents(game, n) {
  const plays = S.open.filter((b) => b.games.includes(game));
  const house = plays.filter((b) => b.author === "Trick Arena");
  const order = (b) => { const i = BUNDLED.findIndex((x) => b.name.startsWith(x)); return i < 0 ? 9 : i; };
  const pool = (house.length ? house : plays).slice().sort((a, b) => order(a) - order(b));
  return Array.from({length: n}, (_, i) => (pool.length ? pool[i % pool.length].name : ""));
}

function fillSeats() {
  const type = S.types.find((t) => t.name === $("game").value);
  if (!type) return;
  const keep = +$("seats").value;
  $("seats").innerHTML = type.seat_counts.map((n) => `<option${n === keep ? " selected" : ""}>${n}</option>`).join("");
  $("raids-box").hidden = type.name !== "tricky-teams";
  fillPlayers();
}

function fillPlayers() {
  const n = +$("seats").value;
  const you = Math.min(+$("you").value || 0, n - 1);
  $("you").innerHTML = Array.from({length: n}, (_, i) => `<option value="${i}"${i === you ? " selected" : ""}>Seat ${i}${i === 0 ? " (leads first)" : ""}</option>`).join("");
  const names = defaultOpponents($("game").value, n - 1);
  const others = Array.from({length: n}, (_, i) => i).filter((i) => i !== you);
  $("opponents").innerHTML = others.map((seat, k) => `<label>Seat ${seat}<input class="opponent" data-seat="${seat}" list="open-bots" maxlength="64" value="${TA.esc(names[k])}" placeholder="bot name"></label>`).join("");
  $("open-bots").innerHTML = S.open.filter((b) => b.games.includes($("game").value)).map((b) => `<option value="${TA.esc(b.name)}">`).join("");
}

async function start(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const game = $("game").value, seats = +$("seats").value, you = +$("you").value;
  const bots = [...document.querySelectorAll("input.opponent")].map((i) => i.value.trim());
  if (bots.some((b) => !b)) { $("setup-error").textContent = "Name a bot for every seat."; return; }
  const options = game === "tricky-teams" ? {raids: +$("raids").value} : {};
  $("start").disabled = true;
  try {
    const r = await fetch("/challenges", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({game, seats, people: [you], bots, options})});
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.message || `${r.status}`);
    const token = body.tokens[0].token;
    // The token stays in the fragment (never sent to the server, so out of logs and Referer headers).
    history.replaceState(null, "", `${location.pathname}#challenge=${body.challenge_id}&seat=${you}&token=${encodeURIComponent(token)}`);
    await enter(body.challenge_id, you, token);
  } catch (e) {
    $("setup-error").textContent = `Could not start: ${e.message}`;
  } finally {
    $("start").disabled = false;
  }
}

// ---- the table -------------------------------------------------------------------------------------
async function enter(cid, seat, token) {
  Object.assign(S, {cid, seat, token});
  S.challenge = await TA.json(`/challenges/${encodeURIComponent(cid)}`);
  S.gid = S.challenge.game_id;
  S.game = S.challenge.game;
  $("setup").hidden = true;
  $("play").hidden = false;
  const opponents = S.challenge.players.filter((p) => p.seat !== seat).map((p) => p.name).join(", ");
  TA.setTitle(`${S.game === "tricky-teams" ? "Tricky Teams" : "Trick 'n Trouble"} against ${opponents}`);
  $("subtitle").textContent = `You play seat ${seat}. A move not made within ${S.challenge.idle_s} s is played for you (a random legal move). Not rated.`;
  await refresh(true);
  follow();
}

function follow() {
  if (S.source) S.source.close();
  if (S.view && S.view.status === "finished") return;
  const source = new EventSource(`/games/${encodeURIComponent(S.gid)}/events/stream`);
  S.source = source;
  source.addEventListener("game-event", () => refresh(false));
  source.addEventListener("end", () => { source.close(); if (S.source === source) setTimeout(follow, 500); refresh(true); });
  // A safety net if the stream is cut: read the view now and then.
  if (!S.poll) S.poll = setInterval(() => { if (!S.view || S.view.status !== "finished") refresh(true); }, 4000);
}

let pending = null;
function refresh(withChallenge) {
  // Events come in bursts (a bot's move and the trick's end): one read serves them all.
  if (pending) return pending;
  pending = (async () => {
    try {
      await new Promise((r) => setTimeout(r, 60));
      const g = await TA.json(`/games/${encodeURIComponent(S.gid)}`, auth());
      if (S.view && g.version < S.view.version) return;
      S.view = g;
      const now = Date.now();
      if (withChallenge || now - S.lastChallengeRead > 1000 || g.status === "finished") {
        S.lastChallengeRead = now;
        S.challenge = await TA.json(`/challenges/${encodeURIComponent(S.cid)}`);
      }
      render();
    } catch (e) {
      $("prompt").textContent = `Connection trouble: ${e.message}; retrying…`;
    } finally {
      pending = null;
    }
  })();
  return pending;
}

async function post(move) {
  if (S.busy) return;
  S.busy = true;
  S.choosing = null;
  try {
    const r = await fetch(`/games/${encodeURIComponent(S.gid)}/moves`, {method: "POST",
      headers: {...auth(), "Content-Type": "application/json", "If-Match": `"${S.view.version}"`}, body: JSON.stringify(move)});
    const body = await r.json().catch(() => ({}));
    if (r.ok) { S.view = body; render(); } else { await refresh(false); }
  } finally {
    S.busy = false;
  }
}

function moveLabel(m) {
  const v = S.view.view;
  switch (m.type) {
    case "choose-leader": return `${nameOf(m.seat)} lead${m.seat === S.seat ? "" : "s"} the raid`;
    case "start-passing": return "Pass cards";
    case "skip-passing": return "Don't pass";
    case "keep-tasks": return "Keep the tasks";
    case "switch-task": {
      const t = (v.tasks || []).find((x) => x.id === m.task);
      return `Switch “${t ? t.text : m.task}” for a level ${m.level} task`;
    }
    case "choose-task-level": return `Take a level ${m.level} task`;
    case "play": case "pass-card": {
      const verb = m.type === "play" ? "Play" : "Pass";
      return m.wish ? `${verb} ${m.card}, wishing ${nameOf(m.wish.seat)} plays the ${teamName(m.wish.team)}` : `${verb} ${m.card}${m.type === "play" && S.game === "tricky-teams" ? ", no wish" : ""}`;
    }
    default: return `${m.type} ${JSON.stringify(m)}`;
  }
}

function render() {
  const g = S.view, v = g.view;
  const legal = g.status === "finished" ? [] : (v.legal_moves || []);
  const toMove = new Set(v.to_move || []);
  $("status").innerHTML = TA.badge(g.status === "finished" ? "finished" : "playing");
  // Opponents: names, what the rules show of them, answer times.
  $("players").innerHTML = S.challenge.players.map((p) => {
    const s = p.seat;
    let shown = "";
    if (S.game === "tricky-teams") {
      const pl = v.players[s];
      shown = `${pl.hand_size} cards · ${pl.total} coins · loot ${pl.loot_size}${(pl.eights || []).length ? ` · 8s ${pl.eights.join(", ")}` : ""}`;
    } else {
      shown = `${v.hand_sizes[s]} cards${v.lead === s ? " · lead" : ""}`;
    }
    const times = p.kind === "bot"
      ? (p.last_ms === null ? "no answer yet" : `answers in ${p.last_ms} ms (mean ${p.mean_ms} ms)`)
      : (p.idle_timeouts ? `${p.idle_timeouts} move(s) played for you` : "");
    const link = p.kind === "bot" ? `<a href="/web/bots/${encodeURIComponent(p.bot_id)}">${TA.esc(p.name)}</a>` : "You";
    return `<div class="opp${toMove.has(s) && g.status !== "finished" ? " to-move" : ""}" data-seat="${s}"><b>${link}</b> <span class="muted-light">seat ${s}</span><br>${TA.esc(shown)}<br><span class="answer-time">${TA.esc(times)}</span></div>`;
  }).join("");
  $("board").innerHTML = S.game === "tricky-teams" ? boardTT(v) : boardTNT(v);
  renderTrick(v);
  renderMoves(legal);
  renderInfo(g);
  if (g.status === "finished") showEnd(v);
}

function boardTT(v) {
  const wishes = (v.wishes || []).map((w) => `${TA.esc(nameOf(w.by))} wishes ${w.seat === S.seat ? "you play" : `${TA.esc(nameOf(w.seat))} plays`} the ${TA.esc(teamName(w.team))}`).join(" · ");
  const out = (v.teams_out || []).map(teamName).join(", ");
  return `<div class="play-board">Raid <b>${v.raid}</b> of ${v.raids} · trick ${v.trick_number}${v.fog ? " · fog" : ""}${out ? ` · out: ${TA.esc(out)}` : ""}</div>
    ${wishes ? `<div class="play-board" id="wishes">Wishes: ${wishes}</div>` : ""}`;
}

function boardTNT(v) {
  const tasks = (v.tasks || []).map((t) => `<span class="task"><b>${t.points} pts</b> · L${t.level} · ${TA.esc(t.text)}</span>`).join("");
  return `<div class="play-board">Round <b>${v.round}</b> of ${v.rounds} · team points <b>${v.points}</b> · tasks fulfilled ${v.tasks_fulfilled} · draw pile ${v.draw_pile}</div>
    <div class="play-board" id="tasks">${tasks || '<span class="muted-light">no face-up tasks</span>'}</div>`;
}

function renderTrick(v) {
  const colours = (v.options && v.options.colours) || [];
  const opts = {colours};
  let plays = v.trick || [], label = "Table";
  if (!plays.length) {
    if (S.game === "tricky-teams" && v.last_trick) {
      plays = v.last_trick.plays;
      label = `Previous trick: won by the ${teamName(v.last_trick.winning_team)} (${v.last_trick.winners.map(nameOf).join(", ")})`;
    } else if (S.game !== "tricky-teams" && v.tricks && v.tricks.length) {
      plays = v.tricks[v.tricks.length - 1];
      label = "Previous trick";
    }
  }
  $("trick-label").textContent = label;
  $("trick").innerHTML = plays.map((t) => `<div class="play">${TA.card(S.game, t.card, opts)}<div>${TA.esc(nameOf(t.seat))}${t.wish ? `<br>wish: ${TA.esc(nameOf(t.wish.seat))} → ${TA.esc(teamName(t.wish.team))}` : ""}</div></div>`).join("")
    || '<span class="muted-light">no cards on the table</span>';
}

function renderMoves(legal) {
  const v = S.view.view;
  const colours = (v.options && v.options.colours) || [];
  const byCard = new Map();
  const other = [];
  for (const m of legal) {
    if (m.card !== undefined) { if (!byCard.has(m.card)) byCard.set(m.card, []); byCard.get(m.card).push(m); } else other.push(m);
  }
  // A card with several legal moves (a Tricky Teams play with or without a wish) asks which one.
  const choices = S.choosing && byCard.has(S.choosing) ? byCard.get(S.choosing) : null;
  const buttons = choices || other;
  $("moves").innerHTML = buttons.map((m, i) => `<button type="button" class="move primary" data-i="${i}">${i < 9 ? `<span class="key">${i + 1}</span>` : ""}${TA.esc(moveLabel(m))}</button>`).join("")
    + (choices ? '<button type="button" id="cancel-choice">Back</button>' : "");
  $("moves").querySelectorAll("button.move").forEach((b) => b.addEventListener("click", () => post(buttons[+b.dataset.i])));
  const cancel = $("cancel-choice");
  if (cancel) cancel.addEventListener("click", () => { S.choosing = null; render(); });
  const hand = v.hand || [];
  $("hand").innerHTML = hand.map((c) => `<button type="button" class="card-btn${byCard.has(c) ? " legal" : ""}" data-card="${TA.esc(c)}"${byCard.has(c) ? "" : ' tabindex="-1" aria-disabled="true"'} aria-label="${TA.esc(c)}${byCard.has(c) ? " (playable)" : ""}">${TA.card(S.game, c, {legal: byCard.has(c), colours})}</button>`).join("")
    || '<span class="muted-light">no cards</span>';
  $("hand").querySelectorAll("button.card-btn.legal").forEach((b) => b.addEventListener("click", () => {
    const moves = byCard.get(b.dataset.card);
    if (moves.length === 1) { post(moves[0]); return; }
    S.choosing = b.dataset.card;
    render();
  }));
  const mine = S.game === "tricky-teams" ? v.players[S.seat] : null;
  $("mine").innerHTML = mine && (mine.loot || []).length ? `Your loot: ${mine.loot.map((c) => TA.card(S.game, c, {small: true})).join("")}` : "";
  const finished = S.view.status === "finished";
  const toMove = (v.to_move || []).filter((s) => s !== S.seat).map(nameOf);
  $("prompt").textContent = finished ? "Game over"
    : choices ? `Play ${S.choosing} how?`
    : legal.length ? (byCard.size ? (v.decision === "pass" || (legal[0] && legal[0].type === "pass-card") ? "Your turn: pass a card" : "Your turn: play a highlighted card") : "Your turn: choose")
    : `Waiting for ${toMove.join(", ") || "the next deal"}…`;
}

function renderInfo(g) {
  const v = g.view;
  const rows = [["game", g.game_id], ["version", g.version], ["phase", v.phase], ["to move", (v.to_move || []).map(nameOf).join(", ") || "–"]];
  $("info").innerHTML = rows.map(([k, val]) => `<b>${TA.esc(k)}</b><span>${TA.esc(val)}</span>`).join("");
}

function showEnd(v) {
  if (S.source) { S.source.close(); S.source = null; }
  if (S.poll) { clearInterval(S.poll); S.poll = null; }
  const end = $("end");
  const r = (S.challenge && S.challenge.result) || v.result || {};
  let line = "";
  if (S.game === "tricky-teams") {
    const scores = (r.scores || []).map((s, i) => `${TA.esc(nameOf(i))} ${s}`).join(" · ");
    line = `Final: ${scores} — ${(r.winners || []).includes(S.seat) ? "you win!" : `winner ${(r.winners || []).map(nameOf).map(TA.esc).join(", ")}`}`;
  } else {
    const res = v.result || {};
    line = `Final: ${res.points ?? "–"} points, ${res.tasks_fulfilled ?? "–"} tasks — ${TA.esc(res.band || ((r.winners || []).length ? "the team wins" : "the team falls short"))}`;
  }
  end.hidden = false;
  end.innerHTML = `<h2>Game over</h2><p id="final">${line}</p>
    <p class="flex"><a class="primary-link" id="replay-link" href="/web/games/${encodeURIComponent(S.gid)}">Watch the replay</a>
    <a href="/web/play">Play again</a></p>`;
}

// ---- keyboard: 1-9 take the numbered moves; on a card, Enter plays it (buttons do that natively) ----
document.addEventListener("keydown", (e) => {
  if (!S.view || $("play").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (/^[1-9]$/.test(e.key)) {
    const numbered = [...$("moves").querySelectorAll("button.move")];
    const cards = [...$("hand").querySelectorAll("button.card-btn.legal")];
    const target = (numbered.length ? numbered : cards)[+e.key - 1];
    if (target) { e.preventDefault(); target.click(); }
  } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    const cards = [...$("hand").querySelectorAll("button.card-btn.legal")];
    if (!cards.length) return;
    const at = cards.indexOf(document.activeElement);
    const next = at < 0 ? 0 : (at + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
    cards[next].focus();
    e.preventDefault();
  }
});

async function init() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  try {
    [S.types, S.open] = await Promise.all([TA.json("/game-types").then((d) => d.games), loadOpenBots()]);
  } catch (e) {
    $("setup-error").textContent = `Could not load: ${e.message}`;
    return;
  }
  $("game").innerHTML = S.types.map((t) => `<option value="${TA.esc(t.name)}">${TA.esc(t.title)}</option>`).join("");
  $("game").addEventListener("change", fillSeats);
  $("seats").addEventListener("change", fillPlayers);
  $("you").addEventListener("change", fillPlayers);
  $("setup").addEventListener("submit", start);
  fillSeats();
  if (fragment.get("challenge") && fragment.get("token")) {
    try {
      await enter(fragment.get("challenge"), +fragment.get("seat") || 0, fragment.get("token"));
    } catch (e) {
      $("setup-error").textContent = `That game is gone: ${e.message}`;
    }
  }
}

document.addEventListener("DOMContentLoaded", init);
