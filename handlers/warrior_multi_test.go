package handlers_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"tracker/projects"
)

// A warrior path is answered where it arrives, whatever its form: a bad
// multi={N} is a 400 the script's author can read, a malformed path a 404,
// and nothing is ever redirected (the clients do not follow redirects on
// POST, and ServeMux would redirect any doubled slash).
func TestWarriorPathEdgeCases(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b", "c")
	for _, tc := range []struct {
		method, path string
		status       int
		reason       string
	}{
		{"POST", "/test/multi=0/request", 400, "invalid-multi"},
		{"POST", "/test/multi=0//request", 400, "invalid-multi"},
		{"POST", "/test/multi=-1//request", 400, "invalid-multi"},
		{"POST", "/test/multi=x//request", 400, "invalid-multi"},
		{"POST", "/test/multi=//request", 400, "invalid-multi"},
		{"POST", "/test/multi=1.5//request", 400, "invalid-multi"},
		{"POST", "/test/multi=10001//request", 400, "invalid-multi"},
		{"POST", "/test/multi=99999999999999999999//request", 400, "invalid-multi"},
		{"POST", "/test/multi=0//done", 400, "invalid-multi"},
		{"POST", "/test/multi=5///request", 404, "not-found"},
		{"POST", "/test///request", 404, "not-found"},
		{"POST", "/test///multi=5/request", 404, "not-found"},
		{"POST", "/test/multi=1/multi=2/request", 404, "not-found"},
		{"GET", "/test/multi=5///request", 404, "not-found"},
		{"GET", "/test/multi=5//request", 405, "method-not-allowed"},
		{"POST", "/nope/multi=0//request", 400, "invalid-multi"},
		{"POST", "/nope/multi=5//request", 404, "unknown-project"},
	} {
		a := f.do(t, tc.method, tc.path, `{"downloader":"alice"}`)
		if a.status != tc.status || a.reason != tc.reason {
			t.Errorf("%s %s: %d %q (%q), want %d %q", tc.method, tc.path, a.status, a.reason, a.body, tc.status, tc.reason)
		}
		if loc := a.header.Get("Location"); loc != "" {
			t.Errorf("%s %s: redirected to %s", tc.method, tc.path, loc)
		}
	}
	// Nothing was handed out by any of them.
	if s := f.summary(t); s.Claims != 0 {
		t.Errorf("%d claims after refused paths", s.Claims)
	}
	// The forms the clients send still work.
	for _, path := range []string{"/test/multi=1//request", "/test//multi=1//request", "/test//request"} {
		if a := f.do(t, "POST", path, `{"downloader":"alice"}`); a.status != 200 {
			t.Errorf("POST %s: %d %q (%q)", path, a.status, a.reason, a.body)
		}
	}
}

// N of multi={N} is bounded by projects.MaxMultiLimit, the bound of
// max_multi: N at the bound is taken and capped by the project's
// max_multi, N below max_multi is handed out as asked, and one over the
// bound or not a number is a 400 invalid-multi that names the bound and
// hands out nothing.
func TestMultiBound(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b", "c", "d", "e", "f", "g", "h")
	f.set(t, "max_multi=3")
	for _, n := range []string{strconv.Itoa(projects.MaxMultiLimit + 1), "ten", "1e3", "0x10", "+5", "%205"} {
		a := f.do(t, "POST", "/test/multi="+n+"//request", `{"downloader":"alice"}`)
		if a.status != 400 || a.reason != "invalid-multi" || !strings.Contains(a.body, fmt.Sprintf("1 to %d", projects.MaxMultiLimit)) {
			t.Errorf("multi=%s: %d %q (%q), want 400 invalid-multi naming the bound", n, a.status, a.reason, a.body)
		}
	}
	if s := f.summary(t); s.Claims != 0 {
		t.Fatalf("%d claims after refused multi requests", s.Claims)
	}
	if names, a := f.request(t, "alice", projects.MaxMultiLimit); len(names) != 3 {
		t.Fatalf("multi=%d with max_multi=3: %q (%d %q)", projects.MaxMultiLimit, names, a.status, a.reason)
	}
	if names, a := f.request(t, "bob", 2); len(names) != 2 {
		t.Fatalf("multi=2 with max_multi=3: %q (%d %q)", names, a.status, a.reason)
	}
	if s := f.summary(t); s.Claims != 5 {
		t.Fatalf("%d claims, want 5", s.Claims)
	}
}
