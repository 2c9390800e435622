package jobs

import (
	"context"
	"fmt"
	"time"

	"tracker/projects"
)

// Purge removes the rows of projects an admin deleted, in the background:
// a project of millions of items goes a batch at a time.
func Purge(store *projects.Store) Job {
	return Job{
		Name:  "purge",
		Every: 30 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.ListDeleting(ctx)
			if err != nil {
				return "", err
			}
			for i, p := range ps {
				if err := store.Purge(ctx, p); err != nil {
					return fmt.Sprintf("purged %d projects", i), fmt.Errorf("project %s: %w", p.Slug, err)
				}
			}
			return fmt.Sprintf("purged %d projects", len(ps)), nil
		},
	}
}
