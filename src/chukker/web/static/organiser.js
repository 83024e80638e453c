// The new-match form: the organiser's token is asked for once and kept in this browser.
"use strict";
(function () {
  const field = document.getElementById("organiser-token");
  if (!field) return;
  const KEY = "chukker.organiser_token";
  try {
    const kept = window.localStorage.getItem(KEY);
    if (kept && !field.value) field.value = kept;
    field.form.addEventListener("submit", () => {
      if (field.value) window.localStorage.setItem(KEY, field.value);
    });
  } catch (e) { /* storage disabled: the field is asked for each time */ }
})();
