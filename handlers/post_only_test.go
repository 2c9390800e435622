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

// What no route takes is answered with its reason, never ServeMux's bare
// 404 or 405: another method than a path's route takes gets 405 and
// Allow, a POST under a project naming no action (a warrior's action
// misspelt) 404 not-found, and any other path the not-found page.
func TestUnroutedSaysWhy(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/test/request/", http.StatusNotFound, ""},
		{"POST", "/test/", http.StatusNotFound, ""},
		{"DELETE", "/test/stats.json", http.StatusMethodNotAllowed, "GET"},
		{"PUT", "/test/request/", http.StatusMethodNotAllowed, "GET"},
		{"PUT", "/warriors/", http.StatusMethodNotAllowed, "GET"},
		{"DELETE", "/admin/login", http.StatusMethodNotAllowed, "GET, POST"},
		{"PATCH", "/socket.io/1/xhr-polling/x", http.StatusMethodNotAllowed, "GET, POST"},
		{"POST", "/nothing-here", http.StatusNotFound, ""},
	} {
		a := f.do(t, c.method, c.path, "")
		reason := "not-found"
		if c.status == http.StatusMethodNotAllowed {
			reason = "method-not-allowed"
		}
		if a.status != c.status || a.header.Get("Allow") != c.allow || a.reason != reason {
			t.Errorf("%s %s: %d, Allow %q, reason %q; want %d, Allow %q, %s", c.method, c.path, a.status, a.header.Get("Allow"), a.reason, c.status, c.allow, reason)
		}
	}
}
