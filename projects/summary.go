package projects

import (
	"context"
	"strings"

	"tracker/db"
	"tracker/naming"
)

// Summary counts a project's items by state.
type Summary struct {
	// Queues maps every standard queue, and each downloader queue that holds
	// items, to its size.
	Queues map[string]int64
	Claims int64
	// Done counts completions ever recorded, archived ones included.
	Done     int64
	Bytes    int64
	Reclaims int64
	// Archived and Discarded count the completions archival moved out of
	// the hot tables (Done includes them).
	Archived  int64
	Discarded int64
	// Requeued counts items ever put back behind a queue's head.
	Requeued int64
	// Failed counts items ever sent to the error queue (Queues[naming.ErrorQueue]
	// is how many are there now).
	Failed int64
	// Revisits are the items of a recurring project waiting for their next
	// visit to be due.
	Revisits int64
	// BackfedAgain counts the items backfeed posts with skipbloom=1 queued
	// again although the project had seen them (see items.BackfeedOptions).
	BackfedAgain int64

	// For the queue-health stats: item requests that reached the engine,
	// those given items, those given a reclaimed item; completions of items
	// claimed more than once; and the sum of claim-to-done times.
	Requests              int64
	RequestsServed        int64
	RequestsReclaimServed int64
	DoneReclaimed         int64
	RoundTripMs           int64

	// Items reported done by a downloader who neither holds them nor held
	// them last: answered OK, completed for nobody.
	DoneNotHeld int64
	// Items reported done, and claims released, under their holder's nick
	// from another network than the claim's (Config.ClaimerNetwork): refused
	// when the project sets it, taken when not.
	DoneOtherNetwork    int64
	ReleaseOtherNetwork int64
}

// Summary counts the project's items in every state, from the counters the
// engine keeps in step with its tables (no count over millions of rows).
func (s *Store) Summary(ctx context.Context, p Project) (Summary, error) {
	return SummaryOf(ctx, s.q, p)
}

// SummaryOf is Summary read through q: in a transaction of the caller's.
func SummaryOf(ctx context.Context, q *db.Queries, p Project) (Summary, error) {
	sum := Summary{Queues: make(map[string]int64)}
	for _, q := range naming.StandardQueues {
		sum.Queues[q] = 0
	}
	rows, err := q.CountersByProject(ctx, p.ID)
	if err != nil {
		return Summary{}, err
	}
	for _, r := range rows {
		switch name := r.Name; {
		case strings.HasPrefix(name, "queue:"):
			if q := strings.TrimPrefix(name, "queue:"); r.Value != 0 || naming.IsStandard(q) {
				sum.Queues[q] = r.Value
			}
		case name == "claims":
			sum.Claims = r.Value
		case name == "done":
			sum.Done = r.Value
		case name == "bytes":
			sum.Bytes = r.Value
		case name == "reclaims":
			sum.Reclaims = r.Value
		case name == "archived":
			sum.Archived = r.Value
		case name == "discarded":
			sum.Discarded = r.Value
		case name == "requeued":
			sum.Requeued = r.Value
		case name == "failed":
			sum.Failed = r.Value
		case name == "revisits":
			sum.Revisits = r.Value
		case name == "backfed_again":
			sum.BackfedAgain = r.Value
		case name == "requests":
			sum.Requests = r.Value
		case name == "requests_served":
			sum.RequestsServed = r.Value
		case name == "requests_reclaim_served":
			sum.RequestsReclaimServed = r.Value
		case name == "done_reclaimed":
			sum.DoneReclaimed = r.Value
		case name == "round_trip_ms":
			sum.RoundTripMs = r.Value
		case name == "done_not_held":
			sum.DoneNotHeld = r.Value
		case name == "done_other_network":
			sum.DoneOtherNetwork = r.Value
		case name == "release_other_network":
			sum.ReleaseOtherNetwork = r.Value
		}
	}
	return sum, nil
}

// Queued counts the items waiting to be handed out: every queue but the
// error and retired queues.
func (sum Summary) Queued() int64 {
	var n int64
	for q, size := range sum.Queues {
		if q != naming.ErrorQueue && q != naming.RetiredQueue {
			n += size
		}
	}
	return n
}

// Retired counts the retired items of a recurring project.
func (sum Summary) Retired() int64 { return sum.Queues[naming.RetiredQueue] }

// Errors counts the items in the error queue.
func (sum Summary) Errors() int64 { return sum.Queues[naming.ErrorQueue] }
