// The game viewer: follow a live game through the event stream, or replay a finished one move by
// move / trick by trick from the spectator's or any seat's perspective (or every seat at once).
"use strict";

// /web/games/<id> shows that game; /web/replay shows a replay file chosen on the page.
const gid = TA.lastPathPart();
const uploadPage = location.pathname.replace(/\/+$/, "") === "/web/replay";
const $ = (id) => document.getElementById(id);
const state = {game: null, seats: 0, mode: null, frames: [], i: 0, timer: null, source: null, perspective: "spectator", live: null, upload: null, ownSeat: null};

// Who plays: getGamePlayers (any game id: names, faults, latencies, which seat is yours), read
// with the owner key this browser keeps (localStorage, never in a URL), and again at each change
// the players' stream (streamGamePlayers) tells of. An uploaded replay brings its own.
const query = new URLSearchParams(location.search);
const KEY_ITEM = "trickarena.owner-key";
const players = {doc: null, names: [], decisions: []};

function ownerKey() { try { return localStorage.getItem(KEY_ITEM) || ""; } catch (_) { return ""; } }
function keyHeaders() { const k = ownerKey(); return k ? {Authorization: `Bearer ${k}`} : {}; }

function seatName(s) { return players.names[s] || `Seat ${s}`; }

function setPlayers(doc) {
  players.doc = doc;
  players.names = doc.players.map((p) => p.name);
  players.decisions = doc.decisions || [];
  const own = doc.players.find((p) => p.yours);
  state.ownSeat = own ? own.seat : null;
  renderPlayers();
  markOwnSeat();
  backLinks();
}

async function loadPlayers() {
  setPlayers(await TA.json(`/games/${encodeURIComponent(gid)}/players`, keyHeaders()));
}

function latencyText(l) {
  if (!l) return '<span class="muted">–</span>';
  if (!l.timed) return '<span class="muted">none timed</span>';
  return `<span class="latency">median ${l.median_ms} ms</span> · mean ${l.mean_ms} ms · max ${l.max_ms} ms <span class="muted">(${l.timed} answers)</span>`;
}

function faultsText(p) {
  if (!p.faults) return '<span class="muted">–</span>';
  const f = p.faults;
  if (!f.total) return `none <span class="muted">in ${f.calls} calls</span>`;
  const reasons = (p.reasons || []).map((r) => `<li>${TA.esc(r)}</li>`).join("");
  return `<b class="fault-count">${f.total}</b> of ${f.calls} calls${f.flag ? ` <span class="flag">⚠ ${TA.esc(f.flag.reason)}</span>` : ""}<ul class="reasons">${reasons}</ul>`;
}

function renderPlayers() {
  const d = players.doc;
  if (!d) return;
  const withheld = d.withheld
    ? `<p class="muted" id="withheld">Faults, answer times and each move's record are shown once the tournament has ended (at once to the owner of a bot seated here: give its owner key above).</p>` : "";
  const rows = d.players.map((p) => `<tr data-seat="${p.seat}"${p.yours ? ' class="yours"' : ""}><td class="num">${p.seat}</td>
    <td><span class="player-name">${p.bot_id ? TA.botLink(p.bot_id, {[p.bot_id]: p.name}) : TA.esc(p.name)}</span>${p.yours ? ' <span class="badge mine">your bot</span>' : ""}${p.version ? ` <span class="muted">v${TA.esc(p.version)}</span>` : ""}</td>
    <td class="faults">${faultsText(p)}</td><td class="latencies">${latencyText(p.latency)}</td></tr>`).join("");
  $("players").innerHTML = TA.tableBox(`<table><tr><th class="num">Seat</th><th>Bot</th><th>Faults</th><th>Answer times</th></tr>${rows}</table>`) + withheld;
}

// The seat of the caller's own bot, outlined wherever the table is redrawn.
function markOwnSeat() {
  for (const el of document.querySelectorAll("#table .seat[data-seat]")) {
    el.classList.toggle("yours", state.ownSeat !== null && el.dataset.seat === String(state.ownSeat));
  }
}

// Links back: to the bot's page the viewer was opened from (?bot=), and to the game's tournament.
function backLinks() {
  const d = players.doc || {};
  const tid = d.tournament_id || query.get("tournament");
  if (tid) {
    $("back").href = `/web/tournaments/${encodeURIComponent(tid)}`;
    $("back").textContent = `← ${d.tournament_name || "tournament"}`;
    $("back").hidden = false;
  }
  const bot = query.get("bot");
  if (bot) {
    const p = (d.players || []).find((x) => x.bot_id === bot);
    $("back-bot").href = `/web/bots/${encodeURIComponent(bot)}`;
    $("back-bot").textContent = `← ${p ? p.name : "bot"}`;
    $("back-bot").hidden = false;
  }
}

