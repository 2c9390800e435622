package items

import (
	"context"
	"time"

	"tracker/db"
	"tracker/projects"
)

// CompleteIn records the completions cs as one batch through q, a
// transaction of the test's, as the batcher runs them; it returns how many
// items each completed.
func (e *Engine) CompleteIn(ctx context.Context, q *db.Queries, p projects.Project, cs ...Completion) ([]int64, error) {
	ops := make([]*doneOp, len(cs))
	for i, c := range cs {
		op, err := newDoneOp(p, c)
		if err != nil {
			return nil, err
		}
		ops[i] = op
	}
	if err := e.runDones(ctx, q, ops); err != nil {
		return nil, err
	}
	completed := make([]int64, len(ops))
	for i, op := range ops {
		completed[i] = op.completed
	}
	return completed, nil
}

// HoldCounts keeps the request counts in memory, whatever time passes,
// until FlushCountsNext: a test says when they are written.
func (e *Engine) HoldCounts() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.countsFlushed = time.Now().Add(24 * time.Hour)
}

// FlushCountsNext makes the next claim batch write the request counts
// held in memory, as the first batch after a second does.
func (e *Engine) FlushCountsNext() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.countsFlushed = time.Time{}
}

// SitesKnown is how many site ids the engine remembers.
func (e *Engine) SitesKnown() int {
	e.sitesMu.Lock()
	defer e.sitesMu.Unlock()
	return e.sitesKnown
}
