package items

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// gather holds the batcher's leaders until want operations are pending, so
// that they are batched together however the scheduler runs the callers,
// and returns the sizes of the batches formed, in order.
func gather(b *batcher[scratchOp], want int) (sizes func() []int) {
	var mu sync.Mutex
	queued, formed := 0, []int{}
	all := make(chan struct{})
	b.queued = func() {
		mu.Lock()
		defer mu.Unlock()
		if queued++; queued == want {
			close(all)
		}
	}
	b.forming = func() { <-all }
	b.formed = func(n int) {
		mu.Lock()
		defer mu.Unlock()
		if n > 0 { // a leader may find its operation taken by another
			formed = append(formed, n)
		}
	}
	return func() []int {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(formed)
	}
}

func TestBatcherGroupsAndIsolatesFailures(t *testing.T) {
	t.Parallel()
	b, count := scratchBatcher(t, 2)
	const n = 200
	sizes := gather(b, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Op 13 fails alone; ops 50 and 150 write the same row, so one
			// of them fails in the database: the rest of their batches
			// still commit.
			op := &scratchOp{n: i, bad: i == 13}
			if i == 150 {
				op.n = 50
			}
			errs[i] = b.do(context.Background(), op)
		}()
	}
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
	if got := sorted(sizes()); fmt.Sprint(got) != "[8 64 64 64]" {
		t.Errorf("batches of %v, want three of 64 and one of 8", got)
	}

	// The last leader gives up its slot just after its callers return.
	dbtest.Eventually(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.active == 0 && len(b.pending) == 0
	}, "no batch active and no operation pending once every operation returned")
}

func sorted(s []int) []int {
	slices.Sort(s)
	return s
}

// Operations pending together run together: as many transactions as
// batches of at most maxOps, one statement each.
func TestBatcherGroups(t *testing.T) {
	t.Parallel()
	b, count := scratchBatcher(t, 2)
	const n = 200
	sizes := gather(b, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.do(context.Background(), &scratchOp{n: i}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := sorted(sizes()); fmt.Sprint(got) != "[8 64 64 64]" {
		t.Errorf("batches of %v, want three of 64 and one of 8", got)
	}
	if rows, txs := count(); rows != n || txs != 4 {
		t.Fatalf("%d operations ran in %d transactions, want %d in 4", rows, txs, n)
	}
}

// While a batch runs, the operations arriving wait for it and share the
// next; only once it has run slowAfter does one lead a batch beside it.
func TestBatcherStartsBesideASlowBatch(t *testing.T) {
	t.Parallel()
	for _, slow := range []bool{false, true} {
		b, count := scratchBatcher(t, 2)
		b.slowAfter = time.Hour
		if slow {
			b.slowAfter = 0
		}
		// Op 0's batch holds until released.
		running, release := make(chan struct{}), make(chan struct{})
		run := b.run
		b.run = func(ctx context.Context, q *db.Queries, ops []*scratchOp) error {
			if ops[0].n == 0 {
				close(running)
				<-release
			}
			return run(ctx, q, ops)
		}
		var formed []int
		var mu sync.Mutex
		b.formed = func(n int) {
			mu.Lock()
			defer mu.Unlock()
			formed = append(formed, n)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.do(context.Background(), &scratchOp{n: 0}); err != nil {
				t.Error(err)
			}
		}()
		<-running
		// Op 1: beside the slow batch, or pending behind it.
		errs := make(chan error, 1)
		go func() { errs <- b.do(context.Background(), &scratchOp{n: 1}) }()
		if slow {
			select {
			case err := <-errs:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("op 1 still waits for the slow batch after 10 s")
			}
		} else {
			dbtest.Eventually(t, func() bool {
				b.mu.Lock()
				pending, active := len(b.pending), b.active
				b.mu.Unlock()
				if pending == 1 && active != 1 {
					t.Fatalf("%d batches running, want the slow one alone", active)
				}
				return pending == 1
			}, "op 1 queued")
		}
		close(release)
		wg.Wait()
		if !slow {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if rows, txs := count(); rows != 2 || txs != 2 {
			t.Fatalf("slow=%v: %d rows in %d transactions, want 2 in 2", slow, rows, txs)
		}
		mu.Lock()
		if fmt.Sprint(formed) != "[1 1]" {
			t.Errorf("slow=%v: batches of %v, want two of one", slow, formed)
		}
		mu.Unlock()
	}
}

// A batch whose time runs out runs its operations again alone, each with
// its caller's context and a time of its own: they commit, but for the one
// whose caller is gone, which fails alone.
func TestBatcherRetriesOutOfTimeAlone(t *testing.T) {
	t.Parallel()
	b, count := scratchBatcher(t, 1)
	b.timeout = 50 * time.Millisecond
	// The batch of all three waits on a database that does not answer
	// until its time is up; each alone is written.
	var batchErr error
	run := b.run
	b.run = func(ctx context.Context, q *db.Queries, ops []*scratchOp) error {
		if len(ops) > 1 {
			<-ctx.Done()
			batchErr = ctx.Err()
			return batchErr
		}
		return run(ctx, q, ops)
	}
	sizes := gather(b, 3)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	ctxs := []context.Context{context.Background(), context.Background(), gone}
	errs := make([]error, len(ctxs))
	var wg sync.WaitGroup
	for i, ctx := range ctxs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = b.do(ctx, &scratchOp{n: i})
		}()
	}
	wg.Wait()
	if fmt.Sprint(sizes()) != "[3]" || !errors.Is(batchErr, context.DeadlineExceeded) {
		t.Fatalf("batches of %v, the batch failing with %v; want one of 3 that ran out of time", sizes(), batchErr)
	}
	if errs[0] != nil || errs[1] != nil || !errors.Is(errs[2], context.Canceled) {
		t.Fatalf("operations ended with %v; want the first two written and the third canceled", errs)
	}
	if rows, txs := count(); rows != 2 || txs != 2 {
		t.Fatalf("%d rows in %d transactions, want 2 in 2", rows, txs)
	}
}
