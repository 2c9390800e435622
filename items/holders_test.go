package items_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/naming"
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

// A done looks for the items nobody holds only in the queues that hold
// items, whatever the number of queues an item could be in: in a recurring
// project a hundred band queues, besides the standard ones. Counted as
// PostgreSQL counts them for the transaction (its scans of todo's key,
// each probe one), with one item back in its band after its claim expired
// and two reported again after their completion: finding the one stretch
// holding items takes two probes (it, and none before it), the item back
// in its band is looked for there and taken out with one more, and the two
// completed, waiting for their next visit, are looked for in no queue. A
// done of items claimed reads nothing of the queues.
func TestDoneProbesOnlyQueuesHoldingItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.onePostgres(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"mode=recurring", "revisit_after=3600", "reclaim_ttl=60"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "a", "b", "c")
	if got := f.claim(t, "alice", 3); len(got) != 3 {
		t.Fatalf("alice got %v", got)
	}
	f.visit(t, "alice", nil, "a", "b", "c")
	if n := f.due(t); n != 3 {
		t.Fatalf("%d items due, want 3", n)
	}
	if got := f.claim(t, "bob", 3); len(got) != 3 {
		t.Fatalf("bob got %v", got)
	}
	if completed, n := f.probes(t, "force_generic_plan", true,
		items.Completion{Downloader: "bob", Items: []string{"b", "c"}, Bytes: map[string]int64{"data": 2}}); completed != 2 || n != 0 {
		t.Fatalf("a done of items claimed completed %d, want 2, and probed todo's key %d times, want none", completed, n)
	}
	f.expire(t) // a, back in its band
	a := f.status(t, "a")
	if a.Status != items.StatusTodo || !strings.HasPrefix(a.Queue, naming.RevisitQueuePrefix) {
		t.Fatalf("a: %+v", a)
	}
	if s := f.summary(t); s.Queued() != 1 {
		t.Fatalf("%d items queued, want a alone", s.Queued())
	}

	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		t.Run(mode, func(t *testing.T) {
			// Rolled back: each mode reports the same items.
			completed, n := f.probes(t, mode, false,
				items.Completion{Downloader: "bob", Items: []string{"a", "b", "c"}, Bytes: map[string]int64{"data": 3}})
			t.Logf("%d probes", n)
			if completed != 1 {
				t.Errorf("completed %d, want a alone", completed)
			}
			if want := int64(2 + 1 + 1); n > want {
				t.Errorf("the done probed todo's key %d times, want at most %d (the queues holding items, not all %d an item could be in)",
					n, want, len(naming.StandardQueues)+1+len(naming.RevisitQueues))
			}
		})
	}
}

// onePostgres skips a test counting probes on a Citus database, where the
// statement runs on a worker (whose scans the coordinator does not count)
// and has no generic plan.
func (f fixture) onePostgres(t *testing.T) {
	t.Helper()
	on, err := db.Citus(context.Background(), f.pool)
	if err != nil {
		t.Fatal(err)
	}
	if on {
		t.Skip("counts the probes of one PostgreSQL")
	}
}

// probes records c in a transaction run as the engine's batches are, with
// plan_cache_mode mode, committed when commit, and returns how many items
// it completed and how many probes of todo's key it made (PostgreSQL's
// count of the transaction's scans of the key, each probe one).
func (f fixture) probes(t *testing.T, mode string, commit bool, c items.Completion) (completed, n int64) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = "+mode); err != nil {
		t.Fatal(err)
	}
	scans := func() int64 {
		t.Helper()
		var n int64
		if err := tx.QueryRow(ctx, "SELECT pg_stat_get_xact_numscans('todo_pkey'::regclass)").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := scans()
	done, err := f.engine.CompleteIn(ctx, db.Of(tx), f.project, c)
	if err != nil {
		t.Fatal(err)
	}
	n = scans() - before
	if commit {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return done[0], n
}

// A done repeated in a project whose items are done once (seesaw sends it
// again when the answer was lost) looks for its items, completed and in no
// queue, only in the stretches holding items: with one, two probes find it
// and each item is looked for there once. Each was looked for in every
// standard queue, the error queue and the reporter's own, in each of the
// project's stretches.
func TestRepeatedDoneProbesOnlyStretchesHoldingItems(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.onePostgres(t)
	f.add(t, "todo", "a", "b", "c", "d")
	if got := f.claim(t, "alice", 3); len(got) != 3 {
		t.Fatalf("alice got %v", got)
	}
	done := items.Completion{Downloader: "alice", Items: []string{"a", "b", "c"}, Bytes: map[string]int64{"data": 3}}
	if n := f.complete(t, done); n != 3 {
		t.Fatalf("completed %d, want 3", n)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		t.Run(mode, func(t *testing.T) {
			completed, n := f.probes(t, mode, false, done)
			t.Logf("%d probes", n)
			if completed != 0 {
				t.Errorf("the repeated done completed %d items, want none", completed)
			}
			if want := int64(2 + 3); n > want {
				t.Errorf("the repeated done probed todo's key %d times, want at most %d (the one stretch holding items)", n, want)
			}
		})
	}
	if st := f.status(t, "d"); st.Status != items.StatusTodo {
		t.Fatalf("d: %+v, want it queued still", st)
	}
}
