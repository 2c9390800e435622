package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"tracker/projects"
	"tracker/sites"
	"tracker/views"
)

// sitesPage is how many sites a page of the limits section lists.
const sitesPage = 50

// renderLimits is GET /admin/projects/{slug}/limits: the limits on what is
// handed out, the blocks, and for a project whose items have sites its
// frontier: the sites by state, a page of them (site_prefix=P, site_all=1
// for the idle ones too, site_after=NAME continues) and one site looked up
// (site=NAME).
func (h *Handler) renderLimits(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, _, err := h.projectPage(r, p, "limits", st)
	if err != nil {
		return err
	}
	v := views.AdminLimitsView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionLimits, st)}
	blocks, err := h.adm.projects.Blocks(r.Context(), p)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		v.Blocks = append(v.Blocks, views.AdminBlock{Kind: b.Kind, Value: b.Value, Reason: b.Reason, Global: b.ProjectID == nil,
			CreatedBy: b.CreatedBy, CreatedAt: b.CreatedAt})
	}
	if p.Config.Sited() {
		if v.Sites, err = h.adminSites(r, p); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				return err
			}
			// A site looked up that is not there: the page says so.
			st = refusedBy(e)
			v.Error, v.Flash = e.Msg, ""
		}
	}
	return renderForm(w, r, st, views.AdminLayout("Limits · "+displayTitle(p), views.AdminLimits(v)))
}

// adminSites is the frontier's part of the limits section. An unknown or
// empty site name looked up is an *Error, with the part still filled.
func (h *Handler) adminSites(r *http.Request, p projects.Project) (*views.AdminSites, error) {
	ctx, q := r.Context(), r.URL.Query()
	sum, err := h.adm.sites.Summary(ctx, p.ID, 0)
	if err != nil {
		return nil, err
	}
	v := &views.AdminSites{Sites: sum.Sites, Active: sum.Active, Due: sum.Due, Waiting: sum.Waiting, Blocked: sum.Blocked,
		RequestsWaited: sum.Waited, Prefix: q.Get("site_prefix"), All: q.Get("site_all") == "1"}
	list, err := h.adm.sites.Page(ctx, p.ID, sites.Filter{Prefix: v.Prefix, After: q.Get("site_after"), Busy: !v.All, Max: sitesPage})
	if err != nil {
		return nil, err
	}
	now := time.Now()
	for _, s := range list {
		v.List = append(v.List, adminSite(s, now))
	}
	if len(list) == sitesPage {
		next := url.Values{"site_prefix": {v.Prefix}, "site_after": {list[len(list)-1].Name}}
		if v.All {
			next.Set("site_all", "1")
		}
		v.Next = "/admin/projects/" + p.Slug + "/limits?" + next.Encode() + "#sites-h"
	}
	if _, asked := q["site"]; asked {
		v.Query = q.Get("site")
		s, err := h.adm.sites.Get(ctx, p.ID, v.Query)
		if err != nil {
			return v, siteError(err, v.Query)
		}
		site := adminSite(s, now)
		v.Site = &site
	}
	return v, nil
}

// adminSite is a site as the admin panel shows it.
func adminSite(s sites.State, now time.Time) views.AdminSite {
	v := views.AdminSite{Name: s.Name, Queued: s.Queued, Out: s.Out, Done: s.Done, Bytes: s.Bytes, AtLimit: s.AtLimit,
		Blocked: s.Blocked, DueAt: s.DueAt, Downloader: s.Downloader, State: "idle"}
	if !s.LastAt.IsZero() {
		last := s.LastAt
		v.LastAt = &last
	}
	switch {
	case s.Blocked:
		v.State = "blocked"
	case s.Due(now):
		v.State = "due"
	case s.Waiting(now):
		v.State = "waiting"
	case s.Out > 0:
		v.State = "active"
	}
	return v
}

// siteError is the answer to a site name the project has no site of (404
// unknown-site) or an empty one (400 invalid-site); other errors pass.
func siteError(err error, name string) error {
	switch {
	case errors.Is(err, sites.ErrNoName):
		return errorf(http.StatusBadRequest, "invalid-site", "%v", err)
	case errors.Is(err, sites.ErrNotFound):
		return errorf(http.StatusNotFound, "unknown-site", "no site %q in this project", name)
	}
	return err
}
