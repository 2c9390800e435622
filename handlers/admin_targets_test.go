package handlers_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// The admin panel takes only the upload targets seesaw takes (rsync://…/
// and http(s)://…/, ending in "/"), says why it refuses another, flags a
// target stored before it checked, and warns when the pipeline uploads
// several files per item and warriors may be given an http(s) target,
// where they upload only an item of one file.
func TestAdminUploadTargetsWarriorsTake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	find := func(a string, sel string) string {
		t.Helper()
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(a))
		if err != nil {
			t.Fatal(err)
		}
		return doc.Find(sel).Text()
	}

	for _, u := range []string{"rsync://up.example/data/:downloader", "https://up.example/upload", "RSYNC://up.example/data/", "ftp://up.example/data/"} {
		a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {u}, "enabled": {"true"}})
		msg := find(a.body, `[data-testid="form-error"]`)
		if a.status != 400 || !strings.Contains(msg, u) {
			t.Errorf("%s: %d %q", u, a.status, msg)
		}
		if strings.HasPrefix(u, "rsync:") || strings.HasPrefix(u, "https:") {
			if !strings.Contains(msg, `ends in "/"`) {
				t.Errorf("%s: the refusal does not name the slash: %q", u, msg)
			}
		}
	}
	if ts, err := f.store.Targets(ctx, f.project); err != nil || len(ts) != 0 {
		t.Fatalf("refused targets stored: %v %v", ts, err)
	}

	// A target stored before the check is flagged.
	if _, err := f.pool.Exec(ctx, "INSERT INTO upload_targets (project_id, url) VALUES ($1, 'https://old.example/up')", f.project.ID); err != nil {
		t.Fatal(err)
	}
	a := c.get(t, "/admin/projects/test/warriors")
	if msg := find(a.body, `[data-testid="target-problem"]`); !strings.Contains(msg, "Warriors refuse this target") {
		t.Fatalf("a stored target warriors refuse is not flagged: %q", msg)
	}
	c.post(t, "/admin/projects/test/targets/remove", url.Values{"url": {"https://old.example/up"}})

	if a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {"https://up.example/upload/:downloader/"}, "enabled": {"true"}}); a.status != 303 {
		t.Fatalf("an http target: %d", a.status)
	}
	warning := func() string {
		t.Helper()
		return find(c.get(t, "/admin/projects/test/warriors").body, `[data-testid="targets-warning"]`)
	}
	// One file per item (the default): http targets are fine.
	if w := warning(); w != "" {
		t.Fatalf("a warning for one file per item: %q", w)
	}
	f.set(t, "files_per_item=3")
	if w := warning(); !strings.Contains(w, "no upload works") {
		t.Fatalf("three files per item, only an http target: %q", w)
	}
	if a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {"rsync://up.example/data/:downloader/"}, "enabled": {"true"}}); a.status != 303 {
		t.Fatalf("an rsync target: %d", a.status)
	}
	if w := warning(); !strings.Contains(w, "Turn the http(s) targets off") {
		t.Fatalf("three files per item, rsync and http targets: %q", w)
	}
	c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {"https://up.example/upload/:downloader/"}})
	if w := warning(); w != "" {
		t.Fatalf("the http target off: %q", w)
	}
}
