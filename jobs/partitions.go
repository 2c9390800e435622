// Package jobs holds the tracker's background work: reclaiming expired
// claims, archiving completions, folding statistics, housekeeping. A Runner
// runs them in every serve process, each job in one process at a time.
package jobs

import (
	"context"
	"time"

	"tracker/projects"
)

// EnsurePartitions creates the completion partitions of every project from
// the day before now to a week after it, so completions land in day
// partitions (which archival drops whole) rather than in the default one.
// Idempotent and serialised in the database: serve runs it at start, before
// the first request, and housekeeping every hour. Project by project: a
// project whose partitions cannot be created is reported as a
// *ProjectErrors (its completions land in its default partition meanwhile),
// and the others' are created all the same.
func EnsurePartitions(ctx context.Context, store *projects.Store, now time.Time) error {
	ps, err := store.List(ctx)
	if err != nil {
		return err
	}
	return eachProject(ctx, ps, func(p projects.Project) error { return store.EnsurePartitions(ctx, p, now) })
}
