package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
	"tracker/users"
)

// TestAdminTokens: an admin makes a token in the panel and sees it once;
// it works on the API as theirs; the panel lists it without its secret,
// and revokes it.
func TestAdminTokens(t *testing.T) {
	t.Parallel()
	f := setup(t)
	dbtest.Project(t, f.pool, "other", "Other")
	c := f.admin(t)

	a := c.post(t, "/admin/account/tokens", url.Values{"name": {"irc bot"}, "scope": {"write"}, "projects": {"test"}})
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	secret := strings.TrimSpace(doc.Find(`[data-testid="new-token"]`).Text())
	if a.status != 200 || !strings.HasPrefix(secret, "trk_") {
		t.Fatalf("making a token: %d %q", a.status, secret)
	}
	if a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the page with the secret may be cached: %q", a.header.Get("Cache-Control"))
	}
	if r := f.apiCall(t, secret, "POST", "/api/v1/projects/test/items", "text/plain", strings.NewReader("x:1\n")); r.status != 200 {
		t.Fatalf("the token on its project: %d %s", r.status, r.body)
	}
	wantAPIError(t, "the token on another project", f.apiCall(t, secret, "GET", "/api/v1/projects/other", "", nil), http.StatusForbidden, "forbidden")

	page := c.get(t, "/admin/account/tokens")
	if page.status != 200 || strings.Contains(page.body, secret) || strings.Contains(page.body, secret[strings.LastIndexByte(secret, '_')+1:]) {
		t.Fatalf("the tokens page again: %d, the secret shown: %v", page.status, strings.Contains(page.body, secret))
	}
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if n := doc.Find(`[data-testid="token-row"]`).Length(); n != 1 || doc.Find(`[data-testid="token-scope"]`).Text() != "write" {
		t.Fatalf("%d tokens listed: %s", n, doc.Find(`[data-testid="admin-tokens"]`).Text())
	}

	// Refused: a project the account does not run, a name too long.
	f.user(t, "pa", users.RoleProjectAdmin)
	grant(t, f, "pa", f.project.ID)
	pa := f.signedIn(t, "pa")
	if r := pa.post(t, "/admin/account/tokens", url.Values{"name": {"b"}, "scope": {"read"}, "projects": {"other"}}); r.status != 400 || r.reason != "invalid-token" {
		t.Errorf("a token of a project not run: %d %q", r.status, r.reason)
	}
	if r := pa.post(t, "/admin/account/tokens", url.Values{"name": {strings.Repeat("x", 101)}, "scope": {"read"}}); r.status != 400 || r.reason != "invalid-token" {
		t.Errorf("a name too long: %d %q", r.status, r.reason)
	}
	// Another account's token is not theirs to revoke.
	id := dbtest.Count(t, f.pool, "SELECT id FROM api_tokens")
	if r := pa.post(t, "/admin/account/tokens/"+strconv.FormatInt(id, 10)+"/revoke", nil); r.status != 404 {
		t.Errorf("revoking another's token: %d %q", r.status, r.reason)
	}

	r := c.post(t, "/admin/account/tokens/"+strconv.FormatInt(id, 10)+"/revoke", nil)
	if msg := c.flash(t, r); !strings.Contains(msg, "revoked") {
		t.Fatalf("revoking: %d %q", r.status, msg)
	}
	wantAPIError(t, "the token revoked", f.apiCall(t, secret, "GET", "/api/v1/projects/test", "", nil), http.StatusUnauthorized, "token-revoked")
}
