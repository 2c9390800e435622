package items

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// groupCommit runs the statements of concurrent requests together: the
// operations that arrive while a transaction is running wait, and then run
// in one transaction of their own, with one flush to disk for all of them.
// With synchronous_commit on, the flush is what a lone claim or completion
// spends most of its time on; under load a batch shares it among dozens.
// At low load an operation runs at once in a transaction of its own.
//
// No goroutine waits in the background: the caller whose operation finds
// fewer than maxBatches transactions running leads a batch itself, and a
// batch that ends with operations still waiting starts the next one.
type groupCommit struct {
	pool       *pgxpool.Pool
	maxBatches int // transactions in flight at once
	maxOps     int // operations in one transaction

	mu      sync.Mutex
	pending []*op
	active  int
}

// op is one request's share of a batch.
type op struct {
	// key orders the operations of a batch, so that two batches take the
	// row locks they share (a downloader's totals) in the same order and
	// never deadlock.
	key  string
	fn   func(ctx context.Context, q *db.Queries) error
	err  error
	done chan struct{} // closed when the operation is finished (see err)
}

// batchTimeout bounds one batch: an operation must not wait on a stuck
// database forever.
const batchTimeout = 30 * time.Second

func newGroupCommit(pool *pgxpool.Pool, maxBatches, maxOps int) *groupCommit {
	return &groupCommit{pool: pool, maxBatches: maxBatches, maxOps: maxOps}
}

// do runs fn in a shared transaction and returns once that transaction has
// committed (nil) or failed. fn may run more than once (a deadlock is
// retried), so it must only set, never accumulate, what it hands back. It
// must use the context it is given, the batch's: a caller's context ending
// would cancel statements of the others' shared transaction.
func (g *groupCommit) do(key string, fn func(ctx context.Context, q *db.Queries) error) error {
	o := &op{key: key, fn: fn, done: make(chan struct{})}
	g.mu.Lock()
	g.pending = append(g.pending, o)
	lead := g.active < g.maxBatches
	if lead {
		g.active++
	}
	g.mu.Unlock()
	if lead {
		g.lead()
	}
	// Not bound to the caller's context: once queued, the operation may
	// already be part of a running transaction.
	<-o.done
	return o.err
}

// lead runs one batch of the pending operations, then the next batch in a
// goroutine of its own if operations are waiting, or gives up its slot.
func (g *groupCommit) lead() {
	g.mu.Lock()
	n := min(len(g.pending), g.maxOps)
	batch := slices.Clone(g.pending[:n])
	g.pending = g.pending[n:]
	g.mu.Unlock()

	slices.SortStableFunc(batch, func(a, b *op) int { return cmp.Compare(a.key, b.key) })
	g.run(batch)
	for _, o := range batch {
		close(o.done)
	}

	g.mu.Lock()
	more := len(g.pending) > 0
	if !more {
		g.active--
	}
	g.mu.Unlock()
	if more {
		go g.lead()
	}
}

func (g *groupCommit) run(batch []*op) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	if len(batch) > 1 {
		ran := false
		err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
			q := db.New(tx)
			for _, o := range batch {
				if err := o.fn(ctx, q); err != nil {
					return err
				}
			}
			ran = true
			return nil
		})
		switch {
		case err == nil:
			return
		case ran:
			// Every statement ran and the commit failed: whether it took
			// effect is unknown, and running the claims again would hand out
			// more items than anyone receives. Report the failure.
			for _, o := range batch {
				o.err = err
			}
			return
		}
		// A statement failed (a deadlock, an item of bad data): the batch was
		// rolled back whole; each operation runs again alone, so one
		// failure fails only its own request.
	}
	for _, o := range batch {
		o.err = retry(func() error {
			return pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error { return o.fn(ctx, db.New(tx)) })
		})
	}
}

// retry runs fn again when the database chose it as a deadlock victim: two
// transactions can still cross on rows the batch keys do not order (claims
// of the same items), and the second try finds the other gone.
func retry(fn func() error) error {
	var err error
	for range 3 {
		if err = fn(); !isDeadlock(err) {
			return err
		}
	}
	return err
}

func isDeadlock(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}
