package handlers_test

import (
	"context"
	"strings"
	"testing"
)

// A recurring project over HTTP: a done with an outcome schedules the next
// visit with the adapted score, the board shows the coverage, and a done
// with an outcome that is no word nor factor is refused.
func TestRecurringOverHTTP(t *testing.T) {
	t.Parallel()
	f := setup(t, "tor:1", "tor:2")
	if _, err := f.store.Set(context.Background(), f.project, []string{"mode=recurring", "revisit_after=60"}); err != nil {
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
	if board.Totals.Revisits != 2 || board.Coverage == nil || board.Coverage.Tracked != 2 || board.Coverage.Covered {
		t.Fatalf("stats.json: %+v %+v", board, board.Coverage)
	}
	// Two items each wanted every minute, none visited in the last hour's
	// average: not covered.
	if page := f.do(t, "GET", "/test/", ""); !strings.Contains(page.body, `data-testid="coverage"`) {
		t.Fatal("the leaderboard has no coverage panel")
	}
}
