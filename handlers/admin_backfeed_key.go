package handlers

import (
	"fmt"
	"net/http"

	"tracker/views"
)

// adminBackfeedKey is POST /admin/projects/{slug}/backfeed-key: a new
// random key; the old backfeed URL stops working. Every grab script
// running posts to the old URL, so the admin is told so and types the
// project's slug (confirm) to go on.
func (h *Handler) adminBackfeedKey(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	if !confirmed(r) || r.PostForm.Get("confirm") != p.Slug {
		b, _, _, err := h.stats.Board(r.Context(), p)
		if err != nil {
			return err
		}
		var backfed int64
		for _, s := range b.Shards {
			backfed += s.New
		}
		return h.askDestructive(w, r, p, "queues", confirmation{
			question: fmt.Sprintf("This replaces the backfeed key of %s. Every running grab script posts the items it finds "+
				"to the old URL, which stops working at once: their backfeed is refused until each script is given the new URL. "+
				"Backfeed queued %s items in the last hour.", p.Slug, views.FormatInt(backfed)),
			button: "Make a new key for " + p.Slug,
			typed:  p.Slug,
		})
	}
	if p, err = h.projects.RotateBackfeedKey(r.Context(), p); err != nil {
		return err
	}
	return h.toSection(w, r, p, "queues", "New backfeed key: the old URL no longer works.")
}
