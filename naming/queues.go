package naming

import (
	"fmt"
	"slices"
	"strings"
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

// DownloaderQueue is the queue of items set aside for one downloader.
func DownloaderQueue(nick string) string { return "downloader:" + nick }

// ValidQueue says why queue cannot name a queue, or returns nil.
func ValidQueue(queue string) error {
	if nick, ok := strings.CutPrefix(queue, "downloader:"); ok {
		if err := ValidNick(nick); err != nil {
			return fmt.Errorf("queue %q: %w", queue, err)
		}
		return nil
	}
	if slices.Contains(StandardQueues, queue) || queue == ErrorQueue || queue == RetiredQueue ||
		slices.Contains(RevisitQueues, queue) {
		return nil
	}
	return fmt.Errorf("unknown queue %q: use todo, backfeed, secondary, redo, error, retired, revisit:00 to revisit:99 or downloader:NICK", queue)
}

// IsStandard says whether queue is one of the StandardQueues.
func IsStandard(queue string) bool {
	for _, q := range StandardQueues {
		if q == queue {
			return true
		}
	}
	return false
}

// QueueNames lists the standard queues, then the other queues that held
// items in queues (a project summary's sizes by queue): every queue an item
// can be in.
func QueueNames(queues map[string]int64) []string {
	var others []string
	for q, n := range queues {
		if n > 0 && !slices.Contains(StandardQueues, q) {
			others = append(others, q)
		}
	}
	slices.Sort(others)
	return append(slices.Clone(StandardQueues), others...)
}
