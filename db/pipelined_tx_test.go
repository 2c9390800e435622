package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/db/dbtest"
)

// A pipelined transaction opens with its first statement, whichever way
// that statement is run, keeps its settings for the statements after it,
// and commits or rolls back as one.
func TestPipelinedTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	if _, err := pool.Exec(ctx, "CREATE TABLE scratch (n integer PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	count := func() int64 {
		t.Helper()
		return dbtest.Count(t, pool, "SELECT count(*) FROM scratch")
	}
	begin := []string{"BEGIN", "SET LOCAL application_name = 'pipelined'"}
	// in runs fn in a pipelined transaction on a connection of its own and
	// reports whether the connection was back outside any transaction.
	in := func(fn func(tx *db.PipelinedTx) error) error {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		err = fn(db.BeginPipelined(conn.Conn(), begin...))
		if s := conn.Conn().PgConn().TxStatus(); s != 'I' {
			t.Errorf("the connection was left in transaction state %q", s)
		}
		return err
	}
	inserts := func(tx *db.PipelinedTx, ns ...int) error {
		for _, n := range ns {
			if _, err := tx.Exec(ctx, "INSERT INTO scratch VALUES ($1)", n); err != nil {
				return err
			}
		}
		return nil
	}

	// Each way of running the first statement opens the transaction.
	first := map[string]func(tx *db.PipelinedTx) (string, error){
		"Exec": func(tx *db.PipelinedTx) (string, error) {
			_, err := tx.Exec(ctx, "INSERT INTO scratch VALUES (100)")
			return "pipelined", err
		},
		"Query": func(tx *db.PipelinedTx) (string, error) {
			rows, err := tx.Query(ctx, "SELECT current_setting('application_name')")
			if err != nil {
				return "", err
			}
			return pgx.CollectExactlyOneRow(rows, pgx.RowTo[string])
		},
		"QueryRow": func(tx *db.PipelinedTx) (name string, err error) {
			err = tx.QueryRow(ctx, "SELECT current_setting('application_name')").Scan(&name)
			return name, err
		},
	}
	for how, run := range first {
		if _, err := pool.Exec(ctx, "TRUNCATE scratch"); err != nil {
			t.Fatal(err)
		}
		err := in(func(tx *db.PipelinedTx) error {
			name, err := run(tx)
			if err != nil {
				return err
			}
			if name != "pipelined" {
				t.Errorf("%s: the first statement ran with application_name %q, not the transaction's", how, name)
			}
			if err := tx.QueryRow(ctx, "SELECT current_setting('application_name')").Scan(&name); err != nil || name != "pipelined" {
				t.Errorf("%s: a later statement ran with application_name %q (%v)", how, name, err)
			}
			if err := inserts(tx, 1, 2); err != nil {
				return err
			}
			return tx.Rollback(ctx)
		})
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if n := count(); n != 0 {
			t.Errorf("%s: %d rows after a rollback", how, n)
		}
	}

	// Committed: every statement's rows.
	if err := in(func(tx *db.PipelinedTx) error {
		if err := inserts(tx, 1, 2, 3); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}); err != nil || count() != 3 {
		t.Fatalf("a commit of three rows: %v, %d rows", err, count())
	}

	// A failed statement, first or later, leaves nothing, and COMMIT
	// after it is an error.
	for _, ns := range [][]int{{1}, {4, 1}} {
		err := in(func(tx *db.PipelinedTx) error {
			if err := inserts(tx, ns...); err == nil {
				t.Errorf("inserts of %v: no error", ns)
			}
			return tx.Commit(ctx)
		})
		if !errors.Is(err, pgx.ErrTxCommitRollback) {
			t.Errorf("a commit after a failed statement (inserts of %v): %v", ns, err)
		}
		if n := count(); n != 3 {
			t.Errorf("inserts of %v failed, then %d rows, want 3", ns, n)
		}
	}

	// A transaction no statement opened commits nothing and sends nothing.
	if err := in(func(tx *db.PipelinedTx) error { return tx.Commit(ctx) }); err != nil {
		t.Fatal(err)
	}
}

var _ db.DBTX = (*db.PipelinedTx)(nil)
