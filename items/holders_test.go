package items_test

import (
	"context"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/items"
)

// A done completes an item only for the downloader who holds it or held it
// last; anyone else is answered as usual and completes nothing.
func TestCompleteOnlyByHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		// setup leaves item "a" handed out to alice first, and perhaps
		// elsewhere since.
		setup    func(t *testing.T, f fixture)
		reporter string
		// completed is what the done records; where is the state of "a"
		// after it: "done", "claimed by NICK" or "queued".
		completed int64
		where     string
		notHeld   int64
	}{
		{"holder", func(t *testing.T, f fixture) {}, "alice", 1, "done", 0},
		{"stranger", func(t *testing.T, f fixture) {}, "mallory", 0, "claimed by alice", 1},
		{"stranger, case differs", func(t *testing.T, f fixture) {}, "Alice", 0, "claimed by alice", 1},
		{"holder after expiry, queued again", func(t *testing.T, f fixture) {
			f.expire(t)
		}, "alice", 1, "done", 0},
		{"stranger, queued again", func(t *testing.T, f fixture) {
			f.expire(t)
		}, "mallory", 0, "queued", 1},
		{"holder after release, queued again", func(t *testing.T, f fixture) {
			if _, err := f.engine.Release(ctx, f.project, []string{"a"}, "alice"); err != nil {
				t.Fatal(err)
			}
		}, "alice", 1, "done", 0},
		{"previous holder, claimed from the queue by bob", func(t *testing.T, f fixture) {
			f.expire(t)
			if got := f.claim(t, "bob", 1); len(got) != 1 || got[0] != "a" {
				t.Fatalf("bob got %v", got)
			}
		}, "alice", 1, "done", 0},
		{"previous holder, reclaimed directly by bob", func(t *testing.T, f fixture) {
			f.age(t)
			if got := f.claim(t, "bob", 1); len(got) != 1 || got[0] != "a" {
				t.Fatalf("bob got %v", got)
			}
		}, "alice", 1, "done", 0},
		{"new holder after a direct reclaim", func(t *testing.T, f fixture) {
			f.age(t)
			f.claim(t, "bob", 1)
		}, "bob", 1, "done", 0},
		{"stranger after a direct reclaim", func(t *testing.T, f fixture) {
			f.age(t)
			f.claim(t, "bob", 1)
		}, "mallory", 0, "claimed by bob", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			var err error
			if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60"}); err != nil {
				t.Fatal(err)
			}
			f.add(t, "todo", "a")
			if got := f.claim(t, "alice", 1); len(got) != 1 {
				t.Fatalf("alice got %v", got)
			}
			c.setup(t, f)

			n := f.complete(t, items.Completion{Downloader: c.reporter, Items: []string{"a"}, Bytes: map[string]int64{"data": 10}})
			if n != c.completed {
				t.Errorf("completed %d, want %d", n, c.completed)
			}
			if got := f.where(t, "a"); got != c.where {
				t.Errorf("a is %s, want %s", got, c.where)
			}
			s := f.summary(t)
			if s.DoneNotHeld != c.notHeld {
				t.Errorf("done_not_held %d, want %d", s.DoneNotHeld, c.notHeld)
			}
			var credited int64
			if err := f.pool.QueryRow(ctx, `SELECT coalesce(sum(items), 0) FROM done_tallies WHERE downloader = $1`, c.reporter).Scan(&credited); err != nil {
				t.Fatal(err)
			}
			if credited != c.completed {
				t.Errorf("%s credited with %d items, want %d", c.reporter, credited, c.completed)
			}
			// The counters still equal the rows they count.
			var claims, queued, done int64
			if err := f.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM claims), (SELECT count(*) FROM todo), (SELECT count(*) FROM done)`).Scan(&claims, &queued, &done); err != nil {
				t.Fatal(err)
			}
			if s.Claims != claims || s.Queues["todo"] != queued || s.Done != done {
				t.Errorf("summary %+v, rows: %d claims, %d queued, %d done", s, claims, queued, done)
			}
		})
	}
}

// A done naming items of several holders, in a batch with the holders' own
// dones: each item is completed once, for its holder.
func TestCompleteMixedHolders(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.add(t, "todo", "a", "b")
	f.claim(t, "alice", 1) // a
	f.claim(t, "bob", 1)   // b
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{"a", "b"}}); n != 1 {
		t.Fatalf("alice completed %d, want 1", n)
	}
	if got := f.where(t, "b"); got != "claimed by bob" {
		t.Fatalf("b is %s", got)
	}
	if n := f.complete(t, items.Completion{Downloader: "bob", Items: []string{"b"}}); n != 1 {
		t.Fatalf("bob completed %d, want 1", n)
	}
}

// age makes every claim old enough to be handed to someone else.
func (f fixture) age(t *testing.T) {
	t.Helper()
	dbtest.Age(t, f.pool, time.Hour, dbtest.Claims(f.project.ID))
}

// expire puts every claim back in its queue, as the reclaim job does.
func (f fixture) expire(t *testing.T) {
	t.Helper()
	f.age(t)
	if n, _, err := f.engine.ReclaimExpired(context.Background(), f.project, 100); err != nil || n == 0 {
		t.Fatalf("reclaimed %d: %v", n, err)
	}
}

// where says where an item is: "done", "claimed by NICK", "queued".
func (f fixture) where(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	var state string
	err := f.pool.QueryRow(ctx, `
		SELECT coalesce(
			(SELECT 'claimed by ' || downloader FROM claims WHERE name = $1),
			(SELECT 'queued' FROM todo WHERE name = $1),
			(SELECT 'done' FROM done WHERE name = $1),
			'nowhere')`, name).Scan(&state)
	if err != nil {
		t.Fatal(err)
	}
	return state
}
