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
	if _, err := pool.Exec(ctx, "UPDATE warriors SET last_seen_at = now() - interval '31 days' WHERE id = 'gone'"); err != nil {
		t.Fatal(err)
	}
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
