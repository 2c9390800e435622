// The queue browser's sprinkle of script; its forms work without it.
// - The box in the table's head ticks every item of the page, or none.
// - Shift-click ticks the items between the last one clicked and this one.
// - The count of items ticked shows beside the actions, which wait for
//   one.
(function () {
  "use strict";
  const form = document.querySelector("form.browse-form");
  if (!form) return;
  const all = form.querySelector("[data-pick-all]");
  const boxes = Array.from(form.querySelectorAll('input[type=checkbox][name="name"]'));
  const picked = form.querySelector("[data-picked]");
  const buttons = form.querySelectorAll(".browse-actions button");
  const update = () => {
    const n = boxes.filter((b) => b.checked).length;
    if (picked) picked.textContent = n + " selected";
    if (all) {
      all.checked = n > 0 && n === boxes.length;
      all.indeterminate = n > 0 && n < boxes.length;
    }
    for (const b of buttons) b.disabled = n === 0;
  };
  if (all) {
    all.addEventListener("change", () => {
      for (const b of boxes) b.checked = all.checked;
      update();
    });
  }
  let last = null;
  boxes.forEach((box, i) => {
    box.addEventListener("click", (e) => {
      if (e.shiftKey && last !== null && last !== i) {
        const [from, to] = last < i ? [last, i] : [i, last];
        for (let j = from; j <= to; j++) boxes[j].checked = box.checked;
      }
      last = i;
      update();
    });
  });
  update();
})();
