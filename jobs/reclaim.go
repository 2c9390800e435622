package jobs

import (
	"context"
	"fmt"
	"time"

	"tracker/items"
	"tracker/projects"
)

// reclaimBatch bounds one statement of the reclaim job: a batch is one
// short transaction however many claims have expired.
const reclaimBatch = 5000

// Reclaim puts claims that were never finished back in their queues, for
// every project with a reclaim TTL, so they are handed out again.
func Reclaim(store *projects.Store, engine *items.Engine) Job {
	return Job{
		Name:  "reclaim",
		Every: 30 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.List(ctx)
			if err != nil {
				return "", err
			}
			var total int64
			for _, p := range ps {
				for ctx.Err() == nil {
					n, err := engine.ReclaimExpired(ctx, p, reclaimBatch)
					total += n
					if err != nil {
						return fmt.Sprintf("reclaimed %d items", total), fmt.Errorf("project %s: %w", p.Slug, err)
					}
					if n < reclaimBatch {
						break
					}
				}
			}
			return fmt.Sprintf("reclaimed %d items", total), ctx.Err()
		},
	}
}
