package jobs

import (
	"context"
	"fmt"
	"time"

	"tracker/projects"
)

// Purge removes the rows of projects an admin deleted, in the background:
// a project of millions of items goes a batch at a time. Project by
// project: one that cannot be purged is reported (and tried again next
// run), the others are purged all the same.
func Purge(store *projects.Store) Job {
	return Job{
		Name:  "purge",
		Every: 30 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.ListDeleting(ctx)
			if err != nil {
				return "", err
			}
			purged := 0
			err = eachProject(ctx, ps, func(p projects.Project) error {
				if err := store.Purge(ctx, p); err != nil {
					return err
				}
				purged++
				return nil
			})
			return fmt.Sprintf("purged %d projects", purged), err
		},
	}
}
