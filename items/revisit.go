package items

import (
	"context"

	"tracker/db"
	"tracker/projects"
)

// RevisitDue moves up to max items of a recurring project whose next visit
// is due into the queues of their scores, soonest first, and returns how
// many. One statement, so each batch is whole or not at all.
func (e *Engine) RevisitDue(ctx context.Context, p projects.Project, max int) (int64, error) {
	n, err := e.q.RevisitsDue(ctx, db.RevisitsDueParams{ProjectID: p.ID, Max: int32(max), LimitedTypes: p.Config.LimitedTypes()})
	if n > 0 {
		// The items may land behind this process's heads.
		e.forgetHeads(p.ID)
	}
	return n, err
}
