package sites

import (
	"context"

	"tracker/db"
)

// Purge removes a deleted project's sites, a batch at a time. Stopped
// midway, it carries on where it was at the next call. Only for a project
// being deleted: jobs.Purge calls it.
func (s *Store) Purge(ctx context.Context, projectID int32) error {
	return db.Purge(ctx, projectID, db.PurgeTableOf("sites", s.q.SitesPurgeBatch))
}
