package handlers_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The settings form refuses a value past its key's range with 400
// invalid-config, the range beside the field, and saves nothing of the
// form.
func TestAdminConfigOutOfRange(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "reclaim_ttl": {"5000000000000"}, "claims_limit": {"10"}})
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
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
