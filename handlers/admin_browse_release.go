package handlers

import (
	"context"
	"fmt"
	"net/http"

	"tracker/items"
	"tracker/projects"
	"tracker/views"
)

// adminBrowseRelease is POST /admin/projects/{slug}/browse/release: the
// claims of the items ticked ("name") go back to their queues, in their
// old place, whoever holds them, once the admin confirmed how many.
func (h *Handler) adminBrowseRelease(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	return h.onSelection(w, r, p, selectionAction{source: items.BrowseClaims,
		question: func(n int64) (string, string) {
			return fmt.Sprintf("This releases %s claims ticked: the items go back to their queues and their warriors' dones are still taken.",
				views.FormatInt(n)), "Release " + views.FormatInt(n) + " claims"
		},
		run: func(ctx context.Context, p projects.Project, names []string) (int64, error) {
			return h.items.ReleaseSelected(ctx, p, names)
		},
		done: func(n int64) string { return fmt.Sprintf("Released %d claims.", n) },
	})
}
