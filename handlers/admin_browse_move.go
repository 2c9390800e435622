package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"tracker/projects"
	"tracker/views"
)

// adminBrowseMove is POST /admin/projects/{slug}/browse/move: the items
// ticked ("name") of queue "source" go to queue "to", once the admin
// confirmed how many.
func (h *Handler) adminBrowseMove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	to, err := formQueue(r, "to")
	if err != nil {
		return h.refuseBrowse(w, r, p, err)
	}
	from := strings.TrimSpace(r.PostForm.Get("source"))
	if to == "" || to == from {
		return h.renderBrowse(w, r, p, refused("same-queue", "Choose another queue to move the items to."))
	}
	if browseKind(from) != "queue" {
		return h.renderBrowse(w, r, p, refused("not-a-queue", "Only the items of a queue are moved: release claims, queue completed items again."))
	}
	return h.onSelection(w, r, p, selectionAction{source: from,
		question: func(n int64) (string, string) {
			return fmt.Sprintf("This moves %s items ticked from %s to %s.", views.FormatInt(n), from, to), "Move " + views.FormatInt(n) + " items"
		},
		run: func(ctx context.Context, p projects.Project, names []string) (int64, error) {
			return h.items.MoveSelected(ctx, p, from, to, names)
		},
		done: func(n int64) string { return fmt.Sprintf("Moved %d items from %s to %s.", n, from, to) },
	})
}
