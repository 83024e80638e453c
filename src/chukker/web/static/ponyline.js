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
})();
