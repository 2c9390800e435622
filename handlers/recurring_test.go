package handlers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
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
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(c.get(t, "/admin/projects/test/queues").body))
	if rows := doc.Find(`[data-testid="retired-item"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "tor:2") {
		t.Fatalf("retired items: %q", rows.Text())
	}
}
