package items

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"

	"tracker/audit"
	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// moveBatch bounds one statement of the queue operations.
const moveBatch = 5000

// Selection picks items by name: a prefix ("user:" for a type) and a
// PostgreSQL regular expression, each applying when not empty; and claims
// by site, the site's id in the project as claims keep it (0: any).
type Selection struct {
	Prefix, Pattern string
	Site            int32
	// exact: Pattern is Exactly's, a quoted name (see check).
	exact bool
}

// claimsOnly refuses a selection by site where items are not claims: only
// ReleaseWhere and CountClaimsWhere select by site.
func (sel Selection) claimsOnly() error {
	if sel.Site != 0 {
		return refusal.New(refusal.Invalid, "", errors.New("only claims are selected by site"))
	}
	return nil
}

// badPattern turns PostgreSQL's refusal of a regular expression into the
// client's mistake.
func badPattern(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "2201B" {
		return refusal.New(refusal.Invalid, "bad-pattern", fmt.Errorf("invalid pattern: %s", pgErr.Message))
	}
	return err
}

// MoveQueue moves the selected items of queue from to queue to, keeping
// their order, or drops them when to is empty (they stay seen, so they are
// not queued again). Batch by batch, each its own transaction; it returns
// how many.
func (e *Engine) MoveQueue(ctx context.Context, p projects.Project, from, to string, sel Selection) (int64, error) {
	for _, q := range []string{from, to} {
		if q != "" {
			if err := naming.ValidQueue(q); err != nil {
				return 0, refusal.New(refusal.Invalid, "", err)
			}
		}
	}
	if from == to {
		return 0, refusal.New(refusal.Invalid, "", errors.New("the queues are the same"))
	}
	if err := sel.claimsOnly(); err != nil {
		return 0, err
	}
	if err := sel.check(); err != nil {
		return 0, err
	}
	var total int64
	defer func() {
		if total > 0 && to != "" {
			e.forgetHeads(p.ID)
		}
	}()
	action, detail := "queue.move", map[string]any{"from": from, "to": to, "prefix": sel.Prefix, "pattern": sel.Pattern}
	if to == "" {
		action = "queue.drain"
		delete(detail, "to")
	}
	// Where else a dropped item may be queued: its parameters stay then.
	sum, err := projects.SummaryOf(ctx, e.q, p)
	if err != nil {
		return 0, err
	}
	queues, types := naming.QueueNames(sum.Queues), p.Config.Stretches()
	tally, err := audit.Begin(ctx, e.q, action, p.ID, detail, "items")
	if err != nil {
		return 0, err
	}
	for ctx.Err() == nil {
		n, err := tally.Batch(ctx, e.pool, func(q *db.Queries) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
				return 0, err
			}
			arg := db.TodoMoveParams{ProjectID: p.ID, FromQueue: from, ToQueue: to,
				Prefix: sel.Prefix, Pattern: sel.Pattern, Max: moveBatch, Queues: queues, Types: types}
			d, err := e.driver(ctx)
			if err != nil {
				return 0, err
			}
			return d.TodoMove(ctx, q, arg)
		})
		total += n
		if err != nil || n < moveBatch {
			return total, badPattern(err)
		}
	}
	return total, ctx.Err()
}

// RequeueDone queues the selected completed items again in queue (archived
// completions are out of reach), and returns how many.
func (e *Engine) RequeueDone(ctx context.Context, p projects.Project, queue string, sel Selection) (int64, error) {
	if err := naming.ValidQueue(queue); err != nil {
		return 0, refusal.New(refusal.Invalid, "", err)
	}
	if err := sel.claimsOnly(); err != nil {
		return 0, err
	}
	if err := sel.check(); err != nil {
		return 0, err
	}
	var total, after int64
	defer func() {
		if total > 0 {
			e.forgetHeads(p.ID)
		}
	}()
	sum, err := projects.SummaryOf(ctx, e.q, p)
	if err != nil {
		return 0, err
	}
	queues := naming.QueueNames(sum.Queues)
	if !slices.Contains(queues, queue) {
		queues = append(queues, queue)
	}
	tally, err := audit.Begin(ctx, e.q, "done.requeue", p.ID,
		map[string]any{"queue": queue, "prefix": sel.Prefix, "pattern": sel.Pattern}, "items")
	if err != nil {
		return 0, err
	}
	for ctx.Err() == nil {
		var last int64
		n, err := tally.Batch(ctx, e.pool, func(q *db.Queries) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
				return 0, err
			}
			// An item the revisit job is moving out of the schedule must
			// not be queued here as well.
			if err := q.RevisitsLock(ctx, p.ID); err != nil {
				return 0, err
			}
			r, err := q.DoneRequeue(ctx, db.DoneRequeueParams{ProjectID: p.ID, Queue: queue, AfterID: after,
				Prefix: sel.Prefix, Pattern: sel.Pattern, Max: moveBatch, Queues: queues})
			last = r.LastID
			return r.Queued, err
		})
		total += n
		if err != nil || last == 0 {
			return total, badPattern(err)
		}
		after = last
	}
	return total, ctx.Err()
}

// Exactly selects one item by its whole name.
func Exactly(name string) Selection {
	return Selection{Pattern: "^" + regexp.QuoteMeta(name) + "$", exact: true}
}

// MarkDone completes one item by hand for nick: a queued item is handed to
// nick first; a claimed one is completed for its claimant. It reports no
// bytes. Claim, completion and record are one transaction.
func (e *Engine) MarkDone(ctx context.Context, live *projects.Live, name, nick string) error {
	st, err := e.LookupNow(ctx, live, name)
	if err != nil {
		return err
	}
	if st.Status != StatusClaimed && st.Status != StatusTodo && st.Status != StatusFailed {
		return refusal.New(refusal.Invalid, "", fmt.Errorf("the item is %s, not queued, failed or claimed", st.Status))
	}
	return db.WithTx(ctx, e.pool, func(q *db.Queries) error {
		switch st.Status {
		case StatusClaimed:
			nick = st.Downloader
		case StatusTodo, StatusFailed:
			queues := slices.Clone(naming.StandardQueues)
			queues = append(queues, st.Queue)
			n, err := q.TodoClaimOne(ctx, db.TodoClaimOneParams{ProjectID: live.ID, ID: st.id, Downloader: nick,
				Queues: queues, Types: live.Config.Stretches()})
			if err != nil {
				return err
			}
			if n == 0 {
				return refusal.New(refusal.Invalid, "", errors.New("the item was handed out meanwhile"))
			}
		}
		// By the name it was queued under: a backfeed key may differ from it.
		op, err := newDoneOp(live.Project, Completion{Downloader: nick, Items: []string{st.item}, Bytes: map[string]int64{}})
		if err != nil {
			return err
		}
		if err := e.runDones(ctx, q, []*doneOp{op}); err != nil {
			return err
		}
		if op.completed == 0 {
			return refusal.New(refusal.Invalid, "", errors.New("the item changed hands meanwhile"))
		}
		return audit.Record(ctx, q, "item.done", live.ID, map[string]any{"item": name, "downloader": nick})
	})
}
