package stats

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/projects"
)

// doneAt records n items of b bytes each done at t in a project's minute
// and hour series, as the rollup folds them.
func doneAt(t *testing.T, pool *pgxpool.Pool, p projects.Project, at time.Time, n, b int64) {
	t.Helper()
	dbtest.MustExec(t, pool, `INSERT INTO series_minutes (project_id, minute, items, bytes) VALUES ($1, date_trunc('minute', $2::timestamptz, 'UTC'), $3, $4)
		ON CONFLICT (project_id, minute) DO UPDATE SET items = series_minutes.items + excluded.items, bytes = series_minutes.bytes + excluded.bytes`,
		p.ID, at, n, n*b)
	dbtest.MustExec(t, pool, `INSERT INTO series_hours (project_id, hour, items, bytes) VALUES ($1, date_trunc('hour', $2::timestamptz, 'UTC'), $3, $4)
		ON CONFLICT (project_id, hour) DO UPDATE SET items = series_hours.items + excluded.items, bytes = series_hours.bytes + excluded.bytes`,
		p.ID, at, n, n*b)
}

// A chart starts at the project's first completion, not a day or a month
// before it, and its buckets fit its length: a project two hours old is
// drawn by the minute, not as one bar at the right edge of an empty day.
// An old project's spans keep their windows; an empty one's too.
func TestChartFitsItsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 0)
	now := time.Now().UTC()
	first := now.Add(-2 * time.Hour)
	doneAt(t, f.pool, f.project, first, 30, 100)
	doneAt(t, f.pool, f.project, now.Add(-30*time.Minute), 10, 100)

	sum := func(c Chart) (n int64) {
		for _, p := range c.Points {
			n += p.Items
		}
		return n
	}
	for _, span := range []Span{SpanAll, SpanMonth, SpanWeek, SpanDay} {
		c, err := f.hub.Chart(ctx, f.project, span, "")
		if err != nil {
			t.Fatal(err)
		}
		start := c.Points[0].At
		if c.Bucket != 60 || start.After(first) || first.Sub(start) >= time.Minute || sum(c) != 40 || c.At.Before(now) {
			t.Errorf("%s: from %v by %d s (first done %v), %d items in %d points", span, start, c.Bucket, first, sum(c), len(c.Points))
		}
		if len(c.Points) < 120 || len(c.Points) > 122 {
			t.Errorf("%s: %d points over two hours by the minute", span, len(c.Points))
		}
	}

	// A project forty days old: each span its window, "all" all of it.
	old := dbtest.Project(t, f.pool, "old", "Old")
	doneAt(t, f.pool, old, now.Add(-40*24*time.Hour), 5, 1)
	doneAt(t, f.pool, old, now.Add(-time.Minute), 7, 1)
	for _, c := range []struct {
		span   Span
		bucket int64
		from   time.Duration
		items  int64
	}{
		{SpanAll, 6 * 3600, 40 * 24 * time.Hour, 12},
		{SpanMonth, 6 * 3600, 30 * 24 * time.Hour, 7},
		{SpanWeek, 3600, 7 * 24 * time.Hour, 7},
		{SpanDay, 300, 24 * time.Hour, 7},
	} {
		ch, err := f.hub.Chart(ctx, old, c.span, "")
		if err != nil {
			t.Fatal(err)
		}
		back := now.Sub(ch.Points[0].At)
		if ch.Bucket != c.bucket || back < c.from || back > c.from+time.Duration(c.bucket)*time.Second || sum(ch) != c.items {
			t.Errorf("%s: by %d s from %v ago, %d items", c.span, ch.Bucket, back, sum(ch))
		}
		if len(ch.Points) > chartBuckets+1 {
			t.Errorf("%s: %d points", c.span, len(ch.Points))
		}
	}

	// Nothing done yet: a week is still a week; all time is the last
	// quarter of an hour.
	empty := dbtest.Project(t, f.pool, "empty", "Empty")
	if c, err := f.hub.Chart(ctx, empty, SpanWeek, ""); err != nil || c.Bucket != 3600 || len(c.Points) < 168 {
		t.Errorf("empty week: %d s, %d points, %v", c.Bucket, len(c.Points), err)
	}
	if c, err := f.hub.Chart(ctx, empty, SpanAll, ""); err != nil || c.Bucket != 60 || len(c.Points) < 15 || len(c.Points) > 17 {
		t.Errorf("empty, all time: %d s, %d points, %v", c.Bucket, len(c.Points), err)
	}
}

// The leaderboard's chart carries the lines of the first ChartLines
// downloaders by bytes, however many there are: each their bytes over
// the span, added up by the hour from 0, nothing from before the span.
// It is read once for every viewer within chartEvery.
func TestBoardChartLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 0)
	now := time.Now().UTC()
	hour := now.Truncate(time.Hour)
	doneAt(t, f.pool, f.project, now.Add(-3*24*time.Hour), 1, 1)
	for i := range 15 {
		nick := fmt.Sprintf("nick%02d", i)
		bytes := int64(1000 * (15 - i)) // nick00 first
		dbtest.MustExec(t, f.pool, `INSERT INTO downloaders (project_id, nick, items, bytes, last_seen) VALUES ($1, $2, 3, $3, now())`,
			f.project.ID, nick, 3*bytes)
		for _, at := range []time.Time{hour.Add(-3 * 24 * time.Hour), hour.Add(-2 * time.Hour), hour} {
			dbtest.MustExec(t, f.pool, `INSERT INTO downloader_hours (project_id, downloader, hour, items, bytes) VALUES ($1, $2, $3, 1, $4)`,
				f.project.ID, nick, at, bytes)
		}
	}
	c, err := f.hub.BoardChart(ctx, f.project, SpanDay)
	if err != nil {
		t.Fatal(err)
	}
	if c.Lines == nil || len(c.Lines.Downloaders) != ChartLines || c.Lines.Bucket != 3600 {
		t.Fatalf("lines %+v", c.Lines)
	}
	if start := c.Lines.Start; start.After(c.Points[0].At) || c.Points[0].At.Sub(start) >= time.Hour {
		t.Errorf("lines from %v, chart from %v", start, c.Points[0].At)
	}
	for i, l := range c.Lines.Downloaders {
		want := int64(1000 * (15 - i))
		b := l.Bytes
		if l.Nick != fmt.Sprintf("nick%02d", i) || len(b) < 25 || b[0] != 0 || b[len(b)-1] != 2*want || !slices.Contains(b, want) {
			t.Errorf("line %d: %s %v", i, l.Nick, b)
		}
		for j := 1; j < len(b); j++ {
			if b[j] < b[j-1] {
				t.Errorf("%s's line goes down: %v", l.Nick, b)
			}
		}
	}
	again, err := f.hub.BoardChart(ctx, f.project, SpanDay)
	if err != nil || !again.At.Equal(c.At) {
		t.Errorf("read again within %v: %v, %v", chartEvery, again.At, err)
	}
	// A downloader's own chart has no lines.
	if d, err := f.hub.Chart(ctx, f.project, SpanDay, "nick00"); err != nil || d.Lines != nil {
		t.Errorf("a downloader's chart: %+v, %v", d.Lines, err)
	}
}
