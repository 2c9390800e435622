package handlers

import (
	"net/http"

	"tracker/audit"
	"tracker/projects"
	"tracker/views"
)

// recentChanges is how many audit entries a project's overview shows.
const recentChanges = 8

// renderOverview is GET /admin/projects/{slug}/[?item=NAME]: the counts,
// pause and resume, an item looked up, and the latest changes; with
// live=1, the counts and the changes alone, as the page refreshes itself.
func (h *Handler) renderOverview(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	ctx := r.Context()
	page, s, err := h.projectPage(r, p, "", st)
	if err != nil {
		return err
	}
	v := views.AdminOverviewView{AdminProjectPage: page, Archived: s.Archived, Discarded: s.Discarded}
	if v.Monitor, err = h.overviewMonitor(ctx, p); err != nil {
		return err
	}
	if p.Config.Recurring() {
		b, _, _, err := h.stats.Board(ctx, p)
		if err != nil {
			return err
		}
		v.Recurring = recurringState(b)
	}
	if name := r.URL.Query().Get("item"); name != "" && !live(r) {
		live, err := h.adm.live.Get(ctx, p.Slug)
		if err != nil {
			return err
		}
		if v.Item, err = h.lookupItem(ctx, live, name, true, h.adm.items.Lookup); err != nil {
			return err
		}
	}
	entries, err := h.adm.audit.List(ctx, audit.Filter{ProjectID: p.ID, Max: recentChanges})
	if err != nil {
		return err
	}
	v.Recent = auditEntries(entries)
	if live(r) {
		return renderForm(w, r, st, views.AdminOverviewLive(v))
	}
	return renderForm(w, r, st, views.AdminLayout(displayTitle(p)+" · admin", views.AdminOverview(v)))
}
