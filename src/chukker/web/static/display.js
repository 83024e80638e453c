// the big screen's sound switch (a page may play sound only after a click)
"use strict";
document.getElementById("sound").addEventListener("click", (e) => {
  window.chukker.enableSound();
  e.currentTarget.hidden = true;
});
