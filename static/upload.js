// The Add items form of the admin panel, sent with progress: a file of
// hundreds of thousands of lines takes tens of seconds to arrive, and the
// tracker queues its lines as they arrive. While it goes the button is
// disabled and the form says how many bytes and lines are sent; then the
// page the tracker answers with (its report, and a warning for the lines it
// refused) replaces this one, the final count kept beside the form.
// Without this script the form posts as any form does.
(function () {
  "use strict";
  if (window.trackerUpload) return; // the page replaced runs its scripts again
  window.trackerUpload = true;
  const count = new Intl.NumberFormat("en-US");
  const bytes = (n) => {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return i === 0 ? count.format(n) + " B" : n.toFixed(1) + " " + units[i];
  };
  const lines = (text) => text.split("\n").filter((l) => l.trim() !== "").length;
  // newlinesOf is where each line of a file ends, to count the lines in
  // the bytes sent so far.
  const newlinesOf = async (file) => {
    const b = new Uint8Array(await file.arrayBuffer());
    const at = [];
    let start = 0; // an empty line is no item: not counted
    for (let i = 0; i < b.length; i++) {
      if (b[i] !== 10) continue;
      if (i > start) at.push(i);
      start = i + 1;
    }
    if (b.length > start) at.push(b.length - 1);
    return at;
  };
  const before = (sorted, x) => { // how many of sorted are < x
    let lo = 0, hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  };
  // show replaces the page with the tracker's answer, running its scripts.
  const show = (xhr, done) => {
    const doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
    document.title = doc.title;
    document.body.replaceWith(document.adoptNode(doc.body));
    for (const old of document.body.querySelectorAll("script")) {
      const s = document.createElement("script");
      for (const a of old.attributes) s.setAttribute(a.name, a.value);
      s.textContent = old.textContent;
      old.replaceWith(s);
    }
    if (xhr.responseURL) history.replaceState(null, "", xhr.responseURL);
    const box = document.querySelector("[data-upload-progress]");
    if (box) {
      box.hidden = false;
      box.querySelector("progress").value = 1;
      box.querySelector("[data-upload-status]").textContent = done;
    }
  };
  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.matches("form[data-upload]")) return;
    e.preventDefault();
    const button = form.querySelector("button[type=submit]");
    const box = form.querySelector("[data-upload-progress]");
    const bar = box.querySelector("progress"), status = box.querySelector("[data-upload-status]");
    const input = form.querySelector("input[type=file]");
    const file = input && input.files[0];
    const pasted = lines(form.querySelector("textarea").value);
    const body = new FormData(form);
    button.disabled = true;
    box.hidden = false;
    status.textContent = "Counting the lines…";
    let ends = [], fileLines = 0, sent = 0, total = 0;
    const say = () => {
      // The file is the form's last part: the bytes sent past the parts
      // before it are its own.
      let n = pasted;
      if (file && total > 0) {
        const inFile = sent - (total - file.size);
        n += before(ends, inFile);
      }
      const all = pasted + fileLines;
      status.textContent = bytes(sent) + " of " + bytes(total) + " sent, " + count.format(n) + " of " +
        count.format(all) + " lines queued as they arrive";
    };
    const xhr = new XMLHttpRequest();
    xhr.upload.addEventListener("progress", (p) => {
      if (!p.lengthComputable) return;
      sent = p.loaded; total = p.total;
      bar.max = total; bar.value = sent;
      say();
    });
    xhr.upload.addEventListener("load", () => {
      sent = total; say();
      status.textContent += "; the tracker is queuing the last of them…";
    });
    xhr.addEventListener("load", () => {
      show(xhr, "Sent " + bytes(total) + ": " + count.format(pasted + fileLines) + " lines.");
    });
    xhr.addEventListener("error", () => {
      button.disabled = false;
      status.textContent = "The upload failed after " + bytes(sent) + " (the connection was lost); the lines that arrived were queued. Send the file again: lines seen before are skipped.";
    });
    // The lines are counted before the first byte goes: every count shown
    // is then out of the whole.
    (file ? newlinesOf(file) : Promise.resolve([])).then((at) => {
      ends = at; fileLines = at.length;
      xhr.open("POST", form.action);
      xhr.send(body);
    });
  });
})();
