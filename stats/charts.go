package stats

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/projects"
)

// chartSpans: how far back each span reaches and how wide its buckets are.
var chartSpans = map[Span]struct{ back, bucket time.Duration }{
	SpanDay:   {24 * time.Hour, 5 * time.Minute},
	SpanWeek:  {7 * 24 * time.Hour, time.Hour},
	SpanMonth: {30 * 24 * time.Hour, 6 * time.Hour},
	SpanAll:   {0, 24 * time.Hour},
}

// ValidSpan says whether s is a chart span.
func ValidSpan(s Span) bool { _, ok := chartSpans[s]; return ok }

// Chart is the project's completions over a span, or one downloader's
// when nick is set. Buckets with nothing done are present, as zeros.
func (h *Hub) Chart(ctx context.Context, p projects.Project, span Span, nick string) (Chart, error) {
	sp, ok := chartSpans[span]
	if !ok {
		span, sp = SpanDay, chartSpans[SpanDay]
	}
	now := time.Now().UTC()
	bucket := sp.bucket
	if nick != "" && bucket < time.Hour {
		bucket = time.Hour // downloaders are kept by the hour
	}
	start := p.CreatedAt.UTC()
	if sp.back > 0 {
		start = now.Add(-sp.back)
	}
	start = start.Truncate(bucket)

	var rows []Point
	var err error
	switch {
	case nick != "":
		var rs []db.DownloaderHoursSinceRow
		rs, err = h.q.DownloaderHoursSince(ctx, db.DownloaderHoursSinceParams{ProjectID: p.ID, Downloader: nick, Since: start})
		for _, r := range rs {
			rows = append(rows, Point{At: r.At, Items: r.Items, Bytes: r.Bytes})
		}
	case bucket < time.Hour:
		var rs []db.SeriesMinutesSinceRow
		rs, err = h.q.SeriesMinutesSince(ctx, db.SeriesMinutesSinceParams{ProjectID: p.ID, Since: start})
		for _, r := range rs {
			rows = append(rows, Point{At: r.At, Items: r.Items, Bytes: r.Bytes})
		}
	default:
		var rs []db.SeriesHoursSinceRow
		rs, err = h.q.SeriesHoursSince(ctx, db.SeriesHoursSinceParams{ProjectID: p.ID, Since: start})
		for _, r := range rs {
			rows = append(rows, Point{At: r.At, Items: r.Items, Bytes: r.Bytes})
		}
	}
	if err != nil {
		return Chart{}, err
	}
	return Chart{Span: span, Bucket: int64(bucket / time.Second), Points: buckets(rows, start, now, bucket)}, nil
}

// buckets sums rows into buckets of width from start to now.
func buckets(rows []Point, start, now time.Time, width time.Duration) []Point {
	n := int(now.Sub(start)/width) + 1
	out := make([]Point, n)
	for i := range out {
		out[i].At = start.Add(time.Duration(i) * width)
	}
	for _, r := range rows {
		i := int(r.At.Sub(start) / width)
		if i >= 0 && i < n {
			out[i].Items += r.Items
			out[i].Bytes = db.AddBytes(out[i].Bytes, r.Bytes)
		}
	}
	return out
}

// ErrNoDownloader means the nick has completed nothing on the project.
var ErrNoDownloader = errors.New("no such downloader on this project")

// Downloader is one downloader's numbers on a project.
func (h *Hub) Downloader(ctx context.Context, p projects.Project, nick string) (DownloaderStats, error) {
	out := DownloaderStats{Project: p.Slug, Nick: nick}
	d, err := h.q.DownloaderGet(ctx, db.DownloaderGetParams{ProjectID: p.ID, Nick: nick})
	switch {
	case err == nil:
		out.Items, out.Bytes, out.Version = d.Items, d.Bytes, d.Version
		out.FirstSeen, out.LastSeen = &d.FirstSeen, &d.LastSeen
	case !errors.Is(err, pgx.ErrNoRows):
		return out, err
	}
	pending, err := h.q.DoneTalliesPending(ctx, p.ID)
	if err != nil {
		return out, err
	}
	for _, t := range pending {
		if t.Downloader != nick {
			continue
		}
		out.Items += t.Items
		out.Bytes = db.AddBytes(out.Bytes, t.Bytes)
		if out.LastSeen == nil || t.LastSeen.After(*out.LastSeen) {
			last := t.LastSeen
			out.LastSeen, out.Version = &last, t.Version
		}
		if out.FirstSeen == nil {
			out.FirstSeen = out.LastSeen
		}
	}
	claims, err := h.q.ClaimsOfDownloader(ctx, db.ClaimsOfDownloaderParams{ProjectID: p.ID, Downloader: nick})
	if err != nil {
		return out, err
	}
	out.Claims, out.Reclaimed = claims.Claims, claims.Reclaimed
	out.Expired24h, err = h.q.ClaimExpiriesCountSince(ctx, db.ClaimExpiriesCountSinceParams{ProjectID: p.ID,
		Downloader: nick, Since: h.now().Add(-24 * time.Hour)})
	if err != nil {
		return out, err
	}
	if out.LastSeen == nil && out.Claims == 0 && out.Expired24h == 0 {
		return out, ErrNoDownloader
	}
	out.Outdated = outdated(out.Version, p.Config.MinVersion)

	r, err := h.currentRankings(ctx, h.watchOf(p))
	if err != nil {
		return out, err
	}
	out.Rank, _ = r.all.rankOf(nick)
	for _, x := range []struct {
		b   board
		out *Leader
	}{{r.day, &out.Day}, {r.week, &out.Week}} {
		rank, e := x.b.rankOf(nick)
		*x.out = Leader{Rank: rank, Nick: nick, Items: e.items, Bytes: e.bytes}
		if x.b.bytes > 0 {
			x.out.Share = float64(e.bytes) / float64(x.b.bytes)
		}
	}
	return out, nil
}

// TopExpiries are the downloaders whose claims ran out most often in the
// last 24 hours, at most max, each with what they completed meanwhile: a
// warrior the site turned away claims and drops items.
func (h *Hub) TopExpiries(ctx context.Context, p projects.Project, max int) ([]Expiries, error) {
	rows, err := h.q.ClaimExpiriesTopSince(ctx, db.ClaimExpiriesTopSinceParams{ProjectID: p.ID,
		Since: h.now().Add(-24 * time.Hour), Max: int32(max)})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	r, err := h.currentRankings(ctx, h.watchOf(p))
	if err != nil {
		return nil, err
	}
	out := make([]Expiries, len(rows))
	for i, row := range rows {
		_, e := r.day.rankOf(row.Downloader)
		out[i] = Expiries{Nick: row.Downloader, Expired: row.Expired, Completed: e.items}
	}
	return out, nil
}

// Nick is a nick's totals over every project (folded totals: they lag the
// live boards by at most the rollup's interval).
func (h *Hub) Nick(ctx context.Context, nick string) (NickTotals, error) {
	out := NickTotals{Nick: nick}
	rows, err := h.q.DownloadersByNick(ctx, nick)
	if err != nil {
		return out, err
	}
	for _, d := range rows {
		first, last := d.FirstSeen, d.LastSeen
		out.Items += d.Items
		out.Bytes = db.AddBytes(out.Bytes, d.Bytes)
		out.Projects = append(out.Projects, DownloaderStats{Project: d.Slug, Nick: nick, Items: d.Items, Bytes: d.Bytes,
			Version: d.Version, FirstSeen: &first, LastSeen: &last})
	}
	return out, nil
}
