package items

import (
	"context"

	"tracker/db"
	"tracker/projects"
)

// RevisitDue moves up to max items of a recurring project whose next visit
// is due into the queues of their scores, soonest first, and returns how
// many. A project switched to mode once has no schedule any more: its
// items still waiting are all moved, to be handed out once more and done.
// Each batch is one transaction, serialised with an admin's requeue of the
// project's completed items (see RevisitsLock).
func (e *Engine) RevisitDue(ctx context.Context, p projects.Project, max int) (int64, error) {
	var n int64
	err := db.WithTx(ctx, e.pool, func(q *db.Queries) error {
		if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
			return err
		}
		if err := q.RevisitsLock(ctx, p.ID); err != nil {
			return err
		}
		var err error
		n, err = q.RevisitsDue(ctx, db.RevisitsDueParams{ProjectID: p.ID, Max: int32(max), Every: !p.Config.Recurring()})
		return err
	})
	if n > 0 {
		// The items may land behind this process's heads.
		e.forgetHeads(p.ID)
	}
	return n, err
}
