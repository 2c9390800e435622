package items

import (
	"context"
	"time"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// The counts below say what a bulk action of the admin panel would touch,
// so the panel can ask "release 1,204 claims?" before it does. Each reads
// every row it counts, each regular expression checked first (CheckPattern);
// the statement timeout of the admin panel's pool bounds them, and a
// count it stops is search-too-costly.

// CountClaimsWhere counts the claims ReleaseWhere would give back.
func (e *Engine) CountClaimsWhere(ctx context.Context, p projects.Project, downloader string, olderThan time.Duration, sel Selection) (int64, error) {
	if err := sel.check(); err != nil {
		return 0, err
	}
	n, err := e.q.ClaimsCountWhere(ctx, db.ClaimsCountWhereParams{ProjectID: p.ID, Downloader: downloader,
		OlderThan: max(olderThan, 0),
		Prefix:    sel.Prefix, Pattern: sel.Pattern, Site: sel.Site})
	return n, searchRefusal(err)
}

// CountQueued counts the items of queue MoveQueue would move or drop.
func (e *Engine) CountQueued(ctx context.Context, p projects.Project, queue string, sel Selection) (int64, error) {
	if err := naming.ValidQueue(queue); err != nil {
		return 0, refusal.New(refusal.Invalid, "", err)
	}
	if err := sel.claimsOnly(); err != nil {
		return 0, err
	}
	if err := sel.check(); err != nil {
		return 0, err
	}
	n, err := e.q.TodoCountWhere(ctx, db.TodoCountWhereParams{ProjectID: p.ID, Queue: queue, Prefix: sel.Prefix, Pattern: sel.Pattern})
	return n, searchRefusal(err)
}

// CountDone counts the completed items RequeueDone would look at.
func (e *Engine) CountDone(ctx context.Context, p projects.Project, sel Selection) (int64, error) {
	if err := sel.claimsOnly(); err != nil {
		return 0, err
	}
	if err := sel.check(); err != nil {
		return 0, err
	}
	n, err := e.q.DoneCountWhere(ctx, db.DoneCountWhereParams{ProjectID: p.ID, Prefix: sel.Prefix, Pattern: sel.Pattern})
	return n, searchRefusal(err)
}
