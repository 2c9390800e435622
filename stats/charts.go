package stats

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/projects"
)

// chartSpans: how far back each span reaches (0: to the project's first
// completion).
var chartSpans = map[Span]time.Duration{
	SpanDay:   24 * time.Hour,
	SpanWeek:  7 * 24 * time.Hour,
	SpanMonth: 30 * 24 * time.Hour,
	SpanAll:   0,
}

// A chart's buckets are the narrowest of chartWidths that cut its span
// into at most chartBuckets: a full day by 5 minutes, a week by the hour,
// a month by 6 hours, a project two hours old by the minute. Widths under
// an hour only where the minute buckets are kept (MinutesKept).
var chartWidths = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
	6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

const (
	chartBuckets = 360
	// chartMinSpan is the shortest span a chart shows: a project's first
	// minutes as a quarter of an hour by the minute, not one bar.
	chartMinSpan = 15 * time.Minute
	// ChartLines is how many downloaders a project's chart draws a line
	// for: the first of the all-time board by bytes.
	ChartLines = 10
	// chartEvery is how long a project's chart, with its lines, is kept
	// for every viewer before it is read again.
	chartEvery = 5 * time.Second
)

// ValidSpan says whether s is a chart span.
func ValidSpan(s Span) bool { _, ok := chartSpans[s]; return ok }

// chartWidth is the bucket width of a chart from start to now, at least
// least wide.
func chartWidth(start, now time.Time, least time.Duration) time.Duration {
	for _, w := range chartWidths {
		if w < least || (w < time.Hour && start.Before(now.Add(-MinutesKept))) {
			continue
		}
		if now.Sub(start)/w < chartBuckets {
			return w
		}
	}
	return chartWidths[len(chartWidths)-1]
}

// Chart is the project's completions over a span, or one downloader's
// when nick is set. The span starts no earlier than the project's first
// completion, so a young project's chart is not one bar at the right edge
// of an empty day. Buckets with nothing done are present, as zeros.
func (h *Hub) Chart(ctx context.Context, p projects.Project, span Span, nick string) (Chart, error) {
	back, ok := chartSpans[span]
	if !ok {
		span, back = SpanDay, chartSpans[SpanDay]
	}
	now := time.Now().UTC()
	first, err := h.firstDone(ctx, p, now)
	if err != nil {
		return Chart{}, err
	}
	start := p.CreatedAt.UTC()
	switch {
	case !first.IsZero() && (back == 0 || first.After(now.Add(-back))):
		start = first
	case back > 0:
		start = now.Add(-back)
	}
	if now.Sub(start) < chartMinSpan {
		start = now.Add(-chartMinSpan)
	}
	least := time.Minute
	if nick != "" {
		least = time.Hour // downloaders are kept by the hour
	}
	bucket := chartWidth(start, now, least)
	start = start.Truncate(bucket)

	var rows []Point
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
	return Chart{Span: span, Bucket: int64(bucket / time.Second), At: now, Points: buckets(rows, start, now, bucket)}, nil
}