// The decision behind frame `step` (the move that made game version step + 1), if recorded.
function decisionAt(step) {
  const d = players.decisions[step - 1];
  return d && d.version === step + 1 ? d : null;
}

function decisionNote(step) {
  const d = decisionAt(step);
  if (!d) return "";
  const ms = d.latency_ms === null ? "" : ` <span class="latency">${d.latency_ms} ms</span>`;
  if (d.outcome === "ok") return ms;
  const why = d.outcome === "not_asked" ? "not asked (past the fault threshold)" : `⚠ ${d.outcome}${d.status ? ` ${d.status}` : ""}`;
  return `${ms} <span class="fault" data-fault="${TA.esc(d.outcome)}">${TA.esc(why)}</span> <span class="fallback">fallback move</span>`;
}

// Every position has its URL (#move=N), so a moment of a replay can be shared.
function requestedMove() {
  const n = parseInt(new URLSearchParams(location.hash.slice(1)).get("move"), 10);
  return Number.isFinite(n) && n >= 0 ? n : null;
}
function setMoveInUrl(i) {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.get("move") === String(i)) return;
  h.set("move", String(i));
  history.replaceState(null, "", `${location.pathname}${location.search}#${h.toString()}`);
}

function describeMove(action) {
  if (!action) return "start";
  const m = action.move || {};
  const bits = [m.type];
  if (m.card) bits.push(m.card);
  if (m.level !== undefined) bits.push(`level ${m.level}`);
  if (m.task) bits.push(m.task);
  if (m.seat !== undefined) bits.push(`seat ${m.seat}`);
  if (m.wish) bits.push(`wish: seat ${m.wish.seat} plays ${m.wish.team}`);
  return `${seatName(action.seat)}: ${bits.join(" ")}`;
}

// ---- rendering ---------------------------------------------------------------------------------
function handFor(views, seat) {
  for (const v of views) if (v.seat === seat && v.hand) return v.hand;
  const v = views[0];
  if (v.hands && v.hands[seat]) return v.hands[seat];  // revealed after the end (Trick 'n Trouble)
  return null;
}

function renderTrickyTeams(views) {
  const v = views[0], game = "tricky-teams";
  const toMove = new Set(v.to_move || []);
  const seatsHtml = v.players.map((p) => {
    const hand = handFor(views, p.seat);
    const legal = new Set(views.filter((x) => x.seat === p.seat).flatMap((x) => (x.legal_moves || []).map((m) => m.card)));
    // 8s have no card back: a hidden hand still shows them face up, the rest face down.
    const eights = p.eights || [];
    const cards = hand ? hand.map((c) => TA.card(game, c, {small: true, legal: legal.has(c)})).join("")
                       : eights.map((c) => TA.card(game, c, {small: true})).join("")
                         + Array.from({length: Math.max(0, p.hand_size - eights.length)}, () => TA.card(game, null, {small: true})).join("");
    const extras = (p.cooks || []).map((c) => TA.card(game, c, {small: true})).join("");
    return `<div class="seat${toMove.has(p.seat) ? " to-move" : ""}" data-seat="${p.seat}">
      <h3><span>${seatName(p.seat)}${views.length === 1 && v.seat === p.seat ? " (you)" : ""}</span><span>${p.total} coins · loot ${p.loot_size}</span></h3>
      <div class="hand">${cards || '<span class="muted">no cards</span>'}</div>
      ${extras ? `<div style="font-size:12px;margin-top:4px;opacity:.85">Cooks in front: ${extras}</div>` : ""}</div>`;
  }).join("");
  const trick = (v.trick || []).map((t) => `<div class="play">${TA.card(game, t.card)}<div>${seatName(t.seat)}${t.wish ? `<br>wish: seat ${t.wish.seat} → ${TA.esc(TA.TT_TEAMS[t.wish.team] || t.wish.team)}` : ""}</div></div>`).join("");
  let last = "";
  if (v.last_trick && !(v.trick || []).length) {
    const lt = v.last_trick;
    last = `<div style="text-align:center">Trick ${lt.number} of raid ${lt.raid}: won by the <b>${TA.esc(TA.TT_TEAMS[lt.winning_team] || lt.winning_team)}</b> (${lt.winners.map(seatName).join(", ")})</div>
      <div class="trick">${lt.plays.map((pl) => `<div class="play">${TA.card(game, pl.card, {win: lt.winners.includes(pl.seat)})}<div>${seatName(pl.seat)} · ${pl.strength}</div></div>`).join("")}</div>`;
  }
  return `<div class="seats">${seatsHtml}</div>
    ${trick || !last ? `<div class="trick" id="trick">${trick || '<span style="opacity:.7">no cards on the table</span>'}</div>` : ""}${last}
    ${v.result ? `<div style="text-align:center;font-size:18px">Final: ${v.result.scores.map((s, i) => `${seatName(i)} ${s}`).join(" · ")} — winner${v.result.winners.length > 1 ? "s" : ""} ${v.result.winners.map(seatName).join(", ")}</div>` : ""}`;
}

