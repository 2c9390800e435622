package db_test

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/migrations"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestMigrateUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	latest := latestMigration(t)
	tables := func() int {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The pool's connections were made before the batch types were, or
	// before they were made again: after MigrateUp they pass batches.
	batches := func(when string) {
		t.Helper()
		var n int
		err := pool.QueryRow(ctx, `SELECT cardinality($1::done_request[]) + cardinality($2::site_take[])`,
			[]db.DoneRequest{{Downloader: "a", Names: []string{"x"}}}, []db.SiteTake{{Site: 1, Items: 1, Slot: 1}}).Scan(&n)
		if err != nil || n != 2 {
			t.Fatalf("%s: a batch of %d rows: %v", when, n, err)
		}
	}

	changed, err := db.MigrateUp(pool)
	if err != nil || !changed {
		t.Fatalf("first up: changed=%v err=%v", changed, err)
	}
	batches("first up")
	if v, dirty, err := db.SchemaVersion(pool); err != nil || dirty || v != latest {
		t.Fatalf("version %d dirty=%v err=%v, want %d", v, dirty, err, latest)
	}
	if tables() == 0 {
		t.Fatal("no tables after up")
	}

	// Up again is no change, not an error.
	if changed, err := db.MigrateUp(pool); err != nil || changed {
		t.Fatalf("second up: changed=%v err=%v", changed, err)
	}

	if err := db.MigrateDown(pool); err != nil {
		t.Fatal(err)
	}
	if n := tables(); n != 0 {
		t.Fatalf("%d tables left after down", n)
	}
	var functions int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace`).Scan(&functions); err != nil {
		t.Fatal(err)
	}
	if functions != 0 {
		t.Fatalf("%d functions left after down", functions)
	}

	if changed, err := db.MigrateUp(pool); err != nil || !changed {
		t.Fatalf("up after down: changed=%v err=%v", changed, err)
	}
	batches("up after down")
}

func latestMigration(t *testing.T) uint {
	t.Helper()
	files, err := fs.Glob(migrations.FS, "*.up.sql")
	if err != nil || len(files) == 0 {
		t.Fatal("no migrations", err)
	}
	var v uint
	for _, f := range files {
		var n uint
		for _, c := range strings.SplitN(f, "_", 2)[0] {
			n = n*10 + uint(c-'0')
		}
		v = max(v, n)
	}
	return v
}

func TestDonePartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)

	p, err := q.ProjectInsert(ctx, db.ProjectInsertParams{Slug: "parts", Config: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	n, err := q.ProjectDonePartitionsEnsure(ctx, db.ProjectDonePartitionsEnsureParams{
		ProjectID: p.ID, FirstDay: mustDate(t, "2026-03-01"), LastDay: mustDate(t, "2026-03-03")})
	if err != nil || n != 3 {
		t.Fatalf("created %d partitions, err %v; want 3", n, err)
	}
	// Idempotent, and safe to extend.
	n, err = q.ProjectDonePartitionsEnsure(ctx, db.ProjectDonePartitionsEnsureParams{
		ProjectID: p.ID, FirstDay: mustDate(t, "2026-03-02"), LastDay: mustDate(t, "2026-03-04")})
	if err != nil || n != 1 {
		t.Fatalf("created %d partitions, err %v; want 1", n, err)
	}

	// A completion lands in its day's partition, one outside every day in
	// the default partition: never refused.
	for _, at := range []string{"2026-03-02 23:59:59+00", "2026-03-03 00:00:00+00", "2030-01-01 00:00:00+00"} {
		_, err := pool.Exec(ctx, `INSERT INTO done (project_id, id, name, downloader, bytes, claimed_at, done_at, claim_count)
			VALUES ($1, 1, 'x', 'nick', 0, $2, $2, 1)`, p.ID, at)
		if err != nil {
			t.Fatal(err)
		}
	}
	rows, err := pool.Query(ctx, `SELECT tableoid::regclass::text FROM done ORDER BY done_at`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"done_p" + itoa(p.ID) + "_20260302",
		"done_p" + itoa(p.ID) + "_20260303",
		"done_p" + itoa(p.ID) + "_default",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("partitions %v, want %v", got, want)
	}
}

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

// A database migrated by a newer release (a rolling upgrade, this
// process the release before) is used as it is: MigrateUp says so and
// leaves it, rather than failing on a version it does not know.
func TestMigrateUpOnANewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := db.MigrateUp(pool); err != nil {
		t.Fatal(err)
	}
	newer := latestMigration(t) + 1
	if _, err := pool.Exec(ctx, `UPDATE schema_migrations SET version = $1`, newer); err != nil {
		t.Fatal(err)
	}
	changed, err := db.MigrateUp(pool)
	if changed || !errors.Is(err, db.ErrSchemaNewer) {
		t.Fatalf("up on a newer schema: changed=%v err=%v, want ErrSchemaNewer", changed, err)
	}
	if v, dirty, err := db.SchemaVersion(pool); err != nil || dirty || v != newer {
		t.Fatalf("version %d dirty=%v err=%v, want %d untouched", v, dirty, err, newer)
	}
}
