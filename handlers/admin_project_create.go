package handlers

import (
	"errors"
	"net/http"
	"strings"

	"tracker/projects"
)

// adminProjectCreate is POST /admin/projects (global admins): slug, title.
func (h *Handler) adminProjectCreate(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	slug, title := strings.TrimSpace(r.PostForm.Get("slug")), strings.TrimSpace(r.PostForm.Get("title"))
	if err := projects.ValidSlug(slug); err != nil {
		return errorf(http.StatusBadRequest, "invalid-slug", "%v", err)
	}
	p, err := h.projects.Create(r.Context(), slug, title)
	if errors.Is(err, projects.ErrExists) {
		return errorf(http.StatusConflict, "project-exists", "a project %q exists already", slug)
	}
	if e := textRefusal(err); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, p, "", "Created "+p.Slug+".")
}
