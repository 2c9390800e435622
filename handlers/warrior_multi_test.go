package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"tracker/books"
	"tracker/items"
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

// A multi answer carries at most items.MaxAnswerBytes of parameters
// (as sent): the item that would take it past them and the ones after it
// stay queued, never claimed, and go to the next request in their order.
// The books balance throughout.
func TestMultiAnswerParamsBudget(t *testing.T) {
	t.Parallel()
	// Parameters near the most an item may have, as sent: "<", ">" and
	// "&" go out escaped, six bytes each.
	doc := `{"html":"<b>&","pad":"` + strings.Repeat("x", items.MaxDocumentBytes-100) + `"}`
	const n = 150
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("p:%03d\t%s", i, doc)
	}
	f := setup(t, lines...)
	f.set(t, "max_multi=1000")
	balanced := func(when string) {
		t.Helper()
		if r, err := books.Of(context.Background(), f.pool, f.project); err != nil || !r.Balanced {
			t.Fatalf("books %s: %v %+v", when, err, r)
		}
	}

	next, size := 0, 0
	for answers := 0; next < n; answers++ {
		if answers > n {
			t.Fatal("the queue never empties")
		}
		a := f.do(t, "POST", "/test/multi=1000//request", `{"downloader":"alice","version":"1"}`)
		var got struct {
			ItemName   string                     `json:"item_name"`
			ItemParams map[string]json.RawMessage `json:"item_params"`
		}
		if err := json.Unmarshal([]byte(a.body), &got); err != nil || a.status != 200 {
			t.Fatalf("request after %d items: %d %q %v", next, a.status, a.reason, err)
		}
		names := strings.Split(got.ItemName, "\x00")
		carried := 0
		for _, name := range names {
			if want := fmt.Sprintf("p:%03d", next); name != want {
				t.Fatalf("answer %d handed out %s, want %s next", answers, name, want)
			}
			next++
			p, ok := got.ItemParams[name]
			if !ok {
				t.Fatalf("%s came without its parameters", name)
			}
			if size == 0 {
				size = len(p)
			}
			carried += len(p)
		}
		if carried > items.MaxAnswerBytes {
			t.Fatalf("answer %d carries %d bytes of parameters, more than %d", answers, carried, items.MaxAnswerBytes)
		}
		// Full: one more would not have fitted, unless none was left.
		if next < n && carried+size <= items.MaxAnswerBytes {
			t.Fatalf("answer %d stopped at %d items, %d bytes of parameters: room for another of %d", answers, len(names), carried, size)
		}
		// The items not handed out are queued, not claimed.
		if s := f.summary(t); s.Claims != int64(next) || s.Queued() != int64(n-next) {
			t.Fatalf("after answer %d: %d claims and %d queued, want %d and %d", answers, s.Claims, s.Queued(), next, n-next)
		}
		balanced(fmt.Sprintf("after answer %d", answers))
	}
	if size < items.MaxDocumentBytes-100 || n*size <= 2*items.MaxAnswerBytes {
		t.Fatalf("parameters of %d bytes do not fill several answers", size)
	}
	if _, a := f.request(t, "alice", 1000); a.status != 404 {
		t.Fatalf("request after the last item: %d %q", a.status, a.reason)
	}
}

// The names count too: a multi answer of long names stops at
// items.MaxAnswerBytes as sent ("&" goes out as \u0026, six bytes), the
// names after it left queued for the next request in their order.
func TestMultiAnswerNamesBudget(t *testing.T) {
	t.Parallel()
	const n = 1000
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("n:%04d:%s", i, strings.Repeat("&", 1400))
	}
	f := setup(t, lines...)
	f.set(t, "max_multi=1000")
	// Each name takes its JSON string (1,407 characters, 1,400 of them six
	// bytes as sent, and two quotes) and a \u0000 before it.
	const each = 7 + 1400*6 + 2 + 6
	fit := items.MaxAnswerBytes / each
	next := 0
	for answer := range 2 {
		a := f.do(t, "POST", "/test/multi=1000//request", `{"downloader":"alice","version":"1"}`)
		var got struct {
			ItemName string `json:"item_name"`
		}
		if err := json.Unmarshal([]byte(a.body), &got); err != nil || a.status != 200 {
			t.Fatalf("answer %d: %d %q %v", answer, a.status, a.reason, err)
		}
		if len(a.body) > items.MaxAnswerBytes {
			t.Fatalf("answer %d is %d bytes, more than %d", answer, len(a.body), items.MaxAnswerBytes)
		}
		names := strings.Split(got.ItemName, "\x00")
		if len(names) != fit {
			t.Fatalf("answer %d: %d names of %d bytes as sent, want %d", answer, len(names), each, fit)
		}
		for _, name := range names {
			if name != lines[next] {
				t.Fatalf("answer %d handed out %.10s…, want %.10s… next", answer, name, lines[next])
			}
			next++
		}
		if s := f.summary(t); s.Claims != int64(next) || s.Queued() != int64(n-next) {
			t.Fatalf("after answer %d: %d claims and %d queued, want %d and %d", answer, s.Claims, s.Queued(), next, n-next)
		}
	}
}
