package dbtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/projects"
)

// Querier runs statements: a pool, a connection or a transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// MustExec runs a statement and returns the number of rows it touched. A
// statement that fails fails the test: a fixture that was not made must
// not read as one that was.
func MustExec(t testing.TB, q Querier, sql string, args ...any) int64 {
	t.Helper()
	tag, err := q.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag.RowsAffected()
}

// MustScan scans row into dest. A query that fails, or finds no row, fails
// the test instead of leaving dest at its zero value.
func MustScan(t testing.TB, row pgx.Row, dest ...any) {
	t.Helper()
	if err := row.Scan(dest...); err != nil {
		t.Fatalf("scan: %v", err)
	}
}

// Count returns the single integer a query selects, as count(*) does. A
// query that fails, or selects NULL, fails the test instead of reading as 0.
func Count(t testing.TB, q Querier, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Project creates project slug titled title, then applies the
// configuration assignments (KEY=VALUE, all or none) when there are any.
func Project(t testing.TB, pool *pgxpool.Pool, slug, title string, assignments ...string) projects.Project {
	t.Helper()
	ctx := context.Background()
	store := projects.NewStore(pool)
	p, err := store.Create(ctx, slug, title)
	if err != nil {
		t.Fatalf("project %s: %v", slug, err)
	}
	if len(assignments) > 0 {
		if p, err = store.Set(ctx, p, assignments); err != nil {
			t.Fatalf("project %s: %v", slug, err)
		}
	}
	return p
}

// Patience is how long Eventually waits: long enough that a loaded machine
// is never the reason a test fails, since a passing test waits only as long
// as its condition takes.
const Patience = time.Minute

// Eventually waits for a condition that becomes true asynchronously (a
// cache that expires, a write made by a later request, a process that
// starts): it asks ok again every few milliseconds until it holds, and fails
// the test naming what when it still does not after Patience. ok runs on
// the test's goroutine and may fail the test itself on an answer that
// cannot change into the awaited one.
func Eventually(t testing.TB, ok func() bool, what string) {
	t.Helper()
	EventuallyWithin(t, Patience, ok, what)
}

// EventuallyWithin is Eventually for a condition whose time bound is itself
// what is tested ("shows within seconds, without a reload").
func EventuallyWithin(t testing.TB, d time.Duration, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	wait := time.Millisecond
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// ProjectRows counts the rows of project id in every table with a
// project_id column, leaving the empty ones out; a branch of done's
// partitions left for it (done_pN, made whether or not it holds a row)
// counts as a row of "done_pN", as the tracker's books count one. A test
// reads it to see that nothing of a purged project is left anywhere.
func ProjectRows(t T, pool *pgxpool.Pool, id int32) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `
		SELECT c.table_name FROM information_schema.columns c
		JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = current_schema()::regnamespace
		WHERE c.table_schema = current_schema() AND c.column_name = 'project_id'
		  AND k.relkind IN ('r', 'p') AND NOT k.relispartition
		ORDER BY 1`)
	if err != nil {
		t.Fatalf("the tables with a project_id: %v", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("the tables with a project_id: %v, %v", tables, err)
	}
	out := map[string]int64{}
	count := func(name, sql string, arg any) {
		var n int64
		if err := pool.QueryRow(ctx, sql, arg).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if n > 0 {
			out[name] = n
		}
	}
	for _, table := range tables {
		count(table, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()+" WHERE project_id = $1", id)
	}
	branch := fmt.Sprintf("done_p%d", id)
	count(branch, "SELECT count(*) FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace", branch)
	return out
}
