package handlers

import "net/http"

// adminBackfeedKey is POST /admin/projects/{slug}/backfeed-key: a new
// random key; the old backfeed URL stops working.
func (h *Handler) adminBackfeedKey(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if p, err = h.projects.RotateBackfeedKey(r.Context(), p); err != nil {
		return err
	}
	return h.toSection(w, r, p, "queues", "New backfeed key: the old URL no longer works.")
}
