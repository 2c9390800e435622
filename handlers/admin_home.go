package handlers

import (
	"net/http"

	"tracker/jobs"
	"tracker/views"
)

// adminHome is GET /admin/: the projects the admin runs, and the jobs in
// a line (the jobs page has them whole).
func (h *Handler) adminHome(w http.ResponseWriter, r *http.Request) error {
	ctx, a := r.Context(), account(r)
	ps, err := h.adm.projects.List(ctx)
	if err != nil {
		return err
	}
	v := views.AdminHomeView{AdminPage: h.adminPageOf(r)}
	for _, p := range ps {
		if !a.CanRun(p.ID) {
			continue
		}
		s, err := h.adm.projects.Summary(ctx, p)
		if err != nil {
			return err
		}
		v.Projects = append(v.Projects, views.AdminProjectRow{Slug: p.Slug, Title: p.Title,
			Finished: p.Config.Finished, Paused: p.Config.Paused, Hidden: p.Config.Hidden,
			Queued: s.Queued(), Claims: s.Claims, Done: s.Done, Errors: s.Errors()})
	}
	js, err := jobs.List(ctx, h.adm.pool)
	if err != nil {
		return err
	}
	v.Jobs = len(js)
	for _, j := range js {
		if j.LastOutcome == jobs.OutcomeError {
			v.JobsFailed = append(v.JobsFailed, j.Name)
		}
		if !j.Enabled {
			v.JobsOff = append(v.JobsOff, j.Name)
		}
	}
	return render(w, r, http.StatusOK, views.AdminLayout("Admin", views.AdminHome(v)))
}
