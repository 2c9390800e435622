package items

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"tracker/audit"
	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// The actions of the admin panel's queue browser act on the items an
// admin ticked, by name: the engine finds their ids (seen) and each
// statement its rows by id through its table's key, so a selection costs
// the same in a queue of ten million items as in one of ten. Each names
// its selection in the audit log ("names"), where an item's page finds it.

// MaxSelected bounds the names of one action on a selection: a few pages
// of the browser.
const MaxSelected = 1000

// checkSelected refuses an empty selection, one too large, and names that
// are no item names (nothing could match them).
func checkSelected(names []string) error {
	if len(names) == 0 {
		return refusal.New(refusal.Invalid, "nothing-selected", errors.New("no item is selected"))
	}
	if len(names) > MaxSelected {
		return refusal.New(refusal.Invalid, "too-many-selected", fmt.Errorf("%d items selected: at most %d at once", len(names), MaxSelected))
	}
	for _, n := range names {
		if err := naming.ValidName(n); err != nil {
			return refusal.New(refusal.Invalid, "invalid-item", fmt.Errorf("%q: %w", n, err))
		}
	}
	return nil
}

// selectedIDs are the ids of the items names may name.
func (e *Engine) selectedIDs(ctx context.Context, q *db.Queries, p projects.Project, names []string) ([]int64, error) {
	d, err := e.driver(ctx)
	if err != nil {
		return nil, err
	}
	return d.SeenIDsOfNames(ctx, q, db.SeenIDsOfNamesParams{ProjectID: p.ID, Names: names})
}

// CountSelected counts the items of a browser list (see ValidSource)
// among names: what an action on the selection would touch, for its
// confirmation.
func (e *Engine) CountSelected(ctx context.Context, p projects.Project, source string, names []string) (int64, error) {
	if err := ValidSource(source); err != nil {
		return 0, refusal.New(refusal.Invalid, "unknown-queue", err)
	}
	if err := checkSelected(names); err != nil {
		return 0, err
	}
	if source == BrowseClaims {
		return e.q.ClaimsCountItems(ctx, db.ClaimsCountItemsParams{ProjectID: p.ID, Names: names})
	}
	ids, err := e.selectedIDs(ctx, e.q, p, names)
	if err != nil {
		return 0, err
	}
	switch source {
	case BrowseScheduled:
		return e.q.RevisitsCountItems(ctx, db.RevisitsCountItemsParams{ProjectID: p.ID, IDs: ids, Names: names})
	case BrowseDone:
		return e.q.DoneCountItems(ctx, db.DoneCountItemsParams{ProjectID: p.ID, IDs: ids, Names: names})
	}
	return e.q.TodoCountItems(ctx, db.TodoCountItemsParams{ProjectID: p.ID, Queue: source, IDs: ids, Names: names})
}

// MoveSelected moves the items of queue from among names to queue to, or
// drops them when to is empty, as MoveQueue does with the items it
// selects; it returns how many.
func (e *Engine) MoveSelected(ctx context.Context, p projects.Project, from, to string, names []string) (int64, error) {
	for _, q := range []string{from, to} {
		if q != "" {
			if err := naming.ValidQueue(q); err != nil {
				return 0, refusal.New(refusal.Invalid, "unknown-queue", err)
			}
		}
	}
	if from == to {
		return 0, refusal.New(refusal.Invalid, "same-queue", errors.New("the queues are the same"))
	}
	if err := checkSelected(names); err != nil {
		return 0, err
	}
	action, detail := "queue.move", map[string]any{"from": from, "to": to, "names": names}
	if to == "" {
		action = "queue.drain"
		delete(detail, "to")
	}
	sum, err := projects.SummaryOf(ctx, e.q, p)
	if err != nil {
		return 0, err
	}
	queues, types := naming.QueueNames(sum.Queues), p.Config.Stretches()
	return e.selected(ctx, p, action, detail, names, to != "", func(ctx context.Context, q *db.Queries, ids []int64, names []string) (int64, error) {
		if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
			return 0, err
		}
		arg := db.TodoMoveItemsParams{ProjectID: p.ID, FromQueue: from, ToQueue: to,
			IDs: ids, Names: names, Queues: queues, Types: types}
		d, err := e.driver(ctx)
		if err != nil {
			return 0, err
		}
		return d.TodoMoveItems(ctx, q, arg)
	})
}

