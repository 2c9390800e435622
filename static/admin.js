// The admin panel's sprinkle of script; every form works without it.
// - An HTML setting's preview follows what is typed.
// - A number of seconds is read for people as it is typed ("= 2 h").
// - Times say how long ago (or from now) they are ("4 min ago", "in 25 s")
//   as time passes, as views.Rel says them; the exact time is their title
//   and shows on focus (style.css). A time to come that has passed says
//   its data-past ("due"). The clock is the tracker's: the page says when
//   it was made (data-server-now), so a computer's wrong clock misleads
//   no one.
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
  const stamp = document.querySelector("[data-server-now]");
  const served = stamp ? Date.parse(stamp.dataset.serverNow) : NaN;
  // Within 2 s the page's own clock is right: the stamp is in whole seconds.
  const skew = !isNaN(served) && Math.abs(served - Date.now()) > 2000 ? served - Date.now() : 0;
  const rel = (at, now) => {
    let d = now - at;
    const future = d < 0;
    d = Math.abs(d) / 1000;
    if (d < 1) return "just now";
    let s;
    if (d < 60) s = `${Math.floor(d)} s`;
    else if (d < 3600) s = `${Math.floor(d / 60)} min`;
    else if (d < 48 * 3600) s = `${Math.floor(d / 3600)} h`;
    else s = `${Math.floor(d / 86400)} d`;
    return future ? `in ${s}` : `${s} ago`;
  };
  const tick = () => {
    const now = Date.now() + skew;
    for (const el of document.querySelectorAll("time.rel[datetime]")) {
      const at = Date.parse(el.dateTime);
      if (isNaN(at)) continue;
      const s = el.dataset.past && at < now + 1000 ? el.dataset.past : rel(at, now);
      if (el.textContent !== s) el.textContent = s;
    }
  };
  tick();
  setInterval(tick, 1000);
})();
