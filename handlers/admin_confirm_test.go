package handlers_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// unconfirmed posts an action's form without its confirmation and checks
// the answer: 400 `unconfirmed`, the confirmation page saying each of want,
// its button red.
func (c *adminClient) unconfirmed(t *testing.T, path string, form url.Values, want ...string) {
	t.Helper()
	a := c.post(t, path, form)
	if a.status != 400 || a.reason != "unconfirmed" {
		t.Fatalf("%s unconfirmed: %d %q, want 400 unconfirmed", path, a.status, a.reason)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	q := doc.Find(`[data-testid="confirm-question"]`).Text()
	for _, w := range want {
		if !strings.Contains(q, w) {
			t.Errorf("%s: the confirmation says %q, not %q", path, q, w)
		}
	}
	if !doc.Find(`[data-testid="confirm"]`).HasClass("danger") {
		t.Errorf("%s: the confirmation's button is not red", path)
	}
}

// Every action that cannot be undone asks first, saying what it touches by
// name and count: sent without its confirmation it is answered 400
// `unconfirmed` with the confirmation page and changes nothing; confirmed,
// it is done. A harmless bulk action is asked about too, without red.
func TestDestructiveActionsAskFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "user:1", "user:2", "user:lost", "user:more")
	f.user(t, "root", users.RoleAdmin)
	f.user(t, "helper", users.RoleProjectAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	const p = "/admin/projects/test/"

	// A new backfeed key breaks every running grab script's backfeed: the
	// slug must be typed.
	oldKey := f.project.Config.BackfeedKey
	c.unconfirmed(t, p+"backfeed-key", nil, "replaces the backfeed key of test", "Every running grab script", "stops working")
	c.unconfirmed(t, p+"backfeed-key", url.Values{"confirmed": {"1"}, "confirm": {"tset"}}, "replaces the backfeed key of test")
	if got, _ := f.store.Get(ctx, "test"); got.Config.BackfeedKey != oldKey {
		t.Fatal("the backfeed key changed unconfirmed")
	}
	if a := c.confirmed(t, p+"backfeed-key", url.Values{"confirm": {"test"}}, "replaces the backfeed key of test"); a.status != 303 {
		t.Fatalf("confirmed new key: %d", a.status)
	}
	if got, _ := f.store.Get(ctx, "test"); got.Config.BackfeedKey == oldKey {
		t.Fatal("the backfeed key did not change once confirmed")
	}

	// Marking an item done by hand.
	c.unconfirmed(t, p+"item/done", url.Values{"name": {"user:1"}}, "marks the item user:1", "queued in todo")
	if s := f.summary(t); s.Done != 0 {
		t.Fatalf("an item marked done unconfirmed: %d done", s.Done)
	}
	if a := c.confirmed(t, p+"item/done", url.Values{"name": {"user:1"}}, "user:1"); a.status != 303 {
		t.Fatalf("confirmed mark done: %d", a.status)
	}
	if s := f.summary(t); s.Done != 1 {
		t.Fatalf("after mark done: %d done", s.Done)
	}
	// An item that cannot be marked done is refused before being asked about.
	if a := c.post(t, p+"item/done", url.Values{"name": {"user:1"}}); a.status != 400 || a.reason == "unconfirmed" {
		t.Fatalf("mark done of a done item: %d %q", a.status, a.reason)
	}

	// Dropping a failed item.
	if _, err := f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", "max_claims=1"}); err != nil {
		t.Fatal(err)
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`); a.status != 200 || !strings.Contains(a.body, `"user:2"`) {
		t.Fatalf("request: %d %s", a.status, a.body)
	}
	f.expireClaims(t)
	if a := c.post(t, p+"item/drop", url.Values{"name": {"user:lost"}}); a.status != 400 || a.reason == "unconfirmed" {
		t.Fatalf("drop of a queued item: %d %q", a.status, a.reason)
	}
	c.unconfirmed(t, p+"item/drop", url.Values{"name": {"user:2"}}, "drops the failed item user:2", "handed out 1 times")
	if s := f.summary(t); s.Errors() != 1 {
		t.Fatalf("a failed item dropped unconfirmed: %d failed", s.Errors())
	}
	if a := c.confirmed(t, p+"item/drop", url.Values{"name": {"user:2"}}, "user:2"); a.status != 303 {
		t.Fatalf("confirmed drop: %d", a.status)
	}
	if s := f.summary(t); s.Errors() != 0 {
		t.Fatalf("after the drop: %d failed", s.Errors())
	}

	// Removing an upload target says what is left.
	if a := c.post(t, p+"targets/add", url.Values{"url": {"rsync://up.example/data/:downloader/"}, "weight": {"2"}, "enabled": {"true"}}); a.status != 303 {
		t.Fatalf("target: %d", a.status)
	}
	c.unconfirmed(t, p+"targets/remove", url.Values{"url": {"rsync://up.example/data/:downloader/"}},
		"removes the upload target rsync://up.example/data/:downloader/ (weight 2) from test", "No other target is on")
	if ts, _ := f.store.Targets(ctx, f.project); len(ts) != 1 {
		t.Fatalf("a target removed unconfirmed: %+v", ts)
	}
	if a := c.confirmed(t, p+"targets/remove", url.Values{"url": {"rsync://up.example/data/:downloader/"}}, "removes"); a.status != 303 {
		t.Fatalf("confirmed target removal: %d", a.status)
	}
	if ts, _ := f.store.Targets(ctx, f.project); len(ts) != 0 {
		t.Fatalf("after the removal: %+v", ts)
	}
	if a := c.post(t, p+"targets/remove", url.Values{"url": {"rsync://up.example/data/:downloader/"}}); a.status != 400 ||
		!strings.Contains(a.body, "nothing to remove") {
		t.Fatalf("removing a target that is not there: %d", a.status)
	}

	// Lifting a block says whose block it is.
	if a := c.post(t, p+"blocks/add", url.Values{"kind": {"nick"}, "value": {"spammer"}, "reason": {"bad data"}}); a.status != 303 {
		t.Fatalf("block: %d", a.status)
	}
	c.unconfirmed(t, p+"blocks/remove", url.Values{"kind": {"nick"}, "value": {"spammer"}},
		"lifts the block of the nick spammer on this project", "set by root", `"bad data"`)
	if a := f.do(t, "POST", "/test/request", `{"downloader":"spammer"}`); a.status != 403 {
		t.Fatalf("a block lifted unconfirmed: %d", a.status)
	}
	if a := c.confirmed(t, p+"blocks/remove", url.Values{"kind": {"nick"}, "value": {"spammer"}}, "spammer"); a.status != 303 {
		t.Fatalf("confirmed lift: %d", a.status)
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"spammer"}`); a.status == 403 {
		t.Fatal("the block stays once lifted")
	}

	// A change of role says what the account gains or loses.
	var helperID int32
	if err := f.pool.QueryRow(ctx, "SELECT id FROM users WHERE username = 'helper'").Scan(&helperID); err != nil {
		t.Fatal(err)
	}
	role := func() string {
		var r string
		if err := f.pool.QueryRow(ctx, "SELECT role FROM users WHERE id = $1", helperID).Scan(&r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	rolePath := "/admin/users/" + strconv.Itoa(int(helperID)) + "/role"
	c.unconfirmed(t, rolePath, url.Values{"role": {"admin"}}, "makes helper a global admin", "run every project")
	if r := role(); r != users.RoleProjectAdmin {
		t.Fatalf("role changed unconfirmed: %s", r)
	}
	if a := c.confirmed(t, rolePath, url.Values{"role": {"admin"}}, "global admin"); a.status != 303 {
		t.Fatalf("confirmed role: %d", a.status)
	}
	if r := role(); r != users.RoleAdmin {
		t.Fatalf("after the change: %s", r)
	}
	if a := c.post(t, rolePath, url.Values{"role": {"admin"}}); a.status != 303 || !strings.Contains(c.flash(t, a), "already") {
		t.Fatalf("the same role again: %d", a.status)
	}
	c.unconfirmed(t, rolePath, url.Values{"role": {"project_admin"}}, "makes helper a project admin", "no project until one is granted")
	if a := c.post(t, rolePath, url.Values{"role": {"nobody"}, "confirmed": {"1"}}); a.status != 400 {
		t.Fatalf("unknown role: %d", a.status)
	}

	// A move is asked about, but is no danger.
	a := c.post(t, p+"queues/move", url.Values{"from": {"todo"}, "to": {"secondary"}})
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if a.status != 200 || doc.Find(`[data-testid="confirm"]`).Length() != 1 || doc.Find(`[data-testid="confirm"]`).HasClass("danger") {
		t.Fatalf("move confirmation: %d, red %v: %s", a.status, doc.Find(`[data-testid="confirm"]`).HasClass("danger"), doc.Find("main").Text())
	}

	// Each confirmed change has its audit entry; the unconfirmed posts none.
	for action, want := range map[string]int{"project.backfeed_key": 1, "item.done": 1, "queue.drain": 1,
		"target.remove": 1, "block.remove": 1, "user.role": 1} {
		var n int
		if err := f.pool.QueryRow(ctx, "SELECT count(*) FROM audit_log WHERE action = $1", action).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%d audit entries %s, want %d", n, action, want)
		}
	}
}

