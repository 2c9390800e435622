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
// every project with a reclaim TTL, so they are handed out again; items
// handed out a project's max_claims times go to its error queue instead.
// Project by project: one whose claims cannot be reclaimed is reported and
// the others are reclaimed all the same.
func Reclaim(store *projects.Store, engine *items.Engine) Job {
	return Job{
		Name:  "reclaim",
		Every: 30 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.List(ctx)
			if err != nil {
				return "", err
			}
			var requeued, failed int64
			err = eachProject(ctx, ps, func(p projects.Project) error {
				_, err := inBatches(ctx, reclaimBatch, func() (int64, error) {
					n, f, err := engine.ReclaimExpired(ctx, p, reclaimBatch)
					requeued, failed = requeued+n, failed+f
					return n + f, err
				})
				return err
			})
			return fmt.Sprintf("reclaimed %d items, %d failed", requeued, failed), err
		},
	}
}
