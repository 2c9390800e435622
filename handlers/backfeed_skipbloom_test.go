package handlers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tracker/books"
	"tracker/stats"
)

// A script that reports items again with skipbloom=1 (youtube-grab's
// problem reports, microsoftupdate-grab's rediscoveries) gets an item done
// before queued again and handed out; without skipbloom it stays a
// duplicate; an item queued or out is never queued twice; the board counts
// what was queued again.
func TestBackfeedSkipBloom(t *testing.T) {
	t.Parallel()
	f := setup(t, "url:done", "url:out", "url:queued")
	got, _ := f.request(t, "alice", 2)
	if strings.Join(got, " ") != "url:done url:out" {
		t.Fatalf("handed out %q", got)
	}
	f.done(t, "alice", "url:done")
	path := "/backfeed/legacy/test-" + f.project.Config.BackfeedKey
	post := func(query, body string) answer {
		t.Helper()
		return f.doBody(t, "POST", path+query, "application/x-www-form-urlencoded", body)
	}
	body := "url:done\x00url:out\x00url:queued\x00url:new\x00url:new\x00"

	// Without skipbloom, everything seen is a duplicate.
	if a := post("", body); a.status != 200 || a.body != `{"duplicates":4,"new":1,"status_code":200}` {
		t.Fatalf("plain post: %d %q", a.status, a.body)
	}
	if a := post("?skipbloom=0", "url:done\x00"); a.status != 200 || a.body != `{"duplicates":1,"new":0,"status_code":200}` {
		t.Fatalf("skipbloom=0: %d %q", a.status, a.body)
	}
	// With it, the done item is queued again; the one out and the one
	// queued are not, nor is url:new, queued by the post before.
	if a := post("?skipbloom=1", body); a.status != 200 || a.body != `{"again":1,"duplicates":4,"new":1,"status_code":200}` {
		t.Fatalf("skipbloom post: %d %q", a.status, a.body)
	}
	// Once queued again, it is not queued twice.
	if a := post("?delimiter=%0A&skipbloom=1", "url:done\nurl:out\n"); a.status != 200 || a.body != `{"again":0,"duplicates":2,"new":0,"status_code":200}` {
		t.Fatalf("skipbloom post again: %d %q", a.status, a.body)
	}
	if s := f.summary(t); s.Queues["backfeed"] != 2 || s.Queues["todo"] != 1 || s.Claims != 1 || s.BackfedAgain != 1 {
		t.Fatalf("after the posts: %+v", s)
	}

	// A value but 0 and 1 is refused, and changes nothing.
	a := post("?skipbloom=yes", "url:done\x00url:other\x00")
	var v map[string]any
	if a.status != 400 || a.reason != "invalid-skipbloom" || json.Unmarshal([]byte(a.body), &v) != nil || v["status_code"] != float64(400) {
		t.Fatalf("skipbloom=yes: %d %q %q", a.status, a.reason, a.body)
	}
	if s := f.summary(t); s.Queues["backfeed"] != 2 || s.BackfedAgain != 1 {
		t.Fatalf("a refused post changed the queues: %+v", s)
	}

	// The done item is handed out again, once; the one out stays with alice.
	got, _ = f.request(t, "bob", 10)
	if strings.Join(got, " ") != "url:queued url:done url:new" {
		t.Fatalf("bob was handed %q", got)
	}
	f.done(t, "bob", got...)
	f.done(t, "alice", "url:out")
	if s := f.summary(t); s.Done != 5 || s.Claims != 0 || s.Queued() != 0 {
		t.Fatalf("after the dones: %+v", s)
	}
	if r, err := books.Of(context.Background(), f.pool, f.project); err != nil || !r.Balanced {
		t.Fatalf("books: %v %+v", err, r)
	}

	// The board counts it, and the page shows it beside the backfeed counts.
	var b stats.Board
	getJSON(t, f.srv.URL+"/test/stats.json", nil, &b)
	if b.Totals.BackfedAgain != 1 {
		t.Fatalf("stats.json backfed_again %d, want 1", b.Totals.BackfedAgain)
	}
	if a := f.do(t, "GET", "/test/", ""); a.status != 200 || !strings.Contains(a.body, `data-testid="backfed-again"`) ||
		!strings.Contains(a.body, `<span class="num">1</span> in all`) {
		t.Fatalf("page: %d, no count of items queued again", a.status)
	}
}
