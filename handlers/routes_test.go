package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"tracker/db/dbtest"
	"tracker/users"
)

// Every admin route, walked from the route table: a stranger is sent to
// the login page (GET) or refused (POST), and a cross-site POST is refused
// even with a signed-in admin's cookie. A route added to the table is
// checked without a new test.
func TestEveryAdminRouteNeedsSignInAndSameOrigin(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	h := New(Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Pool: pool})
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	if _, err := users.NewStore(pool).Create(context.Background(), "root", "correct horse battery", users.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	stranger := &http.Client{CheckRedirect: noRedirect}
	jar, _ := cookiejar.New(nil)
	admin := &http.Client{Jar: jar, CheckRedirect: noRedirect}
	login, _ := http.NewRequest("POST", srv.URL+"/admin/login", strings.NewReader(url.Values{"username": {"root"}, "password": {"correct horse battery"}}.Encode()))
	login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := admin.Do(login); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %v %v", resp, err)
	}

	send := func(c *http.Client, method, path string, header map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader("a=b"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	dbtest.Project(t, pool, "test", "")
	routes := h.adminRoutes()
	if len(routes) < 38 {
		t.Fatalf("only %d admin routes in the table", len(routes))
	}
	for _, rt := range routes {
		method, pattern, _ := strings.Cut(rt.pattern, " ")
		// The table is the panel's site map: one route per page and per
		// action, none hidden behind a wildcard.
		if strings.Count(pattern, "{") > strings.Count(pattern, "{slug}")+strings.Count(pattern, "{id}")+strings.Count(pattern, "{$}") {
			t.Errorf("%s: a wildcard other than the project and the user", rt.pattern)
		}
		path := strings.NewReplacer("{slug}", "nope", "{id}", "1", "{$}", "").Replace(pattern)
		// Every page of a project opens for its admin.
		if method == "GET" && strings.Contains(pattern, "{slug}") {
			real := strings.NewReplacer("{slug}", "test", "{$}", "").Replace(pattern)
			if resp := send(admin, "GET", real, nil); resp.StatusCode != http.StatusOK {
				t.Errorf("%s: the admin got %d", real, resp.StatusCode)
			}
		}
		switch method {
		case "GET":
			if resp := send(stranger, "GET", path, nil); resp.StatusCode != http.StatusSeeOther ||
				!strings.HasPrefix(resp.Header.Get("Location"), "/admin/login?next=") {
				t.Errorf("%s: a stranger got %d %s", rt.pattern, resp.StatusCode, resp.Header.Get("Location"))
			}
		case "POST":
			if resp := send(stranger, "POST", path, map[string]string{"Sec-Fetch-Site": "same-origin"}); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: a stranger got %d", rt.pattern, resp.StatusCode)
			}
			if resp := send(admin, "POST", path, map[string]string{"Sec-Fetch-Site": "cross-site"}); resp.StatusCode != http.StatusForbidden ||
				resp.Header.Get("X-Tracker-Reason") != "cross-origin" {
				t.Errorf("%s: a cross-site request with an admin's cookie got %d %q", rt.pattern, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
			}
		default:
			t.Errorf("%s: admin routes are GET or POST", rt.pattern)
		}
	}
}

// A statement cut off by the database going away is a 503, never a 500.
func TestUnavailable(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("claim: %w", io.ErrUnexpectedEOF),
		fmt.Errorf("read: %w", syscall.ECONNRESET),
		fmt.Errorf("dial: %w", syscall.ECONNREFUSED),
		&pgconn.PgError{Code: "57P01"},
	} {
		if !unavailable(err) {
			t.Errorf("%v: not taken for the database being away", err)
		}
	}
	if unavailable(&pgconn.PgError{Code: "23505"}) || unavailable(errors.New("bug")) {
		t.Error("errors of ours taken for the database being away")
	}
}
