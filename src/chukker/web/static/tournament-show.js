// A tournament's page: the standings follow its live stream.
"use strict";
(function () {
  const cfg = JSON.parse(document.getElementById("tournament-cfg").textContent);
  const box = document.getElementById("live");
  const url = "/tournaments/" + encodeURIComponent(cfg.tid) + "/stream?lang=" + encodeURIComponent(cfg.lang);
  const es = new EventSource(url);
  es.addEventListener("standings", (e) => {
    const d = JSON.parse(e.data);
    box.innerHTML = d.html;  // rendered (and escaped) by the server's template
    box.dataset.version = d.version;
    document.body.classList.remove("offline");
  });
  es.onerror = () => document.body.classList.add("offline");
})();
