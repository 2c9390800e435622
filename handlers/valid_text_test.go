package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"tracker/users"
)

// NUL and bytes that are not UTF-8 in a path, a query or an admin form are
// refused before they reach the database, which stores neither as text.
func TestInvalidTextRefused(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	key := f.project.Config.BackfeedKey
	for _, c := range []struct{ method, path, reason string }{
		{"GET", "/%00/", "invalid-path"},
		{"GET", "/%ff/", "invalid-path"},
		{"GET", "/%ff/stats.json", "invalid-path"},
		{"GET", "/%00/charts.json", "invalid-path"},
		{"GET", "/%00/events", "invalid-path"},
		{"GET", "/test/downloader/%ff", "invalid-path"},
		{"GET", "/test/downloader/a%00b", "invalid-path"},
		{"GET", "/downloader/%ff/", "invalid-path"},
		{"POST", "/backfeed/legacy/%00-x", "invalid-path"},
		{"POST", "/backfeed/legacy/test%ff-" + key, "invalid-path"},
		{"POST", "/backfeed/legacy/test-" + key + "?shard=%00", "invalid-query"},
		{"GET", "/test/?item=%00", "invalid-query"},
		{"GET", "/test/?item=%ff", "invalid-query"},
		{"GET", "/test/charts.json?downloader=%ff", "invalid-query"},
		{"GET", "/test/?%00=1", "invalid-query"},
		{"GET", "/%ff/items/x.json", "invalid-path"},
		// The item of the item route is checked as item names are.
		{"GET", "/test/items/%ff.json", "invalid-item"},
		{"GET", "/test/items/a%00b.json", "invalid-item"},
		{"GET", "/test/items/item:1.json?shard=%ff", "invalid-query"},
	} {
		a := f.do(t, c.method, c.path, "x")
		if a.status != http.StatusBadRequest || a.reason != c.reason {
			t.Errorf("%s %s: %d %q, want 400 %q", c.method, c.path, a.status, a.reason, c.reason)
		}
	}
	// The backfeed's separators are bytes, NUL by default.
	if a := f.do(t, "POST", "/backfeed/legacy/test-"+key+"?delimiter=%00&itemseparator=%ff", "a\x00b"); a.status != 200 {
		t.Errorf("backfeed with byte separators: %d %q %s", a.status, a.reason, a.body)
	}
	// Item names are any UTF-8 but NUL, CR and LF.
	if a := f.do(t, "GET", "/test/items/item:1.json", ""); a.status != 200 {
		t.Errorf("item: %d %q", a.status, a.reason)
	}

	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	if a := c.login(t, "ro\x00ot", "correct horse battery"); a.status != http.StatusBadRequest || a.reason != "invalid-form" {
		t.Errorf("login with NUL: %d %q", a.status, a.reason)
	}
	if a := c.login(t, "root", "correct horse battery"); a.status != http.StatusSeeOther {
		t.Fatalf("login: %d", a.status)
	}
	for _, path := range []string{
		"/admin/audit?user=%ff",
		"/admin/audit?user=%00",
		"/admin/projects/test/claims?prefix=%00",
		"/admin/projects/test/claims?downloader=%ff",
		"/admin/projects/%00/",
		"/admin/projects/test/?item=%00",
	} {
		a := c.get(t, path)
		if a.status != http.StatusBadRequest || (a.reason != "invalid-query" && a.reason != "invalid-path") {
			t.Errorf("GET %s: %d %q, want 400", path, a.status, a.reason)
		}
	}
	for path, form := range map[string]url.Values{
		"/admin/projects":                       {"slug": {"a\x00"}, "title": {"x"}},
		"/admin/projects/test/claims/release":   {"prefix": {"\x00"}},
		"/admin/projects/test/queues/move":      {"from": {"todo"}, "to": {"redo"}, "prefix": {"\xff"}},
		"/admin/projects/test/item/release":     {"name": {"a\x00"}},
		"/admin/projects/test/blocks/add":       {"kind": {"nick"}, "value": {"x"}, "reason": {"\x00"}},
		"/admin/projects/test/targets/add":      {"url": {"http://x/\xff"}},
		"/admin/projects/test/config":           {"section": {"warriors"}, "description": {"\x00"}},
		"/admin/users":                          {"username": {"\xff"}, "password": {"correct horse battery"}, "role": {"admin"}},
		"/admin/settings":                       {"broadcast_message": {"\x00"}},
		"/admin/projects/test/done/requeue":     {"prefix": {"\x00"}},
		"/admin/projects/test/queues/drain":     {"from": {"todo"}, "prefix": {"\x00"}},
		"/admin/projects/test/targets/remove":   {"url": {"\x00"}},
		"/admin/projects/test/blocks/remove":    {"kind": {"ip"}, "value": {"\xff"}},
		"/admin/projects/test/item/requeue":     {"name": {"\xff"}},
		"/admin/projects/test/delete":           {"confirm": {"\x00"}},
		"/admin/projects/test/item/done":        {"name": {"\x00"}},
		"/admin/projects/test/queues/move?x=%0": {"from": {"\x00"}},
	} {
		a := c.post(t, path, form)
		if a.status != http.StatusBadRequest {
			t.Errorf("POST %s %q: %d %q, want 400", path, form, a.status, a.reason)
		}
	}
}
