package jobs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
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
	later := time.Now().AddDate(0, 0, 30)
	if partitionExists(t, pool, p, later) {
		t.Fatal("partition a month ahead exists before the job ran")
	}
	if err := EnsurePartitions(ctx, store, later); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{-1, 0, 7} {
		if !partitionExists(t, pool, p, later.AddDate(0, 0, d)) {
			t.Errorf("no partition for day %+d", d)
		}
	}
}

// A completion stamped past the days made (a clock set forward, the job
// kept from running) lands in the default partition, which PostgreSQL
// then will not split: the job takes it into the day's partition as it
// makes it, for every project (on Citus the days and their default are
// every project's).
func TestEnsurePartitionsTakesInStrayCompletions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	stray := dbtest.Project(t, pool, "stray", "")
	other := dbtest.Project(t, pool, "other", "")
	later := time.Now().AddDate(0, 0, 30)
	strayCompletion(t, pool, stray, later)
	defaultPart := strings.TrimSuffix(dayPartition(t, pool, stray, later), later.UTC().Format("20060102")) + "default"
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM "+pgx.Identifier{defaultPart}.Sanitize()+" WHERE project_id = $1", stray.ID); n != 1 {
		t.Fatalf("%d completions in %s before the job, want the stray one", n, defaultPart)
	}

	if err := EnsurePartitions(ctx, store, later); err != nil {
		t.Fatal(err)
	}
	for _, p := range []projects.Project{stray, other} {
		if !partitionExists(t, pool, p, later) {
			t.Fatalf("%s: no partition of the day", p.Slug)
		}
	}
	part := pgx.Identifier{dayPartition(t, pool, stray, later)}.Sanitize()
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM "+part+" WHERE project_id = $1 AND name = 'item:0'", stray.ID); n != 1 {
		t.Fatalf("%d stray completions in the day's partition, want 1", n)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM "+pgx.Identifier{defaultPart}.Sanitize()); n != 0 {
		t.Fatalf("%d completions left in %s", n, defaultPart)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM done WHERE project_id = $1", stray.ID); n != 1 {
		t.Fatalf("%d completions of the project, want its one", n)
	}
}

// dayPartition is the name of the partition of done that holds the
// project's completions of day: its own on one PostgreSQL, every
// project's on Citus.
func dayPartition(t *testing.T, pool *pgxpool.Pool, p projects.Project, day time.Time) string {
	t.Helper()
	citus, err := db.Citus(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	if citus {
		return "done_" + day.UTC().Format("20060102")
	}
	return fmt.Sprintf("done_p%d_%s", p.ID, day.UTC().Format("20060102"))
}
