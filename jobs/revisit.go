package jobs

import (
	"context"
	"fmt"
	"time"

	"tracker/items"
	"tracker/projects"
)

// revisitBatch bounds one statement of the revisit job.
const revisitBatch = 5000

// Revisit moves the items of recurring projects whose next visit is due
// into the queues of their scores, where requests find them highest score
// first. Project by project: one that fails is reported, the others' items
// are moved all the same.
func Revisit(store *projects.Store, engine *items.Engine) Job {
	return Job{
		Name:  "revisit",
		Every: 10 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.List(ctx)
			if err != nil {
				return "", err
			}
			var total int64
			// Every project: one made a project done once may still have
			// items waiting, which RevisitDue then queues at once.
			err = eachProject(ctx, ps, func(p projects.Project) error {
				n, err := inBatches(ctx, revisitBatch, func() (int64, error) { return engine.RevisitDue(ctx, p, revisitBatch) })
				total += n
				return err
			})
			return fmt.Sprintf("%d items due", total), err
		},
	}
}
