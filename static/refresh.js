// An admin page that refreshes itself: the project overview, the claims,
// the jobs. The page is whole without this script; with it, the parts
// marked data-live-region are read again (the page's address with live=1,
// which renders those parts alone) every few seconds and merged into the
// page in place, so what has the focus keeps it, the page does not move,
// and what was typed or ticked stays.
// - The rate (2 s, 10 s, 60 s, off) is remembered in localStorage; Pause
//   stops the refreshing until pressed again.
// - The cost of a page is bounded: one read at a time, the next one the
//   rate after the last answer, none while the tab is hidden, and none
//   after 30 minutes without a key or a click (the page says so).
// - A changed number is highlighted briefly, unless the reader prefers
//   reduced motion.
(function () {
  "use strict";
  const controls = document.querySelector("[data-live-controls]");
  if (!controls || !window.fetch || !window.DOMParser) return;
  const pause = controls.querySelector("[data-live-pause]");
  const rateBox = controls.querySelector("[data-live-rate]");
  const status = controls.querySelector("[data-live-status]");
  const storeKey = "tracker.admin.refresh";
  const idleLimit = 30 * 60 * 1000;
  const rates = ["2", "10", "60", "0"];
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

  let stored = null;
  try { stored = localStorage.getItem(storeKey); } catch (e) { /* storage off: the default */ }
  if (rates.includes(stored)) rateBox.value = stored;
  controls.hidden = false;

  let paused = false;
  let timer = null;
  let inFlight = false;
  let lastRead = Date.now();
  let lastActive = Date.now();
  let trouble = "";
  let refreshes = 0;
  let aborter = null;

  const seconds = () => Number(rateBox.value);
  const running = () => !paused && seconds() > 0;

  const say = () => {
    let s;
    if (paused) s = "Paused.";
    else if (seconds() === 0) s = "Not refreshing.";
    else if (Date.now() - lastActive > idleLimit) s = "Stopped after 30 minutes without activity: press a key or click to go on.";
    else if (trouble) s = trouble;
    else {
      const age = Math.floor((Date.now() - lastRead) / 1000);
      s = age < 1 ? "Updated just now." : `Updated ${age} s ago.`;
    }
    if (status.textContent !== s) status.textContent = s;
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = null;
    if (!running() || inFlight) return;
    const wait = Math.max(0, lastRead + seconds() * 1000 - Date.now());
    timer = setTimeout(refresh, wait);
  };

  async function refresh() {
    timer = null;
    if (!running() || document.hidden || Date.now() - lastActive > idleLimit) {
      say();
      return; // visibility or activity starts it again
    }
    inFlight = true;
    aborter = new AbortController();
    try {
      const url = new URL(location.href);
      url.hash = "";
      url.searchParams.set("live", "1");
      const resp = await fetch(url, { cache: "no-store", credentials: "same-origin", headers: { Accept: "text/html" }, signal: aborter.signal });
      if (resp.redirected || !resp.ok) {
        trouble = resp.redirected || resp.status === 401
          ? "Signed out: reload the page to sign in again."
          : `Refreshing failed (${resp.status}); trying again.`;
      } else {
        const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
        trouble = "";
        if (!paused) {
          apply(doc);
          // How many refreshes the page took in: for tests and the curious.
          controls.dataset.refreshes = String(++refreshes);
        }
      }
    } catch (e) {
      // Paused mid-read: the read is dropped, nothing is wrong.
      if (e.name !== "AbortError") trouble = "The tracker does not answer; trying again.";
    }
    inFlight = false;
    aborter = null;
    lastRead = Date.now();
    say();
    if (!trouble.startsWith("Signed out")) schedule();
  }

  // apply merges each live region of the fresh copy into the page's.
  function apply(doc) {
    const focused = document.activeElement;
    for (const fresh of doc.querySelectorAll("[data-live-region]")) {
      const here = document.querySelector(`[data-live-region="${CSS.escape(fresh.dataset.liveRegion)}"]`);
      if (here) morph(here, fresh);
    }
    // An element moved within the page (a row whose place changed) loses
    // the focus: give it back.
    if (focused && focused !== document.activeElement && focused.isConnected) focused.focus({ preventScroll: true });
  }

  const key = (n) => (n.nodeType === 1 && n.hasAttribute("data-key") ? n.getAttribute("data-key") : null);
  const same = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName && key(a) === key(b);

  // morph makes el look like fresh, keeping the elements both have (by
  // data-key where rows carry one, else by place), so focus, selection,
  // typed values and ticked boxes stay.
  function morph(el, fresh) {
    if (el.nodeType === 3 || el.nodeType === 8) {
      if (el.nodeValue !== fresh.nodeValue) {
        el.nodeValue = fresh.nodeValue;
        if (el.parentElement) changed(el.parentElement);
      }
      return;
    }
    for (const a of Array.from(el.attributes)) {
      // details' open is the reader's; a control's value and checked
      // attributes are only its defaults once it was touched.
      if (!fresh.hasAttribute(a.name) && a.name !== "open") el.removeAttribute(a.name);
    }
    for (const a of Array.from(fresh.attributes)) {
      if (a.name !== "open" && el.getAttribute(a.name) !== a.value) el.setAttribute(a.name, a.value);
    }
    const olds = Array.from(el.childNodes);
    const byKey = new Map();
    for (const o of olds) if (key(o) !== null) byKey.set(key(o), o);
    const used = new Set();
    let next = 0;
    const kept = [];
    for (const f of Array.from(fresh.childNodes)) {
      let match = null;
      if (key(f) !== null) {
        const o = byKey.get(key(f));
        if (o && !used.has(o) && same(o, f)) match = o;
      } else {
        while (next < olds.length && (used.has(olds[next]) || key(olds[next]) !== null)) next++;
        if (next < olds.length && same(olds[next], f)) match = olds[next++];
      }
      if (match) {
        used.add(match);
        morph(match, f);
        kept.push(match);
      } else {
        const node = document.importNode(f, true);
        if (node.nodeType === 1) changed(node);
        kept.push(node);
      }
    }
    kept.forEach((node, i) => {
      if (el.childNodes[i] !== node) el.insertBefore(node, el.childNodes[i] || null);
    });
    while (el.childNodes.length > kept.length) el.removeChild(el.lastChild);
  }

  // changed highlights a number that changed, for a moment.
  function changed(el) {
    if (reduced.matches) return;
    const target = el.closest(".num");
    if (!target) return;
    target.classList.remove("live-changed");
    void target.offsetWidth; // starts the animation again
    target.classList.add("live-changed");
    target.addEventListener("animationend", () => target.classList.remove("live-changed"), { once: true });
  }

  pause.addEventListener("click", () => {
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    if (paused) {
      clearTimeout(timer);
      timer = null;
      if (aborter) aborter.abort();
    } else {
      lastRead = 0; // at once
      schedule();
    }
    say();
  });
  rateBox.addEventListener("change", () => {
    try { localStorage.setItem(storeKey, rateBox.value); } catch (e) { /* not remembered */ }
    schedule();
    say();
  });
  document.addEventListener("visibilitychange", () => { if (!document.hidden) schedule(); });
  for (const type of ["keydown", "pointerdown"]) {
    document.addEventListener(type, () => {
      const wasIdle = Date.now() - lastActive > idleLimit;
      lastActive = Date.now();
      if (wasIdle) schedule();
    }, true);
  }
  setInterval(say, 1000);
  say();
  schedule();
})();
