package handlers

import (
	"net/http"

	"tracker/projects"
	"tracker/views"
)

// renderDanger is GET /admin/projects/{slug}/danger: draining a queue and
// deleting the project.
func (h *Handler) renderDanger(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, _, err := h.projectPage(r, p, "danger", st)
	if err != nil {
		return err
	}
	v := views.AdminDangerView{AdminProjectPage: page}
	return renderForm(w, r, st, views.AdminLayout("Danger zone · "+displayTitle(p), views.AdminDanger(v)))
}
