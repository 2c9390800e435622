package stats

import (
	"context"
	"time"

	"tracker/sites"
)

// Sites is a project's frontier on its board: its sites by state and the
// ones with the most completions.
type Sites struct {
	// Sites counts every site the project's items named; Active those with
	// items out; Due those with items queued that may be handed out now;
	// Waiting those with items queued that wait on their interval or their
	// limit of items out; Blocked those an admin blocked.
	Sites   int64 `json:"sites"`
	Active  int64 `json:"active"`
	Due     int64 `json:"due"`
	Waiting int64 `json:"waiting"`
	Blocked int64 `json:"blocked"`
	// RequestsWaited counts the item requests refused (429 sites-waiting)
	// because every site with items queued waited on politeness.
	RequestsWaited int64 `json:"requests_waited"`
	// Top are the TopSitesShown sites with the most completions, most
	// first.
	Top []TopSite `json:"top"`
	// At is when these figures were read (every SitesEvery).
	At time.Time `json:"at"`
}

// TopSite is one of a project's sites with the most completions.
type TopSite struct {
	Site   string `json:"site"`
	Items  int64  `json:"items"`
	Bytes  int64  `json:"bytes"`
	Queued int64  `json:"queued"`
	Out    int64  `json:"out"`
}

// TopSitesShown is how many sites a Board's Sites lists.
const TopSitesShown = 10

// SitesEvery is how often a board's sites are read again: the summary reads
// every site row of the project, so a board reuses it in between.
const SitesEvery = 10 * time.Second

// sitesOf returns the sites of a watched project whose items have sites,
// rereading them when older than SitesEvery.
func (h *Hub) sitesOf(ctx context.Context, w *watch) (*Sites, error) {
	w.mu.Lock()
	old, p := w.sites, w.project
	w.mu.Unlock()
	now := time.Now()
	if old != nil && now.Sub(old.At) < SitesEvery {
		return old, nil
	}
	sum, err := sites.SummaryOf(ctx, h.q, p.ID)
	if err != nil {
		return nil, err
	}
	top, err := sites.Top(ctx, h.q, p.ID, TopSitesShown)
	if err != nil {
		return nil, err
	}
	s := &Sites{Sites: sum.Sites, Active: sum.Active, Due: sum.Due, Waiting: sum.Waiting, Blocked: sum.Blocked,
		RequestsWaited: sum.Waited, Top: make([]TopSite, len(top)), At: now}
	for i, t := range top {
		s.Top[i] = TopSite{Site: t.Name, Items: t.Done, Bytes: t.Bytes, Queued: t.Queued, Out: t.Out}
	}
	w.mu.Lock()
	w.sites = s
	w.mu.Unlock()
	return s, nil
}
