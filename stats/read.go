package stats

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/volunteers"
)

// read takes a project's board from one snapshot of the database: the
// counters, the folded totals and the tallies not folded yet, so nothing
// is counted twice or missed while the rollup job folds.
func (h *Hub) read(ctx context.Context, p projects.Project, history []sample, r *rankings) (*Board, sample, error) {
	b := &Board{Project: p.Slug, Title: p.Title}
	var s sample
	var pending []db.DoneTalliesRecentRow
	err := pgx.BeginTxFunc(ctx, h.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := db.Of(tx)
		var err error
		if b.At, err = q.TransactionNow(ctx); err != nil {
			return err
		}
		sum, err := projects.SummaryOf(ctx, q, p)
		if err != nil {
			return err
		}
		s = sample{at: b.At, done: sum.Done, bytes: sum.Bytes, requests: sum.Requests, served: sum.RequestsServed,
			reclaimServed: sum.RequestsReclaimServed, roundTripMs: sum.RoundTripMs}
		b.Totals = totals(sum)
		b.Health.ReclaimRate = ratio(sum.DoneReclaimed, sum.Done)

		pending, err = q.DoneTalliesRecent(ctx, p.ID)
		if err != nil {
			return err
		}
		if b.Leaders, err = h.leaders(ctx, q, p, pending); err != nil {
			return err
		}
		for i := range b.Leaders {
			if b.Totals.Bytes > 0 {
				b.Leaders[i].Share = float64(b.Leaders[i].Bytes) / float64(b.Totals.Bytes)
			}
		}
		if b.Feed, err = h.feed(ctx, q, p, pending); err != nil {
			return err
		}
		if b.Domains, err = h.domains(ctx, q, p, pending); err != nil {
			return err
		}
		if b.Shards, err = shards(ctx, q, p, b.At); err != nil {
			return err
		}
		minutes, err := q.SeriesMinutesSince(ctx, db.SeriesMinutesSinceParams{ProjectID: p.ID, Since: b.At.Add(-61 * time.Minute)})
		if err != nil {
			return err
		}
		b.Rates = rates(append(history, s), minutes, b.At)
		b.Volunteers, err = volunteers.CountsOf(ctx, q, p.ID, b.At)
		return err
	})
	if err != nil {
		return nil, s, err
	}
	b.Totals.Downloaders, b.Totals.Active = int64(len(r.all.entries)), r.active(b.At)
	// Downloaders whose tallies are not folded yet are active, and may be new.
	counted := map[string]bool{}
	for _, t := range pending {
		if counted[t.Downloader] {
			continue
		}
		counted[t.Downloader] = true
		i, known := r.all.byNick[t.Downloader]
		if !known {
			b.Totals.Downloaders++
		}
		if !known || b.At.Sub(r.all.entries[i].lastSeen) > ActiveWindow {
			b.Totals.Active++
		}
	}
	b.Health = health(append(history, s), b.Health)
	plan(&b.Rates, b.Totals, p.Config, b.At)
	if p.Config.Recurring() {
		b.Coverage = coverage(b.Rates, b.Totals, p.Config)
	}
	return b, s, nil
}

func totals(sum projects.Summary) Totals {
	t := Totals{Done: sum.Done, Bytes: sum.Bytes, Claims: sum.Claims, Queues: sum.Queues,
		Reclaims: sum.Reclaims, Archived: sum.Archived, Discarded: sum.Discarded,
		Todo: sum.Queued(), Errors: sum.Errors(), Revisits: sum.Revisits, Retired: sum.Retired(),
		BackfedAgain: sum.BackfedAgain}
	t.Total = t.Done + t.Claims + t.Todo + t.Errors
	return t
}

