package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/dbtest"
)

// A pool with a statement timeout has PostgreSQL cancel what runs longer.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := dbtest.New(t).Config().ConnString()
	pool, err := db.Open(ctx, dsn, db.StatementTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	_, err = pool.Exec(ctx, "SELECT pg_sleep(5)")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("a 5 s statement under a 100 ms timeout: %v", err)
	}
	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
}

// When the server goes away under one pool's statement, the other pools on
// the same address drop their connections made before it at their next
// use: one failed statement, not one per connection of each pool.
func TestServerGoneDropsEveryPoolsConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := dbtest.New(t)
	dsn := admin.Config().ConnString()
	open := func(name string) *pgxpool.Pool {
		pool, err := db.Open(ctx, dsn, db.ApplicationName(name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
	web, readers := open("watch-web"), open("watch-readers")
	// Each pool has a connection, just used: taken again, it is not pinged.
	for _, p := range []*pgxpool.Pool{web, readers} {
		if _, err := p.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	// The server "goes away" for both: their backends end.
	var ended int
	if err := admin.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
		FROM pg_stat_activity WHERE application_name IN ('watch-web', 'watch-readers')`).Scan(&ended); err != nil || ended != 2 {
		t.Fatalf("ended %d backends: %v", ended, err)
	}
	dbtest.Eventually(t, func() bool {
		var left int
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name IN ('watch-web', 'watch-readers')`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0
	}, "the backends gone")
	// The web pool's statement is the first to find out.
	if _, err := web.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a statement on a connection whose server went away succeeded")
	}
	// The readers' pool, its connection just as dead, makes a new one.
	if _, err := readers.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("the readers' pool after the web pool found the server gone: %v", err)
	}
	if _, err := web.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
}
