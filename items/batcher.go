package items

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// batcher combines concurrent operations of one kind (claims, completions)
// into one transaction: the operations that arrive while a transaction is
// running wait, then run together in the next, where run turns them into a
// few statements for all of them instead of several each. With
// synchronous_commit on, a lone claim or completion spends much of its time
// on its flush to disk and its statements' overhead; under load a batch
// shares both among dozens. At low load an operation runs at once, alone.
//
// No goroutine waits in the background: the caller whose operation finds
// no transaction running leads a batch itself, and a batch that ends with
// operations still waiting starts the next one. One transaction at a time
// makes the largest batches; a slow one (a lock held elsewhere, a flush
// stuck on the disk) would hold up every operation behind it, so once the
// last one started has run slowAfter, an operation leads another beside
// it, up to maxBatches.
type batcher[T any] struct {
	pool       *pgxpool.Pool
	maxBatches int           // transactions in flight at once
	slowAfter  time.Duration // how long the last one runs before another may start
	maxOps     int           // operations in one transaction
	timeout    time.Duration // of a batch's transaction; batchTimeout when 0 (tests shorten it)
	// run executes a batch in a transaction. It must set every result of
	// every operation (a batch that fails runs again, one operation at a
	// time), and use the context it is given: the batch's own, or for an
	// operation run again alone its caller's.
	run func(ctx context.Context, q *db.Queries, ops []*T) error
	// begin gives the statements that open a batch's transaction
	// (batchBegin when nil).
	begin func(ctx context.Context) ([]string, error)

	// Hooks for tests, nil otherwise. queued is called once an operation
	// is pending (outside the lock); forming by a leader just before it
	// takes the pending operations into its batch, so a test can hold it
	// there while operations gather; formed with the size of each batch.
	queued  func()
	forming func()
	formed  func(n int)

	mu        sync.Mutex
	pending   []*waiting[T]
	active    int
	lastStart time.Time // of the last batch formed
}

type waiting[T any] struct {
	op   *T
	ctx  context.Context // the caller's, for the operation run alone
	err  error
	done chan struct{} // closed when the operation is finished (see err)
}

// batchTimeout bounds one batch: operations must not wait on a stuck
// database forever.
const batchTimeout = 30 * time.Second

// do runs op in a shared transaction and returns once that transaction has
// committed (nil) or failed. ctx is the caller's: the shared transaction
// is not bound to it, but op run again alone is.
func (b *batcher[T]) do(ctx context.Context, op *T) error {
	w := &waiting[T]{op: op, ctx: ctx, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, w)
	lead := b.active == 0 || b.active < b.maxBatches && time.Since(b.lastStart) >= b.slowAfter
	if lead {
		b.active++
	}
	b.mu.Unlock()
	if b.queued != nil {
		b.queued()
	}
	if lead {
		b.lead()
	}
	// Not bound to the caller's context: once queued, the operation may
	// already be part of a running transaction.
	<-w.done
	return w.err
}

// lead runs one batch of the pending operations, then the next batch in a
// goroutine of its own if operations are waiting, or gives up its slot.
func (b *batcher[T]) lead() {
	if b.forming != nil {
		b.forming()
	}
	b.mu.Lock()
	n := min(len(b.pending), b.maxOps)
	batch := slices.Clone(b.pending[:n])
	b.pending = b.pending[n:]
	b.lastStart = time.Now()
	b.mu.Unlock()
	if b.formed != nil {
		b.formed(n)
	}

	b.exec(batch)
	for _, w := range batch {
		close(w.done)
	}

	b.mu.Lock()
	more := len(b.pending) > 0
	if !more {
		b.active--
	}
	b.mu.Unlock()
	if more {
		go b.lead()
	}
}

// batchBegin opens a batch's transaction, sent with its first statement in
// one round trip. The statements are few and large (a claim or a
// completion for a whole batch is one statement of many CTEs), and
// PostgreSQL, weighing each execution's custom plan against the generic
// one, kept planning them anew: at one item per request the planning cost
// more than the work. They run on their generic plans, which
// TestHotQueryPlans holds to their indexes. Where the driver makes no
// generic plans (db.Driver's GenericPlans), the choice is left to it.
var batchBegin = []string{"BEGIN", "SET LOCAL plan_cache_mode = force_generic_plan"}

func (b *batcher[T]) exec(batch []*waiting[T]) {
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(b.timeout, batchTimeout))
	defer cancel()
	ops := make([]*T, len(batch))
	for i, w := range batch {
		ops[i] = w.op
	}
	ran, err := b.transact(ctx, ops)
	switch {
	case err == nil:
		return
	case ran || len(batch) == 1 && !isDeadlock(err):
		// The commit failed after every statement ran: whether it took
		// effect is unknown, and running claims again would hand out items
		// nobody receives. Report the failure.
		for _, w := range batch {
			w.err = err
		}
		return
	}
	// A statement failed (a deadlock, one operation's bad data, the
	// batch's time running out): the batch was rolled back whole. Each
	// operation runs again alone, with its caller's context and a time of
	// its own, not the batch's (which may be what ran out), so a failure
	// fails only its own request, and a request whose caller is gone fails
	// alone.
	for _, w := range batch {
		w.err = b.runAlone(w)
	}
}

// runAlone runs one operation of a failed batch in a transaction of its own.
func (b *batcher[T]) runAlone(w *waiting[T]) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(w.ctx, batchTimeout)
	defer cancel()
	return retry(func() error {
		_, err := b.transact(ctx, []*T{w.op})
		return err
	})
}

// transact runs ops in one transaction. ran reports whether all of its
// statements ran, so that an error is the commit's.
func (b *batcher[T]) transact(ctx context.Context, ops []*T) (ran bool, err error) {
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	// A connection left in a transaction (a failed rollback) is closed
	// by the pool, not reused.
	defer conn.Release()
	begin := batchBegin
	if b.begin != nil {
		if begin, err = b.begin(ctx); err != nil {
			return false, err
		}
	}
	tx := db.BeginPipelined(conn.Conn(), begin...)
	if err := b.run(ctx, db.Of(tx), ops); err != nil {
		_ = tx.Rollback(ctx)
		return false, err
	}
	return true, tx.Commit(ctx)
}

// retry runs fn again when the database chose it as a deadlock victim: two
// transactions can still cross on rows a batch takes in no fixed order
// (claims of the same items), and the second try finds the other gone.
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
