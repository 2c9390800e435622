package books

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// TestPolitenessCountsHandOutsOnly: a completion made without a hand-out
// (an admin's by hand, or the last holder's of an item back in its queue)
// is no hand-out of its site, though it has a claim time; the hand-outs
// themselves still count.
func TestPolitenessCountsHandOutsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := &world{pool: dbtest.New(t), projects: map[string]*projects.Project{}}
	w.store = projects.NewStore(w.pool)
	w.engine = items.NewEngine(w.pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	p := dbtest.Project(t, w.pool, "polite", "")
	w.projects["polite"] = &p
	// Sites due at once while the items move; their politeness is then
	// read under an interval of an hour.
	w.set(t, "polite", "site_key=host")

	// a.example: alice is handed a/1, an admin completes a/2 by hand.
	w.add(t, "polite", "https://a.example/1", "https://a.example/2")
	if got := w.request(t, "polite", "alice", 1); len(got) != 1 || got[0] != "https://a.example/1" {
		t.Fatalf("alice got %v", got)
	}
	if err := w.engine.MarkDone(ctx, w.live(t, "polite"), "https://a.example/2", "root"); err != nil {
		t.Fatal(err)
	}
	// b.example: bob is handed b/1, gives it back and reports it done from
	// its queue; carol is handed b/2.
	w.add(t, "polite", "https://b.example/1", "https://b.example/2")
	if got := w.request(t, "polite", "bob", 1); len(got) != 1 || got[0] != "https://b.example/1" {
		t.Fatalf("bob got %v", got)
	}
	if _, err := w.engine.Release(ctx, p, []string{"https://b.example/1"}, "bob"); err != nil {
		t.Fatal(err)
	}
	w.complete(t, "polite", items.Completion{Downloader: "bob", Items: []string{"https://b.example/1"}, Bytes: map[string]int64{"data": 1}})
	if got := w.request(t, "polite", "carol", 1); len(got) != 1 || got[0] != "https://b.example/2" {
		t.Fatalf("carol got %v", got)
	}
	w.set(t, "polite", "site_interval=3600", "site_claims_limit=1")
	r, err := PolitenessOf(ctx, w.pool, *w.projects["polite"])
	if err != nil {
		t.Fatal(err)
	}
	if r != (Politeness{}) {
		t.Fatalf("completions without a hand-out counted as hand-outs: %+v", r)
	}

	// A hand-out of a.example within the hour of alice's is counted.
	w.set(t, "polite", "site_interval=0", "site_claims_limit=0")
	w.add(t, "polite", "https://a.example/3")
	if got := w.request(t, "polite", "dave", 1); len(got) != 1 || got[0] != "https://a.example/3" {
		t.Fatalf("dave got %v", got)
	}
	w.set(t, "polite", "site_interval=3600", "site_claims_limit=1")
	if r, err = PolitenessOf(ctx, w.pool, *w.projects["polite"]); err != nil || r != (Politeness{UnderInterval: 1, OverLimit: 1}) {
		t.Fatalf("politeness %+v (%v), want one hand-out under the interval and one site over its limit", r, err)
	}
}
