package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"tracker/views"
)

// adminQueueMove is POST /admin/projects/{slug}/queues/move: the items of
// queue "from" whose names start with "prefix" and match "pattern" (a
// PostgreSQL regular expression; both optional) go to queue "to", once the
// admin confirmed how many.
func (h *Handler) adminQueueMove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	from, to := strings.TrimSpace(r.PostForm.Get("from")), strings.TrimSpace(r.PostForm.Get("to"))
	sel := selection(r.PostForm)
	if to == "" || from == to {
		return h.renderQueues(w, r, p, refused("same-queue", "Choose two different queues."))
	}
	if !confirmed(r) {
		n, err := h.adm.items.CountQueued(r.Context(), p, from, sel)
		if st, ok := invalid(err); ok {
			return h.renderQueues(w, r, p, st)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return h.renderQueues(w, r, p, refused("no-match", "No item of "+from+" matches: nothing to move."))
		}
		return h.askConfirmation(w, r, p, "queues",
			fmt.Sprintf("This moves %s items %sfrom %s to %s.", views.FormatInt(n), describeSelection(sel), from, to),
			"Move "+views.FormatInt(n)+" items", "")
	}
	n, err := h.items.MoveQueue(r.Context(), p, from, to, sel)
	if st, ok := invalid(err); ok {
		return h.renderQueues(w, r, p, st)
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, p, "queues", fmt.Sprintf("Moved %d items from %s to %s.", n, from, to))
}
