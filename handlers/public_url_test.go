package handlers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"tracker/db/dbtest"
	"tracker/handlers"
)

// The absolute URLs of /projects.json start with the public URL when one is
// set; without one they come from the request's Host, and the answer says
// it varies on it and keeps out of shared caches.
func TestProjectsJSONPublicURL(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	dbtest.Project(t, pool, "test", "Test")
	serve := func(public string) *httptest.Server {
		u, err := handlers.ParsePublicURL(public)
		if err != nil {
			t.Fatal(err)
		}
		h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), pool, func(c *handlers.Config) { c.PublicURL = u })
		srv := httptest.NewServer(h.Routes())
		t.Cleanup(srv.Close)
		return srv
	}
	get := func(srv *httptest.Server) (string, http.Header) {
		req, _ := http.NewRequest("GET", srv.URL+"/projects.json", nil)
		req.Host = "evil.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var file struct {
			Projects []struct{ Leaderboard string } `json:"projects"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&file); err != nil || len(file.Projects) != 1 {
			t.Fatalf("projects.json: %v %+v", err, file)
		}
		return file.Projects[0].Leaderboard, resp.Header
	}

	board, hd := get(serve("https://tracker.example.org/"))
	if board != "https://tracker.example.org/test/" {
		t.Errorf("with a public URL: leaderboard %q", board)
	}
	if cc := hd.Get("Cache-Control"); cc != "public, max-age=10" || slices.Contains(hd.Values("Vary"), "Host") {
		t.Errorf("with a public URL: Cache-Control %q, Vary %q", cc, hd.Values("Vary"))
	}

	board, hd = get(serve(""))
	if board != "http://evil.example/test/" {
		t.Errorf("from the Host header: leaderboard %q", board)
	}
	if cc := hd.Get("Cache-Control"); cc != "private, max-age=10" || !slices.Contains(hd.Values("Vary"), "Host") {
		t.Errorf("from the Host header: Cache-Control %q, Vary %q", cc, hd.Values("Vary"))
	}
}

func TestParsePublicURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                             "",
		"https://tracker.example.org":  "https://tracker.example.org",
		"https://tracker.example.org/": "https://tracker.example.org",
		"http://example.org/tracker/":  "http://example.org/tracker",
		"http://127.0.0.1:8080":        "http://127.0.0.1:8080",
	} {
		if got, err := handlers.ParsePublicURL(in); err != nil || got != want {
			t.Errorf("ParsePublicURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"tracker.example.org", "ftp://x", "https://", "https://x/?a=b", "https://x/#f", "https://u:p@x/", "/path", "https://x/?"} {
		if got, err := handlers.ParsePublicURL(in); err == nil {
			t.Errorf("ParsePublicURL(%q) = %q, want an error", in, got)
		}
	}
}
