package jobs

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/projects"
	"tracker/warriors"
)

// Housekeeping drops the records of warriors not seen for warriors.Kept
// and keeps the others.
func TestHousekeepingDropsAbsentWarriors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := warriors.NewStore(pool)
	for _, id := range []string{"gone", "here"} {
		c := warriors.Contact{ID: id, Nick: id, Address: netip.MustParseAddr("192.0.2.1")}
		if ok, err := store.Update(ctx, c); err != nil || !ok {
			t.Fatalf("%s: %v %v", id, ok, err)
		}
	}
	dbtest.Age(t, pool, 31*24*time.Hour, dbtest.Warriors("gone"))
	summary, err := Housekeeping(pool, projects.NewStore(pool), 24*time.Hour).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(summary)
	var left []string
	rows, err := pool.Query(ctx, "SELECT id FROM warriors")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left = append(left, id)
	}
	if rows.Err() != nil || len(left) != 1 || left[0] != "here" {
		t.Fatalf("left: %v %v", left, rows.Err())
	}
}

// Housekeeping drops the backfeed minutes older than BackfeedMinutesKept.
func TestHousekeepingPrunesBackfeedMinutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	// Of shard onetime a minute 47 hours old and one of now; of no shard,
	// one 49 hours old.
	dbtest.MustExec(t, pool, `INSERT INTO backfeed_minutes (project_id, shard, minute, items) VALUES
		(1, 'onetime', date_trunc('minute', now()), 2), (1, '', date_trunc('minute', now()), 1)`)
	dbtest.Age(t, pool, 47*time.Hour, dbtest.BackfeedMinutes(1, "onetime"))
	dbtest.Age(t, pool, 49*time.Hour, dbtest.BackfeedMinutes(1, ""))
	dbtest.MustExec(t, pool, `INSERT INTO backfeed_minutes (project_id, shard, minute, items) VALUES (1, 'onetime', date_trunc('minute', now()), 3)`)
	if _, err := Housekeeping(pool, projects.NewStore(pool), 24*time.Hour).Run(ctx); err != nil {
		t.Fatal(err)
	}
	var n, items int64
	if err := pool.QueryRow(ctx, "SELECT count(*), coalesce(sum(items), 0) FROM backfeed_minutes").Scan(&n, &items); err != nil {
		t.Fatal(err)
	}
	if n != 2 || items != 5 {
		t.Fatalf("left %d minutes of %d items, want 2 of 5", n, items)
	}
}
