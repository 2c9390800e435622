package handlers

import (
	"net/http"

	"tracker/projects"
	"tracker/views"
)

// renderLimits is GET /admin/projects/{slug}/limits: the limits on what is
// handed out, and the blocks.
func (h *Handler) renderLimits(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, _, err := h.projectPage(r, p, "limits", st)
	if err != nil {
		return err
	}
	v := views.AdminLimitsView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionLimits, st)}
	blocks, err := h.projects.Blocks(r.Context(), p)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		v.Blocks = append(v.Blocks, views.AdminBlock{Kind: b.Kind, Value: b.Value, Reason: b.Reason, Global: b.ProjectID == nil})
	}
	return render(w, r, st.status, views.Layout("Limits · "+displayTitle(p), views.AdminLimits(v)))
}
