package audit

import (
	"context"
	"regexp"

	"tracker/db"
)

// OfItem returns the newest entries (at most max) of the project's log
// that name the item: a single-item action names it as "item", or as a
// selection of exactly its name (the "pattern" ^name$, as the panel's
// actions on one item select it), a bulk action on the items an admin
// ticked lists it in "names". An action that selected the item among
// others by prefix or pattern does not name it, and is not listed.
func (l *Log) OfItem(ctx context.Context, projectID int32, name string, max int) ([]Row, error) {
	rows, err := l.q.AuditLogOfItem(ctx, db.AuditLogOfItemParams{ProjectID: projectID, Name: name,
		Exactly: "^" + regexp.QuoteMeta(name) + "$", Max: int32(max)})
	if err != nil {
		return nil, err
	}
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = Row{ID: r.ID, At: r.At, Username: r.Username, Action: r.Action, Detail: r.Detail}
		if r.IP != nil {
			out[i].IP = *r.IP
		}
	}
	return out, nil
}
