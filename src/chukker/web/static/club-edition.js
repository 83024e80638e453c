// The new-match form's club edition (issue 33): shown only for "Club rules"; a saved
// edition file is loaded into the box (at most 16 KiB, read here, never uploaded on its
// own), and this browser keeps the last edition used for the next match.
(function () {
  "use strict";
  const KEY = "chukker.club_edition";
  const MAX = 16384;
  const form = document.querySelector("form");
  const rules = document.querySelector('select[name="rules"]');
  const box = document.querySelector("[data-club-edition]");
  if (!form || !rules || !box) return;
  const text = box.querySelector("textarea");
  const file = box.querySelector("[data-club-file]");
  // issue 42: once a club edition is chosen, the form's periods and warning horn say the
  // club's own (read from the box: JSON, or the TOML lines a starting file has)
  const periods = document.querySelector('select[name="periods"]');
  const warnLabel = document.querySelector("[data-warning-label]");
  const summary = box.querySelector("[data-club-summary]");
  const BASE = { regulation: { count: 4, length_s: 450 }, six: { count: 6, length_s: 300 }, warning_at_s: 30 };
  const original = {
    options: periods ? Array.from(periods.options, (o) => o.textContent) : [],
    warning: warnLabel ? warnLabel.textContent : "",
  };
  function parse(t) {
    try { const j = JSON.parse(t); if (j && typeof j === "object") return j; } catch (e) { /* TOML */ }
    const out = {};
    let sec = out;
    for (const raw of t.split(/\r?\n/)) {
      const line = raw.replace(/#.*$/, "").trim();
      const h = /^\[([A-Za-z_]+)\]$/.exec(line);
      if (h) { sec = out[h[1]] = out[h[1]] || {}; continue; }
      const kv = /^([A-Za-z_]+)\s*=\s*(.+)$/.exec(line);
      if (!kv) continue;
      const v = kv[2].trim();
      sec[kv[1]] = /^-?\d+$/.test(v) ? Number(v) : v.replace(/^"(.*)"$/, "$1");
    }
    return out;
  }
  function mmss(s) { return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); }
  function fill(tmpl, p) { return tmpl.replace(/%\((\w+)\)s/g, (a, k) => (k in p ? String(p[k]) : a)); }
  function describe() {
    const club = rules.value === "club" && text.value.trim() ? parse(text.value) : null;
    if (periods) {
      Array.from(periods.options).forEach((o, i) => {
        const plan = club && Object.assign({}, BASE[o.value] || {}, club[o.value] || {});
        const t = plan && plan.count && plan.length_s
          ? fill(box.dataset.periodsWords, { count: plan.count, length: mmss(plan.length_s) })
          : original.options[i];
        if (o.textContent !== t) o.textContent = t;
      });
    }
    const w = club ? (club.warning_at_s || BASE.warning_at_s) : null;
    if (warnLabel) warnLabel.textContent = w ? fill(box.dataset.warningWords, { s: w }) : original.warning;
    if (summary) {
      const plan = club && Object.assign({}, BASE[periods ? periods.value : "regulation"], club[periods ? periods.value : "regulation"] || {});
      summary.textContent = club && club.name ? club.name + ": " + fill(box.dataset.periodsWords, { count: plan.count, length: mmss(plan.length_s) }) + " · " + fill(box.dataset.warningWords, { s: w }) : "";
    }
  }
  function show() { box.hidden = rules.value !== "club"; describe(); }
  rules.addEventListener("change", show);
  text.addEventListener("input", describe);
  if (periods) periods.addEventListener("change", describe);
  try {
    if (!text.value) text.value = localStorage.getItem(KEY) || "";
  } catch (e) { /* storage refused: the box starts empty */ }
  show();
  if (file) {
    file.addEventListener("change", function () {
      const f = file.files && file.files[0];
      if (!f) return;
      if (f.size > MAX) { file.value = ""; file.setCustomValidity(box.dataset.tooBig || "too big"); file.reportValidity(); return; }
      file.setCustomValidity("");
      f.text().then(function (t) { text.value = t.slice(0, MAX); describe(); });
    });
  }
  form.addEventListener("submit", function () {
    if (rules.value !== "club") return;
    try { localStorage.setItem(KEY, text.value.slice(0, MAX)); } catch (e) { /* not kept */ }
  });
})();
