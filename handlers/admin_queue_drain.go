package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"tracker/views"
)

// adminQueueDrain is POST /admin/projects/{slug}/queues/drain: the
// selected items of queue "from" are dropped for good (they stay seen),
// once the admin saw how many and typed the queue's name.
func (h *Handler) adminQueueDrain(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	from, sel := strings.TrimSpace(r.PostForm.Get("from")), selection(r.PostForm)
	if !confirmed(r) || r.PostForm.Get("confirm") != from {
		n, err := h.adm.items.CountQueued(r.Context(), p, from, sel)
		if st, ok := invalid(err); ok {
			return h.renderDanger(w, r, p, st)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return h.renderDanger(w, r, p, refused("no-match", "No item of "+from+" matches: nothing to drain."))
		}
		return h.askDestructive(w, r, p, "danger", confirmation{
			question: fmt.Sprintf("This drops %s items %sfrom %s for good.", views.FormatInt(n), describeSelection(sel), from),
			button:   "Drop " + views.FormatInt(n) + " items", typed: from})
	}
	n, err := h.items.MoveQueue(r.Context(), p, from, "", sel)
	if st, ok := invalid(err); ok {
		return h.renderDanger(w, r, p, st)
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, p, "danger", fmt.Sprintf("Drained %d items from %s.", n, from))
}
