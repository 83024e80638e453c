// "Listen for the whistle" on the timekeeper's console (issue 31).
//
// Off until the timekeeper turns it on. Then the microphone feeds the AudioWorklet
// (whistle-worklet.js: the detector of chukker/whistle, with its params.json, given in
// cfg.whistle.params). A blast heard while the clock runs posts a whistle stamped at the
// blast's onset, with "source": "audio" (console.js: live.audioWhistle); Z undoes it.
// Nothing is posted while the clock is stopped, while this console's own horn sounds
// (and a guard after it), or from a microphone that is silent or clipping.
"use strict";
(function () {
  const live = window.chukker, cfg = live.cfg, W = cfg.whistle;
  const $ = (id) => document.getElementById(id);
  if (!W || !$("whistle-panel")) return;
  const L = W.labels, P = W.params, C = P.console;
  const PKEY = "chukker-whistle-profile";
  const box = $("whistle-on"), statusEl = $("whistle-status"), micEl = $("whistle-mic");
  let ctx = null, node = null, stream = null, on = false;
  let silentSince = null, clipUntil = 0, hornFrom = -Infinity, hornUntil = -Infinity, micState = "ok";
  let calib = null, heardSeq = null, undoWanted = false, heardTimer = null, heardCmd = null;

  const fill = (t, vars) => t.replace(/\{(\w+)\}/g, (all, k) => (k in vars ? String(vars[k]) : all));
  function say(text, bad) {
    statusEl.textContent = text;
    statusEl.className = bad ? "message bad" : "muted";
  }
  function savedProfile() {
    try { return JSON.parse(localStorage.getItem(PKEY) || "null"); } catch (e) { return null; }
  }
  function listeningText() {
    const p = savedProfile();
    return p ? fill(L.listening_calibrated, { tones: p.tones_hz.map((t) => Math.round(t)).join(", ") }) : L.listening_default;
  }

  // ------------------------------------------------------------ on and off
  async function start() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.AudioWorkletNode) {
      box.checked = false; say(L.unsupported, true); return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
    } catch (e) {
      box.checked = false;
      const refused = e && (e.name === "NotAllowedError" || e.name === "SecurityError");
      say(refused ? L.denied : L.no_mic + " (" + (e && e.name) + ")", true);
      return;
    }
    try {
      ctx = new AudioContext();
      await ctx.audioWorklet.addModule($("whistle-panel").dataset.worklet);
      const src = ctx.createMediaStreamSource(stream);
      node = new AudioWorkletNode(ctx, "chukker-whistle", {
        numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
        processorOptions: { params: P, profile: savedProfile() } });
      const mute = ctx.createGain();
      mute.gain.value = 0; // the worklet is pulled by the graph, and nothing is heard
      src.connect(node); node.connect(mute).connect(ctx.destination);
      node.port.onmessage = (e) => onMessage(e.data);
      await ctx.resume();
    } catch (e) {
      stop(); box.checked = false; say(L.unsupported + " (" + (e && e.name) + ")", true); return;
    }
    on = true; silentSince = null; clipUntil = 0; micState = "ok";
    $("whistle-controls").hidden = false;
    say(listeningText(), false);
  }
  function stop() {
    on = false; calib = null;
    if (stream) stream.getTracks().forEach((t) => t.stop());
    if (ctx) ctx.close();
    stream = null; ctx = null; node = null;
    $("whistle-controls").hidden = true;
    $("whistle-level").value = -90;
    say(L.off, false);
  }
  box.addEventListener("change", () => { if (box.checked) start(); else stop(); });

  // ------------------------------------------------------------ the microphone's state
  function level(m) {
    const db = Math.max(-90, Math.min(0, m.db)), now = performance.now();
    $("whistle-level").value = db;
    if (m.db < P.silent_db) { if (silentSince === null) silentSince = now; } else silentSince = null;
    if (m.clip > P.clip_fraction) clipUntil = now + 2000;
    const st = silentSince !== null && now - silentSince >= C.silent_s * 1000 ? "silent"
      : now < clipUntil ? "clipped" : "ok";
    const txt = st === "silent" ? L.silent : st === "clipped" ? L.clipped : Math.round(m.db) + " dBFS";
    if (micEl.textContent !== txt) micEl.textContent = txt;
    micEl.className = st === "ok" ? "muted" : "bad";
    $("whistle-panel").dataset.mic = st;
    micState = st;
  }

  // ------------------------------------------------------------ a blast
  function serverMsOf(ctxSeconds) {
    if (!ctx) { const perf = performance.now(); return { perf, server: performance.timeOrigin + perf + live.offset }; }
    const ts = ctx.getOutputTimestamp ? ctx.getOutputTimestamp() : null;
    const perf = ts && ts.performanceTime ? ts.performanceTime + (ctxSeconds - ts.contextTime) * 1000
      : performance.now() + (ctxSeconds - ctx.currentTime) * 1000;
    return { perf, server: performance.timeOrigin + perf + live.offset };
  }
  function logLine(text) {
    const li = document.createElement("li");
    li.textContent = text;
    const ol = $("whistle-log");
    ol.prepend(li);
    while (ol.children.length > 5) ol.lastChild.remove();
  }
  function blast(m) {
    if (calib) { calib.blasts.push(m.at); progress(); return; }
    const t = serverMsOf(m.at);
    const clock = new Date(t.server).toISOString().slice(11, 22);
    if (micState !== "ok") { logLine(clock + " · " + (micState === "silent" ? L.silent : L.clipped)); return; }
    if ((t.perf >= hornFrom - 200 && t.perf <= hornUntil) || performance.now() <= hornUntil) {
      logLine(clock + " · " + L.horn_ignored); return;
    }
    const cmd = live.audioWhistle(t.server);
    if (!cmd) { logLine(clock + " · " + L.heard_stopped); return; }
    logLine(clock + " · " + L.heard + " (" + m.score.toFixed(2) + ")");
    heardCmd = cmd; heardSeq = null; undoWanted = false;
    $("whistle-heard-text").textContent = L.heard;
    $("whistle-heard").hidden = false;
    clearTimeout(heardTimer);
    heardTimer = setTimeout(() => { $("whistle-heard").hidden = true; heardCmd = null; }, C.undo_show_s * 1000);
  }
  function onMessage(m) {
    if (m.type === "level") level(m);
    else if (m.type === "blast") blast(m);
    else if (m.type === "frame" && calib) { calib.kinds[m.kind] = (calib.kinds[m.kind] || 0) + 1; calib.tones.push(...m.tones); }
  }

  // the console's own horn is never a whistle: muted while it sounds, and a guard after
  live.onHorn(() => {
    hornFrom = performance.now();
    hornUntil = hornFrom + (C.horn_mute_s + C.horn_guard_s) * 1000;
  });

  // ------------------------------------------------------------ undo with one key
  live.onUpdate((rep, msg) => {
    if (heardCmd && msg && msg.kind === "event" && msg.event && msg.event.type === "whistle" &&
        msg.event.source === "audio") {
      heardSeq = msg.seq;
      if (undoWanted) undo();
    }
  });
  function undo() {
    if (!heardCmd) return;
    if (heardSeq === null) { undoWanted = true; return; }
    live.enqueue({ type: "undo", event: heardSeq }, live.serverNow());
    heardCmd = null; heardSeq = null; undoWanted = false;
    $("whistle-heard").hidden = true;
    logLine(L.undone);
  }
  $("whistle-undo").addEventListener("click", undo);
  document.addEventListener("keydown", (e) => {
    if (e.code !== "KeyZ" || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    if ($("whistle-heard").hidden || document.querySelector("dialog[open]")) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    e.preventDefault();
    undo();
  });

  // ------------------------------------------------------------ calibration at the table
  function progress() {
    say(fill(L.calib_progress, { n: calib.blasts.length }), false);
    if (calib.blasts.length >= 3 && !calib.done) {
      calib.done = true;
      setTimeout(finish, 700); // the third blast's frames
    }
  }
  function finish() {
    const c = calib;
    calib = null;
    clearTimeout(c.timer);
    const prof = window.ChukkerWhistle.profileFrom(P, c.tones, c.kinds, c.blasts, "console");
    if (!prof) {
      node.port.postMessage({ type: "calibrate", on: false, profile: savedProfile() });
      say(fill(L.calib_failed, { n: c.blasts.length }), true); return;
    }
    localStorage.setItem(PKEY, JSON.stringify(prof));
    node.port.postMessage({ type: "calibrate", on: false, profile: prof });
    say(fill(L.calib_done, { tones: prof.tones_hz.map((t) => Math.round(t)).join(", ") }), false);
  }
  $("whistle-calibrate").addEventListener("click", () => {
    if (!on || calib) return;
    calib = { tones: [], kinds: {}, blasts: [], done: false };
    calib.timer = setTimeout(() => { if (calib && !calib.done) finish(); }, C.calibrate_s * 1000);
    node.port.postMessage({ type: "calibrate", on: true });
    say(L.calib_prompt, false);
  });
  $("whistle-default").addEventListener("click", () => {
    localStorage.removeItem(PKEY);
    if (node) node.port.postMessage({ type: "profile", profile: null });
    say(listeningText(), false);
  });

  say(L.off, false);
  // feed: what the worklet says, handed in directly (the tests' way in, without a microphone)
  live.whistle = { start, stop, get on() { return on; }, mic: () => micState, feed: onMessage };
})();