// leaders are the first downloaders by bytes, with what they did since the
// last fold.
func (h *Hub) leaders(ctx context.Context, q *db.Queries, p projects.Project, pending []db.DoneTalliesRecentRow) ([]Leader, error) {
	top, err := q.DownloadersTop(ctx, db.DownloadersTopParams{ProjectID: p.ID, Max: LeadersShown})
	if err != nil {
		return nil, err
	}
	byNick := map[string]*Leader{}
	var out []*Leader
	add := func(nick string, items, bytes int64, version string, lastSeen time.Time) {
		if byNick[nick] == nil {
			l := &Leader{Nick: nick, Items: items, Bytes: bytes, Version: version, LastSeen: lastSeen}
			byNick[nick] = l
			out = append(out, l)
		}
	}
	for _, d := range top {
		add(d.Nick, d.Items, d.Bytes, d.Version, d.LastSeen)
	}
	// The downloaders with pending tallies may climb onto the head: their
	// folded totals too.
	var others []string
	for _, t := range pending {
		if byNick[t.Downloader] == nil && !slices.Contains(others, t.Downloader) {
			others = append(others, t.Downloader)
		}
	}
	if len(others) > 0 {
		rows, err := q.DownloadersNamed(ctx, db.DownloadersNamedParams{ProjectID: p.ID, Nicks: others})
		if err != nil {
			return nil, err
		}
		for _, d := range rows {
			add(d.Nick, d.Items, d.Bytes, d.Version, d.LastSeen)
		}
		for _, nick := range others {
			add(nick, 0, 0, "", time.Time{})
		}
	}
	// Pending tallies, newest first: a downloader's newest version wins.
	for _, t := range pending {
		l := byNick[t.Downloader]
		l.Items += t.Items
		l.Bytes = db.AddBytes(l.Bytes, t.Bytes)
		if t.At.After(l.LastSeen) {
			l.LastSeen, l.Version = t.At, t.Version
		}
	}
	slices.SortFunc(out, func(a, b *Leader) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Nick, b.Nick))
	})
	out = out[:min(len(out), LeadersShown)]
	leaders := make([]Leader, len(out))
	for i, l := range out {
		l.Rank = i + 1
		l.Outdated = outdated(l.Version, p.Config.MinVersion)
		leaders[i] = *l
	}
	return leaders, nil
}

func outdated(version, minVersion string) bool {
	return minVersion != "" && naming.CompareVersions(version, minVersion) < 0
}

// feed is the latest done requests, the unfolded ones first.
func (h *Hub) feed(ctx context.Context, q *db.Queries, p projects.Project, pending []db.DoneTalliesRecentRow) ([]FeedEntry, error) {
	var out []FeedEntry
	for _, t := range pending {
		if len(out) == FeedKept {
			return out, nil
		}
		out = append(out, FeedEntry{At: t.At, Downloader: t.Downloader, Items: t.Items, Bytes: t.Bytes, Item: t.Item})
	}
	rows, err := q.FeedLatest(ctx, db.FeedLatestParams{ProjectID: p.ID, Max: int32(FeedKept - len(out))})
	if err != nil {
		return nil, err
	}
	for _, f := range rows {
		out = append(out, FeedEntry{At: f.At, Downloader: f.Downloader, Items: f.Items, Bytes: f.Bytes, Item: f.Item})
	}
	return out, nil
}

// domains are the bytes per domain, folded and pending: the DomainsKept
// with the most bytes, largest first, then the others summed in
// projects.OtherDomain, when there are any.
func (h *Hub) domains(ctx context.Context, q *db.Queries, p projects.Project, pending []db.DoneTalliesRecentRow) ([]Domain, error) {
	// The rollup keeps DomainsKept and 'other': the bound only guards.
	rows, err := q.DomainTotals(ctx, db.DomainTotalsParams{ProjectID: p.ID, Max: DomainsKept + 1})
	if err != nil {
		return nil, err
	}
	bytes := map[string]int64{}
	for _, r := range rows {
		bytes[r.Domain] = db.AddBytes(bytes[r.Domain], r.Bytes)
	}
	for _, t := range pending {
		var ds map[string]int64
		if json.Unmarshal(t.Domains, &ds) == nil {
			for d, n := range ds {
				bytes[d] = db.AddBytes(bytes[d], n)
			}
		}
	}
	other, hasOther := bytes[projects.OtherDomain]
	delete(bytes, projects.OtherDomain)
	out := make([]Domain, 0, len(bytes))
	for d, n := range bytes {
		out = append(out, Domain{Domain: d, Bytes: n})
	}
	slices.SortFunc(out, func(a, b Domain) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Domain, b.Domain))
	})
	if len(out) > DomainsKept {
		for _, d := range out[DomainsKept:] {
			other = db.AddBytes(other, d.Bytes)
		}
		out, hasOther = out[:DomainsKept], true
	}
	if hasOther {
		out = append(out, Domain{Domain: projects.OtherDomain, Bytes: other})
	}
	return out, nil
}

// shards are the new backfeed items per shard over the ShardsWindow's
// whole minutes up to now, the minute being filled included.
func shards(ctx context.Context, q *db.Queries, p projects.Project, now time.Time) ([]ShardNew, error) {
	since := now.Truncate(time.Minute).Add(-ShardsWindow + time.Minute)
	rows, err := q.BackfeedMinutesByShardSince(ctx, db.BackfeedMinutesByShardSinceParams{ProjectID: p.ID, Since: since})
	if err != nil {
		return nil, err
	}
	out := make([]ShardNew, 0, min(len(rows), ShardsShown+1))
	for i, r := range rows {
		if i < ShardsShown {
			out = append(out, ShardNew{Shard: r.Shard, New: r.Items})
			continue
		}
		if i == ShardsShown {
			out = append(out, ShardNew{})
		}
		out[ShardsShown].New += r.Items
		out[ShardsShown].Others++
	}
	return out, nil
}

