// Rules search as people type: the search page's results follow the box (the same page,
// fetched again, its results swapped in); without JavaScript the form works as before.
"use strict";
(function () {
  const form = document.querySelector("form.search-big");
  const box = form && form.querySelector("input[type=search]");
  const results = document.getElementById("search-results");
  if (!form || !box || !results) return;
  let timer = null, asked = 0;
  async function refresh() {
    const params = new URLSearchParams(new FormData(form));
    const url = form.action + "?" + params.toString();
    const mine = ++asked;
    try {
      const r = await fetch(url, { headers: { accept: "text/html" } });
      if (!r.ok || mine !== asked) return;
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      const fresh = doc.getElementById("search-results");
      if (fresh && mine === asked) {
        results.replaceChildren(...fresh.childNodes);
        history.replaceState(null, "", url);
      }
    } catch (e) { /* offline: the form still submits */ }
  }
  const soon = () => { clearTimeout(timer); timer = setTimeout(refresh, 200); };
  box.addEventListener("input", soon);
  form.querySelector("select") && form.querySelector("select").addEventListener("change", soon);
})();
