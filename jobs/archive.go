package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tracker/archive"
	"tracker/projects"
)

// Archive moves the completions of every project older than its
// archive_after out of the hot tables, a day at a time. Project by
// project: one whose days cannot be archived is reported, the others are
// archived all the same.
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
			err = eachProject(ctx, ps, func(p projects.Project) error {
				res, err := a.Project(ctx, p, time.Now())
				total.Days += res.Days
				total.Items += res.Items
				return err
			})
			// On Citus the days are every project's: each is dropped once
			// nobody's completions are left in it.
			dropped, dropErr := a.DropEmptyDays(ctx, time.Now())
			if dropped > 0 {
				return fmt.Sprintf("%s; %d empty days dropped", summary(total), dropped), errors.Join(err, dropErr)
			}
			return summary(total), errors.Join(err, dropErr)
		},
	}
}

func summary(r archive.Result) string {
	return fmt.Sprintf("archived %d completions of %d days", r.Items, r.Days)
}
