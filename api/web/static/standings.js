// Standings table, rating chart and heat map, shared by the tournament and league pages.
"use strict";

TA.standingsTable = (doc, names) => {
  const rows = doc.rows || [];
  if (!rows.length) return `<p class="empty">No results yet.</p>`;
  const means = rows.flatMap((r) => [r.mean_score, ...(r.score_ci || [])]).filter((v) => v !== null && v !== undefined);
  const lo = Math.min(...means), hi = Math.max(...means);
  const coop = !!doc.cooperative;
  // by=version: a row per bot version (no interval of its own, so no separation mark).
  const byVersion = doc.by === "version";
  const h = TA.HEADS;
  return TA.tableBox(`<table id="standings"${byVersion ? ' class="by-version"' : ""}>
    <tr><th class="num">#</th><th>Bot</th>${byVersion ? "<th>Version</th>" : ""}<th class="num">Games</th><th class="num">Wins</th><th class="num">${coop ? "Team score" : "Mean coins"}</th>
      <th>${h.interval}</th><th class="num greek">${h.mu}</th><th class="num greek">${h.sigma}</th><th class="num">${h.ordinal}</th>${coop ? `<th class="num">${h.threshold}</th>` : ""}<th class="num">Faults</th></tr>
    ${rows.map((r) => `<tr data-entrant="${TA.esc(r.entrant)}"${byVersion ? ` data-version="${TA.esc(r.version)}"` : ""}>
      <td class="num">${r.rank}</td>
      <td><b>${TA.botLink(r.entrant, names)}</b>${r.separated || byVersion ? "" : ` <span class="tie" title="interval overlaps ${TA.esc((r.not_separated_from || []).map((b) => names[b] || b).join(", "))}">≈ not yet separated</span>`}${r.flag ? `<div class="flag" title="${TA.esc(r.flag.fault)}: ${TA.pct(r.flag.share)} of its calls faulted">⚠ ${TA.esc(r.flag.reason)}</div>` : ""}</td>
      ${byVersion ? `<td>${TA.esc(r.version || "–")}</td>` : ""}<td class="num">${r.games}</td>
      <td class="num">${r.wins}${r.shared_wins ? ` <span class="muted">(${r.shared_wins} shared)</span>` : ""}</td>
      <td class="num">${TA.fmt(r.mean_score)}</td>
      <td${r.provisional ? ' class="provisional"' : ""}>${TA.ciBar(r.mean_score, r.score_ci, lo, hi)}<span class="muted" style="font-size:12px">${r.score_ci ? `${TA.fmt(r.score_ci[0])} – ${TA.fmt(r.score_ci[1])}` : ""}</span>${r.provisional && r.score_ci ? ` <span class="prov" title="from too few deals to be trusted: it separates no one yet">provisional</span>` : ""}</td>
      <td class="num">${TA.fmt(r.rating.mu)}</td><td class="num">${TA.fmt(r.rating.sigma)}</td><td class="num">${TA.fmt(r.rating.ordinal)}</td>
      ${coop ? `<td class="num">${TA.pct(r.threshold_rate)}</td>` : ""}
      <td class="num">${r.faults}${r.unrated_matches ? ` <span class="muted">(${r.unrated_matches} unrated)</span>` : ""}</td></tr>`).join("")}
  </table>`) + TA.standingsLegend(coop);
};

// The standings' headers, each carrying its meaning (hover, or a long press on a phone).
TA.HEADS = {
  interval: `<abbr title="The range the bot's true mean score lies in, 95% sure, from the deals played so far">95% interval</abbr>`,
  mu: `<abbr title="mu: the rating's best guess of the bot's skill (OpenSkill; every bot starts at 25)">μ</abbr>`,
  sigma: `<abbr title="sigma: how unsure that guess still is (starts at 8.33 and shrinks with every rated game)">σ</abbr>`,
  ordinal: `<abbr title="μ − 3σ: a cautious rating, the skill the bot is almost surely (99.7%) above">Ordinal</abbr>`,
  threshold: `<abbr title="Share of the bot's games whose team reached the win threshold (40 points; 19 tasks in story mode)">Threshold</abbr>`,
};

