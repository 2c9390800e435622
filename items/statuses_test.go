package items_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"tracker/items"
	"tracker/projects"
)

// The read routes' item status is the engine's, kept for the ttl: within it
// the answer read first (a found item's, or that there is none), after it
// the item as it stands; each item apart; at most max kept.
func TestStatusesKeepEachAnswerForTheTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.add(t, "todo", "item:1")
	s := items.NewStatuses(f.engine, time.Second, 4)
	now := time.Unix(1e9, 0)
	s.SetClock(func() time.Time { return now })
	live := func() *projects.Live {
		t.Helper()
		l, err := projects.NewCache(f.store, 0).Get(ctx, f.project.Slug)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	status := func(name string) string {
		t.Helper()
		st, err := s.Lookup(ctx, live(), "", name)
		if errors.Is(err, items.ErrUnknownItem) {
			return "unknown"
		}
		if err != nil {
			t.Fatal(err)
		}
		return st.Status
	}

	if got := status("item:1"); got != items.StatusTodo {
		t.Fatalf("item:1 %s, want todo", got)
	}
	if got := status("item:2"); got != "unknown" {
		t.Fatalf("item:2 %s before it is queued", got)
	}
	f.claim(t, "alice", 1)
	f.add(t, "todo", "item:2")
	now = now.Add(999 * time.Millisecond)
	if got, got2 := status("item:1"), status("item:2"); got != items.StatusTodo || got2 != "unknown" {
		t.Fatalf("within the ttl: item:1 %s, item:2 %s; want the answers kept, todo and unknown", got, got2)
	}
	now = now.Add(time.Millisecond)
	if got, got2 := status("item:1"), status("item:2"); got != items.StatusClaimed || got2 != items.StatusTodo {
		t.Fatalf("after the ttl: item:1 %s, item:2 %s; want claimed and todo", got, got2)
	}
	if _, err := s.Lookup(ctx, live(), "not a shard!", "item:1"); err == nil {
		t.Fatal("an invalid shard was looked up")
	}

	for i := range 20 {
		status(fmt.Sprintf("none:%d", i))
		if n := s.Len(); n > 4 {
			t.Fatalf("%d answers kept, at most 4", n)
		}
	}

	// A ttl of 0 keeps nothing: every lookup is the engine's own.
	fresh := items.NewStatuses(f.engine, 0, 4)
	f.add(t, "todo", "item:3")
	if st, err := fresh.Lookup(ctx, live(), "", "item:3"); err != nil || st.Status != items.StatusTodo {
		t.Fatalf("item:3 %+v, %v", st, err)
	}
	f.claim(t, "bob", 2)
	if st, err := fresh.Lookup(ctx, live(), "", "item:3"); err != nil || st.Status != items.StatusClaimed {
		t.Fatalf("item:3 just claimed: %+v, %v", st, err)
	}
	if fresh.Len() != 0 {
		t.Fatalf("a ttl of 0 kept %d answers", fresh.Len())
	}
}
