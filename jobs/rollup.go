package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"tracker/stats"
)

// Rollup folds the completions' tallies into the downloaders' totals and
// the time series behind the charts and the 24-hour and 7-day
// leaderboards, then drops minute buckets past their keep. Incremental: it
// reads only what was appended since its last run. A project whose tallies
// cannot be folded fails alone: the others are folded, and the run's
// summary and error name it.
func Rollup(s *stats.Store) Job {
	return Job{
		Name:  "rollup",
		Every: 2 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			folded, err := s.Fold(ctx)
			var partial *stats.FoldError
			if err != nil && !errors.As(err, &partial) {
				return fmt.Sprintf("folded %d tallies", folded), err
			}
			pruned, perr := s.Prune(ctx)
			summary := fmt.Sprintf("folded %d tallies, dropped %d minute buckets", folded, pruned)
			if partial != nil {
				names := partial.Names()
				noun := "project"
				if len(names) > 1 {
					noun = "projects"
				}
				summary += fmt.Sprintf("; not folded, left pending: %s %s", noun, strings.Join(names, ", "))
			}
			return summary, errors.Join(err, perr)
		},
	}
}
