package items

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/sites"
)

// maxSitesPerBatch bounds the sites one batch of requests locks.
const maxSitesPerBatch = 1000

// maxKnownSites bounds the site ids a process remembers.
const maxKnownSites = 1 << 20

// siteIDs are the sites of names (0: none) in a project that keeps sites,
// nil in one that does not. Sites new to the project get their row first,
// committed on its own: an item never names a site without one.
func (e *Engine) siteIDs(ctx context.Context, p projects.Project, names []string) ([]int32, error) {
	if !p.Config.Sited() {
		return nil, nil
	}
	of := make([]string, len(names))
	e.sitesMu.Lock()
	known := e.sites[p.ID]
	var missing []string
	for i, name := range names {
		of[i] = sites.Of(name, p.Config.SiteKey)
		if _, ok := known[of[i]]; !ok && of[i] != "" {
			missing = append(missing, of[i])
		}
	}
	e.sitesMu.Unlock()
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		if err := e.q.SitesAdd(ctx, db.SitesAddParams{ProjectID: p.ID, Names: missing}); err != nil {
			return nil, fmt.Errorf("sites: %w", err)
		}
		rows, err := e.q.SitesIDs(ctx, db.SitesIDsParams{ProjectID: p.ID, Names: missing})
		if err != nil {
			return nil, fmt.Errorf("sites: %w", err)
		}
		e.sitesMu.Lock()
		if e.sitesKnown+len(rows) > maxKnownSites {
			e.sites, e.sitesKnown = map[int32]map[string]int32{}, 0
		}
		if e.sites[p.ID] == nil {
			e.sites[p.ID] = map[string]int32{}
		}
		for _, r := range rows {
			e.sites[p.ID][r.Name] = r.ID
		}
		e.sitesKnown += len(rows)
		e.sitesMu.Unlock()
	}
	ids := make([]int32, len(names))
	e.sitesMu.Lock()
	defer e.sitesMu.Unlock()
	for i, site := range of {
		if site == "" {
			continue
		}
		id, ok := e.sites[p.ID][site]
		if !ok {
			return nil, fmt.Errorf("sites: no row for %q", site)
		}
		ids[i] = id
	}
	return ids, nil
}

// updateTag is the update tag a backfed item carries in its context (the
// part of its name after the first 0x1F): the value of "tag=", the
// context being read as "key=value" pairs joined by "&". "" when none.
func updateTag(name string) string {
	_, context, found := strings.Cut(name, contextSeparator)
	if !found {
		return ""
	}
	for part := range strings.SplitSeq(context, "&") {
		if v, ok := strings.CutPrefix(part, "tag="); ok {
			if u, err := url.QueryUnescape(v); err == nil {
				return u
			}
			return v
		}
	}
	return ""
}

