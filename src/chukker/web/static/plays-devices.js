// /plays/review: device files picked alone. Each GPX or TCX track is drawn as an SVG
// polyline (read in the browser; nothing is fetched), the four corners are clicked on
// the drawing in order sw, nw, ne, se and written to the [arena] box (which may also be
// pasted from `chukker plays arena`), and each file gets its rider (team:number).
// FIT files are binary: they get a rider row but no drawing (paste their corners).
// "Inspect the files first" posts the form in the background and shows the answer's
// table above it: the files picked, the riders and the corners stay as they are.
"use strict";
(function () {
  const form = document.querySelector("form.devices-form");
  if (!form) return;
  const input = form.querySelector('input[name="devices"]');
  const svg = form.querySelector("svg.tracks-svg");
  const step = form.querySelector(".corner-step");
  const reset = form.querySelector(".corners-reset");
  const units = form.querySelector(".device-units");
  const box = form.querySelector('textarea[name="corners"]');
  const NS = "http://www.w3.org/2000/svg";
  const W = 1000, H = 600, PAD = 20;
  const CORNERS = ["sw", "nw", "ne", "se"];
  const COLOURS = ["#1f5fbf", "#b3261e", "#2e7d32", "#8e24aa", "#ef6c00", "#00838f"];
  let view = null;  // {lat0, lon0, k, kx}
  let clicks = [];

  function points(text) {
    const doc = new DOMParser().parseFromString(text, "application/xml");
    const out = [];
    for (const p of doc.getElementsByTagNameNS("*", "trkpt")) {
      out.push([+p.getAttribute("lat"), +p.getAttribute("lon")]);
    }
    for (const p of doc.getElementsByTagNameNS("*", "Position")) {
      const la = p.getElementsByTagNameNS("*", "LatitudeDegrees")[0];
      const lo = p.getElementsByTagNameNS("*", "LongitudeDegrees")[0];
      if (la && lo) out.push([+la.textContent, +lo.textContent]);
    }
    return out.filter((q) => isFinite(q[0]) && isFinite(q[1]));
  }

  function rider(name, i) {
    const row = document.createElement("p");
    const l1 = document.createElement("label");
    l1.textContent = name + " — " + form.dataset.entity + " ";
    const e = document.createElement("input");
    e.name = "entity:" + name; e.required = true; e.size = 9;
    e.pattern = "[A-Za-z]+:[0-9]+"; e.placeholder = "blue:1";
    e.style.borderColor = COLOURS[i % COLOURS.length];
    l1.appendChild(e);
    const l2 = document.createElement("label");
    l2.textContent = " " + form.dataset.offset + " ";
    const o = document.createElement("input");
    o.name = "offset:" + name; o.type = "number"; o.step = "any"; o.value = "0"; o.size = 5;
    l2.appendChild(o);
    row.append(l1, l2);
    units.appendChild(row);
  }

  function draw(tracks) {
    svg.replaceChildren();
    const all = tracks.flat();
    if (!all.length) { svg.hidden = true; return; }
    const lats = all.map((q) => q[0]), lons = all.map((q) => q[1]);
    const lat0 = Math.min(...lats), lon0 = Math.min(...lons);
    const kx = Math.cos((lat0 * Math.PI) / 180);
    const dx = (Math.max(...lons) - lon0) * kx || 1e-9, dy = Math.max(...lats) - lat0 || 1e-9;
    const k = Math.min((W - 2 * PAD) / dx, (H - 2 * PAD) / dy);
    view = { lat0, lon0, k, kx };
    tracks.forEach((tr, i) => {
      if (!tr.length) return;
      const step = Math.max(1, Math.floor(tr.length / 4000));
      const pts = [];
      for (let j = 0; j < tr.length; j += step) {
        const [x, y] = xy(tr[j]);
        pts.push(x.toFixed(1) + "," + y.toFixed(1));
      }
      const line = document.createElementNS(NS, "polyline");
      line.setAttribute("points", pts.join(" "));
      line.setAttribute("fill", "none");
      line.setAttribute("stroke", COLOURS[i % COLOURS.length]);
      line.setAttribute("stroke-width", "1.5");
      line.setAttribute("opacity", "0.8");
      svg.appendChild(line);
    });
    svg.hidden = false;
    clicks = [];
    say();
  }

  function xy(q) {
    return [PAD + (q[1] - view.lon0) * view.kx * view.k, H - PAD - (q[0] - view.lat0) * view.k];
  }

  function say() {
    reset.hidden = !clicks.length;
    step.hidden = false;
    step.textContent = clicks.length < 4
      ? form.dataset.click + " " + CORNERS[clicks.length] + " (" + (clicks.length + 1) + "/4)"
      : form.dataset.done;
    svg.querySelectorAll(".corner").forEach((n) => n.remove());
    clicks.forEach((q, i) => {
      const [x, y] = xy(q);
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("class", "corner"); c.setAttribute("cx", x); c.setAttribute("cy", y);
      c.setAttribute("r", "7"); c.setAttribute("fill", "#000");
      const t = document.createElementNS(NS, "text");
      t.setAttribute("class", "corner"); t.setAttribute("x", x + 9); t.setAttribute("y", y - 9);
      t.textContent = CORNERS[i];
      svg.append(c, t);
    });
    if (clicks.length === 4) {
      box.value = "[arena]\n" + clicks.map((q, i) =>
        CORNERS[i] + " = [" + q[0].toFixed(7) + ", " + q[1].toFixed(7) + "]").join("\n");
    }
  }

  svg.addEventListener("click", (ev) => {
    if (!view || clicks.length >= 4) return;
    const m = svg.getScreenCTM();
    if (!m) return;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    const lat = view.lat0 + (H - PAD - p.y) / view.k;
    const lon = view.lon0 + (p.x - PAD) / (view.kx * view.k);
    clicks.push([lat, lon]);
    say();
  });
  reset.addEventListener("click", () => { clicks = []; box.value = ""; say(); });

  let direct = false;  // the background failed: the button's own post
  form.addEventListener("submit", async (ev) => {
    const by = ev.submitter;
    if (direct || !by || by.name !== "inspect" || !window.fetch) return;  // a real post
    ev.preventDefault();
    const body = new FormData(form);
    body.set("inspect", by.value || "1");
    by.disabled = true;
    try {
      const r = await fetch(form.action, { method: "POST", body, credentials: "same-origin" });
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      document.querySelectorAll("section.inspected, p.error.inspect-error").forEach(
        (n) => n.remove());
      const shown = [];
      const got = doc.querySelector("section.inspected");
      if (got) shown.push(document.importNode(got, true));
      const err = doc.querySelector("p.error");
      if (err) {
        shown.push(document.importNode(err, true));
        shown[shown.length - 1].classList.add("inspect-error");
      }
      shown.forEach((n) => form.before(n));
      (shown[0] || form).scrollIntoView({ block: "nearest" });
      by.disabled = false;
    } catch (e) {
      by.disabled = false;
      direct = true;
      by.click();  // the page's own answer, without the background
    }
  });

  input.addEventListener("change", async () => {
    units.replaceChildren();
    const files = Array.from(input.files || []);
    files.forEach((f, i) => rider(f.name, i));
    const tracks = await Promise.all(files.map(async (f) => {
      if (/\.fit$/i.test(f.name) || f.size > 64 * 1024 * 1024) return [];
      try { return points(await f.text()); } catch (e) { return []; }
    }));
    draw(tracks);
  });
})();
