package db

import (
	"context"
	"fmt"
)

// PurgeBatch bounds one delete of a deleted project's rows: a project of
// millions of items goes a batch at a time, so no transaction grows with
// the project.
const PurgeBatch = 10000

// PurgeTable is one table's part of a deleted project's purge.
type PurgeTable struct {
	Name string
	// batch deletes up to PurgeBatch of the project's rows and says how
	// many it deleted.
	batch func(ctx context.Context, projectID int32) (int64, error)
}

// PurgeTableOf is the purge of a table by its batch delete, a query
// "DELETE ... WHERE project_id = @project_id LIMIT @max" (one per table:
// TodoPurgeBatch, SitesPurgeBatch, ...).
func PurgeTableOf[P ~struct {
	ProjectID int32
	Max       int32
}](name string, del func(context.Context, P) (int64, error)) PurgeTable {
	return PurgeTable{Name: name, batch: func(ctx context.Context, projectID int32) (int64, error) {
		return del(ctx, P{ProjectID: projectID, Max: PurgeBatch})
	}}
}

// Purge removes the project's rows from the tables, in order, a batch at
// a time, each batch its own transaction. Stopped midway (an error, the
// context done), it carries on where it was at the next call: what was
// deleted stays deleted.
func Purge(ctx context.Context, projectID int32, tables ...PurgeTable) error {
	for _, t := range tables {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := t.batch(ctx, projectID)
			if err != nil {
				return fmt.Errorf("purging %s: %w", t.Name, err)
			}
			if n < PurgeBatch {
				break
			}
		}
	}
	return nil
}
