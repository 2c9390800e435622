package handlers

import (
	"net/http"

	"tracker/jobs"
	"tracker/views"
)

// adminHome is GET /admin/: the projects the admin runs, and the jobs.
func (h *Handler) adminHome(w http.ResponseWriter, r *http.Request) error {
	ctx, a := r.Context(), account(r)
	ps, err := h.projects.List(ctx)
	if err != nil {
		return err
	}
	v := views.AdminHomeView{AdminPage: h.adminPageOf(r)}
	for _, p := range ps {
		if !a.CanRun(p.ID) {
			continue
		}
		s, err := h.projects.Summary(ctx, p)
		if err != nil {
			return err
		}
		v.Projects = append(v.Projects, views.AdminProjectRow{Slug: p.Slug, Title: p.Title, Paused: p.Config.Paused,
			Queued: s.Queued(), Claims: s.Claims, Done: s.Done, Errors: s.Errors()})
	}
	js, err := jobs.List(ctx, h.pool)
	if err != nil {
		return err
	}
	for _, j := range js {
		v.Jobs = append(v.Jobs, views.AdminJob{Name: j.Name, Enabled: j.Enabled, Every: j.Every, LastFinishedAt: j.LastFinishedAt,
			LastOutcome: j.LastOutcome, LastError: j.LastError, LastSummary: j.LastSummary})
	}
	return render(w, r, http.StatusOK, views.AdminLayout("Admin", views.AdminHome(v)))
}
