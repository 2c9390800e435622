package handlers_test

import (
	"net/http"
	"testing"
)

// The routes that take POST alone answer any other method with 405 and
// Allow: POST, as the warrior paths do, never 404.
func TestPostOnlyRoutesRefuseOtherMethods(t *testing.T) {
	t.Parallel()
	f := setup(t)
	key := f.project.Config.BackfeedKey
	for _, path := range []string{
		"/api/register.json",
		"/api/update.json",
		"/backfeed/legacy/test-" + key,
		"/backfeed/legacy/test-" + key + "?shard=s&delimiter=%0A",
		"/backfeed/legacy/nope",
		"/test/request",
		"/test/multi=2//done",
		"/test/uploaded",
	} {
		for _, method := range []string{"GET", "HEAD", "PUT", "DELETE"} {
			a := f.do(t, method, path, "")
			if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "POST" || a.header.Get("X-Tracker-Reason") != "method-not-allowed" {
				t.Errorf("%s %s: %d, Allow %q, reason %q", method, path, a.status, a.header.Get("Allow"), a.header.Get("X-Tracker-Reason"))
			}
		}
	}
	// Their neighbours are as they were.
	if a := f.do(t, "GET", "/api/other.json", ""); a.status != 404 {
		t.Errorf("GET /api/other.json: %d", a.status)
	}
	if a := f.do(t, "POST", "/api/update.json", `{"warrior":{}}`); a.status != 200 {
		t.Errorf("POST /api/update.json: %d", a.status)
	}
}
