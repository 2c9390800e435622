package handlers_test

import "testing"

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
