package handlers

import (
	"cmp"
	"context"
	"math"
	"net/http"
	"slices"
	"time"

	"tracker/projects"
	"tracker/stats"
	"tracker/views"
	"tracker/volunteers"
)

// homeShow lists the public projects with their progress and pace: the
// same page for every viewer, rendered once per cache lifetime.
func (h *Handler) homeShow(w http.ResponseWriter, r *http.Request) error {
	page, err := h.reads.pages.Get(r.Context(), pageKey{route: "home"}, h.homePage)
	if err != nil {
		return err
	}
	return writePage(w, r, page)
}

func (h *Handler) homePage(ctx context.Context) (keptPage, error) {
	site, err := h.siteIn(ctx)
	if err != nil {
		return keptPage{}, err
	}
	site.Description = "The projects archiving websites before they close, with volunteers' warriors: each one's progress, pace and deadline."
	ps, err := h.readList(ctx)
	if err != nil {
		return keptPage{}, err
	}
	v := views.HomeView{Site: site, Projects: make([]views.HomeProject, 0, len(ps)), Now: time.Now()}
	if v.Volunteers, err = h.reads.counts.Get(ctx, struct{}{}, func(ctx context.Context) (volunteers.Counts, error) {
		return h.reads.volunteers.Counts(ctx, volunteers.Tracker)
	}); err != nil {
		return keptPage{}, err
	}
	for _, p := range ps {
		if p.Config.Hidden {
			continue
		}
		b, _, _, err := h.stats.Board(ctx, p)
		if err != nil {
			return keptPage{}, err
		}
		info := projectInfo(p)
		hp := views.HomeProject{
			Slug: p.Slug, Title: p.Title, Description: info.Description, Logo: info.Logo,
			Done: b.Totals.Done, Total: b.Totals.Total, Bytes: b.Totals.Bytes,
			ItemsPerSec: b.Rates.ItemsPerSec5m, Active: b.Totals.Active, Deadline: info.Deadline, Paused: info.Paused,
			Finished: info.Finished, HasWork: !info.Finished && !info.Paused && (b.Coverage != nil || b.Totals.Todo+b.Totals.Claims > 0),
		}
		hp.Recurring = recurringState(b)
		v.Projects = append(v.Projects, hp)
		v.Done += b.Totals.Done
		v.Bytes = addBytes(v.Bytes, b.Totals.Bytes)
	}
	sortHome(v.Projects)
	body, err := rendered(ctx, views.Page(site, "Projects", views.Home(v)))
	if err != nil {
		return keptPage{}, err
	}
	return keepPage(body)
}

// sortHome puts the projects with work to do first, then those paused or
// with nothing queued, then the finished ones; each group keeps the list's
// order.
func sortHome(ps []views.HomeProject) {
	group := func(p views.HomeProject) int {
		switch {
		case p.Finished:
			return 2
		case p.HasWork:
			return 0
		}
		return 1
	}
	slices.SortStableFunc(ps, func(a, b views.HomeProject) int { return cmp.Compare(group(a), group(b)) })
}

// recurringState is where a recurring project's items stand, from its
// board; nil for a project whose items are done once.
func recurringState(b *stats.Board) *views.RecurringState {
	if b.Coverage == nil {
		return nil
	}
	return &views.RecurringState{Scheduled: b.Totals.Revisits, Due: b.Totals.Todo, Out: b.Totals.Claims,
		Retired: b.Totals.Retired, VisitsPerHour: b.Coverage.VisitsPerHour, NeededPerHour: b.Coverage.NeededPerHour,
		Covered: b.Coverage.Covered}
}

// site is what every page's chrome shows.
func (h *Handler) site(r *http.Request) (views.Site, error) {
	return h.siteIn(r.Context())
}

// siteIn is site for a read of its own (a page rendered once for many).
func (h *Handler) siteIn(ctx context.Context) (views.Site, error) {
	s, err := h.readSettings(ctx)
	return views.Site{BannerHTML: s.BannerHTML}, err
}

func projectInfo(p projects.Project) views.ProjectInfo {
	info := views.ProjectInfo{
		Slug: p.Slug, Title: p.Title, Description: p.Config.Description, Logo: p.Config.Logo,
		Repository: p.Config.Repository, MinVersion: p.Config.MinVersion, Paused: p.Config.Paused,
		Finished: p.Config.Finished, Hidden: p.Config.Hidden,
	}
	if d, ok := p.Config.DeadlineTime(); ok {
		info.Deadline = &d
	}
	return info
}

// addBytes adds byte counts, saturating at the largest int64 as the
// stored totals do.
func addBytes(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
