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
    pct: (n) => `${(n * 100).toFixed(1)} %`,
    duration,
    time: when,
    yesno: (b) => (b ? "yes" : "no"),
  };
  const lookup = (obj, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
  const ago = (iso) => {
    const ms = Date.now() - new Date(iso).getTime();
    return ms < 1000 ? "just now" : `${duration(ms / 1000)} ago`;
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

  function render(board) {
    for (const el of root.querySelectorAll("[data-live]")) {
      const v = lookup(board, el.dataset.live);
      const f = formats[el.dataset.format] || String;
      el.textContent = v == null ? "—" : f(v);
    }
    const t = board.totals;
    const pct = t.total > 0 ? (t.done * 100) / t.total : 0;
    for (const bar of root.querySelectorAll("[data-live-progress]")) {
      bar.style.width = `${pct.toFixed(1)}%`;
      bar.parentElement.setAttribute("aria-valuenow", pct.toFixed(1));
    }
    const feed = root.querySelector("[data-live-feed]");
    if (feed) {
      feed.replaceChildren(...(board.feed || []).map((e) => {
        const li = document.createElement("li");
        const time = text("time", ago(e.at));
        time.dateTime = e.at;
        li.append(time, " ", link(downloaderURL(e.downloader), e.downloader), " ", text("code", e.item));
        if (e.items > 1) li.append(" ", text("span", `and ${int(e.items - 1)} more`));
        li.append(" ", text("span", bytes(e.bytes), "bytes"));
        return li;
      }));
    }
    const leaders = root.querySelector("[data-live-leaders]");
    if (leaders) {
      leaders.replaceChildren(...(board.leaders || []).map((l) => {
        const tr = document.createElement("tr");
        tr.dataset.testid = "leader";
        const nick = document.createElement("td");
        nick.className = "nick";
        nick.append(link(downloaderURL(l.nick), l.nick));
        const seen = document.createElement("td");
        if (l.last_seen && !l.last_seen.startsWith("0001")) {
          const time = text("time", ago(l.last_seen));
          time.dateTime = l.last_seen;
          seen.append(time);
        }
        const version = text("td", l.version);
        if (l.outdated) version.append(" ", text("span", "outdated", "badge warn"));
        tr.append(text("td", String(l.rank), "num"), nick, text("td", int(l.items), "num"),
          text("td", bytes(l.bytes), "num"), text("td", formats.pct(l.share), "num"), seen, version);
        return tr;
      }));
    }
  }

  function received(board) {
    lastBoard = Date.now();
    brokenSince = null;
    render(board);
    tick();
  }

  function tick() {
    const age = Date.now() - lastBoard;
    if (age > staleAfter) {
      freshness.classList.add("stale");
      freshness.textContent = `Stale: no update for ${duration(age / 1000)} — reconnecting…`;
    } else {
      freshness.classList.remove("stale");
      freshness.textContent = age < 1000 ? "Updated just now." : `Updated ${duration(age / 1000)} ago.`;
    }
    if (brokenSince && Date.now() - brokenSince > pollAfter && !pollTimer) startPolling();
  }

  function connect() {
    if (source) source.close();
    source = new EventSource(root.dataset.liveUrl);
    source.addEventListener("board", (ev) => {
      try { received(JSON.parse(ev.data)); } catch (e) { /* a torn event: the next one comes in a second */ }
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

  connect();
  setInterval(tick, 1000);
})();
