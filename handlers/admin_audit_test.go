package handlers_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// An admin action and its audit entry commit together: when the entry
// cannot be written the action does not happen, and an action done in
// batches has an entry that counts exactly the batches committed.
func TestAuditCommitsWithTheChange(t *testing.T) {
	t.Parallel()
	names := make([]string, 12_000)
	for i := range names {
		names[i] = fmt.Sprintf("post:%d", i)
	}
	f := setup(t, names...)
	ctx := t.Context()
	c := f.admin(t)

	// The log refuses configuration entries, and any count past one batch
	// of a queue move (5,000 items).
	// One statement at a time: Citus sends a function's creation on to
	// every node as a statement of its own.
	for _, sql := range []string{`CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the audit log refuses this entry'; END $$`,
		`CREATE TRIGGER refuse_config BEFORE INSERT ON audit_log FOR EACH ROW
		WHEN (NEW.action = 'project.config') EXECUTE FUNCTION refuse_entry()`,
		`CREATE TRIGGER refuse_second_batch BEFORE UPDATE ON audit_log FOR EACH ROW
		WHEN ((NEW.detail ->> 'items')::bigint > 5000) EXECUTE FUNCTION refuse_entry()`} {
		if _, err := f.pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}

	a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "reclaim_ttl": {"600"}})
	if a.status != 500 {
		t.Fatalf("config with its entry refused: %d", a.status)
	}
	if p := f.stored(t, "test"); p.Config.ReclaimTTL == 600 {
		t.Fatal("the configuration changed without its audit entry")
	}

	a = c.confirmed(t, "/admin/projects/test/queues/move", url.Values{"from": {"todo"}, "to": {"redo"}}, "moves 12,000 items")
	if a.status != 500 {
		t.Fatalf("move with its second batch's count refused: %d", a.status)
	}
	var moved, counted int64
	if err := f.pool.QueryRow(ctx, "SELECT count(*) FROM todo WHERE queue = 'redo'").Scan(&moved); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.QueryRow(ctx, `SELECT (detail ->> 'items')::bigint FROM audit_log
		WHERE action = 'queue.move' AND username = 'root' AND detail ->> 'to' = 'redo'`).Scan(&counted); err != nil {
		t.Fatal(err)
	}
	if moved != 5000 || counted != moved {
		t.Fatalf("%d items moved, the audit log says %d", moved, counted)
	}
}

// The audit log reads as people say what changed ("rate_limit: 0 items a
// minute → 600 items a minute", a duration in seconds and in hours), not as
// JSON, and is filtered by day: from and to are days in UTC,
// both whole days included; a day that is none is refused with the form
// to correct.
func TestAuditLogReadableAndByDay(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := t.Context()
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")

	if a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"limits"}, "rate_limit": {"600"}}); a.status != 303 {
		t.Fatalf("config: %d %s", a.status, a.body)
	}
	if a := c.post(t, "/admin/projects/test/queues/move", url.Values{"from": {"todo"}, "to": {"redo"}, "confirmed": {"1"}}); a.status != 303 {
		t.Fatalf("move: %d", a.status)
	}
	// A duration says its unit.
	if a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "reclaim_ttl": {"7200"}}); a.status != 303 {
		t.Fatalf("config: %d %s", a.status, a.body)
	}
	// The tracker's settings say what changed too, not all they are.
	if a := c.post(t, "/admin/settings", url.Values{"seesaw_version": {"0.9.1"}}); a.status != 303 {
		t.Fatalf("settings: %d", a.status)
	}
	a := c.get(t, "/admin/audit")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil || a.status != 200 {
		t.Fatalf("audit: %d", a.status)
	}
	details := doc.Find(`[data-testid="audit-detail"]`)
	var lines []string
	details.Find("li").Each(func(_ int, s *goquery.Selection) { lines = append(lines, strings.Join(strings.Fields(s.Text()), " ")) })
	for _, want := range []string{"reclaim_ttl: 0 s → 7,200 s (2 h)", "rate_limit: 0 items a minute → 600 items a minute", "from: todo", "to: redo", "items: 0", "seesaw_version: 0.8.5 → 0.9.1"} {
		if !slices.Contains(lines, want) {
			t.Errorf("audit lines %q lack %q", lines, want)
		}
	}
	if strings.Contains(details.Text(), "{") || strings.Contains(details.Text(), `"`) {
		t.Errorf("the audit log shows JSON: %q", details.Text())
	}
	if strings.Contains(details.Text(), "prefix") || strings.Contains(details.Text(), "tracker_banner_html") {
		t.Errorf("the audit log shows what did not change: %q", details.Text())
	}

	// Entries of other days.
	if _, err := f.pool.Exec(ctx, `INSERT INTO audit_log (username, action, at) VALUES
		('root', 'test.january', '2024-01-10T12:00:00Z'),
		('root', 'test.february', '2024-02-15T23:59:00Z'),
		('root', 'test.march', '2024-03-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	actions := func(query string) []string {
		t.Helper()
		a := c.get(t, "/admin/audit?"+query)
		if a.status != 200 {
			t.Fatalf("%s: %d %s", query, a.status, a.reason)
		}
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		var out []string
		doc.Find(`[data-testid="audit-entry"] td:nth-child(5)`).Each(func(_ int, s *goquery.Selection) {
			if strings.HasPrefix(s.Text(), "test.") {
				out = append(out, s.Text())
			}
		})
		return out
	}
	for query, want := range map[string]string{
		"from=2024-02-01&to=2024-02-15": "test.february",
		"to=2024-01-10":                 "test.january",
		"from=2024-02-16":               "test.march",
		"from=2024-01-10&to=2024-03-01": "test.march,test.february,test.january",
		"from=2024-03-02&to=2024-12-31": "",
	} {
		if got := strings.Join(actions(query), ","); got != want {
			t.Errorf("%s: %q, want %q", query, got, want)
		}
	}
	// The filter stays in the form.
	a = c.get(t, "/admin/audit?from=2024-02-01&to=2024-02-15")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if from, to := doc.Find("#audit-from").AttrOr("value", ""), doc.Find("#audit-to").AttrOr("value", ""); from != "2024-02-01" || to != "2024-02-15" {
		t.Errorf("the form shows %q to %q", from, to)
	}
	for _, query := range []string{"from=2024-13-01", "to=yesterday", "from=2024-03-01&to=2024-02-01"} {
		a := c.get(t, "/admin/audit?"+query)
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		if a.status != 400 || a.reason != "invalid-date" || doc.Find(`[data-testid="form-error"]`).Length() != 1 ||
			doc.Find(`[data-testid="audit-entry"]`).Length() != 0 || doc.Find("#audit-from").Length() != 1 {
			t.Errorf("%s: %d %q", query, a.status, a.reason)
		}
	}
}
