package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// claimed makes n items of the project claimed by "w" age ago, as if
// handed out then: rows in seen and claims, and the counter.
func claimed(t *testing.T, pool *pgxpool.Pool, p projects.Project, n int, age time.Duration) {
	t.Helper()
	ctx := context.Background()
	steps := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO seen (project_id, hash, id)
		  SELECT $1, item_hash('item:' || g), g FROM generate_series(1, $2::int) g`, []any{p.ID, n}},
		{`INSERT INTO claims (project_id, hash, id, name, queue, downloader)
		  SELECT $1, item_hash('item:' || g), g, 'item:' || g, 'todo', 'w'
		  FROM generate_series(1, $2::int) g`, []any{p.ID, n}},
		{`INSERT INTO counters (project_id, name, shard, value) VALUES ($1, 'claims', 0, $2)`, []any{p.ID, n}},
	}
	for _, s := range steps {
		if _, err := pool.Exec(ctx, s.sql, s.args...); err != nil {
			t.Fatal(err)
		}
	}
	dbtest.Age(t, pool, age, dbtest.Claims(p.ID))
}

func TestReclaimPutsExpiredClaimsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	const n = 100_000
	claimed(t, pool, p, n, 2*time.Hour)
	engine := items.NewEngine(pool, quietLog())
	r := NewRunner(quietLog(), pool, Reclaim(store, engine))

	// Without a reclaim TTL nothing expires.
	if s, err := r.RunNow(ctx, "reclaim"); err != nil || s != "reclaimed 0 items, 0 failed" {
		t.Fatalf("no TTL: %q, %v", s, err)
	}
	// With one of an hour, a first claim two hours old has expired.
	p, err := store.Set(ctx, p, []string{"reclaim_ttl=3600"})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := r.RunNow(ctx, "reclaim"); err != nil || s != "reclaimed 100000 items, 0 failed" {
		t.Fatalf("TTL 1h: %q, %v", s, err)
	}
	sum, err := store.Summary(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	claims := dbtest.Count(t, pool, "SELECT count(*) FROM claims")
	todo := dbtest.Count(t, pool, "SELECT count(*) FROM todo WHERE queue = 'todo' AND claim_count = 1")
	if claims != 0 || todo != n || sum.Claims != 0 || sum.Queues["todo"] != n || sum.Reclaims != n {
		t.Fatalf("claims %d, todo %d, summary %+v", claims, todo, sum)
	}

	// They are handed out again, first in their old order.
	live := &projects.Live{Project: p, Queues: sum.Queues, Summary: sum}
	h, err := engine.Request(ctx, live, items.ClaimRequest{Downloader: "v", Max: 1})
	got := h.Names
	if err != nil || len(got) != 1 || got[0] != "item:1" {
		t.Fatalf("request after reclaim = %v, %v", got, err)
	}
}

// A second claim lasts twice the TTL: claim count times TTL.
func TestReclaimTTLGrowsWithClaimCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	claimed(t, pool, p, 10, 90*time.Minute)
	if _, err := pool.Exec(ctx, "UPDATE claims SET claim_count = 2 WHERE id <= 4"); err != nil {
		t.Fatal(err)
	}
	p, err := store.Set(ctx, p, []string{"reclaim_ttl=3600"})
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := items.NewEngine(pool, quietLog()).ReclaimExpired(ctx, p, 100)
	if err != nil || n != 6 {
		t.Fatalf("reclaimed %d, %v; want the 6 first claims", n, err)
	}
}

// A reclaim run stopped part-way leaves whole batches done and the books
// balanced; the next run finishes the job.
func TestReclaimStoppedAndRestarted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	const n = 60_000
	claimed(t, pool, p, n, 2*time.Hour)
	p, err := store.Set(ctx, p, []string{"reclaim_ttl=60"})
	if err != nil {
		t.Fatal(err)
	}
	job := Reclaim(store, items.NewEngine(pool, quietLog()))
	stopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The watcher stops the run once the first batch is in. It ends with
	// the run: the stop, or the run's end, cancels its context, and the test
	// waits for it.
	watcher := make(chan error, 1)
	go func() {
		watcher <- func() error {
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				var back int64
				if err := pool.QueryRow(stopCtx, "SELECT count(*) FROM todo").Scan(&back); err != nil {
					if stopCtx.Err() != nil {
						return nil
					}
					return err
				}
				if back > 0 {
					cancel()
					return nil
				}
				select {
				case <-stopCtx.Done():
					return nil
				case <-tick.C:
				}
			}
		}()
	}()
	if _, err := job.Run(stopCtx); err == nil {
		t.Log("the run ended before the stop reached it")
	}
	cancel()
	select {
	case err := <-watcher:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher goroutine is still running 10 s after the run")
	}
	// The statement the stop cut off may still be ending in the database
	// (committed or rolled back): the counts are read once it has.
	dbtest.Eventually(t, func() bool {
		return dbtest.Count(t, pool, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`) == 0
	}, "no statement running after the stop")
	balanced := func() (claims, todo int64) {
		t.Helper()
		claims = dbtest.Count(t, pool, "SELECT count(*) FROM claims")
		todo = dbtest.Count(t, pool, "SELECT count(*) FROM todo")
		sum, err := store.Summary(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if claims+todo != n || sum.Claims != claims || sum.Queues["todo"] != todo || todo%reclaimBatch != 0 && todo != n {
			t.Fatalf("claims %d + todo %d, summary %+v", claims, todo, sum)
		}
		return claims, todo
	}
	balanced()
	if _, err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if claims, _ := balanced(); claims != 0 {
		t.Fatalf("%d claims left after the second run", claims)
	}
}
