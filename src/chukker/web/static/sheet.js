// the score sheet's Print button
"use strict";
document.getElementById("print").addEventListener("click", () => window.print());
