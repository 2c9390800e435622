package handlers_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// The public item lookups (the leaderboard's box and items/NAME.json) keep
// who holds or did an item, the nicks of its claims that ran out, its
// parameters and its result from strangers, unless the project sets
// public_items; an admin who runs the project sees them anyway, there and
// in the admin panel. A holder's nick is what completes or releases its
// claim.
func TestItemLookupShowsHoldersOnlyToAdmins(t *testing.T) {
	t.Parallel()
	f := setup(t, "gone", `held`+"\t"+`{"token":"p-secret"}`, "finished")
	f.set(t, "reclaim_ttl=60")
	f.request(t, "bob", 1) // gone, which runs out
	f.expireClaims(t)
	if a := f.do(t, "POST", "/test/multi=3//request", `{"downloader":"alice"}`); a.status != 200 || !strings.Contains(a.body, `gone\u0000held\u0000finished`) {
		t.Fatalf("alice's request: %d %s", a.status, a.body)
	}
	if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"finished","bytes":{"data":1},"result":{"finished":{"verdict":"r-secret"}}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	root := f.admin(t)
	f.user(t, "helper", users.RoleProjectAdmin) // granted no project
	helper := f.signedIn(t, "helper")

	secrets := []string{"alice", "bob", "p-secret", "r-secret"}
	// seen is what a viewer's lookups of the three items show of secrets.
	seen := func(get func(path string) answer) map[string]bool {
		t.Helper()
		got := map[string]bool{}
		for _, name := range []string{"gone", "held", "finished"} {
			a := get("/test/items/" + name + ".json")
			var v map[string]any
			if a.status != 200 || json.Unmarshal([]byte(a.body), &v) != nil {
				t.Fatalf("%s.json: %d %s", name, a.status, a.body)
			}
			if name == "gone" && v["expired_claims"] == nil {
				t.Fatalf("gone.json shows no expired claims: %s", a.body)
			}
			page := get("/test/?item=" + name)
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
			if err != nil || page.status != 200 {
				t.Fatalf("lookup page of %s: %d %v", name, page.status, err)
			}
			box := doc.Find(`[data-testid="lookup-result"]`).Text()
			if !strings.Contains(box, "claimed") && !strings.Contains(box, "done") {
				t.Fatalf("lookup box of %s: %q", name, box)
			}
			for _, s := range secrets {
				if strings.Contains(a.body, s) || strings.Contains(box, s) {
					got[s] = true
				}
			}
		}
		return got
	}
	stranger := func(path string) answer { return f.do(t, "GET", path, "") }
	none := map[string]bool{}
	all := map[string]bool{"alice": true, "bob": true, "p-secret": true, "r-secret": true}
	check := func(who string, got, want map[string]bool) {
		t.Helper()
		for _, s := range secrets {
			if got[s] != want[s] {
				t.Errorf("%s: shown %q %v, want %v", who, s, got[s], want[s])
			}
		}
	}

	check("a stranger", seen(stranger), none)
	check("an admin of other projects", seen(func(p string) answer { return helper.get(t, p) }), none)
	check("the project's admin", seen(func(p string) answer { return root.get(t, p) }), all)
	if a := root.get(t, "/test/items/held.json"); !strings.Contains(a.header.Get("Cache-Control"), "no-store") {
		t.Errorf("an admin's lookup may be cached: %q", a.header.Get("Cache-Control"))
	}
	if a := f.do(t, "GET", "/test/items/held.json", ""); !slices.Contains(a.header.Values("Vary"), "Cookie") {
		t.Errorf("a lookup that depends on the viewer does not vary by cookie: %q", a.header.Values("Vary"))
	}
	a := root.get(t, "/admin/projects/test/?item=gone")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	if item := doc.Find(`[data-testid="admin-item"]`).Text(); !strings.Contains(item, "alice") || !strings.Contains(item, "bob") {
		t.Errorf("the admin panel's item page: %q", item)
	}

	// The project's admin publishes them in the warriors section's form.
	if page := root.get(t, "/admin/projects/test/warriors"); !strings.Contains(page.body, `name="public_items"`) {
		t.Fatal("the warriors section has no public_items field")
	}
	if a := root.post(t, "/admin/projects/test/config", url.Values{"section": {"warriors"}, "public_items": {"true"}}); a.status != 303 || root.flash(t, a) != "Saved public_items." {
		t.Fatalf("public_items from the admin panel: %d %s", a.status, a.body)
	}
	check("a stranger with public_items", seen(stranger), all)
}