function renderTrickNTrouble(views) {
  const v = views[0], game = "trick-n-trouble";
  const colours = (v.options && v.options.colours) || [];
  const toMove = new Set(v.to_move || []);
  const seatsHtml = Array.from({length: v.seats}, (_, s) => {
    const hand = handFor(views, s);
    const legal = new Set(views.filter((x) => x.seat === s).flatMap((x) => (x.legal_moves || []).map((m) => m.card)));
    const cards = hand ? hand.map((c) => TA.card(game, c, {small: true, legal: legal.has(c), colours})).join("")
                       : Array.from({length: v.hand_sizes[s]}, () => TA.card(game, null, {small: true})).join("");
    return `<div class="seat${toMove.has(s) ? " to-move" : ""}" data-seat="${s}"><h3><span>${seatName(s)}${v.lead === s ? " · lead" : ""}${views.length === 1 && v.seat === s ? " (you)" : ""}</span><span>${v.hand_sizes[s]} cards</span></h3><div class="hand">${cards}</div></div>`;
  }).join("");
  const tasks = (v.tasks || []).map((t) => `<span class="task"><b>${t.points} pts</b> · L${t.level} · ${TA.esc(t.text)}</span>`).join("");
  const trick = (v.trick || []).map((t) => `<div class="play">${TA.card(game, t.card, {colours})}<div>${seatName(t.seat)}</div></div>`).join("");
  const lastTrick = (!trick && v.tricks && v.tricks.length) ? v.tricks[v.tricks.length - 1] : null;
  const last = lastTrick ? `<div style="text-align:center;opacity:.85">previous trick</div><div class="trick">${lastTrick.map((t) => `<div class="play">${TA.card(game, t.card, {colours})}<div>${seatName(t.seat)}</div></div>`).join("")}</div>` : "";
  return `<div style="text-align:center;margin-bottom:8px">Team points <b style="font-size:20px">${v.points}</b> · tasks fulfilled ${v.tasks_fulfilled}</div>
    <div style="text-align:center">${tasks || '<span style="opacity:.7">no face-up tasks</span>'}</div>
    ${trick || !last ? `<div class="trick" id="trick">${trick || '<span style="opacity:.7">no cards on the table</span>'}</div>` : ""}${last}
    <div class="seats">${seatsHtml}</div>
    ${v.result ? `<div style="text-align:center;font-size:18px;margin-top:10px">Final: ${v.result.points} points, ${v.result.tasks_fulfilled} tasks — ${TA.esc(v.result.band)}</div>` : ""}`;
}

function renderInfo(v) {
  const rows = state.game === "tricky-teams"
    ? [["raid", `${v.raid} / ${v.raids}`], ["trick", v.trick_number], ["phase", v.phase], ["to move", (v.to_move || []).map(seatName).join(", ") || "–"],
       ["teams out", (v.teams_out || []).map((t) => TA.TT_TEAMS[t] || t).join(", ") || "–"], ["fog", v.fog ? "yes" : "no"]]
    : [["round", `${v.round} / ${v.rounds}`], ["phase", v.phase], ["to move", (v.to_move || []).map(seatName).join(", ") || "–"],
       ["draw pile", v.draw_pile], ["points", v.points], ["fulfilled", (v.fulfilled || []).map((f) => f.task.id).join(", ") || "–"]];
  $("info").innerHTML = rows.map(([k, val]) => `<b>${TA.esc(k)}</b><span>${TA.esc(val)}</span>`).join("");
}

