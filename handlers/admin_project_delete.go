package handlers

import (
	"net/http"
)

// adminProjectDelete is POST /admin/projects/{slug}/delete (global
// admins), once "confirm" repeats the slug: the project is gone at once for
// every route, and the purge job removes its rows in the background.
func (h *Handler) adminProjectDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	if r.PostForm.Get("confirm") != p.Slug {
		return h.renderDanger(w, r, p, refused("unconfirmed", "To delete the project, type its slug to confirm."))
	}
	if err := h.projects.MarkDeleting(r.Context(), p); err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/", "Deleting "+p.Slug+": its rows go in the background.")
}
