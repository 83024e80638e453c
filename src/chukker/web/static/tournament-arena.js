// An arena of a tournament: its big screen (the current match, clock, QR code) or its
// console (opens the current match's console and follows the arena to the next one).
"use strict";
(function () {
  const cfg = JSON.parse(document.getElementById("arena-cfg").textContent);
  const tid = cfg.tid, lang = encodeURIComponent(cfg.lang);
  const view = cfg.view, key = "arena-token-" + tid + "-" + cfg.arena_key, arenaKey = cfg.arena_key;
  const $ = (sel) => document.querySelector(sel);
  let token = "";
  if (view === "console") {
    token = (location.hash.match(/token=([^&]+)/) || [])[1] || localStorage.getItem(key) || "";
    if (location.hash) { localStorage.setItem(key, token); history.replaceState(null, "", location.pathname + location.search); }
  }
  let board = cfg.board, current = null, win = null;
  // issue 42: at the final horn the console stays on the finished match, with its result,
  // until the timekeeper moves on ("Next match") or for HOLD_MS, never within 2 s
  const HOLD_MS = (cfg.hold_s || 60) * 1000;
  let seen = null, held = null, holdTimer = null;
  const consoleUrl = (live) => "/m/" + live + "/console?lang=" + lang + "#token=" + encodeURIComponent(token);
  function fmt(ms) { const s = Math.ceil(Math.max(ms, 0) / 1000); return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); }
  function clock() {
    if (!board || !board.clock) return "";
    let ms = board.clock.remaining_ms;
    if (board.clock.running && board.server_time) ms -= Date.now() - board.server_time;
    return fmt(ms);
  }
  function render() {
    const b = board || {};
    if (view === "display") {
      const set = (k, v) => { const el = document.querySelector('[data-b="' + k + '"]'); if (el) el.textContent = v; };
      set("team0", b.teams ? b.teams[0] : ""); set("team1", b.teams ? b.teams[1] : "");
      set("score", b.score ? b.score[0] + " – " + b.score[1] : (b.teams ? "–" : ""));
      set("clock", ["in_play", "stopped"].includes(b.status) ? clock() : "");
      set("status", (b.status_text || "") + (b.period && ["in_play", "stopped", "interval"].includes(b.status) ? " · P" + b.period : "") + (b.start && (b.status === "scheduled" || b.status === "pre_match") ? " · " + b.start : ""));
      set("next", b.next ? cfg.then + " " + b.next.teams[0] + " – " + b.next.teams[1] + " · " + b.next.start : "");
      const qr = $("#arena-qr-img");
      if (b.match && b.live) { qr.src = "/tournaments/" + encodeURIComponent(tid) + "/qr/" + encodeURIComponent(b.match) + ".svg"; qr.hidden = false; } else qr.hidden = true;
      return;
    }
    if (b.live !== current) {
      const moved = current !== null && current !== undefined;
      const prev = seen;
      current = b.live;
      // the console opened from here follows the arena to the next match once a result
      // is final, after the finished match has been on screen (moveOn)
      if (moved && prev) hold(prev);
    }
    if (b.live && b.live === current) seen = { live: b.live, teams: b.teams, score: b.score };
    $("#arena-match").textContent = b.teams ? b.teams[0] + " – " + b.teams[1] + " · " + (b.status_text || "") : "";
    $("#arena-none").hidden = !!b.live || !!held;
    $("#arena-open").hidden = !b.live || !!held;
    if (b.live) $("#arena-open").href = consoleUrl(b.live);
    const box = $("#arena-final");
    box.hidden = !held;
    if (held) {
      const sc = held.score ? held.score[0] + " – " + held.score[1] : "";
      $("#arena-final-result").textContent = cfg.final + ": " + (held.teams ? held.teams[0] + " " + sc + " " + held.teams[1] : sc);
      $("#arena-final-next").textContent = b.teams && b.live ? cfg.then + " " + b.teams[0] + " – " + b.teams[1] : "";
      $("#arena-next").hidden = !b.live;
    }
  }
  function hold(prev) {
    held = prev;
    if (holdTimer) clearTimeout(holdTimer);
    holdTimer = setTimeout(moveOn, HOLD_MS);
  }
  function moveOn() {
    if (!held) return;
    held = null;
    if (holdTimer) clearTimeout(holdTimer);
    holdTimer = null;
    if (current && win && !win.closed) win.location.href = consoleUrl(current);
    render();
  }
  if (view === "console") $("#arena-next").addEventListener("click", (e) => {
    e.preventDefault();
    moveOn();
    if (current && (!win || win.closed)) win = window.open(consoleUrl(current), "arena-console-" + tid);
  });
  if (view === "console") $("#arena-open").addEventListener("click", (e) => {
    if (!board || !board.live) return;
    e.preventDefault();
    win = window.open(consoleUrl(board.live), "arena-console-" + tid);
  });
  render();
  if (view === "display") setInterval(() => { const el = document.querySelector('[data-b="clock"]'); if (el && board && ["in_play", "stopped"].includes(board.status)) el.textContent = clock(); }, 250);
  // the console (on the officials' port) follows with its arena's token; the big screen is the crowd's
  const es = new EventSource("/tournaments/" + encodeURIComponent(tid) + "/stream?lang=" + lang + (token ? "&token=" + encodeURIComponent(token) : ""));
  es.addEventListener("standings", (e) => { board = (JSON.parse(e.data).boards || {})[arenaKey] || null; render(); });
})();