function render(views) {
  $("table").innerHTML = state.game === "tricky-teams" ? renderTrickyTeams(views) : renderTrickNTrouble(views);
  renderInfo(views[0]);
  markOwnSeat();
}

// ---- replay ------------------------------------------------------------------------------------
function showFrame(i) {
  state.i = Math.max(0, Math.min(state.frames.length - 1, i));
  const f = state.frames[state.i];
  render(f.views);
  $("slider").value = state.i;
  $("step").textContent = `move ${state.i} / ${state.frames.length - 1}`;
  $("log").innerHTML = state.frames.slice(1, state.i + 1).map((fr) => `<div data-step="${fr.step}"${fr.step === state.i ? ' class="current"' : ""}><a href="#move=${fr.step}">${fr.step}.</a> ${TA.esc(describeMove(fr.action))}${decisionNote(fr.step)}</div>`).reverse().join("");
  const d = decisionAt(state.i);
  if (d) {
    const how = d.outcome === "ok" ? "the bot's move" : `fallback move (${d.outcome}${d.status ? ` ${d.status}` : ""})`;
    $("info").innerHTML += `<b>last move</b><span id="last-move">${TA.esc(seatName(d.seat))}: ${TA.esc(how)}${d.latency_ms === null ? "" : `, ${d.latency_ms} ms`}</span>`;
  }
  setMoveInUrl(state.i);
  $("prev").disabled = $("first").disabled = $("prev-trick").disabled = state.i === 0;
  $("next").disabled = $("last").disabled = $("next-trick").disabled = state.i === state.frames.length - 1;
}

// A trick closes at the frame where the cards on the table shrink.
function trickClosedAt(j) {
  if (j <= 0) return false;
  return (state.frames[j].views[0].trick || []).length < (state.frames[j - 1].views[0].trick || []).length;
}
function nextTrick() {
  let j = state.i + 1;
  while (j < state.frames.length - 1 && !trickClosedAt(j)) j++;
  showFrame(j);
}
function prevTrick() {
  let j = state.i - 1;
  while (j > 0 && !trickClosedAt(j)) j--;
  showFrame(j);
}

async function uploadedFrames() {
  const r = await fetch(`/web/data/replays?seat=${encodeURIComponent(state.perspective)}`, {
    method: "POST", headers: {"Content-Type": "application/json", "Accept": "application/json"}, body: state.upload, cache: "no-store"});
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.message || `${r.status} ${r.statusText}`);
  return body;
}

async function loadReplay() {
  stopPlay();
  const d = state.upload ? (await uploadedFrames()).frames
    : await TA.json(`/web/data/games/${encodeURIComponent(gid)}/frames?seat=${encodeURIComponent(state.perspective)}`);
  const keep = state.frames.length ? state.i : (requestedMove() || 0);
  state.frames = d.frames;
  $("slider").max = d.frames.length - 1;
  showFrame(Math.min(keep, d.frames.length - 1));
}

function stopPlay() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
  $("play").textContent = "▶ play";
}
function togglePlay() {
  if (state.timer) { stopPlay(); return; }
  if (state.i >= state.frames.length - 1) showFrame(0);
  $("play").textContent = "⏸ pause";
  state.timer = setInterval(() => { if (state.i >= state.frames.length - 1) stopPlay(); else showFrame(state.i + 1); }, 450);
}

// ---- live --------------------------------------------------------------------------------------
// A seat token in the URL fragment (#token=...) follows the live game as that seat. The fragment
// never leaves the browser, so the token is not in any server log or Referer.
const liveToken = new URLSearchParams(location.hash.slice(1)).get("token");

async function refreshLive() {
  const doc = await TA.json(`/games/${encodeURIComponent(gid)}`, liveToken ? {Authorization: `Bearer ${liveToken}`} : {});
  state.live = doc;
  render([doc.view]);
  $("status").innerHTML = TA.badge(doc.status);
  if (doc.status === "finished") { startReplay(); }
}

