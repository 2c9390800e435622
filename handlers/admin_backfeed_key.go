package handlers

import (
	"net/http"
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
		question, err := h.backfeedKeyQuestion(r.Context(), p)
		if err != nil {
			return err
		}
		return h.askDestructive(w, r, p, "feeds", confirmation{question: question, button: "Make a new key for " + p.Slug, typed: p.Slug})
	}
	if p, err = h.projects.RotateBackfeedKey(r.Context(), p); err != nil {
		return err
	}
	return h.toSection(w, r, p, "feeds", "New backfeed key: the old URL no longer works.")
}
