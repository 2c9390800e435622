// The admin panel's sprinkle of script; every form works without it.
// - An HTML setting's preview follows what is typed.
// - A number of seconds is read for people as it is typed ("= 2 h").
(function () {
  "use strict";
  for (const area of document.querySelectorAll("textarea[data-preview]")) {
    const preview = document.getElementById(area.dataset.preview);
    if (!preview) continue;
    // Only global admins set these keys: the HTML is trusted, as on the
    // warriors' own pages.
    area.addEventListener("input", () => { preview.innerHTML = area.value; });
  }
  const units = [["d", 86400], ["h", 3600], ["min", 60], ["s", 1]];
  const readable = (n) => {
    if (!(n > 0)) return "";
    const parts = [];
    for (const [name, size] of units) {
      if (n >= size && parts.length < 2) {
        parts.push(Math.floor(n / size) + " " + name);
        n %= size;
      }
    }
    return "= " + parts.join(" ");
  };
  for (const hint of document.querySelectorAll("[data-seconds-for]")) {
    const input = document.getElementById(hint.dataset.secondsFor);
    if (!input) continue;
    input.addEventListener("input", () => { hint.textContent = readable(Number(input.value)); });
  }
})();
