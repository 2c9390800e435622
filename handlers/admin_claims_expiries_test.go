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
		rows = append(rows, strings.Join(cells, " ")+" "+s.Find("a").AttrOr("href", "")+" "+s.Find(`[data-testid="expiry-item"]`).AttrOr("href", ""))
	})
	// Each row links to the timeline of the item whose claim ran out last:
	// bob's a:1, out with him again; of carol's two that ran out at once,
	// a:3, back in its queue.
	want := []string{
		"bob 2 1 0 a:1 /admin/projects/test/claims?downloader=bob /admin/projects/test/item?name=a%3A1",
		"carol 0 2 0 a:3 /admin/projects/test/claims?downloader=carol /admin/projects/test/item?name=a%3A3",
	}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("ran out rows %q, want %q", rows, want)
	}
	// The link leads to the item's timeline, where the claim that ran out
	// is told.
	a = c.get(t, "/admin/projects/test/item?name=a%3A3")
	doc, err = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil || a.status != 200 {
		t.Fatalf("item: %d %v", a.status, err)
	}
	if got := doc.Find(`[data-testid="timeline"]`).Text(); !strings.Contains(got, "carol") {
		t.Fatalf("the timeline of a:3 does not tell carol's claim that ran out: %q", got)
	}
}

// The item whose claim ran out last is named wherever it is now: done, or
// out again with another downloader when the claims are few enough to be
// read whole.
func TestAdminClaimsRanOutItemFound(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2")
	c := f.admin(t)
	if _, err := f.store.Set(t.Context(), f.project, []string{"reclaim_ttl=60"}); err != nil {
		t.Fatal(err)
	}
	f.request(t, "bob", 1)
	f.request(t, "carol", 1)
	f.expireClaims(t)
	got, _ := f.request(t, "dave", 2) // both out again, with dave
	if len(got) != 2 {
		t.Fatalf("dave got %q", got)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"dave","item":"a:1","bytes":{"data":1}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.reason)
	}
	a := c.get(t, "/admin/projects/test/claims")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil || a.status != 200 {
		t.Fatalf("claims: %d %v", a.status, err)
	}
	links := map[string]string{}
	doc.Find(`[data-testid="expiry"]`).Each(func(_ int, s *goquery.Selection) {
		links[s.AttrOr("data-key", "")] = s.Find(`[data-testid="expiry-item"]`).AttrOr("href", "")
	})
	if links["bob"] != "/admin/projects/test/item?name=a%3A1" || links["carol"] != "/admin/projects/test/item?name=a%3A2" {
		t.Fatalf("ran out items %q", links)
	}
}
