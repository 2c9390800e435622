package items

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

// scratchOp writes one row of a scratch table; bad ones fail.
type scratchOp struct {
	n   int
	bad bool
}

// scratchBatcher writes each batch's rows with one statement, noting the
// transaction, as the engine's batches do.
func scratchBatcher(t *testing.T, maxBatches int) (*batcher[scratchOp], func() (rows, txs int)) {
	t.Helper()
	ctx := context.Background()
	pool := dbtest.New(t)
	if _, err := pool.Exec(ctx, "CREATE TABLE scratch (n integer PRIMARY KEY, xid bigint)"); err != nil {
		t.Fatal(err)
	}
	b := &batcher[scratchOp]{pool: pool, maxBatches: maxBatches, maxOps: 64,
		run: func(ctx context.Context, q *db.Queries, ops []*scratchOp) error {
			ns := make([]int32, 0, len(ops))
			for _, o := range ops {
				if o.bad {
					return errors.New("a bad operation")
				}
				ns = append(ns, int32(o.n))
			}
			_, err := db.Conn(q).Exec(ctx, "INSERT INTO scratch SELECT n, txid_current() FROM unnest($1::integer[]) n", ns)
			return err
		}}
	count := func() (rows, txs int) {
		if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT xid) FROM scratch").Scan(&rows, &txs); err != nil {
			t.Fatal(err)
		}
		return rows, txs
	}
	return b, count
}

func TestBatcherGroupsAndIsolatesFailures(t *testing.T) {
	t.Parallel()
	b, count := scratchBatcher(t, 2)
	const n = 200
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// Op 13 fails alone; ops 50 and 150 write the same row, so one
			// of them fails in the database: the rest of their batches
			// still commit.
			op := &scratchOp{n: i, bad: i == 13}
			if i == 150 {
				op.n = 50
			}
			errs[i] = b.do(op)
		}()
	}
	close(start)
	wg.Wait()

	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			if i != 13 && i != 50 && i != 150 {
				t.Errorf("op %d: %v", i, err)
			}
		}
	}
	if errs[13] == nil || failed != 2 {
		t.Fatalf("%d failures, op 13: %v; want op 13 and one of 50/150", failed, errs[13])
	}
	if rows, _ := count(); rows != n-2 {
		t.Fatalf("%d rows committed, want %d", rows, n-2)
	}

	// The last leader gives up its slot just after its callers return.
	for range 100 {
		b.mu.Lock()
		active, pending := b.active, len(b.pending)
		b.mu.Unlock()
		if active == 0 && pending == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("batches still active after every operation returned")
}

func TestBatcherGroups(t *testing.T) {
	t.Parallel()
	b, count := scratchBatcher(t, 2)
	const n = 200
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := b.do(&scratchOp{n: i}); err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	// Grouped: on average two or more operations a transaction, however
	// the scheduler staggers the callers on a loaded machine.
	rows, txs := count()
	if rows != n || txs >= n/2 {
		t.Fatalf("%d operations ran in %d transactions: little was grouped", rows, txs)
	}
	t.Logf("%d operations in %d transactions", rows, txs)
}
