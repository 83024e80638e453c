// The pony line follows a stream (the tournament's, as the schedule does; or the match's):
// on each update it fetches its own part again, at most once at a time. Nothing is sent.
(function () {
  "use strict";
  var box = document.getElementById("pony-line");
  if (!box || !window.EventSource) return;
  var part = box.dataset.part, stream = box.dataset.stream;
  var busy = false, again = false;
  function reload() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(part, { headers: { "accept": "text/html" }, cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) box.innerHTML = html; })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; reload(); } });
  }
  var es = new EventSource(stream);
  ["standings", "state", "patch", "horn"].forEach(function (k) { es.addEventListener(k, reload); });
  setInterval(reload, 60000); // an estimate moves with the clock too
  // the split's countdowns (issue 42): the mount change's time left runs always; the play
  // time until the split only while the clock runs; both are fetched again on each update
  var loaded = Date.now();
  new MutationObserver(function () { loaded = Date.now(); }).observe(box, { childList: true });
  setInterval(function () {
    box.querySelectorAll("[data-left-ms]").forEach(function (el) {
      var ms = Number(el.dataset.leftMs);
      if (!isFinite(ms)) return;
      if (el.dataset.runs !== "0") ms = Math.max(ms - (Date.now() - loaded), 0);
      var s = Math.floor(ms / 1000), t = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
      if (el.textContent !== t) el.textContent = t;
    });
  }, 500);
})();
