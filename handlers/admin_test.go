package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/archive"
	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/jobs"
	"tracker/users"
)

// adminClient is a browser of the admin panel: it keeps its cookies and
// does not follow redirects.
type adminClient struct {
	f      fixture
	client *http.Client
}

func (f fixture) adminClient(t *testing.T) *adminClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &adminClient{f: f, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *adminClient) send(t *testing.T, req *http.Request) answer {
	t.Helper()
	if c.f.from != "" {
		req.Header.Set("X-Forwarded-For", c.f.from)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: b.String(), header: resp.Header}
}

func (c *adminClient) get(t *testing.T, path string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", c.f.srv.URL+path, nil)
	return c.send(t, req)
}

// post sends a form as a same-origin browser does.
func (c *adminClient) post(t *testing.T, path string, form url.Values) answer {
	t.Helper()
	req, _ := http.NewRequest("POST", c.f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.send(t, req)
}

// confirmed posts an action's form, checks the confirmation page says
// what it will do, and posts the form again as that page does. The page of
// an action that cannot be undone comes with 400 `unconfirmed`.
func (c *adminClient) confirmed(t *testing.T, path string, form url.Values, question string) answer {
	t.Helper()
	a := c.post(t, path, form)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil || a.status != 200 && (a.status != 400 || a.reason != "unconfirmed") {
		t.Fatalf("%s: %d %s, no confirmation page: %s", path, a.status, a.reason, a.body)
	}
	if q := doc.Find(`[data-testid="confirm-question"]`).Text(); !strings.Contains(q, question) {
		t.Fatalf("%s: the confirmation asks %q, want %q", path, q, question)
	}
	again := url.Values{"confirmed": {"1"}}
	doc.Find(`form input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		if name := s.AttrOr("name", ""); name != "confirmed" {
			again.Add(name, s.AttrOr("value", ""))
		}
	})
	if typed := form.Get("confirm"); typed != "" {
		again.Set("confirm", typed)
	}
	return c.post(t, path, again)
}

// flash follows the redirect after an action and reads the message the
// page there shows.
func (c *adminClient) flash(t *testing.T, a answer) string {
	t.Helper()
	if a.status != http.StatusSeeOther {
		return ""
	}
	page := c.get(t, a.header.Get("Location"))
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	return doc.Find(`[data-testid="flash"]`).Text()
}

func (c *adminClient) login(t *testing.T, user, password string) answer {
	t.Helper()
	return c.post(t, "/admin/login", url.Values{"username": {user}, "password": {password}})
}

func (f fixture) user(t *testing.T, name, role string) {
	t.Helper()
	if _, err := users.NewStore(f.pool).Create(context.Background(), name, "correct horse battery", role); err != nil {
		t.Fatal(err)
	}
}

// signedIn is a browser of the admin panel signed in as user name, made
// with the password f.user gives. A sign-in refused fails the test.
func (f fixture) signedIn(t *testing.T, name string) *adminClient {
	t.Helper()
	c := f.adminClient(t)
	if a := c.login(t, name, "correct horse battery"); a.status != http.StatusSeeOther {
		t.Fatalf("%s's sign-in: %d %q %s", name, a.status, a.reason, a.body)
	}
	return c
}

// admin makes user root, a global admin, and returns a browser signed in
// as root.
func (f fixture) admin(t *testing.T) *adminClient {
	t.Helper()
	f.user(t, "root", users.RoleAdmin)
	return f.signedIn(t, "root")
}

func TestAdminSignIn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)

	// Strangers are sent to the login page, and come back after.
	if a := c.get(t, "/admin/projects/test/"); a.status != 303 || a.header.Get("Location") != "/admin/login?next=%2Fadmin%2Fprojects%2Ftest%2F" {
		t.Fatalf("anonymous: %d %s", a.status, a.header.Get("Location"))
	}
	if a := c.post(t, "/admin/projects/test/config", url.Values{"paused": {"true"}}); a.status != 401 {
		t.Fatalf("anonymous POST: %d", a.status)
	}
	// A wrong password and an unknown user get the same answer.
	wrong, unknown := c.login(t, "root", "nope nope nope"), c.login(t, "nobody", "nope nope nope")
	if wrong.status != 401 || unknown.status != 401 || !strings.Contains(wrong.body, "Wrong username or password") ||
		!strings.Contains(unknown.body, "Wrong username or password") {
		t.Fatalf("bad logins: %d %d", wrong.status, unknown.status)
	}
	a := c.post(t, "/admin/login", url.Values{"username": {"ROOT"}, "password": {"correct horse battery"}, "next": {"/admin/audit"}})
	if a.status != 303 || a.header.Get("Location") != "/admin/audit" {
		t.Fatalf("login: %d %s", a.status, a.header.Get("Location"))
	}
	cookie := a.header.Get("Set-Cookie")
	if !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") || strings.Contains(cookie, "Secure") {
		t.Fatalf("session cookie %q", cookie)
	}
	if a := c.get(t, "/admin/"); a.status != 200 || !strings.Contains(a.body, `data-testid="admin-user">root<`) {
		t.Fatalf("dashboard: %d", a.status)
	} else if a.header.Get("Cache-Control") != "no-store" || !strings.HasSuffix(a.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("dashboard headers: %v", a.header)
	}
	// Messages come from the server's own redirects, never from the address.
	if a := c.get(t, "/admin/?flash=Mail+your+password+to+evil.example"); strings.Contains(a.body, "evil.example") {
		t.Fatal("a message from the address shown")
	}
	// Never to another site after login.
	a = c.post(t, "/admin/login", url.Values{"username": {"root"}, "password": {"correct horse battery"}, "next": {"//evil.example/"}})
	if a.header.Get("Location") != "/admin/" {
		t.Fatalf("next to another site: %s", a.header.Get("Location"))
	}
	// X-Forwarded-Proto is believed only from a trusted proxy (none here,
	// see TestRealClient): a stranger's does not make the cookie Secure.
	req, _ := http.NewRequest("POST", f.srv.URL+"/admin/login", strings.NewReader("username=root&password=correct+horse+battery"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	if a := c.send(t, req); a.status != 303 || strings.Contains(a.header.Get("Set-Cookie"), "Secure") {
		t.Fatalf("cookie after a stranger's X-Forwarded-Proto: %d %q", a.status, a.header.Get("Set-Cookie"))
	}
	// Signed out, the session is worth nothing.
	c.post(t, "/admin/logout", nil)
	if a := c.get(t, "/admin/"); a.status != 303 {
		t.Fatalf("after logout: %d", a.status)
	}
}

func TestAdminLoginThrottled(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	for range 5 {
		c.login(t, "root", "wrong wrong wrong")
	}
	// Even the right password waits now.
	if a := c.login(t, "root", "correct horse battery"); a.status != 429 || a.header.Get("Retry-After") == "" {
		t.Fatalf("after 5 failures: %d", a.status)
	}
}

func TestAdminCrossOriginRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "https://evil.example"},
	} {
		req, _ := http.NewRequest("POST", f.srv.URL+"/admin/projects/test/pause", nil)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		// Refused as every refusal is, with its reason.
		if a := c.send(t, req); a.status != 403 || a.reason != "cross-origin" {
			t.Errorf("%v: %d %q", h, a.status, a.reason)
		}
	}
	if p := f.stored(t, "test"); p.Config.Paused {
		t.Fatal("a cross-site request paused the project")
	}
}

func TestAdminProjectActions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "a:1", "a:2", "b:1")
	f.user(t, "root", users.RoleAdmin)
	other := dbtest.Project(t, f.pool, "other", "")
	c := f.signedIn(t, "root")

	// Configuration: changed keys only, all or none, in the audit log.
	if a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "reclaim_ttl": {"600"}, "claims_limit": {"0"}}); a.status != 303 || c.flash(t, a) != "Saved reclaim_ttl." {
		t.Fatalf("config: %d %q %s", a.status, c.flash(t, a), a.body)
	}
	if a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"warriors"}, "title": {"Renamed"}}); a.status != 303 {
		t.Fatalf("config: %d %s", a.status, a.body)
	}
	p := f.stored(t, "test")
	if p.Config.ReclaimTTL != 600 || p.Title != "Renamed" {
		t.Fatalf("config not saved: %+v", p)
	}
	// A refused value is shown beside its field, with the values sent kept,
	// and nothing of the form is saved.
	a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"queues"}, "max_multi": {"50"}, "order": {"sideways"}})
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if a.status != 400 || !strings.Contains(doc.Find(`[data-testid="error-order"]`).Text(), "sideways") ||
		doc.Find(`#cfg-max_multi`).AttrOr("value", "") != "50" || doc.Find(`#cfg-order`).AttrOr("aria-invalid", "") != "true" {
		t.Fatalf("bad config: %d %s", a.status, a.body)
	}
	if p := f.stored(t, "test"); p.Config.MaxMulti != 100 {
		t.Fatal("half a bad form was saved")
	}
	if a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"queues"}, "title": {"x"}}); a.status != 400 || a.reason != "unknown-key" {
		t.Fatalf("a key of another section: %d %s", a.status, a.reason)
	}
	// Pause and resume.
	if a := c.post(t, "/admin/projects/test/pause", nil); a.status != 303 {
		t.Fatalf("pause: %d", a.status)
	}
	if p := f.stored(t, "test"); !p.Config.Paused {
		t.Fatal("not paused")
	}
	c.post(t, "/admin/projects/test/resume", nil)
	if p := f.stored(t, "test"); p.Config.Paused {
		t.Fatal("not resumed")
	}

	// Items by paste and by file, into any queue.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("queue", "secondary")
	mw.WriteField("names", "c:1\nc:2\na:1")
	fw, _ := mw.CreateFormFile("file", "items.txt")
	fw.Write([]byte("d:1\nd:2\nd:3\n"))
	mw.Close()
	req, _ := http.NewRequest("POST", f.srv.URL+"/admin/projects/test/items", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if a := c.send(t, req); a.status != 303 || !strings.Contains(c.flash(t, a), "Added 5 to secondary, skipped 1") {
		t.Fatalf("items: %d %s", a.status, a.body)
	}
	if s := f.summary(t); s.Queues["secondary"] != 5 {
		t.Fatalf("queues %v", s.Queues)
	}

	// Claims released by downloader.
	f.do(t, "POST", "/test/multi=3//request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/request", `{"downloader":"bob"}`)
	if a := c.confirmed(t, "/admin/projects/test/claims/release", url.Values{"downloader": {"alice"}, "older_than": {"0"}}, "releases 3 claims of alice"); a.status != 303 || c.flash(t, a) != "Released 3 claims." {
		t.Fatalf("release: %d %q", a.status, c.flash(t, a))
	}
	if s := f.summary(t); s.Claims != 1 {
		t.Fatalf("claims after release: %d", s.Claims)
	}

	// The audit log has it all, with who and from where.
	a = c.get(t, "/admin/audit?project=test")
	for _, want := range []string{"project.config", "items.add", "claims.release", "root", "127.0.0.1", "reclaim_ttl"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("audit log lacks %q", want)
		}
	}
	// One entry per upload: the pasted names and the file are one import.
	a = c.get(t, "/admin/audit?project=test&action=items.add&user=root")
	if n := strings.Count(a.body, `data-testid="audit-entry"`); n != 1 || !strings.Contains(a.body, "secondary") {
		t.Errorf("audit filtered by action: %d entries", n)
	}

	// A project admin runs their projects only.
	f.user(t, "helper", users.RoleProjectAdmin)
	if _, err := f.pool.Exec(ctx, "INSERT INTO project_admins SELECT id, $1 FROM users WHERE username = 'helper'", other.ID); err != nil {
		t.Fatal(err)
	}
	h := f.signedIn(t, "helper")
	if a := h.get(t, "/admin/projects/test/"); a.status != 403 {
		t.Errorf("project admin on another project: %d", a.status)
	}
	if a := h.post(t, "/admin/projects/test/pause", nil); a.status != 403 {
		t.Errorf("project admin changing another project: %d", a.status)
	}
	// Keys that put HTML before every warrior are a global admin's.
	if a := h.post(t, "/admin/projects/other/config", url.Values{"section": {"warriors"}, "description": {"<script>"}}); a.status != 400 ||
		!strings.Contains(a.body, "only global admins") {
		t.Errorf("project admin setting the description: %d", a.status)
	}
	if a := h.get(t, "/admin/projects/other/warriors"); !strings.Contains(a.body, `id="cfg-description"`) ||
		!strings.Contains(a.body, "Only global admins may change it.") {
		t.Errorf("the description is not shown locked to a project admin")
	}
	if a := h.get(t, "/admin/projects/other/"); a.status != 200 {
		t.Errorf("project admin on their project: %d", a.status)
	}
	if a := h.post(t, "/admin/projects", url.Values{"slug": {"mine"}}); a.status != 403 {
		t.Errorf("project admin creating a project: %d", a.status)
	}
	if a := h.get(t, "/admin/audit"); a.status != 403 {
		t.Errorf("project admin reading every project's audit: %d", a.status)
	}
	// A global admin creates projects.
	if a := c.post(t, "/admin/projects", url.Values{"slug": {"fresh"}, "title": {"Fresh"}}); a.status != 303 {
		t.Errorf("create: %d %s", a.status, a.body)
	}
	if a := c.post(t, "/admin/projects", url.Values{"slug": {"admin"}}); a.status != 400 {
		t.Errorf("reserved slug: %d", a.status)
	}
}