// Under the standings: what each mark and column means, in plain words.
TA.standingsLegend = (coop) => `<dl class="explain" id="standings-legend">
  <dt>Ranking.</dt> <dd>Bots are ranked by ${coop ? "mean team score" : "mean coins"} per game. The bar is its 95% interval: the range the true mean lies in, 95% sure.</dd>
  <dt>≈ not yet separated:</dt> <dd>its interval overlaps another bot's, so their order may still change; a rank is settled once no interval overlaps it.</dd>
  <dt>provisional:</dt> <dd>an interval from fewer than 10 deals (hatched) is too rough to trust and separates no one; more deals per pairing settle it.</dd>
  <dt>μ, σ, ordinal:</dt> <dd>the OpenSkill rating. μ (mu) is the best guess of the bot's skill (everyone starts at 25), σ (sigma) how unsure that guess is (starts at 8.33, shrinks as it plays), and the ordinal, μ − 3σ, a cautious rating the bot is almost surely above.</dd>
  ${coop ? `<dt>Threshold:</dt> <dd>the share of its games whose team reached the win threshold (40 points; 19 tasks in story mode).</dd>` : ""}
  <dt>Faults, unrated:</dt> <dd>a fault is a move the bot did not make in time or properly (the platform played one for it); past the fault threshold in a match (3 by default) the bot is unrated there: that match leaves its rating alone.</dd>
</dl>`;

// "per bot · per version" links above a standings table; `go(by)` reloads with that choice.
TA.byToggle = (by, go) => {
  window.TA_by = go;
  const link = (value, text) => value === by ? `<b>${text}</b>` : `<a href="#" id="by-${value}" onclick="TA_by('${value}');return false">${text}</a>`;
  return `<div class="muted" id="by-toggle">${link("bot", "per bot")} · ${link("version", "per version")}</div>`;
};

TA.heatMap = (doc, names) => {
  if (doc.by === "version") return `<p class="empty">Per bot only: choose "per bot" above.</p>`;
  const order = (doc.rows || []).map((r) => r.entrant);
  if (!order.length) return `<p class="empty">No results yet.</p>`;
  const label = (b) => TA.esc(names[b] || b);
  if (doc.cooperative) {
    const m = doc.cross_play || {};
    const vals = order.flatMap((a) => order.map((b) => (m[a] && m[a][b] && m[a][b].mean))).filter((v) => v !== null && v !== undefined);
    const lo = Math.min(...vals), hi = Math.max(...vals);
    return TA.tableBox(`<table class="heat" id="heatmap"><tr><th>with →</th>${order.map((b) => `<th>${label(b)}</th>`).join("")}</tr>
      ${order.map((a) => `<tr><th>${label(a)}</th>${order.map((b) => {
        const c = m[a] && m[a][b];
        const v = c ? c.mean : null;
        const t = (v === null || v === undefined) ? null : (hi > lo ? (v - lo) / (hi - lo) : 0.5);
        return `<td class="cell" style="background:${TA.heat(t)}" title="${c ? c.games : 0} games">${TA.fmt(v, 1)}</td>`;
      }).join("")}</tr>`).join("")}</table>`)
      + `<div class="legend muted">Mean team score of games where the row bot played with the column bot (diagonal: self-play).</div>`;
  }
  const m = doc.head_to_head || {};
  return TA.tableBox(`<table class="heat" id="heatmap"><tr><th>row vs →</th>${order.map((b) => `<th>${label(b)}</th>`).join("")}</tr>
    ${order.map((a) => `<tr><th>${label(a)}</th>${order.map((b) => {
      if (a === b) return `<td class="cell" style="background:#ece6da">—</td>`;
      const c = m[a] && m[a][b];
      const v = c ? c.rate : null;
      return `<td class="cell" style="background:${TA.heat(v)}" title="${c ? `${c.wins} W · ${c.losses} L · ${c.ties} T` : ""}">${v === null || v === undefined ? "–" : TA.pct(v)}</td>`;
    }).join("")}</tr>`).join("")}</table>`)
    + `<div class="legend muted">How often the row bot scored more than the column bot at the same table (ties count half).</div>`;
};

