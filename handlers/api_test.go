package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"tracker/db/dbtest"
	"tracker/handlers"
	"tracker/users"
)

// accountOf reads the account named user.
func accountOf(t *testing.T, f fixture, user string) users.Account {
	t.Helper()
	var id int32
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT id FROM users WHERE username = $1", user), &id)
	a, err := users.NewStore(f.pool).Account(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// grant lets project admin user run project id; revokeGrant takes it back.
func grant(t *testing.T, f fixture, user string, id int32) {
	t.Helper()
	if err := users.NewStore(f.pool).Grant(context.Background(), accountOf(t, f, user), id); err != nil {
		t.Fatal(err)
	}
}

func revokeGrant(t *testing.T, f fixture, user string, id int32) {
	t.Helper()
	if err := users.NewStore(f.pool).Revoke(context.Background(), accountOf(t, f, user), id); err != nil {
		t.Fatal(err)
	}
}

// apiToken makes a token of user (created with f.user) and returns its
// secret.
func (f fixture) apiToken(t *testing.T, user, scope string, projects ...int32) string {
	t.Helper()
	_, secret, err := users.NewStore(f.pool).CreateToken(context.Background(), accountOf(t, f, user), "bot of "+user, scope, projects)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// apiCall sends a request to the admin API with token (none when empty)
// and a body of contentType.
func (f fixture) apiCall(t *testing.T, token, method, path, contentType string, body io.Reader) answer {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: b.String(), header: resp.Header}
}

// apiJSON sends v as the JSON body of a POST.
func (f fixture) apiJSON(t *testing.T, token, path string, v any) answer {
	t.Helper()
	b, _ := json.Marshal(v)
	return f.apiCall(t, token, "POST", path, "application/json", bytes.NewReader(b))
}

// wantAPIError checks a is the admin API's refusal of status with reason,
// in its JSON form.
func wantAPIError(t *testing.T, what string, a answer, status int, reason string) {
	t.Helper()
	var e struct {
		Status int    `json:"status"`
		Reason string `json:"reason"`
		Error  string `json:"error"`
	}
	if a.status != status || a.reason != reason {
		t.Fatalf("%s: %d %q, want %d %q: %s", what, a.status, a.reason, status, reason, a.body)
	}
	if err := json.Unmarshal([]byte(a.body), &e); err != nil || e.Status != status || e.Reason != reason || e.Error == "" {
		t.Fatalf("%s: not a JSON refusal with its reason (%v): %s", what, err, a.body)
	}
}

// TestAPIItemsAdd: items queued from text/plain and NDJSON, streamed into
// one import, answered with what was added, skipped and refused, the
// refused lines by number.
func TestAPIItemsAdd(t *testing.T) {
	t.Parallel()
	f := setup(t, "seen:1")
	f.user(t, "root", users.RoleAdmin)
	token := f.apiToken(t, "root", users.ScopeWrite)

	a := f.apiCall(t, token, "POST", "/api/v1/projects/test/items", "text/plain",
		strings.NewReader("new:1\nseen:1\n\nnew:2\tnot params\nnew:3\t{\"a\":\n"+strings.Repeat("x", 9000)+"\nnew:1\n"))
	if a.status != 200 {
		t.Fatalf("text/plain: %d %s", a.status, a.body)
	}
	var got struct {
		Queue        string `json:"queue"`
		Added        int64  `json:"added"`
		Skipped      int64  `json:"skipped"`
		Refused      int64  `json:"refused"`
		RefusedLines []struct {
			Line   int64  `json:"line"`
			Reason string `json:"reason"`
		} `json:"refused_lines"`
	}
	json.Unmarshal([]byte(a.body), &got)
	// new:2<TAB>not params is a name with a tab: no parameters follow.
	if got.Queue != "todo" || got.Added != 2 || got.Skipped != 2 || got.Refused != 2 ||
		len(got.RefusedLines) != 2 || got.RefusedLines[0].Line != 5 || got.RefusedLines[1].Line != 6 {
		t.Fatalf("text/plain: %+v", got)
	}

	a = f.apiCall(t, token, "POST", "/api/v1/projects/test/items?queue=secondary", "application/x-ndjson",
		strings.NewReader("{\"name\": \"nd:1\"}\nnot json\n{\"name\": \"nd:2\", \"params\": {\"depth\": 2}}\n{\"name\": \"nd:3\", \"params\": 5}\n{\"nom\": \"x\"}\n\n{\"name\": \"\"}\n"))
	got.RefusedLines = nil
	json.Unmarshal([]byte(a.body), &got)
	lines := []int64{}
	for _, l := range got.RefusedLines {
		lines = append(lines, l.Line)
	}
	if a.status != 200 || got.Queue != "secondary" || got.Added != 2 || got.Refused != 4 || !equalInts(lines, []int64{2, 4, 5, 7}) {
		t.Fatalf("ndjson: %d %+v %s", a.status, got, a.body)
	}
	var params string
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT params::text FROM item_params p JOIN todo t USING (project_id, id) WHERE t.name = 'nd:2'"), &params)
	if params != `{"depth": 2}` {
		t.Errorf("nd:2's parameters: %s", params)
	}

	wantAPIError(t, "a form", f.apiCall(t, token, "POST", "/api/v1/projects/test/items", "application/x-www-form-urlencoded", strings.NewReader("a=b")),
		http.StatusUnsupportedMediaType, "unsupported-media-type")
	wantAPIError(t, "a queue that is none", f.apiCall(t, token, "POST", "/api/v1/projects/test/items?queue=nope", "text/plain", strings.NewReader("x:1")),
		http.StatusBadRequest, "unknown-queue")
	wantAPIError(t, "a project that is none", f.apiCall(t, token, "POST", "/api/v1/projects/none/items", "text/plain", strings.NewReader("x:1")),
		http.StatusNotFound, "unknown-project")
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAPISessionCookieRefused: a browser signed in to the panel, its
// session cookie sent, is refused by the API: only a token authorises it,
// so a page of another site cannot make the browser act on it.
func TestAPISessionCookieRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	if a := c.get(t, "/admin/"); a.status != 200 {
		t.Fatalf("the panel, signed in: %d", a.status)
	}
	wantAPIError(t, "a read with the session cookie", c.get(t, "/api/v1/projects/test"), http.StatusUnauthorized, "token-required")
	req, _ := http.NewRequest("POST", f.srv.URL+"/api/v1/projects/test/items", strings.NewReader("x:1\n"))
	req.Header.Set("Content-Type", "text/plain")
	wantAPIError(t, "a change with the session cookie", c.send(t, req), http.StatusUnauthorized, "token-required")
	if n := dbtest.Count(t, f.pool, "SELECT count(*) FROM todo"); n != 0 {
		t.Errorf("%d items queued", n)
	}
}

// TestAPITokenRefusedOnPanel: a token opens no page of the panel and
// makes no change there.
func TestAPITokenRefusedOnPanel(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	token := f.apiToken(t, "root", users.ScopeWrite)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/admin/", http.StatusSeeOther},
		{"GET", "/admin/projects/test/", http.StatusSeeOther},
		{"POST", "/admin/projects/test/pause", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(tc.method, f.srv.URL+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || tc.status == http.StatusSeeOther && !strings.HasPrefix(resp.Header.Get("Location"), "/admin/login") {
			t.Errorf("%s %s with a token: %d %s", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	var paused bool
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT (config->>'paused')::boolean FROM projects WHERE slug = 'test'"), &paused)
	if paused {
		t.Error("a token paused the project through the panel")
	}
}

// TestAPITokenScope: a token acts only on the projects its account runs
// and it names; a project admin's token neither reaches another project
// nor does what only global admins do.
func TestAPITokenScope(t *testing.T) {
	t.Parallel()
	f := setup(t)
	other := dbtest.Project(t, f.pool, "other", "Other")
	f.user(t, "root", users.RoleAdmin)
	f.user(t, "pa", users.RoleProjectAdmin)
	grant(t, f, "pa", f.project.ID)

	pa := f.apiToken(t, "pa", users.ScopeWrite)
	if a := f.apiCall(t, pa, "GET", "/api/v1/projects/test", "", nil); a.status != 200 {
		t.Fatalf("a project admin's token on their project: %d %s", a.status, a.body)
	}
	wantAPIError(t, "a project admin's token on another project", f.apiCall(t, pa, "GET", "/api/v1/projects/other", "", nil), http.StatusForbidden, "forbidden")
	wantAPIError(t, "a project admin's token queueing on another project",
		f.apiCall(t, pa, "POST", "/api/v1/projects/other/items", "text/plain", strings.NewReader("x:1\n")), http.StatusForbidden, "forbidden")
	wantAPIError(t, "a project admin's token blocking on every project",
		f.apiJSON(t, pa, "/api/v1/projects/test/blocks/add", map[string]string{"kind": "nick", "value": "spammer", "scope": "all"}), http.StatusForbidden, "forbidden")
	wantAPIError(t, "a project admin's token reading the whole audit log", f.apiCall(t, pa, "GET", "/api/v1/audit", "", nil), http.StatusForbidden, "forbidden")
	wantAPIError(t, "a project admin's token setting a global admin's key",
		f.apiJSON(t, pa, "/api/v1/projects/test/config", map[string]any{"hidden": true}), http.StatusBadRequest, "invalid-config")

	// A global admin's token limited to one project.
	one := f.apiToken(t, "root", users.ScopeWrite, f.project.ID)
	if a := f.apiCall(t, one, "GET", "/api/v1/projects/test", "", nil); a.status != 200 {
		t.Fatalf("a token on its project: %d %s", a.status, a.body)
	}
	wantAPIError(t, "a token on a project it does not name", f.apiCall(t, one, "GET", "/api/v1/projects/other", "", nil), http.StatusForbidden, "forbidden")
	wantAPIError(t, "a token of one project blocking on every project",
		f.apiJSON(t, one, "/api/v1/projects/test/blocks/add", map[string]string{"kind": "nick", "value": "spammer", "scope": "all"}), http.StatusForbidden, "forbidden")
	if n := dbtest.Count(t, f.pool, "SELECT count(*) FROM todo WHERE project_id = $1", other.ID); n != 0 {
		t.Errorf("%d items queued on the other project", n)
	}
	if n := dbtest.Count(t, f.pool, "SELECT count(*) FROM blocks"); n != 0 {
		t.Errorf("%d blocks set", n)
	}

	// A grant taken back holds from the next request.
	revokeGrant(t, f, "pa", f.project.ID)
	wantAPIError(t, "a token whose account no longer runs the project", f.apiCall(t, pa, "GET", "/api/v1/projects/test", "", nil), http.StatusForbidden, "forbidden")
}

// TestAPIRevokedToken: a revoked token is refused from its next request.
func TestAPIRevokedToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	token := f.apiToken(t, "root", users.ScopeWrite)
	if a := f.apiCall(t, token, "GET", "/api/v1/projects/test", "", nil); a.status != 200 {
		t.Fatalf("before: %d %s", a.status, a.body)
	}
	var id int32
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT id FROM api_tokens"), &id)
	if _, err := users.NewStore(f.pool).RevokeToken(context.Background(), id, 0); err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, "a revoked token", f.apiCall(t, token, "GET", "/api/v1/projects/test", "", nil), http.StatusUnauthorized, "token-revoked")
	wantAPIError(t, "a revoked token's change", f.apiCall(t, token, "POST", "/api/v1/projects/test/items", "text/plain", strings.NewReader("x:1\n")),
		http.StatusUnauthorized, "token-revoked")
	// A wrong secret for a live id, and no token of that form.
	wantAPIError(t, "a wrong secret", f.apiCall(t, token[:len(token)-4]+"AAAA", "GET", "/api/v1/projects/test", "", nil), http.StatusUnauthorized, "invalid-token")
	wantAPIError(t, "no token", f.apiCall(t, "", "GET", "/api/v1/projects/test", "", nil), http.StatusUnauthorized, "token-required")
	if n := dbtest.Count(t, f.pool, "SELECT count(*) FROM todo"); n != 0 {
		t.Errorf("%d items queued", n)
	}
}

// TestAPIReadTokenCannotWrite: a read token reads, and every change it
// asks is refused with nothing changed.
func TestAPIReadTokenCannotWrite(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1")
	f.user(t, "root", users.RoleAdmin)
	token := f.apiToken(t, "root", users.ScopeRead)
	var key string
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT config->>'backfeed_key' FROM projects WHERE slug = 'test'"), &key)
	if a := f.apiCall(t, token, "GET", "/api/v1/projects/test", "", nil); key == "" || strings.Contains(a.body, key) {
		t.Errorf("a read token is shown the backfeed key (%q), which queues items: %s", key, a.body)
	}
	for _, path := range []string{"/api/v1/projects/test", "/api/v1/projects/test/blocks", "/api/v1/projects/test/targets", "/api/v1/audit"} {
		if a := f.apiCall(t, token, "GET", path, "", nil); a.status != 200 {
			t.Errorf("a read token reading %s: %d %s", path, a.status, a.body)
		}
	}
	for path, body := range map[string]any{
		"/api/v1/projects/test/config":       map[string]any{"paused": true},
		"/api/v1/projects/test/queues/move":  map[string]any{"from": "todo", "to": "secondary"},
		"/api/v1/projects/test/queues/drain": map[string]any{"queue": "todo"},
		"/api/v1/projects/test/blocks/add":   map[string]any{"kind": "nick", "value": "x"},
		"/api/v1/projects/test/targets/add":  map[string]any{"url": "rsync://up.example/x/"},
	} {
		wantAPIError(t, "a read token posting "+path, f.apiJSON(t, token, path, body), http.StatusForbidden, "read-only-token")
	}
	wantAPIError(t, "a read token queueing", f.apiCall(t, token, "POST", "/api/v1/projects/test/items", "text/plain", strings.NewReader("x:1\n")),
		http.StatusForbidden, "read-only-token")
	if n := dbtest.Count(t, f.pool, "SELECT count(*) FROM todo WHERE queue = 'todo'"); n != 1 {
		t.Errorf("%d items in todo, want 1", n)
	}
	if n := dbtest.Count(t, f.pool, "SELECT count(*) FROM blocks") + dbtest.Count(t, f.pool, "SELECT count(*) FROM upload_targets"); n != 0 {
		t.Errorf("%d blocks and targets", n)
	}
}

// TestAPIAuditedAsAccount: a change through a token is in the audit log
// as its account's, naming the token.
func TestAPIAuditedAsAccount(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	token := f.apiToken(t, "root", users.ScopeWrite)
	if a := f.apiJSON(t, token, "/api/v1/projects/test/config", map[string]any{"paused": true}); a.status != 200 {
		t.Fatalf("config: %d %s", a.status, a.body)
	}
	var user, tokenName string
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT username, detail->>'token' FROM audit_log WHERE action = 'project.config'"), &user, &tokenName)
	if user != "root" || tokenName != "bot of root" {
		t.Errorf("audited as %q through %q", user, tokenName)
	}
	a := f.apiCall(t, token, "GET", "/api/v1/audit?project=test&action=project.config", "", nil)
	if a.status != 200 || !strings.Contains(a.body, `"token":"bot of root"`) {
		t.Errorf("the audit log through the API: %d %s", a.status, a.body)
	}
}

// TestAPIThrottledPerToken: a token past its burst is refused 429 with
// Retry-After; another token is not.
func TestAPIThrottledPerToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f = f.serve(t, io.Discard, nil, func(c *handlers.Config) { c.APIRate, c.APIBurst = 0.001, 2 })
	f.user(t, "root", users.RoleAdmin)
	one, two := f.apiToken(t, "root", users.ScopeRead), f.apiToken(t, "root", users.ScopeRead)
	for i := range 2 {
		if a := f.apiCall(t, one, "GET", "/api/v1/projects/test", "", nil); a.status != 200 {
			t.Fatalf("request %d: %d %s", i, a.status, a.body)
		}
	}
	a := f.apiCall(t, one, "GET", "/api/v1/projects/test", "", nil)
	wantAPIError(t, "past the burst", a, http.StatusTooManyRequests, "token-throttled")
	if a.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if a := f.apiCall(t, two, "GET", "/api/v1/projects/test", "", nil); a.status != 200 {
		t.Errorf("another token: %d %s", a.status, a.body)
	}
}

// TestAPIUnknownRoute: a path or method the API does not have is refused
// in JSON too.
func TestAPIUnknownRoute(t *testing.T) {
	t.Parallel()
	f := setup(t)
	wantAPIError(t, "no such path", f.apiCall(t, "", "GET", "/api/v1/nothing", "", nil), http.StatusNotFound, "not-found")
	wantAPIError(t, "no such method", f.apiCall(t, "", "DELETE", "/api/v1/projects/test", "", nil), http.StatusMethodNotAllowed, "method-not-allowed")
}

// TestAPIBadTokensTurnedAway: an address that sends token after token
// that is none is turned away, its good token too, for a while.
func TestAPIBadTokensTurnedAway(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	token := f.apiToken(t, "root", users.ScopeRead)
	for i := range 20 {
		wantAPIError(t, "a guess", f.apiCall(t, token[:len(token)-2]+strconv.Itoa(10+i), "GET", "/api/v1/projects/test", "", nil), http.StatusUnauthorized, "invalid-token")
	}
	a := f.apiCall(t, token, "GET", "/api/v1/projects/test", "", nil)
	wantAPIError(t, "the good token after 20 guesses", a, http.StatusTooManyRequests, "too-many-bad-tokens")
	if a.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}
