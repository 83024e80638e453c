// The whistle detector in the browser: the steps of chukker/whistle/detector.py, line for
// line, with the numbers of chukker/whistle/params.json (passed in, never copied here).
//
// Loaded two ways: as the console's AudioWorklet module (registers "chukker-whistle"),
// and as a plain script (window.ChukkerWhistle) for the test that feeds it and the Python
// detector the same audio. No DOM, no network.
"use strict";
(function (root) {
  function fft(re, im) { // in place, radix 2; re.length is a power of two
    const n = re.length;
    for (let i = 1, j = 0; i < n; i++) {
      let bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) { let t = re[i]; re[i] = re[j]; re[j] = t; t = im[i]; im[i] = im[j]; im[j] = t; }
    }
    for (let len = 2; len <= n; len <<= 1) {
      const ang = -2 * Math.PI / len, wr = Math.cos(ang), wi = Math.sin(ang), half = len >> 1;
      for (let i = 0; i < n; i += len) {
        let cr = 1, ci = 0;
        for (let k = 0; k < half; k++) {
          const a = i + k, b = a + half;
          const tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr;
          re[b] = re[a] - tr; im[b] = im[a] - ti; re[a] += tr; im[a] += ti;
          const nr = cr * wr - ci * wi; ci = cr * wi + ci * wr; cr = nr;
        }
      }
    }
  }

  function median(pw, a, b) { // numpy's median of pw[a..b] (inclusive)
    const v = Float64Array.from(pw.subarray(a, b + 1)).sort(), m = v.length;
    return m % 2 ? v[(m - 1) / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
  }
  const pyRound = (x) => { // Python's round(): half to even
    const r = Math.round(x);
    return (Math.abs(x % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
  };

  function defaultProfile(p) {
    const d = p.default_profile;
    return { name: d.name, kinds: d.kinds.slice(), band_hz: d.band_hz.slice(), tones_hz: d.tones_hz.slice() };
  }

  function geometry(p, sr, profile) {
    const n = 1 << Math.ceil(Math.log2(sr * p.frame_s));
    const hop = pyRound(sr * p.hop_s);
    const win = new Float64Array(n);
    for (let i = 0; i < n; i++) win[i] = 0.5 - 0.5 * Math.cos(2 * Math.PI * i / n);
    return { sr, n, hop, win,
      b0: Math.ceil(profile.band_hz[0] * n / sr), b1: Math.floor(profile.band_hz[1] * n / sr),
      l0: Math.ceil(p.low_band_hz[0] * n / sr), l1: Math.floor(p.low_band_hz[1] * n / sr) };
  }

  function interp(pw, k) {
    const a = Math.log(pw[k - 1] + 1e-30), b = Math.log(pw[k] + 1e-30), c = Math.log(pw[k + 1] + 1e-30);
    const den = a - 2 * b + c;
    return k + (den < 0 ? 0.5 * (a - c) / den : 0);
  }

  function comb(pw, a, b, g, p, least, floor) {
    const thr = Math.max(median(pw, a, b), floor) * Math.pow(10, p.spacing_prominence_db / 10);
    const fs = [];
    for (let k = a; k <= b; k++) {
      if (pw[k] > thr && pw[k] > pw[k - 1] && pw[k] >= pw[k + 1]) fs.push(interp(pw, k) * g.sr / g.n);
    }
    if (fs.length < least) return 0;
    const d = new Float64Array(fs.length - 1);
    for (let i = 0; i < d.length; i++) d[i] = fs[i + 1] - fs[i];
    const f0 = median(d, 0, d.length - 1);
    if (!(p.spacing_hz[0] <= f0 && f0 <= p.spacing_hz[1])) return 0;
    let fit = 0;
    for (let i = 0; i < d.length; i++) { const r = d[i] / f0; if (Math.abs(r - Math.round(r)) < p.harmonic_tolerance) fit++; }
    return fit >= p.comb_fit * d.length ? f0 : 0;
  }

  function series(hz, p) {
    for (let i = 0; i < hz.length; i++) {
      for (let j = i + 1; j < hz.length; j++) {
        const d = hz[j] - hz[i];
        if (d > p.series_max_hz) continue;
        if (hz.every((f) => Math.abs(f / d - pyRound(f / d)) < p.series_tolerance)) return true;
      }
    }
    return false;
  }

  function trill(frame, hz, g, blocks) {
    const m = Math.floor(g.n / blocks), w = 2 * Math.PI * hz / g.sr;
    let hi = -Infinity, lo = Infinity;
    for (let b = 0; b < blocks; b++) {
      let re = 0, im = 0;
      for (let i = b * m; i < (b + 1) * m; i++) { re += frame[i] * Math.cos(w * i); im += frame[i] * Math.sin(w * i); }
      const a = Math.hypot(re, im);
      if (a > hi) hi = a;
      if (a < lo) lo = a;
    }
    return hi + lo > 0 ? (hi - lo) / (hi + lo) : 0;
  }

  const NOTHING = { kind: "", tones: [] };
  function harmonic(hz, fLow, g, p) { // detector._harmonic
    const h = pyRound(hz / fLow), [a, b] = p.harmonic_bins;
    const tol = Math.min(p.harmonic_tolerance * fLow, (a + b * h) * g.sr / g.n);
    return h >= 2 && h <= p.max_harmonic && Math.abs(hz - h * fLow) < tol;
  }
  const near = (pw, k) => Math.max(pw[k - 1], pw[k], pw[k + 1]);

  // detector._fresh: the peaks' bins whose power rose jump_db since ref
  function fresh(pw, ref, ks, q) {
    const out = new Set();
    if (!ref) return out;
    const jump = Math.pow(10, q.jump_db / 10);
    for (const k of ks) if (near(pw, k) >= jump * near(ref, k)) out.add(k);
    return out;
  }
  // detector._steady: the low tone at bin k already sounded in ref
  const steadyLow = (pw, ref, k, q) => near(ref, k) >= Math.pow(10, -q.steady_db / 10) * near(pw, k);

  // one frame's verdict: detector.classify
  // ref: the spectrum fresh.lag_frames earlier, or null (not held, or below the level)
  function classify(frame, pw, g, p, profile, ref) {
    const floor = pw.reduce((s, v) => s + v, 0) * Math.pow(10, p.floor_db / 10);
    const noise = Math.max(median(pw, g.b0, g.b1), floor);
    const thr = noise * Math.pow(10, p.peak_prominence_db / 10);
    let peaks = [];
    for (let k = g.b0; k <= g.b1; k++) {
      const v = pw[k];
      if (v > thr && v > pw[k - 1] && v >= pw[k + 1]) peaks.push([v, interp(pw, k) * g.sr / g.n, k]);
    }
    if (!peaks.length) return NOTHING;
    peaks.sort((x, y) => y[0] - x[0]);
    peaks = peaks.slice(0, p.max_peaks);
    let lowPower = 0;
    for (let k = g.l0; k <= g.l1; k++) lowPower += pw[k];
    const lthr = Math.max(median(pw, g.l0, g.l1), floor) * Math.pow(10, p.low_prominence_db / 10);
    const lows = [];
    for (let k = g.l0; k <= g.l1; k++) {
      const v = pw[k];
      if (v > lthr && v > pw[k - 1] && v >= pw[k + 1]) lows.push([v, k]);
    }
    lows.sort((x, y) => y[0] - x[0]);
    const fr = fresh(pw, ref, peaks.map((t) => t[2]), p.fresh);
    for (const [, k] of lows.slice(0, p.low_tones)) {
      const fLow = interp(pw, k) * g.sr / g.n;
      const old = !!ref && steadyLow(pw, ref, k, p.fresh);
      peaks = peaks.filter((t) => (old && fr.has(t[2])) || !harmonic(t[1], fLow, g, p));
    }
    for (const [a, b, least] of [[g.l0, g.l1, 3], [g.b0, g.b1, p.comb_peaks]]) {
      const f0 = comb(pw, a, b, g, p, least, floor);
      if (f0 > 0) {
        const tol = p.harmonic_tolerance * f0;
        peaks = peaks.filter((t) => Math.abs(t[1] - pyRound(t[1] / f0) * f0) >= tol);
      }
    }
    if (!peaks.length) return NOTHING;
    const top = peaks[0], r = p.cluster_ratio;
    let tones = [top];
    for (const t of peaks.slice(1)) {
      if (!(top[1] / r <= t[1] && t[1] <= top[1] * r)) continue;
      if (tones.some((u) => Math.abs(t[1] - u[1]) < p.min_tone_gap_hz)) continue;
      if (tones.some((u) => Math.abs(t[1] / u[1] - pyRound(t[1] / u[1])) < p.octave_tolerance * t[1] / u[1] &&
          pyRound(t[1] / u[1]) >= 2)) continue;
      tones.push(t);
    }
    if (tones.length >= 2) { // only the sharp tones make a pea-less whistle's frame
      const sb = p.sharp_bins, sharp = Math.pow(10, p.sharp_db / 10);
      tones = tones.filter((t) => pw[t[2]] >= sharp * Math.max(pw[t[2] - sb], pw[t[2] + sb]));
      if (tones.length < 2) tones = [top];
    }
    let tonePower = 0;
    for (const [, , k] of tones) tonePower += pw[k - 1] + pw[k] + pw[k + 1];
    if (tonePower < lowPower * Math.pow(10, p.min_tone_to_low_db / 10)) return NOTHING;
    const hz = tones.map((t) => t[1]).sort((x, y) => x - y);
    let kind = "";
    if (tones.length > p.max_tones) return NOTHING; // a whistle has two or three chambers
    if (tones.length >= 2) {
      if (!profile.tones_hz.length && hz.length >= p.series_tones && series(hz, p)) return NOTHING;
      kind = "multi";
    } else if (tonePower >= lowPower * Math.pow(10, p.min_trill_to_low_db / 10) &&
               trill(frame, top[1], g, p.trill_blocks) >= p.trill_min) {
      kind = "trill";
    }
    if (!kind || profile.kinds.indexOf(kind) < 0) return NOTHING;
    if (profile.tones_hz.length) {
      const tol = p.profile_tolerance;
      let hit = 0;
      for (const t of profile.tones_hz) if (hz.some((f) => Math.abs(f - t) <= tol * t)) hit++;
      if (hit < Math.min(2, profile.tones_hz.length)) return NOTHING;
    }
    return { kind, tones: hz };
  }

  // frames to blasts: detector.Tracker, with its held spectra and its look back
  function Tracker(p, g) {
    this.g = g; this.p = p; this.i = 0; this.start = -1; this.on = 0; this.miss = 0;
    this.inBlast = false; this.tones = []; this.ended = -1;
    const lb = p.lookback;
    this.held = lb.frames;
    this.ring = []; for (let j = 0; j < this.held; j++) this.ring.push(new Float64Array(g.n / 2 + 1));
    this.loud = new Uint8Array(this.held);
    this.width = pyRound(lb.width_hz * g.n / g.sr);
    this.prom = Math.pow(10, lb.prominence_db / 10);
    this.drop = Math.pow(10, -lb.drop_db / 10);
    this.lag = p.fresh.lag_frames;
    this.rise = Math.pow(10, lb.rise_db / 10);
    this.riseFrames = lb.rise_frames;
  }
  Tracker.prototype.ref = function () {
    const j = this.i - this.lag;
    return j >= 0 && this.loud[j % this.held] ? this.ring[j % this.held] : null;
  };
  Tracker.prototype.level = function (j0, j1, k) { // detector.Tracker._level
    let out = 0;
    for (let j = Math.max(j0, this.i - this.held + 1); j <= j1; j++) {
      if (this.loud[j % this.held]) out = Math.max(out, this.peak(j % this.held, k));
    }
    return out;
  };
  Tracker.prototype.rose = function (j, k) { // detector.Tracker._rose
    const s = this.riseFrames, now = this.level(j - s + 1, j, k);
    return this.level(j + 1, j + s, k) > this.rise * now && this.rise * this.level(j - 2 * s + 1, j - s, k) >= now;
  };
  Tracker.prototype.peak = function (slot, k) {
    const r = this.ring[slot];
    return Math.max(r[k - 1], r[k], r[k + 1]);
  };
  Tracker.prototype.track = function (hz, ref) { // detector.Tracker._track
    const g = this.g, tp = this.p.lookback.tone, f = hz * g.n / g.sr;
    const k = pyRound(f), tol = Math.max(tp.bins, tp.tolerance * f);
    const lo = Math.max(1, Math.floor(f - tol)), hi = Math.ceil(f + tol);
    const limit = Math.max(this.ended, this.i - this.held);
    const hist = [];
    for (let j = limit + 1; j < this.start; j++) if (this.loud[j % this.held]) hist.push(this.ring[j % this.held][k]);
    hist.sort((a, b) => a - b);
    const floor = (hist.length ? hist[Math.floor(tp.floor_percentile / 100 * (hist.length - 1))] : 0) * Math.pow(10, tp.floor_db / 10);
    const prom = Math.pow(10, tp.prominence_db / 10);
    let first = this.start, miss = 0, j = this.start - 1;
    while (j > limit && miss <= this.p.lookback.hold_frames) {
      const slot = j % this.held;
      let ok = false;
      if (this.loud[slot]) {
        if (this.rose(j, k)) break;
        const pw = this.ring[slot];
        let m = lo;
        for (let q = lo + 1; q <= hi; q++) if (pw[q] > pw[m]) m = q;
        const v = pw[m];
        if (v >= pw[m - 1] && v >= pw[m + 1] && v >= ref && v >= floor) {
          const a = Math.log(pw[m - 1] + 1e-30), b = Math.log(v + 1e-30), c = Math.log(pw[m + 1] + 1e-30);
          const d = a - 2 * b + c, at = m + (d < 0 ? 0.5 * (a - c) / d : 0);
          ok = Math.abs(at - f) <= tol && v >= median(pw, k - this.width, k + this.width) * prom;
        }
      }
      if (ok) { first = j; miss = 0; } else miss += 1;
      j -= 1;
    }
    return first;
  };
  Tracker.prototype.lookBack = function (tones) {
    const g = this.g, ks = tones.map((t) => pyRound(t * g.n / g.sr));
    const now = this.i % this.held, ref = ks.map((k) => this.peak(now, k) * this.drop);
    if (ks.length >= 2) { // a pea-less whistle: its tones one by one, the second to begin
      return tones.map((t, q) => this.track(t, ref[q])).sort((a, b) => a - b)[1];
    }
    const need = Math.min(2, ks.length);
    let first = this.start, miss = 0, j = this.start - 1;
    while (j > Math.max(this.ended, this.i - this.held) && miss <= this.p.lookback.hold_frames) {
      const slot = j % this.held;
      let hit = 0;
      if (this.loud[slot]) {
        if (ks.some((k) => this.rose(j, k))) break; // the blast began after j, on a steady sound
        for (let q = 0; q < ks.length; q++) {
          const k = ks[q], v = this.peak(slot, k);
          const med = median(this.ring[slot], k - this.width, k + this.width);
          if (v >= med * this.prom && v >= ref[q]) hit++;
        }
      }
      if (hit >= need) { first = j; miss = 0; } else miss += 1;
      j -= 1;
    }
    return first;
  };
  // fr: the frame's verdict; pw: its power spectrum, or null below min_level_db
  Tracker.prototype.push = function (fr, pw) {
    const p = this.p, g = this.g;
    let out = null;
    const slot = this.i % this.held;
    this.loud[slot] = pw ? 1 : 0;
    if (pw) this.ring[slot].set(pw);
    const tol = fr.kind === "trill" ? p.stable_tolerance : p.stable_multi_tolerance;
    const steady = fr.kind !== "" && (this.start < 0 || this.inBlast ||
      fr.tones.some((f) => this.tones.some((t) => Math.abs(f - t) <= tol * t)));
    if (steady) {
      if (this.start < 0 && !this.inBlast) { this.start = this.i; this.on = 0; this.tones = fr.tones; }
      this.on += 1;
      this.miss = 0;
      const span = this.i - this.start + 1;
      if (!this.inBlast && this.on >= p.min_frames && this.on >= p.min_score * span) {
        this.inBlast = true;
        const first = this.lookBack(fr.tones), frame = first * g.hop + g.n / 2;
        out = { frame, at: frame / g.sr, decided: (this.i * g.hop + g.n) / g.sr,
          score: Math.round(1000 * this.on / span) / 1000, tones: this.tones };
      }
    } else {
      this.miss += 1;
      if (this.start >= 0 && !this.inBlast && this.miss > p.hold_frames) { this.start = -1; this.on = 0; }
      if (this.inBlast && this.miss >= p.gap_frames) { this.inBlast = false; this.start = -1; this.on = 0; this.ended = this.i; }
    }
    this.i += 1;
    return out;
  };

  // A streaming detector: push samples (any block size), get blasts and frame verdicts.
  function Detector(p, sr, profile) {
    this.p = p; this.sr = sr;
    this.setProfile(profile || defaultProfile(p));
  }
  Detector.prototype.setProfile = function (profile) {
    this.profile = profile;
    this.g = geometry(this.p, this.sr, profile);
    this.tracker = new Tracker(this.p, this.g);
    this.buf = new Float64Array(this.g.n * 4); this.len = 0; this.consumed = 0;
    this.re = new Float64Array(this.g.n); this.im = new Float64Array(this.g.n);
    this.pw = new Float64Array(this.g.n / 2 + 1);
    this.minPower = Math.pow(10, this.p.min_level_db / 10);
  };
  // samples: Float32Array or Float64Array; onFrame(verdict) optional; returns blasts
  Detector.prototype.push = function (samples, onFrame) {
    const g = this.g, out = [];
    if (this.len + samples.length > this.buf.length) {
      const nb = new Float64Array(Math.max(this.buf.length * 2, this.len + samples.length));
      nb.set(this.buf.subarray(0, this.len)); this.buf = nb;
    }
    this.buf.set(samples, this.len); this.len += samples.length;
    let pos = 0;
    while (pos + g.n <= this.len) {
      const frame = this.buf.subarray(pos, pos + g.n);
      let e = 0;
      for (let i = 0; i < g.n; i++) { e += frame[i] * frame[i]; this.re[i] = frame[i] * g.win[i]; this.im[i] = 0; }
      let fr = NOTHING, loud = false;
      if (e / g.n >= this.minPower) {
        loud = true;
        fft(this.re, this.im);
        for (let k = 0; k <= g.n / 2; k++) this.pw[k] = this.re[k] * this.re[k] + this.im[k] * this.im[k];
        fr = classify(frame, this.pw, g, this.p, this.profile, this.tracker.ref());
      }
      const b = this.tracker.push(fr, loud ? this.pw : null);
      if (onFrame) onFrame(fr); // after the tracker, as detector.calibrate counts frames
      if (b) out.push(b);
      pos += g.hop;
    }
    this.buf.copyWithin(0, pos, this.len); this.len -= pos; this.consumed += pos;
    return out;
  };
  Detector.prototype.inBlast = function () { return this.tracker.inBlast || this.tracker.start >= 0; };

  // calibration: detector.calibrate's profile from the tones heard in the blasts
  function profileFrom(p, tones, kinds, blasts, name) {
    if (blasts.length < 3) return null;
    const kind = (kinds.trill || 0) > (kinds.multi || 0) ? "trill" : "multi";
    const seen = (kinds.trill || 0) + (kinds.multi || 0), tol = p.profile_tolerance;
    const rest = tones.slice().sort((a, b) => a - b), groups = [];
    for (const t of rest) {
      const last = groups[groups.length - 1];
      if (last && t - last[0] <= tol * last[0]) last.push(t); else groups.push([t]);
    }
    groups.sort((a, b) => b.length - a.length);
    const med = (v) => median(Float64Array.from(v), 0, v.length - 1);
    let found = [];
    for (const grp of groups.slice(0, 4)) if (grp.length >= Math.max(1, Math.floor(seen / 3))) found.push(med(grp));
    if (!found.length) found = [med(rest)];
    if (kind === "trill") found = found.slice(0, 1);
    found.sort((a, b) => a - b);
    const lo = Math.max(p.band_hz[0], found[0] / 1.15), hi = Math.min(p.band_hz[1], found[found.length - 1] * 1.15);
    return { format: "chukker-whistle-profile", version: 1, name: name || "calibrated", kinds: [kind],
      band_hz: [Math.round(lo), Math.round(hi)], tones_hz: found.map((t) => Math.round(t * 10) / 10),
      blasts: blasts.map((b) => Math.round(b * 1000) / 1000) };
  }

  const api = { Detector, classify, geometry, defaultProfile, profileFrom, fft };
  root.ChukkerWhistle = api;

  if (typeof registerProcessor === "function") {
    // The console's processor: levels every 100 ms, blasts at their onset (in context
    // frames), and in calibration mode the frames' tones.
    class WhistleProcessor extends AudioWorkletProcessor {
      constructor(options) {
        super();
        const o = options.processorOptions;
        this.p = o.params;
        this.det = new Detector(this.p, sampleRate, o.profile || null);
        this.calibrating = false;
        this.origin = null; // the context frame of the first sample
        this.sq = 0; this.clip = 0; this.count = 0; this.next = Math.round(sampleRate / 10);
        this.port.onmessage = (e) => {
          const m = e.data;
          if (m.type === "profile") { this.det.setProfile(m.profile || defaultProfile(this.p)); this.origin = null; }
          else if (m.type === "calibrate") {
            this.calibrating = !!m.on;
            const generic = { name: "calibration", kinds: ["multi", "trill"], band_hz: this.p.band_hz.slice(), tones_hz: [] };
            this.det.setProfile(this.calibrating ? generic : (m.profile || defaultProfile(this.p)));
            this.origin = null;
          }
        };
      }
      process(inputs) {
        const ch = inputs[0];
        if (!ch || !ch.length || !ch[0]) return true;
        const n = ch[0].length, x = new Float32Array(n);
        for (let c = 0; c < ch.length; c++) for (let i = 0; i < n; i++) x[i] += ch[c][i] / ch.length;
        if (this.origin === null) this.origin = currentFrame - this.det.consumed - this.det.len;
        for (let i = 0; i < n; i++) {
          const v = x[i];
          this.sq += v * v;
          if (Math.abs(v) >= this.p.clip_level) this.clip++;
        }
        this.count += n;
        const onFrame = this.calibrating ? (fr) => {
          if (fr.kind && this.det.inBlast()) this.port.postMessage({ type: "frame", kind: fr.kind, tones: fr.tones });
        } : null;
        for (const b of this.det.push(x, onFrame)) {
          this.port.postMessage({ type: "blast", at: (this.origin + b.frame) / sampleRate, score: b.score, tones: b.tones });
        }
        if (this.count >= this.next) {
          const db = 10 * Math.log10(this.sq / this.count + 1e-20);
          this.port.postMessage({ type: "level", db, clip: this.clip / this.count, t: currentTime });
          this.sq = 0; this.clip = 0; this.count = 0;
        }
        return true;
      }
    }
    registerProcessor("chukker-whistle", WhistleProcessor);
  }
})(typeof globalThis !== "undefined" ? globalThis : this);
