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
  const c = document.querySelector("[data-clock]").getBoundingClientRect();
  return { bad, clock: [Math.round(c.left), Math.round(c.top + window.scrollY), Math.round(c.width)] };
}
