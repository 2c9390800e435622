// Hover values on the charts the server draws (views/chart.templ): a rate
// chart's drawing carries its buckets' counts (data-counts), from
// data-start by data-bucket seconds to data-end; under the pointer the
// line below the chart says the bucket and its count. The charts read
// whole without this script.
(() => {
  "use strict";
  const units = "KMGTPE";
  const bytes = (n) => {
    if (n < 1024) return `${Math.round(n)} B`;
    let div = 1024, exp = 0;
    for (let m = n / 1024; m >= 1024; m /= 1024) { div *= 1024; exp++; }
    return `${(n / div).toFixed(1)} ${units[exp]}iB`;
  };
  const when = (ms) => {
    const d = new Date(ms);
    const p = (n) => String(n).padStart(2, "0");
    return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} UTC`;
  };

  function show(svg, clientX) {
    const figure = svg.closest("figure");
    const out = figure && figure.querySelector(".chart-hover");
    if (!out) return;
    const counts = svg.dataset.counts.split(" ").map(Number);
    const start = Date.parse(svg.dataset.start), end = Date.parse(svg.dataset.end);
    const bucket = Number(svg.dataset.bucket) * 1000;
    const box = svg.getBoundingClientRect();
    const at = start + ((clientX - box.left) / box.width) * (end - start);
    const i = Math.min(counts.length - 1, Math.max(0, Math.floor((at - start) / bucket)));
    const from = start + i * bucket;
    const n = counts[i];
    const value = svg.dataset.measure === "bytes" ? bytes(n) : `${n.toLocaleString("en-US")} ${n === 1 ? "item" : "items"}`;
    out.textContent = `${when(from)}: ${value}${i === counts.length - 1 ? " so far" : ""}`;
    out.hidden = false;
  }

  document.addEventListener("pointermove", (ev) => {
    const svg = ev.target.closest && ev.target.closest("svg[data-counts]");
    if (svg) show(svg, ev.clientX);
  });
  document.addEventListener("pointerleave", (ev) => {
    const svg = ev.target.closest && ev.target.closest("svg[data-counts]");
    if (svg) svg.closest("figure").querySelector(".chart-hover").hidden = true;
  }, true);
})();
