package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/static"
	"tracker/users"
)

// The files browsers and crawlers ask for at the site's root are there
// (they were a redirect to a 404 page); every page names its icon and has
// its own description; an error page leads back home.
func TestSiteFilesAndErrorPages(t *testing.T) {
	t.Parallel()
	f := setup(t)

	a := f.do(t, "GET", "/robots.txt", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(a.body, "User-agent: *") || !strings.Contains(a.body, "Disallow: /api/") ||
		strings.Contains(a.body, "Disallow: /admin/") {
		t.Fatalf("robots.txt: %d %q %q", a.status, a.header.Get("Content-Type"), a.body)
	}
	// A crawler, as anyone without a session, is sent to the sign-in page
	// from every address of the panel: it may fetch it, and is told not
	// to index it.
	if a = f.do(t, "GET", "/admin/projects/test/", ""); a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "/admin/login") {
		t.Errorf("the panel without a session: %d to %q", a.status, a.header.Get("Location"))
	}
	a = f.do(t, "GET", "/admin/login", "")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	if robots, _ := doc.Find(`meta[name="robots"]`).Attr("content"); a.status != 200 || robots != "noindex, nofollow" || doc.Find(`#password`).Length() != 1 {
		t.Errorf("the sign-in page: %d, robots %q", a.status, robots)
	}
	a = f.do(t, "GET", "/favicon.ico", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "image/") || !strings.HasPrefix(a.body, "\x00\x00\x01\x00") {
		t.Fatalf("favicon.ico: %d %q", a.status, a.header.Get("Content-Type"))
	}
	if a := f.do(t, "HEAD", "/favicon.ico", ""); a.status != 200 {
		t.Fatalf("HEAD favicon.ico: %d", a.status)
	}
	if a := f.do(t, "GET", "/static/favicon.svg", ""); a.status != 200 || a.header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("favicon.svg: %d %q", a.status, a.header.Get("Content-Type"))
	}
	if a := f.do(t, "GET", "/static/keys.js", ""); a.status != 200 || !strings.Contains(a.body, "showModal") {
		t.Fatalf("keys.js: %d", a.status)
	}

	descriptions := map[string]string{}
	for _, path := range []string{"/", "/test/", "/warriors/"} {
		status, doc := f.page(t, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		if href, _ := doc.Find(`link[rel="icon"]`).Attr("href"); href != static.URL("favicon.svg") {
			t.Errorf("%s: icon %q", path, href)
		}
		d, _ := doc.Find(`meta[name="description"]`).Attr("content")
		if len(d) < 40 {
			t.Errorf("%s: description %q", path, d)
		}
		for other, od := range descriptions {
			if od == d {
				t.Errorf("%s and %s have the one description %q", path, other, d)
			}
		}
		descriptions[path] = d
	}
	if !strings.Contains(descriptions["/test/"], "Test project") {
		t.Errorf("the leaderboard's description does not name the project: %q", descriptions["/test/"])
	}

	status, doc := f.page(t, "/nowhere/at/all")
	if status != 404 || doc.Find(`[data-testid="error-home"]`).AttrOr("href", "") != "/" {
		t.Fatalf("404 page: %d, home link %q", status, doc.Find(`[data-testid="error-home"]`).AttrOr("href", ""))
	}
	// In the admin panel, an error leads back to the panel too.
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	a = c.get(t, "/admin/projects/nope/")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if a.status != http.StatusNotFound || doc.Find(`[data-testid="error-admin"]`).AttrOr("href", "") != "/admin/" {
		t.Fatalf("admin 404 page: %d %s", a.status, doc.Find("main").Text())
	}
}

// The admin panel has one navigation bar: the panel's, with the public
// site one link of it, not the public site's bar above its own; a page of
// the panel asks crawlers to keep away; roles read as words.
func TestAdminOneNavigationBar(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	f.user(t, "helper", users.RoleProjectAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	for _, path := range []string{"/admin/", "/admin/projects/test/", "/admin/projects/test/limits", "/admin/audit", "/admin/users", "/admin/settings"} {
		a := c.get(t, path)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		if err != nil || a.status != 200 {
			t.Fatalf("%s: %d", path, a.status)
		}
		if n := doc.Find("header").Length(); n != 1 {
			t.Errorf("%s: %d page headers", path, n)
		}
		projects := doc.Find("a").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.TrimSpace(s.Text()) == "Projects" })
		if projects.Length() != 1 || projects.AttrOr("href", "") != "/admin/" {
			t.Errorf("%s: %d links named Projects", path, projects.Length())
		}
		if doc.Find(`[data-testid="admin-nav"] a[href="/"]`).Length() != 1 {
			t.Errorf("%s: no link to the public site in the bar", path)
		}
		// Only a signed-in browser gets the panel's pages.
		if robots, ok := doc.Find(`meta[name="robots"]`).Attr("content"); ok {
			t.Errorf("%s: robots %q", path, robots)
		}
	}
	a := c.get(t, "/admin/audit")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if cur := doc.Find(`[data-testid="admin-nav"] [aria-current="page"]`).Text(); cur != "Audit log" {
		t.Errorf("current part of the panel: %q", cur)
	}
	if doc.Find(`form[role="search"]`).Length() != 1 {
		t.Error("the audit log's filter is not the page's search form")
	}
	a = c.get(t, "/admin/users")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	var roles []string
	doc.Find(`[data-testid="user-role"]`).Each(func(_ int, s *goquery.Selection) {
		roles = append(roles, s.Text())
		if !s.HasClass("nowrap") {
			t.Errorf("role %q may break mid-word", s.Text())
		}
	})
	if strings.Join(roles, ",") != "project admin,global admin" && strings.Join(roles, ",") != "global admin,project admin" {
		t.Errorf("roles shown: %q", roles)
	}
}
