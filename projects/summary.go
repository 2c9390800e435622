package projects

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"tracker/db"
)

// StandardQueues are the queues every project has, in the order a request
// tries them after the requester's own downloader:NICK queue.
var StandardQueues = []string{"todo", "backfeed", "secondary", "redo"}

// RetiredQueue holds the items of a recurring project whose score fell
// below its retire_below: never served, until an admin revives them.
const RetiredQueue = "retired"

// RevisitQueuePrefix starts the queues of a recurring project's due items,
// one per band of scores (see the SQL function revisit_queue): 'revisit:00'
// the highest scores, 'revisit:20' those around 1 (a new item's), up to
// 'revisit:99'.
const RevisitQueuePrefix = "revisit:"

// revisitBandOfOne is the band of the score 1.0.
const revisitBandOfOne = 20

// RevisitQueues are the names of every band's queue, highest scores first.
var RevisitQueues = func() []string {
	qs := make([]string, 100)
	for i := range qs {
		qs[i] = fmt.Sprintf("%s%02d", RevisitQueuePrefix, i)
	}
	return qs
}()

// ServedQueues are the queues a request is served from, after the
// requester's own, in order: the bands of due items scored 1 and above,
// highest first, then the standard queues (new items score 1), then the
// lower bands. Only the bands holding items are named, found among the
// queues the counters know: the others cost a request nothing.
func ServedQueues(queues map[string]int64) []string {
	var high, low []string
	for q, n := range queues {
		switch {
		case n <= 0 || !strings.HasPrefix(q, RevisitQueuePrefix):
		case q <= RevisitQueues[revisitBandOfOne]:
			high = append(high, q)
		default:
			low = append(low, q)
		}
	}
	if high == nil && low == nil {
		return StandardQueues
	}
	slices.Sort(high)
	slices.Sort(low)
	return slices.Concat(high, StandardQueues, low)
}

// ErrorQueue holds the items that failed: handed out max_claims times, the
// last claim expired. No request is served from it; an admin requeues or
// drops its items.
const ErrorQueue = "error"

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
	// Failed counts items ever sent to the error queue (Queues[ErrorQueue]
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
}

// Summary counts the project's items in every state, from the counters the
// engine keeps in step with its tables (no count over millions of rows).
func (s *Store) Summary(ctx context.Context, p Project) (Summary, error) {
	return SummaryOf(ctx, s.q, p)
}

// SummaryOf is Summary read through q: in a transaction of the caller's.
func SummaryOf(ctx context.Context, q *db.Queries, p Project) (Summary, error) {
	sum := Summary{Queues: make(map[string]int64)}
	for _, q := range StandardQueues {
		sum.Queues[q] = 0
	}
	rows, err := q.CountersByProject(ctx, p.ID)
	if err != nil {
		return Summary{}, err
	}
	for _, r := range rows {
		switch name := r.Name; {
		case strings.HasPrefix(name, "queue:"):
			if q := strings.TrimPrefix(name, "queue:"); r.Value != 0 || isStandard(q) {
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
		}
	}
	return sum, nil
}

// Queued counts the items waiting to be handed out: every queue but the
// error and retired queues.
func (sum Summary) Queued() int64 {
	var n int64
	for q, size := range sum.Queues {
		if q != ErrorQueue && q != RetiredQueue {
			n += size
		}
	}
	return n
}

// Retired counts the retired items of a recurring project.
func (sum Summary) Retired() int64 { return sum.Queues[RetiredQueue] }

// Errors counts the items in the error queue.
func (sum Summary) Errors() int64 { return sum.Queues[ErrorQueue] }

func isStandard(queue string) bool {
	for _, q := range StandardQueues {
		if q == queue {
			return true
		}
	}
	return false
}

// QueueNames lists the standard queues, then the other queues that held
// items when the summary was read: every queue an item can be in.
func (sum Summary) QueueNames() []string {
	var others []string
	for q, n := range sum.Queues {
		if n > 0 && !slices.Contains(StandardQueues, q) {
			others = append(others, q)
		}
	}
	slices.Sort(others)
	return append(slices.Clone(StandardQueues), others...)
}
