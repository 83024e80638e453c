// The new match's secrets arrive in the URL fragment (never sent to a server); they are
// kept for this tab only, so a reload shows them again and creates nothing.
"use strict";
(function () {
  const key = "chukker-created-" + location.pathname;
  const p = new URLSearchParams(location.hash.slice(1));
  let tk = p.get("tk"), cm = p.get("cm"), dp = p.get("dp");
  if (tk && cm) {
    sessionStorage.setItem(key, JSON.stringify({ tk, cm, dp }));
    history.replaceState(null, "", location.pathname + location.search);
  } else {
    const kept = JSON.parse(sessionStorage.getItem(key) || "null");
    if (kept) { tk = kept.tk; cm = kept.cm; dp = kept.dp; }
  }
  if (!tk) { document.getElementById("secrets-gone").hidden = false; return; }
  document.getElementById("timekeeper-token").textContent = tk;
  document.getElementById("committee-token").textContent = cm;
  const a = document.getElementById("console-link");
  a.href = a.href.split("#")[0] + "#token=" + encodeURIComponent(tk);
  a.textContent = a.href;
  // the big screen and the overlay carry the display token (their reserved share of streams)
  if (dp) for (const v of document.querySelectorAll('a[href$="/display"], a[href$="/overlay"]')) {
    v.href = v.href.split("#")[0] + "#display=" + encodeURIComponent(dp);
    v.textContent = v.href;
  }
})();
