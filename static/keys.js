// Keyboard shortcuts, on every page; each page works without them.
// - "/" goes to the page's search box: the first field of its search form
//   (role="search": an item lookup, the audit log's filter).
// - "?" shows the list of shortcuts (the page's #shortcuts dialog).
// - Esc closes the list (the dialog does so itself), or leaves the search
//   box.
// Keys typed into a field are the field's: no shortcut takes them.
(function () {
  "use strict";
  const typing = (el) =>
    el instanceof HTMLElement &&
    (el.isContentEditable || el.matches("input, textarea, select"));
  const searchBox = () =>
    document.querySelector(
      'form[role="search"] input:not([type="hidden"]):not([type="submit"]):not([disabled]), input[type="search"]'
    );
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const list = document.getElementById("shortcuts");
    if (e.key === "Escape") {
      const box = searchBox();
      if (box && document.activeElement === box) box.blur();
      return;
    }
    if (typing(e.target) || (list && list.open)) return;
    if (e.key === "/") {
      const box = searchBox();
      if (!box) return;
      e.preventDefault(); // not typed into the box
      box.focus();
      box.select();
    } else if (e.key === "?") {
      if (!list || typeof list.showModal !== "function") return;
      e.preventDefault();
      list.showModal();
    }
  });
})();
