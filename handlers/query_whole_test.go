package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// A query the tracker cannot read whole, a ';' (which Go's parser no
// longer takes for a separator, and drops with what it holds) or a bad
// escape, is refused 400 invalid-query on every route, and changes
// nothing: a backfeed post with ?skipbloom=1; is not taken for one without
// skipbloom, a bad shard or callback hidden behind a ';' is not let
// through.
func TestQueryNotReadWholeRefused(t *testing.T) {
	t.Parallel()
	f := setup(t, "url:done", "url:queued")
	if got, _ := f.request(t, "alice", 1); strings.Join(got, " ") != "url:done" {
		t.Fatalf("handed out %q", got)
	}
	f.done(t, "alice", "url:done")
	before := f.summary(t)
	backfeed := "/backfeed/legacy/test-" + f.project.Config.BackfeedKey
	for _, c := range []struct{ method, path, contentType, body string }{
		// Reported again, it would be taken for a duplicate: the report lost.
		{"POST", backfeed + "?skipbloom=1;", "application/x-www-form-urlencoded", "url:done\x00url:new\x00"},
		{"POST", backfeed + "?skipbloom=2;x", "application/x-www-form-urlencoded", "url:new\x00"},
		{"POST", backfeed + "?shard=bad!;", "application/x-www-form-urlencoded", "url:new\x00"},
		{"POST", backfeed + "?shard=%zz", "application/x-www-form-urlencoded", "url:new\x00"},
		{"POST", backfeed + "?delimiter=%0A&skipbloom=1%", "application/x-www-form-urlencoded", "url:new\n"},
		{"GET", "/projects.json?callback=a(1);x=1", "", ""},
		{"GET", "/projects.json?callback=%zz", "", ""},
		{"POST", "/test/request?x=1;y=2", "application/json", `{"downloader":"bob"}`},
		{"POST", "/test/multi=2/request?%zz", "application/json", `{"downloader":"bob"}`},
		{"POST", "/test/multi=2//done?a;b", "application/json", `{"downloader":"bob","item":"url:queued","bytes":{"data":1}}`},
		{"GET", "/now?;", "", ""},
		{"GET", "/now?t=%", "", ""},
		{"GET", "/test/items/url:done.json?shard=s;x", "", ""},
		{"GET", "/test/?page=2;x", "", ""},
		{"GET", "/socket.io/1/?t=1;2", "", ""},
		{"POST", "/api/update.json?%gg", "application/json", `{"warrior":{}}`},
		{"GET", "/admin/login?next=%zz", "", ""},
		{"GET", "/no/such/page?a;b", "", ""},
	} {
		a := f.doBody(t, c.method, c.path, c.contentType, c.body)
		if a.status != http.StatusBadRequest || a.reason != "invalid-query" {
			t.Errorf("%s %s: %d %q %q, want 400 invalid-query", c.method, c.path, a.status, a.reason, a.body)
		}
	}
	after := f.summary(t)
	if after.Queued() != before.Queued() || after.Queues["backfeed"] != 0 || after.BackfedAgain != 0 ||
		after.Claims != before.Claims || after.Done != before.Done {
		t.Fatalf("refused requests changed the project: before %+v, after %+v", before, after)
	}
	if a := f.do(t, "GET", "/test/items/url:new.json", ""); a.status != http.StatusNotFound || a.reason != "unknown-item" {
		t.Fatalf("url:new after the refused posts: %d %q %s", a.status, a.reason, a.body)
	}
	// The same posts with their parameters separated by & are taken.
	if a := f.doBody(t, "POST", backfeed+"?skipbloom=1&", "application/x-www-form-urlencoded", "url:done\x00"); a.status != 200 ||
		a.body != `{"again":1,"duplicates":0,"new":1,"status_code":200}` {
		t.Fatalf("skipbloom=1&: %d %q", a.status, a.body)
	}
}