function startLive() {
  state.mode = "live";
  $("mode").textContent = "live";
  $("replay-controls").hidden = true;
  $("perspective").disabled = true;
  $("subtitle").textContent = `Following the game live (${liveToken ? "as your seat" : "spectator view"}); it turns into a replay when it ends.`;
  const seen = [];
  const source = new EventSource(`/games/${encodeURIComponent(gid)}/events/stream`);
  state.source = source;
  // The API names its stream events "game-event" and closes with "end" (finished or timeout).
  source.addEventListener("game-event", (e) => {
    try {
      const ev = JSON.parse(e.data).event || {};
      const who = ev.seat !== undefined ? `${seatName(ev.seat)}: ` : "";
      seen.unshift(`<div>v${TA.esc(String(e.lastEventId).split("-")[0])} ${TA.esc(who + (ev.type || ""))} ${TA.esc(ev.card || "")}</div>`);
    } catch (_) { /* not JSON: ignore */ }
    $("log").innerHTML = seen.slice(0, 200).join("");
    refreshLive().catch(() => {});
  });
  source.addEventListener("end", (e) => {
    source.close();
    let reason = "";
    try { reason = JSON.parse(e.data).reason; } catch (_) { /* no body */ }
    if (reason === "finished") startReplay();
    else if (state.mode === "live") setTimeout(startLive, 300);  // the server caps a stream's lifetime
  });
  refreshLive().catch((e) => { $("subtitle").textContent = e.message; });
}

// A sealed tournament game (its tournament still runs): the owner of a bot seated here watches
// from that bot's seat -- getGameSeatView, exactly what the bot is sent -- and everyone else sees
// who plays and when it opens. Either way the page follows the players' stream and turns into
// the usual viewer by itself once the tournament has ended.
async function refreshSeat() {
  const doc = await TA.json(`/games/${encodeURIComponent(gid)}/seats/${state.ownSeat}/view`, keyHeaders());
  render([doc.view]);
  $("status").innerHTML = TA.badge(doc.status);
}

function showSealed() {
  $("replay-controls").hidden = true;
  $("perspective").disabled = true;
  if (state.ownSeat !== null) {
    state.mode = "seat";
    $("mode").textContent = "your seat";
    $("subtitle").innerHTML = `<span id="seat-note">Live tournament game seen from your bot's seat (seat ${state.ownSeat}, ${TA.esc(seatName(state.ownSeat))}): exactly what your bot is sent, nothing more.</span> Everyone else watches once the tournament has ended. This page follows the game by itself.`;
    refreshSeat().catch((e) => { $("subtitle").textContent = e.message; });
  } else {
    state.mode = "sealed";
    $("mode").textContent = "sealed";
    $("subtitle").innerHTML = `<span id="sealed-note">This tournament game can be watched once its tournament has ended: its deal is played at other tables too.</span> This page opens it by itself then; the players are below.`;
    $("table").innerHTML = `<div class="notice">The table is hidden until the tournament ends${players.doc && players.doc.tournament_id ? ` (<a href="/web/tournaments/${encodeURIComponent(players.doc.tournament_id)}">its standings</a>)` : ""}. Own a bot seated here? Give its owner key above to watch from its seat now.</div>`;
  }
}

// streamGamePlayers: the public players' document at every change (a move, a decision, the game's
// or the tournament's end). With a key the page reads its own (keyed) document on each.
function followPlayers() {
  const d = players.doc;
  if (state.upload || !d || (d.status === "finished" && !d.sealed)) return;  // nothing will change
  if (state.playersSource) state.playersSource.close();
  const source = new EventSource(`/games/${encodeURIComponent(gid)}/players/stream`);
  state.playersSource = source;
  source.addEventListener("players", (e) => {
    let doc;
    try { doc = JSON.parse(e.data); } catch (_) { return; }
    const wasSealed = players.doc && players.doc.sealed;
    const next = ownerKey() ? loadPlayers() : Promise.resolve(setPlayers(doc));
    next.then(() => {
      if (wasSealed && !doc.sealed) { source.close(); start(); return; }
      if (state.mode === "seat") return refreshSeat();
      return null;
    }).catch(() => {});
  });
  source.addEventListener("end", (e) => {
    source.close();
    let reason = "";
    try { reason = JSON.parse(e.data).reason; } catch (_) { /* no body */ }
    if (reason !== "finished" && reason !== "game_not_found") setTimeout(followPlayers, 300);  // capped lifetime: go on
  });
}

function startReplay() {
  if (state.mode === "replay") return;
  if (state.source) { state.source.close(); state.source = null; }
  state.mode = "replay";
  $("mode").textContent = "replay";
  $("replay-controls").hidden = false;
  $("perspective").disabled = false;
  $("subtitle").textContent = state.upload ? "A replay file: step through it move by move or trick by trick, from any seat."
    : "Finished game: step through it move by move or trick by trick, from any seat.";
  loadReplay().catch((e) => { $("subtitle").textContent = e.message; });
  if (!state.upload) loadPlayers().catch(() => {});  // the final faults and latencies
}

