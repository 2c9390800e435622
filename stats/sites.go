package stats

import (
	"context"
	"time"

	"tracker/projects"
	"tracker/sites"
)

// SitesEvery is how often a board's sites are read again: the summary reads
// every site row of the project, so a board reuses it in between.
const SitesEvery = 10 * time.Second

// sitesOf returns the frontier of a project whose items have sites, its
// sites by state and the ones with the most completions (sites.Summary),
// read again when older than SitesEvery.
func (h *Hub) sitesOf(ctx context.Context, p projects.Project) (*sites.Summary, error) {
	sum, err := h.sites.Summary(ctx, p.ID, SitesEvery)
	if err != nil {
		return nil, err
	}
	return &sum, nil
}
