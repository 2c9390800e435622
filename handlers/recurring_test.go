package handlers_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tracker/archive"
	"tracker/books"
	"tracker/db/dbtest"
	"tracker/items"
)

// A recurring project over HTTP: a done with an outcome schedules the next
// visit with the adapted score or retires the item, the board shows the
// coverage, the admin panel the retired items, and a done with an outcome
// that is no word nor factor is refused.
func TestRecurringOverHTTP(t *testing.T) {
	t.Parallel()
	f := setup(t, "tor:1", "tor:2")
	if _, err := f.store.Set(context.Background(), f.project, []string{"mode=recurring", "revisit_after=60", "retire_below=0.6"}); err != nil {
		t.Fatal(err)
	}
	f.do(t, "POST", "/test/multi=2/request", `{"downloader":"alice"}`)
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"tor:1","bytes":{},"outcome":{"tor:1":"lots"}}`); a.status != 400 {
		t.Fatalf("unknown outcome: %d", a.status)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"tor:1\u0000tor:2","bytes":{"data":2},"outcome":{"tor:1":"full","tor:2":0.5}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	if a := f.do(t, "GET", "/test/items/tor:1.json", ""); !strings.Contains(a.body, `"status":"scheduled"`) || !strings.Contains(a.body, `"score":1.2`) || !strings.Contains(a.body, `"due_at"`) {
		t.Fatalf("lookup: %s", a.body)
	}
	var board struct {
		Totals   struct{ Revisits int64 }
		Coverage *struct {
			Tracked int64
			Covered bool
		}
	}
	getJSON(t, f.srv.URL+"/test/stats.json", nil, &board)
	if board.Totals.Revisits != 1 || board.Coverage == nil || board.Coverage.Tracked != 1 || board.Coverage.Covered {
		t.Fatalf("stats.json: %+v %+v", board, board.Coverage)
	}
	if page := f.do(t, "GET", "/test/", ""); !strings.Contains(page.body, `data-testid="coverage"`) {
		t.Fatal("the leaderboard has no coverage panel")
	}

	// tor:2 retired (0.5 below 0.6): the admin panel lists it.
	c := f.admin(t)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(c.get(t, "/admin/projects/test/queues").body))
	if rows := doc.Find(`[data-testid="retired-item"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "tor:2") {
		t.Fatalf("retired items: %q", rows.Text())
	}
}

// Dropping a retired item from the admin panel takes its score and
// parameters with it: at once when its completion is archived, with the
// archive of its completion otherwise; the books balance at every step.
func TestDropRetiredLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	p, err := f.store.Set(ctx, f.project, []string{"mode=recurring", "revisit_after=60", "retire_below=0.6"})
	if err != nil {
		t.Fatal(err)
	}
	f.project = p
	if _, err := items.NewEngine(f.pool, nil).Add(ctx, p, "todo", strings.NewReader("tor:1\t{\"n\":1}\ntor:2\t{\"n\":2}")); err != nil {
		t.Fatal(err)
	}
	f.do(t, "POST", "/test/multi=2/request", `{"downloader":"alice"}`)
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"tor:1\u0000tor:2","bytes":{"data":2},"outcome":{"tor:1":0.5,"tor:2":0.5}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	// rows counts the score and parameters the item named has. Its id is
	// read from seen alone: on Citus, seen is spread by the name's hash,
	// away from the project's other tables.
	rows := func(name string) int64 {
		t.Helper()
		var id int64
		dbtest.MustScan(t, f.pool.QueryRow(ctx, "SELECT id FROM seen WHERE project_id = $1 AND hash = item_hash($2)", f.project.ID, name), &id)
		return dbtest.Count(t, f.pool, `SELECT (SELECT count(*) FROM item_scores x WHERE x.project_id = $1 AND x.id = $2)
			+ (SELECT count(*) FROM item_params x WHERE x.project_id = $1 AND x.id = $2)`, f.project.ID, id)
	}
	balanced := func(when string) {
		t.Helper()
		p, err := f.store.Get(ctx, f.project.Slug)
		if err != nil {
			t.Fatal(err)
		}
		r, err := books.Of(ctx, f.pool, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Checks {
			if !c.OK {
				t.Errorf("the books %s: %s (want %d, found %d)", when, c.Name, c.Want, c.Found)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	if rows("tor:1") != 2 || rows("tor:2") != 2 {
		t.Fatalf("retired: %d and %d rows, want a score and parameters each", rows("tor:1"), rows("tor:2"))
	}
	c := f.admin(t)

	// tor:1 dropped while its completion is in the hot table, which holds
	// its score and parameters until the archive takes it.
	if a := c.confirmed(t, "/admin/projects/test/item/drop", url.Values{"name": {"tor:1"}}, "drops the retired item tor:1"); a.status != 303 {
		t.Fatalf("drop of tor:1: %d %s", a.status, a.body)
	}
	balanced("after the drop of tor:1")
	if n := rows("tor:1"); n != 2 {
		t.Fatalf("tor:1, dropped and done: %d rows, want 2", n)
	}
	f.archiveOld(t)
	balanced("after the archive")
	if rows("tor:1") != 0 || rows("tor:2") != 2 {
		t.Fatalf("after the archive: tor:1 %d rows, want 0; tor:2, still retired, %d, want 2", rows("tor:1"), rows("tor:2"))
	}
	// tor:2 dropped once its completion is archived: nothing holds them.
	if a := c.confirmed(t, "/admin/projects/test/item/drop", url.Values{"name": {"tor:2"}}, "drops the retired item tor:2"); a.status != 303 {
		t.Fatalf("drop of tor:2: %d %s", a.status, a.body)
	}
	balanced("after the drop of tor:2")
	if n := rows("tor:2"); n != 0 {
		t.Fatalf("tor:2, dropped with its completion archived: %d rows, want 0", n)
	}
}

// archiveOld archives the project's completions as if they were made days
// ago.
func (f fixture) archiveOld(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	dbtest.Age(t, f.pool, 4*24*time.Hour, dbtest.Completions(f.project.ID))
	p, err := f.store.Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = f.store.Set(ctx, p, []string{"archive_after=86400"}); err != nil {
		t.Fatal(err)
	}
	if res, err := archive.New(f.pool, t.TempDir()).Project(ctx, p, time.Now()); err != nil || res.Items == 0 {
		t.Fatalf("archive: %+v %v", res, err)
	}
}