func TestAdminUsers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	if a := c.post(t, "/admin/users", url.Values{"username": {"helper"}, "password": {"short"}, "role": {"project_admin"}}); a.status != 400 {
		t.Fatalf("short password: %d", a.status)
	}
	if a := c.post(t, "/admin/users", url.Values{"username": {"helper"}, "password": {"a long enough one"}, "role": {"project_admin"}}); a.status != 303 {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var rootID, helperID int32
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT id FROM users WHERE username = 'root'"), &rootID)
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT id FROM users WHERE username = 'helper'"), &helperID)
	path := func(id int32, action string) string { return "/admin/users/" + strconv.Itoa(int(id)) + "/" + action }
	if a := c.post(t, path(helperID, "grant"), url.Values{"project": {"test"}}); a.status != 303 {
		t.Fatalf("grant: %d", a.status)
	}
	h := f.adminClient(t)
	if a := h.login(t, "helper", "a long enough one"); a.status != 303 {
		t.Fatalf("helper login: %d", a.status)
	}
	if a := h.get(t, "/admin/projects/test/"); a.status != 200 {
		t.Fatalf("granted project: %d", a.status)
	}
	if a := h.get(t, "/admin/users"); a.status != 403 {
		t.Fatalf("project admin on the users page: %d", a.status)
	}
	c.post(t, path(helperID, "revoke"), url.Values{"project": {"test"}})
	if a := h.get(t, "/admin/projects/test/"); a.status != 403 {
		t.Fatalf("revoked project: %d", a.status)
	}
	c.post(t, path(helperID, "grant"), url.Values{"project": {"test"}})
	if a := h.get(t, "/admin/projects/test/"); a.status != 200 {
		t.Fatalf("granted again: %d", a.status)
	}
	c.post(t, path(helperID, "password"), url.Values{"password": {"another long one"}})
	// Whoever knew the old password is signed out.
	if a := h.get(t, "/admin/projects/test/"); a.status != 303 {
		t.Fatalf("a session of the old password after the reset: %d", a.status)
	}
	if a := c.get(t, "/admin/users"); a.status != 200 {
		t.Fatalf("the admin who reset it was signed out: %d", a.status)
	}
	if a := h.login(t, "helper", "another long one"); a.status != 303 {
		t.Fatalf("login with the reset password: %d", a.status)
	}
	// The last global admin stays one.
	if a := c.post(t, path(rootID, "role"), url.Values{"role": {"project_admin"}, "confirmed": {"1"}}); a.status != 409 {
		t.Fatalf("demoting the last admin: %d", a.status)
	}
	if a := c.post(t, path(rootID, "delete"), url.Values{"confirm": {"root"}}); a.status != 409 {
		t.Fatalf("deleting the last admin: %d", a.status)
	}
	// Deletion wants the name typed; a deleted admin is signed out.
	if a := c.post(t, path(helperID, "delete"), url.Values{"confirm": {"nope"}}); a.status != 400 {
		t.Fatalf("delete unconfirmed: %d", a.status)
	}
	if a := c.post(t, path(helperID, "delete"), url.Values{"confirm": {"helper"}}); a.status != 303 {
		t.Fatalf("delete: %d", a.status)
	}
	if a := h.get(t, "/admin/"); a.status != 303 {
		t.Fatalf("a deleted user's session: %d", a.status)
	}
	if a := c.get(t, "/admin/audit"); !strings.Contains(a.body, "user.delete") || !strings.Contains(a.body, "user.grant") {
		t.Fatal("user changes missing from the audit log")
	}
}

func TestAdminBlocksTargetsSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "a:1")
	c := f.admin(t)
	if a := c.post(t, "/admin/projects/test/blocks/add", url.Values{"kind": {"nick"}, "value": {"spammer"}, "reason": {"bad data"}}); a.status != 303 {
		t.Fatalf("block: %d %s", a.status, a.body)
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"spammer"}`); a.status != 403 {
		t.Fatalf("blocked nick: %d", a.status)
	}
	c.confirmed(t, "/admin/projects/test/blocks/remove", url.Values{"kind": {"nick"}, "value": {"spammer"}}, "lifts the block of the nick spammer")
	if a := f.do(t, "POST", "/test/request", `{"downloader":"spammer"}`); a.status != 200 {
		t.Fatalf("lifted block: %d", a.status)
	}
	if a := c.post(t, "/admin/projects/test/blocks/add", url.Values{"kind": {"ip"}, "value": {"not an ip"}}); a.status != 400 {
		t.Fatalf("bad block: %d", a.status)
	}
	if a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {"rsync://up.example/data/:downloader/"}, "weight": {"3"}, "enabled": {"true"}}); a.status != 303 {
		t.Fatalf("target: %d", a.status)
	}
	if ts, err := f.store.Targets(ctx, f.project); err != nil || len(ts) != 1 || ts[0].Weight != 3 || !ts[0].Enabled {
		t.Fatalf("targets %+v %v", ts, err)
	}
	if a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {"ftp://x/"}}); a.status != 400 {
		t.Fatalf("bad target: %d", a.status)
	}
	old := f.project.Config.BackfeedKey
	c.confirmed(t, "/admin/projects/test/backfeed-key", url.Values{"confirm": {"test"}}, "replaces the backfeed key of test")
	if p := f.stored(t, "test"); p.Config.BackfeedKey == old {
		t.Fatal("backfeed key not rotated")
	}
	if a := c.post(t, "/admin/settings", url.Values{"seesaw_version": {"0.9.1"}, "tracker_banner_html": {"<em>Hi</em>"}}); a.status != 303 {
		t.Fatalf("settings: %d", a.status)
	}
	if s, err := f.store.Settings(ctx); err != nil || s.SeesawVersion != "0.9.1" {
		t.Fatalf("settings %+v %v", s, err)
	}
	// The warriors parse seesaw_version as a StrictVersion: anything else
	// is refused beside the field, and nothing is saved.
	a := c.post(t, "/admin/settings", url.Values{"seesaw_version": {""}, "tracker_banner_html": {"<em>Bye</em>"}})
	if a.status != 400 || !strings.Contains(a.body, `data-testid="error-seesaw_version"`) {
		t.Fatalf("empty seesaw_version: %d", a.status)
	}
	if s, err := f.store.Settings(ctx); err != nil || s.SeesawVersion != "0.9.1" || s.BannerHTML != "<em>Hi</em>" {
		t.Fatalf("settings after a refused save %+v %v", s, err)
	}
	if a := f.do(t, "GET", "/", ""); !strings.Contains(a.body, "<em>Hi</em>") {
		t.Fatal("banner not on the home page")
	}
}

func TestAdminQueuesAndItems(t *testing.T) {
	t.Parallel()
	f := setup(t, "user:1", "user:2", "post:1", "post:2", "post:3")
	c := f.admin(t)
	p := "/admin/projects/test/"

	// Move by type prefix; a pattern PostgreSQL refuses is a 400.
	if a := c.confirmed(t, p+"queues/move", url.Values{"from": {"todo"}, "to": {"secondary"}, "prefix": {"post:"}}, "moves 3 items"); a.status != 303 || !strings.Contains(c.flash(t, a), "Moved 3 items") {
		t.Fatalf("move: %d", a.status)
	}
	if a := c.post(t, p+"queues/move", url.Values{"from": {"todo"}, "to": {"redo"}, "pattern": {"(("}}); a.status != 400 || !strings.Contains(a.body, "invalid pattern") {
		t.Fatalf("bad pattern: %d", a.status)
	}
	if s := f.summary(t); s.Queues["todo"] != 2 || s.Queues["secondary"] != 3 {
		t.Fatalf("after move %v", s.Queues)
	}
	// Drain needs the name typed again.
	if a := c.post(t, p+"queues/drain", url.Values{"from": {"secondary"}, "confirm": {"todo"}, "confirmed": {"1"}}); a.status != 400 ||
		a.reason != "unconfirmed" || !strings.Contains(a.body, "confirm-question") {
		t.Fatalf("unconfirmed drain: %d", a.status)
	}
	if s := f.summary(t); s.Queues["secondary"] != 3 {
		t.Fatalf("a drain typed wrong drained %v", s.Queues)
	}
	if a := c.confirmed(t, p+"queues/drain", url.Values{"from": {"secondary"}, "confirm": {"secondary"}, "pattern": {"^post:[12]$"}}, "drops 2 items"); a.status != 303 || !strings.Contains(c.flash(t, a), "Drained 2") {
		t.Fatalf("drain: %d", a.status)
	}
	if s := f.summary(t); s.Queues["secondary"] != 1 {
		t.Fatalf("after drain %v", s.Queues)
	}
	// One item: mark a queued one done, requeue it, release a claim.
	if a := c.confirmed(t, p+"item/done", url.Values{"name": {"user:2"}}, "marks the item user:2"); a.status != 303 {
		t.Fatalf("mark done: %d %s", a.status, a.body)
	}
	a := c.get(t, p+"?item=user:2")
	if !strings.Contains(a.body, `data-testid="admin-item-status">done<`) {
		t.Fatal("marked item is not done")
	}
	if a := c.post(t, p+"item/requeue", url.Values{"name": {"user:2"}}); a.status != 303 {
		t.Fatalf("requeue: %d %s", a.status, a.body)
	}
	if s := f.summary(t); s.Queues["redo"] != 1 || s.Done != 1 {
		t.Fatalf("after requeue %+v", s)
	}
	got := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	if got.status != 200 {
		t.Fatalf("request: %d", got.status)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(got.body, `{"item_name":"`), `"}`)
	if a := c.post(t, p+"item/release", url.Values{"name": {name}}); a.status != 303 {
		t.Fatalf("release one: %d %s", a.status, a.body)
	}
	if a := c.post(t, p+"item/release", url.Values{"name": {name}}); a.status != 400 {
		t.Fatalf("release of an unclaimed item: %d", a.status)
	}
	// Requeue done items by pattern, once confirmed.
	if a := c.post(t, p+"done/requeue", url.Values{}); a.status != 200 || !strings.Contains(a.body, "confirm-question") {
		t.Fatalf("requeue everything unconfirmed: %d", a.status)
	}
	if a := c.confirmed(t, p+"done/requeue", url.Values{"prefix": {"user:"}, "queue": {"backfeed"}}, "up to 1 completed items"); a.status != 303 || !strings.Contains(c.flash(t, a), "Queued 0") {
		// user:2 is queued in redo already: left alone.
		t.Fatalf("requeue by prefix: %d %s", a.status, a.body)
	}
}

func TestAdminClaimsList(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 250 {
		names = append(names, "user:"+strconv.Itoa(i))
	}
	f := setup(t, names...)
	f.set(t, "max_multi=200")
	f.do(t, "POST", "/test/multi=200//request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/multi=200//request", `{"downloader":"bob"}`)
	c := f.admin(t)

	seen := map[string]bool{}
	path := "/admin/projects/test/claims"
	for page := 0; path != ""; page++ {
		a := c.get(t, path)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		if err != nil || a.status != 200 {
			t.Fatalf("page %d: %d %v", page, a.status, err)
		}
		doc.Find(`[data-testid="claim"] code`).Each(func(_ int, s *goquery.Selection) { seen[s.Text()] = true })
		path = doc.Find(`[data-testid="claims-next"]`).AttrOr("href", "")
	}
	if len(seen) != 250 {
		t.Fatalf("%d claims listed over the pages, want 250", len(seen))
	}
	// Few claims: counted by downloader and by age on every view.
	a := c.get(t, "/admin/projects/test/claims")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if row := doc.Find(`[data-testid="claim-counts"] tbody tr`).First(); row.Find("td").Eq(0).Text() != "alice" || row.Find("td").Eq(1).Text() != "200" {
		t.Errorf("claims per downloader: %q", row.Text())
	}
	var aged int
	doc.Find(`[data-testid="age-claims"]`).Each(func(_ int, s *goquery.Selection) {
		n, err := strconv.Atoi(s.Text())
		if err != nil {
			t.Errorf("claims of an age: %v", err)
		}
		aged += n
	})
	if aged != 250 {
		t.Errorf("claims counted by age: %d, want 250", aged)
	}
	a = c.get(t, "/admin/projects/test/claims?downloader=bob")
	if n := strings.Count(a.body, `data-testid="claim"`); n != 50 {
		t.Fatalf("bob's claims: %d", n)
	}
	a = c.get(t, "/admin/projects/test/claims?prefix=user:24")
	if n := strings.Count(a.body, `data-testid="claim"`); n != 11 { // user:24, user:240-249
		t.Fatalf("prefix filter: %d", n)
	}
	// Release by pattern.
	if a := c.confirmed(t, "/admin/projects/test/claims/release", url.Values{"pattern": {"^user:1[0-9]$"}}, "releases 10 claims"); c.flash(t, a) != "Released 10 claims." {
		t.Fatalf("release by pattern: %d", a.status)
	}
}

func TestAdminProjectDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "a:1", "a:2", "a:3")
	f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	c := f.admin(t)
	if a := c.post(t, "/admin/projects/test/delete", url.Values{"confirm": {"tset"}}); a.status != 400 {
		t.Fatalf("unconfirmed delete: %d", a.status)
	}
	if a := c.post(t, "/admin/projects/test/delete", url.Values{"confirm": {"test"}}); a.status != 303 {
		t.Fatalf("delete: %d %s", a.status, a.body)
	}
	// Gone at once for every route.
	if a := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`); a.status != 404 || a.reason != "unknown-project" {
		t.Fatalf("warrior after delete: %d %s", a.status, a.reason)
	}
	if a := f.do(t, "GET", "/test/", ""); a.status != 404 {
		t.Fatalf("leaderboard after delete: %d", a.status)
	}
	// The purge job removes the rows (every table's: see the jobs
	// package's TestPurgeRemovesEveryTable), the completions' partitions
	// and the project.
	branch := "done_p" + strconv.Itoa(int(f.project.ID))
	exists := func(sql string, arg any) bool {
		t.Helper()
		var ok bool
		if err := f.pool.QueryRow(ctx, sql, arg).Scan(&ok); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return ok
	}
	// On Citus, done's partitions are days shared by every project: the
	// project has no branch of its own.
	citus, err := db.Citus(ctx, f.pool)
	if err != nil {
		t.Fatal(err)
	}
	if !exists("SELECT to_regclass($1) IS NOT NULL", branch) && !citus || !exists("SELECT EXISTS (SELECT 1 FROM claims WHERE project_id = $1)", f.project.ID) {
		t.Fatal("before the purge: no partitions or no claim of the project")
	}
	purge := jobs.Purge(f.pool, f.store, items.NewEngine(f.pool, nil), archive.New(f.pool, t.TempDir()))
	if s, err := jobs.NewRunner(slog.New(slog.DiscardHandler), f.pool, purge).RunNow(ctx, "purge"); err != nil || s != "purged 1 projects" {
		t.Fatalf("purge: %q, %v", s, err)
	}
	for _, sql := range []string{"SELECT EXISTS (SELECT 1 FROM projects WHERE id = $1)", "SELECT EXISTS (SELECT 1 FROM claims WHERE project_id = $1)"} {
		if exists(sql, f.project.ID) {
			t.Fatalf("after the purge: %s", sql)
		}
	}
	if exists("SELECT to_regclass($1) IS NOT NULL", branch) {
		t.Fatalf("after the purge: %s left", branch)
	}
	// The slug is free again.
	if a := c.post(t, "/admin/projects", url.Values{"slug": {"test"}}); a.status != 303 {
		t.Fatalf("a new project with the slug: %d", a.status)
	}
}

// An items file larger than any warrior body streams into the queue.
func TestAdminItemsUploadLarge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	const n = 400_000
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("queue", "todo")
		fw, _ := mw.CreateFormFile("file", "items.txt")
		for i := range n {
			fmt.Fprintf(fw, "url:https://example.org/a/rather/long/path/to/page/number/%09d\n", i)
		}
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", f.srv.URL+"/admin/projects/test/items", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if a := c.send(t, req); a.status != 303 || !strings.Contains(c.flash(t, a), "Added 400,000 to todo") {
		t.Fatalf("upload of %d lines (about 28 MB): %d", n, a.status)
	}
}
