// Added to the viewer's page by `trickarena replay view` (harness/replayview.py), never by the API:
// `?you=N` in the page's URL marks seat N as the author's bot (an outline and a star on its seat,
// a line under the title), whatever the viewer redraws; the link back to a tournament is hidden
// (a local replay has none).
"use strict";

(() => {
  const raw = new URLSearchParams(location.search).get("you");
  const you = /^\d+$/.test(raw || "") ? raw : null;
  const style = document.createElement("style");
  style.textContent = ".seat.yours{outline:3px solid #c98b12;outline-offset:2px}"
    + ".seat.yours h3>span:first-child::before{content:'\\2605  '}"
    + "#you-note{margin:4px 0 8px;font-weight:600}";
  document.head.appendChild(style);

  function mark() {
    const back = document.getElementById("back");
    if (back && !back.hidden) back.hidden = true;
    if (you === null) return;
    for (const el of document.querySelectorAll(".seat[data-seat]")) {
      const mine = el.dataset.seat === you;
      if (el.classList.contains("yours") !== mine) el.classList.toggle("yours", mine);
    }
    if (!document.getElementById("you-note")) {
      const sub = document.getElementById("subtitle");
      if (!sub) return;
      const note = document.createElement("div");
      note.id = "you-note";
      note.textContent = `Your bot played seat ${you} (marked ★). A local replay: trickarena replay view.`;
      sub.after(note);
    }
  }

  new MutationObserver(mark).observe(document.documentElement, {childList: true, subtree: true});
  document.addEventListener("DOMContentLoaded", mark);
})();