// fromSites hands out items with a site to the requests still wanting
// some: from the sites that are due (the longest due first), up to the
// project's limit per site, each site's items to one request. With
// site_affinity a site holding items out goes only to their holder, and a
// site holding none to the requesting downloader that holds the fewest
// sites; otherwise the requests take turns.
func (e *Engine) fromSites(ctx context.Context, q *db.Queries, live *projects.Live, ops []*claimOp, wanting func(*claimOp) bool) error {
	cfg := live.Config
	var want []*claimOp
	left := map[*claimOp]int{}
	total := 0
	var nicks []string
	for _, o := range ops {
		if wanting(o) {
			want = append(want, o)
			left[o] = o.left()
			total += o.left()
			nicks = append(nicks, o.req.Downloader)
		}
	}
	if total == 0 {
		return nil
	}
	slices.Sort(nicks)
	nicks = slices.Compact(nicks)
	// As many sites as the items wanted need, each giving up to its limit,
	// and a few more for sites with fewer items: a site locked and not
	// used still holds up the completions of its items until the batch
	// commits.
	sitesWanted := total
	if limit := cfg.SiteClaimsLimit; limit > 0 && limit < int64(total) {
		sitesWanted = min(total, int((int64(total)+limit-1)/limit)+len(want))
	}
	due, err := q.SitesDue(ctx, db.SitesDueParams{
		ProjectID: live.ID, Affinity: cfg.SiteAffinity, Nicks: nicks, Max: int32(min(sitesWanted, maxSitesPerBatch)),
		SiteLimit: siteLimit(cfg),
	})
	if err != nil || len(due) == 0 {
		return err
	}
	held := map[string]int64{}
	if cfg.SiteAffinity {
		rows, err := q.SitesHeld(ctx, db.SitesHeldParams{ProjectID: live.ID, Nicks: nicks})
		if err != nil {
			return err
		}
		for _, r := range rows {
			held[r.Downloader] = r.Sites
		}
	}

	// Only the queues holding items: each is a probe of every site taken.
	var queues []string
	for _, queue := range naming.ServedQueues(live.Queues) {
		if live.Queues[queue] > 0 {
			queues = append(queues, queue)
		}
	}
	own := false
	for _, o := range want {
		own = own || live.Queues[naming.DownloaderQueue(o.req.Downloader)] > 0
	}
	p := db.SitesTakeParams{
		ProjectID: live.ID,
		Queues:    queues,
		OwnQueues: own,
		Interval:  projects.Duration(cfg.SiteInterval),
		SiteLimit: siteLimit(cfg),
		Budget:    MaxAnswerBytes,
	}
	turn := 0
	for _, s := range due {
		// What the site can give: its items queued, up to its limit.
		room := int(min(s.Queued, int64(total)))
		if cfg.SiteClaimsLimit > 0 {
			room = int(min(int64(room), max(0, cfg.SiteClaimsLimit-int64(s.Out))))
		}
		owner := -1
		switch {
		case room == 0:
		case cfg.SiteAffinity && s.Downloader != "":
			owner = slices.IndexFunc(want, func(o *claimOp) bool { return o.req.Downloader == s.Downloader && left[o] > 0 })
		case cfg.SiteAffinity:
			for i, o := range want {
				if left[o] > 0 && (owner < 0 || held[o.req.Downloader] < held[want[owner].req.Downloader]) {
					owner = i
				}
			}
		default:
			for range want {
				i := turn % len(want)
				turn++
				if left[want[i]] > 0 {
					owner = i
					break
				}
			}
		}
		if owner < 0 {
			continue
		}
		o := want[owner]
		n := min(left[o], room)
		left[o] -= n
		total -= n
		held[o.req.Downloader]++
		p.Takes = append(p.Takes, db.SiteTake{Site: s.ID, Items: int32(n), Slot: int32(owner + 1),
			Downloader: o.req.Downloader, Version: o.req.Version, IP: addrOrNil(o.req.IP), Carried: o.carried})
		if total == 0 {
			break
		}
	}
	if len(p.Takes) == 0 {
		return nil
	}
	d, err := e.driver(ctx)
	if err != nil {
		return err
	}
	rows, err := d.SitesTake(ctx, q, p)
	if err != nil {
		return fmt.Errorf("claim by site: %w", err)
	}
	for _, r := range rows {
		o := want[r.Slot-1]
		if r.Cut {
			o.full = true
			continue
		}
		o.handOut(r.Name, r.Params, r.Sent)
		o.reclaimed = o.reclaimed || r.ClaimCount > 0
	}
	return nil
}

// siteLimit is the project's limit of items out per site (0: none) as SQL
// takes it.
func siteLimit(cfg projects.Config) int32 { return int32(min(cfg.SiteClaimsLimit, 1<<30)) }

// sitesWaiting is the refusal of a request that got nothing from a project
// whose queued items wait for their sites: due again later, at their limit
// of items out, or blocked.
func (e *Engine) sitesWaiting(ctx context.Context, live *projects.Live) (*Refusal, error) {
	if !live.Config.Sited() || live.Summary.Queued() == 0 {
		return nil, nil
	}
	next, err := e.q.SitesNextDue(ctx, db.SitesNextDueParams{ProjectID: live.ID, SiteLimit: siteLimit(live.Config)})
	if err != nil {
		return nil, err
	}
	wait := 30 * time.Second
	if len(next) > 0 {
		wait = max(time.Second, time.Until(next[0]))
	}
	e.countPoliteWait(live.ID)
	return &Refusal{Reason: ReasonSitesWaiting, RetryAfter: wait,
		Detail: "the items left are of sites handed out at a limited pace"}, nil
}
