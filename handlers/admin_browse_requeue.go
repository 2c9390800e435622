package handlers

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	"tracker/items"
	"tracker/projects"
	"tracker/views"
)

// adminBrowseRequeue is POST /admin/projects/{slug}/browse/requeue: the
// items ticked ("name") of list "source" are queued again in "queue", once
// the admin confirmed how many: completed items (source done; redo by
// default), as queueing completed items again does, or items waiting for
// their next visit (source scheduled), visited now, in the queue of their
// score when "queue" is empty.
func (h *Handler) adminBrowseRequeue(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	queue, err := formQueue(r, "queue")
	if err != nil {
		return h.refuseBrowse(w, r, p, err)
	}
	source := strings.TrimSpace(r.PostForm.Get("source"))
	switch source {
	case items.BrowseScheduled:
		into := cmp.Or(queue, "the queue of its score")
		return h.onSelection(w, r, p, selectionAction{source: source,
			question: func(n int64) (string, string) {
				return fmt.Sprintf("This moves %s items ticked from the schedule to %s: they are visited now.", views.FormatInt(n), into),
					"Visit " + views.FormatInt(n) + " items now"
			},
			run: func(ctx context.Context, p projects.Project, names []string) (int64, error) {
				return h.items.VisitSelected(ctx, p, queue, names)
			},
			done: func(n int64) string { return fmt.Sprintf("Queued %d items for their visit now.", n) },
		})
	case items.BrowseDone:
		queue = cmp.Or(queue, "redo")
		return h.onSelection(w, r, p, selectionAction{source: source,
			question: func(n int64) (string, string) {
				return fmt.Sprintf("This queues %s completed items ticked again in %s (those claimed or queued meanwhile are left alone).",
					views.FormatInt(n), queue), "Requeue " + views.FormatInt(n) + " items"
			},
			run: func(ctx context.Context, p projects.Project, names []string) (int64, error) {
				return h.items.RequeueSelected(ctx, p, queue, names)
			},
			done: func(n int64) string { return fmt.Sprintf("Queued %d completed items again in %s.", n, queue) },
		})
	}
	return h.renderBrowse(w, r, p, refused("not-requeued", "Only completed items and items waiting for their visit are queued again: move the items of a queue."))
}
