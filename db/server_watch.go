package db

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// When the database server goes away (it stopped or crashed, or a standby
// was promoted in its place) every connection made to it is dead, but a
// pool learns that one connection at a time: each fails the statement of
// its next user, and a pool kept busy never pings them first (pgxpool pings
// a connection only after a second idle). A process has several pools on
// one database (the web requests', the readers', the jobs'), so a failover
// would cost a failed request per connection of each.
//
// A serverWatch is shared by every pool of the process opened on the same
// address. The first statement that finds its connection gone marks the
// moment; from then on each connection made before it is dropped when it
// is next taken from any of the pools, and a fresh one is made in its
// place, on whichever server the address now leads to.
type serverWatch struct {
	// lost is when a connection last went away under a statement, in
	// nanoseconds since the process started (0: never).
	lost atomic.Int64
	// born is when each open connection was made, on the same clock.
	born sync.Map // *pgx.Conn → int64
}

// start is the watches' clock's origin: time.Since reads the monotonic
// clock, so a change of the wall clock moves nothing.
var start = time.Now()

func sinceStart() int64 { return int64(time.Since(start)) }

// watches holds one serverWatch per database address.
var watches sync.Map // string → *serverWatch

func watchFor(dsn string) *serverWatch {
	w, _ := watches.LoadOrStore(dsn, &serverWatch{})
	return w.(*serverWatch)
}

// install hooks w into a pool's configuration.
func (w *serverWatch) install(cfg *pgxpool.Config) {
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		w.born.Store(conn, sinceStart())
		if after == nil {
			return nil
		}
		return after(ctx, conn)
	}
	cfg.BeforeClose = func(conn *pgx.Conn) { w.born.Delete(conn) }
	cfg.PrepareConn = func(_ context.Context, conn *pgx.Conn) (bool, error) {
		born, ok := w.born.Load(conn)
		return !ok || born.(int64) > w.lost.Load(), nil
	}
	cfg.ConnConfig.Tracer = w
}

// ended notes how a statement on conn ended: with its connection closed
// under it while its caller still waited, the server went away. (A
// statement whose context ended may have closed its connection itself.)
func (w *serverWatch) ended(ctx context.Context, conn *pgx.Conn, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	var pgErr *pgconn.PgError
	readOnly := errors.As(err, &pgErr) && pgErr.Code == "25006"
	if conn.IsClosed() || readOnly {
		// A server that now refuses writes was demoted to a standby.
		w.lost.Store(sinceStart())
	}
}

// The pgx tracer hooks: the end of every statement, batch and copy.

func (w *serverWatch) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (w *serverWatch) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	w.ended(ctx, conn, data.Err)
}

func (w *serverWatch) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (w *serverWatch) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (w *serverWatch) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {
	w.ended(ctx, conn, data.Err)
}

func (w *serverWatch) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return ctx
}

func (w *serverWatch) TraceCopyFromEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceCopyFromEndData) {
	w.ended(ctx, conn, data.Err)
}
