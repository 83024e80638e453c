// Layout measurement for tests/web/test_matchday_screens.py (one function expression).
(noScroll) => {
  const W = window.innerWidth, H = window.innerHeight, bad = [];
  const de = document.documentElement;
  if (de.scrollWidth > W + 1) bad.push("page scrolls sideways: " + de.scrollWidth + " > " + W);
  const sel = ".name, .score, .clock, [data-period], [data-status], [data-interval], " +
    "[data-penalty], .notes, .ov > span, .ov-sub, .bar a, .langs, .controls button, " +
    ".timeline li, h1, h2, h3, .netbar, .stopped-banner";
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if ((!r.width && !r.height) || cs.visibility === "hidden" || cs.display === "none") continue;
    const what = (el.className || el.tagName) + " '" + el.textContent.trim().slice(0, 30) + "'";
    if (r.left < -1 || r.right > W + 1) bad.push(what + " past the side: " + Math.round(r.left) + ".." + Math.round(r.right));
    if (cs.display !== "inline" && el.scrollWidth > el.clientWidth + 1) bad.push(what + " cut: " + el.scrollWidth + " > " + el.clientWidth);
    if (noScroll && r.bottom > H + 1) bad.push(what + " below the edge: " + Math.round(r.bottom) + " > " + H);
  }
  // text a person can read from where they stand: no line of the bar, the buttons, the
  // timeline or the status shorter than 1/120 of the screen's width (16 px type on a
  // 4K screen at 100 % failed this)
  for (const el of document.querySelectorAll(".bar a, .controls button, .timeline li, [data-status], .ov > span, .sound")) {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!el.textContent.trim() || !r.height || cs.display === "none" || cs.visibility === "hidden") continue;
    if (r.height < W / 120) bad.push((el.className || el.tagName) + " '" + el.textContent.trim().slice(0, 20) + "' tiny: " + Math.round(r.height) + " px high");
  }
  // the QR code of the phone page: on the screen and over nothing
  const qr = document.querySelector(".phone-qr");
  if (qr) {
    const q = qr.getBoundingClientRect();
    if (q.left < 0 || q.right > W + 1 || (noScroll && q.bottom > H + 1)) bad.push("QR code off the screen");
    for (const el of document.querySelectorAll(".name, .score, .clock, [data-period], [data-status], [data-interval], [data-penalty], .notes, .sound")) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height || !el.textContent.trim()) continue;
      if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) bad.push("QR code over " + (el.className || el.tagName) + " '" + el.textContent.trim().slice(0, 20) + "'");
    }
  }
  const c = document.querySelector("[data-clock]").getBoundingClientRect();
  return { bad, clock: [Math.round(c.left), Math.round(c.top + window.scrollY), Math.round(c.width)] };
}
