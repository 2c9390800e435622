package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"

	"tracker/views"
)

// adminDoneRequeue is POST /admin/projects/{slug}/done/requeue: completed
// items whose names start with "prefix" and match "pattern" are queued
// again in "queue", once the admin confirmed how many.
func (h *Handler) adminDoneRequeue(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	queue, sel := cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "redo"), selection(r.PostForm)
	if !confirmed(r) {
		n, err := h.adm.items.CountDone(r.Context(), p, sel)
		if st, ok := invalid(err); ok {
			return h.renderQueues(w, r, p, st)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return h.renderQueues(w, r, p, refused("no-match", "No completed item matches: nothing to requeue."))
		}
		return h.askConfirmation(w, r, p, "queues",
			fmt.Sprintf("This queues up to %s completed items %sagain in %s (those claimed or queued meanwhile are left alone).",
				views.FormatInt(n), describeSelection(sel), queue),
			"Requeue "+views.FormatInt(n)+" items", "")
	}
	n, err := h.items.RequeueDone(r.Context(), p, queue, sel)
	if st, ok := invalid(err); ok {
		return h.renderQueues(w, r, p, st)
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, p, "queues", fmt.Sprintf("Queued %d completed items again in %s.", n, queue))
}
