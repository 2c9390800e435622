package archive

import (
	"context"

	"tracker/db"
	"tracker/projects"
)

// Purge removes a deleted project's record of which archive holds each
// archived item, a batch at a time; the archives' own rows go with the
// project's, and their files stay on disk for the operator. Stopped
// midway, it carries on where it was at the next call.
func (a *Archiver) Purge(ctx context.Context, p projects.Project) error {
	if err := p.CheckDeleting(); err != nil {
		return err
	}
	return db.Purge(ctx, p.ID, db.PurgeTableOf("archived", a.q.ArchivedPurgeBatch))
}
