package jobs

import "context"

// inBatches runs step, one transaction of at most batch items, until a step
// does fewer (the work is done) or fails, and returns how many items the
// steps did: the loop of the jobs that work through a project's rows.
func inBatches(ctx context.Context, batch int64, step func() (int64, error)) (int64, error) {
	var total int64
	for ctx.Err() == nil {
		n, err := step()
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
	return total, ctx.Err()
}
