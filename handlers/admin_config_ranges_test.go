package handlers_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The settings form states each count key's range, from the key's table
// entry, and bounds its input with it; it refuses a value past the range
// with 400 invalid-config, the range beside the field, and saves nothing
// of the form.
func TestAdminConfigOutOfRange(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	page := c.get(t, "/admin/projects/test/claims")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Find(`[data-testid="range-reclaim_ttl"]`).Text(), "0 to 316,224,000 seconds (3660 d); 0: never."; got != want {
		t.Errorf("reclaim_ttl's range: %q, want %q", got, want)
	}
	if min, _ := doc.Find(`#cfg-reclaim_ttl`).Attr("min"); min != "0" || doc.Find(`#cfg-reclaim_ttl`).AttrOr("max", "") != "316224000" {
		t.Errorf("reclaim_ttl's input is bounded by %q to %q", min, doc.Find(`#cfg-reclaim_ttl`).AttrOr("max", ""))
	}
	a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "reclaim_ttl": {"5000000000000"}, "claims_limit": {"10"}})
	doc, err = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 400 || a.reason != "invalid-config" ||
		!strings.Contains(doc.Find(`[data-testid="error-reclaim_ttl"]`).Text(), "a whole number from 0 to 316224000") {
		t.Fatalf("reclaim_ttl out of range: %d %q %s", a.status, a.reason, a.body)
	}
	p, err := f.store.Get(context.Background(), "test")
	if err != nil || p.Config.ReclaimTTL != 0 || p.Config.ClaimsLimit != 0 {
		t.Fatalf("a refused form changed the project: %+v %v", p.Config, err)
	}
}
