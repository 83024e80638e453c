// chukker plays: play, pause and scrub an inline SMIL diagram.
(function () {
  "use strict";
  function setup(root) {
    var svg = root.querySelector("svg");
    var btn = root.querySelector("button.play");
    var slider = root.querySelector("input.scrub");
    var out = root.querySelector("output.time");
    if (!svg || !btn || !slider) { return; }
    var dur = parseFloat(svg.getAttribute("data-duration")) || 1;
    var playing = true;
    function label() {
      btn.textContent = playing ? btn.getAttribute("data-pause") : btn.getAttribute("data-play");
      btn.setAttribute("aria-pressed", playing ? "false" : "true");
      root.setAttribute("data-state", playing ? "playing" : "paused");
    }
    function show(t) {
      slider.value = t.toFixed(2);
      if (out) { out.textContent = t.toFixed(2) + " s"; }
    }
    function tick() {
      if (playing) { show(svg.getCurrentTime() % dur); }
      window.requestAnimationFrame(tick);
    }
    btn.addEventListener("click", function () {
      if (playing) { svg.pauseAnimations(); } else { svg.unpauseAnimations(); }
      playing = !playing;
      label();
    });
    slider.addEventListener("input", function () {
      var t = parseFloat(slider.value);
      svg.pauseAnimations();
      playing = false;
      svg.setCurrentTime(t);
      show(t);
      label();
    });
    label();
    window.requestAnimationFrame(tick);
  }
  document.querySelectorAll("[data-play]").forEach(setup);
})();
