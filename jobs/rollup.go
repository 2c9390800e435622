package jobs

import (
	"context"
	"fmt"
	"time"

	"tracker/stats"
)

// Rollup folds the completions' tallies into the downloaders' totals and
// the time series behind the charts and the 24-hour and 7-day
// leaderboards, then drops minute buckets past their keep. Incremental: it
// reads only what was appended since its last run.
func Rollup(s *stats.Store) Job {
	return Job{
		Name:  "rollup",
		Every: 2 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			folded, err := s.Fold(ctx)
			if err != nil {
				return fmt.Sprintf("folded %d tallies", folded), err
			}
			pruned, err := s.Prune(ctx)
			return fmt.Sprintf("folded %d tallies, dropped %d minute buckets", folded, pruned), err
		},
	}
}
