package handlers_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

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
	}
	// Never to another site after login.
	a = c.post(t, "/admin/login", url.Values{"username": {"root"}, "password": {"correct horse battery"}, "next": {"//evil.example/"}})
	if a.header.Get("Location") != "/admin/" {
		t.Fatalf("next to another site: %s", a.header.Get("Location"))
	}
	// Behind a TLS proxy the cookie is Secure.
	req, _ := http.NewRequest("GET", f.srv.URL+"/admin/login", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	if a := c.send(t, req); a.status != 200 {
		t.Fatalf("login page: %d", a.status)
	}
	req, _ = http.NewRequest("POST", f.srv.URL+"/admin/login", strings.NewReader("username=root&password=correct+horse+battery"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	if a := c.send(t, req); !strings.Contains(a.header.Get("Set-Cookie"), "Secure") {
		t.Fatalf("cookie over TLS: %q", a.header.Get("Set-Cookie"))
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
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "https://evil.example"},
	} {
		req, _ := http.NewRequest("POST", f.srv.URL+"/admin/projects/test/config", strings.NewReader("paused=true"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		if a := c.send(t, req); a.status != 403 {
			t.Errorf("%v: %d", h, a.status)
		}
	}
	if p, _ := f.store.Get(context.Background(), "test"); p.Config.Paused {
		t.Fatal("a cross-site request paused the project")
	}
}

func TestAdminProjectActions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "a:1", "a:2", "b:1")
	f.user(t, "root", users.RoleAdmin)
	other, err := f.store.Create(ctx, "other", "")
	if err != nil {
		t.Fatal(err)
	}
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")

	// Configuration: changed keys only, all or none, in the audit log.
	if a := c.post(t, "/admin/projects/test/config", url.Values{"reclaim_ttl": {"600"}, "title": {"Renamed"}, "max_multi": {"100"}}); a.status != 303 {
		t.Fatalf("config: %d %s", a.status, a.body)
	}
	p, _ := f.store.Get(ctx, "test")
	if p.Config.ReclaimTTL != 600 || p.Title != "Renamed" {
		t.Fatalf("config not saved: %+v", p)
	}
	if a := c.post(t, "/admin/projects/test/config", url.Values{"reclaim_ttl": {"60"}, "order": {"sideways"}}); a.status != 400 || !strings.Contains(a.body, "sideways") {
		t.Fatalf("bad config: %d", a.status)
	}
	if p, _ := f.store.Get(ctx, "test"); p.Config.ReclaimTTL != 600 {
		t.Fatal("half a bad form was saved")
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
	if a := c.send(t, req); a.status != 200 || !strings.Contains(a.body, "Added 5 to secondary, skipped 1") {
		t.Fatalf("items: %d %s", a.status, a.body)
	}
	if s := f.summary(t); s.Queues["secondary"] != 5 {
		t.Fatalf("queues %v", s.Queues)
	}

	// Claims released by downloader.
	f.do(t, "POST", "/test/multi=3//request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/request", `{"downloader":"bob"}`)
	if a := c.post(t, "/admin/projects/test/claims/release", url.Values{"downloader": {"alice"}, "older_than": {"0"}}); a.status != 200 || !strings.Contains(a.body, "Released 3 claims") {
		t.Fatalf("release: %d", a.status)
	}
	if s := f.summary(t); s.Claims != 1 {
		t.Fatalf("claims after release: %d", s.Claims)
	}

	// The audit log has it all, with who and from where.
	a := c.get(t, "/admin/audit?project=test")
	for _, want := range []string{"project.config", "items.add", "claims.release", "root", "127.0.0.1", "reclaim_ttl"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("audit log lacks %q", want)
		}
	}

	// A project admin runs their projects only.
	f.user(t, "helper", users.RoleProjectAdmin)
	if _, err := f.pool.Exec(ctx, "INSERT INTO project_admins SELECT id, $1 FROM users WHERE username = 'helper'", other.ID); err != nil {
		t.Fatal(err)
	}
	h := f.adminClient(t)
	h.login(t, "helper", "correct horse battery")
	if a := h.get(t, "/admin/projects/test/"); a.status != 403 {
		t.Errorf("project admin on another project: %d", a.status)
	}
	if a := h.post(t, "/admin/projects/test/config", url.Values{"paused": {"true"}}); a.status != 403 {
		t.Errorf("project admin changing another project: %d", a.status)
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
