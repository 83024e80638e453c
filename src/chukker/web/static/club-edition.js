// The new-match form's club edition (issue 33): shown only for "Club rules"; a saved
// edition file is loaded into the box (at most 16 KiB, read here, never uploaded on its
// own), and this browser keeps the last edition used for the next match.
(function () {
  "use strict";
  const KEY = "chukker.club_edition";
  const MAX = 16384;
  const form = document.querySelector("form");
  const rules = document.querySelector('select[name="rules"]');
  const box = document.querySelector("[data-club-edition]");
  if (!form || !rules || !box) return;
  const text = box.querySelector("textarea");
  const file = box.querySelector("[data-club-file]");
  function show() { box.hidden = rules.value !== "club"; }
  rules.addEventListener("change", show);
  show();
  try {
    if (!text.value) text.value = localStorage.getItem(KEY) || "";
  } catch (e) { /* storage refused: the box starts empty */ }
  if (file) {
    file.addEventListener("change", function () {
      const f = file.files && file.files[0];
      if (!f) return;
      if (f.size > MAX) { file.value = ""; file.setCustomValidity(box.dataset.tooBig || "too big"); file.reportValidity(); return; }
      file.setCustomValidity("");
      f.text().then(function (t) { text.value = t.slice(0, MAX); });
    });
  }
  form.addEventListener("submit", function () {
    if (rules.value !== "club") return;
    try { localStorage.setItem(KEY, text.value.slice(0, MAX)); } catch (e) { /* not kept */ }
  });
})();
