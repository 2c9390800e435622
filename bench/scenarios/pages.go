package scenarios

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
	"tracker/bench/load"
)

// pagesProject is the project the pages scenario reads: big, and watched.
const pagesProject = "pages"

// seedPages makes a project of o.PageItems queued items and o.PageNicks
// downloaders (a tenth of them with eight days of hourly history), written
// straight into the tables: the scale the pages must render at, without the
// hours it would take warriors to make it.
func (b *bench) seedPages(ctx context.Context) error {
	if _, err := b.cli("", "project", "create", pagesProject, "--title", "Pages at scale"); err != nil {
		return err
	}
	var id int32
	if err := b.pool.QueryRow(ctx, "SELECT id FROM projects WHERE slug = $1", pagesProject).Scan(&id); err != nil {
		return err
	}
	start := time.Now()
	steps := []struct {
		what, sql string
		args      []any
	}{
		{"seen", `INSERT INTO seen (project_id, hash, id) SELECT $1, item_hash('page:' || g), g FROM generate_series(1, $2::int) g`, []any{id, b.o.PageItems}},
		{"todo", `INSERT INTO todo (project_id, queue, id, name) SELECT $1, 'todo', g, 'page:' || g FROM generate_series(1, $2::int) g`, []any{id, b.o.PageItems}},
		{"counters", `INSERT INTO counters (project_id, name, shard, value) VALUES ($1, 'queue:todo', 0, $2::bigint)`, []any{id, b.o.PageItems}},
		{"downloaders", `INSERT INTO downloaders (project_id, nick, items, bytes, version, first_seen, last_seen)
			SELECT $1, 'volunteer-' || g, 1 + g % 5000, (1 + g % 5000)::bigint * 1048576, '20261122.01',
			       now() - interval '30 days', now() - (g % 86400) * interval '1 second'
			FROM generate_series(1, $2::int) g`, []any{id, b.o.PageNicks}},
		{"downloader hours", `INSERT INTO downloader_hours (project_id, downloader, hour, items, bytes)
			SELECT $1, 'volunteer-' || (n * 10 + h % 10), date_trunc('hour', now()) - h * interval '1 hour', 3, 3145728
			FROM generate_series(0, 24 * 8 - 1) h, generate_series(1, $2::int / 10) n`, []any{id, b.o.PageNicks}},
		{"series", `INSERT INTO series_hours (project_id, hour, items, bytes)
			SELECT $1, date_trunc('hour', now()) - h * interval '1 hour', 30000, 31457280000 FROM generate_series(0, 24 * 30 - 1) h`, []any{id}},
		{"minutes", `INSERT INTO series_minutes (project_id, minute, items, bytes)
			SELECT $1, date_trunc('minute', now()) - m * interval '1 minute', 500, 524288000 FROM generate_series(0, 60 * 48 - 1) m`, []any{id}},
		{"analyze", `ANALYZE`, nil},
	}
	for _, s := range steps {
		if _, err := b.pool.Exec(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("seeding %s: %w", s.what, err)
		}
	}
	fmt.Fprintf(os.Stderr, "pages: seeded %d items and %d downloaders in %.0f s\n", b.o.PageItems, b.o.PageNicks, time.Since(start).Seconds())
	return nil
}

// pages reads the public pages of the seeded project one after another, as
// one volunteer clicking through: what a page costs the server, with
// nothing else running.
func (b *bench) pages(ctx context.Context) error {
	if err := b.seedPages(ctx); err != nil {
		return err
	}
	p := "/" + pagesProject
	reads := []struct{ endpoint, path string }{
		{"leaderboard", p + "/"},
		{"leaderboard 24h", p + "/?period=24h"},
		{"leaderboard 7d p.500", p + "/?period=7d&order=items&page=500"},
		{"downloader", p + "/downloader/volunteer-4242"},
		{"home", "/"},
		{"stats.json", p + "/stats.json"},
		{"charts.json", p + "/charts.json?span=month"},
	}
	// The first read of a project starts its board; the page numbers are
	// of a board kept warm, as on a watched project.
	c := load.Client()
	warm, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+p+"/", nil)
	if resp, err := c.Do(warm); err == nil {
		resp.Body.Close()
	}
	// stats.json carries the original tracker's keys, a map entry per
	// downloader among them (up to 10,000): its size at this scale, and
	// its first read, which encodes them.
	for _, enc := range []string{"", "gzip"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+p+"/stats.json", nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "pages: stats.json %d bytes (encoding %q) in %.1f ms\n", n, resp.Header.Get("Content-Encoding"), float64(time.Since(start).Microseconds())/1000)
	}
	b.measure(ctx, "pages", 1, func(ctx context.Context, l *load.Load) []func() {
		return []func(){func() {
			for i := 0; ctx.Err() == nil; i++ {
				r := reads[i%len(reads)]
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+r.path, nil)
				l.Do(c, r.endpoint, req)
				if i%50 == 49 { // now and then the last page, past every other downloader
					last := (b.o.PageNicks + 99) / 100
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+p+"/?page="+strconv.Itoa(last), nil)
					l.Do(c, "last page", req)
				}
			}
		}}
	}, fmt.Sprintf("one reader going through the pages of a project of %d items and %d downloaders (a tenth active in the last week); latencies are the server's plus loopback", b.o.PageItems, b.o.PageNicks))
	return nil
}
