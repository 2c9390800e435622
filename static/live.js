// Live updates of a leaderboard page from the tracker's event stream.
// The page is whole without this script: it only keeps the numbers moving,
// says how fresh they are, and falls back to polling when the stream fails.
(() => {
  "use strict";
  const root = document.querySelector("[data-live-url]");
  if (!root) return;
  const freshness = root.querySelector("[data-testid=freshness]");
  const staleAfter = 5000;    // ms without a board before the page says so
  const pollAfter = 10000;    // ms of a broken stream before polling
  const retryStream = 30000;  // ms between new stream attempts while polling

  let lastBoard = Date.now();
  let source = null;
  let brokenSince = null;
  let pollTimer = null;

  // Formats, as the server renders them (views/format.go).
  const units = "KMGTPE";
  const int = (n) => Math.round(n).toLocaleString("en-US");
  const bytes = (n) => {
    if (n < 1024) return `${Math.round(n)} B`;
    let div = 1024, exp = 0;
    for (let m = n / 1024; m >= 1024; m /= 1024) { div *= 1024; exp++; }
    return `${(n / div).toFixed(1)} ${units[exp]}iB`;
  };
  const duration = (secs) => {
    let s = Math.floor(Math.abs(secs));
    if (s === 0) return "0 s";
    const parts = [];
    for (const [name, len] of [["d", 86400], ["h", 3600], ["min", 60], ["s", 1]]) {
      const n = Math.floor(s / len);
      if (n === 0) { if (parts.length) break; continue; }
      parts.push(`${n} ${name}`);
      s -= n * len;
      if (parts.length === 2) break;
    }
    return parts.join(" ");
  };
  const when = (iso) => {
    const d = new Date(iso);
    const p = (n) => String(n).padStart(2, "0");
    return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} UTC`;
  };
  const formats = {
    int, bytes,
    rate: (n) => n.toFixed(1),
    bytesrate: (n) => `${bytes(n)}/s`,
    pct: (n) => `${(n * 100).toFixed(1)}\u00a0%`, // never "27.8" and "%" on two lines
    duration,
    time: when,
    yesno: (b) => (b ? "yes" : "no"),
  };
  const lookup = (obj, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
  const ago = (iso) => {
    const ms = Date.now() - new Date(iso).getTime();
    return ms < 1000 ? "just now" : `${duration(ms / 1000)} ago`;
  };
  // setText writes a text only when it changed: a write of the same
  // text still replaces the node and lays the page out again, which every
  // update would pay for every number on the board.
  const setText = (el, value) => {
    if (el.textContent !== value) el.textContent = value;
  };
  // setChildren replaces an element's children only when they differ from
  // nodes, so an update that changed nothing there costs no layout.
  const setChildren = (el, nodes) => {
    const old = el.childNodes;
    if (old.length === nodes.length && nodes.every((n, i) => n.isEqualNode(old[i]))) return;
    el.replaceChildren(...nodes);
  };
  const text = (tag, value, cls) => {
    const el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  };
  const link = (href, value) => {
    const a = text("a", value);
    a.href = href;
    return a;
  };
  const slug = root.dataset.project;
  const downloaderURL = (nick) => `/${slug}/downloader/${encodeURIComponent(nick)}`;
  const nickLink = (nick, cls) => {
    const a = link(downloaderURL(nick), nick);
    a.title = nick; // the whole nick, when the page cuts it with an ellipsis
    if (cls) a.className = cls;
    return a;
  };

  function feedEntry(e) {
    const li = document.createElement("li");
    const time = text("time", ago(e.at));
    time.dateTime = e.at;
    li.append(time, " ", nickLink(e.downloader, "who"), " ", text("code", e.item));
    if (e.items > 1) li.append(" ", text("span", `and ${int(e.items - 1)} more`));
    li.append(" ", text("span", bytes(e.bytes), "bytes"));
    return li;
  }

  // The numbers of a leaderboard row, as views/leaderboard.templ renders
  // them: cells 2 to 6 (rank and nick stay while the order does).
  function fillLeader(tr, l) {
    const cells = tr.cells;
    if (tr.dataset.bytes !== String(l.bytes)) tr.dataset.bytes = String(l.bytes);
    setText(cells[0].lastChild, String(l.rank));
    setText(cells[2], int(l.items));
    setText(cells[3], bytes(l.bytes));
    setText(cells[4], formats.pct(l.share));
    const seen = [];
    if (l.last_seen && !l.last_seen.startsWith("0001")) {
      const time = text("time", ago(l.last_seen));
      time.dateTime = l.last_seen;
      seen.push(time);
    }
    setChildren(cells[5], seen);
    const version = [document.createTextNode(l.version || "")];
    if (l.outdated) version.push(document.createTextNode(" "), text("span", "outdated", "badge warn"));
    setChildren(cells[6], version);
  }

  function newLeader(l) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "leader";
    tr.dataset.nick = l.nick;
    const nick = document.createElement("td");
    nick.className = "nick";
    nick.append(nickLink(l.nick));
    tr.append(text("td", String(l.rank), "num rank"), nick, text("td", "", "num"), text("td", "", "num"),
      text("td", "", "num wide"), text("td", "", "wide nowrap"), text("td", "", "wide nowrap"));
    fillLeader(tr, l);
    return tr;
  }

  // renderLeaders keeps every row the page was served with (the board's
  // page holds more rows than the stream's head, stats.LeadersShown): the
  // head's rows come from the stream, the rows after it stay as served,
  // less those that rose into the head, plus those that fell out of it,
  // in their place by bytes, renumbered, as many as the page holds. The
  // rows are updated in place while the order stands, so a focused line
  // toggle keeps its focus; a new order rebuilds them.
  function renderLeaders(tbody, head) {
    const rows = [...tbody.rows];
    const size = Math.max(Number(tbody.dataset.liveLeaders) || 0, head.length);
    const inHead = new Set(head.map((l) => l.nick));
    const rest = rows.filter((tr) => !inHead.has(tr.dataset.nick)).map((tr) => ({ tr, bytes: Number(tr.dataset.bytes) || 0 }));
    rest.sort((a, b) => b.bytes - a.bytes || (a.tr.dataset.nick < b.tr.dataset.nick ? -1 : 1));
    const tail = rest.slice(0, Math.max(size - head.length, 0));
    const wanted = [...head.map((l) => l.nick), ...tail.map((x) => x.tr.dataset.nick)];
    if (rows.length === wanted.length && rows.every((tr, i) => tr.dataset.nick === wanted[i])) {
      rows.forEach((tr, i) => { if (i < head.length) fillLeader(tr, head[i]); else tr.cells[0].lastChild.textContent = String(i + 1); });
      return;
    }
    const focused = tbody.contains(document.activeElement) ? document.activeElement.dataset.toggleLine : undefined;
    tbody.replaceChildren(...head.map(newLeader), ...tail.map((x, i) => {
      x.tr.cells[0].lastChild.textContent = String(head.length + i + 1);
      return x.tr;
    }));
    decorateRows();
    if (focused !== undefined) {
      const b = [...tbody.querySelectorAll("button[data-toggle-line]")].find((x) => x.dataset.toggleLine === focused);
      if (b) b.focus();
    }
  }

  function render(board) {
    for (const el of root.querySelectorAll("[data-live]")) {
      const v = lookup(board, el.dataset.live);
      const f = formats[el.dataset.format] || String;
      setText(el, v == null ? "—" : f(v));
    }
    const t = board.totals;
    const pct = t.total > 0 ? (t.done * 100) / t.total : 0;
    for (const bar of root.querySelectorAll("[data-live-progress]")) {
      if (bar.style.width !== `${pct.toFixed(1)}%`) bar.style.width = `${pct.toFixed(1)}%`;
      if (bar.parentElement.getAttribute("aria-valuenow") !== pct.toFixed(1)) bar.parentElement.setAttribute("aria-valuenow", pct.toFixed(1));
    }
    // "Just done": the first entries in the list, the rest behind "Show more".
    const feed = root.querySelector("[data-live-feed]");
    if (feed) {
      const shown = Number(feed.dataset.shown) || 15;
      const entries = (board.feed || []).map(feedEntry);
      setChildren(feed, entries.slice(0, shown));
      const more = root.querySelector("[data-live-feed-more]");
      if (more) {
        setChildren(more, entries.slice(shown));
        const details = more.closest("details");
        if (details.hidden !== (entries.length <= shown)) details.hidden = entries.length <= shown;
        setText(details.querySelector("[data-live-feed-count]"), int(Math.max(entries.length - shown, 0)));
      }
      const empty = feed.parentElement.querySelector(".empty");
      if (empty && empty.hidden !== entries.length > 0) empty.hidden = entries.length > 0;
    }
    const leaders = root.querySelector("[data-live-leaders]");
    if (leaders) renderLeaders(leaders, board.leaders || []);
    chartsWanted(board);
  }

  // The charts (views/chart.templ) are drawn by the server: as completions
  // come, the page reads them again from GET /{project}/chart, no more
  // often than every chartEvery, once the rollup has folded the new ones
  // in (foldLag), and swaps them in.
  const chartsBox = root.querySelector("[data-charts-url]");
  const chartEvery = 5000;
  const foldLag = 3000;
  const chartsAt = () => {
    const c = chartsBox && chartsBox.querySelector(".charts");
    return c ? Date.parse(c.dataset.at) || 0 : 0;
  };
  let lastDone = null;
  let wantChartsAfter = 0; // the server's time the charts must be read after
  let wantLocal = 0;       // this browser's time to ask at the earliest
  let lastChartFetch = 0;
  let chartTimer = null;
  let chartFetching = false;
  let linesChanged = false; // a line hidden or shown while reading

  function chartsWanted(board) {
    const done = board.totals.done;
    if (lastDone !== null && done !== lastDone) {
      wantChartsAfter = Date.parse(board.at) + foldLag;
      wantLocal = Date.now() + foldLag;
    }
    lastDone = done;
    scheduleCharts();
  }

  function scheduleCharts() {
    if (!chartsBox || chartTimer || chartFetching || chartsAt() >= wantChartsAfter) return;
    const wait = Math.max(0, lastChartFetch + chartEvery - Date.now(), wantLocal - Date.now());
    chartTimer = setTimeout(refreshCharts, wait);
  }

  // The charts say they are being read again (aria-busy) from the moment
  // a reading starts until its charts are in.
  const chartsIdle = () => {
    if (!chartFetching && !heldCharts) chartsBox.removeAttribute("aria-busy");
  };

  async function refreshCharts() {
    chartTimer = null;
    chartFetching = true;
    chartsBox.setAttribute("aria-busy", "true");
    lastChartFetch = Date.now();
    try {
      // The hidden lines are left out of the y axis by the server.
      const url = new URL(chartsBox.dataset.chartsUrl, location.href);
      for (const nick of hiddenLines) if (lineColour.has(nick)) url.searchParams.append("hide", nick);
      const resp = await fetch(url, { cache: "no-cache" });
      if (resp.ok) {
        const fresh = new DOMParser().parseFromString(await resp.text(), "text/html").querySelector(".charts");
        if (fresh) swapCharts(fresh);
      }
    } catch (e) { /* the next board asks again */ }
    chartFetching = false;
    if (linesChanged) {
      linesChanged = false;
      refreshCharts();
      return;
    }
    chartsIdle();
    scheduleCharts();
  }

  // A chart read while a key is down waits for the key to come up: a
  // button takes Space on its release, and a legend swapped away between
  // the press and the release would lose the press.
  let keyDown = false;
  let heldCharts = null;
  document.addEventListener("keydown", () => { keyDown = true; });
  const keyUp = () => {
    keyDown = false;
    if (!heldCharts) return;
    const fresh = heldCharts;
    heldCharts = null;
    setTimeout(() => swapCharts(fresh)); // after the release's own click
  };
  document.addEventListener("keyup", keyUp);
  window.addEventListener("blur", keyUp); // a release the page never sees

  function swapCharts(fresh) {
    if (keyDown) {
      heldCharts = fresh;
      return;
    }
    queueMicrotask(() => chartsIdle()); // once its caller is done with it
    const old = chartsBox.querySelector(".charts");
    const focused = old && old.contains(document.activeElement) ? document.activeElement.dataset.toggleLine : undefined;
    const node = document.importNode(fresh, true);
    if (old) old.replaceWith(node); else chartsBox.append(node);
    setUpLines();
    if (focused !== undefined) {
      const b = [...node.querySelectorAll("button[data-toggle-line]")].find((x) => x.dataset.toggleLine === focused);
      if (b) b.focus();
    }
  }

  // The top downloaders' lines: each shows or hides from its legend entry,
  // or from its row in the leaderboard (a click anywhere on the row but
  // its link, or its swatch button from the keyboard). The hidden ones are
  // remembered for the page, so a reload keeps the chart as it was read.
  const linesKey = `tracker.hidden-lines:${location.pathname}`;
  const hiddenLines = new Set();
  try {
    for (const nick of JSON.parse(localStorage.getItem(linesKey) || "[]")) hiddenLines.add(String(nick));
  } catch (e) { /* storage off or unreadable: every line shows */ }
  let lineColour = new Map(); // nick → l0..l9

  function setUpLines() {
    lineColour = new Map();
    const hint = root.querySelector("[data-lines-hint]");
    if (hint) hint.hidden = !root.querySelector("li[data-line-nick]");
    for (const li of root.querySelectorAll("li[data-line-nick]")) {
      const nick = li.dataset.lineNick;
      lineColour.set(nick, [...li.classList].find((c) => /^l\d$/.test(c)) || "l0");
      if (!li.querySelector("button")) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.toggleLine = nick;
        b.append(...li.childNodes);
        li.append(b);
      }
    }
    decorateRows();
  }

  function decorateRows() {
    for (const tr of root.querySelectorAll("table.leaders tbody tr[data-nick]")) {
      const nick = tr.dataset.nick;
      const colour = lineColour.get(nick);
      let b = tr.querySelector("button.line-toggle");
      if (b && (!colour || !b.classList.contains(colour))) { b.remove(); b = null; }
      tr.classList.toggle("has-line", !!colour);
      if (!colour || b) continue;
      b = document.createElement("button");
      b.type = "button";
      b.className = `line-toggle ${colour}`;
      b.dataset.toggleLine = nick;
      b.setAttribute("aria-label", `${nick}'s line on the chart`);
      b.append(text("span", "", "swatch"));
      tr.cells[0].prepend(b);
    }
    applyLines();
  }

  function applyLines() {
    for (const path of root.querySelectorAll("path[data-line]")) {
      path.classList.toggle("off", hiddenLines.has(path.dataset.line));
    }
    for (const b of root.querySelectorAll("button[data-toggle-line]")) {
      b.setAttribute("aria-pressed", String(!hiddenLines.has(b.dataset.toggleLine)));
    }
  }

  function toggleLine(nick) {
    if (hiddenLines.has(nick)) hiddenLines.delete(nick); else hiddenLines.add(nick);
    try {
      if (hiddenLines.size) localStorage.setItem(linesKey, JSON.stringify([...hiddenLines]));
      else localStorage.removeItem(linesKey);
    } catch (e) { /* not remembered */ }
    applyLines();
    // The y axis fits the lines shown: read the charts again now (or
    // once the reading under way is done).
    if (chartsBox && chartFetching) linesChanged = true;
    else if (chartsBox) {
      clearTimeout(chartTimer);
      refreshCharts();
    }
  }

  root.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-toggle-line]");
    if (b) { toggleLine(b.dataset.toggleLine); return; }
    const tr = ev.target.closest("table.leaders tr.has-line");
    if (tr && !ev.target.closest("a, button")) toggleLine(tr.dataset.nick);
  });

  let updates = 0;
  function received(board) {
    lastBoard = Date.now();
    brokenSince = null;
    render(board);
    // How many boards the page took in: for tests and the curious.
    root.dataset.updates = String(++updates);
    tick();
  }

  function tick() {
    const age = Date.now() - lastBoard;
    if (age > staleAfter) {
      freshness.classList.add("stale");
      freshness.textContent = `Stale: no update for ${duration(age / 1000)} — reconnecting…`;
    } else {
      freshness.classList.remove("stale");
      setText(freshness, age < 1000 ? "Updated just now." : `Updated ${duration(age / 1000)} ago.`);
    }
    if (brokenSince && Date.now() - brokenSince > pollAfter && !pollTimer) startPolling();
  }

  // The stream sends the whole board first, then patches: each names the
  // board it applies to ("from") and leads to the next ("id"); see
  // docs/PROTOCOL.md. A patch that does not apply to the board kept here
  // means a board was lost: a new stream starts with a whole one.
  let board = null;
  let boardId = null;
  let feedSkipped = 0;

  // patchValue applies a merge patch (RFC 7386), arrays sent as their
  // length and the elements that changed, each patched in turn.
  function patchValue(old, p) {
    if (p === null || typeof p !== "object" || Array.isArray(p)) return p;
    if ("$len" in p) {
      const out = Array.isArray(old) ? old.slice(0, p.$len) : [];
      while (out.length < p.$len) out.push(null);
      for (const [i, v] of p.$set) out[i] = patchValue(out[i], v);
      return out;
    }
    const out = old !== null && typeof old === "object" && !Array.isArray(old) ? { ...old } : {};
    for (const [k, v] of Object.entries(p)) {
      if (v === null) delete out[k]; else out[k] = patchValue(out[k], v);
    }
    return out;
  }

  function applyPatch(b, p) {
    const next = p.board ? patchValue(b, p.board) : { ...b };
    if (p.feed) {
      next.feed = [...p.feed.new, ...(b.feed || [])].slice(0, feedKept);
      feedSkipped += p.feed.skipped;
    }
    // Shares are left out of patches: a leader's bytes over the board's.
    const total = next.totals ? next.totals.bytes : 0;
    next.leaders = (next.leaders || []).map((l) => ({ ...l, share: total > 0 ? l.bytes / total : 0 }));
    return next;
  }
  const feedKept = 50; // stats.FeedKept

  function showSkipped() {
    const note = root.querySelector("[data-live-feed-skipped]");
    if (!note) return;
    note.hidden = feedSkipped === 0;
    note.querySelector("span").textContent = int(feedSkipped);
  }

  function connect() {
    if (source) source.close();
    board = boardId = null;
    source = new EventSource(root.dataset.liveUrl);
    source.addEventListener("board", (ev) => {
      try {
        board = JSON.parse(ev.data);
        boardId = ev.lastEventId;
        received(board);
      } catch (e) { /* a torn event: the next one comes in a second */ }
      if (pollTimer) stopPolling();
    });
    source.addEventListener("patch", (ev) => {
      let p;
      try { p = JSON.parse(ev.data); } catch (e) { connect(); return; }
      if (!board || p.from !== boardId) { connect(); return; }
      board = applyPatch(board, p);
      boardId = p.id;
      received(board);
      showSkipped();
      if (pollTimer) stopPolling();
    });
    // EventSource reconnects by itself (resending Last-Event-ID); a stream
    // that stays broken is replaced by polling.
    source.addEventListener("error", () => { if (!brokenSince) brokenSince = Date.now(); });
    source.addEventListener("open", () => { brokenSince = null; });
  }

  async function poll() {
    try {
      const resp = await fetch(root.dataset.statsUrl, { cache: "no-store" });
      if (resp.ok) received(await resp.json());
    } catch (e) { /* still down: the freshness line says so */ }
  }

  function startPolling() {
    if (source) { source.close(); source = null; }
    poll();
    pollTimer = setInterval(poll, 2000);
    setTimeout(function retry() {
      if (!pollTimer) return;
      connect();
      setTimeout(retry, retryStream);
    }, retryStream);
  }

  function stopPolling() {
    clearInterval(pollTimer);
    pollTimer = null;
  }

  setUpLines();
  connect();
  setInterval(tick, 1000);
})();
