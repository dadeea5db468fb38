// Shared helpers of the Trick Arena pages: fetching, escaping, cards, small charts.
"use strict";

const TA = {};

TA.esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

// no-store: the data is live, and getGame's ETag is the game version whoever asks, so a cached
// spectator view would be "revalidated" (304) for a seat's request and shown instead of its view.
TA.json = async (url, headers = {}) => {
  const r = await fetch(url, {headers: {"Accept": "application/json", ...headers}, cache: "no-store"});
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.message || `${r.status} ${r.statusText}`);
  return body;
};

TA.lastPathPart = () => decodeURIComponent(location.pathname.replace(/\/+$/, "").split("/").pop());

TA.fmt = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x)) ? "–" : Number(x).toFixed(d);
TA.pct = (x) => (x === null || x === undefined) ? "–" : `${Math.round(x * 100)}%`;

TA.badge = (status) => `<span class="badge ${TA.esc(status)}">${TA.esc(status)}</span>`;

// A bot's name linking to its page (/web/bots/<id>); `names`: id -> name.
TA.botLink = (id, names) => `<a class="bot" href="/web/bots/${encodeURIComponent(id)}">${TA.esc((names || {})[id] || id)}</a>`;

TA.header = () => {
  const el = document.createElement("header");
  el.className = "top";
  el.innerHTML = `<a class="brand" href="/web/">Trick <span>Arena</span></a>
    <nav><a href="/web/play">Play</a><a href="/web/">Tournaments &amp; leagues</a><a href="/web/bots/">Bots</a><a href="/web/write-a-bot">Write a bot</a><a href="/docs">API docs</a><a href="/redoc">ReDoc</a><a href="/metrics">Metrics</a></nav>`;
  document.body.prepend(el);
};

// A page about one thing is titled by its name (never its id): the tab's title and the h1.
TA.setTitle = (name) => {
  document.title = `${name} · Trick Arena`;
  document.getElementById("title").textContent = name;
};

// A table in a box of its own that scrolls sideways on a narrow screen (the page never does).
TA.tableBox = (tableHtml) => `<div class="table-box">${tableHtml}</div>`;

// Series colours for entrants (stable by index).
TA.palette = ["#2f5d8a", "#c2562b", "#2e8b57", "#8a4fb0", "#c98b12", "#1e9aa8", "#b23a6b", "#5c6b2e"];

// ---- cards ---------------------------------------------------------------------------------------
TA.TT_RANKS = {1: "Peasant", 2: "Thief", 3: "Cook", 4: "Hypnotist", 5: "Countess", 6: "Fool",
               7: "Fog Witch", 8: "Drummer", 9: "Strategist", 10: "Brute"};
TA.TT_TEAMS = {red: "finches", blue: "lizards", green: "tree frogs", yellow: "field mice"};
TA.TNT_COLOURS = ["red", "blue", "yellow", "green"];

// Map a Trick 'n Trouble colour name onto one of the CSS colour classes.
TA.colourClass = (name, colours) => {
  const known = ["red", "blue", "green", "yellow"];
  if (known.includes(name)) return `c-${name}`;
  const i = (colours || []).indexOf(name);
  return `c-${["red", "blue", "yellow"][i >= 0 ? i : 0]}`;
};

TA.card = (game, id, opts = {}) => {
  const small = opts.small ? " small" : "";
  const extra = (opts.legal ? " legal" : "") + (opts.win ? " win" : "");
  if (id === null || id === undefined) return `<div class="card back${small}" title="face down"></div>`;
  if (game === "tricky-teams") {
    if (id.startsWith("flag")) {
      return `<div class="card c-flag${small}${extra}" title="white flag"><div class="rank">⚑</div><div class="name">white flag</div><div class="team">&nbsp;</div></div>`;
    }
    const [team, rank] = id.split("-");
    const name = TA.TT_RANKS[+rank] || "";
    return `<div class="card c-${TA.esc(team)}${small}${extra}" title="${TA.esc(TA.TT_TEAMS[team] || team)} ${TA.esc(name)}">
      <div class="rank">${TA.esc(rank)}</div><div class="name">${TA.esc(name)}</div><div class="team">${TA.esc(TA.TT_TEAMS[team] || team)}</div></div>`;
  }
  // Trick 'n Trouble: <colour>-<n>, <c1>-<c2>-2, joker-1x
  const parts = id.split("-");
  if (parts[0] === "joker") {
    return `<div class="card c-multi${small}${extra}" title="joker"><div class="rank">1</div><div class="name">joker</div><div class="team">all colours</div></div>`;
  }
  const rank = parts[parts.length - 1];
  const colours = parts.slice(0, -1);
  const cls = colours.length > 1 ? "c-multi" : TA.colourClass(colours[0], opts.colours);
  return `<div class="card ${cls}${small}${extra}" title="${TA.esc(colours.join(" + "))} ${TA.esc(rank)}">
    <div class="rank">${TA.esc(rank)}</div><div class="name">${TA.esc(colours.join("/"))}</div><div class="team">&nbsp;</div></div>`;
};