// A change that cannot be undone asks the same whatever form makes it: the
// settings forms' backfeed_key, finished, hidden, mode and
// archive_mode=discard, and the queue browser's drop, are answered 400
// `unconfirmed` with the confirmation (red, the slug or the queue's name
// to type) and change nothing until it is confirmed; a harmless save is
// not asked about.
func TestSettingsAskAsTheirActions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "a:1", "a:2")
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	const config = "/admin/projects/test/config"
	value := func(key string) string {
		t.Helper()
		p, err := f.store.Get(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		return p.Value(key)
	}

	for _, tc := range []struct {
		section, key, value, says string
	}{
		{"queues", "backfeed_key", "a_new_key_of_test", "replaces the backfeed key of test"},
		{"warriors", "finished", "true", "marks test finished"},
		{"warriors", "hidden", "true", "hides test"},
		{"queues", "mode", "recurring", "changes the mode of test from once to recurring"},
		{"archive", "archive_mode", "discard", "makes test discard the completions it archives"},
	} {
		old := value(tc.key)
		form := url.Values{"section": {tc.section}, tc.key: {tc.value}}
		c.unconfirmed(t, config, form, tc.says)
		form.Set("confirmed", "1")
		form.Set("confirm", "tset")
		c.unconfirmed(t, config, form, tc.says)
		if got := value(tc.key); got != old {
			t.Fatalf("%s changed unconfirmed: %s", tc.key, got)
		}
		form.Del("confirmed")
		form.Set("confirm", "test")
		if a := c.confirmed(t, config, form, tc.says); a.status != 303 || !strings.Contains(c.flash(t, a), "Saved "+tc.key) {
			t.Fatalf("%s confirmed: %d %s", tc.key, a.status, a.reason)
		}
		if got := value(tc.key); got != tc.value {
			t.Fatalf("%s confirmed: %s, want %s", tc.key, got, tc.value)
		}
	}
	// Harmless: the archive back to files, a title.
	if a := c.post(t, config, url.Values{"section": {"archive"}, "archive_mode": {"files"}}); a.status != 303 {
		t.Fatalf("archive_mode=files: %d %s", a.status, a.reason)
	}
	// A value refused is refused before anything is asked.
	if a := c.post(t, config, url.Values{"section": {"queues"}, "backfeed_key": {"short"}}); a.status != 400 || a.reason != "invalid-config" {
		t.Fatalf("a bad backfeed_key: %d %s", a.status, a.reason)
	}

	// The browser's drop asks as the drain does: red, the queue's name typed.
	const drop = "/admin/projects/test/browse/drop"
	c.unconfirmed(t, drop, url.Values{"source": {"todo"}, "name": {"a:1"}}, "drops 1 items ticked from todo")
	c.unconfirmed(t, drop, url.Values{"source": {"todo"}, "name": {"a:1"}, "confirmed": {"1"}}, "drops 1 items ticked from todo")
	if s := f.summary(t); s.Queues["todo"] != 2 {
		t.Fatalf("dropped unconfirmed: %v", s.Queues)
	}
	if a := c.confirmed(t, drop, url.Values{"source": {"todo"}, "name": {"a:1"}, "confirm": {"todo"}}, "drops 1 items"); a.status != 303 {
		t.Fatalf("confirmed drop: %d", a.status)
	}
	if s := f.summary(t); s.Queues["todo"] != 1 {
		t.Fatalf("after the drop: %v", s.Queues)
	}
}
