// Package stats holds the numbers volunteers see: downloaders' totals,
// completions over time, and the rollups that keep them without scanning
// completions.
package stats

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/drivers"
)

// Store reads and maintains the statistics.
type Store struct {
	q   *db.Queries
	drv drivers.Known
}

func NewStore(pool *pgxpool.Pool) *Store { return &Store{q: db.Of(pool)} }

const (
	// foldBatch bounds one fold statement.
	foldBatch = 20000
	// FeedKept is how many of the latest done requests each project's feed
	// keeps.
	FeedKept = 50
	// DomainsKept is how many domains each project keeps and shows apart,
	// those with the most bytes; the others are summed in
	// projects.OtherDomain. Anyone can report bytes for any name: the rows
	// and every board that reads them stay bounded.
	DomainsKept = 100
)

// MinutesKept is how long per-minute buckets are kept; the hour buckets
// cover all time.
const MinutesKept = 48 * time.Hour

// Fold moves the tallies completions appended into the downloaders' totals
// and the minute and hour series, batch by batch (each its own
// transaction), until none are left or ctx ends. It returns how many
// tallies it folded. Each batch reads the tallies appended since the
// watermark, through their index: its cost follows what changed since the
// last fold, not what the table holds (DoneTalliesFold).
//
// Batches take every project's tallies together. When one fails, Fold
// folds project by project instead, so a project whose tallies cannot be
// folded keeps them pending and holds up no other project: every other
// project is folded, and the error is a *FoldError naming the projects
// left pending.
func (s *Store) Fold(ctx context.Context) (int64, error) {
	d, err := s.drv.Of(ctx, s.q.DB())
	if err != nil {
		return 0, err
	}
	fold := func(ctx context.Context, arg db.DoneTalliesFoldParams) (int64, error) {
		return d.DoneTalliesFold(ctx, s.q, arg)
	}
	prune := func() error {
		_, err := d.FeedPrune(ctx, s.q, FeedKept)
		return err
	}
	if d.ProjectsApart() {
		// A project's tallies and totals lie apart (on Citus, on its
		// worker): the fold goes project by project.
		n, err := s.foldEach(ctx, fold)
		if err != nil && ctx.Err() != nil {
			return n, err
		}
		return n, errors.Join(err, prune())
	}
	var total int64
	for ctx.Err() == nil {
		// The highest tally number handed out, read before the batch's
		// transaction begins: what its watermark may move up to.
		next, err := s.q.DoneTalliesSeqLast(ctx)
		if err != nil {
			return total, err
		}
		n, err := fold(ctx, db.DoneTalliesFoldParams{Max: foldBatch, NextSeq: next, DomainsKept: DomainsKept, FeedKept: FeedKept})
		total += n
		if err != nil {
			if ctx.Err() != nil {
				return total, err
			}
			n, err := s.foldEach(ctx, fold)
			total += n
			if err != nil && ctx.Err() != nil {
				return total, err
			}
			return total, errors.Join(err, prune())
		}
		if n < foldBatch {
			return total, prune()
		}
	}
	return total, ctx.Err()
}

// foldEach folds the pending tallies project by project with fold, each
// project until it has none left or one of its batches fails.
func (s *Store) foldEach(ctx context.Context, fold func(context.Context, db.DoneTalliesFoldParams) (int64, error)) (int64, error) {
	pending, err := s.q.DoneTalliesProjects(ctx)
	if err != nil {
		return 0, err
	}
	var total int64
	var failed FoldError
	for _, p := range pending {
		for {
			n, err := fold(ctx, db.DoneTalliesFoldParams{ProjectID: p.ProjectID, Max: foldBatch, DomainsKept: DomainsKept, FeedKept: FeedKept})
			total += n
			if ctx.Err() != nil {
				return total, ctx.Err()
			}
			if err != nil {
				failed.Projects = append(failed.Projects, ProjectFoldError{ProjectID: p.ProjectID, Slug: p.Slug, Err: err})
				break
			}
			if n < foldBatch {
				break
			}
		}
	}
	if len(failed.Projects) == 0 {
		return total, nil
	}
	return total, &failed
}

// FoldError lists the projects whose tallies could not be folded; they stay
// pending, and every other project's were folded.
type FoldError struct {
	Projects []ProjectFoldError
}

// ProjectFoldError is why one project's tallies could not be folded.
type ProjectFoldError struct {
	ProjectID int32
	Slug      string // empty when the project is gone
	Err       error
}

// Name is how the project is named in messages: its slug, or its id once
// it has none.
func (e ProjectFoldError) Name() string {
	if e.Slug != "" {
		return e.Slug
	}
	return fmt.Sprintf("#%d", e.ProjectID)
}

func (e *FoldError) Error() string {
	parts := make([]string, len(e.Projects))
	for i, p := range e.Projects {
		parts[i] = fmt.Sprintf("project %s: %v", p.Name(), p.Err)
	}
	return "folding tallies: " + strings.Join(parts, "; ")
}

// Names are the slugs (or ids) of the projects left pending.
func (e *FoldError) Names() []string {
	out := make([]string, len(e.Projects))
	for i, p := range e.Projects {
		out[i] = p.Name()
	}
	return out
}

func (e *FoldError) Unwrap() []error {
	out := make([]error, len(e.Projects))
	for i, p := range e.Projects {
		out[i] = p.Err
	}
	return out
}

// Prune drops the minute buckets older than MinutesKept.
func (s *Store) Prune(ctx context.Context) (int64, error) {
	return s.q.SeriesMinutesPrune(ctx, MinutesKept)
}
