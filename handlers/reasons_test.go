package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/users"
)

// Every refusal the routes write says why in X-Tracker-Reason: the
// sign-in's, the admin panel's refused forms, the last global admin kept,
// the websocket library's refused handshakes, and the file server's own
// answers, which get the reason of their status.
func TestRefusalsSayWhy(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	c := f.signedIn(t, "root")
	const p = "/admin/projects/test/"
	sid, _, _ := strings.Cut(f.do(t, "GET", "/socket.io/1/", "").body, ":")
	websocket := func(header http.Header) func() answer {
		return func() answer {
			req, _ := http.NewRequest("GET", f.srv.URL+"/socket.io/1/websocket/"+sid, nil)
			req.Header = header
			return c.send(t, req)
		}
	}
	get := func(path string, header http.Header) func() answer {
		return func() answer {
			req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
			req.Header = header
			return c.send(t, req)
		}
	}
	post := func(path string, form url.Values) func() answer {
		return func() answer { return c.post(t, path, form) }
	}
	stranger := f.adminClient(t)
	for _, tc := range []struct {
		name   string
		send   func() answer
		status int
		reason string
	}{
		{"wrong password", func() answer { return stranger.login(t, "root", "wrong wrong wrong") }, 401, "bad-login"},
		{"target weight", post(p+"targets/add", url.Values{"url": {"rsync://up.example/x/"}, "weight": {"heavy"}}), 400, "invalid-weight"},
		{"target url", post(p+"targets/add", url.Values{"url": {"ftp://up.example/"}}), 400, "invalid-target"},
		{"target unknown", post(p+"targets/remove", url.Values{"url": {"rsync://nowhere.example/x/"}}), 400, "unknown-target"},
		{"block kind", post(p+"blocks/add", url.Values{"kind": {"planet"}, "value": {"mars"}}), 400, "invalid-block"},
		{"block unknown", post(p+"blocks/remove", url.Values{"kind": {"nick"}, "value": {"nobody"}}), 400, "unknown-block"},
		{"setting", post("/admin/settings", url.Values{"seesaw_version": {"not a version\n"}}), 400, "invalid-setting"},
		{"user name", post("/admin/users", url.Values{"username": {"a b"}, "password": {"correct horse battery"}, "role": {users.RoleAdmin}}), 400, "invalid-user"},
		{"user exists", post("/admin/users", url.Values{"username": {"root"}, "password": {"correct horse battery"}, "role": {users.RoleAdmin}}), 400, "user-exists"},
		{"user grant", post("/admin/users/1/grant", url.Values{"project": {"nope"}}), 400, "unknown-project"},
		{"user delete", post("/admin/users/1/delete", url.Values{"confirm": {"someone"}}), 400, "unconfirmed"},
		{"last admin demoted", post("/admin/users/1/role", url.Values{"role": {users.RoleProjectAdmin}, "confirmed": {"1"}}), 409, "last-admin"},
		{"last admin deleted", post("/admin/users/1/delete", url.Values{"confirm": {"root"}}), 409, "last-admin"},
		{"websocket asked for no websocket", websocket(http.Header{}), 426, "websocket-required"},
		{"websocket without a key", websocket(http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"},
			"Sec-Websocket-Version": {"13"}}), 400, "invalid-handshake"},
		{"file range", get("/static/style.css", http.Header{"Range": {"bytes=99999999-"}}), 416, "requested-range-not-satisfiable"},
		{"file precondition", get("/robots.txt", http.Header{"If-Match": {`"x"`}}), 412, "precondition-failed"},
	} {
		a := tc.send()
		if a.status != tc.status || a.reason != tc.reason {
			t.Errorf("%s: %d %q, want %d %q", tc.name, a.status, a.reason, tc.status, tc.reason)
		}
	}
	// A sign-in throttled.
	for range 5 {
		stranger.login(t, "root", "wrong wrong wrong")
	}
	if a := stranger.login(t, "root", "correct horse battery"); a.status != 429 || a.reason != "login-throttled" || a.header.Get("Retry-After") == "" {
		t.Errorf("throttled sign-in: %d %q, Retry-After %q", a.status, a.reason, a.header.Get("Retry-After"))
	}
}

// A session that cannot be read, the database away, is answered as every
// route answers the database away: 503 database-unavailable, not a bare
// 500.
func TestSessionUnavailableSaysWhy(t *testing.T) {
	t.Parallel()
	// Nothing listens there: every statement fails to connect.
	pool, err := pgxpool.New(context.Background(), "postgres://tracker@127.0.0.1:1/none?connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), pool)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest("GET", srv.URL+"/admin/login", nil)
	req.Header.Set("Cookie", "tracker_admin=some-session-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("X-Tracker-Reason") != "database-unavailable" {
		t.Fatalf("%d %q, want 503 database-unavailable", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
}
