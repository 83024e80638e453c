// The home page keeps each unfinished match's status, score and clock current:
// one report per match every 5 s, the clock drawn in between.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("home-labels").textContent);
  const rows = Array.from(document.querySelectorAll("tr[data-match]")).slice(0, 30);
  const state = new Map();
  const fmt = (ms) => { const s = Math.ceil(Math.max(ms, 0) / 1000); return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); };
  function status(r) {
    let t = L[r.status] || r.status;
    if ((r.status === "in_play" || r.status === "stopped") && r.period) t = L.period + " " + r.period + " · " + t;
    return t;
  }
  async function poll(tr) {
    const pill = tr.querySelector("[data-home-status]");
    if (pill && pill.dataset.statusCode === "final") return;
    try {
      const r = await fetch("/api/matches/" + encodeURIComponent(tr.dataset.match), { cache: "no-store" });
      if (!r.ok) return;
      const rep = await r.json();
      state.set(tr, { rep, got: Date.now() });
      if (pill) { pill.textContent = status(rep); pill.dataset.statusCode = rep.status; }
      const ids = (tr.dataset.teams || "").split(",").filter(Boolean);
      const f = rep.status === "final" ? (rep.forfeited || []) : [];
      const names = JSON.parse(tr.dataset.names || "{}");
      // a forfeit reads as one (chukker.tournament.words): never "0 – 3" for a double forfeit
      tr.querySelector("[data-home-score]").textContent = f.length >= 2 ? L.both_forfeited
        : f.length ? L.team_forfeited.replace("%(team)s", names[f[0]] || f[0])
        : ids.map((k) => rep.score[k]).join(" – ");
    } catch (e) { /* offline: keep what is shown */ }
  }
  function draw() {
    for (const [tr, { rep, got }] of state) {
      let text = "";
      if (rep.status !== "pre_match" && rep.status !== "final") {
        const c = rep.interval ? { remaining_ms: rep.interval.remaining_ms, running: true } : rep.clock;
        text = fmt(c.running ? c.remaining_ms - (Date.now() - got) : c.remaining_ms);
      }
      const el = tr.querySelector("[data-home-clock]");
      if (el.textContent !== text) el.textContent = text;
    }
  }
  const all = () => rows.forEach(poll);
  all();
  setInterval(all, 5000);
  setInterval(draw, 250);
})();
