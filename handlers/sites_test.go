package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/sites"
	"tracker/stats"
	"tracker/users"
)

// sited makes the fixture's project keep sites, politely (one item out per
// site, an hour between hand-outs), and queues names.
func (f *fixture) sited(t *testing.T, names ...string) {
	t.Helper()
	ctx := context.Background()
	p, err := f.store.Set(ctx, f.project, []string{"site_key=host", "site_claims_limit=1", "site_interval=3600"})
	if err != nil {
		t.Fatal(err)
	}
	f.project = p
	if _, err := items.NewEngine(f.pool, slog.New(slog.NewTextHandler(io.Discard, nil))).Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
		t.Fatal(err)
	}
}

// testid is the text of the element of a page marked data-testid=id.
func testid(t *testing.T, body, id string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(doc.Find(`[data-testid="` + id + `"]`).Text())
}

// A project whose items have sites: the board, stats.json and /metrics
// show its sites by state and the top sites; the admin panel shows a
// site's state, blocks it (its items are handed out no more), releases it
// (its items out go back to the queue and it is due at once), and refuses
// a site the project does not have.
func TestSitesVisible(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.sited(t, "https://a.example/1", "https://a.example/2", "https://b.example/1")

	// One item per site at once: alice gets one of each.
	a := f.do(t, "POST", "/test/multi=10/request", `{"downloader":"alice"}`)
	if a.status != 200 || !strings.Contains(a.body, "https://a.example/1") || !strings.Contains(a.body, "https://b.example/1") || strings.Contains(a.body, "a.example/2") {
		t.Fatalf("alice: %d %q", a.status, a.body)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"https://a.example/1","bytes":{"data":1000}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	// a.example waits on its interval, b.example has nothing queued.
	if a := f.do(t, "POST", "/test/request", `{"downloader":"bob"}`); a.status != 429 || a.reason != "sites-waiting" {
		t.Fatalf("bob: %d %q", a.status, a.reason)
	}
	// Request counts are written at most once a second, by a later
	// request: ask until the refusal is counted.
	dbtest.Eventually(t, func() bool {
		f.do(t, "POST", "/test/request", `{"downloader":"carol"}`)
		return dbtest.Count(t, f.pool, `SELECT coalesce(sum(value), 0)::bigint FROM counters WHERE project_id = $1 AND name = $2`,
			f.project.ID, sites.RequestsWaitedCounter) > 0
	}, "the sites-waiting refusals counted")

	// The board and stats.json.
	var b stats.Board
	getJSON(t, f.srv.URL+"/test/stats.json", nil, &b)
	s := b.Sites
	if s == nil || s.Sites != 2 || s.Active != 1 || s.Due != 0 || s.Waiting != 1 || s.Blocked != 0 || s.Waited < 1 {
		t.Fatalf("stats.json sites: %+v", s)
	}
	if len(s.Top) != 1 || s.Top[0].Name != "a.example" || s.Top[0].Done != 1 || s.Top[0].Bytes != 1000 {
		t.Fatalf("stats.json top sites: %+v", s.Top)
	}
	page := f.do(t, "GET", "/test/", "").body
	if testid(t, page, "sites-total") != "2" || testid(t, page, "sites-waiting") != "1" || testid(t, page, "sites-active") != "1" {
		t.Fatalf("leaderboard sites: %q %q %q", testid(t, page, "sites-total"), testid(t, page, "sites-waiting"), testid(t, page, "sites-active"))
	}
	if top := testid(t, page, "top-site"); !strings.Contains(top, "a.example") || !strings.Contains(top, "1000 B") {
		t.Fatalf("leaderboard top sites: %q", top)
	}

	// /metrics.
	body := f.metrics(t)
	for state, want := range map[string]float64{"active": 1, "due": 0, "waiting": 1, "blocked": 0} {
		if v, ok := metricValue(t, body, "tracker_project_sites", map[string]string{"project": "test", "state": state}); !ok || v != want {
			t.Errorf("tracker_project_sites{state=%q}: %v %v, want %v", state, v, ok, want)
		}
	}
	if v, ok := metricValue(t, body, "tracker_project_requests_sites_waited_total", map[string]string{"project": "test"}); !ok || v < 1 {
		t.Errorf("tracker_project_requests_sites_waited_total: %v %v", v, ok)
	}

	// The admin panel.
	c := f.admin(t)
	limits := c.get(t, "/admin/projects/test/limits")
	if limits.status != 200 || testid(t, limits.body, "admin-sites-total") != "2" || testid(t, limits.body, "admin-sites-waiting") != "1" {
		t.Fatalf("limits: %d, sites %q", limits.status, testid(t, limits.body, "admin-sites-total"))
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(limits.body))
	if rows := doc.Find(`[data-testid="admin-site-row"]`); rows.Length() != 2 {
		t.Fatalf("busy sites listed: %q", rows.Text())
	}
	if l := c.get(t, "/admin/projects/test/limits?site_prefix=b."); strings.Count(l.body, `data-testid="admin-site-row"`) != 1 || !strings.Contains(l.body, "b.example") {
		t.Fatalf("sites starting with b.: %d", strings.Count(l.body, `data-testid="admin-site-row"`))
	}
	site := c.get(t, "/admin/projects/test/limits?site=A.Example").body
	if testid(t, site, "site-name") != "a.example" || testid(t, site, "site-queued") != "1" || testid(t, site, "site-out") != "0" ||
		testid(t, site, "site-state") != "waiting" || testid(t, site, "site-blocked") != "no" || testid(t, site, "site-done") != "1" ||
		testid(t, site, "site-downloader") != "nobody" || testid(t, site, "site-due-at") == "" || testid(t, site, "site-last-at") == "never" {
		t.Fatalf("a.example: %s", testid(t, site, "admin-site"))
	}
	site = c.get(t, "/admin/projects/test/limits?site=b.example").body
	if testid(t, site, "site-out") != "1" || testid(t, site, "site-downloader") != "alice" || testid(t, site, "site-queued") != "0" {
		t.Fatalf("b.example: %s", testid(t, site, "admin-site"))
	}

	// Blocked, a.example is not handed out even when due.
	if a := c.post(t, "/admin/projects/test/sites/block", url.Values{"site": {"a.example"}}); a.status != 303 || !strings.Contains(c.flash(t, a), "blocked") {
		t.Fatalf("block: %d %s", a.status, a.body)
	}
	dbtest.Due(t, f.pool, dbtest.Sites(f.project.ID))
	if testid(t, c.get(t, "/admin/projects/test/limits?site=a.example").body, "site-blocked") != "yes" {
		t.Fatal("a.example not shown blocked")
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"dave"}`); a.status != 429 || a.reason != "sites-waiting" {
		t.Fatalf("dave, a.example blocked: %d %q %q", a.status, a.reason, a.body)
	}
	// Released, b.example's item goes back to the queue, due at once.
	a = c.post(t, "/admin/projects/test/sites/release", url.Values{"site": {"b.example"}})
	if a.status != 303 || !strings.Contains(c.flash(t, a), "Released 1 claims of b.example") {
		t.Fatalf("release: %d %s", a.status, a.body)
	}
	site = c.get(t, "/admin/projects/test/limits?site=b.example").body
	if testid(t, site, "site-out") != "0" || testid(t, site, "site-queued") != "1" || testid(t, site, "site-state") != "due" || testid(t, site, "site-downloader") != "nobody" {
		t.Fatalf("b.example released: %s", testid(t, site, "admin-site"))
	}
	if a := f.do(t, "POST", "/test/multi=10/request", `{"downloader":"dave"}`); a.status != 200 || a.body != `{"item_name":"https://b.example/1"}` {
		t.Fatalf("dave after the release: %d %q", a.status, a.body)
	}
	// Unblocked, a.example is handed out again.
	if a := c.post(t, "/admin/projects/test/sites/unblock", url.Values{"site": {"a.example"}}); a.status != 303 {
		t.Fatalf("unblock: %d %s", a.status, a.body)
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"erin"}`); a.status != 200 || !strings.Contains(a.body, "https://a.example/2") {
		t.Fatalf("erin after the unblock: %d %q", a.status, a.body)
	}
	audit := c.get(t, "/admin/audit?project=test").body
	for _, action := range []string{"site.block", "site.unblock", "site.release"} {
		if !strings.Contains(audit, action) {
			t.Errorf("%s missing from the audit log", action)
		}
	}

	// Sites the project does not have, and no site at all.
	if a := c.post(t, "/admin/projects/test/sites/block", url.Values{"site": {"nope.example"}}); a.status != 404 || a.reason != "unknown-site" || !strings.Contains(a.body, "nope.example") {
		t.Fatalf("block of an unknown site: %d %q", a.status, a.reason)
	}
	if a := c.post(t, "/admin/projects/test/sites/release", url.Values{"site": {" "}}); a.status != 400 || a.reason != "invalid-site" {
		t.Fatalf("release of no site: %d %q", a.status, a.reason)
	}
	if a := c.get(t, "/admin/projects/test/limits?site=nope.example"); a.status != 404 || a.reason != "unknown-site" || testid(t, a.body, "admin-sites-total") != "2" {
		t.Fatalf("lookup of an unknown site: %d %q", a.status, a.reason)
	}

	// A project admin runs the sites of the projects granted only.
	helper, err := users.NewStore(f.pool).Create(ctx, "helper", "correct horse battery", users.RoleProjectAdmin)
	if err != nil {
		t.Fatal(err)
	}
	h := f.signedIn(t, "helper")
	if a := h.post(t, "/admin/projects/test/sites/block", url.Values{"site": {"a.example"}}); a.status != 403 {
		t.Fatalf("an ungranted project admin: %d", a.status)
	}
	if err := users.NewStore(f.pool).Grant(ctx, helper, f.project.ID); err != nil {
		t.Fatal(err)
	}
	if a := h.post(t, "/admin/projects/test/sites/release", url.Values{"site": {"a.example"}}); a.status != 303 {
		t.Fatalf("a granted project admin: %d %s", a.status, a.body)
	}
}

