package dbtest

import (
	"context"
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
