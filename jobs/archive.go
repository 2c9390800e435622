package jobs

import (
	"context"
	"fmt"
	"time"

	"tracker/archive"
	"tracker/projects"
)

// Archive moves the completions of every project older than its
// archive_after out of the hot tables, a day at a time.
func Archive(store *projects.Store, a *archive.Archiver) Job {
	return Job{
		Name:  "archive",
		Every: 10 * time.Minute,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.List(ctx)
			if err != nil {
				return "", err
			}
			var total archive.Result
			for _, p := range ps {
				res, err := a.Project(ctx, p, time.Now())
				total.Days += res.Days
				total.Items += res.Items
				if err != nil {
					return summary(total), fmt.Errorf("project %s: %w", p.Slug, err)
				}
			}
			return summary(total), nil
		},
	}
}

func summary(r archive.Result) string {
	return fmt.Sprintf("archived %d completions of %d days", r.Items, r.Days)
}