// A project whose items have no sites shows none and reads none: no sites
// on its board, in stats.json or /metrics, nor in its admin section; a
// hidden project's sites stay out of /metrics.
func TestSitesAbsentWithoutSites(t *testing.T) {
	t.Parallel()
	f := setup(t, "https://a.example/1")
	dbtest.Project(t, f.pool, "secret", "", "hidden=true", "site_key=host")
	var b stats.Board
	getJSON(t, f.srv.URL+"/test/stats.json", nil, &b)
	if b.Sites != nil {
		t.Fatalf("stats.json sites of a project without: %+v", b.Sites)
	}
	if page := f.do(t, "GET", "/test/", "").body; strings.Contains(page, `data-testid="sites"`) || strings.Contains(page, `data-testid="top-sites"`) {
		t.Fatal("the board shows sites of a project without")
	}
	body := f.metrics(t)
	if strings.Contains(body, "tracker_project_sites{") || strings.Contains(body, "tracker_project_requests_sites_waited_total{") || strings.Contains(body, `"secret"`) {
		t.Fatal("/metrics has sites of a project without, or of a hidden one")
	}
	c := f.admin(t)
	if a := c.get(t, "/admin/projects/test/limits"); a.status != 200 || strings.Contains(a.body, `data-testid="admin-sites-summary"`) {
		t.Fatalf("limits of a project without sites: %d", a.status)
	}
}