// ---- charts (inline SVG) ---------------------------------------------------------------------------
TA.lineChart = (seriesByName, opts = {}) => {
  // Drawn at about the width it is shown at (a phone's ~340 px, at most 560) so that its text stays
  // readable; the SVG scales to its box from there.
  const W = opts.width || Math.round(Math.max(300, Math.min(560, window.innerWidth - 48)));
  const H = opts.height || Math.round(Math.max(200, W * 0.46)), P = {l: 44, r: 12, t: 12, b: 28};
  const names = Object.keys(seriesByName);
  const all = names.flatMap((n) => seriesByName[n]);
  if (!all.length) return `<p class="empty">No rated games yet.</p>`;
  // opts.xs[name]: the x value of each point (default: its index); opts.xmax: the axis end.
  const xOf = (name, i) => (opts.xs && opts.xs[name]) ? opts.xs[name][i] : i;
  const n = opts.xmax !== undefined ? opts.xmax + 1 : Math.max(...names.map((k) => seriesByName[k].length));
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi - lo < 1) { lo -= 1; hi += 1; }
  const x = (i) => P.l + (W - P.l - P.r) * (n > 1 ? i / (n - 1) : 0.5);
  const y = (v) => P.t + (H - P.t - P.b) * (1 - (v - lo) / (hi - lo));
  let svg = `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${TA.esc(opts.label || "chart")}">`;
  for (let k = 0; k <= 4; k++) {
    const v = lo + (hi - lo) * k / 4;
    svg += `<line x1="${P.l}" x2="${W - P.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e9e2d3"/>`;
    svg += `<text x="${P.l - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end" fill="#6b7080">${v.toFixed(1)}</text>`;
  }
  svg += `<text x="${(W + P.l) / 2}" y="${H - 6}" font-size="11" text-anchor="middle" fill="#6b7080">${TA.esc(opts.xlabel || "rated events")} (${n - 1})</text>`;
  names.forEach((name, idx) => {
    const pts = seriesByName[name].map((v, i) => `${x(xOf(name, i)).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    const colour = TA.palette[idx % TA.palette.length];
    svg += `<polyline fill="none" stroke="${colour}" stroke-width="2.2" points="${pts}"/>`;
    const last = seriesByName[name].length - 1;
    svg += `<circle cx="${x(xOf(name, last))}" cy="${y(seriesByName[name][last])}" r="3.5" fill="${colour}"/>`;
  });
  svg += "</svg>";
  const legend = names.map((name, idx) => `<span><i style="background:${TA.palette[idx % TA.palette.length]}"></i>${TA.esc(name)}</span>`).join("");
  return svg + `<div class="legend">${legend}</div>`;
};

// Interval bar: the entrant's mean (dot) and 95% CI (bar) on a shared scale.
TA.ciBar = (mean, ci, lo, hi) => {
  if (mean === null || mean === undefined) return "";
  const span = (hi - lo) || 1;
  const p = (v) => `${((v - lo) / span * 100).toFixed(1)}%`;
  const bar = ci ? `<div class="bar" style="left:${p(ci[0])};width:calc(${p(ci[1])} - ${p(ci[0])})"></div>` : "";
  return `<div class="ci" title="${TA.fmt(mean)} [${ci ? TA.fmt(ci[0]) + ", " + TA.fmt(ci[1]) : "–"}]"><div class="axis"></div>${bar}<div class="dot" style="left:${p(mean)}"></div></div>`;
};

// Heat map colour from 0..1 (red .. neutral .. green).
TA.heat = (t) => {
  if (t === null || t === undefined) return "#f1ede4";
  const c = Math.max(0, Math.min(1, t));
  const from = c < 0.5 ? [217, 70, 59] : [245, 240, 228];
  const to = c < 0.5 ? [245, 240, 228] : [46, 139, 87];
  const k = c < 0.5 ? c / 0.5 : (c - 0.5) / 0.5;
  const rgb = from.map((f, i) => Math.round(f + (to[i] - f) * k));
  return `rgb(${rgb.join(",")})`;
};

document.addEventListener("DOMContentLoaded", TA.header);
