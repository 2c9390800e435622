package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

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