// ReleaseSelected gives the claims of the items among names back to their
// queues, in their old place, whoever holds them, and returns how many.
func (e *Engine) ReleaseSelected(ctx context.Context, p projects.Project, names []string) (int64, error) {
	if err := checkSelected(names); err != nil {
		return 0, err
	}
	tally, err := audit.Begin(ctx, e.q, "claims.release", p.ID, map[string]any{"names": names}, "released")
	if err != nil {
		return 0, err
	}
	var total int64
	defer func() {
		if total > 0 {
			e.forgetHeads(p.ID)
		}
	}()
	for batch := range slices.Chunk(names, releaseBatch) {
		n, err := tally.Batch(ctx, e.pool, func(q *db.Queries) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
				return 0, err
			}
			rows, err := q.ClaimsRelease(ctx, db.ClaimsReleaseParams{ProjectID: p.ID, Names: batch})
			return int64(len(rows)), err
		})
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// VisitSelected moves the items among names that wait for their next
// visit (a recurring project's) into queue, or into the queue of their
// score when queue is empty, as the revisit job does when they are due,
// and returns how many.
func (e *Engine) VisitSelected(ctx context.Context, p projects.Project, queue string, names []string) (int64, error) {
	if queue != "" {
		if err := naming.ValidQueue(queue); err != nil {
			return 0, refusal.New(refusal.Invalid, "unknown-queue", err)
		}
	}
	if err := checkSelected(names); err != nil {
		return 0, err
	}
	return e.selected(ctx, p, "revisits.visit", map[string]any{"queue": queue, "names": names}, names, true,
		func(ctx context.Context, q *db.Queries, ids []int64, names []string) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
				return 0, err
			}
			// Not while the revisit job or a requeue moves them.
			if err := q.RevisitsLock(ctx, p.ID); err != nil {
				return 0, err
			}
			return q.RevisitsVisitNow(ctx, db.RevisitsVisitNowParams{ProjectID: p.ID, Queue: queue, IDs: ids, Names: names})
		})
}

// RequeueSelected queues the completed items among names again in queue,
// as RequeueDone does with the items it selects (an item out or queued
// already is left alone; one waiting for its next visit is visited now),
// and returns how many.
func (e *Engine) RequeueSelected(ctx context.Context, p projects.Project, queue string, names []string) (int64, error) {
	if err := naming.ValidQueue(queue); err != nil {
		return 0, refusal.New(refusal.Invalid, "unknown-queue", err)
	}
	if err := checkSelected(names); err != nil {
		return 0, err
	}
	sum, err := projects.SummaryOf(ctx, e.q, p)
	if err != nil {
		return 0, err
	}
	queues := naming.QueueNames(sum.Queues)
	if !slices.Contains(queues, queue) {
		queues = append(queues, queue)
	}
	return e.selected(ctx, p, "done.requeue", map[string]any{"queue": queue, "names": names}, names, true,
		func(ctx context.Context, q *db.Queries, ids []int64, names []string) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
				return 0, err
			}
			if err := q.RevisitsLock(ctx, p.ID); err != nil {
				return 0, err
			}
			return q.DoneRequeueItems(ctx, db.DoneRequeueItemsParams{ProjectID: p.ID, Queue: queue, IDs: ids, Names: names, Queues: queues})
		})
}

// selected runs an action on a selection in batches of moveBatch names,
// each its own transaction, counted in the action's audit entry ("items"),
// and returns how many items it changed. queued says it puts items in a
// queue (the request path's head hints are then stale).
func (e *Engine) selected(ctx context.Context, p projects.Project, action string, detail map[string]any, names []string, queued bool,
	run func(ctx context.Context, q *db.Queries, ids []int64, names []string) (int64, error)) (int64, error) {
	tally, err := audit.Begin(ctx, e.q, action, p.ID, detail, "items")
	if err != nil {
		return 0, err
	}
	var total int64
	defer func() {
		if total > 0 && queued {
			e.forgetHeads(p.ID)
		}
	}()
	for batch := range slices.Chunk(names, moveBatch) {
		ids, err := e.selectedIDs(ctx, e.q, p, batch)
		if err != nil {
			return total, err
		}
		if len(ids) == 0 {
			continue
		}
		n, err := tally.Batch(ctx, e.pool, func(q *db.Queries) (int64, error) { return run(ctx, q, ids, batch) })
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
