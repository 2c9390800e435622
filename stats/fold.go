// Package stats holds the numbers volunteers see: downloaders' totals,
// completions over time, and the rollups that keep them without scanning
// completions.
package stats

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// Store reads and maintains the statistics.
type Store struct {
	q *db.Queries
}

func NewStore(pool *pgxpool.Pool) *Store { return &Store{q: db.New(pool)} }

const (
	// foldBatch bounds one fold statement.
	foldBatch = 20000
	// FeedKept is how many of the latest done requests each project's feed
	// keeps.
	FeedKept = 50
)

// MinutesKept is how long per-minute buckets are kept; the hour buckets
// cover all time.
const MinutesKept = 48 * time.Hour

// Fold moves the tallies completions appended into the downloaders' totals
// and the minute and hour series, batch by batch (each its own
// transaction), until none are left or ctx ends. It returns how many
// tallies it folded.
func (s *Store) Fold(ctx context.Context) (int64, error) {
	var total int64
	for ctx.Err() == nil {
		n, err := s.q.DoneTalliesFold(ctx, db.DoneTalliesFoldParams{Max: foldBatch, FeedKept: FeedKept})
		total += n
		if err != nil {
			return total, err
		}
		if n < foldBatch {
			_, err := s.q.FeedPrune(ctx, FeedKept)
			return total, err
		}
	}
	return total, ctx.Err()
}

// Prune drops the minute buckets older than MinutesKept.
func (s *Store) Prune(ctx context.Context) (int64, error) {
	return s.q.SeriesMinutesPrune(ctx, pgtype.Interval{Microseconds: MinutesKept.Microseconds(), Valid: true})
}
