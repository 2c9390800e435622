package projects

import "context"

// StandardQueues are the queues every project has, in the order a request
// tries them after the requester's own downloader:NICK queue.
var StandardQueues = []string{"todo", "backfeed", "secondary", "redo"}

// Summary counts a project's items by state.
type Summary struct {
	// Queues maps every standard queue, and each downloader queue that holds
	// items, to its size.
	Queues map[string]int64
	Claims int64
	// Done counts completions ever recorded, archived ones included.
	Done  int64
	Bytes int64
}

// Summary counts the project's items in every state.
func (s *Store) Summary(ctx context.Context, p Project) (Summary, error) {
	sum := Summary{Queues: make(map[string]int64)}
	for _, q := range StandardQueues {
		sum.Queues[q] = 0
	}
	queues, err := s.q.TodoCountByQueue(ctx, p.ID)
	if err != nil {
		return Summary{}, err
	}
	for _, q := range queues {
		sum.Queues[q.Queue] = q.Items
	}
	if sum.Claims, err = s.q.ClaimsCount(ctx, p.ID); err != nil {
		return Summary{}, err
	}
	done, err := s.Done(ctx, p)
	if err != nil {
		return Summary{}, err
	}
	sum.Done, sum.Bytes = done.Items, done.Bytes
	return sum, nil
}

// Totals are a project's completions and their bytes.
type Totals struct {
	Items, Bytes int64
}

// Done totals the project's completions ever recorded, archived ones
// included.
func (s *Store) Done(ctx context.Context, p Project) (Totals, error) {
	t, err := s.q.DoneCount(ctx, p.ID)
	return Totals{Items: t.Items, Bytes: t.Bytes}, err
}
