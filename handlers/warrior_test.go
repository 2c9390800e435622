package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestRequestDoneCycle(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1", "post:2")

	a := f.do(t, "POST", "/test/request", `{"downloader":"alice","api_version":"2","version":"20240101.01"}`)
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("request: %d %q %q", a.status, a.header.Get("Content-Type"), a.body)
	}
	var item map[string]string
	if err := json.Unmarshal([]byte(a.body), &item); err != nil || item["item_name"] != "post:1" {
		t.Fatalf("request body %q: want item_name post:1", a.body)
	}

	a = f.do(t, "POST", "/test/done", `{"downloader":"alice","version":"20240101.01","item":"post:1","bytes":{"data":12345},"id":{"sha1":"abc"}}`)
	if a.status != 200 || a.body != "OK" {
		t.Fatalf("done: %d %q, want 200 OK", a.status, a.body)
	}
	// A repeated done is answered OK and not counted again.
	a = f.do(t, "POST", "/test/done", `{"downloader":"alice","version":"20240101.01","item":"post:1","bytes":{"data":12345},"id":{"sha1":"abc"}}`)
	if a.status != 200 || a.body != "OK" {
		t.Fatalf("repeated done: %d %q, want 200 OK", a.status, a.body)
	}
	if s := f.summary(t); s.Done != 1 || s.Bytes != 12345 || s.Queues["todo"] != 1 || s.Claims != 0 {
		t.Fatalf("summary %+v", s)
	}
}

func TestMultiRequest(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b", "c", "d", "e", "f")

	// The grab scripts' path, with its double slash, answered directly.
	a := f.do(t, "POST", "/test/multi=3//request", `{"downloader":"alice"}`)
	if a.status != 200 || a.body != `{"item_name":"a\u0000b\u0000c"}` {
		t.Fatalf("multi request: %d %q", a.status, a.body)
	}
	a = f.do(t, "POST", "/test/multi=2/request", `{"downloader":"alice"}`)
	if a.status != 200 || a.body != `{"item_name":"d\u0000e"}` {
		t.Fatalf("single-slash multi request: %d %q", a.status, a.body)
	}
	// done of the successful subset, under the multi prefix.
	a = f.do(t, "POST", "/test/multi=3//done", `{"downloader":"alice","item":"a\u0000c","bytes":{"data":10}}`)
	if a.status != 200 || a.body != "OK" {
		t.Fatalf("multi done: %d %q", a.status, a.body)
	}
	a = f.do(t, "POST", "/test/multi=2/done", `{"downloader":"alice","item":"d\u0000e","bytes":{"data":10}}`)
	if a.status != 200 || a.body != "OK" {
		t.Fatalf("multi done: %d %q", a.status, a.body)
	}
	if s := f.summary(t); s.Done != 4 || s.Claims != 1 || s.Queues["todo"] != 1 {
		t.Fatalf("summary %+v: b stays claimed, f stays queued", s)
	}
}

func TestMultiCappedByProject(t *testing.T) {
	t.Parallel()
	names := make([]string, 150)
	for i := range names {
		names[i] = "n" + strings.Repeat("x", i)
	}
	f := setup(t, names...)
	a := f.do(t, "POST", "/test/multi=500//request", `{"downloader":"alice"}`)
	var item map[string]string
	if err := json.Unmarshal([]byte(a.body), &item); err != nil {
		t.Fatal(a.status, a.body)
	}
	if n := len(strings.Split(item["item_name"], "\x00")); n != 100 {
		t.Fatalf("handed out %d items, want max_multi 100", n)
	}
}

func TestEmptyQueueIs404WithEmptyBody(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	if a.status != 404 || a.body != "" || a.reason != "no-items" {
		t.Fatalf("%d %q reason %q: want 404, empty body, reason no-items", a.status, a.body, a.reason)
	}
}