// firstDone is the time of the project's first folded completion, to the
// minute when it is recent enough for the minutes to be kept, else to the
// hour; zero when there is none.
func (h *Hub) firstDone(ctx context.Context, p projects.Project, now time.Time) (time.Time, error) {
	first, err := h.q.SeriesHoursFirst(ctx, p.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	if first.After(now.Add(-MinutesKept + time.Hour)) {
		minute, err := h.q.SeriesMinutesFirst(ctx, db.SeriesMinutesFirstParams{ProjectID: p.ID, Since: first})
		switch {
		case err == nil:
			return minute.UTC(), nil
		case !errors.Is(err, pgx.ErrNoRows):
			return time.Time{}, err
		}
	}
	return first.UTC(), nil
}

// BoardChart is the project's chart of a span with the lines of its top
// downloaders (ChartLines of them), as the leaderboard shows it: read at
// most every chartEvery, whoever asks.
func (h *Hub) BoardChart(ctx context.Context, p projects.Project, span Span) (Chart, error) {
	if !ValidSpan(span) {
		span = SpanDay
	}
	w := h.watchOf(p)
	w.mu.Lock()
	c, ok := w.charts[span]
	w.mu.Unlock()
	if ok && time.Since(c.At) < chartEvery {
		return c, nil
	}
	c, err := h.Chart(ctx, p, span, "")
	if err != nil {
		return Chart{}, err
	}
	if c.Lines, err = h.lines(ctx, w, c); err != nil {
		return Chart{}, err
	}
	w.mu.Lock()
	if w.charts == nil {
		w.charts = map[Span]Chart{}
	}
	w.charts[span] = c
	w.mu.Unlock()
	return c, nil
}

// lines are the cumulative bytes of the project's top downloaders over
// the chart's span, by the hour at least (as downloaders are kept).
func (h *Hub) lines(ctx context.Context, w *watch, c Chart) (*Lines, error) {
	if len(c.Points) == 0 {
		return nil, nil
	}
	r, err := h.currentRankings(ctx, w)
	if err != nil {
		return nil, err
	}
	var nicks []string
	for _, i := range r.all.byBytes[:min(ChartLines, len(r.all.byBytes))] {
		nicks = append(nicks, r.all.entries[i].nick)
	}
	if len(nicks) == 0 {
		return nil, nil
	}
	width := max(time.Duration(c.Bucket)*time.Second, time.Hour)
	start := c.Points[0].At.Truncate(width)
	bins := int(c.At.Sub(start)/width) + 1
	rows, err := h.q.DownloaderHoursBinned(ctx, db.DownloaderHoursBinnedParams{ProjectID: w.project.ID,
		Nicks: nicks, Since: start, Width: int64(width / time.Second)})
	if err != nil {
		return nil, err
	}
	l := &Lines{Start: start, Bucket: int64(width / time.Second), Downloaders: make([]Line, len(nicks))}
	at := map[string]int{}
	for i, nick := range nicks {
		l.Downloaders[i] = Line{Nick: nick, Bytes: make([]int64, bins+1)}
		at[nick] = i
	}
	for _, row := range rows {
		if i, ok := at[row.Downloader]; ok && row.Bin >= 0 && int(row.Bin) < bins {
			l.Downloaders[i].Bytes[row.Bin+1] = row.Bytes
		}
	}
	for i := range l.Downloaders {
		b := l.Downloaders[i].Bytes
		for j := 1; j < len(b); j++ {
			b[j] = db.AddBytes(b[j-1], b[j])
		}
	}
	return l, nil
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

// Downloader is one downloader's numbers on a project, read from one
// snapshot: the folded totals and the tallies not folded yet, so that the
// last 24 hours and 7 days count what the items done count. Their version
// is their latest claim's when they claimed since their latest done: a
// warrior upgraded to the wanted version is not called outdated until its
// first done.
func (h *Hub) Downloader(ctx context.Context, p projects.Project, nick string) (DownloaderStats, error) {
	out := DownloaderStats{Project: p.Slug, Nick: nick}
	now := h.now()
	err := pgx.BeginTxFunc(ctx, h.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		out = DownloaderStats{Project: p.Slug, Nick: nick}
		q := db.Of(tx)
		d, err := q.DownloaderGet(ctx, db.DownloaderGetParams{ProjectID: p.ID, Nick: nick})
		switch {
		case err == nil:
			out.Items, out.Bytes, out.Version = d.Items, d.Bytes, d.Version
			out.FirstSeen, out.LastSeen = &d.FirstSeen, &d.LastSeen
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		hours, err := q.DownloaderHoursOf(ctx, db.DownloaderHoursOfParams{ProjectID: p.ID, Downloader: nick,
			Day: now.Add(-24 * time.Hour).Truncate(time.Hour), Week: now.Add(-7 * 24 * time.Hour).Truncate(time.Hour)})
		if err != nil {
			return err
		}
		out.Day = Leader{Nick: nick, Items: hours.DayItems, Bytes: hours.DayBytes}
		out.Week = Leader{Nick: nick, Items: hours.WeekItems, Bytes: hours.WeekBytes}
		pending, err := q.DoneTalliesPending(ctx, p.ID)
		if err != nil {
			return err
		}
		for _, t := range pending {
			if t.Downloader != nick {
				continue
			}
			// Tallies wait minutes for their fold: they are of the
			// last 24 hours.
			out.Items += t.Items
			out.Bytes = db.AddBytes(out.Bytes, t.Bytes)
			for _, l := range []*Leader{&out.Day, &out.Week} {
				l.Items += t.Items
				l.Bytes = db.AddBytes(l.Bytes, t.Bytes)
			}
			if out.LastSeen == nil || t.LastSeen.After(*out.LastSeen) {
				last := t.LastSeen
				out.LastSeen, out.Version = &last, t.Version
			}
			if out.FirstSeen == nil {
				out.FirstSeen = out.LastSeen
			}
		}
		claims, err := q.ClaimsOfDownloader(ctx, db.ClaimsOfDownloaderParams{ProjectID: p.ID, Downloader: nick})
		if err != nil {
			return err
		}
		out.Claims, out.Reclaimed = claims.Claims, claims.Reclaimed
		if claims.Claims > 0 && (out.LastSeen == nil || claims.LastClaimed.After(*out.LastSeen)) {
			out.Version = claims.Version
		}
		out.Expired24h, err = q.ClaimExpiriesCountSince(ctx, db.ClaimExpiriesCountSinceParams{ProjectID: p.ID,
			Downloader: nick, Since: now.Add(-24 * time.Hour)})
		return err
	})
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
		x.out.Rank, _ = x.b.rankOf(nick)
		if x.b.bytes > 0 {
			x.out.Share = float64(x.out.Bytes) / float64(x.b.bytes)
		}
	}
	return out, nil
}

// ExpiriesWindow is how far back TopExpiries counts claims that ran out.
const ExpiriesWindow = 24 * time.Hour

// TopExpiries are the downloaders whose claims ran out most often in the
// last ExpiriesWindow, at most max, each with what they completed meanwhile: a
// warrior the site turned away claims and drops items.
func (h *Hub) TopExpiries(ctx context.Context, p projects.Project, max int) ([]Expiries, error) {
	rows, err := h.q.ClaimExpiriesTopSince(ctx, db.ClaimExpiriesTopSinceParams{ProjectID: p.ID,
		Since: h.now().Add(-ExpiriesWindow), Max: int32(max)})
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

// Only is the nick's work on the projects keep keeps, totals summed again.
func (t NickTotals) Only(keep func(DownloaderStats) bool) NickTotals {
	out := NickTotals{Nick: t.Nick}
	for _, d := range t.Projects {
		if keep(d) {
			out.Items += d.Items
			out.Bytes = db.AddBytes(out.Bytes, d.Bytes)
			out.Projects = append(out.Projects, d)
		}
	}
	return out
}
