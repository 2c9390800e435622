package handlers

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tracker/items"
	"tracker/projects"
	"tracker/stats"
	"tracker/views"
)

const (
	// claimsPage is how many claims a page of the claims list shows.
	claimsPage = 100
	// claimsCountedAlways: up to this many claims, the counts by age and
	// by downloader are read on every view; past it (they read every
	// claim: 1.5 s at five million), only when asked.
	claimsCountedAlways = 200_000
)

// renderClaims is GET /admin/projects/{slug}/claims: the claims by age and
// by downloader, releasing them, a page of the list (after=UNIXMICRO.ID
// continues; filtered by downloader, older_than minutes and prefix), and
// the claim settings; with live=1, the counts and the list alone, as the
// page refreshes itself.
func (h *Handler) renderClaims(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	ctx := r.Context()
	page, _, err := h.projectPage(r, p, "claims", st)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v := views.AdminClaimsView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionClaims, st),
		Downloader: q.Get("downloader"), OlderThan: q.Get("older_than"), Prefix: q.Get("prefix")}
	f := items.ClaimFilter{Downloader: v.Downloader, Prefix: v.Prefix, Max: claimsPage}
	if v.OlderThan != "" {
		minutes, err := strconv.Atoi(v.OlderThan)
		if err != nil || minutes < 0 {
			return errorf(http.StatusBadRequest, "bad-filter", "older_than is a whole number of minutes")
		}
		f.OlderThan = time.Duration(minutes) * time.Minute
	}
	if at, id, ok := strings.Cut(q.Get("after"), "."); ok {
		us, err1 := strconv.ParseInt(at, 10, 64)
		n, err2 := strconv.ParseInt(id, 10, 64)
		if err1 != nil || err2 != nil {
			return errorf(http.StatusBadRequest, "bad-cursor", "after is UNIXMICRO.ID")
		}
		f.AfterAt, f.AfterID = time.UnixMicro(us), n
	}
	list, err := h.adm.items.Claims(ctx, p, f)
	if err != nil {
		return err
	}
	for _, c := range list {
		v.List = append(v.List, views.AdminClaim{Name: c.Name, Downloader: c.Downloader, ClaimedAt: c.ClaimedAt, ClaimCount: c.ClaimCount, Queue: c.Queue})
	}
	if len(list) == claimsPage {
		last := list[len(list)-1]
		next := url.Values{"downloader": {v.Downloader}, "older_than": {v.OlderThan}, "prefix": {v.Prefix},
			"after": {strconv.FormatInt(last.ClaimedAt.UnixMicro(), 10) + "." + strconv.FormatInt(last.ID, 10)}}
		v.Next = "/admin/projects/" + p.Slug + "/claims?" + next.Encode()
	}
	// A page refreshing itself never reads every claim of a big project:
	// it keeps the counts it was loaded with.
	if v.Counted = page.Claims <= claimsCountedAlways || q.Get("count") == "1" && !live(r); v.Counted {
		ages, err := h.adm.items.ClaimAges(ctx, p)
		if err != nil {
			return err
		}
		v.Ages = ageBars(ages)
		counts, err := h.adm.items.ClaimsPerDownloader(ctx, p, 100)
		if err != nil {
			return err
		}
		for _, c := range counts {
			v.Downloaders = append(v.Downloaders, views.AdminClaimCount{Downloader: c.Downloader, Claims: c.Claims, Oldest: c.Oldest})
		}
	}
	expiries, err := h.stats.TopExpiries(ctx, p, 20)
	if err != nil {
		return err
	}
	queues := make([]string, len(page.Queues))
	for i, q := range page.Queues {
		queues[i] = q.Name
	}
	if v.Expiries, err = h.expiriesByClaimsHeld(ctx, p, expiries, queues, page.Claims <= claimsCountedAlways); err != nil {
		return err
	}
	if live(r) {
		return renderForm(w, r, st, views.AdminClaimsLive(v))
	}
	return renderForm(w, r, st, views.AdminLayout("Claims · "+displayTitle(p), views.AdminClaims(v)))
}

// ageBars draws the claims' age buckets as bars against the longest.
func ageBars(buckets []items.AgeBucket) []views.AdminAgeBar {
	var most int64
	for _, b := range buckets {
		most = max(most, b.Claims)
	}
	bars := make([]views.AdminAgeBar, len(buckets))
	var from time.Duration
	for i, b := range buckets {
		label := "under " + views.FormatDuration(b.Under)
		if b.Under == 0 {
			label = views.FormatDuration(from) + " or more"
		}
		bars[i] = views.AdminAgeBar{Label: label, Claims: b.Claims}
		if most > 0 {
			bars[i].Percent = float64(b.Claims) * 100 / float64(most)
		}
		if from > 0 {
			bars[i].OlderThan = strconv.Itoa(int(from / time.Minute))
		}
		from = b.Under
	}
	return bars
}

// expiriesByClaimsHeld are the downloaders whose claims ran out, with the
// claims each holds now, those holding the most first: the ones to look at
// (or release) before those whose claims ran out but hold none. Each names
// the item whose claim ran out last, for its timeline: found in queues,
// done, or, with inClaims, out again.
func (h *Handler) expiriesByClaimsHeld(ctx context.Context, p projects.Project, expiries []stats.Expiries, queues []string, inClaims bool) ([]views.AdminExpiries, error) {
	if len(expiries) == 0 {
		return nil, nil
	}
	nicks := make([]string, len(expiries))
	for i, e := range expiries {
		nicks[i] = e.Nick
	}
	held, err := h.adm.items.ClaimsOf(ctx, p, nicks)
	if err != nil {
		return nil, err
	}
	last, err := h.adm.items.LastExpired(ctx, p, nicks, queues, time.Now().Add(-stats.ExpiriesWindow), inClaims)
	if err != nil {
		return nil, err
	}
	out := make([]views.AdminExpiries, len(expiries))
	for i, e := range expiries {
		out[i] = views.AdminExpiries{Downloader: e.Nick, Expired: e.Expired, Completed: e.Completed, Holds: held[e.Nick]}
		if name, ok := last[e.Nick]; ok {
			out[i].LastItem, out[i].LastItemURL = name, itemPageURL(p, name)
		}
	}
	slices.SortStableFunc(out, func(a, b views.AdminExpiries) int {
		return cmp.Or(cmp.Compare(b.Holds, a.Holds), cmp.Compare(b.Expired, a.Expired))
	})
	return out, nil
}
