package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/db/dbtest"
)

// A statement's failure names the statement, and is still the error it
// wraps: a row not found, a context ended.
func TestFailuresNameTheStatement(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	q := db.Of(pool)
	_, err := q.ProjectGetBySlug(context.Background(), "missing")
	var named *db.StatementError
	if !errors.Is(err, pgx.ErrNoRows) || !errors.As(err, &named) || named.Statement != "ProjectGetBySlug" ||
		!strings.HasPrefix(err.Error(), "ProjectGetBySlug: ") {
		t.Fatalf("a row not found: %v", err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.APITokenUsed(ended, 1); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "APITokenUsed: ") {
		t.Fatalf("an Exec whose context ended: %v", err)
	}
	if _, err := q.DoneDayPartitions(ended); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "DoneDayPartitions: ") {
		t.Fatalf("a Query whose context ended: %v", err)
	}
	// Tests' scratch SQL has no name, and fails as it is.
	if _, err := db.Conn(q).Exec(context.Background(), "SELECT nothing_at_all()"); err == nil || errors.As(err, &named) {
		t.Fatalf("unnamed SQL: %v", err)
	}
}
