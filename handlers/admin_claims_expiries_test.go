package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The downloaders whose claims ran out are listed by the claims they hold
// now, most first (those to look at), each linking to its claims.
func TestAdminClaimsRanOutByClaimsHeld(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2", "a:3", "a:4", "a:5", "a:6")
	c := f.admin(t)
	if _, err := f.store.Set(t.Context(), f.project, []string{"reclaim_ttl=60"}); err != nil {
		t.Fatal(err)
	}
	f.request(t, "bob", 1)
	f.request(t, "carol", 2)
	f.expireClaims(t) // bob's one and carol's two run out
	if _, err := f.pool.Exec(t.Context(), "UPDATE claim_expiries SET expired_at = now() - interval '1 minute'"); err != nil {
		t.Fatal(err)
	}
	f.request(t, "bob", 2) // bob holds two now, carol none

	a := c.get(t, "/admin/projects/test/claims")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil || a.status != 200 {
		t.Fatalf("claims: %d %v", a.status, err)
	}
	var rows []string
	doc.Find(`[data-testid="expiries"] tbody tr`).Each(func(_ int, s *goquery.Selection) {
		var cells []string
		s.Find("td").Each(func(_ int, td *goquery.Selection) { cells = append(cells, strings.TrimSpace(td.Text())) })
		rows = append(rows, strings.Join(cells, " ")+" "+s.Find("a").AttrOr("href", ""))
	})
	want := []string{"bob 2 1 0 /admin/projects/test/claims?downloader=bob", "carol 0 2 0 /admin/projects/test/claims?downloader=carol"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("ran out rows %q, want %q", rows, want)
	}
}
