// The new-tournament form: POST /tournaments/api, then show the secrets it returns.
"use strict";
(function () {
  const cfg = JSON.parse(document.getElementById("tournament-new-cfg").textContent);
  document.getElementById("new-tournament").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target, err = document.getElementById("create-error");
    err.replaceChildren();
    const headers = { "content-type": "application/json" };
    if (f.organiser.value) headers.authorization = "Bearer " + f.organiser.value;
    const r = await fetch("/tournaments/api?lang=" + encodeURIComponent(cfg.lang), { method: "POST", headers, body: JSON.stringify({ text: f.text.value }) });
    const body = await r.json();
    if (!r.ok) {
      err.textContent = body.text || body.message || body.error;  // text: in the page's language
      const found = Array.isArray(body.problems) ? body.problems : [];
      const joined = found.map((p) => p.text).join(", ");
      if (found.length && body.text && body.text.endsWith(joined)) {
        // the problems one to a line (each {subject, code, params, message, text})
        err.textContent = body.text.slice(0, body.text.length - joined.length).replace(/:\s*$/, ":");
        const ul = document.createElement("ul");
        for (const p of found) {
          const li = document.createElement("li"); li.textContent = p.text; ul.append(li);
        }
        err.append(ul);
      }
      if (body.url) {  // the tournament exists: a link to it
        const a = document.createElement("a");
        a.href = body.url; a.textContent = " → " + body.url; err.append(a);
      }
      return;
    }
    const out = document.getElementById("created-secrets");
    out.replaceChildren();
    const add = (label, value, href) => {
      const dt = document.createElement("dt"); dt.textContent = label;
      const dd = document.createElement("dd");
      const el = document.createElement(href ? "a" : "code");
      if (href) el.href = href;
      el.textContent = value; dd.append(el); out.append(dt, dd);
    };
    // the same tournament again: updated, its tokens kept (only a new arena gets one)
    document.getElementById("created-updated").hidden = !body.updated;
    document.getElementById("created-heading").textContent = body.updated ? cfg.updated : cfg.created;
    if (body.committee_token) add(cfg.committee_token, body.committee_token);
    for (const [arena, a] of Object.entries(body.arenas)) {
      add(arena + (a.kept ? " (" + cfg.kept + ")" : ""), a.console, a.console);
    }
    const link = document.getElementById("created-link");
    link.href = "/tournaments/" + body.tournament_id + "?lang=" + encodeURIComponent(cfg.lang);
    document.getElementById("created").hidden = false;
  });
})();