// The standings' measure over time: each bot's running mean score at its rated-event numbers (a
// long line keeps fewer, evenly thinned points). history.series[bot]: [rated event, mu, ordinal,
// mean score] points; points without a mean score (stored before it was kept, or before any game)
// are left out.
TA.ratingChart = (history, names, doc = {}) => {
  const series = {}, xs = {};
  for (const [bot, points] of Object.entries(history.series || {})) {
    const kept = points.filter((p) => p.length > 3 && p[3] !== null);
    if (!kept.length) continue;
    series[names[bot] || bot] = kept.map((p) => p[3]);
    xs[names[bot] || bot] = kept.map((p) => p[0]);
  }
  return TA.lineChart(series, {label: "mean score over time", xlabel: "rated events", xs, xmax: history.events})
    + TA.chartNotes(doc, history, names, Object.keys(history.series || {}));
};

// Under the chart: every bot of the standings page that it draws no line for, and every bot some of
// whose matches left it unrated, each with the reason (from its standings row; a row per version
// is summed per bot). `drawn`: the bots with a line.
TA.chartNotes = (doc, history, names, drawn) => {
  const bots = new Map();
  for (const r of doc.rows || []) {
    const b = bots.get(r.entrant) || {games: 0, unrated: 0, faults: 0, flag: null};
    b.games += r.games; b.unrated += r.unrated_matches; b.faults += r.faults; b.flag = b.flag || r.flag;
    bots.set(r.entrant, b);
  }
  const lines = new Set(drawn), charted = new Set(history.charted || [...bots.keys()]);
  const plural = (n, one) => `${n} ${one}${n === 1 ? "" : "es"}`;
  const notes = [];
  for (const [bot, b] of bots) {
    const why = b.flag ? ` ⚠ ${TA.esc(b.flag.reason)}` : "";
    const unrated = `it faulted past the fault threshold in ${plural(b.unrated, "match")} (${b.faults} faults in all), which left it unrated there.${why}`;
    let text = null;
    if (!charted.has(bot)) text = `not drawn: the chart draws the first ${charted.size} bots of this page only.`;
    else if (!lines.has(bot) && !b.games) text = "no line: no games yet.";
    else if (!lines.has(bot) && b.unrated) text = `no line, no rating yet: ${unrated}`;
    else if (!lines.has(bot)) text = `no line yet: none of its games has been rated so far${doc.cooperative ? " (a team's games are rated once another team has played the same deal)" : ""}.`;
    else if (b.unrated) text = `its line counts its rated matches only: ${unrated}`;
    if (text) notes.push(`<li data-entrant="${TA.esc(bot)}"><b>${TA.botLink(bot, names)}</b>: ${text}</li>`);
  }
  return notes.length ? `<ul class="chart-notes" id="chart-notes">${notes.join("")}</ul>` : "";
};

// Pager for a ranked page: "ranks a–b of n", previous / next links calling `go(offset)`.
TA.pager = (id, offset, limit, total, go) => {
  if (total <= limit && offset === 0) return "";
  const last = Math.min(offset + limit, total);
  window[`TA_go_${id}`] = go;
  const link = (o, text) => `<a href="#" onclick="TA_go_${id}(${o});return false">${text}</a>`;
  return `<div class="pager muted" id="${id}">${offset + 1}–${last} of ${total}
    ${offset > 0 ? link(Math.max(0, offset - limit), "← previous") : ""} ${last < total ? link(offset + limit, "next →") : ""}</div>`;
};