function setupControls(seats) {
  state.seats = seats;
  const opts = [["spectator", "Spectator"], ...Array.from({length: seats}, (_, s) => [String(s), seatName(s)]), ["all", "All seats (replay)"]];
  $("perspective").innerHTML = opts.map(([v, l]) => `<option value="${v}">${TA.esc(l)}</option>`).join("");
}

function header(game, label, status) {
  state.game = game;
  document.title = `${label} · Trick Arena`;
  $("title").textContent = label;
  $("status").innerHTML = TA.badge(status);
}

// Open the game (again, when its tournament has ended): sealed, live or finished.
async function start() {
  const d = players.doc;
  header(d.game, d.tournament_name ? `${d.game} · ${d.tournament_name} #${d.match_index}` : `${d.game} · ${gid}`, d.status);
  setupControls(d.seats);
  if (d.sealed && !liveToken) { showSealed(); return; }
  let doc;
  try { doc = await TA.json(`/games/${encodeURIComponent(gid)}`, liveToken ? {Authorization: `Bearer ${liveToken}`} : {}); }
  catch (e) { $("subtitle").textContent = "Could not load the game: " + e.message; return; }
  if (doc.status === "finished") {
    state.perspective = "all";
    $("perspective").value = "all";
    startReplay();
  } else {
    startLive();
  }
}

async function openUpload(file) {
  if (file.size > 64 * 1024) { $("subtitle").textContent = "That file is over 64 KiB, the API's request limit: not a replay of one game."; return; }
  // Sent as read: a seed past 2^53 would not survive JSON.parse. The server drops the faults'
  // details (the bots' answers): the page shows none.
  const text = await file.text();
  if (state.source) { state.source.close(); state.source = null; }
  if (state.playersSource) { state.playersSource.close(); state.playersSource = null; }
  state.upload = text;
  state.mode = null;
  state.frames = [];
  state.perspective = "all";
  let d;
  try { d = await uploadedFrames(); } catch (e) { state.upload = null; $("subtitle").textContent = "Could not open the file: " + e.message; return; }
  setPlayers(d.players);
  header(d.game.game, `${d.game.game} · ${file.name}`, "finished");
  setupControls(d.game.seats);
  $("perspective").value = "all";
  if (state.ownSeat !== null) $("subtitle").dataset.you = String(state.ownSeat);
  startReplay();
}

function init() {
  $("perspective").onchange = (e) => { state.perspective = e.target.value; loadReplay().catch((err) => { $("subtitle").textContent = err.message; }); };
  $("first").onclick = () => showFrame(0);
  $("last").onclick = () => showFrame(state.frames.length - 1);
  $("prev").onclick = () => showFrame(state.i - 1);
  $("next").onclick = () => showFrame(state.i + 1);
  $("next-trick").onclick = nextTrick;
  $("prev-trick").onclick = prevTrick;
  $("play").onclick = togglePlay;
  $("slider").oninput = (e) => showFrame(+e.target.value);
  window.addEventListener("hashchange", () => {
    const n = requestedMove();
    if (state.mode === "replay" && n !== null && n !== state.i) showFrame(n);
  });
  document.addEventListener("keydown", (e) => {
    if (state.mode !== "replay" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") showFrame(state.i + 1);
    if (e.key === "ArrowLeft") showFrame(state.i - 1);
  });
  $("owner-key").value = ownerKey();
  $("key-save").onclick = () => {
    try { localStorage.setItem(KEY_ITEM, $("owner-key").value.trim()); } catch (_) { /* private mode */ }
    if (!uploadPage && !state.upload) location.reload();
  };
  $("key-forget").onclick = () => {
    try { localStorage.removeItem(KEY_ITEM); } catch (_) { /* private mode */ }
    $("owner-key").value = "";
    if (!uploadPage && !state.upload) location.reload();
  };
  $("upload").onchange = (e) => { if (e.target.files[0]) openUpload(e.target.files[0]); };
  if (uploadPage) {
    $("keys").open = true;
    $("title").textContent = "Replay a file";
    $("subtitle").textContent = "Choose a replay file below (trickarena play writes one per game): the seats' names, faults and answer times come with it.";
    return;
  }
  loadPlayers().then(() => { start(); followPlayers(); })
    .catch((e) => { $("subtitle").textContent = "Could not load the game: " + e.message; backLinks(); });
}
init();
