package stats

import (
	"context"
	"math"
	"testing"

	"tracker/books"
	"tracker/db/dbtest"
	"tracker/items"
)

// Byte counts near 2^63 saturate everywhere they are summed: the
// completion, the fold, the board, the rankings, the downloader pages and
// the books all carry on with the largest int64.
func TestBytesNearTheMaximumSaturate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 20)
	const top = math.MaxInt64
	// Every shard of the bytes counter next to the maximum: the next
	// done's bytes would overflow whichever shard it adds to.
	dbtest.MustExec(t, f.pool, "INSERT INTO counters (project_id, name, shard, value) SELECT $1, 'bytes', s, $2 FROM generate_series(0, 1023) s",
		f.project.ID, int64(top-1))
	f.work(t, "alice", "1", 10, 10*items.MaxItemBytes)

	// Tallies of (almost) the maximum each, as a done of that size would
	// have appended, twice over and on two projects.
	other := dbtest.Project(t, f.pool, "other", "Other")
	tally := func(project int32, nick string) {
		t.Helper()
		dbtest.MustExec(t, f.pool, `INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item)
		      VALUES ($1, $2, 1, $3, '1', jsonb_build_object('data', $3::bigint), 'item:x')`, project, nick, int64(top-10))
	}
	s := NewStore(f.pool)
	fold := func(want int64) {
		t.Helper()
		if n, err := s.Fold(ctx); err != nil || n != want {
			t.Fatalf("folded %d, %v; want %d", n, err, want)
		}
	}
	tally(f.project.ID, "alice")
	tally(f.project.ID, "bob")
	tally(f.project.ID, "bob")
	tally(other.ID, "alice")
	fold(5) // sums of a batch past the maximum
	tally(f.project.ID, "alice")
	tally(f.project.ID, "bob")
	fold(2) // totals plus a batch past the maximum
	tally(f.project.ID, "alice")
	tally(f.project.ID, "carol") // pending: the board adds it to the folded totals

	for _, table := range []string{"downloaders", "series_minutes", "series_hours", "downloader_hours", "domain_totals"} {
		var got int64
		if err := f.pool.QueryRow(ctx, "SELECT max(bytes) FROM "+table+" WHERE project_id = $1", f.project.ID).Scan(&got); err != nil || got != top {
			t.Errorf("%s: largest bytes %d, %v; want %d", table, got, err, int64(top))
		}
	}

	b, _, _, err := f.hub.Board(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	if b.Totals.Bytes != top || len(b.Leaders) != 3 || b.Leaders[0].Bytes != top || b.Leaders[1].Bytes != top ||
		len(b.Domains) != 1 || b.Domains[0].Bytes != top {
		t.Fatalf("board: totals %+v, leaders %+v, domains %+v", b.Totals, b.Leaders, b.Domains)
	}
	for _, period := range []Period{AllTime, Day, Week} {
		r, err := f.hub.Ranking(ctx, f.project, period, ByBytes, 0, -1)
		if err != nil || len(r.Leaders) < 2 || r.Leaders[0].Bytes != top {
			t.Fatalf("%s ranking %+v, %v", period, r, err)
		}
	}
	d, err := f.hub.Downloader(ctx, f.project, "alice")
	if err != nil || d.Bytes != top || d.Day.Bytes != top {
		t.Fatalf("downloader %+v, %v", d, err)
	}
	for _, nick := range []string{"", "alice"} {
		c, err := f.hub.Chart(ctx, f.project, SpanDay, nick)
		if err != nil {
			t.Fatalf("chart of %q: %v", nick, err)
		}
		var largest int64
		for _, p := range c.Points {
			largest = max(largest, p.Bytes)
		}
		if largest != top {
			t.Fatalf("chart of %q: largest bytes %d", nick, largest)
		}
	}
	if n, err := f.hub.Nick(ctx, "alice"); err != nil || n.Bytes != top || len(n.Projects) != 2 {
		t.Fatalf("nick %+v, %v", n, err)
	}

	r, err := books.Of(ctx, f.pool, f.project)
	if err != nil {
		t.Fatalf("books: %v", err)
	}
	for _, c := range r.Checks {
		if c.Name == "the downloaders' bytes add up to the bytes" && (!c.OK || c.Found != top) {
			t.Fatalf("books: %+v", c)
		}
	}
}
