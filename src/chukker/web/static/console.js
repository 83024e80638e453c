// The timekeeper's console: keyboard first.
//
// Every command is stamped with the instant its key was pressed (record
// seconds, sent as `at`; the server accepts it within its window) and carries
// a command_id. Commands go through one queue, in order: while the server
// cannot be reached they wait there (the console says so and how many), and
// on reconnect they are sent again with the same ids, so none applies twice
// and none moves in time. A 503 is retried after its Retry-After.
"use strict";
(function () {
  const live = window.chukker, cfg = live.cfg, L = cfg.labels || {}, R = cfg.refusals || {};
  const api = "/api/matches/" + encodeURIComponent(cfg.match_id);
  const $ = (id) => document.getElementById(id);
  const QKEY = "chukker-queue-" + cfg.match_id, TKEY = "chukker-token-" + cfg.match_id;
  let token = null, events = [], undoArmed = null;
  let queue = [], pumping = false, netDown = false, lastAt = 0, foulAt = null;
  // the newest event this console had acknowledged (its own stream may not have it yet)
  let ackedSeq = 0;
  // the acknowledged event whose period and clock were not known yet when it was said
  let acked = null;

  // the token arrives in the URL fragment (never sent to the server in a URL)
  const m = /token=([^&]+)/.exec(location.hash);
  if (m) {
    token = decodeURIComponent(m[1]);
    sessionStorage.setItem(TKEY, token);
    history.replaceState(null, "", location.pathname + location.search);
  } else token = sessionStorage.getItem(TKEY);
  if (!token) $("token-form").hidden = false;
  // the console's stream uses the share kept for the match's screens: before each
  // (re)connect live.js exchanges the token for a single-use ticket (no token in the URL)
  live.ticket = () => (token ? live.fetchTicket(token) : Promise.resolve(null));
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    token = $("token-input").value.trim();
    sessionStorage.setItem(TKEY, token);
    $("token-form").hidden = true;
    pump();
  });

  function commandId() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }
  const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

  function say(text, bad) {
    const el = $("message");
    el.textContent = text;
    el.className = "message" + (bad ? " bad" : " ok");
  }

  // ------------------------------------------------------------ time of a key
  // the server's clock (epoch ms) at the instant of the key press or click
  function pressMs(e) {
    const local = e && e.timeStamp ? performance.timeOrigin + e.timeStamp : Date.now();
    return local + live.offset;
  }
  // record seconds (ms precision) of a server instant; null before the record has started
  function recordAt(serverMs) {
    const r = live.state;
    if (!r || !r.seq) return null;
    const start = r.server_time - r.at * 1000;
    const at = Math.max(Math.round(serverMs - start) / 1000, lastAt);
    lastAt = at;
    return at;
  }
  live.recordAt = recordAt;

  // ------------------------------------------------------------ refusals
  // a match time in milliseconds as the clock of the match (m:ss.s since the record's start)
  function matchTime(ms) {
    const t = Math.max(0, Math.round(Number(ms) / 100)) / 10, m = Math.floor(t / 60);
    return m + ":" + (t - 60 * m).toFixed(1).padStart(4, "0");
  }
  // the engine's rules for its templates: X from X_ms, lists joined, a nested cause
  function fill(tmpl, params) {
    let missing = false;
    const has = (k) => params && Object.prototype.hasOwnProperty.call(params, k);
    const out = tmpl.replace(/\{(\w+)(?:![rsa])?(?::[^{}]*)?\}/g, (all, k) => {
      if (has(k)) {
        const v = params[k];
        if (Array.isArray(v)) return v.join(", ");
        if (v && typeof v === "object" && v.code && R[v.code]) {
          const inner = fill(R[v.code], v.params || {});
          if (inner) return inner;
        }
        return typeof v === "string" && L["ev_" + v] ? L["ev_" + v] : String(v); // event names in words
      }
      if (has(k + "_ms")) return matchTime(params[k + "_ms"]);
      missing = true; return all;
    });
    return missing ? null : out;
  }
  // a refusal in the page's language from its code; the English message otherwise
  function refusalText(j, status) {
    const code = j.code || j.error;
    if (code && R[code]) {
      const t = fill(R[code], j.params || {});
      if (t) return t;
    }
    return j.reason || j.message || ("HTTP " + status); // the reason, without "event N (... s)"
  }
  live.refusalText = refusalText;

  // ------------------------------------------------------------ the queue
  function save() {
    try { sessionStorage.setItem(QKEY, JSON.stringify(queue)); } catch (e) { /* full: keep in memory */ }
  }
  function enqueue(event, serverMs) {
    const cmd = { command_id: commandId(), event, at: recordAt(serverMs), press: serverMs };
    queue.push(cmd);
    save();
    renderNet();
    pump();
    return cmd;
  }
  live.enqueue = enqueue;
  live.queue = () => queue.slice();

  async function postOnce(cmd) {
    const body = { command_id: cmd.command_id, event: cmd.event };
    if (cmd.at != null) body.at = cmd.at;
    let r;
    try {
      r = await fetch(api + "/events", { method: "POST", body: JSON.stringify(body),
        headers: { "content-type": "application/json", authorization: "Bearer " + token } });
    } catch (e) {
      return { retry: 1000, offline: true };
    }
    const j = await r.json().catch(() => ({}));
    if (r.status === 503 || (r.status === 429 && (j.code || j.error) === "busy")) {
      const ra = Number(r.headers.get("retry-after"));
      // kept and sent again; a full disk or a lost database is said (the operator must act)
      const why = (j.code === "storage_full" || j.code === "store_unavailable") ? refusalText(j, r.status) : null;
      return { retry: Number.isFinite(ra) && ra > 0 ? ra * 1000 : 1000, why };
    }
    if (r.ok) return { ok: true, j };
    if ((j.code || j.error) === "at_not_allowed" && cmd.at != null) {
      cmd.at = null; cmd.atDropped = true; // an older server stamps every event itself
      return { retry: 0 };
    }
    if (r.status === 401 || (r.status === 403 && (j.code || j.error) !== "committee_only")) {
      return { auth: true, j, status: r.status };
    }
    return { ok: false, j, status: r.status };
  }

  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length) {
        if (!token) {
          say(L.need_token || "Enter the timekeeper's token first.", true);
          $("token-form").hidden = false;
          return;
        }
        const cmd = queue[0];
        const res = await postOnce(cmd);
        if (res.retry != null) {
          if (res.offline) netDown = true;
          if (res.why) say(res.why, true);
          renderNet();
          await sleep(res.retry);
          continue;
        }
        netDown = false;
        if (res.auth) {
          say(refusalText(res.j, res.status), true);
          $("token-form").hidden = false;
          token = null;
          continue;
        }
        queue.shift();
        save();
        if (res.ok) {
          const j = res.j;
          if (j.seq > ackedSeq) ackedSeq = j.seq;
          let text = "✓ " + describe(j.event, j.seq);
          // its period and clock come with its stream message, or (sent from the queue
          // after a restart: the stream's backlog has no report) are asked (fillClocks)
          const head = text;
          // only when the console's own instant was not used: it sent one (or an older
          // server refused it) and the server stamped the event itself; a retry the server
          // had already stored answers with the stored event, stamped as first sent
          if (!j.duplicate && (cmd.at != null || cmd.atDropped) && j.at_source === "server") text += " · " + (L.server_time_used || "stamped with the server's time");
          // a goal: the clock runs on, and play restarts with a bowl-in at centre
          if (j.event && j.event.type === "goal" && live.state && live.state.status !== "shootout") text += " · " + (L.after_goal || "clock running (time is not taken out for a goal, Rule 5) · restart: bowl-in at centre (Rule 6)");
          say(text, false);
          acked = live.clocks[j.seq] == null ? { seq: j.seq, event: j.event, head, text } : null;
        } else {
          say(describe(cmd.event) + ": " + refusalText(res.j, res.status), true);
        }
        renderNet();
      }
    } finally {
      pumping = false;
      if (!queue.length) live.holdAt = null;
      renderNet();
    }
  }

  function renderNet() {
    const offline = netDown || !live.connected;
    document.body.classList.toggle("offline", offline);
    document.body.classList.toggle("queueing", queue.length > 0);
    const txt = offline ? (L.offline || "Offline: commands are kept and sent on reconnect") : (L.online || "Online");
    if ($("net-text").textContent !== txt) $("net-text").textContent = txt;
    const q = $("queued");
    q.hidden = queue.length === 0;
    const qt = (L.queued || "{n} queued").replace("{n}", String(queue.length));
    if (q.textContent !== qt) q.textContent = qt;
    renderPending();
    renderAllowed();
    renderNotNow();
    renderPlanned();
  }

  // queued commands are not in the score or the state yet: the score shows each team's
  // queued goals as pending ("+1 pending") and the state line what is waiting
  function renderPending() {
    const goals = {};
    for (const c of queue) {
      const ev = c.event || {};
      if (ev.type === "goal") goals[ev.team] = (goals[ev.team] || 0) + (ev.two_point ? 2 : 1);
    }
    // said on the team's handicap line (an attribute the stylesheet shows after it: the
    // line keeps its box, and the report's own text there is left alone)
    for (const t of cfg.team_ids) {
      const el = document.querySelector('.scoreboard [data-hcp="' + t + '"]');
      if (!el) continue;
      const txt = goals[t] ? "+" + goals[t] + " " + (L.pending || "pending") : "";
      if ((el.dataset.pending || "") !== txt) el.dataset.pending = txt;
    }
    const st = $("pending-state");
    if (!st) return;
    const what = queue.map((c) => describe(c.event)).join(", ");
    const txt = queue.length ? (L.pending_state || "Pending, not recorded yet: %(what)s").replace("%(what)s", what) : "";
    if (st.textContent !== txt) st.textContent = txt;
    st.hidden = !queue.length;
    document.body.classList.toggle("pending", queue.length > 0);
  }

  // ------------------------------------------------------------ what is allowed
  function allowedSet() {
    const r = live.state;
    if (!r || !Array.isArray(r.allowed) || netDown || !live.connected || queue.length) return null;
    return new Set(r.allowed);
  }
  function can(type) {
    const a = allowedSet();
    return !a || a.has(type);
  }
  function startAction() {
    const rep = live.state;
    if (!rep) return "bowl_in";
    if (rep.clock.running && !live.holdAt) return "whistle";
    const restart = rep.restart ? rep.restart.kind : "bowl_in";
    if (restart === "free_hit" || (rep.pending_penalty && rep.status !== "interval" && rep.status !== "pre_match")) return "free_hit";
    return "bowl_in";
  }
  function renderAllowed() {
    document.querySelectorAll("[data-ev]").forEach((b) => {
      const off = !can(b.dataset.ev);
      if (b.disabled !== off) b.disabled = off;
    });
    const act = startAction();
    $("btn-start").disabled = !can(act);
    const label = L["ev_" + act] || act;
    if ($("start-label").textContent !== label) $("start-label").textContent = label;
  }

  // "Not possible now: Bowl in", with why when the state says it (the interval, and its
  // time left, kept current); the message goes once the action is possible again
  let notNowType = null;
  function notNowText(type) {
    let t = (L.not_now || "Not possible now") + ": " + (L["ev_" + type] || type);
    const rep = live.state;
    if (rep && rep.interval && (type === "bowl_in" || type === "free_hit")) {
      const left = live.msLeft({ remaining_ms: rep.interval.remaining_ms, running: true }, rep);
      if (left > 0) t += " · " + (L.interval_left || "the interval has %(left)s left").replace("%(left)s", live.fmt(left));
    }
    return t;
  }
  function notNow(type) {
    notNowType = type;
    say(notNowText(type), true);
  }
  function renderNotNow() {
    if (!notNowType) return;
    const el = $("message");
    const mine = el.textContent.startsWith(L.not_now || "Not possible now");
    if (!mine) { notNowType = null; return; }
    if (allowedSet() && can(notNowType)) {
      notNowType = null; el.textContent = ""; el.className = "message"; return;
    }
    const t = notNowText(notNowType);
    if (el.textContent !== t) el.textContent = t;
  }

  // ------------------------------------------------------------ describing
  // a mount by its name on the team's string (the report's), its id only when it has none
  function mountName(team, id) {
    const m = (((live.state || {}).mounts || {})[team] || {})[id];
    return (m && m.name) || String(id);
  }
  function describe(ev, seq) {
    if (!ev) return "";
    let s = (seq ? "#" + seq + " " : "") + (L["ev_" + ev.type] || ev.type);
    if (ev.team) s += " · " + live.teamName(ev.team);
    if (ev.player != null) s += " · " + live.playerName(ev.team, ev.player);
    if (ev.mount) s += " · " + mountName(ev.team, ev.mount);
    if (ev.two_point) s += " · " + (L.two_point_goal || "2-point goal");
    if (ev.penalty) s += " · " + (L.penalty || "Penalty") + " " + ev.penalty;
    if (ev.clause) s += " (" + ev.clause + ")";
    if (ev.card) s += " · " + (L["card_" + ev.card] || ev.card);
    if (ev.remaining != null) s += " · " + live.fmt(ev.remaining * 1000);
    if (ev.reason) s += " · " + (L["reason_" + ev.reason] || ev.reason);
    if (ev.source === "audio") s += " · " + ((cfg.whistle && cfg.whistle.labels.from_microphone) || "microphone");
    if (ev.result) s += " · " + (L["result_" + ev.result] || ev.result);
    if (ev.type === "undo") s += " #" + ev.event;
    if (seq && live.clocks[seq] != null && live.periods[seq]) s += " · P" + live.periods[seq] + " " + live.fmt(live.clocks[seq]);
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
    const a = document.activeElement, focused = a && a.dataset ? a.dataset.undo : null;
    ol.replaceChildren();
    for (let j = events.length; j >= 1; j--) {
      const li = document.createElement("li");
      li.value = j;
      li.textContent = describe(events[j - 1], j).replace(/^#\d+ /, "") + " ";
      if (c.has(j)) li.classList.add("cancelled");
      else if (events[j - 1].type !== "undo") {
        const b = document.createElement("button");
        b.type = "button"; b.className = "small"; b.dataset.undo = String(j);
        b.textContent = undoArmed === j ? (L.confirm_undo || "Confirm undo") : (L.undo || "Undo");
        if (undoArmed === j) b.classList.add("armed");
        // the first press asks (and says what the undo would change), the second does it
        b.addEventListener("click", (e) => undoEvent(j, e));
        li.append(b);
      }
      ol.append(li);
    }
    if (focused) { const b = ol.querySelector('button[data-undo="' + focused + '"]'); if (b) b.focus(); }
    fillClocks();
  }

  // an event sent from the queue after a restart came back in the stream's backlog,
  // without the report of its instant: its period and clock are asked (the report at its
  // record time), so the log and the acknowledgement say "P2 5:12" as for every event
  const asked = new Set();
  async function fillClocks() {
    const want = [];
    for (let j = events.length; j >= 1 && want.length < 8; j--) {
      if (live.clocks[j] == null && !asked.has(j) && events[j - 1].type !== "undo") want.push(j);
    }
    if (!want.length) return;
    let got = false;
    for (const j of want) {
      asked.add(j);
      try {
        const r = await fetch(api + "?at=" + events[j - 1].at, { cache: "no-store" });
        if (!r.ok) continue;
        const rep = await r.json();
        if (rep.clock && rep.period) { live.clocks[j] = rep.clock.remaining_ms; live.periods[j] = rep.period; got = true; }
      } catch (e) { asked.delete(j); return; }
    }
    if (got) { renderLog(); sayAcked(); }
  }
  function sayAcked() {
    if (!acked || live.clocks[acked.seq] == null) return;
    const el = $("message");
    if (el.textContent === acked.text) el.textContent = "✓ " + describe(acked.event, acked.seq) + acked.text.slice(acked.head.length);
    acked = null;
  }

  async function loadEvents() {
    try {
      const r = await fetch(api + "/record", { cache: "no-store" });
      if (r.ok) {
        events = (await r.json()).events || [];
        if (events.length) lastAt = Math.max(lastAt, events[events.length - 1].at);
        renderLog();
      }
    } catch (e) { /* offline: the log catches up on reconnect */ }
  }

  live.onUpdate((rep, msg) => {
    if (acked) sayAcked();
    if (msg && msg.kind === "event" && msg.seq === events.length + 1) {
      events.push(msg.event); lastAt = Math.max(lastAt, msg.event.at); renderLog();
    } else if (rep && rep.seq !== events.length) loadEvents();
    if (!rep.clock.running && !queue.length) live.holdAt = null;
    const so = rep.shootout;
    $("shootout").hidden = !(so || rep.status === "shootout" || (rep.interval && rep.interval.kind === "shootout"));
    $("next-shot").textContent = so && so.next ? live.teamName(so.next.team) + " · " + live.playerName(so.next.team, so.next.player) + " · " + so.next.from_yd + " yd" : "—";
    renderNet();
  });

  // ------------------------------------------------------------ commands
  // a whistle stops the drawn clock at once, before the server has answered
  function stopClock(t) {
    const rep = live.state;
    if (rep && rep.clock.running && !live.holdAt) live.holdAt = t;
  }

  function act(type, ev, e) {
    if (!can(type)) { notNow(type); return null; }
    const t = pressMs(e);
    if (type === "whistle" && sameWhistle(t)) return null; // first of key and microphone wins
    if (type === "whistle" || type === "timeout" || type === "foul") stopClock(t);
    if (type === "whistle") lastWhistleMs = t;
    if (type === "bowl_in" || type === "free_hit") { live.holdAt = null; lastWhistleMs = null; }
    return enqueue(ev, t);
  }

  // the first of a key press and a detection wins: the second, within a second of the
  // first, is not posted again, even when the first's answer came back before its state
  let lastWhistleMs = null;
  function sameWhistle(t) {
    return (live.holdAt != null && Math.abs(t - live.holdAt) < 1000)
      || (lastWhistleMs != null && Math.abs(t - lastWhistleMs) < 1000);
  }

  // the microphone's whistle (whistle.js), stamped at its onset: only while the clock runs
  live.audioWhistle = (serverMs) => {
    const rep = live.state;
    if (!rep || !rep.clock.running || live.holdAt || !can("whistle") || sameWhistle(serverMs)) return null;
    stopClock(serverMs);
    lastWhistleMs = serverMs;
    return enqueue({ type: "whistle", source: "audio" }, serverMs);
  };

  // Space means bowl-in, free hit or whistle, as the state says. Right after this
  // console's own event (a foul, say) its stream may not have brought that state yet:
  // then it waits for it (up to START_WAIT_MS) and decides on the state that follows
  // its own events, stamped at the key press (a whistle keeps its instant too). With
  // the network down nothing waits.
  const START_WAIT_MS = 1500;
  function behind() {
    const rep = live.state;
    return !!rep && !netDown && (rep.seq < ackedSeq || queue.length > 0);
  }
  function startStop(e) {
    if (behind()) {
      const press = { timeStamp: e && e.timeStamp }, until = Date.now() + START_WAIT_MS;
      const decide = () => {
        if (behind() && Date.now() < until) { setTimeout(decide, 20); return; }
        const a = startAction();
        act(a, { type: a }, press);
      };
      setTimeout(decide, 20);
      return null;
    }
    const a = startAction();
    return act(a, { type: a }, e);
  }

  function goal(team, player, e) {
    const ev = { type: "goal", team, player };
    if ($("two-point").checked) { ev.two_point = true; $("two-point").checked = false; }
    return act("goal", ev, e);
  }

  function undoLast(e) {
    const j = lastUndoable();
    if (j === null) { say(L.nothing_to_undo || "Nothing to undo", true); return; }
    undoEvent(j, e, L.press_u_again || "Press U again to undo");
  }

  // An undo asks first: the first press (U, or a line's Undo) says which event and what
  // the undo would change (the clock, the score, the period: the server folds a copy of
  // the match, /m/ID/undo), or why the engine refuses it; a second press, or Enter,
  // sends it. Nothing else is armed meanwhile, and the question lapses after 10 s.
  const UNDO_ARMED_MS = 10000;
  let undoTimer = null, undoWords = "";
  function disarm() {
    undoArmed = null; undoWords = "";
    if (undoTimer) clearTimeout(undoTimer);
    undoTimer = null;
    renderLog();
  }
  function undoEvent(j, e, ask) {
    if (queue.length) { say(L.wait_queue || "Wait until the queued commands are sent", true); return; }
    if (undoArmed === j) { disarm(); enqueue({ type: "undo", event: j }, pressMs(e)); return; }
    undoArmed = j;
    undoWords = (ask || L.undo_asks || "Press Undo again, or Enter, to undo") + ": " + describe(events[j - 1], j);
    say(undoWords, false);
    if (undoTimer) clearTimeout(undoTimer);
    undoTimer = setTimeout(() => { if (undoArmed === j) { disarm(); say("", false); } }, UNDO_ARMED_MS);
    renderLog();
    previewUndo(j);
  }
  function changeWords(ch) {
    const out = [];
    if (ch.clock) {
      const run = ch.running || [];
      const w = (x, r) => live.fmt(x) + (r === false ? " " + (L.clock_stopped_word || "stopped") : r === true ? " " + (L.clock_running_word || "running") : "");
      out.push((L.clock || "clock") + " " + w(ch.clock[0], run[0]) + " → " + w(ch.clock[1], run[1]));
    }
    for (const [t, v] of Object.entries(ch.score || {})) out.push((L.score || "score") + " " + live.teamName(t) + " " + v[0] + " → " + v[1]);
    if (ch.period) out.push((L.period || "Period") + " " + (ch.period[0] || "—") + " → " + (ch.period[1] || "—"));
    if (ch.status) out.push((L[ch.status[0]] || ch.status[0]) + " → " + (L[ch.status[1]] || ch.status[1]));
    return out.length ? out.join(" · ") : (L.undo_changes_nothing || "nothing else changes");
  }
  async function previewUndo(j) {
    let r, body;
    try {
      r = await fetch("/m/" + encodeURIComponent(cfg.match_id) + "/undo?event=" + j,
        { cache: "no-store", headers: { authorization: "Bearer " + token } });
      body = await r.json();
    } catch (err) { return; } // offline: the question stands without its preview
    if (undoArmed !== j) return;
    if (!r.ok || body.refused) {
      const why = body.refused ? refusalText(body.refused, 409) : refusalText(body, r.status);
      disarm();
      say((L.undo_refused || "This undo is refused") + " (" + describe(events[j - 1], j) + "): " + why, true);
      return;
    }
    say(undoWords + " · " + (L.undo_would || "it would change") + ": " + changeWords(body.changes || {}), false);
  }

  function shot(result, e) {
    const so = live.state && live.state.shootout;
    if (!so || !so.next) { say(L.no_shot || "No shot is due", true); return; }
    const ev = { type: "shot", team: so.next.team, player: so.next.player, result };
    if ($("end-wall").checked) { ev.reached_end_wall = true; $("end-wall").checked = false; }
    act("shot", ev, e);
  }

  // ------------------------------------------------------------ dialogs
  // Every dialog opens empty (issue 42: a foul never keeps the last one's player or
  // penalty), except where the rules leave one answer. Enter records, Escape cancels,
  // wherever the focus is inside the dialog; Enter with a field still empty asks for it
  // by its name and puts the focus there.
  function fieldName(el) {
    const fs = el.closest("fieldset");
    if (fs && fs.querySelector("legend")) return fs.querySelector("legend").textContent.trim();
    const lab = el.closest("label");
    return lab && lab.firstChild ? lab.firstChild.textContent.trim() : el.name;
  }
  function ask(d) {
    const f = d.querySelector("form"), p = d.querySelector(".dlg-ask");
    const bad = [...f.elements].find((x) => x.willValidate && !x.checkValidity());
    if (!bad) { if (p) p.hidden = true; return true; }
    const what = fieldName(bad);
    if (p) {
      p.textContent = (bad.validity.valueMissing ? (L.ask_for || "Still to fill in: %(what)s") : (L.ask_fix || "Not valid: %(what)s")).replace("%(what)s", what);
      p.hidden = false;
    }
    bad.focus();
    return false;
  }
  function dialogKeys(d, extra) {
    d.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing) {
        e.preventDefault(); e.stopPropagation();
        if (ask(d)) d.close("ok");
      } else if (e.key === "Escape") {
        e.preventDefault(); e.stopPropagation(); d.close("cancel");
      } else if (extra) extra(e);
    });
  }
  function open(d, focus) {
    if (d.open) return;
    d.returnValue = "";
    d.querySelector("form").reset();
    const p = d.querySelector(".dlg-ask");
    if (p) p.hidden = true;
    d.showModal();
    (focus || d.querySelector("input,select")).focus();
  }

  // F: the whistle at the key press, then the details; the foul keeps the whistle's instant
  function foulKey(e) {
    if (!can("foul") && !can("whistle")) { notNow("foul"); return; }
    const t = pressMs(e);
    const rep = live.state;
    if (rep && rep.clock.running && !live.holdAt) {
      stopClock(t);
      enqueue({ type: "whistle" }, t);
    }
    foulAt = t;
    const d = $("foul-dialog");
    const left = rep ? live.msLeft(rep.clock, rep, t) : null;
    $("foul-at").textContent = rep && rep.period ? "P" + rep.period + " " + live.fmt(left) : "";
    open(d, d.querySelector("input[name=team]"));
  }
  const pens = { Digit1: "1", Digit2: "2", Digit3: "3", Digit4: "4", Digit5: "5", Digit6: "6",
    Digit7: "7", Digit8: "8", Digit9: "9", Digit0: "10" };
  dialogKeys($("foul-dialog"), (e) => {
    const t = e.target;
    if (t && t.tagName === "INPUT" && t.type === "text") return;
    if (t && t.tagName === "SELECT") return;
    const idx = { KeyA: 0, KeyB: 1 }[e.code];
    if (idx != null) {
      const r = $("foul-form").querySelectorAll("input[name=team]")[idx];
      if (r) { r.checked = true; r.focus(); e.preventDefault(); }
    } else if (pens[e.code]) {
      $("foul-form").elements.penalty.value = pens[e.code]; e.preventDefault();
    }
  });
  $("foul-dialog").addEventListener("close", () => {
    const d = $("foul-dialog"), t = foulAt;
    foulAt = null;
    if (d.returnValue !== "ok") return;
    const f = new FormData($("foul-form"));
    const ev = { type: "foul", team: f.get("team"), penalty: f.get("penalty") };
    if (f.get("player")) ev.player = Number(f.get("player"));
    if (f.get("clause")) ev.clause = String(f.get("clause")).trim();
    if (f.get("card")) ev.card = f.get("card");
    enqueue(ev, t == null ? live.serverNow() : t);
  });

  let timeoutAt = null;
  function timeoutKey(e) {
    if (!can("timeout")) { notNow("timeout"); return; }
    timeoutAt = pressMs(e);
    stopClock(timeoutAt);
    open($("timeout-dialog"));
  }
  dialogKeys($("timeout-dialog"));
  $("timeout-dialog").addEventListener("close", () => {
    const d = $("timeout-dialog"), t = timeoutAt;
    timeoutAt = null;
    if (d.returnValue !== "ok") {
      if (!queue.length) live.holdAt = null;
      return;
    }
    const f = new FormData($("timeout-form"));
    const ev = { type: "timeout", reason: f.get("reason") };
    if (f.get("team")) ev.team = f.get("team");
    enqueue(ev, t == null ? live.serverNow() : t);
  });

  function clockKey() {
    if (!can("clock")) { notNow("clock"); return; }
    const rep = live.state, f = $("clock-form");
    const left = rep ? live.msLeft(rep.clock, rep) : 0;
    const s = Math.round((left || 0) / 100) / 10;
    const now = Math.floor(s / 60) + ":" + (s % 60).toFixed(1).padStart(4, "0");
    open($("clock-dialog"), f.elements.remaining);
    f.elements.remaining.placeholder = now;
    f.querySelector("[data-clock-now]").textContent = (L.clock_says || "the console's clock says %(time)s").replace("%(time)s", now);
  }
  dialogKeys($("clock-dialog"));
  $("clock-dialog").addEventListener("close", () => {
    if ($("clock-dialog").returnValue !== "ok") return;
    const f = new FormData($("clock-form"));
    const mm = /^(\d{1,2}):(\d{2}(?:\.\d{1,3})?)$/.exec(String(f.get("remaining")).trim());
    if (!mm) return;
    const remaining = Math.round((Number(mm[1]) * 60 + Number(mm[2])) * 1000) / 1000;
    enqueue({ type: "clock", remaining, reason: String(f.get("reason")).trim() }, live.serverNow());
  });

  // R: the mount dialog. The team's string from the report, the mounts in use (ridden by
  // a teammate) or out of the game greyed out; a reason records a mount_out instead.
  function fillMounts() {
    const f = $("mount-form"), rep = live.state || {};
    const team = f.elements.team.value;
    const string = (rep.mounts || {})[team] || {};
    const roster = ((rep.roster || {})[team] || {}).players || {};
    const players = (cfg.teams[team] || {}).players || [];
    const sel = f.elements.player, keep = sel.value;
    sel.textContent = "";
    const none = document.createElement("option");
    none.value = ""; none.textContent = "—";
    sel.appendChild(none);
    for (const p of players) {
      const st = (roster[String(p.no)] || {}).status;
      if (st && st !== "playing") continue;
      const o = document.createElement("option");
      o.value = String(p.no); o.textContent = p.no + (p.name ? " · " + p.name : "");
      sel.appendChild(o);
    }
    if (keep && [...sel.options].some((o) => o.value === keep)) sel.value = keep;
    else if (sel.options.length === 2) sel.value = sel.options[1].value; // the only player left
    const me = sel.value ? Number(sel.value) : null;
    const box = f.querySelector("[data-mount-list]");
    box.textContent = "";
    const free = [];
    for (const [id, m] of Object.entries(string)) {
      const gone = m.status === "out" || m.status === "disqualified";
      const used = m.rider != null && m.rider !== me;
      const lab = document.createElement("label");
      const inp = document.createElement("input");
      inp.type = "radio"; inp.name = "mount"; inp.value = id;
      inp.disabled = used || gone;
      if (gone) lab.classList.add("gone");
      if (used || gone) lab.classList.add("in-use");
      inp.required = true;
      if (!inp.disabled && me != null && m.rider !== me) free.push(inp);
      lab.appendChild(inp);
      // names, never ids or codes (issue 30): "Dora (out: blood)", "Bay (in use: 2 · Ann)"
      const why = m.reason === "penalty_8" || m.reason === "equipment" ? (L.penalty_8 || "Penalty 8")
        : (L["reason_" + m.reason] || m.reason);
      const note = gone ? " (" + (L["mount_" + m.status] || m.status) + (why ? ": " + why : "") + ")"
        : used ? " (" + (L.in_use || "in use") + ": " + live.playerName(team, m.rider) + ")"
        : m.rider === me ? " ✓" : "";
      lab.appendChild(document.createTextNode(" " + (m.name || id) + note));
      box.appendChild(lab);
    }
    if (!Object.keys(string).length) box.textContent = L.no_mounts || "—";
    // the grooms' plan (record 1.3): the player's next horse is the one chosen first
    const nx = (roster[String(me)] || {}).next_mount;
    const planned = nx && box.querySelector('input[name="mount"][value="' + CSS.escape(String(nx.mount)) + '"]');
    if (planned && !planned.disabled && me != null) planned.checked = true;
    else if (free.length === 1) free[0].checked = true; // the only horse the player may take
  }
  function mountKey() {
    if (!can("mount") && !can("mount_out")) { notNow("mount"); return; }
    const f = $("mount-form"), rep = live.state || {};
    open($("mount-dialog"));
    // the team is asked, unless only one team has listed its horses
    const listed = cfg.team_ids.filter((t) => Object.keys((rep.mounts || {})[t] || {}).length);
    if (listed.length === 1) f.elements.team.value = listed[0];
    fillMounts();
  }
  $("mount-form").elements.team.addEventListener("change", fillMounts);
  $("mount-form").elements.player.addEventListener("change", fillMounts);
  dialogKeys($("mount-dialog"));
  $("mount-dialog").addEventListener("close", () => {
    if ($("mount-dialog").returnValue !== "ok") return;
    const f = new FormData($("mount-form"));
    const mount = f.get("mount");
    if (!mount || !f.get("team")) return;
    const team = String(f.get("team"));
    if (f.get("reason")) {
      enqueue({ type: "mount_out", team, mount: String(mount), reason: String(f.get("reason")) }, live.serverNow());
      return;
    }
    const ev = { type: "mount", team, player: Number(f.get("player")), mount: String(mount) };
    if (f.get("umpire_consent")) ev.umpire_consent = true;
    enqueue(ev, live.serverNow());
  });

  // "Horses as planned" (issue 42): before the first bowl-in, every player not yet on a
  // horse gets the first free horse of the grooms' plan, one `mount` event each (the record
  // stays explicit); the first press lists them, the second (within 10 s) records them.
  // After that the timekeeper records only the changes (R).
  let plannedArmed = 0;
  function plannedMounts() {
    const rep = live.state || {};
    if (rep.status !== "pre_match") return [];
    const out = [];
    for (const team of cfg.team_ids) {
      const players = ((rep.roster || {})[team] || {}).players || {};
      for (const [no, p] of Object.entries(players)) {
        if (p.mount || !p.next_mount || (p.status && p.status !== "playing")) continue;
        out.push({ type: "mount", team, player: Number(no), mount: String(p.next_mount.mount) });
      }
    }
    return out;
  }
  function renderPlanned() {
    const b = $("btn-planned");
    const off = queue.length > 0 || !plannedMounts().length;
    if (b.hidden !== off) { b.hidden = off; b.style.display = off ? "none" : ""; }
  }
  function horsesAsPlanned(e) {
    const evs = plannedMounts();
    if (!evs.length) return;
    if (plannedArmed && Date.now() - plannedArmed < 10000) {
      plannedArmed = 0;
      const t = pressMs(e);
      for (const ev of evs) enqueue(ev, t);
      return;
    }
    plannedArmed = Date.now();
    say((L.planned_asks || "Press again to record, one mount each") + ": " +
      evs.map((ev) => live.teamName(ev.team) + " " + live.playerName(ev.team, ev.player) + " · " + mountName(ev.team, ev.mount)).join(", "), false);
  }

  // O: the shootout's batting order from the keyboard: the focus goes to the first
  // team's order (type "2,3,1", Tab to the next team, Enter sets the order)
  function orderKey() {
    if ($("shootout").hidden) { notNow("shootout_order"); return; }
    const f = $("order-form"), first = f.elements["order_" + cfg.team_ids[0]];
    if (first) { first.focus(); first.select(); }
  }
  $("order-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(e.target), order = {};
    for (const t of cfg.team_ids) order[t] = String(f.get("order_" + t)).split(/[ ,]+/).filter(Boolean).map(Number);
    act("shootout_order", { type: "shootout_order", first: f.get("first"), order }, e);
  });

  // a mouse click leaves no focus behind (the page's click listener gives it back), so
  // Enter or Space afterwards never repeats it; Enter or Space on a control reached with
  // Tab clicks it too, and keeps the focus there
  function onClick(el, fn) {
    el.addEventListener("click", fn);
  }
  onClick($("btn-start"), startStop);
  onClick($("btn-whistle"), (e) => act("whistle", { type: "whistle" }, e));
  onClick($("btn-free-hit"), (e) => act("free_hit", { type: "free_hit" }, e));
  onClick($("btn-timeout"), timeoutKey);
  onClick($("btn-foul"), foulKey);
  onClick($("btn-clock"), clockKey);
  onClick($("btn-undo"), undoLast);
  onClick($("btn-mount"), mountKey);
  onClick($("btn-planned"), horsesAsPlanned);
  onClick($("btn-move15"), (e) => act("move_to_15", { type: "move_to_15" }, e));
  document.querySelectorAll("button.goal").forEach((b) =>
    onClick(b, (e) => goal(b.dataset.team, Number(b.dataset.player), e)));
  document.querySelectorAll("button.shot").forEach((b) =>
    onClick(b, (e) => shot(b.dataset.result, e)));

  const goalKeys = {};
  document.querySelectorAll("button.goal").forEach((b) => { goalKeys["Digit" + b.dataset.key] = b; goalKeys["Numpad" + b.dataset.key] = b; });

  // A control the timekeeper reached with Tab keeps its own keys: Enter and Space press
  // the focused button (or toggle the focused box) instead of running a shortcut. A
  // control clicked with the mouse gives its focus back, so Space and Enter after a click
  // are the page's shortcuts again (and never press the clicked button a second time).
  const NATIVE_KEYS = new Set(["Space", "Enter", "NumpadEnter"]);
  function focusedControl(t) {
    return t && t !== document.body && t.closest &&
      t.closest("button, a[href], input, select, textarea, summary, [tabindex]:not([tabindex='-1'])");
  }
  // whether the focused control acts on this key itself: Enter on a button, a link or a
  // summary; Space on a button, a box or a summary. A link or a focusable region does
  // nothing on Space, so there Space stays the clock key (every key works after a Tab)
  function ownKey(c, code) {
    if (!c || !NATIVE_KEYS.has(code)) return false;
    if (c.matches("button, summary, input[type=checkbox], input[type=radio]")) return true;
    return code !== "Space" && c.matches("a[href]");
  }
  document.addEventListener("click", (e) => {
    if (e.detail === 0) return; // pressed from the keyboard: the focus stays where it is
    const c = focusedControl(e.target);
    if (c && c.matches("button, input[type=checkbox], summary") && !c.closest("dialog")) c.blur();
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (ownKey(focusedControl(t), e.code)) return; // the control's own key
    if (e.repeat) { e.preventDefault(); return; } // a held key is one press
    const k = e.code;
    // any other key lets an undo's question lapse
    if (undoArmed && !["KeyU", "Backspace", "Enter", "NumpadEnter"].includes(k)) disarm();
    let done = true;
    if (k === "Space") startStop(e);
    else if (goalKeys[k]) { const b = goalKeys[k]; goal(b.dataset.team, Number(b.dataset.player), e); }
    else if (k === "KeyW") act("whistle", { type: "whistle" }, e);
    else if (k === "KeyH") act("free_hit", { type: "free_hit" }, e);
    else if (k === "KeyT") timeoutKey(e);
    else if (k === "KeyF") foulKey(e);
    else if (k === "KeyC") clockKey(e);
    else if (k === "KeyU" || k === "Backspace") undoLast(e);
    else if (k === "KeyR") mountKey(e);
    else if (k === "KeyD") $("two-point").checked = !$("two-point").checked;
    else if (k === "KeyG") shot("goal", e);
    else if (k === "KeyM") shot("miss", e);
    else if (k === "KeyX") shot("forfeit", e);
    else if (k === "KeyO") orderKey();
    else if ((k === "Enter" || k === "NumpadEnter") && undoArmed) undoEvent(undoArmed, e); // confirms
    else if (k === "Enter" || k === "NumpadEnter") done = true; // never re-activates a clicked button
    else done = false;
    if (done) e.preventDefault();
  });

  // ------------------------------------------------------------ horn cue
  $("horn-sound").addEventListener("change", (e) => {
    if (e.target.checked) live.enableSound(); else live.disableSound();
  });
  live.onHorn((h) => {
    const kinds = { end: L.horn_end || "end of period", split: L.horn_split || "split", warning: L.horn_warning || "30 seconds" };
    $("horn-kind").textContent = (kinds[h.kind] || h.kind) + (h.period ? " · P" + h.period : "");
  });

  // the console cues the end of a period from its own drawn clock too (the server's
  // horn may be late or, offline, not come): once per period
  const cued = new Set();
  function localEnd(rep) {
    if (!rep || !rep.clock.running || live.holdAt || rep.interval || !rep.period) return;
    const key = rep.period + ":" + rep.seq;
    if (live.msLeft(rep.clock, rep) > 0 || cued.has(key)) return;
    cued.add(key);
    live.localHorn({ kind: "end", period: rep.period, local: true });
  }

  // the "clock is stopped" reminder says for how long; the bar stays current
  setInterval(() => {
    renderNet();
    localEnd(live.state);
    const rep = live.state;
    if (!rep || rep.status !== "stopped") return;
    const last = events.length ? events[events.length - 1].at : 0;
    const sinceMs = live.serverNow() - rep.server_time + (rep.at - last) * 1000;
    document.querySelectorAll("[data-stopped-for]").forEach((el) => { el.textContent = live.fmtSince(sinceMs); });
  }, 250);

  try { queue = JSON.parse(sessionStorage.getItem(QKEY) || "[]"); } catch (e) { queue = []; }
  loadEvents();
  renderNet();
  if (queue.length) pump();
})();
