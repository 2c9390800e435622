package handlers

import (
	"net/http"

	"tracker/projects"
	"tracker/views"
)

// renderArchive is GET /admin/projects/{slug}/archive: what was archived,
// and when and how completions leave the hot tables.
func (h *Handler) renderArchive(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, s, err := h.projectPage(r, p, "archive", st)
	if err != nil {
		return err
	}
	v := views.AdminArchiveView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionArchive, st),
		Archived: s.Archived, Discarded: s.Discarded}
	return renderForm(w, r, st, views.AdminLayout("Archive · "+displayTitle(p), views.AdminArchive(v)))
}
