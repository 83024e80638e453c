// The timekeeper's console: keyboard first. Every command carries a
// command_id; a retry after a network error reuses it, so it is never applied twice.
"use strict";
(function () {
  const live = window.chukker, cfg = live.cfg, L = cfg.labels || {};
  const api = "/api/matches/" + encodeURIComponent(cfg.match_id);
  const $ = (id) => document.getElementById(id);
  let token = null, events = [], undoArmed = null;

  // the token arrives in the URL fragment (never sent to the server in a URL)
  const m = /token=([^&]+)/.exec(location.hash);
  if (m) {
    token = decodeURIComponent(m[1]);
    sessionStorage.setItem("chukker-token-" + cfg.match_id, token);
    history.replaceState(null, "", location.pathname + location.search);
  } else token = sessionStorage.getItem("chukker-token-" + cfg.match_id);
  if (!token) $("token-form").hidden = false;
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    token = $("token-input").value.trim();
    sessionStorage.setItem("chukker-token-" + cfg.match_id, token);
    $("token-form").hidden = true;
  });

  function commandId() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }

  function say(text, bad) {
    const el = $("message");
    el.textContent = text;
    el.className = "message" + (bad ? " bad" : " ok");
  }

  async function send(event) {
    if (!token) { say(L.need_token || "Enter the timekeeper's token first.", true); $("token-form").hidden = false; return null; }
    const body = JSON.stringify({ command_id: commandId(), event });
    for (let attempt = 0; attempt < 4; attempt++) {
      let r;
      try {
        r = await fetch(api + "/events", { method: "POST", body,
          headers: { "content-type": "application/json", authorization: "Bearer " + token } });
      } catch (e) {
        say((L.retrying || "Network error; retrying") + "…", true);
        await new Promise((res) => setTimeout(res, 300 * (attempt + 1)));
        continue;
      }
      const j = await r.json().catch(() => ({}));
      if (r.ok) { say("✓ " + describe(j.event, j.seq), false); return j; }
      say(j.message || ("HTTP " + r.status), true);
      if (r.status === 401 || r.status === 403) $("token-form").hidden = j.error === "committee_only";
      return null;
    }
    return null;
  }
  window.chukker.send = send;

  function describe(ev, seq) {
    if (!ev) return "";
    let s = (seq ? "#" + seq + " " : "") + (L["ev_" + ev.type] || ev.type);
    if (ev.team) s += " · " + live.teamName(ev.team);
    if (ev.player != null) s += " · " + live.playerName(ev.team, ev.player);
    if (ev.two_point) s += " · 2";
    if (ev.penalty) s += " · " + (L.penalty || "Penalty") + " " + ev.penalty;
    if (ev.clause) s += " (" + ev.clause + ")";
    if (ev.reason) s += " · " + ev.reason;
    if (ev.result) s += " · " + ev.result;
    if (ev.type === "undo") s += " #" + ev.event;
    if (ev.at != null) s += " @" + ev.at.toFixed(1) + " s";
    return s;
  }

  function cancelled() {
    const out = new Set();
    for (let j = events.length; j >= 1; j--) {
      const e = events[j - 1];
      if (e.type === "undo" && !out.has(j)) out.add(e.event);
    }
    return out;
  }

  function lastUndoable() {
    const c = cancelled();
    for (let j = events.length; j >= 1; j--) {
      if (!c.has(j) && events[j - 1].type !== "undo") return j;
    }
    return null;
  }

  function renderLog() {
    const c = cancelled(), ol = $("event-log");
    ol.replaceChildren();
    for (let j = events.length; j >= 1; j--) {
      const li = document.createElement("li");
      li.value = j;
      li.textContent = describe(events[j - 1]) + " ";
      if (c.has(j)) li.classList.add("cancelled");
      else if (events[j - 1].type !== "undo") {
        const b = document.createElement("button");
        b.type = "button"; b.textContent = L.undo || "Undo"; b.className = "small";
        b.addEventListener("click", () => send({ type: "undo", event: j }));
        li.append(b);
      }
      ol.append(li);
    }
  }

  async function loadEvents() {
    const r = await fetch(api + "/record", { cache: "no-store" });
    if (r.ok) { events = (await r.json()).events || []; renderLog(); }
  }

  live.onUpdate((rep, msg) => {
    if (msg && msg.kind === "event" && msg.seq === events.length + 1) { events.push(msg.event); renderLog(); }
    else if (rep && rep.seq !== events.length) loadEvents();
    const restart = rep.restart ? rep.restart.kind : "bowl_in";
    let label;
    if (rep.clock.running) label = L.ev_whistle || "Whistle";
    else if (restart === "free_hit" || (rep.pending_penalty && rep.status !== "interval" && rep.status !== "pre_match")) label = L.ev_free_hit || "Free hit";
    else label = L.ev_bowl_in || "Bowl in";
    $("start-label").textContent = label;
    const so = rep.shootout;
    $("shootout").hidden = !(so || rep.status === "shootout" || (rep.interval && rep.interval.kind === "shootout"));
    $("next-shot").textContent = so && so.next ? live.teamName(so.next.team) + " · " + live.playerName(so.next.team, so.next.player) + " · " + so.next.from_yd + " yd" : "—";
  });

  function startStop() {
    const rep = live.state;
    if (!rep) return;
    if (rep.clock.running) return send({ type: "whistle" });
    const restart = rep.restart ? rep.restart.kind : "bowl_in";
    if (restart === "free_hit") return send({ type: "free_hit" });
    return send({ type: "bowl_in" });
  }

  function goal(team, player) {
    const ev = { type: "goal", team, player };
    if ($("two-point").checked) { ev.two_point = true; $("two-point").checked = false; }
    return send(ev);
  }

  function undoLast() {
    const j = lastUndoable();
    if (j === null) { say(L.nothing_to_undo || "Nothing to undo", true); return; }
    if (undoArmed === j) { undoArmed = null; send({ type: "undo", event: j }); return; }
    undoArmed = j;
    say((L.press_u_again || "Press U again to undo") + ": " + describe(events[j - 1], j), false);
    setTimeout(() => { if (undoArmed === j) undoArmed = null; }, 4000);
  }

  function shot(result) {
    const so = live.state && live.state.shootout;
    if (!so || !so.next) { say(L.no_shot || "No shot is due", true); return; }
    const ev = { type: "shot", team: so.next.team, player: so.next.player, result };
    if ($("end-wall").checked) { ev.reached_end_wall = true; $("end-wall").checked = false; }
    send(ev);
  }

  function openFoul() { const d = $("foul-dialog"); if (!d.open) { d.showModal(); d.querySelector("select").focus(); } }
  $("foul-dialog").addEventListener("close", () => {
    const d = $("foul-dialog");
    if (d.returnValue !== "ok") return;
    const f = new FormData($("foul-form"));
    const ev = { type: "foul", team: f.get("team"), penalty: f.get("penalty") };
    if (f.get("player")) ev.player = Number(f.get("player"));
    if (f.get("clause")) ev.clause = f.get("clause");
    if (f.get("card")) ev.card = f.get("card");
    send(ev);
  });
  $("timeout-dialog").addEventListener("close", () => {
    const d = $("timeout-dialog");
    if (d.returnValue !== "ok") return;
    const f = new FormData($("timeout-form"));
    const ev = { type: "timeout", reason: f.get("reason") };
    if (f.get("team")) ev.team = f.get("team");
    send(ev);
  });
  $("order-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(e.target), order = {};
    for (const t of cfg.team_ids) order[t] = String(f.get("order_" + t)).split(/[ ,]+/).filter(Boolean).map(Number);
    send({ type: "shootout_order", first: f.get("first"), order });
  });

  $("btn-start").addEventListener("click", startStop);
  $("btn-whistle").addEventListener("click", () => send({ type: "whistle" }));
  $("btn-free-hit").addEventListener("click", () => send({ type: "free_hit" }));
  $("btn-timeout").addEventListener("click", () => $("timeout-dialog").showModal());
  $("btn-foul").addEventListener("click", openFoul);
  $("btn-undo").addEventListener("click", undoLast);
  $("btn-move15").addEventListener("click", () => send({ type: "move_to_15" }));
  document.querySelectorAll("button.goal").forEach((b) =>
    b.addEventListener("click", () => goal(b.dataset.team, Number(b.dataset.player))));
  document.querySelectorAll("button.shot").forEach((b) =>
    b.addEventListener("click", () => shot(b.dataset.result)));

  const goalKeys = {};
  document.querySelectorAll("button.goal").forEach((b) => { goalKeys["Digit" + b.dataset.key] = b; goalKeys["Numpad" + b.dataset.key] = b; });

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (document.querySelector("dialog[open]")) return;
    const k = e.code;
    let done = true;
    if (k === "Space") startStop();
    else if (goalKeys[k]) goalKeys[k].click();
    else if (k === "KeyW") send({ type: "whistle" });
    else if (k === "KeyH") send({ type: "free_hit" });
    else if (k === "KeyT") $("timeout-dialog").showModal();
    else if (k === "KeyF") openFoul();
    else if (k === "KeyU" || k === "Backspace") undoLast();
    else if (k === "KeyD") $("two-point").checked = !$("two-point").checked;
    else if (k === "KeyG") shot("goal");
    else if (k === "KeyM") shot("miss");
    else if (k === "KeyX") shot("forfeit");
    else done = false;
    if (done) e.preventDefault();
  });

  // the "clock is stopped" reminder says for how long
  setInterval(() => {
    const rep = live.state;
    if (!rep || rep.status !== "stopped") return;
    const last = events.length ? events[events.length - 1].at : 0;
    const sinceMs = live.serverNow() - rep.server_time + (rep.at - last) * 1000;
    document.querySelectorAll("[data-stopped-for]").forEach((el) => { el.textContent = live.fmt(Math.max(sinceMs, 0)); });
  }, 250);

  loadEvents();
})();
