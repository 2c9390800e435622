package handlers

import (
	"net/http"
	"time"

	"tracker/projects"
	"tracker/views"
	"tracker/volunteers"
)

// homeShow lists the public projects with their progress and pace.
func (h *Handler) homeShow(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	site, err := h.site(r)
	if err != nil {
		return err
	}
	site.Description = "The projects archiving websites before they close, with volunteers' warriors: each one's progress, pace and deadline."
	ps, err := h.projects.List(ctx)
	if err != nil {
		return err
	}
	v := views.HomeView{Site: site, Projects: make([]views.HomeProject, 0, len(ps)), Now: time.Now()}
	if v.Volunteers, err = h.volunteers.Counts(ctx, volunteers.Tracker); err != nil {
		return err
	}
	for _, p := range ps {
		if p.Config.Hidden {
			continue
		}
		b, _, _, err := h.stats.Board(ctx, p)
		if err != nil {
			return err
		}
		info := projectInfo(p)
		v.Projects = append(v.Projects, views.HomeProject{
			Slug: p.Slug, Title: p.Title, Description: info.Description, Logo: info.Logo,
			Done: b.Totals.Done, Total: b.Totals.Total, Bytes: b.Totals.Bytes,
			ItemsPerSec: b.Rates.ItemsPerSec5m, Active: b.Totals.Active, Deadline: info.Deadline, Paused: info.Paused,
		})
	}
	return render(w, r, http.StatusOK, views.Page(site, "Projects", views.Home(v)))
}

// site is what every page's chrome shows.
func (h *Handler) site(r *http.Request) (views.Site, error) {
	s, err := h.projects.Settings(r.Context())
	return views.Site{BannerHTML: s.BannerHTML}, err
}

func projectInfo(p projects.Project) views.ProjectInfo {
	info := views.ProjectInfo{
		Slug: p.Slug, Title: p.Title, Description: p.Config.Description, Logo: p.Config.Logo,
		Repository: p.Config.Repository, MinVersion: p.Config.MinVersion, Paused: p.Config.Paused,
	}
	if d, ok := p.Config.DeadlineTime(); ok {
		info.Deadline = &d
	}
	return info
}
