package handlers_test

import (
	"context"
	"net/http"
	"testing"
)

// The public data may be read by pages of any site (Access-Control-Allow-
// Origin: *), its refusals too, so a dashboard tells "no such project"
// from "blocked"; the admin panel, the routes that change something and
// the HTML pages never say so.
func TestAnyOriginReadsPublicDataOnly(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2")
	names, _ := f.request(t, "alice", 1)
	f.done(t, "alice", names...)
	// Her folded totals, which /downloader/{nick}.json reads.
	if _, err := f.pool.Exec(context.Background(), `INSERT INTO downloaders (project_id, nick, items, bytes, version) VALUES ($1, 'alice', 1, 100, '1')`, f.project.ID); err != nil {
		t.Fatal(err)
	}
	get := func(path string) answer {
		req, err := http.NewRequest("GET", f.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://dashboard.example")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return answer{status: resp.StatusCode, header: resp.Header}
	}
	for path, status := range map[string]int{
		"/test/stats.json": 200, "/test/charts.json": 200, "/test/items/item:1.json": 200,
		"/test/downloader/alice.json": 200, "/downloader/alice.json": 200, "/projects.json": 200,
		"/stats.json": 200, "/positions.json": 200,
		"/nosuch/stats.json": 404, "/test/items/nosuch.json": 404, "/test/downloader/nobody.json": 404,
	} {
		if a := get(path); a.status != status || a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: %d, Access-Control-Allow-Origin %q; want %d and *", path, a.status, a.header.Get("Access-Control-Allow-Origin"), status)
		}
	}
	for _, path := range []string{"/", "/test/", "/test/downloader/alice", "/admin/", "/admin/login", "/admin/projects/test/", "/warriors/"} {
		if a := get(path); a.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET %s: Access-Control-Allow-Origin %q", path, a.header.Get("Access-Control-Allow-Origin"))
		}
	}
	for _, path := range []string{"/test/request", "/test/done", "/test/release", "/api/register.json", "/api/update.json",
		"/backfeed/legacy/test-key", "/admin/login", "/admin/projects/test/config"} {
		a := f.do(t, "POST", path, `{"downloader":"alice"}`)
		if a.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("POST %s: %d, Access-Control-Allow-Origin %q", path, a.status, a.header.Get("Access-Control-Allow-Origin"))
		}
	}
}