func ratio(part, whole int64) *float64 {
	if whole <= 0 {
		return nil
	}
	r := float64(part) / float64(whole)
	return &r
}

// since finds the sample closest to window before the newest, and whether
// the history reaches back that far.
func since(history []sample, window time.Duration) (sample, bool) {
	newest := history[len(history)-1]
	for _, s := range history {
		if newest.at.Sub(s.at) <= window {
			return s, newest.at.Sub(s.at) >= window*9/10
		}
	}
	return newest, false
}

// rates are the moving averages: from this process's samples of the
// counters where they reach back far enough, else from the minute series
// (whole minutes only, so a minute still being filled does not drag the
// average down).
func rates(history []sample, minutes []db.SeriesMinutesSinceRow, now time.Time) Rates {
	var r Rates
	newest := history[len(history)-1]
	for _, x := range []struct {
		window       time.Duration
		items, bytes *float64
	}{
		{time.Minute, &r.ItemsPerSec1m, &r.BytesPerSec1m},
		{5 * time.Minute, &r.ItemsPerSec5m, &r.BytesPerSec5m},
		{time.Hour, &r.ItemsPerSec1h, &r.BytesPerSec1h},
	} {
		if old, ok := since(history, x.window); ok || x.window == time.Minute && newest.at.Sub(old.at) >= 10*time.Second {
			secs := newest.at.Sub(old.at).Seconds()
			*x.items = float64(newest.done-old.done) / secs
			*x.bytes = float64(newest.bytes-old.bytes) / secs
			continue
		}
		end := now.Truncate(time.Minute)
		start := end.Add(-x.window)
		var n, b int64
		for _, m := range minutes {
			if !m.At.Before(start) && m.At.Before(end) {
				n += m.Items
				b = db.AddBytes(b, m.Bytes)
			}
		}
		*x.items = float64(n) / x.window.Seconds()
		*x.bytes = float64(b) / x.window.Seconds()
	}
	return r
}

// health fills the request-based rates over the last five minutes of
// samples (all time when this process has watched for less).
func health(history []sample, h Health) Health {
	newest := history[len(history)-1]
	old, ok := since(history, 5*time.Minute)
	if !ok {
		old = history[0]
	}
	d := sample{
		done: newest.done - old.done, requests: newest.requests - old.requests, served: newest.served - old.served,
		reclaimServed: newest.reclaimServed - old.reclaimServed, roundTripMs: newest.roundTripMs - old.roundTripMs,
	}
	if d.requests == 0 && d.done == 0 {
		d = newest // nothing moved lately: all time
	}
	h.RequestServeRate = ratio(d.served, d.requests)
	h.ReclaimServeRate = ratio(d.reclaimServed, d.served)
	if d.done > 0 {
		rt := float64(d.roundTripMs) / float64(d.done) / 1000
		h.RoundTripSeconds = &rt
	}
	return h
}

// plan estimates the finish at the five-minute rate and, against the
// deadline, how many more warriors it would take.
// coverage says whether a recurring project gets through its list: every
// item tracked wants a visit each revisit_after, against the visits of the
// last hour (the torrent scorer's count against processed per hour).
func coverage(r Rates, t Totals, cfg projects.Config) *Coverage {
	c := &Coverage{Tracked: t.Todo + t.Claims + t.Revisits, VisitsPerHour: r.ItemsPerSec1h * 3600}
	c.NeededPerHour = float64(c.Tracked) * 3600 / float64(max(cfg.RevisitAfter, 1))
	c.Covered = c.VisitsPerHour >= c.NeededPerHour
	if !c.Covered && t.Active > 0 && c.VisitsPerHour > 0 {
		c.WarriorsNeeded = int64(math.Ceil(float64(t.Active)*c.NeededPerHour/c.VisitsPerHour)) - t.Active
	}
	return c
}

func plan(r *Rates, t Totals, cfg projects.Config, now time.Time) {
	left := t.Todo + t.Claims
	rate := r.ItemsPerSec5m
	if rate <= 0 {
		rate = r.ItemsPerSec1m
	}
	if rate > 0 {
		eta := float64(left) / rate
		finish := now.Add(time.Duration(eta * float64(time.Second)))
		r.ETASeconds, r.Finish = &eta, &finish
	}
	deadline, ok := cfg.DeadlineTime()
	if !ok {
		return
	}
	r.Deadline = &deadline
	if left > 0 && r.Finish == nil {
		return // nothing moves: no telling
	}
	onTrack := left == 0 || !r.Finish.After(deadline)
	r.OnTrack = &onTrack
	remaining := deadline.Sub(now).Seconds()
	if onTrack || t.Active == 0 || rate <= 0 || remaining <= 0 {
		return
	}
	perWarrior := rate / float64(t.Active)
	need := int64(math.Ceil(float64(left)/remaining/perWarrior)) - t.Active
	r.WarriorsNeeded = &need
}
