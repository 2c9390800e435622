package handlers

import (
	"net/http"

	"tracker/projects"
	"tracker/views"
)

// renderWarriors is GET /admin/projects/{slug}/warriors: the project's
// entry in the warriors' project list, and its upload targets.
func (h *Handler) renderWarriors(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, _, err := h.projectPage(r, p, "warriors", st)
	if err != nil {
		return err
	}
	v := views.AdminWarriorsView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionWarriors, st)}
	targets, err := h.adm.projects.Targets(r.Context(), p)
	if err != nil {
		return err
	}
	for _, t := range targets {
		v.Targets = append(v.Targets, views.AdminTarget{URL: t.URL, Weight: t.Weight, Enabled: t.Enabled,
			Problem: projects.TargetProblem(t.URL)})
	}
	v.TargetsWarning = projects.TargetsWarning(p.Config, targets)
	return renderForm(w, r, st, views.AdminLayout("Warriors · "+displayTitle(p), views.AdminWarriors(v)))
}
