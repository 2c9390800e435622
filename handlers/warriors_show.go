package handlers

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"tracker/naming"
	"tracker/projects"
	"tracker/views"
	"tracker/warriors"
)

// warriorsShow is the public Warriors page: the warriors online by
// project and by seesaw version, and a world map of where they are.
func (h *Handler) warriorsShow(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	settings, err := h.readSettings(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	o, titles, err := h.warriorsOnline(ctx, now)
	if err != nil {
		return err
	}
	v := views.WarriorsView{
		Site: views.Site{BannerHTML: settings.BannerHTML,
			Description: "The warriors online now: how many, on which projects, with which version, and where in the world."},
		Online: o.Total,
		Lowest: settings.SeesawVersion, Now: now,
	}
	for slug, n := range o.Projects {
		v.Projects = append(v.Projects, views.WarriorGroup{Slug: slug, Title: titles[slug], Warriors: n})
	}
	slices.SortFunc(v.Projects, func(a, b views.WarriorGroup) int {
		return cmp.Or(cmp.Compare(b.Warriors, a.Warriors), cmp.Compare(a.Slug, b.Slug))
	})
	for version, n := range o.Versions {
		v.Versions = append(v.Versions, views.WarriorVersion{Version: version, Warriors: n,
			Outdated: warriors.Outdated(version, settings.SeesawVersion)})
	}
	slices.SortFunc(v.Versions, func(a, b views.WarriorVersion) int { return naming.CompareVersions(b.Version, a.Version) })
	for _, p := range o.Places {
		v.Places = append(v.Places, views.WarriorPlace{Lat: p.Lat, Lng: p.Lng, Warriors: p.Warriors})
		v.Located += p.Warriors
	}
	return render(w, r, http.StatusOK, views.Page(v.Site, "Warriors", views.Warriors(v)))
}

// warriorsOnline counts the warriors online, their selected projects
// limited to the public projects of this tracker, "auto", "" (none) and
// otherProjects ("(other)", which no slug can be): hidden projects stay unnamed, and slugs a warrior makes up
// cannot grow the page or the gauges' labels. It also returns the public
// projects' titles by slug.
func (h *Handler) warriorsOnline(ctx context.Context, now time.Time) (warriors.Online, map[string]string, error) {
	o, err := h.warriors.Online(ctx, now)
	if err != nil {
		return o, nil, err
	}
	ps, err := h.projects.List(ctx)
	if err != nil {
		return o, nil, err
	}
	var titles map[string]string
	o.Projects, titles = publicGroups(o.Projects, ps)
	return o, titles, nil
}

// otherProjects groups the warriors whose project this tracker does not
// list publicly.
const otherProjects = "(other)"

func publicGroups(counts map[string]int64, ps []projects.Project) (map[string]int64, map[string]string) {
	titles := map[string]string{}
	for _, p := range ps {
		if !p.Config.Hidden {
			titles[p.Slug] = p.Title
		}
	}
	out := map[string]int64{}
	for slug, n := range counts {
		if _, public := titles[slug]; !public && slug != "" && slug != "auto" {
			slug = otherProjects
		}
		out[slug] += n
	}
	return out, titles
}
