package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// A project's overview says how it runs: its rates with their units, the
// warriors at work, the chart of the day's items and the claims that ran
// out in each of its 24 hours; its live refresh reads them again.
func TestAdminOverviewMonitor(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2", "a:3")
	c := f.admin(t)
	if _, err := f.store.Set(t.Context(), f.project, []string{"reclaim_ttl=60"}); err != nil {
		t.Fatal(err)
	}
	out, _ := f.request(t, "alice", 2)
	f.done(t, "alice", out[0])
	f.expireClaims(t) // out[1] runs out, a day late
	if _, err := f.pool.Exec(t.Context(), "UPDATE claim_expiries SET expired_at = now() - interval '1 minute'"); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"/admin/projects/test/", "/admin/projects/test/?live=1"} {
		a := c.get(t, path)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		if err != nil || a.status != 200 {
			t.Fatalf("%s: %d %v", path, a.status, err)
		}
		m := doc.Find(`[data-live-region="monitor"]`)
		text := func(id string) string {
			return strings.Join(strings.Fields(m.Find(`[data-testid="`+id+`"]`).Text()), " ")
		}
		if got := text("items-per-sec"); !strings.HasSuffix(got, "/s") {
			t.Errorf("%s: items a second %q", path, got)
		}
		if got := text("active-warriors"); got != "1" {
			t.Errorf("%s: active warriors %q, want 1 (alice)", path, got)
		}
		if got := text("expired-claims"); got != "1" {
			t.Errorf("%s: claims that ran out %q, want 1", path, got)
		}
		if m.Find(`figure[data-testid="chart-items"]`).Length() != 1 {
			t.Errorf("%s: no chart of the items done", path)
		}
		hours := m.Find(`[data-testid="failure-hour"]`)
		if hours.Length() != 24 || !strings.HasSuffix(strings.Join(strings.Fields(hours.Last().Text()), " "), " 1") {
			t.Errorf("%s: %d hours of failures, the last %q", path, hours.Length(), hours.Last().Text())
		}
	}
}
