package items

import (
	"context"
	"time"

	"tracker/db"
)

// requestCounts are the item requests a process served, per project, not
// yet written to the counters: the queue-health stats of the leaderboard
// (request serve rate, reclaim serve rate).
type requestCounts struct {
	requests, served, reclaimServed int64
	// sitesWaited: requests that got nothing while the project's items
	// waited for their sites (politeness).
	sitesWaited int64
}

// countFlushEvery: request counts are written at most this often, inside a
// claim transaction, so counting costs no statement of its own per request.
const countFlushEvery = time.Second

// countPoliteWait counts a request that got nothing while the project's
// items waited for their sites; the next batch writes it.
func (e *Engine) countPoliteWait(project int32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.counts[project]
	if c == nil {
		c = &requestCounts{}
		e.counts[project] = c
	}
	c.sitesWaited++
}

// countRequests adds a batch's requests to the counts and, once a second,
// writes the counts in the batch's transaction. Counts of a batch that
// fails are lost: they are statistics, not items.
func (e *Engine) countRequests(ctx context.Context, q *db.Queries, ops []*claimOp) error {
	e.mu.Lock()
	for _, o := range ops {
		c := e.counts[o.live.ID]
		if c == nil {
			c = &requestCounts{}
			e.counts[o.live.ID] = c
		}
		c.requests++
		if len(o.names) > 0 {
			c.served++
		}
		if o.reclaimed {
			c.reclaimServed++
		}
	}
	var flush map[int32]*requestCounts
	if time.Since(e.countsFlushed) >= countFlushEvery {
		flush, e.counts, e.countsFlushed = e.counts, map[int32]*requestCounts{}, time.Now()
	}
	e.mu.Unlock()
	if d, err := e.driver(ctx); err != nil {
		return err
	} else if d.ProjectsApart() {
		// Each project's counters lie apart (on Citus, on its worker): the
		// batch writes only its own projects', so a worker away holds up
		// the claims of its projects only. The others' wait for their next
		// claim.
		e.keepCounts(flush, ops)
	}

	for project, c := range flush {
		if err := q.CountersAdd(ctx, db.CountersAddParams{
			ProjectID: project,
			Names:     []string{"requests", "requests_served", "requests_reclaim_served", "requests_sites_waited"},
			Deltas:    []int64{c.requests, c.served, c.reclaimServed, c.sitesWaited},
		}); err != nil {
			return err
		}
	}
	return nil
}

// keepCounts puts back the counts of flush whose project has no claim in
// ops, to be written with a later batch.
func (e *Engine) keepCounts(flush map[int32]*requestCounts, ops []*claimOp) {
	mine := map[int32]bool{}
	for _, o := range ops {
		mine[o.live.ID] = true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for project, c := range flush {
		if mine[project] {
			continue
		}
		delete(flush, project)
		kept := e.counts[project]
		if kept == nil {
			kept = &requestCounts{}
			e.counts[project] = kept
		}
		kept.requests += c.requests
		kept.served += c.served
		kept.reclaimServed += c.reclaimServed
		kept.sitesWaited += c.sitesWaited
	}
}
