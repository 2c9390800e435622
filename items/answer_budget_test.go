package items_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// bigParams are parameters near the most an item may have: 64 of them, as
// sent, fit in items.MaxAnswerParamsBytes and 65 do not. "<", ">" and "&"
// go out escaped, six bytes each.
var bigParams = `{"html":"<b>&","pad":"` + strings.Repeat("x", items.MaxDocumentBytes-100) + `"}`

// budgetRequest asks for n items and returns the names handed out and the
// bytes of their parameters as an answer sends them; it fails the test
// unless every item came with its parameters, within the bound.
func (f fixture) budgetRequest(t *testing.T, nick string, n int) ([]string, int) {
	t.Helper()
	live, err := projects.NewCache(f.store, 0).Get(context.Background(), f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.engine.Request(context.Background(), live, items.ClaimRequest{Downloader: nick, Max: n})
	if err != nil {
		t.Fatalf("%s: %v", nick, err)
	}
	carried := 0
	for _, name := range got.Names {
		p, ok := got.Params[name]
		if !ok {
			t.Fatalf("%s got %s without its parameters", nick, name)
		}
		sent, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		carried += len(sent)
	}
	if carried > items.MaxAnswerParamsBytes {
		t.Fatalf("%s got %d items carrying %d bytes of parameters, more than %d", nick, len(got.Names), carried, items.MaxAnswerParamsBytes)
	}
	return got.Names, carried
}

// heldBy counts the claims of each downloader.
func (f fixture) heldBy(t *testing.T) map[string]int {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT downloader, count(*) FROM claims WHERE project_id = $1 GROUP BY downloader`, f.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	held := map[string]int{}
	for rows.Next() {
		var nick string
		var n int
		if err := rows.Scan(&nick, &n); err != nil {
			t.Fatal(err)
		}
		held[nick] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return held
}

// Expired claims handed out again are held to the bound too: the ones
// after the last that fits stay with their holder, expired, for the next
// request.
func TestAnswerBudgetReclaims(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "reclaim_ttl=60")
	const n = 100
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("p:%03d\t%s", i, bigParams)
	}
	f.add(t, "todo", lines...)
	for out := 0; out < n; {
		names, _ := f.budgetRequest(t, "alice", 1000)
		if len(names) != min(64, n-out) {
			t.Fatalf("alice got %d items with %d out, want %d", len(names), out, min(64, n-out))
		}
		out += len(names)
	}
	dbtest.Age(t, f.pool, time.Hour, dbtest.Claims(f.project.ID))
	// Parameters queued before their bytes were kept are measured on their
	// text.
	if _, err := f.pool.Exec(context.Background(), `UPDATE item_params SET bytes = NULL WHERE project_id = $1 AND id % 2 = 0`, f.project.ID); err != nil {
		t.Fatal(err)
	}

	if names, _ := f.budgetRequest(t, "bob", 1000); len(names) != 64 {
		t.Fatalf("bob got %d expired claims, want 64", len(names))
	}
	if held := f.heldBy(t); held["bob"] != 64 || held["alice"] != n-64 {
		t.Fatalf("claims held: %v", held)
	}
	if names, _ := f.budgetRequest(t, "carol", 1000); len(names) != n-64 {
		t.Fatalf("carol got %d expired claims, want %d", len(names), n-64)
	}
	if held := f.heldBy(t); held["bob"] != 64 || held["carol"] != n-64 || held["alice"] != 0 {
		t.Fatalf("claims held: %v", held)
	}
	f.balanced(t)
}

// Items handed out by site are held to the bound too: a site whose items
// were all left queued for it gave nothing, is not paced, and goes to the
// next request.
func TestAnswerBudgetSites(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "site_key=host", "site_interval=3600")
	var lines []string
	for _, site := range []string{"a.example", "b.example", "c.example"} {
		for i := range 32 {
			lines = append(lines, fmt.Sprintf("https://%s/%d\t%s", site, i, bigParams))
		}
	}
	f.add(t, "todo", lines...)

	// Two sites' items fill the answer; the third site's stay queued.
	if names, _ := f.budgetRequest(t, "alice", 1000); len(names) != 64 {
		t.Fatalf("alice got %d items, want 64", len(names))
	}
	var left string
	for _, site := range []string{"a.example", "b.example", "c.example"} {
		switch s := f.site(t, site); {
		case s.Queued == 0 && s.Out == 32:
		case s.Queued == 32 && s.Out == 0 && left == "":
			left = site
		default:
			t.Fatalf("%s after alice's request: %+v", site, s)
		}
	}
	if s := f.summary(t); s.Claims != 64 || s.Queued() != 32 {
		t.Fatalf("%d claims and %d queued, want 64 and 32", s.Claims, s.Queued())
	}
	// Not paced: due now, although the others wait an hour.
	names, _ := f.budgetRequest(t, "bob", 1000)
	if len(names) != 32 || siteOf(names[0]) != left {
		t.Fatalf("bob got %d items of %s, want the 32 of %s", len(names), siteOf(names[0]), left)
	}
	f.balanced(t)
	f.polite(t)
}
