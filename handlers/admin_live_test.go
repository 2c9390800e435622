package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// A project's overview and claims refresh themselves from their live
// regions alone (live=1): the figures as they are now, no page around
// them, for the project's admins only.
func TestAdminLiveRegions(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2", "item:3")
	root := f.admin(t)
	f.user(t, "stranger", users.RoleProjectAdmin)
	stranger := f.signedIn(t, "stranger")

	doc := page(t, root.get(t, "/admin/projects/test/"))
	if doc.Find(`[data-live-controls]`).Length() != 1 || doc.Find(`[data-live-region="counts"] [data-testid="claims"]`).Text() != "0" {
		t.Fatalf("the overview: no live controls or counts")
	}
	f.request(t, "alice", 1)

	for _, tc := range []struct {
		path    string
		regions []string
		want    map[string]string
	}{
		{"/admin/projects/test/?live=1&item=item:1", []string{"monitor", "counts", "recent"},
			map[string]string{"claims": "1", "queue-todo": "2"}},
		{"/admin/projects/test/claims?live=1", []string{"claims-total", "claim-counts", "expiries", "claims-list"},
			map[string]string{"claim": ""}},
	} {
		a := root.get(t, tc.path)
		if a.status != 200 || strings.Contains(a.body, "<html") || strings.Contains(a.body, "admin-nav") {
			t.Errorf("%s: %d, a whole page: %s", tc.path, a.status, a.body)
			continue
		}
		doc := page(t, a)
		var got []string
		doc.Find(`[data-live-region]`).Each(func(_ int, s *goquery.Selection) { got = append(got, s.AttrOr("data-live-region", "")) })
		if strings.Join(got, ",") != strings.Join(tc.regions, ",") {
			t.Errorf("%s: regions %q, want %q", tc.path, got, tc.regions)
		}
		for id, want := range tc.want {
			if s := doc.Find(`[data-testid="` + id + `"]`); s.Length() == 0 || want != "" && s.Text() != want {
				t.Errorf("%s: %s reads %q, want %q", tc.path, id, s.Text(), want)
			}
		}
		if doc.Find(`[data-testid="admin-item"]`).Length() != 0 {
			t.Errorf("%s: the live regions look items up", tc.path)
		}
		if a := stranger.get(t, tc.path); a.status != 403 {
			t.Errorf("%s: another project's admin got %d", tc.path, a.status)
		}
	}
}
