package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/archive"
	"tracker/items"
	"tracker/projects"
	"tracker/sites"
	"tracker/stats"
	"tracker/volunteers"
)

// Purge removes the rows of projects an admin deleted, in the background:
// a project of millions of items goes a batch at a time. It purges again
// the projects gone whose rows are found all the same (see
// projects.Store.ListGone): what read a project before its deletion may
// write after its purge (a backfeed post, a statement that read it in a
// transaction committed since), and an older tracker left such rows for
// good. Project by project: one that cannot be purged is reported (and
// tried again next run), the others are purged all the same.
func Purge(pool *pgxpool.Pool, store *projects.Store, engine *items.Engine, archiver *archive.Archiver) Job {
	pr := purger{
		store: store, items: engine, archive: archiver,
		sites: sites.NewStore(pool), stats: stats.NewStore(pool), volunteers: volunteers.New(pool),
	}
	return Job{
		Name:  "purge",
		Every: 30 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			ps, err := store.ListDeleting(ctx)
			if err != nil {
				return "", err
			}
			// The sweep need not hold up the purges: its failure is
			// reported with theirs.
			gone, goneErr := store.ListGone(ctx)
			if goneErr != nil {
				goneErr = fmt.Errorf("projects gone: %w", goneErr)
			}
			late := map[int32]bool{}
			for _, p := range gone {
				late[p.ID] = true
			}
			purged, swept := 0, 0
			err = eachProject(ctx, append(ps, gone...), func(p projects.Project) error {
				if err := pr.purge(ctx, p); err != nil {
					return err
				}
				if late[p.ID] {
					swept++
				} else {
					purged++
				}
				return nil
			})
			summary := fmt.Sprintf("purged %d projects", purged)
			if len(gone) > 0 {
				summary += fmt.Sprintf(", swept the rows written late of %d purged before", swept)
			}
			return summary, errors.Join(err, goneErr)
		},
	}
}

// purger holds the packages that keep a project's rows: each purges the
// tables it owns.
type purger struct {
	store      *projects.Store
	items      *items.Engine
	sites      *sites.Store
	stats      *stats.Store
	volunteers *volunteers.Counter
	archive    *archive.Archiver
}

// purge removes a deleting project's rows from every table, package by
// package, and then the project's own row: until that last step the
// project is still listed as deleting, so a purge stopped midway carries
// on where it was at the next run. Every table with a project_id is purged
// here or goes with the project's row (TestPurgeRemovesEveryTable checks
// them all).
func (pr purger) purge(ctx context.Context, p projects.Project) error {
	if err := p.CheckDeleting(); err != nil {
		return err
	}
	if err := pr.items.Purge(ctx, p); err != nil {
		return err
	}
	if err := pr.sites.Purge(ctx, p.ID); err != nil {
		return err
	}
	if err := pr.stats.Purge(ctx, p); err != nil {
		return err
	}
	if err := pr.volunteers.Purge(ctx, p.ID); err != nil {
		return err
	}
	if err := pr.archive.Purge(ctx, p); err != nil {
		return err
	}
	return pr.store.Purge(ctx, p)
}
