package items

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"tracker/db/dbtest"
	"tracker/projects"
)

// A project's purge drops what the engine remembered of it (its queue
// heads, its counts not yet written, its lists), and nothing of the
// projects beside it.
func TestPurgeForgetsTheProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	e := NewEngine(pool, nil)
	var live []*projects.Live
	for _, slug := range []string{"gone", "kept"} {
		p := dbtest.Project(t, pool, slug, slug, "expired_claims_limit=5")
		if _, err := e.Add(ctx, p, "todo", strings.NewReader("a\nb\nc\n")); err != nil {
			t.Fatal(err)
		}
		l, err := projects.NewCache(store, 0).Get(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, l)
	}
	// Two rounds: the first request flushes the counts there were (none),
	// and those of the requests after it wait for the next flush.
	for range 2 {
		for _, l := range live {
			if _, err := e.Request(ctx, l, ClaimRequest{Downloader: "alice", Version: "1", IP: netip.MustParseAddr("192.0.2.7"), Max: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	remembered := func(project int32) []string {
		e.mu.Lock()
		defer e.mu.Unlock()
		var what []string
		for s := range e.heads {
			if s.project == project {
				what = append(what, "heads")
				break
			}
		}
		if _, ok := e.requeued[project]; ok {
			what = append(what, "requeued")
		}
		if _, ok := e.counts[project]; ok {
			what = append(what, "counts")
		}
		if _, ok := e.expired[project]; ok {
			what = append(what, "expired")
		}
		return what
	}
	gone, kept := live[0], live[1]
	if got := remembered(gone.ID); len(got) != 4 {
		t.Fatalf("before the purge the engine remembers %v of the project, want heads, requeued, counts and expired", got)
	}

	p, err := store.Get(ctx, gone.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.MarkDeleting(ctx, p); err != nil {
		t.Fatal(err)
	}
	deleting, err := store.ListDeleting(ctx)
	if err != nil || len(deleting) != 1 {
		t.Fatalf("projects being deleted: %v, %v", deleting, err)
	}
	p = deleting[0]
	if err := e.Purge(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := remembered(gone.ID); len(got) != 0 {
		t.Errorf("after the purge the engine remembers %v of the deleted project", got)
	}
	if got := remembered(kept.ID); len(got) != 4 {
		t.Errorf("the project beside it: %v remembered, want all four", got)
	}
}
