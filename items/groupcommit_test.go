package items

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

func TestGroupCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	if _, err := pool.Exec(ctx, "CREATE TABLE scratch (n integer PRIMARY KEY, xid bigint)"); err != nil {
		t.Fatal(err)
	}
	g := newGroupCommit(pool, 2, 64)

	const n = 200
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = g.do(fmt.Sprint(i%7), func(ctx context.Context, q *db.Queries) error {
				if i == 13 { // fails alone: the others of its batch commit
					// A statement that fails in the database.
					_, err := q.ClaimsTake(ctx, db.ClaimsTakeParams{ProjectID: 1, Max: -1})
					if err == nil {
						err = errors.New("LIMIT -1 did not fail")
					}
					return err
				}
				return insertScratch(ctx, q, i)
			})
		}()
	}
	close(start)
	wg.Wait()

	for i, err := range errs {
		if (err != nil) != (i == 13) {
			t.Errorf("op %d: err %v", i, err)
		}
	}
	var rows, txs int
	if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT xid) FROM scratch").Scan(&rows, &txs); err != nil {
		t.Fatal(err)
	}
	if rows != n-1 {
		t.Fatalf("%d rows committed, want %d", rows, n-1)
	}
	if txs >= rows {
		t.Fatalf("%d operations ran in %d transactions: nothing was grouped", rows, txs)
	}
	t.Logf("%d operations in %d transactions", rows, txs)
	// The last leader gives up its slot just after its callers return.
	for range 100 {
		g.mu.Lock()
		active, pending := g.active, len(g.pending)
		g.mu.Unlock()
		if active == 0 && pending == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("batches still active after every operation returned")
}

// A failing statement inside a batch's transaction is undone alone.
func TestGroupCommitIsolatesStatementErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	if _, err := pool.Exec(ctx, "CREATE TABLE scratch (n integer PRIMARY KEY, xid bigint)"); err != nil {
		t.Fatal(err)
	}
	g := newGroupCommit(pool, 1, 64)
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.do("", func(ctx context.Context, q *db.Queries) error {
				return insertScratch(ctx, q, i%20) // every n twice: one of each pair fails
			})
		}()
	}
	wg.Wait()
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
		}
	}
	var rows int
	pool.QueryRow(ctx, "SELECT count(*) FROM scratch").Scan(&rows)
	if rows != 20 || failed != 20 {
		t.Fatalf("%d rows, %d failures; want 20 and 20", rows, failed)
	}
}

// insertScratch writes a row through the operation's transaction. The
// generated queries hold no such statement, so it goes through the
// transaction's own connection.
func insertScratch(ctx context.Context, q *db.Queries, n int) error {
	_, err := db.Conn(q).Exec(ctx, "INSERT INTO scratch VALUES ($1, txid_current())", n)
	return err
}
