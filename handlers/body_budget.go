package handlers

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// A body read whole (a backfeed post, a warrior's done) or streamed into an
// import holds memory for as long as its request runs, and a request waits
// for its turn at the database after reading it: without a bound, 60 posts
// of 16 MiB at once took a process from 108 MB to 2.45 GB. So a route
// reserves what its body may take from a budget of bytes, before it reads
// a byte, and gives it back when its answer is done. The reservation is the
// body's declared length (Content-Length), or the route's limit for a body
// that declares none (chunked): what the route will read at most either
// way. A request that cannot get its share within bodyWait is refused (503
// bodies-busy with Retry-After), reading nothing.
//
// Each kind of route has a budget of its own: a flood of backfeed posts
// never makes a warrior's done wait, nor an admin's upload either.

// Body budgets, per process. A body held parsed takes about twice its
// bytes, so the memory the bodies take is bounded by a small multiple of
// these.
const (
	// backfeedBodyBudget: four posts of the largest (16 MiB), or
	// thousands of the few hundred names a script posts.
	backfeedBodyBudget = 64 << 20
	// warriorBodyBudget: sixteen warrior calls of the largest (4 MiB);
	// a done is a few hundred bytes.
	warriorBodyBudget = 64 << 20
	// adminBodyBudget: three items uploads (each streams through at most
	// items.AddMemory) or dictionaries at once.
	adminBodyBudget = 128 << 20
)

// bodyWait is how long a request waits for its share of a budget; a
// warrior gives up after 20 s.
const bodyWait = 10 * time.Second

// bodyRetryAfter is the Retry-After of a request refused for want of a
// share of its budget.
const bodyRetryAfter = 10

// bodyBudgets are a process's budgets, by kind of route.
type bodyBudgets struct {
	backfeed, warrior, admin *bodyBudget
}

func newBodyBudgets(wait time.Duration) bodyBudgets {
	return bodyBudgets{
		backfeed: newBodyBudget(backfeedBodyBudget, wait),
		warrior:  newBodyBudget(warriorBodyBudget, wait),
		admin:    newBodyBudget(adminBodyBudget, wait),
	}
}

// bodyBudget is a budget of bytes that bodies reserve before they are
// read. Waiters are served in turn (semaphore.Weighted is fair): a large
// body is not passed over by a stream of small ones.
type bodyBudget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
	// held is what is reserved now, waiting how many requests wait for
	// their share (the tests read both).
	held, waiting atomic.Int64
}

func newBodyBudget(size int64, wait time.Duration) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// reserve takes from b what r's body may hold, read through a limit of
// limit bytes: its declared length, or limit when it declares none or
// more (the limit refuses it past that). The caller reads the body only
// after, and calls release when its bytes are no longer held.
func (b *bodyBudget) reserve(r *http.Request, limit int64) (release func(), err error) {
	n := r.ContentLength
	if n < 0 || n > limit {
		n = limit
	}
	return b.take(r.Context(), n)
}

// take reserves n bytes of b, waiting at most b.wait for them. n is at most
// b.size: every route's limit is.
func (b *bodyBudget) take(ctx context.Context, n int64) (release func(), err error) {
	if n <= 0 {
		return func() {}, nil
	}
	n = min(n, b.size)
	wctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	b.waiting.Add(1)
	err = b.sem.Acquire(wctx, n)
	b.waiting.Add(-1)
	if err != nil {
		if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return nil, err // the client went away
		}
		return nil, &Error{Status: http.StatusServiceUnavailable, Reason: "bodies-busy",
			Msg: "too many large requests are being read at once; try again shortly", RetryAfter: bodyRetryAfter}
	}
	b.held.Add(n)
	var once sync.Once
	return func() {
		once.Do(func() {
			b.held.Add(-n)
			b.sem.Release(n)
		})
	}, nil
}