// Bad input gets a clear 4xx with a reason and changes nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1")
	huge := `{"downloader":"alice","item":"` + strings.Repeat("x", 5<<20) + `"}`
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		reason                   string
	}{
		{"unknown project", "POST", "/nope/request", `{"downloader":"alice"}`, 404, "unknown-project"},
		{"unknown project done", "POST", "/nope/done", `{"downloader":"alice","item":"post:1"}`, 404, "unknown-project"},
		{"malformed JSON", "POST", "/test/request", `{"downloader":`, 400, "malformed-json"},
		{"not an object", "POST", "/test/request", `["alice"]`, 400, "malformed-json"},
		{"trailing data", "POST", "/test/request", `{"downloader":"alice"} {}`, 400, "malformed-json"},
		{"nick of wrong type", "POST", "/test/request", `{"downloader":42}`, 400, "malformed-json"},
		{"no nick", "POST", "/test/request", `{}`, 400, "invalid-downloader"},
		{"empty nick", "POST", "/test/request", `{"downloader":""}`, 400, "invalid-downloader"},
		{"nick with markup", "POST", "/test/request", `{"downloader":"<b>x</b>"}`, 400, "invalid-downloader"},
		{"1 MB nick", "POST", "/test/request", `{"downloader":"` + strings.Repeat("n", 1<<20) + `"}`, 400, "invalid-downloader"},
		{"huge body", "POST", "/test/done", huge, 413, "body-too-large"},
		{"done without item", "POST", "/test/done", `{"downloader":"alice"}`, 400, "invalid-done"},
		{"done with empty name", "POST", "/test/done", `{"downloader":"alice","item":"post:1\u0000"}`, 400, "invalid-done"},
		{"done with bytes of wrong type", "POST", "/test/done", `{"downloader":"alice","item":"post:1","bytes":{"data":"12"}}`, 400, "malformed-json"},
		{"done with negative bytes", "POST", "/test/done", `{"downloader":"alice","item":"post:1","bytes":{"data":-5}}`, 400, "invalid-done"},
		{"done with 2^63-1 bytes", "POST", "/test/done", `{"downloader":"alice","item":"post:1","bytes":{"data":9223372036854775807}}`, 400, "invalid-done"},
		{"GET on a warrior route", "GET", "/test/request", "", 405, "method-not-allowed"},
		{"NUL in the nick", "POST", "/test/request", `{"downloader":"ali\u0000ce"}`, 400, "invalid-downloader"},
		{"NUL in the version", "POST", "/test/request", `{"downloader":"alice","version":"1\u0000"}`, 400, "invalid-version"},
		{"NUL in a done's version", "POST", "/test/done", `{"downloader":"alice","version":"\u0000","item":"post:1"}`, 400, "invalid-done"},
		{"NUL at the end of a multi done", "POST", "/test/done", `{"downloader":"alice","item":"post:1\u0000\u0000"}`, 400, "invalid-done"},
		{"NUL in an upload receipt", "POST", "/test/uploaded", `{"uploader":"alice","item":"post:1","server":"a\u0000"}`, 400, "invalid-server"},
		{"newline in a released name", "POST", "/test/release", `{"item":"post:1\n"}`, 400, "invalid-item"},
		{"number too big for bytes", "POST", "/test/done", `{"downloader":"alice","item":"post:1","bytes":{"d":1e30}}`, 400, "malformed-json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := f.do(t, tc.method, tc.path, tc.body)
			if a.status != tc.status || a.reason != tc.reason {
				t.Fatalf("%d reason %q (%q), want %d %q", a.status, a.reason, a.body, tc.status, tc.reason)
			}
			if tc.status != 404 && strings.TrimSpace(a.body) == "" {
				t.Errorf("no explanation in the body")
			}
		})
	}
	if s := f.summary(t); s.Queues["todo"] != 1 || s.Claims != 0 || s.Done != 0 {
		t.Fatalf("bad input changed something: %+v", s)
	}
}

func TestVersionAsNumber(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1")
	if a := f.do(t, "POST", "/test/request", `{"downloader":"alice","version":20240101}`); a.status != http.StatusOK {
		t.Fatalf("%d %q", a.status, a.body)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","version":3,"item":"post:1","bytes":{}}`); a.status != 200 || a.body != "OK" {
		t.Fatalf("%d %q", a.status, a.body)
	}
}
