package handlers_test

import (
	"context"
	"strings"
	"testing"

	"tracker/db/dbtest"
)

// No public page or document names a hidden project, nor counts its work:
// not the home page, /projects.json, the Warriors page, /metrics, nor a
// nick's page over every project, where alice's work on it was listed. Its
// own pages still work for whoever knows its slug.
func TestPublicPagesLeaveHiddenProjectsOut(t *testing.T) {
	t.Parallel()
	f := setup(t)
	hush := dbtest.Project(t, f.pool, "hushhush", "Hush hush", "hidden=true")
	for _, d := range []struct {
		project    int32
		nick       string
		items, kib int64
	}{{f.project.ID, "alice", 3, 3}, {hush.ID, "alice", 500, 500}, {hush.ID, "carol", 7, 7}} {
		if _, err := f.pool.Exec(context.Background(), `INSERT INTO downloaders (project_id, nick, items, bytes, version) VALUES ($1, $2, $3, $4, '1')`,
			d.project, d.nick, d.items, d.kib*1024); err != nil {
			t.Fatal(err)
		}
	}
	id := f.register(t)
	if a := f.hq(t, "/api/update.json", `{"warrior": {"warrior_id": `+jsonString(id)+`, "downloader": "carol", "selected_project": "hushhush"}}`); a.status != 200 {
		t.Fatalf("update: %d %s", a.status, a.body)
	}

	for _, path := range []string{"/", "/projects.json", "/warriors/", "/downloader/alice/", "/test/downloader/alice", "/metrics"} {
		a := f.do(t, "GET", path, "")
		if a.status != 200 || strings.Contains(strings.ToLower(a.body), "hush") {
			t.Errorf("%s: %d, names the hidden project: %v", path, a.status, strings.Contains(strings.ToLower(a.body), "hush"))
		}
	}
	_, doc := f.page(t, "/downloader/alice/")
	if got := doc.Find(`[data-testid="nick-totals"]`).Text(); !strings.Contains(got, "3 items, 3.0 KiB on 1 projects") {
		t.Errorf("alice's totals count the hidden project: %q", got)
	}
	if a := f.do(t, "GET", "/downloader/carol/", ""); a.status != 404 || a.reason != "unknown-downloader" || strings.Contains(a.body, "hush") {
		t.Errorf("carol, only on the hidden project: %d %q", a.status, a.reason)
	}
	status, doc := f.page(t, "/hushhush/downloader/alice")
	if status != 200 || doc.Find(`[data-testid="items"]`).Text() != "500" {
		t.Errorf("alice on the hidden project's own page: %d %q", status, doc.Find(`[data-testid="items"]`).Text())
	}
}
