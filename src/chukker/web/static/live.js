// chukker live views: one Server-Sent Events stream, a clock drawn from
// {remaining_ms, running, server_time} and a measured offset to the server's
// clock. Never counts ticks: every frame recomputes from the last state.
"use strict";
(function () {
  const cfg = JSON.parse(document.getElementById("cfg").textContent);
  const L = cfg.labels || {};
  const live = {
    cfg, state: null, seq: 0, offset: 0, rtt: null, connected: false,
    listeners: [], hornListeners: [],
    onUpdate(fn) { this.listeners.push(fn); if (this.state) fn(this.state, null); },
    onHorn(fn) { this.hornListeners.push(fn); },
    serverNow() { return Date.now() + this.offset; },
  };
  window.chukker = live;

  async function measureOffset() {
    let best = null;
    for (let i = 0; i < 3; i++) {
      const t0 = Date.now();
      try {
        const r = await fetch("/api/time", { cache: "no-store" });
        const j = await r.json();
        const t1 = Date.now();
        if (best === null || t1 - t0 < best.rtt) best = { rtt: t1 - t0, off: j.server_time - (t0 + t1) / 2 };
      } catch (e) { /* offline: keep the last offset */ }
    }
    if (best) { live.offset = best.off; live.rtt = best.rtt; }
  }

  function msLeft(obj, report, at) {
    // remaining ms of a countdown as of ``at`` (server epoch ms; default now), from a
    // report stamped server_time; a console's whistle not yet answered holds the clock
    if (!obj || obj.remaining_ms == null) return null;
    const running = obj.running === undefined ? true : obj.running;
    if (!running) return Math.max(obj.remaining_ms, 0);
    let now = at == null ? live.serverNow() : at;
    if (live.holdAt && obj === report.clock) now = Math.min(now, live.holdAt);
    return Math.max(obj.remaining_ms - (now - report.server_time), 0);
  }
  live.msLeft = msLeft;

  function fmt(ms) {
    if (ms == null) return "";
    if (ms < 10000 && ms > 0) return (Math.floor(ms / 100) / 10).toFixed(1);
    const s = Math.ceil(ms / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  live.fmt = fmt;

  function teamName(t) { return (cfg.teams[t] && cfg.teams[t].name) || t; }
  live.teamName = teamName;
  function playerName(t, no) {
    if (no == null) return "";
    const p = ((cfg.teams[t] || {}).players || []).find((x) => x.no === no);
    return p && p.name ? p.name + " (" + no + ")" : "#" + no;
  }
  live.playerName = playerName;

  function periodLabel(r) {
    if (r.status === "pre_match") return L.pre_match || "Pre-match";
    if (r.status === "final") return L.final || "Final";
    if (r.status === "shootout") return L.shootout || "Shootout";
    if (r.period > cfg.regular_periods) return (L.extra_period || "Extra period") + " " + (r.period - cfg.regular_periods);
    // "Period 3 of 4": the count is the match's own (a club's edition may play 6 or 1)
    if (cfg.regular_periods && L.period_of) return L.period_of.replace("{n}", r.period).replace("{count}", cfg.regular_periods);
    return (L.period || "Period") + " " + r.period;
  }
  live.periodLabel = periodLabel;

  // a final forfeit in words ("both forfeited", "White forfeited"), as the server's
  // chukker.tournament.words says it; null when the result is not a forfeit
  function forfeitWords(r) {
    const f = r.forfeited || [];
    if (r.status !== "final" || !f.length) return null;
    if (f.length >= 2) return L.both_forfeited || "both forfeited";
    return (L.team_forfeited || "%(team)s forfeited").replace("%(team)s", teamName(f[0]));
  }
  live.forfeitWords = forfeitWords;

  // a label with its %(name)s filled in
  function fillL(key, fallback, params) {
    return (L[key] || fallback).replace(/%\((\w+)\)s/g, (all, k) => (k in params ? String(params[k]) : all));
  }
  // how a final match was decided, as the server's decided_words says it: a practice's
  // score (never a winner), a forfeit, "golden goal in extra period 1", "shootout 3–2"
  function decidedWords(r) {
    if (r.status !== "final") return null;
    const ids = cfg.team_ids;
    if (r.practice || cfg.practice) return fillL("practice_score", "Practice: %(score)s", { score: ids.map((t) => r.score[t]).join("–") });
    const fw = forfeitWords(r);
    if (fw) return fw;
    if (r.decided_by === "extra-period") return fillL("golden_goal", "golden goal in extra period %(n)s", { n: Math.max(1, (r.period || 0) - cfg.regular_periods) });
    if (r.decided_by === "shootout") {
      const sc = (r.shootout && r.shootout.score) || {};
      return fillL("shootout_score", "shootout %(score)s", { score: ids.map((t) => sc[t] || 0).join("–") });
    }
    if (r.decided_by === "penalty") return L.penalty_after_horn || "Penalty 1 goal after the last horn";
    return null;
  }
  live.decidedWords = decidedWords;

  // the time-out that stopped the clock (from the page, then from each event), shown
  // with its team or reason while the clock stays stopped
  live.timeout = cfg.timeout || null;
  const CLOCK_EVENTS = new Set(["bowl_in", "free_hit", "whistle", "foul"]);
  function followTimeout(seq, ev) {
    if (!ev) return;
    if (ev.type === "timeout") live.timeout = { seq, team: ev.team || null, reason: ev.reason || null };
    else if (CLOCK_EVENTS.has(ev.type)) live.timeout = null;
    else if (ev.type === "undo" && live.timeout && ev.event === live.timeout.seq) live.timeout = null;
  }
  function timeoutWords(r) {
    const to = live.timeout;
    if (!to || r.status !== "stopped") return null;
    let s = L.time_out || "Time-out";
    if (to.team) s += " · " + teamName(to.team);
    if (to.reason) s += " · " + (L["reason_" + to.reason] || to.reason);
    return s;
  }
  live.timeoutWords = timeoutWords;

  // the period line: "Extra period 1", never "Period 5", also once the match is over
  function periodLine(r) {
    const p = r.period || 1;
    if (r.status === "final" && p > cfg.regular_periods) return (L.extra_period || "Extra period") + " " + (p - cfg.regular_periods);
    if (r.status === "final" || r.status === "pre_match") return (L.period || "Period") + " " + p;
    // a club's edition is named beside the period (issue 42): "Period 1 of 3 · Oak Hill"
    return periodLabel(r) + (cfg.club_name ? " · " + cfg.club_name : "");
  }

  // the short phase the overlay shows: Final, Interval, Shootout, Period N
  function phaseLabel(r) {
    if (r.status === "interval") return L.interval || "Interval";
    const dw = decidedWords(r);
    if (dw) return periodLabel(r) + " · " + dw;
    const tw = timeoutWords(r);
    if (tw) return periodLabel(r) + " · " + tw;
    return periodLabel(r);
  }

  function setText(sel, text) {
    document.querySelectorAll(sel).forEach((el) => { if (el.textContent !== text) el.textContent = text; });
  }

  // "Clock corrected" explains a jump of the stopped clock: it shows from the correction
  // until the clock runs again (the stopped clock still reads the corrected time, same
  // period); the console's event list and the score sheet keep every correction
  function correctionShown(r) {
    const c = (r.corrections || [])[(r.corrections || []).length - 1];
    return !!c && r.status === "stopped" && !r.interval && c.period === r.period &&
      !r.clock.running && r.clock.remaining_ms === c.to_ms;
  }
  live.correctionShown = correctionShown;

  // how long something has lasted, with its unit: "42 s", past a minute "1:05 min"
  function fmtSince(ms) {
    if (!Number.isFinite(ms)) return "";
    const s = Math.max(Math.floor(ms / 1000), 0);
    if (s < 60) return s + " s";
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0") + " min";
  }
  live.fmtSince = fmtSince;

  function renderStatic(r) {
    for (const t of cfg.team_ids) {
      setText('[data-score="' + t + '"]', String(r.score[t]));
      const h = (r.handicap_goals || {})[t] || 0;
      setText('[data-hcp="' + t + '"]', h ? (L.handicap_goals || "handicap") + " +" + h : "");
    }
    // before the bowl-in the period line names the first period (the status says "Pre-match")
    setText("[data-period]", periodLine(r));
    setText("[data-phase]", phaseLabel(r));
    setText("[data-corrections]", correctionShown(r) ? (L.clock_corrected || "Clock corrected") : "");
    let status = L[r.status] || r.status;
    const fw = forfeitWords(r), dw = decidedWords(r), tw = timeoutWords(r);
    if (fw || (dw && (r.practice || cfg.practice))) status += " · " + dw;  // never a winner
    else if (r.status === "final" && r.winner) status += " · " + (L.winner || "Winner") + ": " + teamName(r.winner) + (dw ? " · " + dw : "");
    else if (tw) status = tw;
    document.body.classList.toggle("forfeit", !!fw);
    const so = r.shootout;
    if (r.status === "shootout") {  // the shots so far, and who hits next
      const sc = (so && so.score) || {};
      status = (L.shots || "Shots") + " " + cfg.team_ids.map((t) => sc[t] || 0).join(" – ");
      if (so && so.next) status += " · " + (L.next || "Next") + ": " + teamName(so.next.team) + " · " + playerName(so.next.team, so.next.player);
    }
    setText("[data-status]", status);
    const pen = r.pending_penalty;
    setText("[data-penalty]", pen ? (L.penalty || "Penalty") + " " + pen.penalty + " → " + teamName(pen.to) : "");
    document.body.dataset.matchStatus = r.status;
    document.body.classList.toggle("practice", !!(r.practice || cfg.practice));
    document.body.classList.toggle("stopped", r.status === "stopped");
    const tl = document.querySelector("[data-timeline]");
    if (tl) renderTimeline(tl, r);
  }

  function renderTimeline(el, r) {
    const items = [];
    for (const g of r.goals || []) items.push({ at: g.at, p: g.period, ev: g.event, cls: "goal" + (g.kind === "penalty" ? " penalty-goal" : ""), team: g.team,
      text: (g.points === 2 ? (L.two_point_goal || "2-point goal") : (L.goal || "Goal")) + (g.player != null ? " · " + playerName(g.team, g.player) : "") + (g.kind && g.kind !== "field" ? " (" + (L["goal_" + g.kind] || g.kind) + ")" : "") });
    for (const f of r.fouls || []) items.push({ at: f.at, p: f.period, ev: f.event, cls: "foul", team: f.team,
      text: (L.foul || "Foul") + (f.player != null ? " · " + playerName(f.team, f.player) : "") + " · " + (L.penalty || "Penalty") + " " + f.penalty + (f.card ? " · " + (L["card_" + f.card] || f.card) : "") });
    items.sort((a, b) => b.at - a.at);
    const key = JSON.stringify(items);
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.replaceChildren();
    for (const it of items) {
      const li = document.createElement("li");
      li.className = it.cls;
      const p = document.createElement("span"); p.className = "tp";
      const ck = clocks[it.ev];
      p.textContent = "P" + it.p + (ck != null ? " " + fmt(ck) : "");
      const t = document.createElement("strong"); t.textContent = teamName(it.team);
      const x = document.createElement("span"); x.textContent = " " + it.text;
      li.append(p, " ", t, x);
      el.append(li);
    }
    if (!items.length) {
      const li = document.createElement("li"); li.className = "muted"; li.textContent = L.nothing_yet || "Nothing yet";
      el.append(li);
    }
  }

  function frame() {
    const r = live.state;
    if (r) {
      // during an interval its countdown is the main clock; it says when it has run out
      const ivLeft = r.interval ? msLeft({ remaining_ms: r.interval.remaining_ms, running: true }, r) : null;
      const left = r.interval ? ivLeft : msLeft(r.clock, r);
      setText("[data-clock]", r.status === "shootout" ? "—" : (fmt(left) || "0:00"));
      const running = r.clock.running && !live.holdAt;
      const last30 = running && left != null && left <= 30000 && left > 0;
      document.body.classList.toggle("last30", !!last30);
      document.body.classList.toggle("in-interval", !!r.interval);
      const over = !!r.interval && ivLeft === 0;
      document.body.classList.toggle("interval-over", over);
      let iv = "";
      if (r.interval) {
        iv = r.interval.kind === "regular" ? (L.before_period || "Before period") + " " + (r.period + 1)
          : (L["interval_" + r.interval.kind] || L.interval || "Interval");
        if (over) iv = (L.interval_over || "Interval over: bowl in when ready");
      } else if (r.mount_change && r.status === "stopped") {
        iv = (L.mount_change || "Mount change") + " " + fmt(msLeft({ remaining_ms: r.mount_change.remaining_ms, running: true }, r));
      }
      setText("[data-interval]", iv);
    }
    requestAnimationFrame(frame);
  }

  // the period clock at each event (event number -> remaining ms): from the page, then
  // from each event message's report (the state as of that event)
  const clocks = cfg.clocks || {}, periods = cfg.periods || {};
  live.clocks = clocks;
  live.periods = periods;

  function update(report, msg) {
    if (msg && msg.kind === "event") followTimeout(msg.seq, msg.event);
    if (msg && msg.kind === "event" && report && report.clock && msg.seq != null) {
      clocks[msg.seq] = report.clock.remaining_ms;
      periods[msg.seq] = report.period;
    }
    live.state = report;
    live.seq = report.seq;
    renderStatic(report);
    for (const fn of live.listeners) fn(report, msg);
  }
  live.update = update; // the one rendering entry point (also for layout tests and screenshots)

  // The match's own screens get a reserved share of the streams with a single-use ticket
  // (EventSource sends no Authorization header, and tokens stay out of URLs): the console
  // sets live.ticket to fetch one with its token; the big screen and the overlay use the
  // display token of their URL fragment (#display=…), kept for this tab.
  const apiBase = "/api/matches/" + encodeURIComponent(cfg.match_id);
  live.fetchTicket = async (tok) => {
    try {
      const r = await fetch(apiBase + "/stream-ticket", { method: "POST", cache: "no-store", headers: { authorization: "Bearer " + tok } });
      return r.ok ? (await r.json()).ticket : null;
    } catch (e) { return null; }
  };
  const DKEY = "chukker-display-" + cfg.match_id;
  const dm = /(?:^#|&)display=([^&]+)/.exec(location.hash);
  if (dm) {
    sessionStorage.setItem(DKEY, decodeURIComponent(dm[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const displayToken = sessionStorage.getItem(DKEY);
  live.ticket = displayToken ? () => live.fetchTicket(displayToken) : null;

  let es = null, generation = 0;
  async function connect(resume) {
    const mine = ++generation;
    if (es) { es.close(); es = null; }
    const ticket = live.ticket ? await live.ticket() : null;
    if (mine !== generation) return;  // another connect() started meanwhile
    const q = [];
    if (resume && live.seq) q.push("last=" + live.seq);
    if (ticket) q.push("ticket=" + encodeURIComponent(ticket));
    es = new EventSource(apiBase + "/stream" + (q.length ? "?" + q.join("&") : ""));
    // an event or horn message is followed by the patch (RFC 7386) of the report it
    // caused; backlog events (on resume) come without one, before the full state
    let held = [];
    let base = null;
    // RFC 7386, except that a null member is kept as null (the server sends null for a
    // member that became null; a report's members never go away), and that
    // {"$append": [...]} extends an array (a goal's patch carries the new goal only)
    const mergePatch = (target, patch) => {
      if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
      const keys = Object.keys(patch);
      if (Array.isArray(target) && keys.length === 1 && keys[0] === "$append") return target.concat(patch["$append"]);
      if (!target || typeof target !== "object" || Array.isArray(target)) target = {};
      const out = Object.assign({}, target);
      for (const k of Object.keys(patch)) out[k] = mergePatch(out[k], patch[k]);
      return out;
    };
    const flushBacklog = () => {
      for (const d of held) if (d.kind === "event") followTimeout(d.seq, d.event);
      for (const d of held) if (d.kind === "event") for (const fn of live.listeners) fn(live.state, { kind: "event", seq: d.seq, event: d.event, backlog: true });
      held = [];
    };
    const changed = (report) => {
      base = report;
      if (!held.length) { update(report, { kind: "patch", seq: live.seq }); return; }
      for (const d of held) {
        if (d.kind === "horn") { update(report, { kind: "horn", horn: d.horn }); for (const fn of live.hornListeners) fn(d.horn); }
        else update(report, { kind: "event", seq: d.seq, event: d.event });
      }
      held = [];
    };
    es.addEventListener("open", () => { live.connected = true; document.body.classList.remove("offline"); measureOffset(); });
    const source = es;
    es.addEventListener("error", () => {
      live.connected = false; document.body.classList.add("offline");
      // a ticket opens one stream only: reconnect with a fresh one rather than the browser's
      // retry; a refused stream (503 when streams are capped) is not retried by the browser
      if ((ticket || source.readyState === EventSource.CLOSED) && mine === generation) {
        source.close();
        const wait = ticket ? 1000 : 2000 + Math.random() * 5000;
        setTimeout(() => { if (mine === generation) connect(true); }, wait);
      }
    });
    es.addEventListener("state", (e) => {
      const d = JSON.parse(e.data);
      if (held.some((h) => h.live)) { changed(d.report); return; }
      flushBacklog(); base = d.report; update(d.report, { kind: "state" });
    });
    es.addEventListener("patch", (e) => {
      const d = JSON.parse(e.data);
      if (!base) return;
      changed(mergePatch(base, d.patch));
    });
    es.addEventListener("event", (e) => {
      const d = JSON.parse(e.data);
      if (d.report) { base = d.report; update(d.report, { kind: "event", seq: d.seq, event: d.event }); return; }
      held.push({ kind: "event", seq: d.seq, event: d.event, live: base !== null });
    });
    es.addEventListener("horn", (e) => {
      const d = JSON.parse(e.data);
      if (d.report) { base = d.report; update(d.report, { kind: "horn", horn: d.horn }); for (const fn of live.hornListeners) fn(d.horn); return; }
      held.push({ kind: "horn", horn: d.horn, live: true });
    });
    live.source = es;
  }
  live.reconnect = () => connect(true);

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { measureOffset(); connect(true); }
  });

  // horn: a flash, and a sound where the page has been allowed to play one
  let audio = null;
  live.enableSound = () => {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    audio.resume();
  };
  live.disableSound = () => { if (audio) audio.suspend(); };
  // a horn the console cued itself (its drawn clock ran out) is not cued again when
  // the server's horn for the same period arrives
  const recentHorns = new Map();
  live.freshHorn = (h) => {
    const k = h.period + ":" + h.kind, now = Date.now(), t = recentHorns.get(k);
    recentHorns.set(k, now);
    return !(t && now - t < 10000);
  };
  live.localHorn = (h) => { for (const fn of live.hornListeners) fn(h); };
  live.onHorn((h) => {
    if (!live.freshHorn(h)) return;
    document.body.classList.remove("horn");
    void document.body.offsetWidth;
    document.body.classList.add("horn");
    setTimeout(() => document.body.classList.remove("horn"), 2500);
    if (audio && audio.state === "running") {
      const o = audio.createOscillator(), g = audio.createGain();
      o.type = "sawtooth"; o.frequency.value = h.kind === "warning" ? 660 : 440;
      g.gain.setValueAtTime(0.0001, audio.currentTime);
      g.gain.exponentialRampToValueAtTime(0.5, audio.currentTime + 0.05);
      const len = h.kind === "warning" ? 0.6 : 1.8;
      g.gain.setValueAtTime(0.5, audio.currentTime + len - 0.1);
      g.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + len);
      o.connect(g).connect(audio.destination); o.start(); o.stop(audio.currentTime + len);
    }
  });

  measureOffset().then(() => connect(false));
  requestAnimationFrame(frame);
})();
