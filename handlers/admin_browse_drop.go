package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"tracker/projects"
	"tracker/views"
)

// adminBrowseDrop is POST /admin/projects/{slug}/browse/drop: the items
// ticked ("name") of queue "source" are dropped for good (they stay seen,
// so they are not queued again), once the admin saw how many and typed
// the queue's name, as a drain of the queue asks.
func (h *Handler) adminBrowseDrop(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	from := strings.TrimSpace(r.PostForm.Get("source"))
	if browseKind(from) != "queue" {
		return h.renderBrowse(w, r, p, refused("not-a-queue", "Only the items of a queue are dropped: release claims, queue completed items again."))
	}
	return h.onSelection(w, r, p, selectionAction{source: from, destructive: true,
		question: func(n int64) (string, string) {
			return fmt.Sprintf("This drops %s items ticked from %s for good; they stay seen, so they are not queued again.",
				views.FormatInt(n), from), "Drop " + views.FormatInt(n) + " items"
		},
		run: func(ctx context.Context, p projects.Project, names []string) (int64, error) {
			return h.items.MoveSelected(ctx, p, from, "", names)
		},
		done: func(n int64) string { return fmt.Sprintf("Dropped %d items from %s.", n, from) },
	})
}
