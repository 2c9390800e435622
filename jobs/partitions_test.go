package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestEnsurePartitionsCreatesDaysAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	exists := func(day time.Time) bool {
		var ok bool
		name := fmt.Sprintf("done_p%d_%s", p.ID, day.UTC().Format("20060102"))
		if err := pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	later := time.Now().AddDate(0, 0, 30)
	if exists(later) {
		t.Fatal("partition a month ahead exists before the job ran")
	}
	if err := EnsurePartitions(ctx, store, later); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{-1, 0, 7} {
		if !exists(later.AddDate(0, 0, d)) {
			t.Errorf("no partition for day %+d", d)
		}
	}
}
