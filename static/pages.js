// Public pages that keep themselves fresh: home, the warriors page, a
// downloader's page. The page is whole without this script; with it, the
// parts marked data-live-region are read again (the page's address with
// live=1) every 15 seconds while the tab is shown, and each part that
// changed is swapped in. The board has its own stream (live.js).
(() => {
  "use strict";
  const regions = () => document.querySelectorAll("[data-live-region]");
  if (!regions().length || !window.fetch || !window.DOMParser) return;
  const every = 15000;
  let refreshes = 0;
  let timer = null;

  async function refresh() {
    timer = null;
    if (document.hidden) return; // shown again, it starts again
    try {
      const url = new URL(location.href);
      url.hash = "";
      url.searchParams.set("live", "1");
      const resp = await fetch(url, { cache: "no-store", headers: { Accept: "text/html" } });
      if (resp.ok) {
        const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
        for (const fresh of doc.querySelectorAll("[data-live-region]")) {
          const here = document.querySelector(`[data-live-region="${CSS.escape(fresh.dataset.liveRegion)}"]`);
          // A region holding the focus waits: its focus would be lost.
          if (here && here.innerHTML !== fresh.innerHTML && !here.contains(document.activeElement)) {
            here.replaceWith(document.importNode(fresh, true));
          }
        }
        // How many reads the page took in: for tests and the curious.
        document.documentElement.dataset.refreshes = String(++refreshes);
      }
    } catch (e) { /* the next read tries again */ }
    schedule();
  }

  function schedule() {
    if (!timer) timer = setTimeout(refresh, every);
  }

  document.addEventListener("visibilitychange", () => { if (!document.hidden) schedule(); });
  schedule();
})();
